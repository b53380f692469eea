/* rnn_lstm.c - ONNX LSTM over [seq, batch] (layout 0) or [batch, seq] (layout 1).
 *
 * Per direction d and batch entry b, for its valid steps t (forward 0..len-1, reverse
 * len-1..0), with gates in ONNX order i, o, f, c (W[d] is [4*hid, in], R[d] is [4*hid, hid],
 * B[d] is Wb then Rb, P[d] is Pi, Po, Pf), f/g/h the activations act[3d..3d+2]:
 *   it = f(W_i x_t + R_i H + Wb_i + Rb_i + P_i . C)
 *   ft = f(W_f x_t + R_f H + Wb_f + Rb_f + P_f . C)      (1 - it when input_forget)
 *   ct = g(W_c x_t + R_c H + Wb_c + Rb_c)
 *   C  = ft . C + it . ct
 *   ot = f(W_o x_t + R_o H + Wb_o + Rb_o + P_o . C)
 *   H  = ot . h(C)
 * Gate inputs are clipped to [-clip, clip] when clip > 0.  Y is zero past each entry's length;
 * Y_h and Y_c hold the state after the last valid step.  direction: 0 forward, 1 reverse,
 * 2 bidirectional.  Optional pointers (bias, lens, h0, c0, p, y, yh, yc) may be NULL.
 * scratch: 6 * hid elements. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "rnn_matvec_add.c"
#endif

static void lstm_T(const T *x, const T *w, const T *r, const T *bias, const int32_t *lens,
                   const T *h0, const T *c0, const T *p, T *y, T *yh, T *yc, T *scratch,
                   int64_t seq, int64_t batch, int64_t in, int64_t hid, int64_t direction,
                   int64_t layout, const int64_t *act, const T *alpha, const T *beta, T clip,
                   int64_t input_forget) {
    int64_t ndir = direction == 2 ? 2 : 1;
    T *h = scratch, *c = scratch + hid, *g = scratch + 2 * hid; /* g: 4 * hid gate sums */
    rnn_clear_T(y, seq * ndir * batch * hid);
    for (int64_t d = 0; d < ndir; d++) {
        const rnn_dir_T wd = rnn_weights_T(w, r, bias, d, 4, hid, in);
        const T *pi = p ? p + d * 3 * hid : (const T *)0;
        const int64_t *fa = act + 3 * d;
        const T *al = alpha + 3 * d, *be = beta + 3 * d;
        int64_t reverse = direction == 1 || d == 1;
        for (int64_t b = 0; b < batch; b++) {
            int64_t len = rnn_len_T(lens, b, seq), ho = rnn_hoff_T(layout, d, b, ndir, batch, hid);
            rnn_load_T(h, h0, ho, hid);
            rnn_load_T(c, c0, ho, hid);
            for (int64_t s = 0; s < len; s++) {
                int64_t t = reverse ? len - 1 - s : s;
                const T *xt = x + rnn_xoff_T(layout, t, b, seq, batch, in);
                rnn_matvec_T(g, wd.w, xt, wd.wb, 4 * hid, in);
                rnn_matvec_add_T(g, wd.r, h, wd.rb, 4 * hid, hid);
                for (int64_t k = 0; k < hid; k++) {
                    T vi = g[k], vo = g[hid + k], vf = g[2 * hid + k], vc = g[3 * hid + k];
                    if (pi) {
                        vi += pi[k] * c[k];
                        vf += pi[2 * hid + k] * c[k];
                    }
                    T it = rnn_act_T(fa[0], al[0], be[0], rnn_clip_T(vi, clip));
                    T ft = input_forget ? (T)1 - it
                                        : rnn_act_T(fa[0], al[0], be[0], rnn_clip_T(vf, clip));
                    T ct = rnn_act_T(fa[1], al[1], be[1], rnn_clip_T(vc, clip));
                    c[k] = ft * c[k] + it * ct;
                    if (pi)
                        vo += pi[hid + k] * c[k];
                    T ot = rnn_act_T(fa[0], al[0], be[0], rnn_clip_T(vo, clip));
                    h[k] = ot * rnn_act_T(fa[2], al[2], be[2], c[k]);
                }
                rnn_store_T(y, rnn_yoff_T(layout, t, d, b, seq, ndir, batch, hid), h, hid);
            }
            rnn_store_T(yh, ho, h, hid);
            rnn_store_T(yc, ho, c, hid);
        }
    }
}
