/* softmax_hard.c - ONNX Hardmax along one axis of a tensor seen as [outer, n, inner]:
 * y = 1 at the first index of the maximum along the axis, 0 elsewhere.
 * inner is the stride between consecutive elements along the axis. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#include "softmax_max.c"
#endif

static void hardmax_T(const T *x, T *y, int64_t outer, int64_t n, int64_t inner) {
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            const T *xp = x + o * n * inner + i;
            T *yp = y + o * n * inner + i;
            const int64_t best = softmax_argmax_T(xp, n, inner);
            for (int64_t k = 0; k < n; k++)
                yp[k * inner] = k == best ? (T)1 : (T)0;
        }
    }
}
