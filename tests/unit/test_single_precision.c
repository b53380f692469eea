/* test_single_precision.c — the float kernels as a single-precision FPU builds them (issue 10
 * item 3): with O2C_FACC_FLOAT, templates/o2c_target.c's accumulator O2C_ACC_T is float, as on
 * Cortex-M4F or RV32F, and the sums of AveragePool, LpPool, MeanVarianceNormalization and
 * NegativeLogLikelihoodLoss run in float on the host.  Each is checked against a reference in
 * double on data where float must be used with care: a large mean against a small spread
 * (MVN's variance, which E[x^2] - E[x]^2 loses entirely in float), a long window. tools/sp-check.sh
 * (ctest single_precision) checks the objects of every case for double calls. */
#include "tu_kernel.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#define O2C_FACC_FLOAT
#define T float
#include "../../templates/pool_taps.c"
#include "../../templates/pool_avg.c"
#include "../../templates/pool_lp.c"
#include "../../templates/misc_mvn.c"
#include "../../templates/loss_nll.c"

Test(single_precision, accumulator_is_float) {
    cr_assert_eq(sizeof(O2C_ACC_T), sizeof(float));
    cr_assert_eq(sizeof(o2c_facc), sizeof(float));
}

/* relative error of got against want, scaled by the largest |want| (the backend's atol) */
static double rel_err(const float *got, const double *want, int64_t n) {
    double mx = 0, err = 0;
    for (int64_t i = 0; i < n; i++)
        mx = fmax(mx, fabs(want[i]));
    for (int64_t i = 0; i < n; i++)
        err = fmax(err, fabs(got[i] - want[i]) / (mx > 0 ? mx : 1));
    return err;
}

/* GlobalAveragePool over a 112 x 112 plane of 100 + [-1, 1]: 12,544 terms in one float sum */
Test(single_precision, global_average_pool_long_window) {
    const int64_t C = 3, H = 112, W = 112;
    float *x = tu_rnd(C * H * W, 7), y[3];
    double want[3];
    for (int64_t i = 0; i < C * H * W; i++)
        x[i] += 100.0f;
    const int64_t in[3] = {1, H, W}, out[3] = {1, 1, 1}, k[3] = {1, H, W}, st[3] = {1, 1, 1},
                  dl[3] = {1, 1, 1}, pad[6] = {0};
    avgpool_T(x, y, C, in, out, k, st, dl, pad, 0);
    for (int64_t c = 0; c < C; c++) {
        double s = 0;
        for (int64_t i = 0; i < H * W; i++)
            s += x[c * H * W + i];
        want[c] = s / (double)(H * W);
    }
    cr_assert(rel_err(y, want, C) < 1e-5, "error %g", rel_err(y, want, C));
    free(x);
}

/* LpPool p = 2 over 3x3 windows, stride 1, no padding */
Test(single_precision, lp_pool) {
    const int64_t H = 9, W = 11, OH = 7, OW = 9;
    float *x = tu_rnd(H * W, 3), y[7 * 9];
    double want[7 * 9];
    const int64_t in[3] = {1, H, W}, out[3] = {1, OH, OW}, k[3] = {1, 3, 3}, st[3] = {1, 1, 1},
                  dl[3] = {1, 1, 1}, pad[6] = {0};
    lppool_T(x, y, 1, in, out, k, st, dl, pad, 2.0f);
    for (int64_t i = 0; i < OH; i++)
        for (int64_t j = 0; j < OW; j++) {
            double s = 0;
            for (int64_t a = 0; a < 3; a++)
                for (int64_t b = 0; b < 3; b++)
                    s += (double)x[(i + a) * W + j + b] * x[(i + a) * W + j + b];
            want[i * OW + j] = sqrt(s);
        }
    cr_assert(rel_err(y, want, OH * OW) < 1e-6, "error %g", rel_err(y, want, OH * OW));
    free(x);
}

/* MVN over axes 0, 2, 3 of [2, 3, 16, 16]: means 1000 and -300, spread 0.1 */
Test(single_precision, mvn_large_mean) {
    const int64_t shape[4] = {2, 3, 16, 16}, reduced[4] = {1, 0, 1, 1}, n = 2 * 3 * 256;
    float *x = tu_rnd(n, 11), *y = malloc(sizeof(float) * n);
    double *want = malloc(sizeof(double) * n), acc[9];
    for (int64_t i = 0; i < n; i++)
        x[i] = (i / 256 % 3 == 1 ? -300.0f : 1000.0f) + 0.1f * x[i];
    mvn_T(x, y, shape, reduced, 4, (O2C_ACC_T *)(void *)acc);
    for (int64_t c = 0; c < 3; c++) {
        double m = 0, v = 0;
        for (int64_t i = 0; i < n; i++)
            if (i / 256 % 3 == c)
                m += x[i];
        m /= 512;
        for (int64_t i = 0; i < n; i++)
            if (i / 256 % 3 == c)
                v += (x[i] - m) * (x[i] - m);
        v = sqrt(v / 512) + 1e-9;
        for (int64_t i = 0; i < n; i++)
            if (i / 256 % 3 == c)
                want[i] = (x[i] - m) / v;
    }
    /* float holds x to 6e-8 relative: 1000 +- 0.1 keeps 1e-4 of the deviation at worst */
    cr_assert(rel_err(y, want, n) < 2e-3, "error %g", rel_err(y, want, n));
    free(x), free(y), free(want);
}

/* NLL mean over 4,000 targets with weights */
Test(single_precision, nll_mean) {
    const int64_t N = 4000, C = 5;
    float *x = tu_rnd(N * C, 5), w[5] = {0.5f, 1, 2, 0.25f, 3}, y;
    int64_t *t = malloc(sizeof(int64_t) * N);
    double s = 0, ws = 0, want;
    for (int64_t i = 0; i < N; i++) {
        t[i] = (i * 7 + i / 3) % C;
        s += -(double)x[i * C + t[i]] * w[t[i]];
        ws += w[t[i]];
    }
    want = s / ws;
    cr_assert_eq(nll_check_T(t, 0, N, C, 0, 0), 0);
    nll_loss_T(x, t, 0, w, &y, N, C, 1, 0, 0, 2);
    cr_assert(fabs(y - want) < 1e-5 * fabs(want) + 1e-6, "got %g want %g", y, want);
    free(x), free(t);
}
