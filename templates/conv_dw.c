/* conv_dw.c - depthwise 2-D convolution (one input and one output channel per group), direct.
 *
 * An unfold + GEMM would multiply a 1 x (KH*KW) weight row per channel: all overhead.  Instead,
 * per channel and output row:
 *   - 3-wide kernels with dilation 1 along W (3x3, 1x3, 2x3: the depthwise convolutions of
 *     MobileNet, EfficientNet and friends) take the fast path: the output columns split into
 *     the interior, whose three input columns lie inside the row for every tap, and the few
 *     border columns.  The interior of the rows with three valid input rows (dw3_rect_T) keeps
 *     the 9 weights in registers and computes 4 outputs at a time (a vector on Helium, with a
 *     predicated tail; 4 scalars on cores without vectors), bias, residual and ReLU/Clip in
 *     registers before the one store; floats at strides 1 and 2 with 64-byte vectors (x86-64
 *     AVX-512) do the same 16 outputs at a time (dw3_rect16); SSE and NEON take the row loop
 *     (dwconv_row3_T), which their compilers vectorise.  Rows with fewer valid rows sum their
 *     taps in a register too.  Border columns take a checked scalar loop.
 *   - any other kernel: the row of y (in L1) takes bias, then one pass per kernel tap
 *     (ky, kx): y[ox] += w[ky][kx] * x[iy][ox * sw + kx * dw - pw] over the range of ox whose
 *     input column is inside the image (a plain axpy when sw = 1).
 * Then the residual, and the activation (templates/gemm_act.c) in one pass over the row.
 *
 * x: C x H x W, w: C x KH x KW, bias: C or NULL, y and res: C x OH x OW (res may be NULL). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm_act.c"
#include "o2c_target.c"
#include "pool_taps.c"
#include "pool_inner.c"
#include "v16_taps.c"
#endif

/* The register path below on Helium and on the scalar cores (Cortex-M4/M7, RV32F, tcc); SSE and
 * NEON keep the row loop, which their compilers vectorize as it is. */
#if !O2C_V4 || defined(O2C_MVE)
#define O2C_DW3_REGS 1
#else
#define O2C_DW3_REGS 0
#endif
/* the row loop: hot-function flags on those cores, plain inline (as on x86 before) elsewhere */
#ifndef DW3_ROW_FN
#if O2C_DW3_REGS
#define DW3_ROW_FN O2C_HOT
#elif O2C_X86_DISPATCH
#define DW3_ROW_FN O2C_INLINE /* into each of dwconv_T's clones, vectorised for its ISA */
#else
#define DW3_ROW_FN inline
#endif
#endif

/* The interior rectangle of a 3x3 kernel: rows (oy) x n outputs, every tap inside the input.
 * x: the input at the first output's first tap (output (r, o) reads rows r * xrs + {0, W,
 * 2 W}, columns o * sw + {0, 1, 2}); y, res (may be NULL): the first output, rows ys apart;
 * weights w[0..8], bias b; then the residual, and ReLU or Clip (other activations: the caller
 * does them).  Inlined with a literal stride into dw3_s1_T, dw3_sn_T. */
#define DW3_ACT1(v)                                                                                \
    if (act == GEMM_ACT_RELU)                                                                      \
        v = v < zero ? zero : v;                                                                   \
    else if (act == GEMM_ACT_CLIP)                                                                 \
        v = v < p0 ? p0 : v > p1 ? p1 : v;
