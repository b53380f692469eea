/* gemv.c - the fully connected layer of --memory-first: a Gemm or MatMul with a constant
 * weight, one row of A at a time (batch 1 is one row), no scratch:
 *   y[m * ldy + n] = act(alpha * sum over k of x[m * xm + k * xk] * w'[n][k]
 *                        + beta * bias[m * bm + n * bn] + res[m * ldr + n])
 * for m < M, n < N; bias and res may be NULL; act and p0, p1 as in templates/gemm_act.c.
 * y must not overlap x (the whole row of x is read for every block of outputs).
 *
 * The weight w' (N x K: row n holds the K weights of output n) comes reordered by the compiler
 * (compiler/ops/gemm_plan.h, gp_gemv_blocks) into blocks of GEMV_R = 8 outputs: block b (outputs
 * 8b .. 8b + nb - 1, nb = min(8, N - 8b)) starts at 8b * K and holds, for each k, the nb weights
 * of its outputs side by side.  The same bytes as the weight, no padding.
 *
 * A block of 8 outputs keeps its 8 sums in registers, reads each x[k] once for the 8 of them
 * and its weights as one contiguous run, and applies alpha, bias, residual and the activation
 * before its one store:
 *   - O2C_V4 (Helium on Cortex-M55, SSE, NEON; templates/o2c_target.c): two 4-float vectors of
 *     sums, per k two vector loads and two multiply-adds by the scalar x[k];
 *   - Cortex-M4/M7/M33 with a single-precision FPU under GCC (GEMV_VLDM): per 2 k one vldmia
 *     of the 16 weights into s16-s31 (local register variables, the documented use of GCC's
 *     extended asm), then 16 multiply-adds: 1 load for 16 weights instead of 16;
 *   - anything else (tcc, RV32F, clang on Arm, O2C_NO_VECTOR): the same loops in plain C.
 * k is unrolled by 4 (the odd ks one at a time).  A last block of fewer than 8 outputs takes a
 * plain loop. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm_act.c"
#include "o2c_target.c"
#endif

#define GEMV_R 8

/* What every block of one call shares: x's k stride, K, the epilogue. */
typedef struct gemv_geo_T {
    int64_t xk, K, bn;
    T alpha, beta;
    int act;
    T p0, p1;
} gemv_geo_T;

#if O2C_V4 && O2C_F32_T
/* two vectors of 4 sums */
#define GEMV_DECL                                                                                  \
    int64_t kx = 0;                                                                                \
    o2c_v4 a0 = o2c_v4_dup(0.0f), a1 = a0;
#define GEMV_K(wk, xv)                                                                             \
    a0 = o2c_v4_fma(a0, o2c_v4_ld(wk), xv), a1 = o2c_v4_fma(a1, o2c_v4_ld((wk) + 4), xv);
/* 8 ks, 4 ks, 1 k (x and w move on) */
#define GEMV_K4                                                                                    \
    {                                                                                              \
        const T x0 = x[kx], x1 = x[kx + xk], x2 = x[kx + 2 * xk], x3 = x[kx + 3 * xk];             \
        GEMV_K(w, x0) GEMV_K(w + 8, x1) GEMV_K(w + 16, x2) GEMV_K(w + 24, x3)                      \
        w += 4 * GEMV_R, kx += 4 * xk;                                                             \
    }
