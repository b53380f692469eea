/* conv_direct.c - direct 2-D convolution of one group, no unfold and no scratch (the Conv of
 * --memory-first, where an im2col tile or packed panels would raise the arena's peak):
 *   y[m][oy][ox] = bias[m] + sum over c, ky, kx of
 *                  w[m][c][ky][kx] * x[c][oy * sh + ky * dh - ph][ox * sw + kx * dw - pw]
 * then + res[m][oy][ox] (may be NULL) and the activation (templates/gemm_act.c).
 * x: C x H x W, y and res: M x OH x OW, bias: M or NULL.
 *
 * The weight comes reordered by the compiler (compiler/ops/gemm_plan.h, gp_row_blocks) into
 * blocks of 4 output channels, each tap's weights of a block side by side: block b (channels
 * 4b .. 4b + mb - 1, mb = min(4, M - 4b)) starts at 4b * C * KH * KW and holds, for c, ky, kx
 * in that order, the mb weights of its channels.  The same bytes as w, no padding.
 *
 * Register blocks: 4 output channels x P <= 6 output positions of a row, one tap at a time,
 * the accumulators starting from the bias and ending with the residual and the activation
 * before their one store.  With O2C_V4 (Helium, SSE, NEON; templates/o2c_target.c) a vector of
 * the tap's 4 weights and a vector accumulator per position; otherwise (Cortex-M4/M7, RV32F,
 * tcc) 24 scalar accumulators, which with the 4 weights and one input fit the 32
 * single-precision registers: per tap 4 + 6 loads and 24 multiply-adds.  The interior of a row
 * (positions whose taps all lie inside it) takes blocks of 6 and one block of the rest; the
 * border columns take one position each over the taps inside the row; the loop over taps is
 * specialised (inlined with literal sizes) for 1x1 kernels and for strides 1 and 2.  A 1x1
 * kernel with stride 1 and no padding treats the whole image as one row.  A block of fewer than
 * 4 channels (M not a multiple of 4) takes a plain loop. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm_act.c"
#include "o2c_target.c"
#include "pool_taps.c"
#include "pool_inner.c"
#endif

/* The geometry of one call of the block kernel: the input at the block's first tap (rows
 * rstep, channels cstep apart), the weights at (c = 0, first tap) (rows wrstep, channels
 * wcstep apart), taps dw apart; the output (and residual) block's channels ys apart. */
typedef struct convd_geo_T {
    int64_t C, cstep, nky, rstep, nkx, dw, wrstep, wcstep, ys;
    int act;
    T p0, p1;
} convd_geo_T;

/* The accumulators of 4 channels x P positions: declared from the bias (CONVD_DECL), one tap
 * at xk (positions sw apart) with the 4 weights at wk (CONVD_TAP), stored with residual and
 * ReLU at y + p * yps (CONVD_OUT).  The unused ones vanish once P is a literal. */
#if O2C_V4 && O2C_F32_T
/* a vector of the 4 channels per position */
#define CONVD_DECL                                                                                 \
    const o2c_v4ix ix = o2c_v4_ix(ys);                                                            \
    const o2c_v4 bv = bias ? o2c_v4_ld(bias) : o2c_v4_dup(0.0f);                                  \
    o2c_v4 a0 = bv, a1 = bv, a2 = bv, a3 = bv, a4 = bv, a5 = bv;
#define CONVD_TAP(xk, wk)                                                                          \
    {                                                                                              \
        const o2c_v4 wv = o2c_v4_ld(wk);                                                           \
        a0 = o2c_v4_fma(a0, wv, (xk)[0]);                                                          \
        if (P > 1)                                                                                 \
            a1 = o2c_v4_fma(a1, wv, (xk)[sw]);                                                     \
        if (P > 2)                                                                                 \
            a2 = o2c_v4_fma(a2, wv, (xk)[2 * sw]);                                                 \
        if (P > 3)                                                                                 \
            a3 = o2c_v4_fma(a3, wv, (xk)[3 * sw]);                                                 \
        if (P > 4)                                                                                 \
            a4 = o2c_v4_fma(a4, wv, (xk)[4 * sw]);                                                 \
        if (P > 5)                                                                                 \
            a5 = o2c_v4_fma(a5, wv, (xk)[5 * sw]);                                                 \
    }