#if defined(O2C_MVE) && O2C_F32_T
static O2C_INLINE void dw3_rect_T(T *y, const T *res, int64_t ys, int64_t rows, int64_t n,
                                  const int64_t sw, const T *x, int64_t xrs, int64_t W,
                                  const T *w, T b, int act, T p0, T p1) {
    const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6];
    const float w7 = w[7], w8 = w[8];
    const uint32x4_t ix = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)sw);
    int64_t r, o;
    for (r = 0; r < rows; r++, x += xrs, y += ys, res = res ? res + ys : res) {
        const T *x0 = x, *x1 = x + W, *x2 = x + 2 * W;
        for (o = 0; o < n; o += 4) {
            const mve_pred16_t pr = vctp32q((uint32_t)(n - o < 4 ? n - o : 4));
            const T *q0 = x0 + o * sw, *q1 = x1 + o * sw, *q2 = x2 + o * sw;
            float32x4_t a = vdupq_n_f32(b);
#define DW3_LD(q) (sw == 1 ? vldrwq_z_f32(q, pr) : vldrwq_gather_shifted_offset_z_f32(q, ix, pr))
            a = vfmaq_n_f32(a, DW3_LD(q0), w0);
            a = vfmaq_n_f32(a, DW3_LD(q0 + 1), w1);
            a = vfmaq_n_f32(a, DW3_LD(q0 + 2), w2);
            a = vfmaq_n_f32(a, DW3_LD(q1), w3);
            a = vfmaq_n_f32(a, DW3_LD(q1 + 1), w4);
            a = vfmaq_n_f32(a, DW3_LD(q1 + 2), w5);
            a = vfmaq_n_f32(a, DW3_LD(q2), w6);
            a = vfmaq_n_f32(a, DW3_LD(q2 + 1), w7);
            a = vfmaq_n_f32(a, DW3_LD(q2 + 2), w8);
#undef DW3_LD
            if (res)
                a = vaddq_f32(a, vldrwq_z_f32(res + o, pr));
            if (act == GEMM_ACT_RELU)
                a = o2c_v4_relu(a);
            else if (act == GEMM_ACT_CLIP)
                a = o2c_v4_clip(a, p0, p1);
            vstrwq_p_f32(y + o, a, pr);
        }
    }
}
#else
static O2C_INLINE void dw3_rect_T(T *y, const T *res, int64_t ys, int64_t rows, int64_t n,
                                  const int64_t sw, const T *x, int64_t xrs, int64_t W,
                                  const T *w, T b, int act, T p0, T p1) {
    const T w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6];
    const T w7 = w[7], w8 = w[8], zero = (T)0;
    int64_t r, o;
/* one output from the columns (a, b, c) of the three rows (t: top, m: middle, u: bottom) */
#define DW3_ONE(k, ta, tb, tc, ma, mb, mc, ua, ub, uc)                                             \
    {                                                                                              \
        T s_ = bb;                                                                                 \
        s_ += w0 * ta, s_ += w1 * tb, s_ += w2 * tc;                                               \
        s_ += w3 * ma, s_ += w4 * mb, s_ += w5 * mc;                                               \
        s_ += w6 * ua, s_ += w7 * ub, s_ += w8 * uc;                                               \
        if (res)                                                                                   \
            s_ += res[k];                                                                          \
        DW3_ACT1(s_)                                                                               \
        y[k] = s_;                                                                                 \
    }
    for (r = 0; r < rows; r++, x += xrs, y += ys, res = res ? res + ys : res) {
        const T *x0 = x, *x1 = x + W, *x2 = x + 2 * W;
        const T bb = b;
        o = 0;
        if (sw == 1 && n >= 3) {
            /* a window sliding by one column: 3 loads per output, the columns in registers
             * taking turns (unrolled by 3) */
            T a0 = x0[0], a1 = x0[1], a2, m0 = x1[0], m1 = x1[1], m2, u0 = x2[0], u1 = x2[1], u2;
            for (; o + 3 <= n; o += 3) {
                a2 = x0[o + 2], m2 = x1[o + 2], u2 = x2[o + 2];
                DW3_ONE(o, a0, a1, a2, m0, m1, m2, u0, u1, u2)
                a0 = x0[o + 3], m0 = x1[o + 3], u0 = x2[o + 3];
                DW3_ONE(o + 1, a1, a2, a0, m1, m2, m0, u1, u2, u0)
                a1 = x0[o + 4], m1 = x1[o + 4], u1 = x2[o + 4];
                DW3_ONE(o + 2, a2, a0, a1, m2, m0, m1, u2, u0, u1)
            }
        }
        for (; o < n; o++) {
            const T *q0 = x0 + o * sw, *q1 = x1 + o * sw, *q2 = x2 + o * sw;
            DW3_ONE(o, q0[0], q0[1], q0[2], q1[0], q1[1], q1[2], q2[0], q2[1], q2[2])
        }
    }
