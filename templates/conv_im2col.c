/* conv_im2col.c - unfold (im2col) for Conv: one image, one group, a tile of output positions.
 *
 * Every convolution is handled as 3-D: 1-D and 2-D ones pass size 1, kernel 1, stride 1,
 * dilation 1, pad 0 for the missing leading axes.  x is C x D x H x W; output position p is
 * flattened over OD x OH x OW.  Row r = ((c * KD + kz) * KH + ky) * KW + kx of the unfolded
 * matrix holds, for the np positions p0 .. p0+np-1, the input element that kernel tap meets
 * there (ONNX Conv: in = out * stride + k * dilation - pad_begin), or 0 in the padding.  Then
 * Y[m, p] = sum_r W[m, r] * cols[r, p - p0] is one GEMM with the weight as stored.
 *
 * cols goes out packed as the engine's B operand (templates/gemm.c, GEMM_PACKED: per K block of
 * GEMM_KC rows, panels of NR positions, the last one padded with zeros; K = C * KD * KH * KW),
 * so the engine multiplies it without packing it again.
 *
 * Along the last axis, each run of output positions splits into the left padding (zeros),
 * the interior (a copy, or a strided gather) and the right padding, computed once per run and
 * tap, then copied for each channel: no bounds test in the inner loops.
 *
 * sizes: in[3] = {D, H, W}, out[3] = {OD, OH, OW}; kern, stride, dil, pad: 3 each. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm.c"
#endif

/* t in [*lo, *hi) (both within [0, run]): 0 <= ix0 + t * sw < W */
static void im2col_span_T(int64_t ix0, int64_t sw, int64_t W, int64_t run, int64_t *lo,
                          int64_t *hi) {
    int64_t l = ix0 < 0 ? (-ix0 + sw - 1) / sw : 0;
    int64_t h = W - 1 - ix0 < 0 ? 0 : (W - 1 - ix0) / sw + 1;
    if (h > run)
        h = run;
    if (l > h)
        l = h;
    *lo = l, *hi = h;
}

/* Kernel tap number tap as (kz, ky, kx). */
static void im2col_taps_T(int64_t tap, const int64_t *kern, int64_t *kz, int64_t *ky,
                          int64_t *kx) {
    *kz = tap / (kern[1] * kern[2]), *ky = tap / kern[2] % kern[1], *kx = tap % kern[2];
}

/* The tile's rows of one kernel tap (kz, ky, kx) for the channels c0 .. c1-1: row r = c * KK
 * + tap (KK = KD * KH * KW).  The runs of output positions along the last axis, their padding
 * and their panel edges are worked out once for the tap, then copied for each channel in turn
 * (a 7x7 image's runs are 7 long: working them out per channel cost more than the copies).
 * The tile goes out packed as the engine's B operand (GEMM_PACKED: K blocks of GEMM_KC rows,
 * panels of NR positions, the last one padded with zeros), rows = K = C * KK. */
