/* softmax_exp.c - ONNX Softmax along one axis of a tensor seen as [outer, n, inner]:
 * y = exp(x - max) / sum(exp(x - max)), the max taken over the axis (numerically stable).
 * inner is the stride between consecutive elements along the axis.  float takes expf_fast
 * (templates/exp_fast.c), whose loop the C compiler vectorises; double takes libm's exp.  Along
 * a contiguous axis (inner == 1) the max and the sum run in 8 interleaved lanes, so that they
 * vectorise too (the sum's order is then lane-wise). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#include "exp_fast.c"
#include "softmax_max.c"
#endif

/* max (sum: 0) or sum (sum: 1) of x[0 .. n-1], in 8 lanes */
static O2C_INLINE T softmax_reduce_T(const T *x, int64_t n, int sum) {
    const int64_t n8 = n / 8 * 8;
    T a[8], r;
    int64_t k;
    int l;
    for (l = 0; l < 8; l++)
        a[l] = sum ? (T)0 : x[0];
    for (k = 0; k < n8; k += 8)
        for (l = 0; l < 8; l++)
            a[l] = sum ? a[l] + x[k + l] : x[k + l] > a[l] ? x[k + l] : a[l];
    r = a[0];
    for (l = 1; l < 8; l++)
        r = sum ? r + a[l] : a[l] > r ? a[l] : r;
    for (k = n8; k < n; k++)
        r = sum ? r + x[k] : x[k] > r ? x[k] : r;
    return r;
}

O2C_KERNEL
static void softmax_T(const T *x, T *y, int64_t outer, int64_t n, int64_t inner) {
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            const T *xp = x + o * n * inner + i;
            T *yp = y + o * n * inner + i;
            T mx = xp[0], sum = 0;
            if (inner == 1) {
                mx = softmax_reduce_T(xp, n, 0);
                /* the sizeof test folds at compile time */
                if (sizeof(T) == sizeof(float))
                    for (int64_t k = 0; k < n; k++)
                        yp[k] = (T)expf_fast_T((float)(xp[k] - mx));
                else
                    for (int64_t k = 0; k < n; k++)
                        yp[k] = (T)exp((double)(xp[k] - mx));
                sum = softmax_reduce_T(yp, n, 1);
            } else {
                mx = xp[softmax_argmax_T(xp, n, inner) * inner];
                for (int64_t k = 0; k < n; k++) {
                    T v = xp[k * inner] - mx;
                    T ev = (T)(sizeof(T) == sizeof(float) ? expf_fast_T((float)v) : exp((double)v));
                    yp[k * inner] = ev;
                    sum += ev;
                }
            }
            for (int64_t k = 0; k < n; k++)
                yp[k * inner] = yp[k * inner] / sum;
        }
    }
}
