/* conv_dwc.c - depthwise 2-D convolution (one input and one output channel per group) of a
 * small image with the channels in the vector lanes, for cores with vectors (O2C_DWC).
 *
 * The rows of MobileNet's late layers (14x14, 7x7) are shorter than a vector, and each channel
 * has its own weights, so per channel a kernel pays loop overhead for a few multiply-adds.  Here
 * DWC_LN channels (64 bytes of them) go together: their zero-padded planes are interleaved into
 * one slot (P[(r * Cp + c) * DWC_LN + l] = xpad_l[r][c]), a tap of 8 neighbouring outputs is 8
 * vector multiply-adds with the tap's DWC_LN weights, any stride or dilation, and each output
 * vector is stored to its channels' planes.  Then the residual and the activation per channel
 * (the bias starts the sums).  Floats go in and out 16 pixels at a time through 16 x 16
 * transposes in registers (the outputs with their residual and activation), which also pays on
 * larger images (up to 4096 padded pixels: MobileNetV2's 144x56x56 0.18 ms by rows, 0.14 here).
 *
 * Scratch: nslot slots of slot elements, each the padded planes (Rp * Cp + 8 * sw pixels of
 * DWC_LN) and the weights (KH * KW * DWC_LN) and biases (DWC_LN) of a block of channels.
 * OpenMP: blocks of channels shared among up to nslot threads, a slot each.
 * x: C x H x W, w: C x KH x KW, bias: C or NULL, y and res: C x OH x OW (res may be NULL). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm_act.c"
#include "o2c_target.c"
#include "conv_dw_slots.c"
#include "reduce_lanes.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* The generated code takes this kernel when O2C_DWC is 1: by default on GCC-style vector
 * targets other than Helium (DWC_VEC), elsewhere conv_dw.c's loops.  -DO2C_DWC=1 without
 * vectors runs the scalar form below (a test does). */
#if O2C_V4 && !defined(O2C_MVE)
#define DWC_VEC 1
#else
#define DWC_VEC 0
#endif
#ifndef O2C_DWC
#define O2C_DWC DWC_VEC
#endif
/* On x86 without AVX-512 (flags, or the CPU under O2C_X86_DISPATCH) the 64-byte lanes are
 * split in two and their transposes cost more than they save: the convolutions the compiler
 * marks (3-wide windows on the larger images) take conv_dw.c's rows there. */
#ifndef O2C_DWC_ROWS3
#if defined(__x86_64__) && !defined(__AVX512F__) && O2C_X86_DISPATCH
#define O2C_DWC_ROWS3 (!o2c_cpu_avx512())
#elif defined(__x86_64__) && !defined(__AVX512F__)
#define O2C_DWC_ROWS3 1
#else
#define O2C_DWC_ROWS3 0
#endif
#endif
/* The convolutions the compiler marks for rows on every x86 core (3-wide windows at stride 2
 * from 28 outputs wide: conv_dw.c's rows with AVX-512 too); elsewhere as O2C_DWC_ROWS3. */
#ifndef O2C_DWC_ROWS3_X86
#if defined(__x86_64__)
#define O2C_DWC_ROWS3_X86 1
#else
#define O2C_DWC_ROWS3_X86 O2C_DWC_ROWS3
#endif
#endif
#define DWC_LN_T ((int64_t)(64 / sizeof(T))) /* channels a block: 16 floats, 8 doubles */
#if DWC_VEC
__extension__ typedef T dwc_v_T __attribute__((vector_size(64)));
__extension__ typedef T dwc_vu_T __attribute__((vector_size(64), aligned(sizeof(T)), may_alias));
#define DWC_LD_T(p) ((dwc_v_T)(*(const dwc_vu_T *)(const void *)(p)))
#endif

#if DWC_VEC && O2C_F32_T
/* float: the planes go in and the outputs come out through 16 x 16 transposes in registers
 * (16 pixels of 16 channels: 16 loads, 64 two-vector shuffles, 16 stores), not lane by lane */