#undef DW3_ONE
}
#endif
static O2C_HOT void dw3_s1_T(T *y, const T *res, int64_t ys, int64_t rows, int64_t n, const T *x,
                             int64_t xrs, int64_t W, const T *w, T b, int act, T p0, T p1) {
    dw3_rect_T(y, res, ys, rows, n, 1, x, xrs, W, w, b, act, p0, p1);
}
static O2C_HOT void dw3_sn_T(T *y, const T *res, int64_t ys, int64_t rows, int64_t n, int64_t sw,
                             const T *x, int64_t xrs, int64_t W, const T *w, T b, int act, T p0,
                             T p1) {
    dw3_rect_T(y, res, ys, rows, n, sw, x, xrs, W, w, b, act, p0, p1);
}

/* A border column of the interior rows of a 3x3 kernel: rows outputs (ys apart) whose taps are
 * the columns [k0, k1) of the kernel; x at the first output's row 0, column k0 (rows W apart,
 * outputs xrs apart), w at the kernel's column k0. */
static O2C_HOT void dw3_col_T(T *y, const T *res, int64_t ys, int64_t rows, const T *x,
                              int64_t xrs, int64_t W, const T *w, int64_t nk, T b, int act, T p0,
                              T p1) {
    const T zero = (T)0;
    int64_t r;
    if (nk == 2) {
        const T w0 = w[0], w1 = w[1], w3 = w[3], w4 = w[4], w6 = w[6], w7 = w[7];
        for (r = 0; r < rows; r++, x += xrs) {
            T s_ = b;
            s_ += w0 * x[0], s_ += w1 * x[1];
            s_ += w3 * x[W], s_ += w4 * x[W + 1];
            s_ += w6 * x[2 * W], s_ += w7 * x[2 * W + 1];
            if (res)
                s_ += res[r * ys];
            DW3_ACT1(s_)
            y[r * ys] = s_;
        }
    } else {
        int64_t k;
        for (r = 0; r < rows; r++, x += xrs) {
            T s_ = b;
            for (k = 0; k < nk; k++)
                s_ += w[k] * x[k], s_ += w[3 + k] * x[W + k], s_ += w[6 + k] * x[2 * W + k];
            if (res)
                s_ += res[r * ys];
            DW3_ACT1(s_)
            y[r * ys] = s_;
        }
    }
}
#undef DW3_ACT1

/* Float interior rows of a 3x3 kernel at stride 1 or 2 with 64-byte vectors
 * (templates/v16_taps.c): rows r in [0, rows) of y (ys apart; input rows x + r * xrs + {0, d,
 * 2 d}, at the first tap of output 0): y[o] = b + sum over the three rows of w[3 * row + k] *
 * x[o * s + k] for o in [o0, hi), 16 at a time (the last ones masked), the sums in the order of
 * dwconv_row3_T (fused); then res[o] (res may be NULL, rows ys apart) and the activation (act,
 * p0, p1 as gemm_act_T) in registers.  The rows' loop is here, the weights loaded once: by a
 * call a row, with the masks of a row's last vector made for each of its vectors (GCC made a
 * branch of each), a vector had taken 21 cycles, 12 now (1 thread, MobileNetV2's 96 x 112 x
 * 112 stride 2 layer 0.155 -> 0.118 ms, 144 x 56 x 56 stride 2 0.071 -> 0.049, 32 x 112 x 112
 * 0.107 -> 0.086; GCC's vectors of the row loop had taken 1.3-1.5x ONNX Runtime's time). */
