/* softmax_log.c - ONNX LogSoftmax along one axis of a tensor seen as [outer, n, inner]:
 * y = (x - max) - log(sum(exp(x - max))), the max taken over the axis (numerically stable).
 * inner is the stride between consecutive elements along the axis.  float takes expf_fast
 * (templates/exp_fast.c). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "math_t.c"
#include "o2c_target.c"
#include "exp_fast.c"
#include "softmax_max.c"
#endif

O2C_KERNEL
static void logsoftmax_T(const T *x, T *y, int64_t outer, int64_t n, int64_t inner) {
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            const T *xp = x + o * n * inner + i;
            T *yp = y + o * n * inner + i;
            T mx = xp[softmax_argmax_T(xp, n, inner) * inner], sum = 0, lse;
            /* the sizeof tests fold at compile time: the float functions for float */
            for (int64_t k = 0; k < n; k++) {
                T v = xp[k * inner] - mx;
                sum += (T)(sizeof(T) == sizeof(float) ? expf_fast_T((float)v) : exp((double)v));
            }
            lse = o2c_fn_T(log, sum);
            for (int64_t k = 0; k < n; k++)
                yp[k * inner] = xp[k * inner] - mx - lse;
        }
    }
}
