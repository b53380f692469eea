/* matmul.c — op family: matrix products, MatMul and Gemm, on the GEMM kernel (templates/gemm.c).
 *
 * ONNX MatMul: numpy.matmul.  A[..., M, K] x B[..., K, N] -> Y[..., M, N]; the leading (batch)
 * dims broadcast like numpy; a 1-D A is promoted to [1, K] and a 1-D B to [K, 1], and the
 * promoted dim is removed from the result.
 * ONNX Gemm: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (M x K), B' = transB ? B^T : B
 * (K x N), C (optional) broadcast unidirectionally to [M, N].
 * Code: one gemm_T call per batch element; Gemm first copies the broadcast C into Y and lets
 * the kernel scale it by beta. */
#include "onnx2c.h"
#include <string.h>

static bool gemm_type_ok(DType t) {
    return t == DT_FLOAT || t == DT_DOUBLE || t == DT_INT32 || t == DT_INT64 || t == DT_UINT32 ||
           t == DT_UINT64;
}

static void require_type(Compiler *c, Node *n, Value *a, Value *b) {
    if (!gemm_type_ok(a->dtype))
        o2c_error(c, n, "element type %s is not supported", dtype_name(a->dtype));
    if (b->dtype != a->dtype)
        o2c_error(c, n, "input B has type %s but input A has type %s", dtype_name(b->dtype),
                  dtype_name(a->dtype));
}

/* ---- MatMul */

typedef struct MatMulPlan {
    Sym *m, *k, *n;
    int rb;          /* batch rank of the output */
    Sym **batch;     /* output batch dims */
    Sym **abatch;    /* A's batch dims aligned right to rb (1 where A has none) */
    Sym **bbatch;
} MatMulPlan;

static void infer_matmul(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    infer_require_inputs(c, n, 2, 2);
    Value *a = infer_in(c, n, 0), *b = infer_in(c, n, 1);
    require_type(c, n, a, b);
    if (a->rank < 1 || b->rank < 1)
        o2c_error(c, n, "inputs must have rank 1 or more (ranks %d and %d)", a->rank, b->rank);
    Sym *one = sym_const(s, 1);
    MatMulPlan *p = arena_alloc(c->arena, sizeof *p);
    int ra = a->rank, rb = b->rank;
    /* 1-D promotion */
    p->m = ra == 1 ? one : a->shape[ra - 2];
    p->k = a->shape[ra - 1];
    Sym *kb = rb == 1 ? b->shape[0] : b->shape[rb - 2];
    p->n = rb == 1 ? one : b->shape[rb - 1];
    int64_t ka, kbv;
    if (sym_get_const(p->k, &ka) && sym_get_const(kb, &kbv) && ka != kbv)
        o2c_error(c, n, "inner dimensions do not match: A has K = %lld, B has K = %lld",
                  (long long)ka, (long long)kbv);
    ir_constrain(c, n, 0, p->k, kb, "MatMul inner dimensions of A and B must match");
    if (sym_is_const(p->k) && !sym_is_const(kb))
        kb = p->k;
    int nba = ra > 2 ? ra - 2 : 0, nbb = rb > 2 ? rb - 2 : 0;
    Sym *batch[64];
    if (nba > 60 || nbb > 60)
        o2c_error(c, n, "rank is too large");
    p->rb = infer_broadcast(c, n, nba, a->shape, nbb, b->shape, batch);
    p->batch = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(p->rb + 1));
    p->abatch = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(p->rb + 1));
    p->bbatch = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(p->rb + 1));
    for (int i = 0; i < p->rb; i++) {
        p->batch[i] = batch[i];
        int ia = i - (p->rb - nba), ib = i - (p->rb - nbb);
        p->abatch[i] = ia >= 0 ? a->shape[ia] : one;
        p->bbatch[i] = ib >= 0 ? b->shape[ib] : one;
    }
    Sym *out[66];
    int r = 0;
    for (int i = 0; i < p->rb; i++)
        out[r++] = p->batch[i];
    if (ra != 1)
        out[r++] = p->m;
    if (rb != 1)
        out[r++] = p->n;
    ir_set_shape(c, n->out[0], a->dtype, r, out);
    n->priv = p;
}

/* Offset expression of batch element (i0, i1, ...) in an operand with batch dims `dims`
 * (broadcast dims, of size 1 against a larger output dim, are skipped). */
static const char *batch_offset(Emit *e, SymCtx *s, const MatMulPlan *p, Sym *const *dims,
                                Sym *mat) {
    Sym *one = sym_const(s, 1), *stride = mat;
    Buf b;
    buf_init(&b);
    for (int d = p->rb - 1; d >= 0; d--) {
        if (!(dims[d] == one && p->batch[d] != one)) {
            if (stride == one)
                buf_printf(&b, "%si%d", b.len ? " + " : "", d);
            else
                buf_printf(&b, "%si%d * %s", b.len ? " + " : "", d, emit_sym(e, stride));
        }
        stride = sym_mul(s, stride, dims[d]);
    }
    const char *r = arena_strdup(emit_arena(e), b.len ? b.data : "0");
    buf_free(&b);
    return r;
}

