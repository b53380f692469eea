/* signal.c — op family: signal processing (opset 17).
 *
 * HannWindow, HammingWindow, BlackmanWindow, DFT, STFT, MelWeightMatrix.
 * The scalar inputs that decide an output dim (a window's size, DFT's dft_length, STFT's
 * frame_step and frame_length, MelWeightMatrix's num_mel_bins and dft_length) are used as Syms
 * when they are known at compile time (initializers, Constant, shape arithmetic).  When they are
 * runtime data, the output takes the shape the model declares for it, and the generated code
 * reads them and returns O2C_RUN_EDATA, before writing anything, when they contradict it.
 * Windows of constant size are folded into constants.  DFT and STFT are direct O(n^2) sums in
 * double (templates/signal_dft1.c); MelWeightMatrix is templates/signal_mel.c. */
#include "onnx2c.h"
#include <math.h>
#include <string.h>

#define FOLD_MAX 4096

/* ---- helpers */

/* A scalar (one-element) integer input: its value as a Sym when known at compile time, NULL
 * when it is runtime data. */
static Sym *scalar_int(Compiler *c, Node *n, Value *v, const char *what) {
    if (v->dtype != DT_INT32 && v->dtype != DT_INT64)
        o2c_error(c, n, "%s '%s' must be int32 or int64, got %s", what, v->name,
                  dtype_name(v->dtype));
    int64_t len;
    Sym **k = infer_ints(c, n, v, what, &len);
    if (k && len == 1)
        return k[0];
    if (infer_implied_len(c, n, v, 1, what) != 1)
        o2c_error(c, n, "%s '%s' must have one element", what, v->name);
    return NULL;
}

/* A known dim that must be positive (a constant <= 0 is an error, a symbolic one a
 * constraint). */
static void need_positive(Compiler *c, Node *n, Sym *s, const char *what) {
    int64_t v;
    if (sym_get_const(s, &v)) {
        if (v < 1)
            o2c_error(c, n, "%s is %lld: must be positive", what, (long long)v);
        return;
    }
    ir_constrain(c, n, CK_LE, sym_const(c->sym, 1), s, "%s must be positive", what);
}

/* The last dim of a signal: 1 (real) or 2 (complex); a symbolic one is constrained to be. */
static void complex_dim(Compiler *c, Node *n, Sym *d, const char *what) {
    int64_t v;
    if (sym_get_const(d, &v)) {
        if (v != 1 && v != 2)
            o2c_error(c, n, "the last dim of the %s is %lld: must be 1 (real) or 2 (complex)",
                      what, (long long)v);
        return;
    }
    ir_constrain(c, n, CK_LE, sym_const(c->sym, 1), d, "the last dim of the %s must be 1 or 2", what);
    ir_constrain(c, n, CK_LE, d, sym_const(c->sym, 2), "the last dim of the %s must be 1 or 2", what);
}

/* The C int64_t expression of a scalar input: its Sym, or its element read at run time. */
static const char *scalar_c(Emit *e, Value *v, Sym *s) {
    if (s)
        return emit_sym(e, s);
    return arena_printf(emit_arena(e), "(int64_t)%s[0]", emit_ptr(e, v));
}

static bool flag_attr(Compiler *c, Node *n, const char *name, int64_t def) {
    int64_t v = attr_int(c, n, name, def);
    if (v != 0 && v != 1)
        o2c_error(c, n, "%s = %lld: must be 0 or 1", name, (long long)v);
    return v != 0;
}

/* output_datatype: every real type but float16/bfloat16 (stored as bits, not supported). */
static DType out_datatype(Compiler *c, Node *n) {
    int64_t t = attr_int(c, n, "output_datatype", DT_FLOAT);
    switch (t) {
    case DT_FLOAT: case DT_DOUBLE: case DT_UINT8: case DT_UINT16: case DT_UINT32:
    case DT_UINT64: case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
        return (DType)t;
    case DT_FLOAT16: case DT_BFLOAT16:
        o2c_error(c, n, "output_datatype %s is not supported", dtype_name((DType)t));
    default:
        o2c_error(c, n, "output_datatype %lld is not a real numeric type", (long long)t);
    }
}

