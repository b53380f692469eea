/* loss.c — op family: training losses over class scores.
 *
 * ONNX NegativeLogLikelihoodLoss (opset 12+): input x [N, C, d1..dk], target [N, d1..dk] of
 * int32/int64, optional weight [C]:
 *   loss[n, d] = -x[n, target[n, d], d] * weight[target[n, d]]   (weight 1 when absent),
 *   and 0 (with weight 0) where target == ignore_index.
 *   reduction "none": loss, shape [N, d1..dk]; "sum": sum(loss); "mean" (default):
 *   sum(loss) / sum(weight[target]) over the targets not ignored.  Reduced outputs are scalars.
 * ONNX SoftmaxCrossEntropyLoss (opset 12+): scores, labels, weights with the same shapes and
 * options; log_prob = LogSoftmax(scores, axis 1) is the optional second output, and the loss is
 * NegativeLogLikelihoodLoss(log_prob, labels, weights).
 * Shapes: the spatial dims are flattened (D = d1 * ... * dk), so any k works; the target dims
 * must equal the input's (runtime constraints when symbolic).
 * A target outside [0, C) other than ignore_index is an error (ONNX: "shall be in range of
 * [0, C)"): NAME_run returns O2C_RUN_EINDEX before the node writes anything.
 * Code: templates/loss_nll.c (and templates/softmax_log.c for the log-probabilities, written to
 * the log_prob output or to the node's scratch when that output is absent). */
#include "onnx2c.h"
#include <string.h>

typedef struct Loss {
    Sym *n, *c, *d;  /* batch, classes, product of spatial dims */
    int reduction;   /* 0 none, 1 sum, 2 mean */
    int has_ignore;
    int64_t ignore;
} Loss;

/* The shared rule of both ops; sets output 0 and returns the plan. */
static Loss *infer_loss_common(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x = infer_in(c, n, 0), *t = infer_in(c, n, 1), *w = node_in(n, 2);
    if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE)
        o2c_error(c, n, "input type %s is not supported (float or double)", dtype_name(x->dtype));
    if (x->rank < 2)
        o2c_error(c, n, "input rank %d: expected [N, C, d1, ...] (rank >= 2)", x->rank);
    if (t->dtype != DT_INT32 && t->dtype != DT_INT64)
        o2c_error(c, n, "target type %s: expected int32 or int64", dtype_name(t->dtype));
    if (t->rank != x->rank - 1)
        o2c_error(c, n, "target rank %d: expected %d (the input's shape without C)", t->rank,
                  x->rank - 1);
    for (int i = 0; i < t->rank; i++) {
        Sym *want = x->shape[i == 0 ? 0 : i + 1];
        int64_t a, b;
        if (sym_get_const(t->shape[i], &a) && sym_get_const(want, &b) && a != b)
            o2c_error(c, n, "target dim %d is %lld, input dim %d is %lld", i, (long long)a,
                      i == 0 ? 0 : i + 1, (long long)b);
        ir_constrain(c, n, CK_EQ, t->shape[i], want, "target dim %d must match the input", i);
    }
    if (w) {
        if (w->dtype != x->dtype)
            o2c_error(c, n, "weight type %s differs from input type %s", dtype_name(w->dtype),
                      dtype_name(x->dtype));
        if (w->rank != 1)
            o2c_error(c, n, "weight rank %d: expected [C]", w->rank);
        ir_constrain(c, n, CK_EQ, w->shape[0], x->shape[1], "weight length must equal C");
    }
    Loss *p = arena_alloc(c->arena, sizeof *p);
    const char *red = attr_str(c, n, "reduction", "mean");
    if (!strcmp(red, "none"))
        p->reduction = 0;
    else if (!strcmp(red, "sum"))
        p->reduction = 1;
    else if (!strcmp(red, "mean"))
        p->reduction = 2;
    else
        o2c_error(c, n, "reduction '%s' is not none, sum or mean", red);
    p->has_ignore = node_attr(n, "ignore_index") != NULL;
    p->ignore = attr_int(c, n, "ignore_index", 0);
    p->n = x->shape[0];
    p->c = x->shape[1];
    p->d = sym_const(s, 1);
    for (int i = 2; i < x->rank; i++)
        p->d = sym_mul(s, p->d, x->shape[i]);
    if (n->nout < 1 || !n->out[0])
        o2c_error(c, n, "output 0 is required");
    if (p->reduction == 0)
        ir_set_shape(c, n->out[0], x->dtype, t->rank, t->shape);
    else
        ir_set_shape(c, n->out[0], x->dtype, 0, NULL);
    n->priv = p;
    return p;
}