#define DWC_TR_T 1
__extension__ typedef int dwc_iv_T __attribute__((vector_size(64)));
#if defined(__clang__)
#define DWC_SHUF_T(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define DWC_SHUF_T(a, b, ...) __builtin_shuffle(a, b, (dwc_iv_T){__VA_ARGS__})
#endif
/* r[i][j] -> r[j][i].  A stage pairs rows i and i + 8 into rows 2i (their first halves
 * interleaved) and 2i + 1 (their second halves): it rotates the 8 bits of an element's
 * (row, column) left by one, so four stages swap row and column.  Written out, so that -O2
 * (which does not unroll loops) keeps the rows in registers too. */
#define DWC_LO_T(a, b)                                                                            \
    DWC_SHUF_T(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23)
#define DWC_HI_T(a, b)                                                                            \
    DWC_SHUF_T(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)
static O2C_INLINE void dwc_stage_T(const dwc_v_T *r, dwc_v_T *t) {
    t[0] = DWC_LO_T(r[0], r[8]), t[1] = DWC_HI_T(r[0], r[8]);
    t[2] = DWC_LO_T(r[1], r[9]), t[3] = DWC_HI_T(r[1], r[9]);
    t[4] = DWC_LO_T(r[2], r[10]), t[5] = DWC_HI_T(r[2], r[10]);
    t[6] = DWC_LO_T(r[3], r[11]), t[7] = DWC_HI_T(r[3], r[11]);
    t[8] = DWC_LO_T(r[4], r[12]), t[9] = DWC_HI_T(r[4], r[12]);
    t[10] = DWC_LO_T(r[5], r[13]), t[11] = DWC_HI_T(r[5], r[13]);
    t[12] = DWC_LO_T(r[6], r[14]), t[13] = DWC_HI_T(r[6], r[14]);
    t[14] = DWC_LO_T(r[7], r[15]), t[15] = DWC_HI_T(r[7], r[15]);
}
static O2C_INLINE void dwc_tr16_T(dwc_v_T *r) {
    dwc_v_T t[16];
    dwc_stage_T(r, t);
    dwc_stage_T(t, r);
    dwc_stage_T(r, t);
    dwc_stage_T(t, r);
}
#else
#define DWC_TR_T 0
#endif

/* Channels [c0, c0 + nl) (nl <= DWC_LN): planes, weights and biases into the slot s. */
static O2C_INLINE void dwc_pack_T(T *s, const T *x, const T *w, const T *bias, int64_t c0,
                                  int64_t nl, int64_t H, int64_t W, int64_t taps, int64_t ph,
                                  int64_t pw, int64_t Rp, int64_t Cp, T *wv, T *bv) {
    const int64_t LN = DWC_LN_T;
    const int64_t nr = H < Rp - ph ? H : Rp - ph, nc = W < Cp - pw ? W : Cp - pw;
    int64_t l, iy, ix, t, p0 = 0;
#if DWC_TR_T
    /* 16 pixels of the flat planes at a time, each one's channels stored to its place */
    const int64_t hw = H * W;
    for (; p0 + 16 <= hw; p0 += 16) {
        dwc_v_T r[16];
        for (l = 0; l < 16; l++)
            r[l] = l < nl ? DWC_LD_T(x + (c0 + l) * hw + p0) : (dwc_v_T){0};
        dwc_tr16_T(r);
        iy = p0 / W, ix = p0 - iy * W;
        for (l = 0; l < 16; l++) {
            if (iy < nr && ix < nc)
                *(dwc_vu_T *)(void *)(s + ((iy + ph) * Cp + ix + pw) * LN) = r[l];
            if (++ix == W)
                ix = 0, iy++;
        }
    }
#endif
    for (l = 0; l < nl; l++) { /* (the pixels from p0 on) */
        const T *xc = x + (c0 + l) * H * W;
        for (iy = p0 / W; iy < nr; iy++) {
            /* from column ix0 of the row, as pointers: with the sizes constant (the common
             * windows inlined) gcc -O3 had warned of an overflow of ix * LN on a path that
             * cannot run (-Waggressive-loop-optimizations) */
            const int64_t ix0 = iy == p0 / W ? p0 - iy * W : 0;
            T *d = s + ((iy + ph) * Cp + pw + ix0) * LN + l;
            const T *xr = xc + iy * W + ix0;
            for (ix = 0; ix < nc - ix0; ix++, d += LN)
                *d = xr[ix];
        }
        for (t = 0; t < taps; t++)
            wv[t * LN + l] = w[(c0 + l) * taps + t];
        bv[l] = bias ? bias[c0 + l] : (T)0;
    }
}

