/* training.c — op family: the optimizers of domain ai.onnx.preview.training (opset 1).
 *
 * ONNX Adagrad, Adam, Momentum: one step of training for N tensors at once.  Inputs: R (the
 * learning rate, a float or double scalar), T (the update count, an int64 scalar), then N
 * tensors X, N gradients G, and the optimizer's N histories per kind (Adagrad: H; Adam: V, H;
 * Momentum: V), X_i, G_i and its histories of one shape (each i its own) and one type, float or
 * double, for every tensor.  Outputs: N new X, then N new values per history kind, in the
 * order of the inputs.  Elementwise per tensor, with the attributes below:
 *
 *   Adagrad (decay_factor 0, epsilon 1e-6, norm_coefficient 0):
 *     r = R / (1 + T * decay_factor)
 *     g = norm_coefficient * X + G;  H_new = H + g * g
 *     X_new = X - r * g / (sqrt(H_new) + epsilon)
 *   Adam (alpha 0.9, beta 0.999, epsilon 1e-6, norm_coefficient 0, norm_coefficient_post 0):
 *     g = norm_coefficient * X + G
 *     V_new = alpha * V + (1 - alpha) * g;  H_new = beta * H + (1 - beta) * (g * g)
 *     r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
 *     X_new = (1 - norm_coefficient_post) * (X - r * (V_new / (sqrt(H_new) + epsilon)))
 *   Momentum (alpha, beta, mode, norm_coefficient all required):
 *     g = norm_coefficient * X + G;  V_new = alpha * V + (T > 0 ? beta : 1) * g
 *     standard: X_new = X - R * V_new;  nesterov: X_new = X - R * (g + alpha * V_new)
 *
 * Precision as ONNX's reference (numpy): the scalar learning-rate arithmetic in double, then
 * rounded to the tensors' type; every tensor operation in the tensors' type, with the
 * coefficients (1 - alpha as well) rounded to it, in the reference's order of operations.
 * Code: one loop per tensor, all of an element's reads before its writes. */
#include "onnx2c.h"
#include <string.h>

typedef enum { OPT_ADAGRAD, OPT_ADAM, OPT_MOMENTUM } OptKind;

typedef struct Optim {
    OptKind kind;
    int nt;       /* N: the tensors optimized */
    int nhist;    /* histories per tensor: Adagrad 1 (H), Adam 2 (V, H), Momentum 1 (V) */
    bool nesterov;
    double decay, eps, norm, norm_post, alpha, beta;
} Optim;

/* A scalar input (R or T): one element of one of the types given. */
static void need_scalar(Compiler *c, Node *n, int i, const char *what, DType t1, DType t2) {
    Value *v = infer_in(c, n, i);
    if (v->dtype != t1 && v->dtype != t2)
        o2c_error(c, n, "%s has type %s: expected %s%s%s", what, dtype_name(v->dtype),
                  dtype_name(t1), t2 != t1 ? " or " : "", t2 != t1 ? dtype_name(t2) : "");
    ir_constrain(c, n, CK_EQ, ir_numel(c, v), sym_const(c->sym, 1), "%s must be a scalar (one "
                 "element)", what);
}

static const char *const hist_names[3][2] = {{"H", ""}, {"V", "H"}, {"V", ""}};

