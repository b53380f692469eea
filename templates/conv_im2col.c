/* conv_im2col.c — unfold (im2col) for Conv: one image, one group, a tile of output positions.
 *
 * Every convolution is handled as 3-D: 1-D and 2-D ones pass size 1, kernel 1, stride 1,
 * dilation 1, pad 0 for the missing leading axes.  x is C x D x H x W; output position p is
 * flattened over OD x OH x OW.  Row r = ((c * KD + kz) * KH + ky) * KW + kx of cols holds, for
 * the np positions p0 .. p0+np-1, the input element that kernel tap meets there (ONNX Conv:
 * in = out * stride + k * dilation - pad_begin), or 0 in the padding.  Then
 * Y[m, p] = sum_r W[m, r] * cols[r, p - p0] is one GEMM with the weight as stored.
 *
 * sizes: in[3] = {D, H, W}, out[3] = {OD, OH, OW}; kern, stride, dil, pad: 3 each. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void im2col_T(const T *x, int64_t C, const int64_t *in, const int64_t *out,
                     const int64_t *kern, const int64_t *stride, const int64_t *dil,
                     const int64_t *pad, int64_t p0, int64_t np, T *cols) {
    const int64_t OHW = out[1] * out[2];
    int64_t c, kz, ky, kx, r = 0;
    if (np <= 0)
        return;
    for (c = 0; c < C; c++)
        for (kz = 0; kz < kern[0]; kz++)
            for (ky = 0; ky < kern[1]; ky++)
                for (kx = 0; kx < kern[2]; kx++, r++) {
                    T *dst = cols + r * np;
                    int64_t oz = p0 / OHW, oy = (p0 % OHW) / out[2], ox = p0 % out[2];
                    int64_t q = 0;
                    while (q < np) {
                        /* one run of output positions along the last axis */
                        int64_t run = out[2] - ox, t;
                        const int64_t iz = oz * stride[0] + kz * dil[0] - pad[0];
                        const int64_t iy = oy * stride[1] + ky * dil[1] - pad[1];
                        if (run > np - q)
                            run = np - q;
                        if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1]) {
                            for (t = 0; t < run; t++)
                                dst[q + t] = (T)0;
                        } else {
                            const T *src = x + ((c * in[0] + iz) * in[1] + iy) * in[2];
                            const int64_t ix0 = ox * stride[2] + kx * dil[2] - pad[2];
                            if (stride[2] == 1 && ix0 >= 0 && ix0 + run <= in[2]) {
                                /* the whole run inside the row: a plain copy */
                                const T *s1 = src + ix0;
                                T *d1 = dst + q;
                                for (t = 0; t < run; t++)
                                    d1[t] = s1[t];
                            } else {
                                for (t = 0; t < run; t++) {
                                    const int64_t ix = ix0 + t * stride[2];
                                    dst[q + t] = ix >= 0 && ix < in[2] ? src[ix] : (T)0;
                                }
                            }
                        }
                        q += run;
                        ox += run;
                        if (ox == out[2]) {
                            ox = 0;
                            if (++oy == out[1]) {
                                oy = 0;
                                oz++;
                            }
                        }
                    }
                }
}