#if O2C_V16
#ifndef DW3_RECT16
#define DW3_RECT16
/* the activations other than ReLU and Clip (those: a clamp), as gemm_act_T (a NaN stays) */
O2C_V16_TARGET static O2C_INLINE __m512 dw3_v16_act(__m512 v, int act, float p0, float p1) {
    const __m512 zero = _mm512_setzero_ps();
    if (act == GEMM_ACT_LEAKY)
        return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v,
                                  _mm512_set1_ps(p0));
    if (act == GEMM_ACT_HARDSIGMOID || act == GEMM_ACT_HARDSWISH) {
        __m512 h = _mm512_fmadd_ps(_mm512_set1_ps(p0), v, _mm512_set1_ps(p1));
        h = _mm512_max_ps(zero, _mm512_min_ps(_mm512_set1_ps(1.0f), h));
        return act == GEMM_ACT_HARDSWISH ? _mm512_mul_ps(v, h) : h;
    }
    return v;
}
#define DW3_V16_SUMS(TAPS, ...)                                                                  \
    TAPS(x0 + i, __VA_ARGS__ &a, &p, &q);                                                        \
    acc = _mm512_fmadd_ps(q, w2, _mm512_fmadd_ps(p, w1, _mm512_fmadd_ps(a, w0, bv)));           \
    TAPS(x1 + i, __VA_ARGS__ &a, &p, &q);                                                        \
    acc = _mm512_fmadd_ps(q, w5, _mm512_fmadd_ps(p, w4, _mm512_fmadd_ps(a, w3, acc)));          \
    TAPS(x2 + i, __VA_ARGS__ &a, &p, &q);                                                        \
    acc = _mm512_fmadd_ps(q, w8, _mm512_fmadd_ps(p, w7, _mm512_fmadd_ps(a, w6, acc)))
/* the residual (m: its lanes), then the activation: ReLU and Clip a clamp (max(lo, x), then
 * min(hi, x): x when x is a NaN, the second operand; lo, hi the infinities for the others) */
#define DW3_V16_END(m)                                                                           \
    if (res)                                                                                     \
        acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(m, rr + o));                              \
    acc = _mm512_min_ps(hv, _mm512_max_ps(lv, acc));                                             \
    if (act > GEMM_ACT_CLIP)                                                                     \
        acc = dw3_v16_act(acc, act, p0, p1)
