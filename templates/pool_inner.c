/* pool_inner.c - the outputs of an axis whose whole window lies inside the input (the interior
 * that the direct convolutions run without bounds checks). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

/* The outputs o in [*o0, *o1) of an axis of `out` outputs (window o * st - pad + [0, span),
 * span = dil * (k - 1) + 1) whose whole window lies inside [0, n). */
static void pool_inner_T(int64_t out, int64_t n, int64_t st, int64_t pad, int64_t span,
                         int64_t *o0, int64_t *o1) {
    const int64_t last = n - span + pad; /* o * st <= last */
    int64_t a = pad > 0 ? (pad + st - 1) / st : 0, b = last >= 0 ? last / st + 1 : 0;
    if (b > out)
        b = out;
    if (a > b)
        a = b;
    *o0 = a;
    *o1 = b;
}
