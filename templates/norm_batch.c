/* norm_batch.c - ONNX BatchNormalization, inference mode, of x seen as [N, C, inner]:
 * y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c], folded into y = x * a + d. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "math_t.c"
#endif

static void batchnorm_T(const T *x, const T *scale, const T *bias, const T *mean, const T *var,
                        T *y, int64_t N, int64_t C, int64_t inner, T eps) {
    for (int64_t b = 0; b < N; b++) {
        for (int64_t c = 0; c < C; c++) {
            const T *xp = x + (b * C + c) * inner;
            T *yp = y + (b * C + c) * inner;
            T v = var[c] + eps;
            /* the sizeof test folds at compile time: sqrtf for float, sqrt for double */
            T a = scale[c] / o2c_fn_T(sqrt, v);
            T d = bias[c] - mean[c] * a;
            for (int64_t i = 0; i < inner; i++)
                yp[i] = xp[i] * a + d;
        }
    }
}
