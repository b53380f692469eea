/* rnn_rnn.c - ONNX RNN (the simple Elman cell) over [seq, batch] (layout 0) or [batch, seq]
 * (layout 1).
 *
 * Per direction d and batch entry b, for its valid steps t (forward 0..len-1, reverse
 * len-1..0), with W[d] [hid, in], R[d] [hid, hid], B[d] Wb then Rb, f the activation act[d]:
 *   H = f(W x_t + R H + Wb + Rb)
 * Gate inputs are clipped to [-clip, clip] when clip > 0.  Y is zero past each entry's length;
 * Y_h holds the state after the last valid step.  direction: 0 forward, 1 reverse,
 * 2 bidirectional.  Optional pointers (bias, lens, h0, y, yh) may be NULL.
 * scratch: 2 * hid elements. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "rnn_common.c"
#endif

static void rnn_T(const T *x, const T *w, const T *r, const T *bias, const int32_t *lens,
                  const T *h0, T *y, T *yh, T *scratch, int64_t seq, int64_t batch, int64_t in,
                  int64_t hid, int64_t direction, int64_t layout, const int64_t *act,
                  const T *alpha, const T *beta, T clip) {
    int64_t ndir = direction == 2 ? 2 : 1;
    T *h = scratch, *g = scratch + hid;
    if (y)
        for (int64_t k = 0; k < seq * ndir * batch * hid; k++)
            y[k] = 0;
    for (int64_t d = 0; d < ndir; d++) {
        const T *wd = w + d * hid * in, *rd = r + d * hid * hid;
        const T *wb = bias ? bias + d * 2 * hid : (const T *)0;
        const T *rb = bias ? wb + hid : (const T *)0;
        int64_t reverse = direction == 1 || d == 1;
        for (int64_t b = 0; b < batch; b++) {
            int64_t len = rnn_len_T(lens, b, seq), ho = rnn_hoff_T(layout, d, b, ndir, batch, hid);
            for (int64_t k = 0; k < hid; k++)
                h[k] = h0 ? h0[ho + k] : (T)0;
            for (int64_t s = 0; s < len; s++) {
                int64_t t = reverse ? len - 1 - s : s;
                const T *xt = x + rnn_xoff_T(layout, t, b, seq, batch, in);
                rnn_matvec_T(g, wd, xt, wb, hid, in);
                for (int64_t k = 0; k < hid; k++)
                    g[k] += (rb ? rb[k] : (T)0) + rnn_dot_T(rd + k * hid, h, hid);
                for (int64_t k = 0; k < hid; k++)
                    h[k] = rnn_act_T(act[d], alpha[d], beta[d], rnn_clip_T(g[k], clip));
                if (y) {
                    T *yt = y + rnn_yoff_T(layout, t, d, b, seq, ndir, batch, hid);
                    for (int64_t k = 0; k < hid; k++)
                        yt[k] = h[k];
                }
            }
            if (yh)
                for (int64_t k = 0; k < hid; k++)
                    yh[ho + k] = h[k];
        }
    }
}