#define CONVD_OUT1(p, a)                                                                           \
    {                                                                                              \
        o2c_v4 v_ = a;                                                                             \
        if (res)                                                                                   \
            v_ = o2c_v4_add(v_, o2c_v4_col(res + p * yps, ix));                                    \
        CONVD_ACT(v_)                                                                              \
        o2c_v4_stcol(y + p * yps, ix, v_);                                                         \
    }
#define CONVD_OUT(p) CONVD_OUT1(p, a##p)
#define CONVD_ACT(v)                                                                               \
    if (g->act == GEMM_ACT_RELU)                                                                   \
        v = o2c_v4_relu(v);                                                                        \
    else if (g->act == GEMM_ACT_CLIP)                                                              \
        v = o2c_v4_clip(v, g->p0, g->p1);
#else
/* 24 scalars: with the 4 weights and one input they fit 32 single-precision registers */
#define CONVD_DECL                                                                                 \
    const T zero = (T)0;                                                                           \
    const T b0 = bias ? bias[0] : zero, b1 = bias ? bias[1] : zero;                                \
    const T b2 = bias ? bias[2] : zero, b3 = bias ? bias[3] : zero;                                \
    T s00 = b0, s01 = b1, s02 = b2, s03 = b3, s10 = b0, s11 = b1, s12 = b2, s13 = b3;             \
    T s20 = b0, s21 = b1, s22 = b2, s23 = b3, s30 = b0, s31 = b1, s32 = b2, s33 = b3;             \
    T s40 = b0, s41 = b1, s42 = b2, s43 = b3, s50 = b0, s51 = b1, s52 = b2, s53 = b3;             \
    const T lo = g->p0, hi = g->p1;                                                                \
    T *const y0 = y, *const y1 = y + ys, *const y2 = y + 2 * ys, *const y3 = y + 3 * ys;         \
    const T *const r0 = res, *const r1 = res ? res + ys : res;                                     \
    const T *const r2 = res ? res + 2 * ys : res, *const r3 = res ? res + 3 * ys : res;
#define CONVD_TAP1(p, xv)                                                                          \
    {                                                                                              \
        const T x_ = (xv);                                                                         \
        s##p##0 += w0 * x_, s##p##1 += w1 * x_, s##p##2 += w2 * x_, s##p##3 += w3 * x_;           \
    }
#define CONVD_TAP(xk, wk)                                                                          \
    {                                                                                              \
        const T w0 = (wk)[0], w1 = (wk)[1], w2 = (wk)[2], w3 = (wk)[3];                            \
        CONVD_TAP1(0, (xk)[0])                                                                     \
        if (P > 1)                                                                                 \
            CONVD_TAP1(1, (xk)[sw])                                                                \
        if (P > 2)                                                                                 \
            CONVD_TAP1(2, (xk)[2 * sw])                                                            \
        if (P > 3)                                                                                 \
            CONVD_TAP1(3, (xk)[3 * sw])                                                            \
        if (P > 4)                                                                                 \
            CONVD_TAP1(4, (xk)[4 * sw])                                                            \
        if (P > 5)                                                                                 \
            CONVD_TAP1(5, (xk)[5 * sw])                                                            \
    }
