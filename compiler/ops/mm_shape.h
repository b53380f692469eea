/* mm_shape.h — the MatMul shape rule (numpy matmul), shared by the matmul family and the
 * integer products of the quant family (MatMulInteger, QLinearMatMul): a 1-D A is a row and a
 * 1-D B a column (that axis is dropped from the output), the inner dims must match (an error
 * for constants, a run-time constraint otherwise), the batch dims broadcast. */
#ifndef O2C_MM_SHAPE_H
#define O2C_MM_SHAPE_H
#include "onnx2c.h"

typedef struct MmShape {
    Sym *m, *k, *n;
    int rb;       /* batch rank of the output */
    Sym **batch;  /* output batch dims */
    Sym **abatch; /* A's batch dims aligned right to rb (1 where A has none) */
    Sym **bbatch;
} MmShape;

/* Fills sh for A x B and returns the output's rank, its shape in out[] (66 entries). */
static inline int mm_shape(Compiler *c, Node *n, const Value *a, const Value *b, MmShape *sh,
                           Sym **out) {
    Sym *one = sym_const(c->sym, 1);
    int ra = a->rank, rb = b->rank;
    sh->m = ra == 1 ? one : a->shape[ra - 2];
    sh->k = a->shape[ra - 1];
    Sym *kb = rb == 1 ? b->shape[0] : b->shape[rb - 2];
    sh->n = rb == 1 ? one : b->shape[rb - 1];
    int64_t ka, kbv;
    if (sym_get_const(sh->k, &ka) && sym_get_const(kb, &kbv) && ka != kbv)
        o2c_error(c, n, "inner dimensions do not match: A has K = %lld, B has K = %lld",
                  (long long)ka, (long long)kbv);
    ir_constrain(c, n, CK_EQ, sh->k, kb, "%s inner dimensions of A and B must match", n->op_type);
    int nba = ra > 2 ? ra - 2 : 0, nbb = rb > 2 ? rb - 2 : 0;
    Sym *batch[64];
    if (nba > 60 || nbb > 60)
        o2c_error(c, n, "rank is too large");
    sh->rb = infer_broadcast(c, n, nba, a->shape, nbb, b->shape, batch);
    sh->batch = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(sh->rb + 1));
    sh->abatch = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(sh->rb + 1));
    sh->bbatch = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(sh->rb + 1));
    int r = 0;
    for (int i = 0; i < sh->rb; i++) {
        int ia = i - (sh->rb - nba), ib = i - (sh->rb - nbb);
        sh->batch[i] = batch[i];
        sh->abatch[i] = ia >= 0 ? a->shape[ia] : one;
        sh->bbatch[i] = ib >= 0 ? b->shape[ib] : one;
        out[r++] = batch[i];
    }
    if (ra != 1)
        out[r++] = sh->m;
    if (rb != 1)
        out[r++] = sh->n;
    return r;
}
#endif
