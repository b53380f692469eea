/* pool_taps.c - the taps of one pooling window that fall inside one axis.
 *
 * A window along an axis of n elements starts at `start` (may be negative: left padding) and
 * reads start + j*dil for j in [0, k).  pool_taps_T narrows j to [*j0, *j1) so that every read
 * is inside [0, n); *j0 == *j1 when none is.  pool_inner_T gives the outputs whose whole window
 * is inside.  Required by the pool_* kernels and the direct convolutions. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void pool_taps_T(int64_t start, int64_t n, int64_t k, int64_t dil, int64_t *j0,
                        int64_t *j1) {
    int64_t a = 0, b = k;
    if (start < 0)
        a = (-start + dil - 1) / dil;
    if (start + (k - 1) * dil >= n)
        b = n - start <= 0 ? 0 : (n - start + dil - 1) / dil;
    if (a > b)
        a = b;
    *j0 = a;
    *j1 = b;
}

/* The outputs o in [*o0, *o1) of an axis of `out` outputs (window o * st - pad + [0, span),
 * span = dil * (k - 1) + 1) whose whole window lies inside [0, n). */
static inline void pool_inner_T(int64_t out, int64_t n, int64_t st, int64_t pad, int64_t span,
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
