/* int_sat.c - a double converted to the integer type T, saturating: values below T's range
 * give its minimum, values above its maximum, NaN gives 0, others truncate toward zero (C's
 * conversion).  C leaves an out-of-range float-to-integer conversion undefined (ONNX 1.12
 * leaves Cast's undefined too); every kernel that turns float data into an integer (Cast, Pow
 * with an integer base, QuantizeLinear, reductions of integers computed in double) goes
 * through here.  `top` is 2^(bits - 1) for a signed T, 2^bits for an unsigned one: the first
 * value above T's range, exact in double. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static inline T o2c_sat_T(double x) {
    const int sgn = (T)-1 < (T)1;
    const T max = (T)(~(uint64_t)0 >> (64 - (int)sizeof(T) * CHAR_BIT + sgn));
    const double top = (double)max + 1.0;
    if (x != x)
        return (T)0;
    if (x >= top)
        return max;
    if (x <= (sgn ? -top : -1.0))
        return sgn ? (T)(-max - 1) : (T)0;
    return (T)x;
}