void infer_nll(Compiler *c, Node *n) {
    if (n->nout > 1)
        o2c_error(c, n, "%d outputs, expected 1", n->nout);
    infer_loss_common(c, n);
}

void infer_sce(Compiler *c, Node *n) {
    if (n->nout > 2)
        o2c_error(c, n, "%d outputs, expected at most 2", n->nout);
    Loss *p = infer_loss_common(c, n);
    Value *x = n->in[0];
    if (n->nout > 1 && n->out[1])
        ir_set_shape(c, n->out[1], x->dtype, x->rank, x->shape);
    else /* log_prob in scratch */
        n->scratch = sym_mul(c->sym, sym_mul(c->sym, p->n, p->c),
                             sym_mul(c->sym, p->d,
                                     sym_const(c->sym, (int64_t)dtype_size(x->dtype))));
}

/* A target outside [0, C) that is not the ignore_index makes NAME_run return O2C_RUN_EINDEX
 * before the node writes anything. */
static void emit_target_check(Compiler *c, Emit *e, Node *n) {
    const Loss *p = n->priv;
    Value *t = n->in[1];
    const char *sfx = emit_template(e, "loss_nll", n->in[0]->dtype);
    emit_line(e, "if (nll_check_%s(%s, %d, %s, %s, %d, %s))", sfx, emit_ptr(e, t),
              t->dtype == DT_INT32, emit_sym(e, sym_mul(c->sym, p->n, p->d)),
              emit_sym(e, p->c), p->has_ignore, emit_int(e, p->ignore));
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}

/* One call of the NLL kernel on the log-probabilities `lp`. */
static void emit_nll_call(Emit *e, Node *n, const char *lp) {
    const Loss *p = n->priv;
    Value *t = n->in[1], *w = node_in(n, 2);
    const char *sfx = emit_template(e, "loss_nll", n->in[0]->dtype);
    emit_line(e, "nll_loss_%s(%s, %s, %d, %s, %s, %s, %s, %s, %d, %s, %d);", sfx, lp,
              emit_ptr(e, t), t->dtype == DT_INT32, w ? emit_ptr(e, w) : "0",
              emit_ptr(e, n->out[0]), emit_sym(e, p->n), emit_sym(e, p->c), emit_sym(e, p->d),
              p->has_ignore, emit_int(e, p->ignore), p->reduction);
}

void emit_nll(Compiler *c, Emit *e, Node *n) {
    emit_target_check(c, e, n);
    emit_nll_call(e, n, emit_ptr(e, n->in[0]));
}

void emit_sce(Compiler *c, Emit *e, Node *n) {
    const Loss *p = n->priv;
    emit_target_check(c, e, n);
    Value *x = n->in[0];
    const char *ct = dtype_ctype(x->dtype);
    const char *lp;
    if (n->nout > 1 && n->out[1])
        lp = emit_ptr(e, n->out[1]);
    else {
        lp = emit_tmp(e, "lp");
        emit_line(e, "%s *const %s = (%s *)(void *)(ws + %s);", ct, lp, ct,
                  emit_sym(e, n->scratch_offset));
    }
    const char *sfx = emit_template(e, "softmax_log", x->dtype);
    emit_line(e, "logsoftmax_%s(%s, %s, %s, %s, %s);", sfx, emit_ptr(e, x), lp, emit_sym(e, p->n),
              emit_sym(e, p->c), emit_sym(e, p->d));
    emit_nll_call(e, n, lp);
}
