/* misc_cumsum.c - ONNX CumSum along axis `axis` (negative counts from the end) of a tensor of
 * the given shape: y[..., i, ...] = sum of x[..., j, ...] for j <= i (j < i when exclusive;
 * j >= i, or j > i, when reverse).  The axis is a run-time value; ONNX requires it in
 * [-rank, rank): outside, the kernel returns 1 having written nothing (NAME_run returns -7),
 * else 0.  Integer sums wrap modulo 2^n (templates/int_wrap.c). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "int_wrap.c"
#endif

static int cumsum_T(const T *x, T *y, const int64_t *shape, int64_t rank, int64_t axis,
                    int exclusive, int reverse) {
    int64_t outer = 1, n = 1, inner = 1;
    if (axis < -rank || axis >= rank)
        return 1;
    if (axis < 0)
        axis += rank;
    for (int64_t a = 0; a < rank; a++) {
        if (a < axis)
            outer *= shape[a];
        else if (a == axis)
            n = shape[a];
        else
            inner *= shape[a];
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            T acc = 0;
            for (int64_t s = 0; s < n; s++) {
                int64_t j = reverse ? n - 1 - s : s;
                int64_t p = (o * n + j) * inner + i;
                if (exclusive) {
                    y[p] = acc;
                    acc = o2c_wrap_T('+', acc, x[p]);
                } else {
                    acc = o2c_wrap_T('+', acc, x[p]);
                    y[p] = acc;
                }
            }
        }
    return 0;
}
