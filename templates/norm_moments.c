/* norm_moments.c - mean and 1/sqrt(variance + eps) of n contiguous elements (population
 * variance, two passes for accuracy).  Shared by LayerNormalization and InstanceNormalization. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "math_t.c"
#endif

static void norm_moments_T(const T *x, int64_t n, T eps, T *mean, T *invstd) {
    T m = 0, v = 0;
    for (int64_t k = 0; k < n; k++)
        m += x[k];
    if (n > 0)
        m /= (T)n;
    for (int64_t k = 0; k < n; k++)
        v += (x[k] - m) * (x[k] - m);
    if (n > 0)
        v /= (T)n;
    v += eps;
    /* the sizeof test folds at compile time: sqrtf for float, sqrt for double */
    *mean = m;
    *invstd = (T)1 / o2c_fn_T(sqrt, v);
}