#define CONVD_ACT1(v) v = g->act == GEMM_ACT_RELU ? (v < zero ? zero : v) : v < lo ? lo : v > hi ? hi : v
#define CONVD_OUT(p)                                                                               \
    {                                                                                              \
        if (res)                                                                                   \
            s##p##0 += r0[p * yps], s##p##1 += r1[p * yps], s##p##2 += r2[p * yps],               \
                s##p##3 += r3[p * yps];                                                            \
        if (g->act == GEMM_ACT_RELU || g->act == GEMM_ACT_CLIP) {                                  \
            CONVD_ACT1(s##p##0);                                                                   \
            CONVD_ACT1(s##p##1);                                                                   \
            CONVD_ACT1(s##p##2);                                                                   \
            CONVD_ACT1(s##p##3);                                                                   \
        }                                                                                          \
        y0[p * yps] = s##p##0, y1[p * yps] = s##p##1, y2[p * yps] = s##p##2,                       \
                 y3[p * yps] = s##p##3;                                                            \
    }
#endif

/* 4 channels x P positions: xp, wp at the first tap (nky >= 1 rows of nkx >= 1 taps, dw
 * apart), positions sw apart in the input and yps apart in y (and res).  shape 1: one tap per
 * channel (a 1x1 kernel); 3: rows of 3 taps 1 apart (unrolled); 0: any.  Inlined with literal
 * P and shape (and sw, yps where the caller knows them) into the small functions below, each
 * with its own registers: immediate offsets, no dead code, loops that end on pointers. */
static O2C_INLINE void convd_blk_T(const T *xp, const T *wp, const convd_geo_T *g,
                                   const int64_t nky, const int64_t nkx, const int64_t dw,
                                   const int64_t sw, const int P, const int shape, const T *bias,
                                   const T *res, T *y, const int64_t yps) {
    const int64_t cstep = g->cstep, rstep = g->rstep, wrstep = g->wrstep, wcstep = g->wcstep;
    const int64_t ys = g->ys;
    const T *const wend = wp + g->C * wcstep;
    int p;
    CONVD_DECL
    if (shape == 1) { /* 1x1: channels only */
        for (; wp != wend; wp += wcstep, xp += cstep)
            CONVD_TAP(xp, wp)
    } else if (shape == 3) { /* rows of 3 taps 1 apart, unrolled */
        for (; wp != wend; wp += wcstep, xp += cstep) {
            const T *xr = xp, *wr = wp;
            const T *const wrend = wp + nky * wrstep;
            do {
                CONVD_TAP(xr, wr)
                CONVD_TAP(xr + 1, wr + 4)
                CONVD_TAP(xr + 2, wr + 8)
                xr += rstep, wr += wrstep;
            } while (wr != wrend);
        }
    } else {
        for (; wp != wend; wp += wcstep, xp += cstep) {
            const T *xr = xp, *wr = wp;
            const T *const wrend = wp + nky * wrstep;
            do {
                const T *xk = xr, *wk = wr;
                const T *const wkend = wr + 4 * nkx;
                do {
                    CONVD_TAP(xk, wk)
                    xk += dw, wk += 4;
                } while (wk != wkend);
                xr += rstep, wr += wrstep;
            } while (wr != wrend);
        }
    }
    CONVD_OUT(0)
    if (P > 1)
        CONVD_OUT(1)
    if (P > 2)
        CONVD_OUT(2)
    if (P > 3)
        CONVD_OUT(3)
    if (P > 4)
        CONVD_OUT(4)
    if (P > 5)
        CONVD_OUT(5)
    if (g->act > GEMM_ACT_CLIP)
        for (p = 0; p < 4 * P; p++)
            gemm_act_T(y + p / P * ys + p % P * yps, 1, g->act, g->p0, g->p1);
}
/* One position of a block of mb < 4 channels (the last block when M is not a multiple of 4). */
static void convd_narrow_T(const T *xp, const T *wp, const convd_geo_T *g, int64_t mb,
                           int64_t nky, int64_t nkx, const T *bias, const T *res, T *y) {
    T acc[4];
    int64_t c, ky, kx, j;
    for (j = 0; j < mb; j++)
        acc[j] = bias ? bias[j] : (T)0;
    for (c = 0; c < g->C; c++, xp += g->cstep, wp += g->wcstep) {
        const T *xr = xp, *wr = wp;
        for (ky = 0; ky < nky; ky++, xr += g->rstep, wr += g->wrstep)
            for (kx = 0; kx < nkx; kx++) {
                const T xv = xr[kx * g->dw];
                for (j = 0; j < mb; j++)
                    acc[j] += wr[kx * mb + j] * xv;
            }
    }
    for (j = 0; j < mb; j++) {
        y[j * g->ys] = acc[j] + (res ? res[j * g->ys] : (T)0);
        gemm_act_T(y + j * g->ys, 1, g->act, g->p0, g->p1);
    }
}

/* The block kernels convd_run_T calls: P positions, shape, stride (V: a variable). */
#define CONVD_FN(name, P, SHAPE, NKY, NKX, DW, SW, YPS)                                            \
    static O2C_HOT void name(const T *xp, const T *wp, const convd_geo_T *g, int64_t nky,       \
                             int64_t nkx, int64_t sw, int64_t yps, const T *bias, const T *res,  \
                             T *y) {                                                               \
        (void)nky, (void)nkx, (void)sw, (void)yps;                                                \
        convd_blk_T(xp, wp, g, NKY, NKX, DW, SW, P, SHAPE, bias, res, y, YPS);                     \
    }
CONVD_FN(convd_k1p6_T, 6, 1, 1, 1, 1, 1, 1)
CONVD_FN(convd_k1p4_T, 4, 1, 1, 1, 1, 1, 1)
CONVD_FN(convd_k1p2_T, 2, 1, 1, 1, 1, 1, 1)
CONVD_FN(convd_r3s1_T, 6, 3, nky, 3, 1, 1, 1)
CONVD_FN(convd_r3s2_T, 6, 3, nky, 3, 1, 2, 1)
CONVD_FN(convd_s1p6_T, 6, 0, nky, nkx, g->dw, 1, 1)
CONVD_FN(convd_p6_T, 6, 0, nky, nkx, g->dw, sw, yps)
CONVD_FN(convd_p4_T, 4, 0, nky, nkx, g->dw, sw, yps)
CONVD_FN(convd_p2_T, 2, 0, nky, nkx, g->dw, sw, yps)
CONVD_FN(convd_p1_T, 1, 0, nky, nkx, g->dw, sw, yps)
#undef CONVD_FN

/* n positions of one block of mb channels, whose taps are the same nky x nkx ones (xp, wp as
 * for convd_blk_T at the first position): sw apart in the input and yps apart in y, res.
 * kind 0: any; 1: a 1x1 kernel over a whole image (positions 1 apart); 2: interior positions
 * of a row (yps 1), the kernel's full rows.  Blocks of 6 positions, then 4, 2, 1. */
static void convd_run_T(const T *xp, const T *wp, const convd_geo_T *g, int64_t mb, int kind,
                        int64_t nky, int64_t nkx, int64_t sw, int64_t yps, int64_t n,
                        const T *bias, const T *res, T *y) {
    const int r3 = kind == 2 && nkx == 3 && g->dw == 1;
    int64_t o = 0;
    if (mb < 4) {
        for (; o < n; o++)
            convd_narrow_T(xp + o * sw, wp, g, mb, nky, nkx, bias, res ? res + o * yps : res,
                           y + o * yps);
        return;
    }
    while (o < n) {
        const T *xo = xp + o * sw, *ro = res ? res + o * yps : res;
        T *yo = y + o * yps;
        const int64_t left = n - o;
        if (left >= 6) {
            if (kind == 1)
                convd_k1p6_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            else if (r3 && sw == 1)
                convd_r3s1_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            else if (r3 && sw == 2)
                convd_r3s2_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            else if (kind == 2 && sw == 1)
                convd_s1p6_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            else
                convd_p6_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            o += 6;
        } else if (left >= 4) {
            if (kind == 1)
                convd_k1p4_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            else
                convd_p4_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            o += 4;
        } else if (left >= 2) {
            if (kind == 1)
                convd_k1p2_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            else
                convd_p2_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            o += 2;
        } else {
            convd_p1_T(xo, wp, g, nky, nkx, sw, yps, bias, ro, yo);
            o += 1;
        }
    }
}

static void convd_T(const T *x, const T *w, const T *bias, const T *res, T *y, int64_t C,
                    int64_t H, int64_t W, int64_t M, int64_t OH, int64_t OW, int64_t KH,
                    int64_t KW, int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph,
                    int64_t pw, int act, T p0, T p1) {
    const int64_t kv = KH * KW, osp = OH * OW, hw = H * W;
    const int flat = kv == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && OH == H && OW == W;
    int64_t lo, hi, tlo, thi, m0, oy, ox;
    int bycol;
    convd_geo_T g;
    /* interior columns [lo, hi) and rows [tlo, thi): every tap inside the input */
    pool_inner_T(OW, W, sw, pw, (KW - 1) * dw + 1, &lo, &hi);
    pool_inner_T(OH, H, sh, ph, (KH - 1) * dh + 1, &tlo, &thi);
    /* a narrow image (fewer than 6 interior columns, at least 6 interior rows: the 10x4 first
     * layer of a keyword spotter over 49 x 10) takes its interior rows down the columns too,
     * in blocks of 6 positions instead of 2 and 1 */
    bycol = hi - lo < 6 && thi - tlo >= 6;
    g.C = C, g.cstep = hw, g.rstep = dh * W, g.dw = dw, g.ys = osp;
    g.act = act, g.p0 = p0, g.p1 = p1;
    for (m0 = 0; m0 < M; m0 += 4) {
        const int64_t mb = M - m0 < 4 ? M - m0 : 4;
        const T *wb = w + m0 * C * kv;
        const T *bb = bias ? bias + m0 : bias;
        const T *rb = res ? res + m0 * osp : res;
        T *yb = y + m0 * osp;
        g.wrstep = KW * mb, g.wcstep = kv * mb;
        if (flat) {
            convd_run_T(x, wb, &g, mb, 1, 1, 1, 1, 1, osp, bb, rb, yb);
            continue;
        }
        for (oy = 0; oy < OH; oy++) {
            /* rows: ky in [ky0, ky1) has 0 <= oy * sh + ky * dh - ph < H */
            const int64_t top = oy * sh - ph;
            const int full = oy >= tlo && oy < thi; /* border columns go by columns below */
            int64_t ky0, ky1;
            pool_taps_T(top, H, KH, dh, &ky0, &ky1);
            for (ox = 0; ox < OW; ox++) {
                const T *xrow = x + (ky1 > ky0 ? (top + ky0 * dh) * W : 0);
                const T *wk = wb + ky0 * KW * mb;
                const T *ro = rb ? rb + oy * OW + ox : rb;
                int64_t kx0, kx1;
                if (ox == lo && hi > lo && ky1 > ky0 && !(full && bycol)) {
                    convd_run_T(xrow + lo * sw - pw, wk, &g, mb, 2, ky1 - ky0, KW, sw, 1, hi - lo,
                                bb, ro, yb + oy * OW + lo);
                    ox = hi - 1;
                    continue;
                }
                if (full)
                    continue;
                /* a border position: the taps inside the input */
                pool_taps_T(ox * sw - pw, W, KW, dw, &kx0, &kx1);
                if (kx1 == kx0 || ky1 == ky0) { /* no tap: the bias */
                    g.C = 0;
                    convd_run_T(xrow, wk, &g, mb, 0, 1, 1, 1, 1, 1, bb, ro, yb + oy * OW + ox);
                    g.C = C;
                } else
                    convd_run_T(xrow + ox * sw - pw + kx0 * dw, wk + kx0 * mb, &g, mb, 0,
                                ky1 - ky0, kx1 - kx0, sw, 1, 1, bb, ro, yb + oy * OW + ox);
            }
        }
        /* the border columns of the interior rows (all columns if bycol), down the column:
         * positions sh * W apart */
        for (ox = 0; ox < OW && thi > tlo; ox++) {
            int64_t kx0, kx1;
            if (ox == lo && hi > lo && !bycol)
                ox = hi;
            if (ox >= OW)
                break;
            pool_taps_T(ox * sw - pw, W, KW, dw, &kx0, &kx1);
            if (kx1 == kx0) {
                g.C = 0;
                convd_run_T(x, wb, &g, mb, 0, 1, 1, 1, OW, thi - tlo, bb,
                            rb ? rb + tlo * OW + ox : rb, yb + tlo * OW + ox);
                g.C = C;
            } else
                convd_run_T(x + (tlo * sh - ph) * W + ox * sw - pw + kx0 * dw, wb + kx0 * mb, &g,
                            mb, 0, KH, kx1 - kx0, sh * W, OW, thi - tlo, bb,
                            rb ? rb + tlo * OW + ox : rb, yb + tlo * OW + ox);
        }
    }
}
#undef CONVD_DECL
#undef CONVD_TAP
#undef CONVD_OUT
#undef CONVD_ACT
#undef CONVD_TAP1
#undef CONVD_ACT1
#undef CONVD_OUT1
