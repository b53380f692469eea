/* pool_lp.c - Lp pooling over up to three spatial axes (ONNX LpPool, GlobalLpPool).
 *
 * Shapes and windows as in pool_max.c: y = (sum over the taps inside the input of |x|^p)^(1/p)
 * (padding is zeros, which add nothing), computed in O2C_ACC_T (double; float on single-precision
 * FPUs, where the integer p of LpPool is exact and the sums short). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "acc_math.c"
#include "pool_taps.c"
#endif

static void lppool_T(const T *x, T *y, int64_t nc, const int64_t *in, const int64_t *out,
                     const int64_t *k, const int64_t *st, const int64_t *dl, const int64_t *pad,
                     O2C_ACC_T p) {
    int64_t plane = in[0] * in[1] * in[2];
    for (int64_t c = 0; c < nc; c++) {
        const T *xc = x + c * plane;
        for (int64_t o0 = 0; o0 < out[0]; o0++) {
            int64_t s0 = o0 * st[0] - pad[0], a0, a1;
            pool_taps_T(s0, in[0], k[0], dl[0], &a0, &a1);
            for (int64_t o1 = 0; o1 < out[1]; o1++) {
                int64_t s1 = o1 * st[1] - pad[1], b0, b1;
                pool_taps_T(s1, in[1], k[1], dl[1], &b0, &b1);
                for (int64_t o2 = 0; o2 < out[2]; o2++) {
                    int64_t s2 = o2 * st[2] - pad[2], c0, c1;
                    pool_taps_T(s2, in[2], k[2], dl[2], &c0, &c1);
                    O2C_ACC_T acc = 0;
                    for (int64_t a = a0; a < a1; a++) {
                        int64_t i0 = s0 + a * dl[0];
                        for (int64_t b = b0; b < b1; b++) {
                            const T *row = xc + (i0 * in[1] + s1 + b * dl[1]) * in[2];
                            for (int64_t j = c0; j < c1; j++)
                                acc += o2c_accpow_T(o2c_accfn_T(fabs, row[s2 + j * dl[2]]), p);
                        }
                    }
                    *y++ = (T)o2c_accpow_T(acc, (O2C_ACC_T)1 / p);
                }
            }
        }
    }
}
