/* norm.c — op family: normalizations.
 *
 * ONNX operators and the formulas they implement (x seen as [N, C, inner] unless said):
 *   BatchNormalization     inference: y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]
 *                          training_mode = 1 (opset 14+): the same with the batch mean / population
 *                          variance of channel c, and outputs running_mean = mean * momentum +
 *                          batch_mean * (1 - momentum) (likewise running_var)
 *   InstanceNormalization  y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c], mean and var
 *                          over each (n, c) plane
 *   LayerNormalization     x seen as [outer, n] with n = prod(dims[axis:]): y = (x - mean) *
 *                          InvStdDev * Scale + B per row; optional outputs Mean and InvStdDev
 *                          = 1 / sqrt(var + epsilon), of shape dims[:axis] + [1] * (rank - axis)
 *   LRN                    y = x / (bias + alpha / size * sum of x^2 over the channel window
 *                          [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta
 *   LpNormalization        x seen as [outer, len, inner] around `axis`: y = x / ||x||_p along
 *                          axis (p 1 or 2), and 0 where that norm is 0
 * Shapes: y has x's shape and type (float or double; the parameters must have that type too).
 * Code: one kernel call per node from templates/norm_*.c with the sizes as run-time Syms. */
#include "onnx2c.h"
#include <string.h>

/* What emit needs: the view of x as [N, C, inner] (or [outer, n] for LayerNormalization). */
typedef struct NormPriv {
    Sym *N, *C, *inner;
    Sym *scale_n, *bias_n; /* LayerNormalization: elements of Scale / B */
    float eps;
    bool training;         /* BatchNormalization training_mode */
} NormPriv;

static Value *float_input(Compiler *c, Node *n, int i) {
    Value *x = infer_in(c, n, i);
    if (!dtype_is_float(x->dtype))
        o2c_error(c, n, "input %d has type %s: only float and double are supported", i,
                  dtype_name(x->dtype));
    return x;
}

/* Checks that parameter input i is a 1-D tensor of C elements of x's type. */
static void per_channel(Compiler *c, Node *n, int i, const Value *x, Sym *C) {
    Value *v = infer_in(c, n, i);
    if (v->dtype != x->dtype)
        o2c_error(c, n, "input %d has type %s but input 0 has type %s", i, dtype_name(v->dtype),
                  dtype_name(x->dtype));
    if (v->rank != 1)
        o2c_error(c, n, "input %d must be 1-D (one value per channel), got rank %d", i, v->rank);
    ir_constrain(c, n, CK_EQ, v->shape[0], C, "input %d has one value per channel (dim 1 of input 0)",
                 i);
}

static Value *out_opt(const Node *n, int i) { return i < n->nout ? n->out[i] : NULL; }

static const char *ptr_or_null(Emit *e, Value *v) { return v ? emit_ptr(e, v) : "NULL"; }

/* N, C, inner of x (rank >= 2). */
static NormPriv *nci(Compiler *c, Node *n, const Value *x) {
    if (x->rank < 2)
        o2c_error(c, n, "input rank %d: expected at least 2 (N x C x ...)", x->rank);
    NormPriv *p = arena_alloc(c->arena, sizeof *p);
    p->N = x->shape[0];
    p->C = x->shape[1];
    p->inner = sym_prod(c->sym, x->shape, 2, x->rank);
    n->priv = p;
    return p;
}

/* ---- BatchNormalization (opsets 1-15) */

void infer_batchnorm(Compiler *c, Node *n) {
    Value *x = float_input(c, n, 0);
    NormPriv *p = nci(c, n, x);
    for (int i = 1; i < 5; i++)
        per_channel(c, n, i, x, p->C);
    p->eps = attr_float(c, n, "epsilon", 1e-5f);
    if (n->opset < 9 && attr_int(c, n, "spatial", 1) != 1)
        o2c_error(c, n, "spatial = 0 (per-activation statistics) is not supported");
    bool extra = out_opt(n, 1) || out_opt(n, 2) || out_opt(n, 3) || out_opt(n, 4);
    if (n->opset >= 14) {
        int64_t tm = attr_int(c, n, "training_mode", 0);
        if (tm != 0 && tm != 1)
            o2c_error(c, n, "training_mode must be 0 or 1, got %lld", (long long)tm);
        p->training = tm == 1;
        if (p->training) /* (read only where it is used, as before) */
            n->op_f[0] = attr_float(c, n, "momentum", 0.9f);
        if (n->nout > 3)
            o2c_error(c, n, "expects at most 3 outputs, got %d", n->nout);
        if (extra && !p->training)
            o2c_error(c, n, "outputs running_mean and running_var need training_mode = 1");
    } else if (extra) {
        o2c_error(c, n, "training outputs (mean, var, saved_mean, saved_var) of opset %d are not "
                        "supported: only inference",
                  n->opset);
    }
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
    for (int i = 1; i < 3; i++)
        if (out_opt(n, i))
            ir_set_shape(c, n->out[i], x->dtype, 1, &p->C);
}

