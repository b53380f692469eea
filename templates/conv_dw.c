/* conv_dw.c - depthwise 2-D convolution (one input and one output channel per group), direct.
 *
 * An unfold + GEMM would multiply a 1 x (KH*KW) weight row per channel: all overhead.  Instead,
 * per channel and output row:
 *   - 3-wide kernels with dilation 1 along W (3x3, 1x3, 2x3: the depthwise convolutions of
 *     MobileNet, EfficientNet and friends) take the fast path: the output columns split into
 *     the interior, whose three input columns lie inside the row for every tap, and the few
 *     border columns.  The interior is one loop that sums all taps of the (up to three) valid
 *     input rows in a register and stores y once; it has no tests and, with the stride a
 *     constant 1 or 2 after inlining, compilers vectorize it.  Border columns take a checked
 *     scalar loop.
 *   - any other kernel: the row of y (in L1) takes bias, then one pass per kernel tap
 *     (ky, kx): y[ox] += w[ky][kx] * x[iy][ox * sw + kx * dw - pw] over the range of ox whose
 *     input column is inside the image (a plain axpy when sw = 1).
 * Then the residual, and the activation (templates/gemm_act.c) in one pass over the row.
 *
 * x: C x H x W, w: C x KH x KW, bias: C or NULL, y and res: C x OH x OW (res may be NULL).
 * @requires gemm_act */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm_act.c"
#endif

/* Interior of one output row, 3-wide kernel: y[ox] = b + sum over the nv valid input rows r[i]
 * (weights wr[i][0..2]) of wr[i][k] * r[i][ox * sw - pw + k], for ox in [lo, hi). */
static inline void dwconv_row3_T(T *yr, int64_t lo, int64_t hi, int64_t sw, int64_t pw, int nv,
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
 * when built with OpenMP). */
static void dwconv_T(const T *x, const T *w, const T *bias, const T *res, T *y, int64_t c,
                     int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                     int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph, int64_t pw,
                     int act, T p0, T p1) {
    int64_t oy, ky, kx, ox;
    const int row3 = KW == 3 && dw == 1 && KH <= 3;
    /* fast path: interior columns [lo3, hi3) have 0 <= ox * sw - pw and ox * sw - pw + 2 < W */
    int64_t lo3 = pw > 0 ? (pw + sw - 1) / sw : 0;
    int64_t hi3 = W - 3 + pw >= 0 ? (W - 3 + pw) / sw + 1 : 0;
    if (hi3 > OW)
        hi3 = OW;
    if (lo3 > hi3)
        lo3 = hi3;
    {
        const T *xc = x + c * H * W, *wc = w + c * KH * KW;
        const T b = bias ? bias[c] : (T)0;
        for (oy = 0; oy < OH; oy++) {
            T *yr = y + (c * OH + oy) * OW;
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
            if (res) {
                const T *rr = res + (c * OH + oy) * OW;
                for (ox = 0; ox < OW; ox++)
                    yr[ox] += rr[ox];
            }
            gemm_act_T(yr, OW, act, p0, p1);
        }
    }
}

