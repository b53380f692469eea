/* conv_dwp.c - depthwise 2-D convolution (one input and one output channel per group) by padded
 * phase planes, for cores with vectors (O2C_DWP).
 *
 * The rows of a small image are too short for vectors: MobileNetV3's 5x5 layers at 14x14 and
 * 7x7, LR-ASPP's dilated ones at 16x16 spend their time in loop overhead when a row is the
 * vector (templates/conv_dw.c).  So per channel the zero-padded input goes into sh * sw phase
 * planes, P[a][b][i][j] = xpad[i * sh + a][j * sw + b], each Hq x Wq; tap (ky, kx) then reads
 * plane ((ky * dh) % sh, (kx * dw) % sw) from offset ((ky * dh) / sh) * Wq + (kx * dw) / sw, and
 * every output of the wide image Y[oy * Wq + ox] (ox < Wq; the columns from OW on are dropped)
 * sums, over the taps, one contiguous run of a plane.  DWP_VL outputs at a time take all the
 * taps in registers, across row ends.  The rows of Y then go to y with the residual and the
 * activation (the bias starts the sums).
 *
 * Scratch: nslot slots of slot floats (a multiple of 16), each DWP_PLANES(...) floats of planes
 * then the wide image; the padding is written once per slot and call, each channel overwrites
 * only the inside.  OpenMP: channels shared among up to nslot threads, a slot each.
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

/* The generated code takes this kernel when O2C_DWP is 1: by default on GCC-style vector
 * targets other than Helium (DWP_VEC), elsewhere conv_dw.c's loops.  -DO2C_DWP=1 without
 * vectors runs the scalar form below (a test does). */
#if O2C_V4 && !defined(O2C_MVE)
#define DWP_VEC 1
#else
#define DWP_VEC 0
#endif
#ifndef O2C_DWP
#define O2C_DWP DWP_VEC
#endif
#define DWP_VL 64   /* room for a step of outputs: 64 floats (4 vectors of 64 bytes), 32 doubles */
#if DWP_VEC
__extension__ typedef T dwp_v_T __attribute__((vector_size(64)));
__extension__ typedef T dwp_vu_T __attribute__((vector_size(64), aligned(sizeof(T)), may_alias));
#define DWP_NV_T ((int64_t)(64 / sizeof(T)))
#define DWP_LD_T(p) ((dwp_v_T)(*(const dwp_vu_T *)(const void *)(p)))
#define DWP_ST_T(p, v) (*(dwp_vu_T *)(void *)(p) = (v))
/* (a macro: a 64-byte vector argument or result would change the ABI on narrower targets) */
#define DWP_DUP_T(s) ((dwp_v_T){0} + (s))
#endif
#define DWP_TAPS 81 /* kernels up to 9x9 (the compiler takes the row kernel above) */

/* Channel c's planes from its input xc (H x W): the inside only, the padding stays. */
static O2C_INLINE void dwp_pack_T(T *pl, const T *xc, int64_t H, int64_t W, int64_t sh,
                                  int64_t sw, int64_t ph, int64_t pw, int64_t Rp, int64_t Cp,
                                  int64_t Wq, int64_t ps) {
    int64_t iy, ix;
    for (iy = 0; iy < H && iy + ph < Rp; iy++) {
        const int64_t r = iy + ph;
        const T *xr = xc + iy * W;
        T *pr = pl + (r % sh) * sw * ps + (r / sh) * Wq;
        const int64_t nx = W < Cp - pw ? W : Cp - pw;
        if (sw == 1) {
            T *d = pr + pw;
            for (ix = 0; ix < nx; ix++)
                d[ix] = xr[ix];
        } else {
            int64_t b0;
            for (b0 = 0; b0 < sw; b0++) { /* the columns of phase b0: (ix + pw) % sw == b0 */
                const int64_t i0 = ((b0 - pw) % sw + sw) % sw;
                T *d = pr + b0 * ps + (i0 + pw) / sw;
                const T *xs = xr + i0;
                const int64_t nk = nx > i0 ? (nx - i0 + sw - 1) / sw : 0;
                int64_t k;
                if (sw == 2) /* a literal stride: vectorised with permutes */
                    for (k = 0; k < nk; k++)
                        d[k] = xs[2 * k];
                else
                    for (k = 0; k < nk; k++)
                        d[k] = xs[k * sw];
            }
        }
    }
}