#define GEMV_K8 GEMV_K4 GEMV_K4
#define GEMV_K1 GEMV_K(w, x[kx]) w += GEMV_R, kx += xk;
#define GEMV_OUT                                                                                   \
    {                                                                                              \
        const o2c_v4 zero = o2c_v4_dup(0.0f);                                                      \
        if (g->alpha != (T)1)                                                                      \
            a0 = o2c_v4_fma(zero, a0, g->alpha), a1 = o2c_v4_fma(zero, a1, g->alpha);              \
        if (bias && g->bn && g->beta == (T)1) {                                                    \
            a0 = o2c_v4_add(a0, o2c_v4_ld(bias)), a1 = o2c_v4_add(a1, o2c_v4_ld(bias + 4));        \
        } else if (bias && g->bn) {                                                                \
            a0 = o2c_v4_fma(a0, o2c_v4_ld(bias), g->beta);                                         \
            a1 = o2c_v4_fma(a1, o2c_v4_ld(bias + 4), g->beta);                                     \
        } else if (bias) {                                                                         \
            const o2c_v4 b_ = o2c_v4_dup(g->beta * bias[0]);                                       \
            a0 = o2c_v4_add(a0, b_), a1 = o2c_v4_add(a1, b_);                                      \
        }                                                                                          \
        if (res)                                                                                   \
            a0 = o2c_v4_add(a0, o2c_v4_ld(res)), a1 = o2c_v4_add(a1, o2c_v4_ld(res + 4));          \
        if (g->act == GEMM_ACT_RELU)                                                               \
            a0 = o2c_v4_relu(a0), a1 = o2c_v4_relu(a1);                                            \
        else if (g->act == GEMM_ACT_CLIP)                                                          \
            a0 = o2c_v4_clip(a0, g->p0, g->p1), a1 = o2c_v4_clip(a1, g->p0, g->p1);                \
        o2c_v4_st(y, a0), o2c_v4_st(y + 4, a1);                                                    \
    }
#else
/* 8 scalar sums */
#define GEMV_DECL                                                                                  \
    GEMV_XDECL                                                                                     \
    T s0 = (T)0, s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
#if !defined(O2C_NO_VECTOR) && O2C_F32_T && defined(__GNUC__) && !defined(__clang__) &&       \
    !defined(__TINYC__) && defined(__thumb2__) && defined(__ARM_FP) && (__ARM_FP & 4) &&        \
    (defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__))
#define GEMV_VLDM 1
/* the 16 weights at p into w0 .. w15 (s16 .. s31) by one vldmia, p += 16 (8 for GEMV_LD8) */
#define GEMV_LD16(p)                                                                               \
    register T w0 __asm__("s16"), w1 __asm__("s17"), w2 __asm__("s18"), w3 __asm__("s19");        \
    register T w4 __asm__("s20"), w5 __asm__("s21"), w6 __asm__("s22"), w7 __asm__("s23");        \
    register T w8 __asm__("s24"), w9 __asm__("s25"), w10 __asm__("s26"), w11 __asm__("s27");      \
    register T w12 __asm__("s28"), w13 __asm__("s29"), w14 __asm__("s30"), w15 __asm__("s31");    \
    __asm__("vldmia %16!, {s16-s31}"                                                               \
            : "=t"(w0), "=t"(w1), "=t"(w2), "=t"(w3), "=t"(w4), "=t"(w5), "=t"(w6), "=t"(w7),      \
              "=t"(w8), "=t"(w9), "=t"(w10), "=t"(w11), "=t"(w12), "=t"(w13), "=t"(w14),           \
              "=t"(w15), "+r"(p)                                                                   \
            : "m"(*(const T(*)[16])(p)));
#define GEMV_LD8(p)                                                                                \
    register T w0 __asm__("s16"), w1 __asm__("s17"), w2 __asm__("s18"), w3 __asm__("s19");        \
    register T w4 __asm__("s20"), w5 __asm__("s21"), w6 __asm__("s22"), w7 __asm__("s23");        \
    __asm__("vldmia %8!, {s16-s23}"                                                                \
            : "=t"(w0), "=t"(w1), "=t"(w2), "=t"(w3), "=t"(w4), "=t"(w5), "=t"(w6), "=t"(w7),      \
              "+r"(p)                                                                              \
            : "m"(*(const T(*)[8])(p)));
#define GEMV_STEP(p, n)
/* x[k .. k + 3] into x0 .. x3 (s0 .. s3), or x[k .. k + 7] into x0 .. x7 (s0 .. s7), by one
 * vldmia when xk is 1 (xw walks the row: it never passes its end); else read at x[kx], kx
 * counting (a pointer that moved past a strided column's end would be undefined) */
