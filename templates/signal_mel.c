/* signal_mel.c - ONNX MelWeightMatrix: y [dft_length / 2 + 1][nmel] of triangular filters.
 * Band edges: nmel + 2 points equally spaced on the mel scale mel(f) = 2595 log10(1 + f / 700)
 * from lower to upper hertz (step (mel(upper) - mel(lower)) / (nmel + 2), as the ONNX
 * reference computes it), mapped back to hertz and to spectrogram bins
 * floor((dft_length + 1) f / rate).  Filter i rises from 0 at edge i to 1 at edge i + 1 (a
 * single 1 when the two coincide) and falls to 0 at edge i + 2.  Computed in double; bins
 * outside the matrix are skipped. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static int64_t mel_edge_T(double lo_mel, double mel_step, int64_t i, int64_t dft_length,
                          double rate) {
    double hz = 700.0 * (pow(10.0, ((double)i * mel_step + lo_mel) / 2595.0) - 1.0);
    double b = floor((double)(dft_length + 1) * hz / rate);
    if (!(b >= -1e15))
        b = -1e15;
    if (b > 1e15)
        b = 1e15;
    return (int64_t)b;
}

static void mel_T(T *y, int64_t nmel, int64_t dft_length, double rate, double lower,
                  double upper) {
    int64_t nbins = dft_length / 2 + 1;
    double lo_mel = 2595.0 * log10(1.0 + lower / 700.0);
    double hi_mel = 2595.0 * log10(1.0 + upper / 700.0);
    double mel_step = (hi_mel - lo_mel) / (double)(nmel + 2);
    for (int64_t j = 0; j < nbins * nmel; j++)
        y[j] = (T)0;
    for (int64_t i = 0; i < nmel; i++) {
        int64_t l = mel_edge_T(lo_mel, mel_step, i, dft_length, rate);
        int64_t m = mel_edge_T(lo_mel, mel_step, i + 1, dft_length, rate);
        int64_t h = mel_edge_T(lo_mel, mel_step, i + 2, dft_length, rate);
        if (m == l) {
            if (m >= 0 && m < nbins)
                y[m * nmel + i] = (T)1;
        } else {
            for (int64_t j = l > 0 ? l : 0; j <= m && j < nbins; j++)
                y[j * nmel + i] = (T)((double)(j - l) / (double)(m - l));
        }
        if (h > m)
            for (int64_t j = m > 0 ? m : 0; j < h && j < nbins; j++)
                y[j * nmel + i] = (T)((double)(h - j) / (double)(h - m));
    }
}
