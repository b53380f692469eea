/* rnn_gru.c - ONNX GRU over [seq, batch] (layout 0) or [batch, seq] (layout 1).
 *
 * Per direction d and batch entry b, for its valid steps t (forward 0..len-1, reverse
 * len-1..0), with gates in ONNX order z, r, h (W[d] is [3*hid, in], R[d] is [3*hid, hid],
 * B[d] is Wb then Rb), f/g the activations act[2d], act[2d+1]:
 *   zt = f(W_z x_t + R_z H + Wb_z + Rb_z)
 *   rt = f(W_r x_t + R_r H + Wb_r + Rb_r)
 *   ht = g(W_h x_t + R_h (rt . H) + Rb_h + Wb_h)          linear_before_reset = 0
 *   ht = g(W_h x_t + rt . (R_h H + Rb_h) + Wb_h)          linear_before_reset != 0
 *   H  = (1 - zt) . ht + zt . H
 * Gate inputs are clipped to [-clip, clip] when clip > 0.  Y is zero past each entry's length;
 * Y_h holds the state after the last valid step.  direction: 0 forward, 1 reverse,
 * 2 bidirectional.  Optional pointers (bias, lens, h0, y, yh) may be NULL.
 * scratch: 9 * hid elements. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "rnn_common.c"
#endif

static void gru_T(const T *x, const T *w, const T *r, const T *bias, const int32_t *lens,
                  const T *h0, T *y, T *yh, T *scratch, int64_t seq, int64_t batch, int64_t in,
                  int64_t hid, int64_t direction, int64_t layout, const int64_t *act,
                  const T *alpha, const T *beta, T clip, int64_t linear_before_reset) {
    int64_t ndir = direction == 2 ? 2 : 1;
    /* h: state; gx: W x + Wb (3 * hid); gr: R H + Rb (3 * hid); rh: rt . H */
    T *h = scratch, *gx = scratch + hid, *gr = scratch + 4 * hid, *rh = scratch + 7 * hid;
    T *rt = scratch + 8 * hid;
    rnn_clear_T(y, seq * ndir * batch * hid);
    for (int64_t d = 0; d < ndir; d++) {
        const rnn_dir_T wd = rnn_weights_T(w, r, bias, d, 3, hid, in);
        const int64_t *fa = act + 2 * d;
        const T *al = alpha + 2 * d, *be = beta + 2 * d;
        int64_t reverse = direction == 1 || d == 1;
        for (int64_t b = 0; b < batch; b++) {
            int64_t len = rnn_len_T(lens, b, seq), ho = rnn_hoff_T(layout, d, b, ndir, batch, hid);
            rnn_load_T(h, h0, ho, hid);
            for (int64_t s = 0; s < len; s++) {
                int64_t t = reverse ? len - 1 - s : s;
                const T *xt = x + rnn_xoff_T(layout, t, b, seq, batch, in);
                rnn_matvec_T(gx, wd.w, xt, wd.wb, 3 * hid, in);
                /* z and r (and R_h H when linear_before_reset) from the old state */
                rnn_matvec_T(gr, wd.r, h, wd.rb, linear_before_reset ? 3 * hid : 2 * hid, hid);
                for (int64_t k = 0; k < hid; k++) {
                    rt[k] = rnn_act_T(fa[0], al[0], be[0], rnn_clip_T(gx[hid + k] + gr[hid + k], clip));
                    rh[k] = rt[k] * h[k];
                }
                if (!linear_before_reset)
                    rnn_matvec_T(gr + 2 * hid, wd.r + 2 * hid * hid, rh,
                                 wd.rb ? wd.rb + 2 * hid : (const T *)0, hid, hid);
                for (int64_t k = 0; k < hid; k++) {
                    T zt = rnn_act_T(fa[0], al[0], be[0], rnn_clip_T(gx[k] + gr[k], clip));
                    T vh = linear_before_reset ? gx[2 * hid + k] + rt[k] * gr[2 * hid + k]
                                               : gx[2 * hid + k] + gr[2 * hid + k];
                    T ht = rnn_act_T(fa[1], al[1], be[1], rnn_clip_T(vh, clip));
                    h[k] = ((T)1 - zt) * ht + zt * h[k];
                }
                rnn_store_T(y, rnn_yoff_T(layout, t, d, b, seq, ndir, batch, hid), h, hid);
            }
            rnn_store_T(yh, ho, h, hid);
        }
    }
}
