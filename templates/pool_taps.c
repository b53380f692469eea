/* pool_taps.c - the taps of one pooling window that fall inside one axis.
 *
 * A window along an axis of n elements starts at `start` (may be negative: left padding) and
 * reads start + j*dil for j in [0, k).  pool_taps_T narrows j to [*j0, *j1) so that every read
 * is inside [0, n); *j0 == *j1 when none is.  Required by the pool_* kernels and the direct
 * convolutions. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif
#ifndef O2C_POOL_TAPS_T /* (once per element type: other templates include it) */
#define O2C_POOL_TAPS_T

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
#endif
