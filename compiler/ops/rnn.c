/* rnn.c — op family: recurrent layers (ONNX LSTM, GRU and RNN, opsets 7 and 14).
 *
 * Inputs: X, W, R, then optional B, sequence_lens, initial_h (and for LSTM initial_c, P).
 * With G gates (LSTM 4, GRU 3, RNN 1), D directions (2 when bidirectional) and H hidden_size:
 *   W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H], sequence_lens [batch] (int32),
 *   initial_h / initial_c / Y_h / Y_c [D, batch, H] (layout 0) or [batch, D, H] (layout 1),
 *   P [D, 3*H] (LSTM peepholes i, o, f),
 *   X [seq, batch, I] -> Y [seq, D, batch, H]              (layout 0, the only one before 14)
 *   X [batch, seq, I] -> Y [batch, seq, D, H]              (layout 1)
 * The cell formulas are in templates/rnn_{lstm,gru,rnn}.c.  seq and batch come from X and stay
 * symbolic; H is the hidden_size attribute (or W's rows / G), I is X's last axis; every other
 * input's dims are checked against them (constraints, at run time when symbolic).
 * Activations (attribute `activations`, f/g/h per direction) are any of the ONNX list; their
 * alpha/beta are taken in order by the activations that have one, defaults as in the ONNX op
 * of the same name.
 * Code: one call per node to a kernel that loops over directions, batch entries and their
 * valid steps (sequence_lens), with matrix-vector products against W and R (constant weights or
 * run-time inputs alike); the state and gate sums live in the node's scratch. */
#include "onnx2c.h"
#include <string.h>

typedef enum {
    RNN_LSTM, /* 4 gates i, o, f, c; activations f, g, h */
    RNN_GRU,  /* 3 gates z, r, h; activations f, g */
    RNN_RNN,  /* 1 gate; activation f */
} RnnKind;

/* What emit needs. */
typedef struct Rnn {
    RnnKind kind;
    int64_t direction;        /* 0 forward, 1 reverse, 2 bidirectional */
    int64_t layout;
    int64_t nact;             /* activations: nact per direction * D */
    int64_t act[6];           /* codes of templates/rnn_common.c */
    double alpha[6], beta[6];
    double clip;              /* 0: none */
    int64_t flag;             /* LSTM input_forget, GRU linear_before_reset */
    Sym *seq, *batch, *in, *hid;
} Rnn;

/* The ONNX activation list, in the code order of templates/rnn_common.c, with how many of
 * alpha/beta each takes and their defaults (those of the ONNX op of the same name). */
static const struct {
    const char *name;
    int nalpha, nbeta;
    double alpha, beta;
} rnn_acts[] = {
    {"Sigmoid", 0, 0, 0, 0},     {"Tanh", 0, 0, 0, 0},          {"Relu", 0, 0, 0, 0},
    {"Affine", 1, 1, 1.0, 0.0},  {"LeakyRelu", 1, 0, 0.01, 0},  {"ThresholdedRelu", 1, 0, 1.0, 0},
    {"ScaledTanh", 1, 1, 1.0, 1.0}, {"HardSigmoid", 1, 1, 0.2, 0.5}, {"Elu", 1, 0, 1.0, 0},
    {"Softsign", 0, 0, 0, 0},    {"Softplus", 0, 0, 0, 0},
};

static bool same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

static RnnKind rnn_kind(const Node *n) {
    if (n->op->variant == OPV_LSTM)
        return RNN_LSTM;
    if (n->op->variant == OPV_GRU)
        return RNN_GRU;
    return RNN_RNN;
}

/* activations, activation_alpha, activation_beta: nper per direction; a list of nper is used
 * for both directions. */
static void rnn_activations(Compiler *c, Node *n, Rnn *r, int ndir) {
    static const int64_t defaults[3][3] = {{0, 1, 1}, {0, 1, 0}, {1, 0, 0}};
    int nper = r->kind == RNN_LSTM ? 3 : r->kind == RNN_GRU ? 2 : 1;
    r->nact = (int64_t)nper * ndir;
    const Attr *a = node_attr(n, "activations");
    const float *alpha, *beta;
    int na = attr_floats(c, n, "activation_alpha", &alpha);
    int nb = attr_floats(c, n, "activation_beta", &beta);
    int ia = 0, ib = 0;
    if (a && a->type != ATTR_STRINGS)
        o2c_error(c, n, "activations must be a list of strings");
    if (a && a->n != nper * ndir && a->n != nper)
        o2c_error(c, n, "%d activations, expected %d", a->n, nper * ndir);
    for (int i = 0; i < nper * ndir; i++) {
        int code = (int)defaults[r->kind][i % nper];
        if (a) {
            const char *s = a->strings[a->n == nper ? i % nper : i];
            code = -1;
            for (int k = 0; k < (int)(sizeof rnn_acts / sizeof rnn_acts[0]); k++)
                if (same_name(s, rnn_acts[k].name))
                    code = k;
            if (code < 0)
                o2c_error(c, n, "activation '%s' is not supported", s);
        }
        r->act[i] = code;
        r->alpha[i] = rnn_acts[code].alpha;
        r->beta[i] = rnn_acts[code].beta;
        if (rnn_acts[code].nalpha && ia < na)
            r->alpha[i] = alpha[ia++];
        if (rnn_acts[code].nbeta && ib < nb)
            r->beta[i] = beta[ib++];
    }
}