static void need_float(Compiler *c, Node *n, Value *v, const char *what) {
    if (v->dtype != DT_FLOAT && v->dtype != DT_DOUBLE)
        o2c_error(c, n, "%s '%s' has type %s: only float and double are supported", what,
                  v->name, dtype_name(v->dtype));
}

/* ---- HannWindow, HammingWindow, BlackmanWindow (opset 17)
 * y[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N) for k < size, N = size (periodic, the
 * default) or size - 1 (symmetric; a symmetric window of size 1 uses N = 1).
 * Hann: a0 = a1 = 1/2; Hamming: a0 = 25/46, a1 = 21/46; Blackman: 0.42, 0.5, 0.08. */

typedef struct Window {
    double a0, a1, a2;
    bool periodic;
    Sym *size;      /* NULL: runtime size (the declared dim) */
} Window;

static void window_coefs(const Node *n, Window *w) {
    if (n->op->variant == OPV_HANN) {
        w->a0 = 0.5;
        w->a1 = 0.5;
    } else if (n->op->variant == OPV_HAMMING) {
        w->a0 = 25.0 / 46.0;
        w->a1 = 21.0 / 46.0;
    } else {
        w->a0 = 0.42;
        w->a1 = 0.5;
        w->a2 = 0.08;
    }
}

static double window_at(const Window *w, int64_t k, int64_t size) {
    int64_t den = w->periodic ? size : size - 1;
    double a = 6.283185307179586477 * (double)k / (double)(den > 0 ? den : 1);
    return w->a0 - w->a1 * cos(a) + w->a2 * cos(2.0 * a);
}

void infer_window(Compiler *c, Node *n) {
    Value *sz = infer_in(c, n, 0), *y = n->out[0];
    Window *w = arena_alloc(c->arena, sizeof *w);
    window_coefs(n, w);
    w->periodic = flag_attr(c, n, "periodic", 1);
    DType t = out_datatype(c, n);
    w->size = scalar_int(c, n, sz, "size");
    n->priv = w;
    if (!w->size) {
        infer_declared_out(c, n, sz, "size", y, t, 1);
        return;
    }
    int64_t len;
    if (sym_get_const(w->size, &len) && len < 0)
        o2c_error(c, n, "size is %lld: must not be negative", (long long)len);
    if (!sym_is_const(w->size))
        ir_constrain(c, n, CK_LE, sym_const(c->sym, 0), w->size, "size must not be negative");
    ir_set_shape(c, y, t, 1, &w->size);
    if (sym_get_const(w->size, &len) && len <= FOLD_MAX && (t == DT_FLOAT || t == DT_DOUBLE)) {
        size_t es = dtype_size(t);
        unsigned char *d = arena_alloc(c->arena, es * (size_t)(len ? len : 1));
        for (int64_t k = 0; k < len; k++) {
            double v = window_at(w, k, len);
            if (t == DT_FLOAT) {
                float f = (float)v;
                memcpy(d + es * (size_t)k, &f, es);
            } else {
                memcpy(d + es * (size_t)k, &v, es);
            }
        }
        y->data = d;
    }
}

void emit_window(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const Window *w = n->priv;
    Value *y = n->out[0];
    const char *len = emit_sym(e, y->shape[0]);
    if (!w->size) {
        emit_line(e, "if (%s != %s)", scalar_c(e, n->in[0], NULL), len);
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    }
    emit_line(e, "const int64_t den = %s%s;", len, w->periodic ? "" : " - 1");
    emit_line(e, "for (int64_t k = 0; k < %s; k++) {", len);
    emit_line(e, "    const double a = 6.283185307179586477 * (double)k / (double)(den > 0 ? den : 1);");
    if (w->a2 != 0)
        emit_line(e, "    %s[k] = (%s)(%.17g - %.17g * cos(a) + %.17g * cos(2.0 * a));",
                  emit_ptr(e, y), dtype_ctype(y->dtype), w->a0, w->a1, w->a2);
    else
        emit_line(e, "    %s[k] = (%s)(%.17g - %.17g * cos(a));", emit_ptr(e, y),
                  dtype_ctype(y->dtype), w->a0, w->a1);
    emit_line(e, "}");
}

