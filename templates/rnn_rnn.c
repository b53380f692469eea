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
#include "rnn_matvec_add.c"
#endif

static void rnn_T(const T *x, const T *w, const T *r, const T *bias, const int32_t *lens,
                  const T *h0, T *y, T *yh, T *scratch, int64_t seq, int64_t batch, int64_t in,
                  int64_t hid, int64_t direction, int64_t layout, const int64_t *act,
                  const T *alpha, const T *beta, T clip) {
    int64_t ndir = direction == 2 ? 2 : 1;
    T *h = scratch, *g = scratch + hid;
    rnn_clear_T(y, seq * ndir * batch * hid);
    for (int64_t d = 0; d < ndir; d++) {
        const rnn_dir_T wd = rnn_weights_T(w, r, bias, d, 1, hid, in);
        int64_t reverse = direction == 1 || d == 1;
        for (int64_t b = 0; b < batch; b++) {
            int64_t len = rnn_len_T(lens, b, seq), ho = rnn_hoff_T(layout, d, b, ndir, batch, hid);
            rnn_load_T(h, h0, ho, hid);
            for (int64_t s = 0; s < len; s++) {
                int64_t t = reverse ? len - 1 - s : s;
                const T *xt = x + rnn_xoff_T(layout, t, b, seq, batch, in);
                rnn_matvec_T(g, wd.w, xt, wd.wb, hid, in);
                rnn_matvec_add_T(g, wd.r, h, wd.rb, hid, hid);
                for (int64_t k = 0; k < hid; k++)
                    h[k] = rnn_act_T(act[d], alpha[d], beta[d], rnn_clip_T(g[k], clip));
                rnn_store_T(y, rnn_yoff_T(layout, t, d, b, seq, ndir, batch, hid), h, hid);
            }
            rnn_store_T(yh, ho, h, hid);
        }
    }
}
