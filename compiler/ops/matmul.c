/* matmul.c — op family: matrix products, MatMul and Gemm, on the GEMM kernel (templates/gemm.c).
 *
 * ONNX MatMul: numpy.matmul.  A[..., M, K] x B[..., K, N] -> Y[..., M, N]; the leading (batch)
 * dims broadcast like numpy; a 1-D A is promoted to [1, K] and a 1-D B to [K, 1], and the
 * promoted dim is removed from the result.
 * ONNX Gemm: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (M x K), B' = transB ? B^T : B
 * (K x N), C (optional) broadcast unidirectionally to [M, N].
 * Code: one gemm_T call per batch element on the engine of templates/gemm.c; when B has no
 * batch dims, A's batch dims fold into M and a single call does the whole product.  A constant B
 * (a Linear layer's weight) is packed at compile time into the engine's layout (with its
 * transpose); a runtime one is packed block by block into the node's scratch.  Gemm with a
 * bias C of shape [N] or [1, N] and beta 1 adds it in the engine's epilogue; other C are
 * copied into Y first and scaled by beta.  The lower pass (compiler/lower.c) may fuse an
 * activation (Node.epi_act, epi_p0, epi_p1), a residual (input 3, shaped like Y) and, for
 * MatMul, a bias along the last dim (input 4) into the epilogue.
 * Under --memory-first a float product with a constant weight (a fully connected layer) runs on
 * templates/gemv.c instead, for any number of rows M (constant or symbolic: one row at a time,
 * so the weight is read once per row), with no scratch: the weight reordered at compile time
 * into the kernel's blocks of 8 outputs (gp_gemv_blocks, no padding), alpha, any bias C
 * Gemm allows (scalar, [N], [M, 1], [1, N], [M, N] times beta, through two strides), the
 * residual and the activation applied in registers.  transA reads A's columns (a stride).
 * Double and integer products, and a B with batch dims, keep the engine.
 * Integers wrap modulo 2^n: a signed product runs on the engine of the unsigned type of its
 * width (eng_type), whose sums and products are the two's complement ones without C's undefined
 * signed overflow; the buffers are passed as that type (same bytes).  Integer alpha and beta
 * must be whole numbers in (-2^31, 2^31), non-negative for unsigned types. */
#include "onnx2c.h"
#include "mm_shape.h"
#include "gemm_plan.h"
#include <math.h>
#include <string.h>

static bool gemm_type_ok(DType t) {
    return t == DT_FLOAT || t == DT_DOUBLE || t == DT_INT32 || t == DT_INT64 || t == DT_UINT32 ||
           t == DT_UINT64;
}

/* The engine's element type for t: uint32/uint64 for the signed integers. */
static DType eng_type(DType t) {
    return t == DT_INT32 ? DT_UINT32 : t == DT_INT64 ? DT_UINT64 : t;
}

/* Pointer expression p (to elements of y's type t) as the engine's type. */
static const char *eng_ptr(Emit *e, DType t, const char *p, bool cst) {
    if (eng_type(t) == t)
        return p;
    return arena_printf(emit_arena(e), "(%s%s *)(%s)", cst ? "const " : "",
                        dtype_ctype(eng_type(t)), p);
}

/* A literal of t for the engine: an integer converted to the engine's type. */
static const char *eng_literal(Emit *e, DType t, double v) {
    if (eng_type(t) == t)
        return emit_literal(e, t, v);
    return arena_printf(emit_arena(e), "(%s)%s", dtype_ctype(eng_type(t)), emit_literal(e, t, v));
}

/* The fused epilogue's activation (never set by the lower pass on integers: ignored there, so
 * a model's own o2c_ attributes cannot ask for a float parameter as an integer). */
static void epi_attrs(Compiler *c, Node *n, DType t, int *act, float *p0, float *p1) {
    (void)c;
    gp_epi_attrs(n, act, p0, p1);
    if (!dtype_is_float(t))
        *act = 0, *p0 = *p1 = 0;
}

static void require_type(Compiler *c, Node *n, Value *a, Value *b) {
    if (!gemm_type_ok(a->dtype))
        o2c_error(c, n, "element type %s is not supported", dtype_name(a->dtype));
    if (b->dtype != a->dtype)
        o2c_error(c, n, "input B has type %s but input A has type %s", dtype_name(b->dtype),
                  dtype_name(a->dtype));
}