O2C_V16_TARGET static O2C_INLINE void
dw3_rect16_s(float *y, const float *res, int64_t ys, int64_t rows, int64_t o0, int64_t hi,
             const int64_t s, const float *x, int64_t xrs, int64_t d, const float *w, float b,
             int act, float p0, float p1) {
    const __m512 w0 = _mm512_set1_ps(w[0]), w1 = _mm512_set1_ps(w[1]), w2 = _mm512_set1_ps(w[2]);
    const __m512 w3 = _mm512_set1_ps(w[3]), w4 = _mm512_set1_ps(w[4]), w5 = _mm512_set1_ps(w[5]);
    const __m512 w6 = _mm512_set1_ps(w[6]), w7 = _mm512_set1_ps(w[7]), w8 = _mm512_set1_ps(w[8]);
    const __m512 bv = _mm512_set1_ps(b);
    const __m512 lv = _mm512_set1_ps(act == GEMM_ACT_RELU   ? 0.0f
                                     : act == GEMM_ACT_CLIP ? p0
                                                            : -INFINITY);
    const __m512 hv = _mm512_set1_ps(act == GEMM_ACT_CLIP ? p1 : INFINITY);
    const int64_t full = (hi - o0) / 16, tail = (hi - o0) % 16, e = (tail - 1) * s + 3;
    const __mmask16 tm = o2c_v16_lanes(0, tail);
    int64_t r, k;
    for (r = 0; r < rows; r++) {
        const float *x0 = x + r * xrs, *x1 = x0 + d, *x2 = x1 + d;
        const float *rr = res ? res + r * ys : res;
        float *yr = y + r * ys;
        int64_t o = o0;
        __m512 a, p, q, acc;
        for (k = 0; k < full; k++, o += 16) {
            const int64_t i = o * s;
            DW3_V16_SUMS(o2c_v16_taps3_full, s, );
            DW3_V16_END((__mmask16)0xffff);
            _mm512_storeu_ps(yr + o, acc);
        }
        if (tail) {
            const int64_t i = o * s;
            DW3_V16_SUMS(o2c_v16_taps3, e, s, );
            DW3_V16_END(tm);
            _mm512_mask_storeu_ps(yr + o, tm, acc);
        }
    }
}
/* (a copy a stride: the literal stride picks the loads) */
O2C_V16_TARGET __attribute__((unused)) static void
dw3_rect16(float *y, const float *res, int64_t ys, int64_t rows, int64_t o0, int64_t hi, int64_t s,
           const float *x, int64_t xrs, int64_t d, const float *w, float b, int act, float p0,
           float p1) {
    if (s == 1)
        dw3_rect16_s(y, res, ys, rows, o0, hi, 1, x, xrs, d, w, b, act, p0, p1);
    else
        dw3_rect16_s(y, res, ys, rows, o0, hi, 2, x, xrs, d, w, b, act, p0, p1);
}
#undef DW3_V16_SUMS
#undef DW3_V16_END
#endif
#endif

/* Interior of one output row, 3-wide kernel: y[ox] = b + sum over the nv valid input rows r[i]
 * (weights wr[i][0..2]) of wr[i][k] * r[i][ox * sw - pw + k], for ox in [lo, hi). */
static DW3_ROW_FN void dwconv_row3_T(T *yr, int64_t lo, int64_t hi, int64_t sw, int64_t pw, int nv,
                                 const T *const *r, const T *const *wr, T b) {
    int64_t ox;
    if (nv == 3) {
        const T *x0 = r[0] - pw, *x1 = r[1] - pw, *x2 = r[2] - pw;
        const T a0 = wr[0][0], a1 = wr[0][1], a2 = wr[0][2];
        const T b0 = wr[1][0], b1 = wr[1][1], b2 = wr[1][2];
        const T c0 = wr[2][0], c1 = wr[2][1], c2 = wr[2][2];
        for (ox = lo; ox < hi; ox++) {
            const int64_t i = ox * sw;
            yr[ox] = b + a0 * x0[i] + a1 * x0[i + 1] + a2 * x0[i + 2] + b0 * x1[i] +
                     b1 * x1[i + 1] + b2 * x1[i + 2] + c0 * x2[i] + c1 * x2[i + 1] +
                     c2 * x2[i + 2];
        }
    } else if (nv == 2) {
        const T *x0 = r[0] - pw, *x1 = r[1] - pw;
        const T a0 = wr[0][0], a1 = wr[0][1], a2 = wr[0][2];
        const T b0 = wr[1][0], b1 = wr[1][1], b2 = wr[1][2];
        for (ox = lo; ox < hi; ox++) {
            const int64_t i = ox * sw;
            yr[ox] = b + a0 * x0[i] + a1 * x0[i + 1] + a2 * x0[i + 2] + b0 * x1[i] +
                     b1 * x1[i + 1] + b2 * x1[i + 2];
        }
    } else if (nv == 1) {
        const T *x0 = r[0] - pw;
        const T a0 = wr[0][0], a1 = wr[0][1], a2 = wr[0][2];
        for (ox = lo; ox < hi; ox++) {
            const int64_t i = ox * sw;
            yr[ox] = b + a0 * x0[i] + a1 * x0[i + 1] + a2 * x0[i + 2];
        }
    } else {
        for (ox = lo; ox < hi; ox++)
            yr[ox] = b;
    }
}

