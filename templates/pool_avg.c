/* pool_avg.c - average pooling over up to three spatial axes (ONNX AveragePool,
 * GlobalAveragePool).
 *
 * Shapes and windows as in pool_max.c; pad holds the begin pads of the three axes, then the end
 * pads.  The sum (in O2C_ACC_T: double, float on single-precision FPUs) is divided by the number of taps inside the input, or, when
 * count_include_pad, by the number of taps inside the padded input [-pad_begin, in + pad_end).
 * A window with nothing to count gives 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#include "pool_taps.c"
#endif

static void avgpool_T(const T *x, T *y, int64_t nc, const int64_t *in, const int64_t *out,
                      const int64_t *k, const int64_t *st, const int64_t *dl, const int64_t *pad,
                      int64_t count_include_pad) {
    int64_t plane = in[0] * in[1] * in[2];
    for (int64_t c = 0; c < nc; c++) {
        const T *xc = x + c * plane;
        for (int64_t o0 = 0; o0 < out[0]; o0++) {
            int64_t s0 = o0 * st[0] - pad[0], a0, a1, p0, p1;
            pool_taps_T(s0, in[0], k[0], dl[0], &a0, &a1);
            pool_taps_T(s0 + pad[0], in[0] + pad[0] + pad[3], k[0], dl[0], &p0, &p1);
            for (int64_t o1 = 0; o1 < out[1]; o1++) {
                int64_t s1 = o1 * st[1] - pad[1], b0, b1, q0, q1;
                pool_taps_T(s1, in[1], k[1], dl[1], &b0, &b1);
                pool_taps_T(s1 + pad[1], in[1] + pad[1] + pad[4], k[1], dl[1], &q0, &q1);
                for (int64_t o2 = 0; o2 < out[2]; o2++) {
                    int64_t s2 = o2 * st[2] - pad[2], c0, c1, r0, r1;
                    pool_taps_T(s2, in[2], k[2], dl[2], &c0, &c1);
                    pool_taps_T(s2 + pad[2], in[2] + pad[2] + pad[5], k[2], dl[2], &r0, &r1);
                    O2C_ACC_T acc = 0;
                    for (int64_t a = a0; a < a1; a++) {
                        int64_t i0 = s0 + a * dl[0];
                        for (int64_t b = b0; b < b1; b++) {
                            const T *row = xc + (i0 * in[1] + s1 + b * dl[1]) * in[2];
                            for (int64_t j = c0; j < c1; j++)
                                acc += (O2C_ACC_T)row[s2 + j * dl[2]];
                        }
                    }
                    int64_t cnt = count_include_pad ? (p1 - p0) * (q1 - q0) * (r1 - r0)
                                                    : (a1 - a0) * (b1 - b0) * (c1 - c0);
                    *y++ = cnt > 0 ? (T)(acc / (O2C_ACC_T)cnt) : (T)0;
                }
            }
        }
    }
}
