/* shape_dropout.c - the draws of Dropout in training mode (compiler/ops/shape.c): element i's
 * draw is the (i + 1)-th output of the SplitMix64 generator (Steele, Lea and Flood, 2014)
 * started at `seed`, its upper 53 bits as a double uniform in [0, 1).  Counter-based: any
 * element's draw alone, no state between elements or runs, the same bytes for the same seed
 * on every target. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static inline double o2c_dropout_u(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1u) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0); /* 2^-53 */
}