#if DWC_TR_T
/* m ? a : b per lane, m a comparison of vectors (all ones or zeros per lane) */
#define DWC_SEL_T(m, a, b) ((dwc_v_T)(((dwc_iv_T)(a) & (m)) | ((dwc_iv_T)(b) & ~(m))))
/* The activation on 16 vectors in registers.  Not gemm_act_T through memory: GCC vectorises
 * that loop in the width its tuning prefers (32 bytes on Intel cores, and in the x86-64-v4
 * clone), and 32-byte loads of 64-byte stores (and back) wait for the stores to retire
 * (2026-12-07, a Xeon, 1 thread: MobileNetV2's 192 x 28 x 28 0.099 -> 0.06 ms). */
static O2C_INLINE void dwc_act16_T(dwc_v_T *r, int act, T p0, T p1) {
    const dwc_v_T zero = {0}, one = zero + (T)1, a = zero + p0, b = zero + p1;
    int l;
    switch (act) {
    case GEMM_ACT_RELU:
        for (l = 0; l < 16; l++)
            r[l] = DWC_SEL_T(r[l] < zero, zero, r[l]);
        break;
    case GEMM_ACT_CLIP:
        for (l = 0; l < 16; l++) {
            const dwc_v_T v = DWC_SEL_T(r[l] < a, a, r[l]);
            r[l] = DWC_SEL_T(v > b, b, v);
        }
        break;
    case GEMM_ACT_LEAKY:
        for (l = 0; l < 16; l++)
            r[l] = DWC_SEL_T(r[l] < zero, r[l] * a, r[l]);
        break;
    case GEMM_ACT_HARDSIGMOID:
    case GEMM_ACT_HARDSWISH:
        for (l = 0; l < 16; l++) {
            dwc_v_T v = a * r[l] + b;
            v = DWC_SEL_T(v > one, one, v);
            v = DWC_SEL_T(v < zero, zero, v);
            r[l] = act == GEMM_ACT_HARDSWISH ? r[l] * v : v;
        }
        break;
    default: /* GEMM_ACT_NONE: gemm_act.c has no other codes (and r then stays in registers) */
        break;
    }
}

/* The 16 staged outputs st (pixels [pb, pb + 16) of the flat output, channels in lanes) to
 * their channels' planes, with the residual and the activation. */
static O2C_INLINE void dwc_flush_T(const T *st, T *y, const T *res, int64_t c0, int64_t nl,
                                   int64_t osp, int64_t pb, int act, T p0, T p1) {
    dwc_v_T r[16];
    int64_t l;
    for (l = 0; l < 16; l++)
        r[l] = DWC_LD_T(st + l * DWC_LN_T);
    dwc_tr16_T(r);
    if (res)
        for (l = 0; l < nl; l++)
            r[l] += DWC_LD_T(res + (c0 + l) * osp + pb);
    dwc_act16_T(r, act, p0, p1);
    for (l = 0; l < nl; l++)
        *(dwc_vu_T *)(void *)(y + (c0 + l) * osp + pb) = r[l];
}
#endif