/* ---- DFT (opset 17)
 * x [batch][d1]...[dN][1 or 2] (real or complex); the transform runs along `axis` (default 1;
 * negative counts from the rank of x; must not be the last, complex axis) with n = dft_length
 * points (default the axis dim; the input is cut or zero-padded to n).  y has x's shape with
 * the axis dim n (n / 2 + 1 when onesided: the first bins of the full transform) and a last dim
 * of 2.  inverse: exp(+2 pi i jk / n) / n. */

typedef struct Dft {
    int axis;
    bool onesided, inverse;
    Sym *n;         /* NULL: dft_length read at run time */
    Sym *outer, *len, *inner, *ci, *nout;
} Dft;

void infer_dft(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x = infer_in(c, n, 0), *y = n->out[0], *dl = node_in(n, 1);
    need_float(c, n, x, "input");
    int r = x->rank;
    if (r < 2)
        o2c_error(c, n, "input must have rank >= 2 ([batch]...[1 or 2]), got %d", r);
    complex_dim(c, n, x->shape[r - 1], "input");
    int64_t a = attr_int(c, n, "axis", 1);
    if (a < 0)
        a += r;
    if (a < 0 || a > r - 2)
        o2c_error(c, n, "axis %lld is out of range for an input of rank %d",
                  (long long)attr_int(c, n, "axis", 1), r);
    Dft *p = arena_alloc(c->arena, sizeof *p);
    p->axis = (int)a;
    p->onesided = flag_attr(c, n, "onesided", 0);
    p->inverse = flag_attr(c, n, "inverse", 0);
    p->n = dl ? scalar_int(c, n, infer_in(c, n, 1), "dft_length") : x->shape[a];
    p->outer = sym_prod(c->sym, x->shape, 0, (int)a);
    p->len = x->shape[a];
    p->inner = sym_prod(c->sym, x->shape, (int)a + 1, r - 1);
    p->ci = x->shape[r - 1];
    n->priv = p;
    if (!p->n) {
        infer_declared_out(c, n, dl, "dft_length", y, x->dtype, r);
        for (int d = 0; d < r - 1; d++)
            if (d != a)
                infer_declared_agree(c, n, y, d, x->shape[d]);
        infer_declared_agree(c, n, y, r - 1, sym_const(s, 2));
        p->nout = y->shape[a];
        return;
    }
    need_positive(c, n, p->n, "dft_length");
    p->nout = p->onesided ? sym_add(s, sym_floordiv(s, p->n, sym_const(s, 2)), sym_const(s, 1))
                          : p->n;
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)r);
    for (int d = 0; d < r; d++)
        shape[d] = x->shape[d];
    shape[a] = p->nout;
    shape[r - 1] = sym_const(s, 2);
    ir_set_shape(c, y, x->dtype, r, shape);
}

void emit_dft(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const Dft *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    const char *sfx = emit_template(e, "signal_dft", x->dtype);
    const char *nf = scalar_c(e, node_in(n, 1), p->n);
    if (!p->n) {
        const char *nout = emit_sym(e, p->nout);
        emit_line(e, "const int64_t nf = %s;", nf);
        if (p->onesided)
            emit_line(e, "if (nf < 1 || nf / 2 + 1 != %s)", nout);
        else
            emit_line(e, "if (nf < 1 || nf != %s)", nout);
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
        nf = "nf";
    }
    emit_line(e, "dft_%s(%s, %s, %s, %s, %s, %s, %s, %s, %d);", sfx, emit_ptr(e, x),
              emit_ptr(e, y), emit_sym(e, p->outer), emit_sym(e, p->len), emit_sym(e, p->inner),
              emit_sym(e, p->ci), nf, emit_sym(e, p->nout), p->inverse ? 1 : 0);
}