#define GEMV_XDECL                                                                                 \
    const T *xw = x;                                                                               \
    int64_t kx = 0;
#define GEMV_LDX4                                                                                  \
    register T x0 __asm__("s0"), x1 __asm__("s1"), x2 __asm__("s2"), x3 __asm__("s3");            \
    if (xk == 1)                                                                                   \
        __asm__("vldmia %4!, {s0-s3}"                                                              \
                : "=t"(x0), "=t"(x1), "=t"(x2), "=t"(x3), "+r"(xw)                                 \
                : "m"(*(const T(*)[4])(xw)));                                                      \
    else                                                                                           \
        x0 = x[kx], x1 = x[kx + xk], x2 = x[kx + 2 * xk], x3 = x[kx + 3 * xk], kx += 4 * xk;
#define GEMV_LDX8                                                                                  \
    register T x0 __asm__("s0"), x1 __asm__("s1"), x2 __asm__("s2"), x3 __asm__("s3");            \
    register T x4 __asm__("s4"), x5 __asm__("s5"), x6 __asm__("s6"), x7 __asm__("s7");            \
    if (xk == 1)                                                                                   \
        __asm__("vldmia %8!, {s0-s7}"                                                              \
                : "=t"(x0), "=t"(x1), "=t"(x2), "=t"(x3), "=t"(x4), "=t"(x5), "=t"(x6),            \
                  "=t"(x7), "+r"(xw)                                                               \
                : "m"(*(const T(*)[8])(xw)));                                                      \
    else                                                                                           \
        x0 = x[kx], x1 = x[kx + xk], x2 = x[kx + 2 * xk], x3 = x[kx + 3 * xk],                     \
        x4 = x[kx + 4 * xk], x5 = x[kx + 5 * xk], x6 = x[kx + 6 * xk], x7 = x[kx + 7 * xk],        \
        kx += 8 * xk;
#define GEMV_LDX1                                                                                  \
    T x0;                                                                                          \
    if (xk == 1)                                                                                   \
        x0 = *xw++;                                                                                \
    else                                                                                           \
        x0 = x[kx], kx += xk;
#else
#define GEMV_VLDM 0
#define GEMV_LD16(p)                                                                               \
    const T w0 = (p)[0], w1 = (p)[1], w2 = (p)[2], w3 = (p)[3], w4 = (p)[4], w5 = (p)[5];         \
    const T w6 = (p)[6], w7 = (p)[7], w8 = (p)[8], w9 = (p)[9], w10 = (p)[10], w11 = (p)[11];     \
    const T w12 = (p)[12], w13 = (p)[13], w14 = (p)[14], w15 = (p)[15];
#define GEMV_LD8(p)                                                                                \
    const T w0 = (p)[0], w1 = (p)[1], w2 = (p)[2], w3 = (p)[3], w4 = (p)[4], w5 = (p)[5];         \
    const T w6 = (p)[6], w7 = (p)[7];
#define GEMV_STEP(p, n) (p) += (n);
#define GEMV_XDECL int64_t kx = 0;
#define GEMV_LDX4                                                                                  \
    const T x0 = x[kx], x1 = x[kx + xk], x2 = x[kx + 2 * xk], x3 = x[kx + 3 * xk];                 \
    kx += 4 * xk;
#define GEMV_LDX8                                                                                  \
    const T x0 = x[kx], x1 = x[kx + xk], x2 = x[kx + 2 * xk], x3 = x[kx + 3 * xk];                 \
    const T x4 = x[kx + 4 * xk], x5 = x[kx + 5 * xk], x6 = x[kx + 6 * xk], x7 = x[kx + 7 * xk];    \
    kx += 8 * xk;
#define GEMV_LDX1                                                                                  \
    const T x0 = x[kx];                                                                            \
    kx += xk;
