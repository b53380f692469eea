/* random_draws.c - the one generator of onnx2c's random ops (compiler/ops/random.c) and of
 * Dropout in training mode (compiler/ops/shape.c).
 *
 * o2c_splitmix(seed, k) is the k-th output (k >= 1) of SplitMix64 (Steele, Lea and Flood,
 * 2014) started at `seed`: counter-based, so an element's draw is computed alone, with no
 * state between elements or runs and the same bits on every target.  Element i of an output
 * uses the (i + 1)-th output (a normal draw the (2i + 1)-th and (2i + 2)-th).
 *
 * Uniform in [0, 1): the top 24 bits of an output times 2^-24 as a float, the top 53 times
 * 2^-53 as a double; both exact, so never 1.  Normal: Box-Muller, its cosine branch,
 * z = sqrt(-2 ln(1 - u1)) cos(2 pi u2): 1 - u1 lies in (0, 1], so the logarithm is finite
 * (|z| <= 5.8 in float, 8.6 in double).  The float forms do float arithmetic only.  Marked
 * unused: a model calls some of them (clang warns of an unused static inline function). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__)
#define O2C_DRAW __attribute__((unused)) static inline
#else
#define O2C_DRAW static inline
#endif

O2C_DRAW uint64_t o2c_splitmix(uint64_t seed, uint64_t k) {
    uint64_t z = seed + k * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

O2C_DRAW float o2c_unif_f32(uint64_t seed, uint64_t k) {
    return (float)(uint32_t)(o2c_splitmix(seed, k) >> 40) * (1.0f / 16777216.0f); /* 2^-24 */
}

O2C_DRAW double o2c_unif_f64(uint64_t seed, uint64_t k) {
    return (double)(o2c_splitmix(seed, k) >> 11) * (1.0 / 9007199254740992.0); /* 2^-53 */
}

O2C_DRAW float o2c_normal_f32(uint64_t seed, uint64_t i) {
    float u1 = o2c_unif_f32(seed, 2u * i + 1u), u2 = o2c_unif_f32(seed, 2u * i + 2u);
    return sqrtf(-2.0f * logf(1.0f - u1)) * cosf(6.28318531f * u2);
}

O2C_DRAW double o2c_normal_f64(uint64_t seed, uint64_t i) {
    double u1 = o2c_unif_f64(seed, 2u * i + 1u), u2 = o2c_unif_f64(seed, 2u * i + 2u);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}
