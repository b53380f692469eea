/* norm_batch_train.c - ONNX BatchNormalization with training_mode = 1 (opset 14+), x seen as
 * [N, C, inner]: the batch statistics of channel c (mean and population variance over N and
 * inner) normalize x: y = (x - bmean) / sqrt(bvar + eps) * scale[c] + bias[c]; the running
 * statistics are run_mean = mean * momentum + bmean * (1 - momentum) (likewise run_var).
 * run_mean and run_var may be NULL. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "math_t.c"
#endif

static void batchnorm_train_T(const T *x, const T *scale, const T *bias, const T *mean,
                              const T *var, T *y, T *run_mean, T *run_var, int64_t N, int64_t C,
                              int64_t inner, T eps, T momentum) {
    int64_t cnt = N * inner;
    for (int64_t c = 0; c < C; c++) {
        T m = 0, v = 0, a, d, s;
        for (int64_t b = 0; b < N; b++)
            for (int64_t i = 0; i < inner; i++)
                m += x[(b * C + c) * inner + i];
        if (cnt > 0)
            m /= (T)cnt;
        for (int64_t b = 0; b < N; b++)
            for (int64_t i = 0; i < inner; i++) {
                T t = x[(b * C + c) * inner + i] - m;
                v += t * t;
            }
        if (cnt > 0)
            v /= (T)cnt;
        s = v + eps;
        /* the sizeof test folds at compile time: sqrtf for float, sqrt for double */
        a = scale[c] / o2c_fn_T(sqrt, s);
        d = bias[c] - m * a;
        for (int64_t b = 0; b < N; b++)
            for (int64_t i = 0; i < inner; i++)
                y[(b * C + c) * inner + i] = x[(b * C + c) * inner + i] * a + d;
        if (run_mean)
            run_mean[c] = mean[c] * momentum + m * ((T)1 - momentum);
        if (run_var)
            run_var[c] = var[c] * momentum + v * ((T)1 - momentum);
    }
}
