/* ew_float_to_bf16.c - double to bfloat16 bits, rounded toward zero: for a float that is its
 * upper 16 bits, as ONNX 1.12's Cast reference makes them (compiler/ops/elementwise.c, Cast).
 * Directly from the double (no rounding through float).  NaN gives a quiet NaN of its sign,
 * infinities stay, a finite double beyond bfloat16's range the largest finite bfloat16. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static inline uint16_t o2c_float_to_bf16(double x) {
    uint32_t sign = signbit(x) ? 0x8000u : 0u, sig, be;
    int e;
    if (isnan(x))
        return (uint16_t)(sign | 0x7fc0u);
    x = fabs(x);
    if (isinf(x))
        return (uint16_t)(sign | 0x7f80u);
    if (x == 0)
        return (uint16_t)sign;
    (void)frexp(x, &e);
    e -= 1; /* x = 1.f * 2^e */
    if (e > 127)
        return (uint16_t)(sign | 0x7f7fu);
    if (e < -126)
        e = -126; /* subnormal: the ulp stays 2^-133 */
    sig = (uint32_t)floor(ldexp(x, 7 - e)); /* x in ulps, the fraction dropped */
    be = sig < 0x80u ? 0u : (uint32_t)(e + 127);
    return (uint16_t)(sign | be << 7 | (sig & 0x7fu));
}