/* --memory-first: a float product with a constant K x N weight takes templates/gemv.c, the
 * weight op(B) (element (k, n) at k * ld + n, or at n * ld + k when trans) reordered into its
 * blocks; NULL otherwise. */
static Value *gemv_weight(Compiler *c, Value *a, Value *b, Sym *k, Sym *n, int trans) {
    int64_t kk, nn;
    if (!c->opt->memory_first || a->dtype != DT_FLOAT || !b->data || !sym_get_const(k, &kk) ||
        !sym_get_const(n, &nn))
        return NULL;
    return gp_lazy_job(c, b->name, b->dtype, kk * nn,
                       (GpJob){.kind = GPJ_GEMV, .src = b->data, .es = dtype_size(b->dtype),
                               .groups = 1, .rows = kk, .cols = nn, .ld = trans ? kk : nn,
                               .trans = trans});
}

/* The call of templates/gemv.c: y[m * N + n] = act(alpha * sum_k x[m * xm + k * xk] * w'[n][k]
 * + beta * bias[m * bm + n * bn] + res[m * N + n]). */
static void emit_gemv(Compiler *c, Emit *e, Node *n, Value *w, Sym *m, Sym *nn, Sym *k,
                      const char *x, const char *xm, const char *xk, Value *y, double alpha,
                      const char *bias, const char *bm, const char *bn, double beta, Value *res) {
    DType t = y->dtype;
    int act;
    float p0, p1;
    epi_attrs(c, n, t, &act, &p0, &p1);
    emit_kernel(e, "gemv (fully connected: blocks of 8 outputs, no scratch)");
    const char *sfx = emit_template(e, "gemv", t);
    const char *N = emit_sym(e, nn);
    emit_line(e, "/* fully connected: blocks of 8 outputs, one row at a time, no scratch */");
    emit_line(e, "gemv_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, "
              "%s);", sfx, emit_sym(e, m), N, emit_sym(e, k), x, xm, xk, emit_ptr(e, w),
              emit_ptr(e, y), N, emit_literal(e, t, alpha), bias ? bias : "0", bias ? bm : "0",
              bias ? bn : "0", emit_literal(e, t, beta), res ? emit_ptr(e, res) : "0", N, act,
              emit_literal(e, t, p0), emit_literal(e, t, p1));
}

/* ---- MatMul */

typedef struct MatMulPlan {
    MmShape sh;
    Value *bpk;      /* B packed at compile time (constant B without batch dims), or NULL */
    Value *gemv;     /* --memory-first: B in templates/gemv.c's blocks, or NULL */
} MatMulPlan;

void infer_matmul(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *a = infer_in(c, n, 0), *b = infer_in(c, n, 1);
    require_type(c, n, a, b);
    if (a->rank < 1 || b->rank < 1)
        o2c_error(c, n, "inputs must have rank 1 or more (ranks %d and %d)", a->rank, b->rank);
    MatMulPlan *p = arena_alloc(c->arena, sizeof *p);
    int rb = b->rank;
    Sym *out[66];
    int r = mm_shape(c, n, a, b, &p->sh, out);
    ir_set_shape(c, n->out[0], a->dtype, r, out);
    int64_t kk, nn;
    if (rb <= 2)
        p->gemv = gemv_weight(c, a, b, p->sh.k, p->sh.n, 0);
    if (p->gemv) {
        n->scratch = NULL;
        n->priv = p;
        return;
    }
    if (b->data && rb <= 2 && sym_get_const(p->sh.k, &kk) && sym_get_const(p->sh.n, &nn)) {
        size_t es = dtype_size(b->dtype);
        int64_t cnt = gp_pack(NULL, es, kk, nn, nn, 0, false, gp_nr(b->dtype), NULL);
        p->bpk = gp_lazy_job(c, b->name, b->dtype, cnt,
                             (GpJob){.kind = GPJ_PACK, .src = b->data, .es = es, .groups = 1,
                                     .rows = kk, .cols = nn, .ld = nn, .nr = gp_nr(b->dtype)});
    }
    Sym *mm = p->sh.m; /* emit_matmul folds A's batch dims into M when B has none */
    if (rb <= 2)
        for (int i = 0; i < p->sh.rb; i++)
            mm = sym_mul(s, mm, p->sh.batch[i]);
    n->scratch = sym_mul(s, gp_work(c, a->dtype, mm, p->sh.n, p->sh.k, false, p->bpk != NULL),
                         sym_const(s, (int64_t)dtype_size(a->dtype)));
    n->priv = p;
}