#endif
/* the 8 multiply-adds of x[k] with the weights wA .. wA+7 (already loaded) */
#define GEMV_FMA8(xv, a, b, c, d, e, f, g_, h)                                                     \
    s0 += a * (xv), s1 += b * (xv), s2 += c * (xv), s3 += d * (xv);                                \
    s4 += e * (xv), s5 += f * (xv), s6 += g_ * (xv), s7 += h * (xv);
/* OP on each of the 8 sums; the epilogue tests its cases once per block */
#define GEMV_EACH(OP)                                                                              \
    { OP(0, s0) OP(1, s1) OP(2, s2) OP(3, s3) OP(4, s4) OP(5, s5) OP(6, s6) OP(7, s7) }
/* 2 ks with x[k] in xa, xb: one load of their 16 weights, w moves on */
#define GEMV_K2(xa, xb)                                                                            \
    {                                                                                              \
        GEMV_LD16(w)                                                                               \
        GEMV_FMA8(xa, w0, w1, w2, w3, w4, w5, w6, w7)                                              \
        GEMV_FMA8(xb, w8, w9, w10, w11, w12, w13, w14, w15)                                        \
        GEMV_STEP(w, 16)                                                                           \
    }
/* 8 ks, 4 ks, 1 k (x and w move on) */
#define GEMV_K8                                                                                    \
    {                                                                                              \
        GEMV_LDX8                                                                                  \
        GEMV_K2(x0, x1) GEMV_K2(x2, x3) GEMV_K2(x4, x5) GEMV_K2(x6, x7)                            \
    }
#define GEMV_K4                                                                                    \
    {                                                                                              \
        GEMV_LDX4                                                                                  \
        GEMV_K2(x0, x1) GEMV_K2(x2, x3)                                                            \
    }
#define GEMV_K1                                                                                    \
    {                                                                                              \
        GEMV_LDX1                                                                                  \
        {                                                                                          \
            GEMV_LD8(w)                                                                            \
            GEMV_FMA8(x0, w0, w1, w2, w3, w4, w5, w6, w7)                                          \
            GEMV_STEP(w, 8)                                                                        \
        }                                                                                          \
    }
#define GEMV_ALPHA(j, s) s *= alpha;
#define GEMV_BIAS1(j, s) s += bias[j];
#define GEMV_BIAS(j, s) s += beta * bias[j * bn];
#define GEMV_RES(j, s) s += res[j];
#define GEMV_RELU(j, s) s = s < zero ? zero : s;
#define GEMV_CLIP(j, s) s = s < lo ? lo : s > hi ? hi : s;
#define GEMV_ST(j, s) y[j] = s;
#define GEMV_OUT                                                                                   \
    {                                                                                              \
        const T zero = (T)0, alpha = g->alpha, beta = g->beta, lo = g->p0, hi = g->p1;             \
        const int64_t bn = g->bn;                                                                  \
        if (alpha != (T)1)                                                                         \
            GEMV_EACH(GEMV_ALPHA)                                                                  \
        if (bias && bn == 1 && beta == (T)1)                                                       \
            GEMV_EACH(GEMV_BIAS1)                                                                  \
        else if (bias)                                                                             \
            GEMV_EACH(GEMV_BIAS)                                                                   \
        if (res)                                                                                   \
            GEMV_EACH(GEMV_RES)                                                                    \
        if (g->act == GEMM_ACT_RELU)                                                               \
            GEMV_EACH(GEMV_RELU)                                                                   \
        else if (g->act == GEMM_ACT_CLIP)                                                          \
            GEMV_EACH(GEMV_CLIP)                                                                   \
        GEMV_EACH(GEMV_ST)                                                                         \
    }
#endif

/* One block of 8 outputs: x at k = 0 (xk apart), w at the block, bias and res at its first
 * output (bias's outputs g->bn apart), y likewise.  Inlined with a literal xk (1 or g->xk). */