/* The rule the three share: counts, types and shapes of the inputs; the outputs' shapes. */
static void infer_optimizer(Compiler *c, Node *n, Optim *p) {
    int groups = 2 + p->nhist; /* X, G, histories */
    int nvar = n->nin - 2;
    if (nvar < groups || nvar % groups)
        o2c_error(c, n, "%d inputs: expected R, T, then N tensors X, N gradients G%s%s%s%s "
                  "(2 + %d N inputs)", n->nin, p->nhist ? " and N " : "",
                  hist_names[p->kind][0], p->nhist > 1 ? " and N " : "",
                  p->nhist > 1 ? hist_names[p->kind][1] : "", groups);
    p->nt = nvar / groups;
    if (n->nout != (1 + p->nhist) * p->nt)
        o2c_error(c, n, "%d outputs: expected %d (for N = %d tensor%s: N new X%s%s%s%s)",
                  n->nout, (1 + p->nhist) * p->nt, p->nt, p->nt > 1 ? "s" : "",
                  p->nhist ? ", N new " : "",
                  hist_names[p->kind][0], p->nhist > 1 ? ", N new " : "",
                  p->nhist > 1 ? hist_names[p->kind][1] : "");
    need_scalar(c, n, 0, "R (the learning rate)", DT_FLOAT, DT_DOUBLE);
    need_scalar(c, n, 1, "T (the update count)", DT_INT64, DT_INT64);
    Value *x0 = infer_in(c, n, 2);
    if (x0->dtype != DT_FLOAT && x0->dtype != DT_DOUBLE)
        o2c_error(c, n, "input 2 has type %s: the optimized tensors are float or double",
                  dtype_name(x0->dtype));
    for (int i = 0; i < p->nt; i++) {
        Value *x = infer_in(c, n, 2 + i);
        for (int k = 0; k < groups; k++) {
            int at = 2 + k * p->nt + i;
            Value *v = infer_in(c, n, at);
            if (v->dtype != x0->dtype)
                o2c_error(c, n, "input %d has type %s but input 2 has type %s (one type for "
                          "every tensor)", at, dtype_name(v->dtype), dtype_name(x0->dtype));
            if (v->rank != x->rank)
                o2c_error(c, n, "input %d has rank %d but its tensor X (input %d) has rank %d",
                          at, v->rank, 2 + i, x->rank);
            for (int d = 0; d < x->rank; d++)
                ir_constrain(c, n, CK_EQ, v->shape[d], x->shape[d], "input %d dimension %d "
                             "must equal that of its tensor X (input %d)", at, d, 2 + i);
        }
        for (int k = 0; k <= p->nhist; k++) {
            Value *y = n->out[k * p->nt + i];
            if (y)
                ir_set_shape(c, y, x->dtype, x->rank, x->shape);
        }
    }
    n->priv = p;
}

static Optim *new_optim(Compiler *c, OptKind kind, int nhist) {
    Optim *p = arena_alloc(c->arena, sizeof *p);
    p->kind = kind;
    p->nhist = nhist;
    return p;
}

void infer_adagrad(Compiler *c, Node *n) {
    Optim *p = new_optim(c, OPT_ADAGRAD, 1);
    p->decay = attr_float(c, n, "decay_factor", 0.0f);
    p->eps = attr_float(c, n, "epsilon", 1e-6f);
    p->norm = attr_float(c, n, "norm_coefficient", 0.0f);
    infer_optimizer(c, n, p);
}

void infer_adam(Compiler *c, Node *n) {
    Optim *p = new_optim(c, OPT_ADAM, 2);
    p->alpha = attr_float(c, n, "alpha", 0.9f);
    p->beta = attr_float(c, n, "beta", 0.999f);
    p->eps = attr_float(c, n, "epsilon", 1e-6f);
    p->norm = attr_float(c, n, "norm_coefficient", 0.0f);
    p->norm_post = attr_float(c, n, "norm_coefficient_post", 0.0f);
    infer_optimizer(c, n, p);
}

void infer_momentum(Compiler *c, Node *n) {
    Optim *p = new_optim(c, OPT_MOMENTUM, 1);
    static const char *const req[] = {"alpha", "beta", "mode", "norm_coefficient"};
    for (int i = 0; i < 4; i++)
        if (!node_attr(n, req[i]))
            o2c_error(c, n, "attribute '%s' is required", req[i]);
    p->alpha = attr_float(c, n, "alpha", 0.0f);
    p->beta = attr_float(c, n, "beta", 0.0f);
    p->norm = attr_float(c, n, "norm_coefficient", 0.0f);
    const char *mode = attr_str(c, n, "mode", "standard");
    if (!strcmp(mode, "nesterov"))
        p->nesterov = true;
    else if (strcmp(mode, "standard"))
        o2c_error(c, n, "mode '%s' is not supported (standard or nesterov)", mode);
    infer_optimizer(c, n, p);
}

/* The coefficients are literals of the tensors' type: rounded to it, as numpy rounds a Python
 * float against a float32 array. */