void emit_matmul(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    MatMulPlan *p = n->priv;
    Value *a = n->in[0], *b = n->in[1], *y = n->out[0];
    DType t = y->dtype;
    if (p->gemv) { /* rows of A (its batch dims folded in), K apart */
        Sym *rows = p->sh.m;
        for (int d = 0; d < p->sh.rb; d++)
            rows = sym_mul(s, rows, p->sh.batch[d]);
        Value *bias = node_in(n, 4);
        emit_gemv(c, e, n, p->gemv, rows, p->sh.n, p->sh.k, emit_ptr(e, a), emit_sym(e, p->sh.k),
                  "1", y, 1.0, bias ? emit_ptr(e, bias) : NULL, "0", "1", 1.0, node_in(n, 3));
        return;
    }
    emit_kernel(e, "gemm (%s%s)", p->bpk ? "B packed at compile time"
                                         : "B packed at run time",
                b->rank <= 2 ? "" : ", per batch");
    const char *sfx = emit_template(e, "gemm", eng_type(t));
    const char *N = emit_sym(e, p->sh.n), *K = emit_sym(e, p->sh.k);
    /* B without batch dims: A's batch dims fold into M (one call on [batch * M, K]; Y is
     * contiguous the same way), so a [S, 1, K] x [K, N] projection is one product of S rows. */
    int rb = p->sh.rb;
    Sym *mm = p->sh.m;
    if (b->rank <= 2 && rb > 0) {
        for (int d = 0; d < rb; d++)
            mm = sym_mul(s, mm, p->sh.batch[d]);
        rb = 0;
    }
    const char *M = emit_sym(e, mm);
    for (int d = 0; d < rb; d++) {
        emit_line(e, "for (int64_t i%d = 0; i%d < %s; i%d++) {", d, d, emit_sym(e, p->sh.batch[d]), d);
        emit_indent(e, 1);
    }
    const MmShape *sh = &p->sh;
    const char *ao = "0", *bo = "0", *yo = "0";
    if (rb) {
        ao = emit_batch_offset(e, sh->rb, sh->batch, sh->abatch, sym_mul(s, sh->m, sh->k));
        bo = emit_batch_offset(e, sh->rb, sh->batch, sh->bbatch, sym_mul(s, sh->k, sh->n));
        yo = emit_batch_offset(e, sh->rb, sh->batch, sh->batch, sym_mul(s, sh->m, sh->n));
    }
    const char *ct = dtype_ctype(eng_type(t));
    int act;
    float p0, p1;
    epi_attrs(c, n, t, &act, &p0, &p1);
    Value *res = node_in(n, 3), *bias = node_in(n, 4);
    const char *ep = gp_emit_epi(
        e, sfx, eng_type(t), bias ? eng_ptr(e, t, emit_ptr(e, bias), true) : NULL, "0", "1",
        res ? eng_ptr(e, t, arena_printf(emit_arena(e), "%s + %s", emit_ptr(e, res), yo), true)
            : NULL,
        N, act, p0, p1);
    const char *work = arena_printf(emit_arena(e), "(%s *)(void *)(ws + %s)", ct,
                                    emit_sym(e, n->scratch_offset));
    const char *A = eng_ptr(e, t, arena_printf(emit_arena(e), "%s + %s", emit_ptr(e, a), ao), true);
    const char *Y = eng_ptr(e, t, arena_printf(emit_arena(e), "%s + %s", emit_ptr(e, y), yo), false);
    if (p->bpk)
        emit_line(e, "gemm_%s(%s, %s, %s, %s, %s, 0, %s, %s, %d, %s, %s, (%s)1, (%s)0, %s, %s);",
                  sfx, M, N, K, A, K, eng_ptr(e, t, emit_ptr(e, p->bpk), true), N, GP_PACKED, Y, N,
                  ct, ct, ep, work);
    else
        emit_line(e, "gemm_%s(%s, %s, %s, %s, %s, 0, %s, %s, 0, %s, %s, (%s)1, (%s)0, %s, %s);",
                  sfx, M, N, K, A, K,
                  eng_ptr(e, t, arena_printf(emit_arena(e), "%s + %s", emit_ptr(e, b), bo), true),
                  N, Y, N, ct, ct, ep, work);
    for (int d = 0; d < rb; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}

/* ---- Gemm */

typedef struct GemmPlan {
    Sym *m, *k, *n;
    int trans_a, trans_b;
    float alpha, beta;
    Value *bpk;      /* constant B packed at compile time, or NULL */
    Value *gemv;     /* --memory-first: B in templates/gemv.c's blocks, or NULL */
    bool bias_row;   /* C is [N] or [1, N] and beta is 1: added in the epilogue */
} GemmPlan;

void infer_gemm(Compiler *c, Node *n) {
    Value *a = infer_in(c, n, 0), *b = infer_in(c, n, 1), *cc = node_in(n, 2);
    require_type(c, n, a, b);
    if (a->rank != 2 || b->rank != 2)
        o2c_error(c, n, "A and B must be matrices (ranks %d and %d)", a->rank, b->rank);
    GemmPlan *p = arena_alloc(c->arena, sizeof *p);
    p->trans_a = attr_int(c, n, "transA", 0) != 0;
    p->trans_b = attr_int(c, n, "transB", 0) != 0;
    p->alpha = attr_float(c, n, "alpha", 1.0f);
    p->beta = attr_float(c, n, "beta", 1.0f);
    for (int i = 0; i < 2 && !dtype_is_float(a->dtype); i++) {
        double v = i ? p->beta : p->alpha;
        if (v != floor(v) || !(fabs(v) < 2147483648.0) || (v < 0 && !dtype_is_signed(a->dtype)))
            o2c_error(c, n, "%s = %g is not supported for input type %s (a whole number in "
                      "(-2^31, 2^31), non-negative for an unsigned type)", i ? "beta" : "alpha",
                      v, dtype_name(a->dtype));
    }
    p->m = a->shape[p->trans_a ? 1 : 0];
    p->k = a->shape[p->trans_a ? 0 : 1];
    Sym *kb = b->shape[p->trans_b ? 1 : 0];
    p->n = b->shape[p->trans_b ? 0 : 1];
    int64_t ka, kbv;
    if (sym_get_const(p->k, &ka) && sym_get_const(kb, &kbv) && ka != kbv)
        o2c_error(c, n, "inner dimensions do not match: A' has K = %lld, B' has K = %lld",
                  (long long)ka, (long long)kbv);
    ir_constrain(c, n, CK_EQ, p->k, kb, "Gemm inner dimensions of A and B must match");
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
            /* symbolic: 1 or Y's, decided at run time (the strides too: gemm_bias_strides) */
            ir_constrain(c, n, CK_BCAST, dc, dy, "Gemm input C dim %d must be 1 or that of Y", i);
        }
    }
    ir_set_shape(c, n->out[0], a->dtype, 2, out);
    p->gemv = gemv_weight(c, a, b, p->k, p->n, p->trans_b);
    if (p->gemv) {
        n->scratch = NULL;
        n->priv = p;
        return;
    }
    int64_t kk, nn, one;
    if (b->data && sym_get_const(p->k, &kk) && sym_get_const(p->n, &nn)) {
        size_t es = dtype_size(b->dtype);
        int64_t ld = p->trans_b ? kk : nn;
        int64_t cnt = gp_pack(NULL, es, kk, nn, ld, p->trans_b, false, gp_nr(b->dtype), NULL);
        p->bpk = gp_lazy_job(c, b->name, b->dtype, cnt,
                             (GpJob){.kind = GPJ_PACK, .src = b->data, .es = es, .groups = 1,
                                     .rows = kk, .cols = nn, .ld = ld, .trans = p->trans_b,
                                     .nr = gp_nr(b->dtype)});
    }
    p->bias_row = cc && p->beta == 1.0f && cc->rank >= 1 && cc->shape[cc->rank - 1] == p->n &&
                  (cc->rank == 1 || (sym_get_const(cc->shape[0], &one) && one == 1));
    n->scratch = sym_mul(c->sym, gp_work(c, a->dtype, p->m, p->n, p->k, false, p->bpk != NULL),
                         sym_const(c->sym, (int64_t)dtype_size(a->dtype)));
    n->priv = p;
}

