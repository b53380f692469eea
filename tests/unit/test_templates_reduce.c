/* test_templates_reduce.c — templates/reduce_lanes.c as C: a row's sum of v, v * v and |v|
 * against a sum in double, and its maximum against a plain loop, for lengths around the
 * blocks of 8 and 16 (0 to 70, 127, 128, 129, 256, 1000) and at an offset from an aligned
 * start; a NaN never becomes the maximum unless it is the first element.  Built twice: here
 * with the target's vectors (SSE on x86), and by test_templates_reduce_plain.c with
 * O2C_NO_VECTOR (the 8 scalar lanes of Cortex-M4 and tcc). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#ifndef REDUCE_SUITE
#define REDUCE_SUITE reduce_vector
#endif
#define T float
#include "../../templates/reduce_lanes.c"

static float val(int64_t i) { return (float)((i * 7919 + 13) % 1001 - 500) / 64.0f; }

Test(REDUCE_SUITE, sums_and_maxima) {
    static float buf[1100];
    static const int64_t extra[] = {127, 128, 129, 256, 1000};
    for (int64_t i = 0; i < 1100; i++)
        buf[i] = val(i);
    for (int c = 0; c < 71 + 5; c++) {
        const int64_t n = c < 71 ? c : extra[c - 71];
        for (int off = 0; off < 3; off += 2) {
            const float *x = buf + off;
            for (int mode = 0; mode < 3; mode++) {
                double want = 0, mag = 0;
                for (int64_t k = 0; k < n; k++) {
                    const double v = x[k];
                    want += mode == 1 ? v * v : mode == 2 ? fabs(v) : v;
                    mag += mode == 1 ? v * v : fabs(v);
                }
                const float got = reduce_sum_T(x, n, mode);
                cr_assert(fabs(got - want) <= 1e-6 * mag + 1e-30, "n %ld mode %d: %g, not %g",
                          (long)n, mode, (double)got, want);
            }
            if (n > 0) {
                float m = x[0];
                for (int64_t k = 1; k < n; k++)
                    m = x[k] > m ? x[k] : m;
                cr_assert_eq(reduce_max_T(x, n), m, "max of n %ld", (long)n);
            }
        }
    }
}

Test(REDUCE_SUITE, max_and_nan) {
    float x[40];
    for (int i = 0; i < 40; i++)
        x[i] = (float)(i % 7) - 3.0f;
    x[17] = NAN;
    cr_assert_eq(reduce_max_T(x, 40), 3.0f);
    cr_assert_eq(reduce_max_T(x, 20), 3.0f);
    x[0] = NAN; /* (the first element stays: Softmax's row is NaN either way) */
    cr_assert(isnan(reduce_max_T(x, 40)));
    for (int i = 0; i < 40; i++)
        x[i] = -INFINITY;
    cr_assert_eq(reduce_max_T(x, 40), -INFINITY);
    x[33] = -1e30f;
    cr_assert_eq(reduce_max_T(x, 40), -1e30f);
    cr_assert(isnan(reduce_sum_T(x, 40, 0) - reduce_sum_T(x, 40, 0)));
}