/* Requires v (when present) to have the given dims, named in `names` ("[a, b]"): an error
 * when the dims are constants and differ, else run-time constraints. */
static void rnn_expect(Compiler *c, Node *n, Value *v, const char *what, DType t, int rank,
                       Sym *const *dims, const char *names) {
    if (!v)
        return;
    if (v->dtype != t)
        o2c_error(c, n, "%s has type %s, expected %s", what, dtype_name(v->dtype), dtype_name(t));
    if (v->rank != rank)
        o2c_error(c, n, "%s has rank %d, expected %d %s", what, v->rank, rank, names);
    for (int i = 0; i < rank; i++) {
        int64_t got, want;
        if (sym_get_const(v->shape[i], &got) && sym_get_const(dims[i], &want) && got != want)
            o2c_error(c, n, "%s axis %d is %lld, expected %lld: %s is %s", what, i,
                      (long long)got, (long long)want, what, names);
        ir_constrain(c, n, CK_EQ, v->shape[i], dims[i], "%s axis %d does not match %s", what, i, names);
    }
}

/* LSTM, GRU, RNN: the shapes of the file comment. */
void infer_rnn(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    RnnKind kind = rnn_kind(n);
    int G = kind == RNN_LSTM ? 4 : kind == RNN_GRU ? 3 : 1;
    infer_require_inputs(c, n, 3, kind == RNN_LSTM ? 8 : 6);
    Value *x = infer_in(c, n, 0), *w = infer_in(c, n, 1), *rr = infer_in(c, n, 2);
    if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE)
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    if (x->rank != 3)
        o2c_error(c, n, "X has rank %d, expected 3", x->rank);
    if (w->rank != 3)
        o2c_error(c, n, "W has rank %d, expected 3 [num_directions, %d*hidden_size, input_size]",
                  w->rank, G);
    if (n->nout > (kind == RNN_LSTM ? 3 : 2))
        o2c_error(c, n, "%d outputs, expected at most %d", n->nout, kind == RNN_LSTM ? 3 : 2);

    Rnn *r = arena_alloc(c->arena, sizeof *r);
    r->kind = kind;
    const char *dir = attr_str(c, n, "direction", "forward");
    if (!strcmp(dir, "forward"))
        r->direction = 0;
    else if (!strcmp(dir, "reverse"))
        r->direction = 1;
    else if (!strcmp(dir, "bidirectional"))
        r->direction = 2;
    else
        o2c_error(c, n, "direction '%s' is not forward, reverse or bidirectional", dir);
    int ndir = r->direction == 2 ? 2 : 1;
    r->layout = n->opset >= 14 ? attr_int(c, n, "layout", 0) : 0;
    if (r->layout != 0 && r->layout != 1)
        o2c_error(c, n, "layout = %lld: must be 0 or 1", (long long)r->layout);
    if (kind == RNN_LSTM) {
        r->flag = attr_int(c, n, "input_forget", 0);
        if (r->flag != 0 && r->flag != 1)
            o2c_error(c, n, "input_forget = %lld: must be 0 or 1", (long long)r->flag);
    }
    if (kind == RNN_GRU)
        r->flag = attr_int(c, n, "linear_before_reset", 0) != 0;
    if (node_attr(n, "clip")) {
        r->clip = attr_float(c, n, "clip", 0);
        if (!(r->clip > 0))
            o2c_error(c, n, "clip = %g: must be positive", r->clip);
    }
    rnn_activations(c, n, r, ndir);

    /* sizes: seq and batch from X, I from X, H from the attribute or W */
    r->seq = x->shape[r->layout ? 1 : 0];
    r->batch = x->shape[r->layout ? 0 : 1];
    r->in = x->shape[2];
    Sym *gs = sym_const(s, G), *D = sym_const(s, ndir);
    const Attr *ha = node_attr(n, "hidden_size");
    if (ha) {
        int64_t hv = attr_int(c, n, "hidden_size", 0);
        if (hv < 1)
            o2c_error(c, n, "hidden_size = %lld: must be positive", (long long)hv);
        r->hid = sym_const(s, hv);
    } else {
        ir_constrain(c, n, CK_DIVIDES, gs, w->shape[1], "W axis 1 is not a multiple of %d", G);
        r->hid = sym_floordiv(s, w->shape[1], gs);
    }
    Sym *gh = sym_mul(s, gs, r->hid);
    DType t = x->dtype;
    rnn_expect(c, n, w, "W", t, 3, (Sym *[]){D, gh, r->in},
                "[num_directions, gates*hidden_size, input_size]");
    rnn_expect(c, n, rr, "R", t, 3, (Sym *[]){D, gh, r->hid},
                "[num_directions, gates*hidden_size, hidden_size]");
    rnn_expect(c, n, node_in(n, 3), "B", t, 2, (Sym *[]){D, sym_mul(s, sym_const(s, 2), gh)},
                "[num_directions, 2*gates*hidden_size]");
    rnn_expect(c, n, node_in(n, 4), "sequence_lens", DT_INT32, 1, (Sym *[]){r->batch},
                "[batch_size]");
    Sym *hs[3] = {D, r->batch, r->hid};
    if (r->layout) {
        hs[0] = r->batch;
        hs[1] = D;
    }
    const char *hnames = r->layout ? "[batch_size, num_directions, hidden_size]"
                                   : "[num_directions, batch_size, hidden_size]";
    rnn_expect(c, n, node_in(n, 5), "initial_h", t, 3, hs, hnames);
    if (kind == RNN_LSTM) {
        rnn_expect(c, n, node_in(n, 6), "initial_c", t, 3, hs, hnames);
        rnn_expect(c, n, node_in(n, 7), "P", t, 2, (Sym *[]){D, sym_mul(s, sym_const(s, 3), r->hid)},
                    "[num_directions, 3*hidden_size]");
    }

    Sym *ys[4] = {r->seq, D, r->batch, r->hid};
    if (r->layout) {
        ys[0] = r->batch;
        ys[1] = r->seq;
        ys[2] = D;
    }
    if (n->nout > 0 && n->out[0])
        ir_set_shape(c, n->out[0], t, 4, ys);
    for (int k = 1; k < n->nout; k++)
        if (n->out[k])
            ir_set_shape(c, n->out[k], t, 3, hs);
    /* state and gate sums: LSTM h, c, 4 gates; GRU h, 3 + 3 gates, r . h, r; RNN h, 1 gate */
    int64_t per = kind == RNN_LSTM ? 6 : kind == RNN_GRU ? 9 : 2;
    n->scratch = sym_mul(s, r->hid, sym_const(s, per * (int64_t)dtype_size(t)));
    n->priv = r;
}

