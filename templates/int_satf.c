/* int_satf.c - a float converted to the integer type T, saturating exactly as int_sat.c does for
 * a double (below T's range: its minimum, above: its maximum, NaN: 0, else truncation toward
 * zero), in float arithmetic: on a single-precision FPU (Cortex-M4F, RV32F) a conversion to
 * double is a library call.  `top` is 2^(bits - 1) for a signed T, 2^bits for an unsigned one:
 * (float)max rounds to it (max + 1 is a power of two, and max is within half an ulp of it when
 * T is wider than float's 24-bit significand), and adding 1 keeps it; exact in float. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static inline T o2c_satf_T(float x) {
    const int sgn = (T)-1 < (T)1;
    const T max = (T)(~(uint64_t)0 >> (64 - (int)sizeof(T) * CHAR_BIT + sgn));
    const float top = (float)max + 1.0f;
    if (x != x)
        return (T)0;
    if (x >= top)
        return max;
    if (x <= (sgn ? -top : -1.0f))
        return sgn ? (T)(-max - 1) : (T)0;
    return (T)x;
}