/* ---- STFT (opset 17)
 * signal [batch][len][1 or 2], frame_step, optional window [n], optional frame_length n (at
 * least one of the two; equal when both are given).  Frame f starts at sample f * frame_step;
 * frames = (len - n) / frame_step + 1.  y [batch][frames][nbins][2], nbins = n / 2 + 1 when
 * onesided (the default), else n. */

typedef struct Stft {
    bool onesided;
    Sym *n, *step;     /* NULL: read at run time */
    Value *rt_n;       /* frame_length read at run time, or NULL */
    bool declared;     /* the output has its declared shape: check everything at run time */
} Stft;

void infer_stft(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    Value *fs = infer_in(c, n, 1), *win = node_in(n, 2), *fl = node_in(n, 3);
    need_float(c, n, x, "signal");
    if (x->rank != 3)
        o2c_error(c, n, "signal must have rank 3 ([batch][length][1 or 2]), got %d", x->rank);
    complex_dim(c, n, x->shape[2], "signal");
    Stft *p = arena_alloc(c->arena, sizeof *p);
    p->onesided = flag_attr(c, n, "onesided", 1);
    n->priv = p;
    if (win) {
        win = infer_in(c, n, 2);
        if (win->dtype != x->dtype)
            o2c_error(c, n, "window has type %s but signal has type %s", dtype_name(win->dtype),
                      dtype_name(x->dtype));
        if (win->rank != 1)
            o2c_error(c, n, "window must have rank 1, got %d", win->rank);
    }
    if (!win && !fl)
        o2c_error(c, n, "needs a window or a frame_length to know the frame length");
    p->step = scalar_int(c, n, fs, "frame_step");
    Sym *fln = fl ? scalar_int(c, n, infer_in(c, n, 3), "frame_length") : NULL;
    if (fl && !fln)
        p->rt_n = infer_in(c, n, 3);
    if (win) {
        p->n = win->shape[0];
        if (fln)
            ir_constrain(c, n, CK_EQ, fln, p->n, "frame_length must equal the window length");
    } else {
        p->n = fln;
    }
    if (p->step)
        need_positive(c, n, p->step, "frame_step");
    if (p->n) {
        need_positive(c, n, p->n, "frame_length");
        ir_constrain(c, n, CK_LE, p->n, x->shape[1], "frame_length must not exceed the signal length");
    }
    Sym *nbins = NULL, *frames = NULL;
    if (p->n) {
        nbins = p->onesided ? sym_add(s, sym_floordiv(s, p->n, sym_const(s, 2)), sym_const(s, 1))
                            : p->n;
        if (p->step)
            frames = sym_add(s, sym_floordiv(s, sym_sub(s, x->shape[1], p->n), p->step),
                             sym_const(s, 1));
    }
    if (!frames || p->rt_n) {
        Value *rt = !p->step ? fs : p->rt_n ? p->rt_n : fl;
        infer_declared_out(c, n, rt, !p->step ? "frame_step" : "frame_length", y, x->dtype, 4);
        infer_declared_agree(c, n, y, 0, x->shape[0]);
        infer_declared_agree(c, n, y, 3, sym_const(s, 2));
        if (nbins)
            infer_declared_agree(c, n, y, 2, nbins);
        if (frames)
            infer_declared_agree(c, n, y, 1, frames);
        p->declared = true;
        return;
    }
    Sym *shape[4] = {x->shape[0], frames, nbins, sym_const(s, 2)};
    ir_set_shape(c, y, x->dtype, 4, shape);
}