static O2C_INLINE void dwc_body_T(const T *x, const T *w, const T *bias, const T *res, T *y,
                                  int64_t c0, int64_t nl, int64_t H, int64_t W, int64_t OH,
                                  int64_t OW, int64_t KH, int64_t KW, int64_t sh, int64_t sw,
                                  int64_t dh, int64_t dw, int64_t ph, int64_t pw, int64_t Rp,
                                  int64_t Cp, int act, T p0, T p1, T *s) {
    const int64_t LN = DWC_LN_T, taps = KH * KW, osp = OH * OW;
    T *const wv = s + (Rp * Cp + 8 * sw) * LN, *const bv = wv + taps * LN;
    int64_t offs[81]; /* each tap's offset in the planes, in elements */
    int64_t oy, ox, t, j, l;
#if DWC_TR_T
    T st[24 * 16]; /* outputs not yet stored: pixels [pb, pb + ns) of the flat output */
    int64_t ns = 0, pb = 0;
#endif
    dwc_pack_T(s, x, w, bias, c0, nl, H, W, taps, ph, pw, Rp, Cp, wv, bv);
    for (t = 0; t < taps; t++)
        offs[t] = ((t / KW) * dh * Cp + (t % KW) * dw) * LN;
    for (oy = 0; oy < OH; oy++)
        for (ox = 0; ox < OW; ox += 8) { /* 8 outputs (those past OW dropped) */
            const T *p = s + (oy * sh * Cp + ox * sw) * LN;
            const int64_t n = OW - ox < 8 ? OW - ox : 8, ps = sw * LN;
            T *yo = y + c0 * osp + oy * OW + ox;
#if DWC_VEC
            const dwc_v_T b = DWC_LD_T(bv);
            dwc_v_T a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b;
            for (t = 0; t < taps; t++) {
                const T *q = p + offs[t];
                const dwc_v_T wt = DWC_LD_T(wv + t * LN);
                a0 += wt * DWC_LD_T(q);
                a1 += wt * DWC_LD_T(q + ps);
                a2 += wt * DWC_LD_T(q + 2 * ps);
                a3 += wt * DWC_LD_T(q + 3 * ps);
                a4 += wt * DWC_LD_T(q + 4 * ps);
                a5 += wt * DWC_LD_T(q + 5 * ps);
                a6 += wt * DWC_LD_T(q + 6 * ps);
                a7 += wt * DWC_LD_T(q + 7 * ps);
            }
#if DWC_TR_T
            {
                dwc_vu_T *sv = (dwc_vu_T *)(void *)(st + ns * LN);
                sv[0] = a0, sv[1] = a1, sv[2] = a2, sv[3] = a3;
                sv[4] = a4, sv[5] = a5, sv[6] = a6, sv[7] = a7;
                ns += n;
                if (ns >= 16) {
                    dwc_flush_T(st, y, res, c0, nl, osp, pb, act, p0, p1);
                    memmove(st, st + 16 * LN, (size_t)((ns - 16) * LN) * sizeof(T));
                    pb += 16, ns -= 16;
                }
            }
            (void)yo;
#else
            for (l = 0; l < nl; l++) {
                T *yl = yo + l * osp;
                yl[0] = a0[l];
                if (n > 1)
                    yl[1] = a1[l];
                if (n > 2)
                    yl[2] = a2[l];
                if (n > 3)
                    yl[3] = a3[l];
                if (n > 4)
                    yl[4] = a4[l];
                if (n > 5)
                    yl[5] = a5[l];
                if (n > 6)
                    yl[6] = a6[l];
                if (n > 7)
                    yl[7] = a7[l];
            }
#endif
#else
            for (l = 0; l < nl; l++)
                for (j = 0; j < n; j++) {
                    T acc = bv[l];
                    for (t = 0; t < taps; t++)
                        acc += wv[t * LN + l] * p[offs[t] + j * ps + l];
                    yo[l * osp + j] = acc;
                }
#endif
        }
    (void)j;
#if DWC_TR_T
    for (l = 0; l < nl; l++) { /* the last ns outputs */
        T *yc = y + (c0 + l) * osp + pb;
        for (j = 0; j < ns; j++)
            yc[j] = st[j * LN + l] + (res ? res[(c0 + l) * osp + pb + j] : (T)0);
        gemm_act_T(yc, ns, act, p0, p1);
    }
    return;
#endif
    for (l = 0; l < nl; l++) {
        T *yc = y + (c0 + l) * osp;
        if (res) {
            const T *rc = res + (c0 + l) * osp;
            for (j = 0; j < osp; j++)
                yc[j] += rc[j];
        }
        gemm_act_T(yc, osp, act, p0, p1);
    }
}

