/* pool_lp.c - Lp pooling over up to three spatial axes (ONNX LpPool, GlobalLpPool).
 *
 * Shapes and windows as in pool_max.c: y = (sum over the taps inside the input of |x|^p)^(1/p)
 * (padding is zeros, which add nothing), computed in O2C_ACC_T (double; float on single-precision
 * FPUs, where the integer p of LpPool is exact and the sums short). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "acc_math.c"
#include "pool_win.c"
#endif

static void lppool_T(const T *x, T *y, int64_t nc, const int64_t *in, const int64_t *out,
                     const int64_t *k, const int64_t *st, const int64_t *dl, const int64_t *pad,
                     O2C_ACC_T p) {
    int64_t plane = in[0] * in[1] * in[2];
    for (int64_t c = 0; c < nc; c++) {
        const T *xc = x + c * plane;
        for (int64_t o0 = 0; o0 < out[0]; o0++) {
            const pool_win_T w0 = pool_window_T(o0, 0, in, k, st, dl, pad, 0);
            for (int64_t o1 = 0; o1 < out[1]; o1++) {
                const pool_win_T w1 = pool_window_T(o1, 1, in, k, st, dl, pad, 0);
                for (int64_t o2 = 0; o2 < out[2]; o2++) {
                    const pool_win_T w2 = pool_window_T(o2, 2, in, k, st, dl, pad, 0);
                    O2C_ACC_T acc = 0;
                    for (int64_t a = w0.j0; a < w0.j1; a++) {
                        int64_t i0 = w0.s + a * dl[0];
                        for (int64_t b = w1.j0; b < w1.j1; b++) {
                            const T *row = xc + (i0 * in[1] + w1.s + b * dl[1]) * in[2];
                            for (int64_t j = w2.j0; j < w2.j1; j++)
                                acc += o2c_accpow_T(o2c_accfn_T(fabs, row[w2.s + j * dl[2]]), p);
                        }
                    }
                    *y++ = (T)o2c_accpow_T(acc, (O2C_ACC_T)1 / p);
                }
            }
        }
    }
}
