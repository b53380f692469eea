/* reduce_arg.c - ArgMax / ArgMin over the middle axis of x viewed as [outer, k, inner].
 *
 * ONNX ArgMax/ArgMin: y[o, i] = the index j in [0, k) of the largest (smallest) x[o, j, i];
 * ties go to the first such index, or to the last when `last` (select_last_index) is set.
 * y is int64 and has outer * inner elements.  k == 0 is invalid in ONNX; y is then 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void reduce_arg_T(const T *x, int64_t *y, int64_t outer, int64_t k, int64_t inner,
                         int want_max, int last) {
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            const T *p = x + o * k * inner + i;
            int64_t best = 0;
            for (int64_t j = 1; j < k; j++) {
                T v = p[j * inner], b = p[best * inner];
                int better = want_max ? v > b : v < b;
                if (better || (last && !(v < b) && !(v > b)))
                    best = j;
            }
            y[o * inner + i] = best;
        }
    }
}
