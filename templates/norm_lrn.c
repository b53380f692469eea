/* norm_lrn.c - ONNX LRN (local response normalization across channels) of x seen as
 * [N, C, inner]: sq = sum of x[n, j, i]^2 for j in [c - floor((size-1)/2), c + ceil((size-1)/2)]
 * clipped to [0, C); y = x / (bias + alpha / size * sq)^beta. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "math_t.c"
#endif

static void lrn_T(const T *x, T *y, int64_t N, int64_t C, int64_t inner, int64_t size, T alpha,
                  T beta, T bias) {
    int64_t lo = (size - 1) / 2, hi = (size - 1) - (size - 1) / 2;
    T scale = alpha / (T)size;
    for (int64_t b = 0; b < N; b++) {
        for (int64_t c = 0; c < C; c++) {
            int64_t j0 = c - lo < 0 ? 0 : c - lo, j1 = c + hi > C - 1 ? C - 1 : c + hi;
            for (int64_t i = 0; i < inner; i++) {
                T sq = 0, base;
                for (int64_t j = j0; j <= j1; j++) {
                    T v = x[(b * C + j) * inner + i];
                    sq += v * v;
                }
                base = bias + scale * sq;
                /* the sizeof test folds at compile time: powf for float, pow for double */
                y[(b * C + c) * inner + i] =
                    x[(b * C + c) * inner + i] /
                    o2c_fn2_T(pow, base, beta);
            }
        }
    }
}
