/* misc_mvn.c - ONNX MeanVarianceNormalization: over the axes with reduced[d] != 0,
 * y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) (the spec's function body).  The sums are in
 * O2C_ACC_T (float on single-precision FPUs), so they are taken with care: a first pass gives
 * an estimate m0 of the mean, a second sums d = x - m0 and d^2, then E[x] = m0 + E[d] and the
 * variance E[d^2] - E[d]^2, where E[d] is small: neither the mean's rounding nor the cancellation
 * of E[x^2] - E[x]^2 grows with the mean's size against the spread.  acc holds
 * 3 * (elements of the kept axes) O2C_ACC_T of scratch (the emitter reserves 8 bytes each). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "acc_math.c"
#include "o2c_target.c"
#endif

/* Flat index over the kept axes of flat index p of x. */
static int64_t mvn_kept_T(int64_t p, const int64_t *shape, const int64_t *reduced, int64_t rank) {
    int64_t kidx = 0, kstride = 1;
    for (int64_t d = rank - 1; d >= 0; d--) {
        int64_t cd = p % shape[d];
        p /= shape[d];
        if (!reduced[d]) {
            kidx += cd * kstride;
            kstride *= shape[d];
        }
    }
    return kidx;
}

static void mvn_T(const T *x, T *y, const int64_t *shape, const int64_t *reduced, int64_t rank,
                  O2C_ACC_T *acc) {
    int64_t total = 1, kept = 1;
    for (int64_t d = 0; d < rank; d++) {
        total *= shape[d];
        if (!reduced[d])
            kept *= shape[d];
    }
    if (total == 0)
        return;
    O2C_ACC_T count = (O2C_ACC_T)(total / kept);
    for (int64_t i = 0; i < 3 * kept; i++)
        acc[i] = 0;
    for (int64_t p = 0; p < total; p++)
        acc[3 * mvn_kept_T(p, shape, reduced, rank)] += (O2C_ACC_T)x[p];
    for (int64_t q = 0; q < kept; q++)
        acc[3 * q] /= count;
    for (int64_t p = 0; p < total; p++) {
        int64_t q = mvn_kept_T(p, shape, reduced, rank);
        O2C_ACC_T d = (O2C_ACC_T)x[p] - acc[3 * q];
        acc[3 * q + 1] += d;
        acc[3 * q + 2] += d * d;
    }
    for (int64_t q = 0; q < kept; q++) {
        O2C_ACC_T md = acc[3 * q + 1] / count, var = acc[3 * q + 2] / count - md * md;
        acc[3 * q] += md;
        acc[3 * q + 1] = o2c_accfn_T(sqrt, var > 0 ? var : 0) + (O2C_ACC_T)1e-9;
    }
    for (int64_t p = 0; p < total; p++) {
        int64_t q = mvn_kept_T(p, shape, reduced, rank);
        y[p] = (T)(((O2C_ACC_T)x[p] - acc[3 * q]) / acc[3 * q + 1]);
    }
}
