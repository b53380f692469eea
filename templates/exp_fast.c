/* exp_fast.c - expf without libm, for loops the C compiler can vectorise (softmax): exp(x) =
 * 2^n * e^r with n = round(x / ln 2) and r = x - n ln 2 (ln 2 in two parts, so n ln2_hi is
 * exact), e^r on [-ln2/2, ln2/2] by its degree-6 Taylor polynomial (truncation below 1.3e-7
 * relative, about 1 ulp), 2^n put straight into the exponent bits.  x is clamped below at -87
 * (2^n stays a normal float); below -87 the result is 0 (the true value is under 1.7e-38), NaN
 * stays NaN.  Not for x above 88, which is not clamped (softmax only passes x - max <= 0; the
 * upper clamp cost a sixth of the loop's time). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif

static O2C_INLINE float expf_fast_T(float x) {
    const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    const float xc = x < -87.0f ? -87.0f : x;
    const float t = xc * 1.44269504f + magic, nf = t - magic;
    const float r = (xc - nf * 0.693145752f) - nf * 1.42860677e-6f;
    const float p =
        1.0f +
        r * (1.0f +
             r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
    uint32_t u;
    float s;
    memcpy(&u, &t, sizeof u); /* the low bits of t hold n */
    u = (u - 0x4B400000u + 127u) << 23;
    memcpy(&s, &u, sizeof s);
    return x < -87.0f ? 0.0f : p * s;
}