static O2C_INLINE void gemv_blk_T(const T *x, const int64_t xk, const T *w,
                                  const gemv_geo_T *g, const T *bias, const T *res, T *y) {
    const int64_t K = g->K;
    const T *const w8end = w + GEMV_R * (K & ~(int64_t)7);
    const T *const w4end = w + GEMV_R * (K & ~(int64_t)3), *const wend = w + GEMV_R * K;
    GEMV_DECL
    while (w != w8end) {
        GEMV_K8
    }
    if (w != w4end) {
        GEMV_K4
    }
    while (w != wend) {
        GEMV_K1
    }
    GEMV_OUT
    if (g->act > GEMM_ACT_CLIP)
        gemm_act_T(y, GEMV_R, g->act, g->p0, g->p1);
}

O2C_KERNEL static O2C_HOT void gemv_b1_T(const T *x, const T *w, const gemv_geo_T *g, const T *bias,
                              const T *res, T *y) {
    gemv_blk_T(x, 1, w, g, bias, res, y);
}
O2C_KERNEL static O2C_HOT void gemv_bs_T(const T *x, const T *w, const gemv_geo_T *g, const T *bias,
                              const T *res, T *y) {
    gemv_blk_T(x, g->xk, w, g, bias, res, y);
}

/* The last block of nb < 8 outputs. */
static void gemv_narrow_T(const T *x, const T *w, const gemv_geo_T *g, int64_t nb,
                          const T *bias, const T *res, T *y) {
    T acc[GEMV_R];
    int64_t k, j;
    for (j = 0; j < nb; j++)
        acc[j] = (T)0;
    for (k = 0; k < g->K; k++, w += nb) {
        const T xv = x[k * g->xk];
        for (j = 0; j < nb; j++)
            acc[j] += w[j] * xv;
    }
    for (j = 0; j < nb; j++) {
        T v = acc[j] * g->alpha;
        if (bias)
            v += g->beta * bias[j * g->bn];
        if (res)
            v += res[j];
        y[j] = v;
        gemm_act_T(y + j, 1, g->act, g->p0, g->p1);
    }
}

static void gemv_T(int64_t M, int64_t N, int64_t K, const T *x, int64_t xm, int64_t xk,
                   const T *w, T *y, int64_t ldy, T alpha, const T *bias, int64_t bm, int64_t bn,
                   T beta, const T *res, int64_t ldr, int act, T p0, T p1) {
    gemv_geo_T g;
    int64_t m, n0;
    g.xk = xk, g.K = K, g.bn = bn, g.alpha = alpha, g.beta = beta, g.act = act, g.p0 = p0,
    g.p1 = p1;
    for (m = 0; m < M; m++) {
        const T *const xr = x + m * xm, *const br = bias ? bias + m * bm : bias;
        const T *const rr = res ? res + m * ldr : res;
        T *const yr = y + m * ldy;
        for (n0 = 0; n0 < N; n0 += GEMV_R) {
            const T *const wb = w + n0 * K, *const bb = br ? br + n0 * bn : br;
            const T *const rb = rr ? rr + n0 : rr;
            if (N - n0 < GEMV_R)
                gemv_narrow_T(xr, wb, &g, N - n0, bb, rb, yr + n0);
            else if (xk == 1)
                gemv_b1_T(xr, wb, &g, bb, rb, yr + n0);
            else
                gemv_bs_T(xr, wb, &g, bb, rb, yr + n0);
        }
    }
}
#undef GEMV_DECL
#undef GEMV_K
#undef GEMV_LD16
#undef GEMV_LD8
#undef GEMV_STEP
#undef GEMV_OUT
#undef GEMV_EACH
#undef GEMV_ALPHA
#undef GEMV_BIAS1
#undef GEMV_BIAS
#undef GEMV_RES
#undef GEMV_RELU
#undef GEMV_CLIP
#undef GEMV_ST
#undef GEMV_FMA8
#undef GEMV_LDX4
#undef GEMV_K4
#undef GEMV_K8
#undef GEMV_K2
#undef GEMV_LDX8
#undef GEMV_LDX1
#undef GEMV_XDECL
#undef GEMV_K1
