/* conv_col2im.c - fold (col2im) for ConvTranspose: scatter-add one tile of columns into y.
 *
 * The transpose of conv_im2col.c.  Every case is handled as 3-D (missing leading axes have
 * size 1, kernel 1, stride 1, dilation 1, pad 0).  y is C x OD x OH x OW; input position p is
 * flattened over D x H x W.  Row r = ((c * KD + kz) * KH + ky) * KW + kx of cols holds, for the
 * np input positions p0 .. p0+np-1, the contribution of that kernel tap, which ONNX
 * ConvTranspose adds at out = in * stride + k * dilation - pad_begin (dropped when it falls
 * outside y).  cols comes from one GEMM: cols = W[g]^T * X[g].
 *
 * sizes: in[3] = {D, H, W} (input positions), out[3] = {OD, OH, OW} (y); kern, stride, dil,
 * pad: 3 each. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void col2im_T(const T *cols, int64_t C, const int64_t *in, const int64_t *out,
                     const int64_t *kern, const int64_t *stride, const int64_t *dil,
                     const int64_t *pad, int64_t p0, int64_t np, T *y) {
    const int64_t HW = in[1] * in[2];
    int64_t c, kz, ky, kx, r = 0;
    if (np <= 0)
        return;
    for (c = 0; c < C; c++)
        for (kz = 0; kz < kern[0]; kz++)
            for (ky = 0; ky < kern[1]; ky++)
                for (kx = 0; kx < kern[2]; kx++, r++) {
                    const T *src = cols + r * np;
                    int64_t iz = p0 / HW, iy = (p0 % HW) / in[2], ix = p0 % in[2];
                    int64_t q = 0;
                    while (q < np) {
                        /* one run of input positions along the last axis */
                        int64_t run = in[2] - ix, t;
                        const int64_t oz = iz * stride[0] + kz * dil[0] - pad[0];
                        const int64_t oy = iy * stride[1] + ky * dil[1] - pad[1];
                        if (run > np - q)
                            run = np - q;
                        if (oz >= 0 && oz < out[0] && oy >= 0 && oy < out[1]) {
                            T *dst = y + ((c * out[0] + oz) * out[1] + oy) * out[2];
                            const int64_t ox0 = ix * stride[2] + kx * dil[2] - pad[2];
                            for (t = 0; t < run; t++) {
                                const int64_t ox = ox0 + t * stride[2];
                                if (ox >= 0 && ox < out[2])
                                    dst[ox] += src[q + t];
                            }
                        }
                        q += run;
                        ix += run;
                        if (ix == in[2]) {
                            ix = 0;
                            if (++iy == in[1]) {
                                iy = 0;
                                iz++;
                            }
                        }
                    }
                }
}