void emit_optimizer(Compiler *c, Emit *e, Node *n) {
    const Optim *p = n->priv;
    DType t = n->in[2]->dtype;
    const char *ct = dtype_ctype(t), *sq = t == DT_FLOAT ? "sqrtf" : "sqrt";
    const char *R = emit_ptr(e, n->in[0]), *T = emit_ptr(e, n->in[1]);
    /* the learning rate of this step, in double (numpy's float64 scalars), then the type's */
    emit_line(e, "const double step = (double)%s[0];", T);
    switch (p->kind) {
    case OPT_ADAGRAD:
        emit_line(e, "const %s r = (%s)((double)%s[0] / (1.0 + step * %s));", ct, ct, R,
                  emit_literal(e, DT_DOUBLE, p->decay));
        break;
    case OPT_ADAM:
        emit_line(e, "const %s r = (%s)(step > 0 ? (double)%s[0] * sqrt(1.0 - pow(%s, step)) / "
                  "(1.0 - pow(%s, step)) : (double)%s[0]);", ct, ct, R,
                  emit_literal(e, DT_DOUBLE, p->beta), emit_literal(e, DT_DOUBLE, p->alpha), R);
        break;
    case OPT_MOMENTUM:
        emit_line(e, "const %s r = (%s)%s[0];", ct, ct, R);
        emit_line(e, "const %s beta = step > 0 ? %s : %s;", ct, emit_literal(e, t, p->beta),
                  emit_literal(e, t, 1));
        break;
    }
    int nt = p->nt;
    for (int i = 0; i < nt; i++) {
        Value *x = n->in[2 + i], *g = n->in[2 + nt + i];
        Value *h1 = n->in[2 + 2 * nt + i], *h2 = p->nhist > 1 ? n->in[2 + 3 * nt + i] : NULL;
        Value *yx = n->out[i], *y1 = n->out[nt + i], *y2 = p->nhist > 1 ? n->out[2 * nt + i] : NULL;
        emit_line(e, "/* tensor %d: %s */", i + 1, emit_comment_text(e, x->name));
        emit_line(e, "for (int64_t i = 0; i < %s; i++) {", emit_sym(e, ir_numel(c, x)));
        emit_indent(e, 1);
        emit_line(e, "const %s x = %s[i], g = %s * x + %s[i];", ct, emit_ptr(e, x),
                  emit_literal(e, t, p->norm), emit_ptr(e, g));
        const char *xnew = NULL;
        switch (p->kind) {
        case OPT_ADAGRAD:
            emit_line(e, "const %s h = %s[i] + g * g;", ct, emit_ptr(e, h1));
            xnew = arena_printf(c->arena, "x - r * g / (%s(h) + %s)", sq,
                                emit_literal(e, t, p->eps));
            if (y1)
                emit_line(e, "%s[i] = h;", emit_ptr(e, y1));
            break;
        case OPT_ADAM:
            emit_line(e, "const %s v = %s * %s[i] + %s * g;", ct, emit_literal(e, t, p->alpha),
                      emit_ptr(e, h1), emit_literal(e, t, 1.0 - p->alpha));
            emit_line(e, "const %s h = %s * %s[i] + %s * (g * g);", ct, emit_literal(e, t, p->beta),
                      emit_ptr(e, h2), emit_literal(e, t, 1.0 - p->beta));
            xnew = arena_printf(c->arena, "%s * (x - r * (v / (%s(h) + %s)))",
                                emit_literal(e, t, 1.0 - p->norm_post), sq,
                                emit_literal(e, t, p->eps));
            if (y1)
                emit_line(e, "%s[i] = v;", emit_ptr(e, y1));
            if (y2)
                emit_line(e, "%s[i] = h;", emit_ptr(e, y2));
            break;
        case OPT_MOMENTUM:
            emit_line(e, "const %s v = %s * %s[i] + beta * g;", ct, emit_literal(e, t, p->alpha),
                      emit_ptr(e, h1));
            xnew = !p->nesterov ? "x - r * v"
                                : arena_printf(c->arena, "x - r * (g + %s * v)",
                                               emit_literal(e, t, p->alpha));
            if (y1)
                emit_line(e, "%s[i] = v;", emit_ptr(e, y1));
            break;
        }
        if (yx)
            emit_line(e, "%s[i] = %s;", emit_ptr(e, yx), xnew);
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}