static O2C_INLINE void dwp_body_T(const T *xc, const T *wc, T b, const T *rc, T *yc, int64_t H,
                                  int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                                  int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph,
                                  int64_t pw, int64_t Rp, int64_t Cp, int64_t Hq, int64_t Wq,
                                  int act, T p0, T p1, T *slot) {
    const int64_t ps = Hq * Wq + Wq + DWP_VL;
    T *const Y = slot + sh * sw * ps;
    const int64_t nf = OH * Wq;
    const T *tp[DWP_TAPS];
    T tw[DWP_TAPS];
    int64_t nt = 0, ky, kx, f0, oy, ox;
    int64_t t;
    dwp_pack_T(slot, xc, H, W, sh, sw, ph, pw, Rp, Cp, Wq, ps);
    for (ky = 0; ky < KH; ky++)
        for (kx = 0; kx < KW; kx++) {
            const int64_t ry = ky * dh, rx = kx * dw;
            tp[nt] = slot + ((ry % sh) * sw + rx % sw) * ps + (ry / sh) * Wq + rx / sw;
            tw[nt] = wc[ky * KW + kx];
            nt++;
        }
#if DWP_VEC
    /* 4 vectors of 64 bytes (however the target splits them): DWP_VL floats, half as many
     * doubles */
    for (f0 = 0; f0 < nf; f0 += 4 * DWP_NV_T) {
        dwp_v_T a0 = DWP_DUP_T(b), a1 = a0, a2 = a0, a3 = a0;
        for (t = 0; t < nt; t++) {
            const T *p = tp[t] + f0;
            const dwp_v_T wv = DWP_DUP_T(tw[t]);
            a0 += wv * DWP_LD_T(p);
            a1 += wv * DWP_LD_T(p + DWP_NV_T);
            a2 += wv * DWP_LD_T(p + 2 * DWP_NV_T);
            a3 += wv * DWP_LD_T(p + 3 * DWP_NV_T);
        }
        DWP_ST_T(Y + f0, a0);
        DWP_ST_T(Y + f0 + DWP_NV_T, a1);
        DWP_ST_T(Y + f0 + 2 * DWP_NV_T, a2);
        DWP_ST_T(Y + f0 + 3 * DWP_NV_T, a3);
    }
#else
    for (f0 = 0; f0 < nf; f0++) {
        T acc = b;
        for (t = 0; t < nt; t++)
            acc += tw[t] * tp[t][f0];
        Y[f0] = acc;
    }
#endif
    for (oy = 0; oy < OH; oy++) {
        T *yr = yc + oy * OW;
        const T *Yr = Y + oy * Wq;
        if (rc) {
            const T *rr = rc + oy * OW;
            for (ox = 0; ox < OW; ox++)
                yr[ox] = Yr[ox] + rr[ox];
        } else
            for (ox = 0; ox < OW; ox++)
                yr[ox] = Yr[ox];
    }
    gemm_act_T(yc, OH * OW, act, p0, p1); /* the channel's rows are contiguous: one pass */
}

/* One channel (dwp_body_T), the common windows with constants (conv_dw_slots.c; LR-ASPP's
 * 72 x 64 x 64 5x5 stride 2 had run slower on 2 threads than on 1). */
O2C_KERNEL
static void dwp_chan_T(const T *xc, const T *wc, T b, const T *rc, T *yc, int64_t H, int64_t W,
                       int64_t OH, int64_t OW, int64_t KH, int64_t KW, int64_t sh, int64_t sw,
                       int64_t dh, int64_t dw, int64_t ph, int64_t pw, int64_t Rp, int64_t Cp,
                       int64_t Hq, int64_t Wq, int act, T p0, T p1, T *slot) {
#define DWP_WIN_T(K_, S_, P_)                                                                    \
    dwp_body_T(xc, wc, b, rc, yc, H, W, OH, OW, K_, K_, S_, S_, 1, 1, P_, P_, Rp, Cp, Hq, Wq, act, \
               p0, p1, slot)
    DW_WINDOWS_T(DWP_WIN_T)
#undef DWP_WIN_T
    dwp_body_T(xc, wc, b, rc, yc, H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, Rp, Cp, Hq, Wq,
               act, p0, p1, slot);
}

/* One image: channels [0, C); planes: nslot slots of slot floats; gap (may be NULL): each
 * channel's mean, a GlobalAveragePool of y fused into the Conv (compiler/lower.c), taken while
 * the channel's plane is still in the cache. */
static void dwp_T(const T *x, const T *w, const T *bias, const T *res, T *y, T *gap, int64_t C,
                  int64_t H,
                  int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW, int64_t sh,
                  int64_t sw, int64_t dh, int64_t dw, int64_t ph, int64_t pw, int act, T p0, T p1,
                  T *planes, int64_t slot, int nslot) {
    const int64_t Rp = (OH - 1) * sh + (KH - 1) * dh + 1, Cp = (OW - 1) * sw + (KW - 1) * dw + 1;
    const int64_t Hq = (Rp + sh - 1) / sh, Wq = (Cp + sw - 1) / sw;
    int64_t ch;
    /* the padding stays zero */
    const int nthr = dw_slots_T(planes, slot, nslot, C,
                                (double)C * (double)OH * (double)OW * (double)(KH * KW));
#ifdef _OPENMP
    if (nthr > 1) {
#pragma omp parallel num_threads(nthr)
        {
            T *const s = dw_slot_T(planes, slot);
#pragma omp for schedule(static)
            for (ch = 0; ch < C; ch++) {
                dwp_chan_T(x + ch * H * W, w + ch * KH * KW, bias ? bias[ch] : (T)0,
                           res ? res + ch * OH * OW : res, y + ch * OH * OW, H, W, OH, OW, KH,
                           KW, sh, sw, dh, dw, ph, pw, Rp, Cp, Hq, Wq, act, p0, p1, s);
                if (gap)
                    gap[ch] = reduce_mean_T(y + ch * OH * OW, OH * OW);
            }
        }
        return;
    }
#endif
    (void)nthr; /* (no OpenMP) */
    for (ch = 0; ch < C; ch++) {
        dwp_chan_T(x + ch * H * W, w + ch * KH * KW, bias ? bias[ch] : (T)0,
                   res ? res + ch * OH * OW : res, y + ch * OH * OW, H, W, OH, OW, KH, KW, sh, sw,
                   dh, dw, ph, pw, Rp, Cp, Hq, Wq, act, p0, p1, planes);
        if (gap)
            gap[ch] = reduce_mean_T(y + ch * OH * OW, OH * OW);
    }
}
