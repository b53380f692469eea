/* signal_stft.c - ONNX STFT of x [batch][len][ci] (ci = 1 real or 2 complex samples): frame f
 * starts at sample f * step and holds n samples, multiplied by the window w (NULL: none);
 * y [batch][frames][nbins][2] holds its DFT bins k < nbins (n, or n / 2 + 1 when onesided). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "signal_dft1.c"
#endif

static void stft_T(const T *x, const T *w, T *y, int64_t batch, int64_t len, int64_t ci,
                   int64_t n, int64_t step, int64_t frames, int64_t nbins) {
    for (int64_t b = 0; b < batch; b++)
        for (int64_t f = 0; f < frames; f++) {
            const T *xp = x + (b * len + f * step) * ci;
            for (int64_t k = 0; k < nbins; k++) {
                double re, im;
                T *yp = y + ((b * frames + f) * nbins + k) * 2;
                dft1_T(xp, ci, ci, n, w, n, k, 0, &re, &im);
                yp[0] = (T)re;
                yp[1] = (T)im;
            }
        }
}