/* Channel c (the generated code loops over the channels, sharing them out among OpenMP threads
 * when built with OpenMP; a GlobalAveragePool of y fused into the Conv, compiler/lower.c, is
 * the channel's mean taken there after the call, templates/reduce_lanes.c, while its plane is
 * still in the cache: a parameter here cost the Cortex-M4 builds of depthwise models, which
 * have none, 0.1% more instructions). */
O2C_KERNEL
static void dwconv_T(const T *x, const T *w, const T *bias, const T *res, T *y, int64_t c,
                     int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                     int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph, int64_t pw,
                     int act, T p0, T p1) {
    int64_t oy, ky, kx, ox;
    const int row3 = KW == 3 && dw == 1 && KH <= 3;
    /* 3x3 with ReLU/Clip or none (any activation with 64-byte vectors): interior rows [tlo,
     * thi) (all three rows inside) in one region, their border columns down the column,
     * bias/residual/activation in registers */
    int64_t lo3, hi3, tlo, thi;
#if O2C_V16
    /* (floats at strides 1 and 2 with 64-byte vectors: that region too, dw3_rect16) */
    const int v16 = o2c_v16_ok() && O2C_F32_T && (sw == 1 || sw == 2);
#else
    const int v16 = 0;
#endif
    /* (the vectors take any activation; the cores' registers ReLU and Clip) */
    const int full3 =
        row3 && KH == 3 && dh == 1 && (v16 || (O2C_DW3_REGS && act <= GEMM_ACT_CLIP));
    /* fast path: interior columns [lo3, hi3) have 0 <= ox * sw - pw and ox * sw - pw + 2 < W */
    pool_inner_T(OW, W, sw, pw, 3, &lo3, &hi3);
    pool_inner_T(OH, H, sh, ph, 3, &tlo, &thi);
    if (!full3)
        tlo = thi = 0;
    {
        const T *xc = x + c * H * W, *wc = w + c * KH * KW;
        const T *rc = res ? res + c * OH * OW : res;
        T *yc = y + c * OH * OW;
        const T b = bias ? bias[c] : (T)0;
        if (thi > tlo) {
            const T *x0 = xc + (tlo * sh - ph) * W;
            if (hi3 > lo3) {
                const int64_t i0 = lo3 * sw - pw;
#if O2C_V16
                if (v16)
                    dw3_rect16((float *)(void *)(yc + tlo * OW),
                               (const float *)(const void *)(rc ? rc + tlo * OW : rc), OW,
                               thi - tlo, lo3, hi3, sw, (const float *)(const void *)(x0 - pw),
                               sh * W, W, (const float *)(const void *)wc, (float)b, act,
                               (float)p0, (float)p1);
                else
#endif
                if (sw == 1)
                    dw3_s1_T(yc + tlo * OW + lo3, rc ? rc + tlo * OW + lo3 : rc, OW, thi - tlo,
                             hi3 - lo3, x0 + i0, sh * W, W, wc, b, act, p0, p1);
                else
                    dw3_sn_T(yc + tlo * OW + lo3, rc ? rc + tlo * OW + lo3 : rc, OW, thi - tlo,
                             hi3 - lo3, sw, x0 + i0, sh * W, W, wc, b, act, p0, p1);
            }
            for (ox = 0; ox < OW; ox++) {
                int64_t k0, k1;
                if (ox == lo3 && hi3 > lo3)
                    ox = hi3;
                if (ox >= OW)
                    break;
                pool_taps_T(ox * sw - pw, W, 3, 1, &k0, &k1);
                if (k1 == k0) { /* no column inside: the bias */
                    for (oy = tlo; oy < thi; oy++) {
                        T v = b + (rc ? rc[oy * OW + ox] : (T)0);
                        gemm_act_T(&v, 1, act, p0, p1);
                        yc[oy * OW + ox] = v;
                    }
                } else {
                    /* (its activation: ReLU and Clip, else after it; a constant without the
                     * vectors) */
                    const int a3 = v16 && act > GEMM_ACT_CLIP ? GEMM_ACT_NONE : act;
                    dw3_col_T(yc + tlo * OW + ox, rc ? rc + tlo * OW + ox : rc, OW, thi - tlo,
                              x0 + ox * sw - pw + k0, sh * W, W, wc + k0, k1 - k0, b, a3, p0,
                              p1);
                    if (a3 != act)
                        for (oy = tlo; oy < thi; oy++)
                            gemm_act_T(yc + oy * OW + ox, 1, act, p0, p1);
                }
            }
        }
        for (oy = 0; oy < OH; oy++) {
            T *yr = yc + oy * OW;
            const T *rr = rc ? rc + oy * OW : rc;
            if (oy == tlo && thi > tlo) {
                oy = thi - 1;
                continue;
            }
            if (row3) {
                const T *r[3], *wr[3];
                int nv = 0;
                for (ky = 0; ky < KH; ky++) {
                    const int64_t iy = oy * sh + ky * dh - ph;
                    if (iy >= 0 && iy < H) {
                        r[nv] = xc + iy * W;
                        wr[nv] = wc + ky * 3;
                        nv++;
                    }
                }
#if O2C_V16
                if (v16 && nv == 3)
                    dw3_rect16((float *)(void *)yr, (const float *)0, OW, 1, lo3, hi3, sw,
                               (const float *)(const void *)(r[0] - pw), sh * W, dh * W,
                               (const float *)(const void *)wc, (float)b, GEMM_ACT_NONE, 0.0f,
                               0.0f);
                else
#endif
                if (sw == 1)
                    dwconv_row3_T(yr, lo3, hi3, 1, pw, nv, r, wr, b);
                else if (sw == 2)
                    dwconv_row3_T(yr, lo3, hi3, 2, pw, nv, r, wr, b);
                else
                    dwconv_row3_T(yr, lo3, hi3, sw, pw, nv, r, wr, b);
                /* border columns: the taps whose input column is inside the row */
                for (ox = 0; ox < OW; ox++) {
                    T acc = b;
                    int i;
                    if (ox == lo3)
                        ox = hi3;
                    if (ox >= OW)
                        break;
                    for (i = 0; i < nv; i++)
                        for (kx = 0; kx < 3; kx++) {
                            const int64_t ix = ox * sw - pw + kx;
                            if (ix >= 0 && ix < W)
                                acc += wr[i][kx] * r[i][ix];
                        }
                    yr[ox] = acc;
                }
            } else {
                for (ox = 0; ox < OW; ox++)
                    yr[ox] = b;
                for (ky = 0; ky < KH; ky++) {
                    const int64_t iy = oy * sh + ky * dh - ph;
                    const T *xr;
                    if (iy < 0 || iy >= H)
                        continue;
                    xr = xc + iy * W;
                    for (kx = 0; kx < KW; kx++) {
                        const T wv = wc[ky * KW + kx];
                        const int64_t off = kx * dw - pw;
                        /* ox in [lo, hi): 0 <= ox * sw + off < W */
                        int64_t lo = off < 0 ? (-off + sw - 1) / sw : 0, hi;
                        if (W - 1 - off < 0)
                            continue;
                        hi = (W - 1 - off) / sw + 1;
                        if (hi > OW)
                            hi = OW;
                        if (sw == 1) {
                            const T *xs = xr + off;
                            for (ox = lo; ox < hi; ox++)
                                yr[ox] += wv * xs[ox];
                        } else {
                            for (ox = lo; ox < hi; ox++)
                                yr[ox] += wv * xr[ox * sw + off];
                        }
                    }
                }
            }
            if (rr)
                for (ox = 0; ox < OW; ox++)
                    yr[ox] += rr[ox];
            gemm_act_T(yr, OW, act, p0, p1);
        }
    }
}
