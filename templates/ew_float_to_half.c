/* ew_float_to_half.c - double to 16-bit float bits: IEEE binary16 (ebits 5) or bfloat16
 * (ebits 8), rounded to nearest, ties to even, directly from the double (no double rounding
 * through float).  Too large gives infinity; NaN gives a quiet NaN. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static inline uint16_t o2c_float_to_half(double x, int ebits) {
    int mbits = 15 - ebits, bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, e, be;
    uint32_t sign = signbit(x) ? 0x8000u : 0u;
    uint32_t inf = ((1u << ebits) - 1u) << mbits;
    double q, fl;
    uint32_t sig;
    if (isnan(x))
        return (uint16_t)(sign | inf | (1u << (mbits - 1)));
    x = fabs(x);
    if (isinf(x))
        return (uint16_t)(sign | inf);
    if (x == 0)
        return (uint16_t)sign;
    (void)frexp(x, &e);
    e -= 1; /* x = 1.f * 2^e */
    if (e < emin)
        e = emin; /* subnormal: the ulp stays 2^(emin - mbits) */
    q = ldexp(x, mbits - e); /* x in ulps: exact */
    fl = floor(q);
    if (q - fl > 0.5 || (q - fl == 0.5 && fmod(fl, 2.0) != 0))
        fl += 1;
    sig = (uint32_t)fl;
    be = e + bias;
    if (sig >= (2u << mbits)) { /* rounding carried into the next binade */
        sig >>= 1;
        be++;
    }
    if (sig < (1u << mbits))
        be = 0; /* subnormal */
    if (be >= (1 << ebits) - 1)
        return (uint16_t)(sign | inf);
    return (uint16_t)(sign | ((uint32_t)be << mbits) | (sig & ((1u << mbits) - 1u)));
}
