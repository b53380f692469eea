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
#include "pool_taps.c"
#endif

static void qms_avgpool_T(const T *x, T *y, int64_t nc, const int64_t *in, const int64_t *out,
                          const int64_t *k, const int64_t *st, const int64_t *dl,
                          const int64_t *pad, int64_t count_include_pad, float sx, int32_t zx,
                          float sy, float zy, int lo, int hi) {
    int64_t plane = in[0] * in[1] * in[2];
    for (int64_t c = 0; c < nc; c++) {
        const T *xc = x + c * plane;
        for (int64_t o0 = 0; o0 < out[0]; o0++) {
            int64_t s0 = o0 * st[0] - pad[0], a0, a1, p0, p1;
            pool_taps_T(s0, in[0], k[0], dl[0], &a0, &a1);
            pool_taps_T(s0 + pad[0], in[0] + pad[0] + pad[3], k[0], dl[0], &p0, &p1);
            for (int64_t o1 = 0; o1 < out[1]; o1++) {
                int64_t s1 = o1 * st[1] - pad[1], b0, b1, q0, q1;
                pool_taps_T(s1, in[1], k[1], dl[1], &b0, &b1);
                pool_taps_T(s1 + pad[1], in[1] + pad[1] + pad[4], k[1], dl[1], &q0, &q1);
                for (int64_t o2 = 0; o2 < out[2]; o2++) {
                    int64_t s2 = o2 * st[2] - pad[2], c0, c1, r0, r1;
                    pool_taps_T(s2, in[2], k[2], dl[2], &c0, &c1);
                    pool_taps_T(s2 + pad[2], in[2] + pad[2] + pad[5], k[2], dl[2], &r0, &r1);
                    int32_t acc = 0;
                    for (int64_t a = a0; a < a1; a++) {
                        int64_t i0 = s0 + a * dl[0];
                        for (int64_t b = b0; b < b1; b++) {
                            const T *row = xc + (i0 * in[1] + s1 + b * dl[1]) * in[2] + s2;
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
                    int64_t cnt = count_include_pad ? (p1 - p0) * (q1 - q0) * (r1 - r0)
                                                    : (a1 - a0) * (b1 - b0) * (c1 - c0);
                    T q = cnt > 0 ? qms_quant_T(((float)acc * sx) / (float)cnt, sy, zy)
                                  : qms_quant_T(0.0f, sy, zy);
                    *y++ = qms_clamp_T(q, lo, hi);
                }
            }
        }
    }
}