/* One block of channels (dwc_body_T), the common windows with constants (conv_dw_slots.c;
 * MobileNetV2's 576 x 14 x 14 3x3 on 2 threads: 21.1 -> 19.1 us). */
O2C_KERNEL
static void dwc_block_T(const T *x, const T *w, const T *bias, const T *res, T *y, int64_t c0,
                        int64_t nl, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH,
                        int64_t KW, int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph,
                        int64_t pw, int64_t Rp, int64_t Cp, int act, T p0, T p1, T *s) {
#define DWC_WIN_T(K_, S_, P_)                                                                    \
    dwc_body_T(x, w, bias, res, y, c0, nl, H, W, OH, OW, K_, K_, S_, S_, 1, 1, P_, P_, Rp, Cp,     \
               act, p0, p1, s)
    DW_WINDOWS_T(DWC_WIN_T)
#undef DWC_WIN_T
    dwc_body_T(x, w, bias, res, y, c0, nl, H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, Rp, Cp,
               act, p0, p1, s);
}

/* The channels [c0, c0 + nl)'s means into gap (NULL: none), from y's planes of osp elements
 * just written (a GlobalAveragePool of y fused into the Conv: compiler/lower.c). */
static O2C_INLINE void dwc_gap_T(T *gap, const T *y, int64_t c0, int64_t nl, int64_t osp) {
    int64_t l;
    for (l = 0; gap && l < nl; l++)
        gap[c0 + l] = reduce_mean_T(y + (c0 + l) * osp, osp);
}

/* One image: channels [0, C) in blocks of DWC_LN; planes: nslot slots of slot elements; gap
 * (may be NULL): each channel's mean (dwc_gap_T). */
static void dwc_T(const T *x, const T *w, const T *bias, const T *res, T *y, T *gap, int64_t C,
                  int64_t H,
                  int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW, int64_t sh,
                  int64_t sw, int64_t dh, int64_t dw, int64_t ph, int64_t pw, int act, T p0, T p1,
                  T *planes, int64_t slot, int nslot) {
    const int64_t Rp = (OH - 1) * sh + (KH - 1) * dh + 1, Cp = (OW - 1) * sw + (KW - 1) * dw + 1;
    const int64_t LN = DWC_LN_T, nb = (C + LN - 1) / LN;
    int64_t b;
    /* the padding and the lanes of a last, partial block stay zero */
    const int nthr = dw_slots_T(planes, slot, nslot, nb,
                                (double)C * (double)OH * (double)OW * (double)(KH * KW));
#ifdef _OPENMP
    if (nthr > 1) {
#pragma omp parallel num_threads(nthr)
        {
            T *const s = dw_slot_T(planes, slot);
#pragma omp for schedule(static)
            for (b = 0; b < nb; b++) {
                dwc_block_T(x, w, bias, res, y, b * LN, C - b * LN < LN ? C - b * LN : LN, H, W,
                            OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, Rp, Cp, act, p0, p1, s);
                dwc_gap_T(gap, y, b * LN, C - b * LN < LN ? C - b * LN : LN, OH * OW);
            }
        }
        return;
    }
#endif
    (void)nthr; /* (no OpenMP) */
    for (b = 0; b < nb; b++) {
        dwc_block_T(x, w, bias, res, y, b * LN, C - b * LN < LN ? C - b * LN : LN, H, W, OH, OW,
                    KH, KW, sh, sw, dh, dw, ph, pw, Rp, Cp, act, p0, p1, planes);
        dwc_gap_T(gap, y, b * LN, C - b * LN < LN ? C - b * LN : LN, OH * OW);
    }
}
