/* loss_nll.c - ONNX NegativeLogLikelihoodLoss on x seen as [n, c, d] (d: the product of the
 * spatial dims), target [n, d] of int32 (target32) or int64:
 *   l[i, j] = -x[i, t, j] * w[t] with t = target[i, j] (w[t] = 1 without weights),
 *   l[i, j] = 0 and weight 0 when t is the ignore_index.
 * reduction 0 none: y = l [n, d]; 1 sum: y[0] = sum(l); 2 mean: y[0] = sum(l) / sum(weights).
 * ONNX requires every other target in [0, c): nll_check_T, called before anything is written
 * (SoftmaxCrossEntropyLoss's log_prob output included), is 1 when one is not (NAME_run
 * returns -7); nll_loss_T still never reads outside x or w.
 *
 * The sums in O2C_ACC_T (double; float on single-precision FPUs). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif

static int nll_check_T(const void *target, int target32, int64_t count, int64_t c, int has_ignore,
                       int64_t ignore) {
    for (int64_t i = 0; i < count; i++) {
        const int64_t t = target32 ? (int64_t)((const int32_t *)target)[i]
                                   : ((const int64_t *)target)[i];
        if (!(has_ignore && t == ignore) && (t < 0 || t >= c))
            return 1;
    }
    return 0;
}

static void nll_loss_T(const T *x, const void *target, int target32, const T *w, T *y, int64_t n,
                       int64_t c, int64_t d, int has_ignore, int64_t ignore, int reduction) {
    O2C_ACC_T sum = 0, wsum = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < d; j++) {
            int64_t t = target32 ? (int64_t)((const int32_t *)target)[i * d + j]
                                 : ((const int64_t *)target)[i * d + j];
            T l = 0, wt = 0;
            if (!(has_ignore && t == ignore) && t >= 0 && t < c) {
                wt = w ? w[t] : (T)1;
                l = -x[(i * c + t) * d + j] * wt;
            }
            if (reduction == 0)
                y[i * d + j] = l;
            sum += (O2C_ACC_T)l;
            wsum += (O2C_ACC_T)wt;
        }
    }
    if (reduction == 1)
        y[0] = (T)sum;
    else if (reduction == 2)
        y[0] = (T)(sum / wsum);
}