static void emit_matmul(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    MatMulPlan *p = n->priv;
    Value *a = n->in[0], *b = n->in[1], *y = n->out[0];
    const char *sfx = emit_template(e, "gemm", y->dtype);
    const char *M = emit_sym(e, p->m), *N = emit_sym(e, p->n), *K = emit_sym(e, p->k);
    for (int d = 0; d < p->rb; d++) {
        emit_line(e, "for (int64_t i%d = 0; i%d < %s; i%d++) {", d, d, emit_sym(e, p->batch[d]), d);
        emit_indent(e, 1);
    }
    const char *ao = batch_offset(e, s, p, p->abatch, sym_mul(s, p->m, p->k));
    const char *bo = batch_offset(e, s, p, p->bbatch, sym_mul(s, p->k, p->n));
    const char *yo = batch_offset(e, s, p, p->batch, sym_mul(s, p->m, p->n));
    const char *ct = dtype_ctype(y->dtype);
    emit_line(e, "gemm_%s(%s, %s, %s, %s + %s, %s, 0, %s + %s, %s, 0, %s + %s, %s, (%s)1, (%s)0);",
              sfx, M, N, K, emit_ptr(e, a), ao, K, emit_ptr(e, b), bo, N, emit_ptr(e, y), yo, N,
              ct, ct);
    for (int d = 0; d < p->rb; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}

/* ---- Gemm */

typedef struct GemmPlan {
    Sym *m, *k, *n;
    int trans_a, trans_b;
    float alpha, beta;
} GemmPlan;

static void infer_gemm(Compiler *c, Node *n) {
    infer_require_inputs(c, n, 2, 3);
    Value *a = infer_in(c, n, 0), *b = infer_in(c, n, 1), *cc = node_in(n, 2);
    require_type(c, n, a, b);
    if (a->rank != 2 || b->rank != 2)
        o2c_error(c, n, "A and B must be matrices (ranks %d and %d)", a->rank, b->rank);
    GemmPlan *p = arena_alloc(c->arena, sizeof *p);
    p->trans_a = attr_int(c, n, "transA", 0) != 0;
    p->trans_b = attr_int(c, n, "transB", 0) != 0;
    p->alpha = attr_float(c, n, "alpha", 1.0f);
    p->beta = attr_float(c, n, "beta", 1.0f);
    p->m = a->shape[p->trans_a ? 1 : 0];
    p->k = a->shape[p->trans_a ? 0 : 1];
    Sym *kb = b->shape[p->trans_b ? 1 : 0];
    p->n = b->shape[p->trans_b ? 0 : 1];
    int64_t ka, kbv;
    if (sym_get_const(p->k, &ka) && sym_get_const(kb, &kbv) && ka != kbv)
        o2c_error(c, n, "inner dimensions do not match: A' has K = %lld, B' has K = %lld",
                  (long long)ka, (long long)kbv);
    ir_constrain(c, n, 0, p->k, kb, "Gemm inner dimensions of A and B must match");
    Sym *out[2] = {p->m, p->n};
    if (cc) {
        if (cc->dtype != a->dtype)
            o2c_error(c, n, "input C has type %s but input A has type %s", dtype_name(cc->dtype),
                      dtype_name(a->dtype));
        if (cc->rank > 2)
            o2c_error(c, n, "input C has rank %d; it must broadcast to [M, N]", cc->rank);
        /* unidirectional: each dim of C (aligned right) is 1 or the dim of Y */
        for (int i = 0; i < cc->rank; i++) {
            Sym *dc = cc->shape[i], *dy = out[2 - cc->rank + i];
            int64_t vc, vy;
            if (sym_get_const(dc, &vc) && vc == 1)
                continue;
            if (sym_get_const(dc, &vc) && sym_get_const(dy, &vy) && vc != vy)
                o2c_error(c, n, "input C dim %d is %lld; it must be 1 or %lld to broadcast to "
                          "[M, N]", i, (long long)vc, (long long)vy);
            ir_constrain(c, n, 0, dc, dy, "Gemm input C dim %d must equal that of Y", i);
        }
    }
    ir_set_shape(c, n->out[0], a->dtype, 2, out);
    n->priv = p;
}

static void emit_gemm(Compiler *c, Emit *e, Node *n) {
    (void)c;
    GemmPlan *p = n->priv;
    Value *a = n->in[0], *b = n->in[1], *cc = node_in(n, 2), *y = n->out[0];
    const char *sfx = emit_template(e, "gemm", y->dtype);
    double beta = p->beta;
    if (cc && beta != 0) {
        emit_line(e, "/* Y = C, broadcast to [M, N] */");
        emit_elementwise(e, n, y, 1, &n->in[2], "$0");
    } else
        beta = 0;
    const char *M = emit_sym(e, p->m), *N = emit_sym(e, p->n), *K = emit_sym(e, p->k);
    emit_line(e, "gemm_%s(%s, %s, %s, %s, %s, %d, %s, %s, %d, %s, %s, %s, %s);", sfx, M, N, K,
              emit_ptr(e, a), p->trans_a ? M : K, p->trans_a, emit_ptr(e, b), p->trans_b ? K : N,
              p->trans_b, emit_ptr(e, y), N, emit_literal(e, y->dtype, p->alpha),
              emit_literal(e, y->dtype, beta));
}

const OpDef ops_matmul[] = {
    {"MatMul", NULL, infer_matmul, emit_matmul},
    {"Gemm", NULL, infer_gemm, emit_gemm},
    {NULL, NULL, NULL, NULL},
};
