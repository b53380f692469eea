/* rnn_common.c - helpers shared by the recurrent kernels (rnn_lstm.c, rnn_gru.c, rnn_rnn.c).
 *
 * Activations are numbered as in compiler/ops/rnn.c (the ONNX RNN/GRU/LSTM list, with the
 * alpha/beta of the ONNX op of the same name):
 *   0 Sigmoid 1/(1+e^-x)   1 Tanh               2 Relu max(0,x)      3 Affine a*x+b
 *   4 LeakyRelu x<0: a*x   5 ThresholdedRelu x>a: x, else 0          6 ScaledTanh a*tanh(b*x)
 *   7 HardSigmoid max(0,min(1,a*x+b))           8 Elu x<0: a*(e^x-1) 9 Softsign x/(1+|x|)
 *   10 Softplus log(1+e^x)
 * Layouts (ONNX attribute `layout`): 0 is X[seq, batch, in], Y[seq, dirs, batch, hid],
 * Y_h[dirs, batch, hid]; 1 is X[batch, seq, in], Y[batch, seq, dirs, hid], Y_h[batch, dirs, hid]. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "math_t.c"
#endif
#ifndef O2C_RNN_COMMON_T /* (once per element type: other templates include it) */
#define O2C_RNN_COMMON_T

static inline T rnn_exp_T(T v) {
    /* the sizeof test folds at compile time: expf for float, exp for double */
    return o2c_fn_T(exp, v);
}

static inline T rnn_tanh_T(T v) {
    return o2c_fn_T(tanh, v);
}

static inline T rnn_log1p_T(T v) {
    return o2c_fn_T(log1p, v);
}

static inline T rnn_act_T(int64_t kind, T a, T b, T x) {
    switch (kind) {
    case 0: return x >= 0 ? (T)1 / ((T)1 + rnn_exp_T(-x)) : rnn_exp_T(x) / ((T)1 + rnn_exp_T(x));
    case 1: return rnn_tanh_T(x);
    case 2: return x > 0 ? x : (T)0;
    case 3: return a * x + b;
    case 4: return x >= 0 ? x : a * x;
    case 5: return x > a ? x : (T)0;
    case 6: return a * rnn_tanh_T(b * x);
    case 7: {
        T v = a * x + b;
        return v < 0 ? (T)0 : v > 1 ? (T)1 : v;
    }
    case 8: return x >= 0 ? x : a * (rnn_exp_T(x) - (T)1);
    case 9: return x / ((T)1 + (x < 0 ? -x : x));
    default: /* 10: log(1 + e^x) without overflow */
        return x > 0 ? x + rnn_log1p_T(rnn_exp_T(-x)) : rnn_log1p_T(rnn_exp_T(x));
    }
}

/* clip > 0 bounds a gate's input to [-clip, clip] (the ONNX `clip` attribute). */
static inline T rnn_clip_T(T v, T clip) {
    if (clip > 0)
        v = v < -clip ? -clip : v > clip ? clip : v;
    return v;
}

/* dot product of n elements */
static inline T rnn_dot_T(const T *a, const T *b, int64_t n) {
    T s = 0;
    for (int64_t k = 0; k < n; k++)
        s += a[k] * b[k];
    return s;
}

/* g[j] = bias[j] + dot(m row j, v) for rows j in [0, rows); m is [rows, n] row-major;
 * bias may be NULL. */
static inline void rnn_matvec_T(T *g, const T *m, const T *v, const T *bias, int64_t rows,
                                int64_t n) {
    for (int64_t j = 0; j < rows; j++)
        g[j] = (bias ? bias[j] : (T)0) + rnn_dot_T(m + j * n, v, n);
}

/* Direction d's weights of a cell with `gates` blocks of hid rows (RNN 1, GRU 3, LSTM 4):
 * W[d] is [gates*hid, in], R[d] is [gates*hid, hid], B[d] is Wb then Rb (gates*hid each);
 * wb and rb are NULL when there is no B. */
typedef struct rnn_dir_T {
    const T *w, *r, *wb, *rb;
} rnn_dir_T;

static inline rnn_dir_T rnn_weights_T(const T *w, const T *r, const T *bias, int64_t d,
                                      int64_t gates, int64_t hid, int64_t in) {
    rnn_dir_T wd;
    wd.w = w + d * gates * hid * in;
    wd.r = r + d * gates * hid * hid;
    wd.wb = bias ? bias + d * 2 * gates * hid : (const T *)0;
    wd.rb = bias ? wd.wb + gates * hid : (const T *)0;
    return wd;
}

/* Y is zero past each entry's length: all of it (n elements) is cleared first; y may be NULL. */
static inline void rnn_clear_T(T *y, int64_t n) {
    if (y)
        for (int64_t k = 0; k < n; k++)
            y[k] = 0;
}

/* h = the hid elements of src at off (an initial state h0 or c0), zeros when src is NULL. */
static inline void rnn_load_T(T *h, const T *src, int64_t off, int64_t hid) {
    for (int64_t k = 0; k < hid; k++)
        h[k] = src ? src[off + k] : (T)0;
}

/* The hid elements of dst at off = h (a step's Y, or the final Y_h or Y_c); nothing when dst is
 * NULL (an output the model does not use). */
static inline void rnn_store_T(T *dst, int64_t off, const T *h, int64_t hid) {
    if (dst)
        for (int64_t k = 0; k < hid; k++)
            dst[off + k] = h[k];
}

/* Offsets of X[t, b], Y[t, d, b] and Y_h[d, b] rows under a layout. */
static inline int64_t rnn_xoff_T(int64_t layout, int64_t t, int64_t b, int64_t seq, int64_t batch,
                                 int64_t in) {
    return (layout ? b * seq + t : t * batch + b) * in;
}

static inline int64_t rnn_yoff_T(int64_t layout, int64_t t, int64_t d, int64_t b, int64_t seq,
                                 int64_t ndir, int64_t batch, int64_t hid) {
    return (layout ? (b * seq + t) * ndir + d : (t * ndir + d) * batch + b) * hid;
}

static inline int64_t rnn_hoff_T(int64_t layout, int64_t d, int64_t b, int64_t ndir, int64_t batch,
                                 int64_t hid) {
    return (layout ? b * ndir + d : d * batch + b) * hid;
}

/* The valid length of batch entry b: sequence_lens[b] clamped to [0, seq] (all of seq when
 * there is no sequence_lens). */
static inline int64_t rnn_len_T(const int32_t *lens, int64_t b, int64_t seq) {
    int64_t len = lens ? (int64_t)lens[b] : seq;
    return len < 0 ? 0 : len > seq ? seq : len;
}
#endif
