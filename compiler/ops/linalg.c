/* linalg.c — op family: linear algebra on batches of matrices.
 *
 * ONNX: Det (opset 11): x of shape [*, M, M] (float or double) gives y of shape [*], the
 * determinant of each matrix.  M may be symbolic; the two trailing dims must be equal (a
 * runtime check when they are not both constants).
 * Code: templates/linalg_det.c, LU decomposition with partial pivoting in double precision,
 * using M * M doubles of node scratch. */
#include "onnx2c.h"

void infer_det(Compiler *c, Node *n) {
    if (n->nout != 1 || !n->out[0])
        o2c_error(c, n, "expected exactly one output");
    Value *x = infer_in(c, n, 0);
    if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE)
        o2c_error(c, n, "input type %s is not supported (float or double)", dtype_name(x->dtype));
    if (x->rank < 2)
        o2c_error(c, n, "input rank %d: expected [*, M, M] (rank >= 2)", x->rank);
    Sym *r = x->shape[x->rank - 2], *m = x->shape[x->rank - 1];
    int64_t a, b;
    if (sym_get_const(r, &a) && sym_get_const(m, &b) && a != b)
        o2c_error(c, n, "input is [.., %lld, %lld]: Det needs square matrices", (long long)a,
                  (long long)b);
    ir_constrain(c, n, CK_EQ, r, m, "Det needs square matrices (the last two dims must be equal)");
    ir_set_shape(c, n->out[0], x->dtype, x->rank - 2, x->shape);
    n->scratch = sym_mul(c->sym, sym_mul(c->sym, m, m), sym_const(c->sym, (int64_t)sizeof(double)));
}

void emit_det(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0];
    Sym *batch = sym_const(c->sym, 1);
    for (int i = 0; i < x->rank - 2; i++)
        batch = sym_mul(c->sym, batch, x->shape[i]);
    const char *sfx = emit_template(e, "linalg_det", x->dtype);
    emit_line(e, "det_%s(%s, %s, %s, %s, (double *)(void *)(ws + %s));", sfx, emit_ptr(e, x),
              emit_ptr(e, n->out[0]), emit_sym(e, batch), emit_sym(e, x->shape[x->rank - 1]),
              emit_sym(e, n->scratch_offset));
}