void emit_batchnorm(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const NormPriv *p = n->priv;
    DType t = n->in[0]->dtype;
    const char *x = emit_ptr(e, n->in[0]), *s = emit_ptr(e, n->in[1]), *b = emit_ptr(e, n->in[2]),
               *m = emit_ptr(e, n->in[3]), *v = emit_ptr(e, n->in[4]), *y = emit_ptr(e, n->out[0]);
    const char *dims = arena_printf(emit_arena(e), "%s, %s, %s", emit_sym(e, p->N),
                                    emit_sym(e, p->C), emit_sym(e, p->inner));
    const char *eps = emit_literal(e, t, p->eps);
    if (p->training) {
        const char *sfx = emit_template(e, "norm_batch_train", t);
        float momentum = n->op_f[0];
        emit_line(e, "batchnorm_train_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s);", sfx, x, s,
                  b, m, v, y, ptr_or_null(e, out_opt(n, 1)), ptr_or_null(e, out_opt(n, 2)), dims,
                  eps, emit_literal(e, t, momentum));
    } else {
        const char *sfx = emit_template(e, "norm_batch", t);
        emit_line(e, "batchnorm_%s(%s, %s, %s, %s, %s, %s, %s, %s);", sfx, x, s, b, m, v, y, dims,
                  eps);
    }
}

/* ---- InstanceNormalization (opsets 1, 6) */

