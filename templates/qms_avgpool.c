/* qms_avgpool.c - QLinearAveragePool / QLinearGlobalAveragePool (com.microsoft) on NCHW int8
 * or uint8 data, over up to three spatial axes (shapes and windows as in pool_avg.c).
 *
 * Per window: acc = the sum of (x - zx) over the taps inside the input, exact in int32 (the
 * compiler bounds the window to 2^23 taps, so acc is also exact in float); then
 * y = saturate(nearbyintf(((float)acc * sx) / (float)cnt / sy) + zy), cnt the taps inside the
 * input, or inside the padded input when count_include_pad; a window with nothing to count
 * gives zy; then clamped to [lo, hi] (T's range, or narrower: a folded Relu or Clip).  All of
 * it in float: no double. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "qms_quant.c"
#include "pool_count.c"
#endif

static void qms_avgpool_T(const T *x, T *y, int64_t nc, const int64_t *in, const int64_t *out,
                          const int64_t *k, const int64_t *st, const int64_t *dl,
                          const int64_t *pad, int64_t count_include_pad, float sx, int32_t zx,
                          float sy, float zy, int lo, int hi) {
    int64_t plane = in[0] * in[1] * in[2];
    for (int64_t c = 0; c < nc; c++) {
        const T *xc = x + c * plane;
        for (int64_t o0 = 0; o0 < out[0]; o0++) {
            const pool_win_T w0 = pool_window_T(o0, 0, in, k, st, dl, pad, count_include_pad);
            for (int64_t o1 = 0; o1 < out[1]; o1++) {
                const pool_win_T w1 = pool_window_T(o1, 1, in, k, st, dl, pad, count_include_pad);
                for (int64_t o2 = 0; o2 < out[2]; o2++) {
                    const pool_win_T w2 =
                        pool_window_T(o2, 2, in, k, st, dl, pad, count_include_pad);
                    const int64_t c0 = w2.j0, c1 = w2.j1;
                    int32_t acc = 0;
                    for (int64_t a = w0.j0; a < w0.j1; a++) {
                        int64_t i0 = w0.s + a * dl[0];
                        for (int64_t b = w1.j0; b < w1.j1; b++) {
                            const T *row = xc + (i0 * in[1] + w1.s + b * dl[1]) * in[2] + w2.s;
                            int32_t sum = 0;
                            if (dl[2] == 1)
                                for (int64_t j = c0; j < c1; j++)
                                    sum += row[j];
                            else
                                for (int64_t j = c0; j < c1; j++)
                                    sum += row[j * dl[2]];
                            acc += sum - zx * (int32_t)(c1 - c0);
                        }
                    }
                    int64_t cnt = pool_count_T(&w0, &w1, &w2, count_include_pad);
                    T q = cnt > 0 ? qms_quant_T(((float)acc * sx) / (float)cnt, sy, zy)
                                  : qms_quant_T(0.0f, sy, zy);
                    *y++ = qms_clamp_T(q, lo, hi);
                }
            }
        }
    }
}
