/* softmax.c — op family: Softmax, LogSoftmax, Hardmax.
 *
 * ONNX, opset 13+: the op works along one axis (attribute `axis`, default -1):
 *   Softmax     y = exp(x - max) / sum(exp(x - max))
 *   LogSoftmax  y = (x - max) - log(sum(exp(x - max)))
 *   Hardmax     y = 1 at the first maximum along the axis, else 0
 * Before opset 13 the input is coerced to 2-D [prod(dims[0:axis]), prod(dims[axis:])] (default
 * axis 1) and the op works along the second of those dims.
 * Shapes: y has x's shape and type (float or double).
 * Code: the tensor is seen as [outer, n, inner] (n the reduced size, inner the stride along it;
 * inner = 1 in the coerced form); one kernel call per node from templates/softmax_*.c, with the
 * sizes as run-time Syms so symbolic dims stay symbolic; with OpenMP, one call per thread on
 * its rows of the outer dim. */
#include "onnx2c.h"
#include <string.h>

typedef struct SoftmaxPriv {
    Sym *outer, *n, *inner;
} SoftmaxPriv;

void infer_softmax(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0);
    if (!dtype_is_float(x->dtype))
        o2c_error(c, n, "input type %s is not supported (float or double)", dtype_name(x->dtype));
    bool coerce = n->opset < 13;
    int64_t a = attr_int(c, n, "axis", coerce ? 1 : -1);
    if (x->rank == 0)
        o2c_error(c, n, "input is a scalar: %s needs rank >= 1", n->op_type);
    int axis = infer_axis(c, n, a, x->rank);
    SoftmaxPriv *p = arena_alloc(c->arena, sizeof *p);
    p->outer = sym_prod(c->sym, x->shape, 0, axis);
    if (coerce) {
        p->n = sym_prod(c->sym, x->shape, axis, x->rank);
        p->inner = sym_const(c->sym, 1);
    } else {
        p->n = x->shape[axis];
        p->inner = sym_prod(c->sym, x->shape, axis + 1, x->rank);
    }
    n->priv = p;
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_softmax(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const SoftmaxPriv *p = n->priv;
    const char *tmpl = "softmax_exp", *fn = "softmax";
    if (n->op->variant == OPV_LOGSOFTMAX)
        tmpl = "softmax_log", fn = "logsoftmax";
    else if (n->op->variant == OPV_HARDMAX)
        tmpl = "softmax_hard", fn = "hardmax";
    const char *sfx = emit_template(e, tmpl, n->in[0]->dtype);
    const char *x = emit_ptr(e, n->in[0]), *y = emit_ptr(e, n->out[0]);
    const char *outer = emit_sym(e, p->outer), *len = emit_sym(e, p->n);
    const char *inner = emit_sym(e, p->inner);
    /* Built with OpenMP, enough work (2^15 elements, about 20 us on one core) goes to the
     * threads by rows of the outer dim, each its share (attention's [8, 128, 128] on 2
     * threads: one thread took 0.078 ms, with the MatMul before it split by rows) */
    emit_line(e, "#ifdef _OPENMP");
    emit_line(e, "if (o2c_par((double)(%s) * (double)(%s) * (double)(%s) >= 32768.0 && %s > 1)) {",
              outer, len, inner, outer);
    emit_line(e, "#pragma omp parallel");
    emit_line(e, "    {");
    emit_line(e, "        int64_t lo, hi;");
    emit_line(e, "        o2c_share(%s, &lo, &hi);", outer);
    emit_line(e, "        %s_%s(%s + lo * (%s) * (%s), %s + lo * (%s) * (%s), hi - lo, %s, %s);", fn,
              sfx, x, len, inner, y, len, inner, len, inner);
    emit_line(e, "    }");
    emit_line(e, "} else");
    emit_line(e, "#endif");
    emit_line(e, "%s_%s(%s, %s, %s, %s, %s);", fn, sfx, x, y, outer, len, inner);
}
