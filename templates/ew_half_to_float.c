/* ew_half_to_float.c - 16-bit float bits to float: IEEE binary16 (ebits 5) or bfloat16
 * (ebits 8).  Exact: every such value is a float.  Generated code stores both as uint16_t. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static inline float o2c_half_to_float(uint16_t h, int ebits) {
    int mbits = 15 - ebits, bias = (1 << (ebits - 1)) - 1;
    uint32_t e = ((uint32_t)h >> mbits) & ((1u << ebits) - 1u);
    uint32_t m = (uint32_t)h & ((1u << mbits) - 1u);
    double v;
    if (e == (1u << ebits) - 1u)
        v = m ? (double)NAN : (double)INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - mbits); /* subnormal */
    else
        v = ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
    return (float)((h & 0x8000u) ? -v : v);
}