void infer_instancenorm(Compiler *c, Node *n) {
    Value *x = float_input(c, n, 0);
    NormPriv *p = nci(c, n, x);
    per_channel(c, n, 1, x, p->C);
    per_channel(c, n, 2, x, p->C);
    p->eps = attr_float(c, n, "epsilon", 1e-5f);
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_instancenorm(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const NormPriv *p = n->priv;
    DType t = n->in[0]->dtype;
    const char *sfx = emit_template(e, "norm_instance", t);
    emit_line(e, "instancenorm_%s(%s, %s, %s, %s, %s, %s, %s, %s);", sfx, emit_ptr(e, n->in[0]),
              emit_ptr(e, n->in[1]), emit_ptr(e, n->in[2]), emit_ptr(e, n->out[0]),
              emit_sym(e, p->N), emit_sym(e, p->C), emit_sym(e, p->inner),
              emit_literal(e, t, p->eps));
}

/* ---- LayerNormalization (opset 17) */

/* Scale and B broadcast to the normalized shape dims[axis:]; the kernel supports a parameter
 * whose shape (leading 1s dropped) is a suffix of it.  Returns its element count. */
static Sym *layer_param(Compiler *c, Node *n, int i, const Value *x, int axis) {
    Value *v = node_in(n, i);
    if (v->dtype != x->dtype)
        o2c_error(c, n, "input %d has type %s but input 0 has type %s", i, dtype_name(v->dtype),
                  dtype_name(x->dtype));
    Sym *one = sym_const(c->sym, 1);
    int lead = 0;
    while (lead < v->rank && v->shape[lead] == one)
        lead++;
    int k = v->rank - lead;
    if (k > x->rank - axis)
        o2c_error(c, n, "input %d has rank %d: more dims than the normalized shape (rank %d)", i,
                  v->rank, x->rank - axis);
    for (int d = 0; d < k; d++) {
        Sym *pd = v->shape[lead + d], *xd = x->shape[x->rank - k + d];
        int64_t a, b;
        if (pd == xd)
            continue;
        if (sym_get_const(pd, &a) && sym_get_const(xd, &b))
            o2c_error(c, n, "input %d dim %d is %lld: unsupported broadcast to the normalized "
                            "dim %lld (must match a suffix of the normalized shape)",
                      i, lead + d, (long long)a, (long long)b);
        ir_constrain(c, n, CK_EQ, pd, xd, "input %d dim %d equals input 0 dim %d", i,
                     lead + d, x->rank - k + d);
    }
    return sym_prod(c->sym, v->shape, 0, v->rank);
}

void infer_layernorm(Compiler *c, Node *n) {
    Value *x = float_input(c, n, 0);
    if (x->rank < 1)
        o2c_error(c, n, "input is a scalar: LayerNormalization needs rank >= 1");
    int axis = infer_axis(c, n, attr_int(c, n, "axis", -1), x->rank);
    NormPriv *p = arena_alloc(c->arena, sizeof *p);
    n->priv = p;
    p->N = sym_prod(c->sym, x->shape, 0, axis);
    p->inner = sym_prod(c->sym, x->shape, axis, x->rank);
    p->eps = attr_float(c, n, "epsilon", 1e-5f);
    p->scale_n = layer_param(c, n, 1, x, axis);
    if (node_in(n, 2))
        p->bias_n = layer_param(c, n, 2, x, axis);
    if (n->nout > 3)
        o2c_error(c, n, "expects at most 3 outputs, got %d", n->nout);
    int64_t stash = attr_int(c, n, "stash_type", DT_FLOAT);
    if (stash != DT_FLOAT && stash != DT_DOUBLE)
        o2c_error(c, n, "stash_type %lld is not supported (float or double)", (long long)stash);
    /* Mean and InvStdDev have the stash type; the kernel computes in x's type. */
    if ((out_opt(n, 1) || out_opt(n, 2)) && stash != (int64_t)x->dtype)
        o2c_error(c, n, "Mean/InvStdDev of stash_type %s with input type %s are not supported",
                  dtype_name((DType)stash), dtype_name(x->dtype));
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
    Sym **st = arena_alloc(c->arena, sizeof(Sym *) * (size_t)x->rank);
    for (int d = 0; d < x->rank; d++)
        st[d] = d < axis ? x->shape[d] : sym_const(c->sym, 1);
    for (int i = 1; i < 3; i++)
        if (out_opt(n, i))
            ir_set_shape(c, n->out[i], (DType)stash, x->rank, st);
}

void emit_layernorm(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const NormPriv *p = n->priv;
    DType t = n->in[0]->dtype;
    Value *b = node_in(n, 2);
    const char *sfx = emit_template(e, "norm_layer", t);
    emit_line(e, "layernorm_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s);", sfx,
              emit_ptr(e, n->in[0]), emit_ptr(e, n->in[1]), emit_sym(e, p->scale_n),
              ptr_or_null(e, b), b ? emit_sym(e, p->bias_n) : "1", emit_ptr(e, n->out[0]),
              ptr_or_null(e, out_opt(n, 1)), ptr_or_null(e, out_opt(n, 2)), emit_sym(e, p->N),
              emit_sym(e, p->inner), emit_literal(e, t, p->eps));
}

/* ---- LRN (opsets 1, 13) */

void infer_lrn(Compiler *c, Node *n) {
    Value *x = float_input(c, n, 0);
    nci(c, n, x);
    if (!node_attr(n, "size"))
        o2c_error(c, n, "attribute 'size' is required");
    if (attr_int(c, n, "size", 1) < 1)
        o2c_error(c, n, "size must be positive, got %lld", (long long)attr_int(c, n, "size", 1));
    n->op_i[0] = attr_int(c, n, "size", 1);
    n->op_f[0] = attr_float(c, n, "alpha", 1e-4f);
    n->op_f[1] = attr_float(c, n, "beta", 0.75f);
    n->op_f[2] = attr_float(c, n, "bias", 1.0f);
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_lrn(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const NormPriv *p = n->priv;
    DType t = n->in[0]->dtype;
    const char *sfx = emit_template(e, "norm_lrn", t);
    emit_line(e, "lrn_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s);", sfx, emit_ptr(e, n->in[0]),
              emit_ptr(e, n->out[0]), emit_sym(e, p->N), emit_sym(e, p->C), emit_sym(e, p->inner),
              emit_int(e, n->op_i[0]), emit_literal(e, t, n->op_f[0]),
              emit_literal(e, t, n->op_f[1]), emit_literal(e, t, n->op_f[2]));
}

/* ---- LpNormalization: the worked example of docs/writing-ops.md */

void infer_lpnorm(Compiler *c, Node *n) {
    Value *x = float_input(c, n, 0);
    int axis = infer_axis(c, n, attr_int(c, n, "axis", -1), x->rank);
    int64_t p = attr_int(c, n, "p", 2);
    if (p != 1 && p != 2)
        o2c_error(c, n, "p = %lld: must be 1 or 2", (long long)p);
    NormPriv *np = arena_alloc(c->arena, sizeof *np);
    np->N = sym_prod(c->sym, x->shape, 0, axis);
    np->C = x->shape[axis];
    np->inner = sym_prod(c->sym, x->shape, axis + 1, x->rank);
    n->priv = np;
    n->op_i[0] = p;
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_lpnorm(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const NormPriv *np = n->priv;
    const char *sfx = emit_template(e, "norm_lp", n->in[0]->dtype);
    emit_line(e, "lpnorm_%s(%s, %s, %s, %s, %s, %d);", sfx, emit_ptr(e, n->in[0]),
              emit_ptr(e, n->out[0]), emit_sym(e, np->N), emit_sym(e, np->C),
              emit_sym(e, np->inner), (int)n->op_i[0]);
}
