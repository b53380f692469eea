/* norm_instance.c - ONNX InstanceNormalization of x seen as [N, C, inner]:
 * y = scale[c] * (x - mean) / sqrt(var + eps) + bias[c], mean and var over each (n, c) plane. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "norm_moments.c"
#endif

static void instancenorm_T(const T *x, const T *scale, const T *bias, T *y, int64_t N, int64_t C,
                           int64_t inner, T eps) {
    for (int64_t b = 0; b < N; b++) {
        for (int64_t c = 0; c < C; c++) {
            const T *xp = x + (b * C + c) * inner;
            T *yp = y + (b * C + c) * inner;
            T m, is, a, d;
            norm_moments_T(xp, inner, eps, &m, &is);
            a = scale[c] * is;
            d = bias[c] - m * a;
            for (int64_t i = 0; i < inner; i++)
                yp[i] = xp[i] * a + d;
        }
    }
}
