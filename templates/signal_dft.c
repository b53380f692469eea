/* signal_dft.c - ONNX DFT along one axis of x viewed as [outer][len][inner][ci] (ci = 1 real or
 * 2 complex samples): y, viewed as [outer][nout][inner][2], holds bins k < nout of the n-point
 * transform (the input is cut or zero-padded to n; nout = n, or n / 2 + 1 when onesided).
 * inverse: the sign of the exponent is + and the result is divided by n. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "signal_dft1.c"
#endif

static void dft_T(const T *x, T *y, int64_t outer, int64_t len, int64_t inner, int64_t ci,
                  int64_t n, int64_t nout, int inverse) {
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const T *xp = x + (o * len * inner + i) * ci;
            for (int64_t k = 0; k < nout; k++) {
                double re, im;
                T *yp = y + ((o * nout + k) * inner + i) * 2;
                dft1_T(xp, inner * ci, ci, len, 0, n, k, inverse, &re, &im);
                if (inverse) {
                    re /= (double)n;
                    im /= (double)n;
                }
                yp[0] = (T)re;
                yp[1] = (T)im;
            }
        }
}