/* `const T name[n] = {...};` for the alpha/beta lists; returns the name. */
static const char *rnn_literals(Emit *e, const char *stem, DType t, int64_t n, const double *v) {
    Buf b;
    buf_init_in(&b, emit_arena(e));
    for (int64_t i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", emit_literal(e, t, v[i]));
    const char *name = emit_tmp(e, stem);
    emit_line(e, "const %s %s[%lld] = {%s};", dtype_ctype(t), name, (long long)n, b.data);
    buf_free(&b);
    return name;
}

static const char *opt_ptr(Emit *e, Value *v, DType t, bool is_const) {
    if (v)
        return emit_ptr(e, v);
    return arena_printf(emit_arena(e), "(%s%s *)0", is_const ? "const " : "", dtype_ctype(t));
}

void emit_rnn(Compiler *c, Emit *e, Node *n) {
    (void)c;
    Rnn *r = n->priv;
    Value *x = n->in[0];
    DType t = x->dtype;
    static const char *const names[] = {"rnn_lstm", "rnn_gru", "rnn_rnn"};
    static const char *const fns[] = {"lstm", "gru", "rnn"};
    const char *sfx = emit_template(e, names[r->kind], t);
    const char *act = emit_int_array(e, "act", (int)r->nact, r->act);
    const char *al = rnn_literals(e, "alpha", t, r->nact, r->alpha);
    const char *be = rnn_literals(e, "beta", t, r->nact, r->beta);
    Arena *a = emit_arena(e);
    const char *ins = arena_printf(a, "%s, %s, %s, %s, %s, %s", emit_ptr(e, x),
                                   emit_ptr(e, n->in[1]), emit_ptr(e, n->in[2]),
                                   opt_ptr(e, node_in(n, 3), t, true),
                                   opt_ptr(e, node_in(n, 4), DT_INT32, true),
                                   opt_ptr(e, node_in(n, 5), t, true));
    if (r->kind == RNN_LSTM)
        ins = arena_printf(a, "%s, %s, %s", ins, opt_ptr(e, node_in(n, 6), t, true),
                           opt_ptr(e, node_in(n, 7), t, true));
    const char *outs = "";
    int nout = r->kind == RNN_LSTM ? 3 : 2;
    for (int k = 0; k < nout; k++)
        outs = arena_printf(a, "%s, %s", outs,
                            opt_ptr(e, k < n->nout ? n->out[k] : NULL, t, false));
    const char *sizes = arena_printf(a, "%s, %s, %s, %s", emit_sym(e, r->seq),
                                     emit_sym(e, r->batch), emit_sym(e, r->in),
                                     emit_sym(e, r->hid));
    const char *scratch = arena_printf(a, "(%s *)(void *)(ws + %s)",
                                       dtype_ctype(t),
                                       emit_sym(e, n->scratch_offset));
    const char *tail = arena_printf(a, "%s, %s, %s, %s", act, al, be, emit_literal(e, t, r->clip));
    if (r->kind != RNN_RNN)
        tail = arena_printf(a, "%s, %lld", tail, (long long)r->flag);
    emit_line(e, "%s_%s(%s%s, %s,", fns[r->kind], sfx, ins, outs, scratch);
    emit_line(e, "    %s, %lld, %lld, %s);", sizes, (long long)r->direction, (long long)r->layout,
              tail);
}
