/* conv_dw.c — depthwise 2-D convolution (one input and one output channel per group), direct.
 *
 * An unfold + GEMM would multiply a 1 x (KH*KW) weight row per channel: all overhead.  Instead,
 * per channel and output row, the row of y (in L1) takes bias, then one pass per kernel tap
 * (ky, kx): y[ox] += w[ky][kx] * x[iy][ox * sw + kx * dw - pw] over the range of ox whose input
 * column is inside the image (so the inner loop has no tests: with stride 1 it is a plain
 * axpy over contiguous memory that compilers vectorize), then residual and activation
 * (the GEMM engine's epilogue codes, templates/gemm.c).
 *
 * x: C x H x W, w: C x KH x KW, bias: C or NULL, y and res: C x OH x OW (res may be NULL). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void dwconv_T(const T *x, const T *w, const T *bias, const T *res, T *y, int64_t C,
                     int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                     int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph, int64_t pw,
                     int act, T p0, T p1) {
    int64_t c, oy, ky, kx, ox;
    for (c = 0; c < C; c++) {
        const T *xc = x + c * H * W, *wc = w + c * KH * KW;
        const T b = bias ? bias[c] : (T)0;
        for (oy = 0; oy < OH; oy++) {
            T *yr = y + (c * OH + oy) * OW;
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
            if (res) {
                const T *rr = res + (c * OH + oy) * OW;
                for (ox = 0; ox < OW; ox++)
                    yr[ox] += rr[ox];
            }
            switch (act) {
            case 1: /* Relu */
                for (ox = 0; ox < OW; ox++)
                    yr[ox] = yr[ox] < (T)0 ? (T)0 : yr[ox];
                break;
            case 2: /* Clip */
                for (ox = 0; ox < OW; ox++) {
                    T v = yr[ox] < p0 ? p0 : yr[ox];
                    yr[ox] = v > p1 ? p1 : v;
                }
                break;
            case 3: /* LeakyRelu */
                for (ox = 0; ox < OW; ox++)
                    yr[ox] = yr[ox] < (T)0 ? yr[ox] * p0 : yr[ox];
                break;
            case 4: /* HardSigmoid */
                for (ox = 0; ox < OW; ox++) {
                    T v = p0 * yr[ox] + p1;
                    v = v > (T)1 ? (T)1 : v;
                    yr[ox] = v < (T)0 ? (T)0 : v;
                }
                break;
            case 5: /* HardSwish */
                for (ox = 0; ox < OW; ox++) {
                    T v = yr[ox] / (T)6 + (T)1 / (T)2;
                    v = v > (T)1 ? (T)1 : v;
                    v = v < (T)0 ? (T)0 : v;
                    yr[ox] = yr[ox] * v;
                }
                break;
            default:
                break;
            }
        }
    }
}
