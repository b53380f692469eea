/* norm_lp.c - ONNX LpNormalization of x seen as [outer, len, inner]: each vector of len
 * elements along the axis is divided by its Lp norm, p 1 (sum of |x|) or 2 (square root of the
 * sum of x^2), summed in O2C_ACC_T (double, float on single-precision FPUs).  A vector whose norm
 * is 0 (all zeros) gives zeros, not 0/0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#include "math_t.c"
#endif

static void lpnorm_T(const T *x, T *y, int64_t outer, int64_t len, int64_t inner, int p) {
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            const T *xv = x + o * len * inner + i;
            T *yv = y + o * len * inner + i;
            O2C_ACC_T sum = 0;
            for (int64_t k = 0; k < len; k++) {
                O2C_ACC_T v = (O2C_ACC_T)xv[k * inner];
                sum += p == 1 ? (v < 0 ? -v : v) : v * v;
            }
            T norm = p == 1 ? (T)sum : o2c_fn_T(sqrt, sum);
            for (int64_t k = 0; k < len; k++)
                yv[k * inner] = norm != 0 ? xv[k * inner] / norm : (T)0;
        }
    }
}
