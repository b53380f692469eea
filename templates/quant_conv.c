/* quant_conv.c - direct int32 convolution of one image: x[C][in0][in1][in2] (C = group * cg)
 * by w[M][cg][k0][k1][k2] (M = group * mg) into y[M][out0][out1][out2], everything 3-D
 * normalised (missing leading spatial axes have size 1).  The operands are already widened
 * with their zero points subtracted, so padding contributes 0.  Sums wrap in 32 bits
 * (computed unsigned).  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void quant_conv(const int32_t *x, const int32_t *w, int32_t *y, int64_t group, int64_t cg,
                       int64_t mg, const int64_t *in, const int64_t *out, const int64_t *k,
                       const int64_t *stride, const int64_t *dil, const int64_t *pad) {
    const int64_t isp = in[0] * in[1] * in[2], osp = out[0] * out[1] * out[2];
    const int64_t kvol = k[0] * k[1] * k[2];
    for (int64_t g = 0; g < group; g++)
        for (int64_t mi = 0; mi < mg; mi++) {
            const int64_t m = g * mg + mi;
            uint32_t *yo = (uint32_t *)(void *)(y + m * osp);
            for (int64_t p = 0; p < osp; p++)
                yo[p] = 0;
            for (int64_t ci = 0; ci < cg; ci++) {
                const int32_t *xc = x + (g * cg + ci) * isp;
                const int32_t *wc = w + (m * cg + ci) * kvol;
                for (int64_t a = 0; a < k[0]; a++)
                    for (int64_t b = 0; b < k[1]; b++)
                        for (int64_t c = 0; c < k[2]; c++) {
                            const uint32_t wv = (uint32_t)wc[(a * k[1] + b) * k[2] + c];
                            if (wv == 0)
                                continue;
                            for (int64_t o0 = 0; o0 < out[0]; o0++) {
                                const int64_t i0 = o0 * stride[0] - pad[0] + a * dil[0];
                                if (i0 < 0 || i0 >= in[0])
                                    continue;
                                for (int64_t o1 = 0; o1 < out[1]; o1++) {
                                    const int64_t i1 = o1 * stride[1] - pad[1] + b * dil[1];
                                    if (i1 < 0 || i1 >= in[1])
                                        continue;
                                    const int32_t *xr = xc + (i0 * in[1] + i1) * in[2];
                                    uint32_t *yr = yo + (o0 * out[1] + o1) * out[2];
                                    for (int64_t o2 = 0; o2 < out[2]; o2++) {
                                        const int64_t i2 = o2 * stride[2] - pad[2] + c * dil[2];
                                        if (i2 >= 0 && i2 < in[2])
                                            yr[o2] += wv * (uint32_t)xr[i2];
                                    }
                                }
                            }
                        }
            }
        }
}
