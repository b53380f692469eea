/* misc_mvn.c - ONNX MeanVarianceNormalization: over the axes with reduced[d] != 0,
 * y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) (the spec's function body).  acc holds
 * 2 * (elements of the kept axes) doubles of scratch. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
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
                  double *acc) {
    int64_t total = 1, kept = 1;
    for (int64_t d = 0; d < rank; d++) {
        total *= shape[d];
        if (!reduced[d])
            kept *= shape[d];
    }
    if (total == 0)
        return;
    double count = (double)(total / kept);
    for (int64_t i = 0; i < 2 * kept; i++)
        acc[i] = 0;
    for (int64_t p = 0; p < total; p++) {
        int64_t q = mvn_kept_T(p, shape, reduced, rank);
        acc[2 * q] += (double)x[p];
        acc[2 * q + 1] += (double)x[p] * (double)x[p];
    }
    for (int64_t q = 0; q < kept; q++) {
        double mean = acc[2 * q] / count, var = acc[2 * q + 1] / count - mean * mean;
        acc[2 * q] = mean;
        acc[2 * q + 1] = sqrt(var > 0 ? var : 0) + 1e-9;
    }
    for (int64_t p = 0; p < total; p++) {
        int64_t q = mvn_kept_T(p, shape, reduced, rank);
        y[p] = (T)(((double)x[p] - acc[2 * q]) / acc[2 * q + 1]);
    }
}
