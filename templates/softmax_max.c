/* softmax_max.c - the position of the maximum along the axis of the softmax kernels
 * (softmax_exp.c, softmax_log.c, softmax_hard.c): the first index k in [0, n) of the largest
 * x[k * inner].  The comparison is strict, so the first of equal maxima wins (Hardmax's rule)
 * and a NaN never takes the place of x[0].  Softmax and LogSoftmax subtract the value there
 * (the max) before exp, so that exp cannot overflow. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif
#ifndef O2C_SOFTMAX_MAX_T /* (once per element type: other templates include it) */
#define O2C_SOFTMAX_MAX_T

static int64_t softmax_argmax_T(const T *x, int64_t n, int64_t inner) {
    int64_t best = 0;
    for (int64_t k = 1; k < n; k++)
        if (x[k * inner] > x[best * inner])
            best = k;
    return best;
}
#endif