O2C_KERNEL
static void im2col_tap_T(const T *x, int64_t c0, int64_t c1, int64_t tap, const int64_t *in,
                         const int64_t *out, const int64_t *kern, const int64_t *stride,
                         const int64_t *dil, const int64_t *pad, int64_t p0, int64_t np,
                         int64_t rows, T *cols) {
    const int64_t NR = GEMM_NR_T, npk = (np + NR - 1) / NR * NR;
    const int64_t KK = kern[0] * kern[1] * kern[2], CS = in[0] * in[1] * in[2];
    const int64_t OHW = out[1] * out[2], OW = out[2], sw = stride[2];
    int64_t kz, ky, kx;
    im2col_taps_T(tap, kern, &kz, &ky, &kx);
    const int64_t ixk = kx * dil[2] - pad[2];
    /* packed: a full K block's panels are KC * NR apart, the last block's kl * NR */
    const int64_t kl = rows - (rows - 1) / GEMM_KC * GEMM_KC;
    int64_t oz = p0 / OHW, oy = (p0 % OHW) / OW, ox = p0 % OW;
    int64_t lo_row, hi_row, q = 0, t, i, c;
    im2col_span_T(ixk, sw, in[2], OW, &lo_row, &hi_row);
    while (q < np) {
        /* one run of output positions along the last axis */
        int64_t run = OW - ox, lo, hi, soff = 0;
        const int64_t iz = oz * stride[0] + kz * dil[0] - pad[0];
        const int64_t iy = oy * stride[1] + ky * dil[1] - pad[1];
        const int64_t ix0 = ox * sw + ixk;
        if (run > np - q)
            run = np - q;
        if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1])
            lo = hi = run;
        else if (run == OW)
            lo = lo_row, hi = hi_row;
        else
            im2col_span_T(ix0, sw, in[2], run, &lo, &hi);
        if (lo < hi)
            soff = (iz * in[1] + iy) * in[2] + ix0;
        for (t = 0; t < run;) {
            /* positions t .. e-1 of the run: one stretch of a panel, at d[t .. e-1] */
            const int64_t pos = q + t, off = pos % NR;
            const int64_t e = run - t <= NR - off ? run : t + NR - off;
            const int64_t l = lo < t ? t : lo > e ? e : lo, h = hi > e ? e : hi < l ? l : hi;
            for (c = c0; c < c1; c++) {
                const int64_t r = c * KK + tap;
                const int64_t r0 = r / GEMM_KC * GEMM_KC;
                const int64_t ps = (r0 + GEMM_KC < rows ? GEMM_KC : kl) * NR;
                const T *src = x + c * CS + soff;
                T *d = cols + r0 * npk + (r - r0) * NR + pos / NR * ps + off - t;
                for (i = t; i < l; i++)
                    d[i] = (T)0;
                if (sw == 1)
                    for (i = l; i < h; i++)
                        d[i] = src[i];
                else if (sw == 2)
                    for (i = l; i < h; i++)
                        d[i] = src[2 * i];
                else
                    for (i = l; i < h; i++)
                        d[i] = src[i * sw];
                for (i = h; i < e; i++)
                    d[i] = (T)0;
            }
            t = e;
        }
        q += run;
        ox += run;
        if (ox == OW) {
            ox = 0;
            if (++oy == out[1]) {
                oy = 0;
                oz++;
            }
        }
    }
    /* packed: the last panel's columns past np are zeros */
    if (np < npk)
        for (c = c0; c < c1; c++) {
            const int64_t r = c * KK + tap, r0 = r / GEMM_KC * GEMM_KC;
            const int64_t ps = (r0 + GEMM_KC < rows ? GEMM_KC : kl) * NR;
            T *d = cols + r0 * npk + (r - r0) * NR + (np - 1) / NR * ps;
            for (i = (np - 1) % NR + 1; i < NR; i++)
                d[i] = (T)0;
        }
}

/* The same rows by gathers, a panel of NR positions at a time: where the output rows are
 * short (a 7x7 image's runs are 7 long, split by the panel edges and the padding), working
 * out the runs costs more than the copies.  Per panel and tap, each position's input offset
 * in a channel (int32: the caller checks a channel's size) and whether it is inside; then per
 * channel one loop of NR loads that the C compiler turns into vector gathers.  The panel's
 * positions past np get zeros like the padding. */
