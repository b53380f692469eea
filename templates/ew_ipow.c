/* ew_ipow.c - integer power for Pow with an integer base and exponent: exact (wrapping modulo
 * 2^n like the other integer ops) where a detour through double would round large results.
 * A negative exponent gives the truncated value of 1 / b^-e: 1 for b = 1, +-1 for b = -1,
 * else 0 (b = 0 also gives 0 instead of a division by zero). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static T ipow_T(T b, int64_t e) {
    uint64_t r = 1, x = (uint64_t)b;
    if (e < 0) {
        if (b == 1 || x == UINT64_MAX) /* b is 1 or -1 */
            return (e & 1) ? b : (T)1;
        return 0;
    }
    while (e > 0) {
        if (e & 1)
            r *= x;
        x *= x;
        e >>= 1;
    }
    return (T)r;
}