void emit_stft(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const Stft *p = n->priv;
    Value *x = n->in[0], *y = n->out[0], *win = node_in(n, 2);
    const char *sfx = emit_template(e, "signal_stft", x->dtype);
    const char *len = emit_sym(e, x->shape[1]);
    const char *frames = emit_sym(e, y->shape[1]), *nbins = emit_sym(e, y->shape[2]);
    const char *nf = p->n ? emit_sym(e, p->n) : scalar_c(e, p->rt_n, NULL);
    const char *st = scalar_c(e, n->in[1], p->step);
    if (p->declared) {
        emit_line(e, "const int64_t nf = %s, st = %s;", nf, st);
        nf = "nf";
        st = "st";
        emit_line(e, "if (nf < 1 || st < 1 || nf > %s || (%s - nf) / st + 1 != %s)", len, len,
                  frames);
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
        emit_line(e, "if (%s != %s)", p->onesided ? "nf / 2 + 1" : "nf", nbins);
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
        if (p->rt_n && win) {
            emit_line(e, "if (%s != nf)", scalar_c(e, p->rt_n, NULL));
            emit_line(e, "    return %d;", O2C_RUN_EDATA);
        }
    }
    emit_line(e, "stft_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s);", sfx, emit_ptr(e, x),
              win ? emit_ptr(e, win) : "0", emit_ptr(e, y), emit_sym(e, x->shape[0]), len,
              emit_sym(e, x->shape[2]), nf, st, frames, nbins);
}

/* ---- MelWeightMatrix (opset 17)
 * y [dft_length / 2 + 1][num_mel_bins] (output_datatype, default float): see
 * templates/signal_mel.c.  sample_rate, lower_edge_hertz and upper_edge_hertz are read at run
 * time. */

typedef struct Mel {
    Sym *nmel, *dftlen, *rate; /* NULL: read at run time */
} Mel;

void infer_mel(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *y = n->out[0];
    Value *v[5];
    for (int i = 0; i < 5; i++)
        v[i] = infer_in(c, n, i);
    Mel *p = arena_alloc(c->arena, sizeof *p);
    n->priv = p;
    DType t = out_datatype(c, n);
    p->nmel = scalar_int(c, n, v[0], "num_mel_bins");
    p->dftlen = scalar_int(c, n, v[1], "dft_length");
    p->rate = scalar_int(c, n, v[2], "sample_rate");
    for (int i = 3; i < 5; i++) {
        need_float(c, n, v[i], i == 3 ? "lower_edge_hertz" : "upper_edge_hertz");
        if (v[i]->rank > 1 ||
            infer_implied_len(c, n, v[i], 1, i == 3 ? "lower_edge_hertz" : "upper_edge_hertz") != 1)
            o2c_error(c, n, "%s must be a scalar", i == 3 ? "lower_edge_hertz" : "upper_edge_hertz");
    }
    if (p->nmel)
        need_positive(c, n, p->nmel, "num_mel_bins");
    if (p->dftlen)
        need_positive(c, n, p->dftlen, "dft_length");
    Sym *nbins = p->dftlen ? sym_add(s, sym_floordiv(s, p->dftlen, sym_const(s, 2)),
                                     sym_const(s, 1))
                           : NULL;
    if (!p->nmel || !p->dftlen) {
        Value *rt = !p->nmel ? v[0] : v[1];
        infer_declared_out(c, n, rt, !p->nmel ? "num_mel_bins" : "dft_length", y, t, 2);
        if (nbins)
            infer_declared_agree(c, n, y, 0, nbins);
        if (p->nmel)
            infer_declared_agree(c, n, y, 1, p->nmel);
        return;
    }
    Sym *shape[2] = {nbins, p->nmel};
    ir_set_shape(c, y, t, 2, shape);
}

void emit_mel(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const Mel *p = n->priv;
    Value *y = n->out[0];
    const char *sfx = emit_template(e, "signal_mel", y->dtype);
    const char *nmel = scalar_c(e, n->in[0], p->nmel), *dl = scalar_c(e, n->in[1], p->dftlen);
    if (!p->nmel || !p->dftlen) {
        emit_line(e, "const int64_t nm = %s, dl = %s;", nmel, dl);
        nmel = "nm";
        dl = "dl";
        emit_line(e, "if (nm != %s || dl < 1 || dl / 2 + 1 != %s)", emit_sym(e, y->shape[1]),
                  emit_sym(e, y->shape[0]));
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    }
    emit_line(e, "mel_%s(%s, %s, %s, (double)%s, (double)%s[0], (double)%s[0]);", sfx,
              emit_ptr(e, y), nmel, dl, scalar_c(e, n->in[2], p->rate), emit_ptr(e, n->in[3]),
              emit_ptr(e, n->in[4]));
}
