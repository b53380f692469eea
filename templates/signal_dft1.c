/* signal_dft1.c - one bin of a discrete Fourier transform, summed directly in double:
 * X[k] = sum over j < min(len, n) of w[j] x[j] exp(s 2 pi i j k / n), s = -1 (forward) or +1
 * (inverse, not scaled here).  x points at the first sample, consecutive samples are xs
 * elements apart, each sample is ci (1: real, 2: real and imaginary) elements; w is NULL (no
 * window) or holds at least min(len, n) real factors.  Samples past len are zeros (padding).
 * The angle uses (j k) mod n so that it stays small and exact. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif
#ifndef O2C_SIGNAL_DFT1_T /* (once per element type: other templates include it) */
#define O2C_SIGNAL_DFT1_T

static void dft1_T(const T *x, int64_t xs, int64_t ci, int64_t len, const T *w, int64_t n,
                   int64_t k, int inverse, double *re, double *im) {
    const double step = (inverse ? 6.283185307179586477 : -6.283185307179586477) / (double)n;
    int64_t m = len < n ? len : n;
    double sr = 0.0, si = 0.0;
    for (int64_t j = 0; j < m; j++) {
        const T *p = x + j * xs;
        double xr = (double)p[0], xi = ci == 2 ? (double)p[1] : 0.0;
        double a = step * (double)((j * k) % n), cr = cos(a), ci_ = sin(a);
        if (w) {
            xr *= (double)w[j];
            xi *= (double)w[j];
        }
        sr += xr * cr - xi * ci_;
        si += xr * ci_ + xi * cr;
    }
    *re = sr;
    *im = si;
}
#endif
