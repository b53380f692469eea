/* qms_lut.c - y[i] = lut[x[i] - min(T)] for n elements of the 8-bit type T: the unary
 * com.microsoft QLinear ops and QLinearConcat's requantization, whose 256 results are computed
 * once per call (compiler/ops/quant_ms.c).  y may be x (the op in place). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void qms_lut_T(const T *x, T *y, int64_t n, const T *lut) {
    const int off = (T)-1 < (T)0 ? 128 : 0;
    for (int64_t i = 0; i < n; i++)
        y[i] = lut[(int)x[i] + off];
}