O2C_KERNEL
static void im2col_gtap_T(const T *x, int64_t c0, int64_t c1, int64_t tap, const int64_t *in,
                          const int64_t *out, const int64_t *kern, const int64_t *stride,
                          const int64_t *dil, const int64_t *pad, int64_t p0, int64_t np,
                          int64_t rows, T *cols) {
    const int64_t NR = GEMM_NR_T, npk = (np + NR - 1) / NR * NR;
    const int64_t KK = kern[0] * kern[1] * kern[2], CS = in[0] * in[1] * in[2];
    const int64_t OHW = out[1] * out[2], OW = out[2];
    const int64_t kl = rows - (rows - 1) / GEMM_KC * GEMM_KC;
    int32_t idx[GEMM_NR_T], ok[GEMM_NR_T];
    int64_t pn, i, c, kz, ky, kx;
    im2col_taps_T(tap, kern, &kz, &ky, &kx);
    for (pn = 0; pn < npk; pn += NR) {
        for (i = 0; i < NR; i++) {
            const int64_t p = p0 + pn + i, oz = p / OHW, oy = p % OHW / OW, ox = p % OW;
            const int64_t iz = oz * stride[0] + kz * dil[0] - pad[0];
            const int64_t iy = oy * stride[1] + ky * dil[1] - pad[1];
            const int64_t ix = ox * stride[2] + kx * dil[2] - pad[2];
            const int inside = pn + i < np && iz >= 0 && iz < in[0] && iy >= 0 && iy < in[1] &&
                               ix >= 0 && ix < in[2];
            ok[i] = inside;
            idx[i] = inside ? (int32_t)((iz * in[1] + iy) * in[2] + ix) : 0;
        }
        for (c = c0; c < c1; c++) {
            const int64_t r = c * KK + tap, r0 = r / GEMM_KC * GEMM_KC;
            const int64_t ps = (r0 + GEMM_KC < rows ? GEMM_KC : kl) * NR;
            const T *src = x + c * CS;
            T *d = cols + r0 * npk + (r - r0) * NR + pn / NR * ps;
            for (i = 0; i < NR; i++) {
                const T v = src[idx[i]];
                d[i] = ok[i] ? v : (T)0;
            }
        }
    }
}

#ifndef IM2COL_GATHER_OW
#define IM2COL_GATHER_OW 16 /* output rows shorter than this go by gathers */
#endif

#define IM2COL_CB 64 /* channels of one work item */

/* Work items: (tap, a block of IM2COL_CB channels).  Built with OpenMP, a tile of at least
 * 2^15 elements shares them out among threads (o2c_par). */
static void im2col_T(const T *x, int64_t C, const int64_t *in, const int64_t *out,
                     const int64_t *kern, const int64_t *stride, const int64_t *dil,
                     const int64_t *pad, int64_t p0, int64_t np, T *cols) {
    const int64_t KK = kern[0] * kern[1] * kern[2], nb = (C + IM2COL_CB - 1) / IM2COL_CB;
    const int64_t rows = C * KK;
    /* short output rows go by gathers: on one thread with stride 1 (ResNet-18's 512 -> 512 at
     * 7x7: 0.41 -> 0.20 ms for the unfold), on threads with any stride (its 256 -> 512 stride
     * 2 at 7x7: 0.56 -> 0.54 ms on two threads; on one, its strided runs of 7 copy faster) */
    /* (a gather reads a channel's first element for the padding: an empty image has none) */
    const int64_t CS = in[0] * in[1] * in[2];
    const int small = out[2] < IM2COL_GATHER_OW && CS > 0 && CS <= INT32_MAX;
    int gather = small && stride[2] == 1;
    int64_t w;
    if (np <= 0 || C <= 0)
        return;
#ifdef _OPENMP
    if (o2c_par(C * KK * np >= 32768 && KK * nb > 1)) {
        gather = small;
#pragma omp parallel for schedule(static)
        for (w = 0; w < KK * nb; w++) {
            const int64_t c0 = w / KK * IM2COL_CB, c1 = C - c0 < IM2COL_CB ? C : c0 + IM2COL_CB;
            if (gather)
                im2col_gtap_T(x, c0, c1, w % KK, in, out, kern, stride, dil, pad, p0, np, rows,
                              cols);
            else
                im2col_tap_T(x, c0, c1, w % KK, in, out, kern, stride, dil, pad, p0, np, rows,
                             cols);
        }
        return;
    }
#endif
    for (w = 0; w < KK * nb; w++) {
        const int64_t c0 = w / KK * IM2COL_CB, c1 = C - c0 < IM2COL_CB ? C : c0 + IM2COL_CB;
        if (gather)
            im2col_gtap_T(x, c0, c1, w % KK, in, out, kern, stride, dil, pad, p0, np, rows, cols);
        else
            im2col_tap_T(x, c0, c1, w % KK, in, out, kern, stride, dil, pad, p0, np, rows, cols);
    }
}