/* 1 when C's dim dc is read along Y's dim dy, 0 when it is broadcast; a symbolic dc that is
 * not dy is 1 or dy at run time: min(dc - 1, 1). */
static Sym *bias_step(SymCtx *s, Sym *dc, Sym *dy) {
    int64_t v;
    if (sym_get_const(dc, &v) && v == 1)
        return sym_const(s, 0);
    if (dc == dy || sym_is_const(dc))
        return sym_const(s, 1);
    return sym_min(s, sym_sub(s, dc, sym_const(s, 1)), sym_const(s, 1));
}

/* The strides of Gemm's C broadcast to [M, N] (bias[m * bm + n * bn]), into bm, bn. */
static void gemm_bias_strides(Emit *e, SymCtx *s, Value *cc, Sym *mm, Sym *nn, const char **bm,
                              const char **bn) {
    Sym *sn = cc->rank >= 1 ? bias_step(s, cc->shape[cc->rank - 1], nn) : sym_const(s, 0);
    Sym *sm = cc->rank == 2 ? sym_mul(s, bias_step(s, cc->shape[0], mm), cc->shape[1]) : sym_const(s, 0);
    *bn = emit_sym(e, sn);
    *bm = emit_sym(e, sm);
}

void emit_gemm(Compiler *c, Emit *e, Node *n) {
    GemmPlan *p = n->priv;
    Value *a = n->in[0], *b = n->in[1], *cc = node_in(n, 2), *y = n->out[0];
    DType t = y->dtype;
    if (p->gemv) { /* row m of A' at m * lda, k apart 1; transA: at m, k apart M */
        const char *bm = "0", *bn = "0", *K = emit_sym(e, p->k), *M = emit_sym(e, p->m);
        bool bias = cc && p->beta != 0;
        if (bias)
            gemm_bias_strides(e, c->sym, cc, p->m, p->n, &bm, &bn);
        emit_gemv(c, e, n, p->gemv, p->m, p->n, p->k, emit_ptr(e, a), p->trans_a ? "1" : K,
                  p->trans_a ? M : "1", y, p->alpha, bias ? emit_ptr(e, cc) : NULL, bm, bn,
                  p->beta, node_in(n, 3));
        return;
    }
    emit_kernel(e, "gemm (%s)", p->bpk ? "B packed at compile time" : "B packed at run time");
    const char *sfx = emit_template(e, "gemm", eng_type(t));
    double beta = p->beta;
    const char *ct = dtype_ctype(eng_type(t));
    int act;
    float p0, p1;
    epi_attrs(c, n, t, &act, &p0, &p1);
    Value *res = node_in(n, 3);
    const char *N0 = emit_sym(e, p->n);
    const char *ep = gp_emit_epi(e, sfx, eng_type(t),
                                 cc && p->bias_row ? eng_ptr(e, t, emit_ptr(e, cc), true) : NULL,
                                 "0", "1", res ? eng_ptr(e, t, emit_ptr(e, res), true) : NULL, N0,
                                 act, p0, p1);
    const char *work = arena_printf(emit_arena(e), "(%s *)(void *)(ws + %s)", ct,
                                    emit_sym(e, n->scratch_offset));
    if (p->bias_row)
        beta = 0;
    else if (cc && beta != 0) {
        emit_line(e, "/* Y = C, broadcast to [M, N] */");
        emit_elementwise(e, n, y, 1, &n->in[2], "$0");
    } else
        beta = 0;
    const char *M = emit_sym(e, p->m), *N = emit_sym(e, p->n), *K = emit_sym(e, p->k);
    emit_line(e, "gemm_%s(%s, %s, %s, %s, %s, %d, %s, %s, %d, %s, %s, %s, %s, %s, %s);", sfx, M,
              N, K, eng_ptr(e, t, emit_ptr(e, a), true), p->trans_a ? M : K, p->trans_a,
              eng_ptr(e, t, emit_ptr(e, p->bpk ? p->bpk : b), true), p->trans_b ? K : N,
              p->bpk ? GP_PACKED : p->trans_b, eng_ptr(e, t, emit_ptr(e, y), false), N,
              eng_literal(e, t, p->alpha), eng_literal(e, t, beta), ep, work);
}
