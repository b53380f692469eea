/* gemm_plan.h — the compiler's side of the GEMM engine (templates/gemm.c), shared by the
 * matmul and conv families: the scratch the engine needs, as a Sym, and packing of constant
 * operands at compile time into the exact layout the micro-kernel reads.  The constants below
 * must match GEMM_MR / GEMM_KC / GEMM_MC / GEMM_NC / GEMM_NR_T of the template. */
#ifndef O2C_GEMM_PLAN_H
#define O2C_GEMM_PLAN_H
#include "onnx2c.h"
#include <string.h>

enum { GP_MR = 8, GP_KC = 256, GP_MC = 128, GP_NC = 1024, GP_PACKED = 2 };

static inline int64_t gp_nr(DType t) { return 128 / (int64_t)dtype_size(t); }

static inline Sym *gp_roundup(SymCtx *s, Sym *x, int64_t m) {
    return sym_mul(s, sym_ceildiv(s, x, sym_const(s, m)), sym_const(s, m));
}

/* Elements of engine scratch for an M x N x K product; packed_a: A comes pre-packed. */
static inline Sym *gp_work(Compiler *c, DType t, Sym *m, Sym *n, Sym *k, bool packed_a,
                           bool packed_b) {
    SymCtx *s = c->sym;
    Sym *kc = sym_min(s, k, sym_const(s, GP_KC));
    Sym *a = packed_a ? sym_const(s, 0)
                      : sym_mul(s, sym_min(s, gp_roundup(s, m, GP_MR), sym_const(s, GP_MC)), kc);
    Sym *b = packed_b ? sym_const(s, 0)
                      : sym_mul(s, kc, sym_min(s, gp_roundup(s, n, gp_nr(t)), sym_const(s, GP_NC)));
    /* a little slack keeps the B buffer 64-byte aligned */
    return sym_add(s, sym_add(s, a, b), sym_const(s, 16));
}

/* Packs op(X) (rows x cols of a row-major matrix with leading dim ld, transposed when trans)
 * the way the engine packs A (panel = MR rows, as_a) or B (panel = NR columns), K block kb
 * only (K rows from kb * KC, at most KC): its bp x kc elements, bp the panel dim rounded up
 * to whole panels, at dst (zeroed), where the whole packing has them at kb * KC * bp.  Returns
 * their count. */
static inline int64_t gp_pack_block(const unsigned char *src, size_t es, int64_t rows,
                                    int64_t cols, int64_t ld, int trans, bool as_a, int64_t nr,
                                    int64_t kb, unsigned char *dst) {
    /* A: rows = M, cols = K, panels over rows.  B: rows = K, cols = N, panels over cols. */
    int64_t P = as_a ? GP_MR : nr, big = as_a ? rows : cols, K = as_a ? cols : rows;
    int64_t bp = (big + P - 1) / P * P, k0 = kb * GP_KC;
    int64_t kc = K - k0 < GP_KC ? K - k0 : GP_KC;
    for (int64_t q = 0; q < big; q++) {
        int64_t panel = q / P, lane = q % P;
        for (int64_t k = 0; k < kc; k++) {
            int64_t r = as_a ? q : k0 + k, cc = as_a ? k0 + k : q; /* in op(X) */
            int64_t at = trans ? cc * ld + r : r * ld + cc;
            int64_t to = panel * P * kc + k * P + lane;
            memcpy(dst + (size_t)to * es, src + (size_t)at * es, es);
        }
    }
    return bp * kc;
}

/* The K blocks of gp_pack_block for rows x cols. */
static inline int64_t gp_kblocks(int64_t rows, int64_t cols, bool as_a) {
    int64_t K = as_a ? cols : rows;
    return (K + GP_KC - 1) / GP_KC;
}

/* The whole packing, every K block: the layout of GEMM_PACKED operands.  es: element size.
 * Returns the element count (dst NULL: only that). */
static inline int64_t gp_pack(const unsigned char *src, size_t es, int64_t rows, int64_t cols,
                              int64_t ld, int trans, bool as_a, int64_t nr, unsigned char *dst) {
    int64_t P = as_a ? GP_MR : nr, big = as_a ? rows : cols, K = as_a ? cols : rows;
    int64_t bp = (big + P - 1) / P * P;
    if (dst) {
        memset(dst, 0, (size_t)(bp * K) * es);
        for (int64_t kb = 0; kb < gp_kblocks(rows, cols, as_a); kb++)
            gp_pack_block(src, es, rows, cols, ld, trans, as_a, nr, kb,
                          dst + (size_t)(kb * GP_KC * bp) * es);
    }
    return bp * K;
}

/* Reorders a row-major M x K matrix (a Conv weight M x C*KH*KW, per group) into the blocks of
 * 4 rows the direct kernels read (templates/conv_direct.c): block b (rows 4b .. 4b + mb - 1,
 * mb = min(4, M - 4b)) starts at 4b * K and holds, for each k, the mb elements of its rows.
 * A permutation: M * K elements, no padding. */
static inline void gp_row_blocks(const unsigned char *src, size_t es, int64_t M, int64_t K,
                                 unsigned char *dst) {
    for (int64_t m0 = 0; m0 < M; m0 += 4) {
        int64_t mb = M - m0 < 4 ? M - m0 : 4;
        for (int64_t k = 0; k < K; k++)
            for (int64_t j = 0; j < mb; j++)
                memcpy(dst + (size_t)(m0 * K + k * mb + j) * es,
                       src + (size_t)((m0 + j) * K + k) * es, es);
    }
}

/* Reorders op(B), a K x N weight (element (k, n) at k * ld + n, or at n * ld + k when trans),
 * into the blocks of GP_GEMV_R outputs templates/gemv.c reads: block b (outputs 8b .. 8b + nb - 1,
 * nb = min(8, N - 8b)) starts at 8b * K and holds, for each k, the nb weights of its outputs.
 * A permutation: K * N elements, no padding. */
enum { GP_GEMV_R = 8 };
static inline void gp_gemv_blocks(const unsigned char *src, size_t es, int64_t K, int64_t N,
                                  int64_t ld, int trans, unsigned char *dst) {
    for (int64_t n0 = 0; n0 < N; n0 += GP_GEMV_R) {
        int64_t nb = N - n0 < GP_GEMV_R ? N - n0 : GP_GEMV_R;
        for (int64_t k = 0; k < K; k++)
            for (int64_t j = 0; j < nb; j++) {
                int64_t at = trans ? (n0 + j) * ld + k : k * ld + n0 + j;
                memcpy(dst + (size_t)(n0 * K + k * nb + j) * es, src + (size_t)at * es, es);
            }
    }
}

/* A new constant Value holding `count` packed elements of type t. */
static inline Value *gp_const(Compiler *c, const char *stem, DType t, int64_t count,
                              unsigned char *data) {
    Value *v = ir_value(c, arena_printf(c->arena, "%s.packed%d", stem, c->g->nvalues));
    v->kind = VAL_CONST;
    ir_set_shape_ints(c, v, t, 1, &count);
    v->data = data;
    return v;
}

/* A constant of `count` elements of type t made only when emit.c writes it out, in nparts
 * parts of at most max elements: part(arg, k, dst) writes part k into zeroed memory and returns
 * its count (Value.fill).  Packing at compile time so costs no memory until then, one part at a
 * time; arg must live in the arena and read only constants. */
static inline Value *gp_lazy(Compiler *c, const char *stem, DType t, int64_t count,
                             int64_t (*part)(const void *arg, int64_t k, void *dst),
                             const void *arg, int64_t nparts, int64_t max) {
    Value *v = gp_const(c, stem, t, count, NULL);
    ValueFill *f = arena_alloc(c->arena, sizeof *f);
    *f = (ValueFill){part, arg, nparts, max};
    v->fill = f;
    return v;
}

/* A weight made in one part: fill(arg, dst) writes all count elements. */
typedef struct GpOne {
    void (*fill)(const void *arg, void *dst);
    const void *arg;
    int64_t count;
} GpOne;

static inline int64_t gp_one_part(const void *arg, int64_t k, void *dst) {
    const GpOne *o = arg;
    (void)k;
    o->fill(o->arg, dst);
    return o->count;
}

static inline Value *gp_lazy1(Compiler *c, const char *stem, DType t, int64_t count,
                              void (*fill)(const void *arg, void *dst), const void *arg) {
    GpOne *o = arena_alloc(c->arena, sizeof *o);
    *o = (GpOne){fill, arg, count};
    return gp_lazy(c, stem, t, count, gp_one_part, o, 1, count);
}

/* The recipe of a weight in one of the layouts above, for gp_lazy: `groups` blocks (a conv's
 * groups), block g read from src + g * sstep elements and written at g * dstep. */
typedef enum {
    GPJ_PACK,       /* gp_pack(rows, cols, ld, trans, as_a, nr) */
    GPJ_ROW_BLOCKS, /* gp_row_blocks(M = rows, K = cols) */
    GPJ_GEMV,       /* gp_gemv_blocks(K = rows, N = cols, ld, trans) */
} GpJobKind;
typedef struct GpJob {
    GpJobKind kind;
    const unsigned char *src;
    size_t es;
    int64_t groups, sstep, dstep;
    int64_t rows, cols, ld, nr;
    int trans;
    bool as_a;
} GpJob;

/* Part k of a GpJob's weight: a K block of a group for GPJ_PACK (a big fully connected layer
 * is then made a few MB at a time), a whole group otherwise. */
static inline int64_t gp_job_part(const void *arg, int64_t k, void *dst) {
    const GpJob *j = arg;
    int64_t nkb = j->kind == GPJ_PACK ? gp_kblocks(j->rows, j->cols, j->as_a) : 1;
    int64_t g = k / nkb;
    const unsigned char *src = j->src + (size_t)(g * j->sstep) * j->es;
    switch (j->kind) {
    case GPJ_PACK:
        return gp_pack_block(src, j->es, j->rows, j->cols, j->ld, j->trans, j->as_a, j->nr, k % nkb,
                             dst);
    case GPJ_ROW_BLOCKS: gp_row_blocks(src, j->es, j->rows, j->cols, dst); break;
    case GPJ_GEMV: gp_gemv_blocks(src, j->es, j->rows, j->cols, j->ld, j->trans, dst); break;
    }
    return j->rows * j->cols;
}

/* gp_lazy of the weight job describes (copied into the arena). */
static inline Value *gp_lazy_job(Compiler *c, const char *stem, DType t, int64_t count,
                                 GpJob job) {
    int64_t nkb = 1, max = job.rows * job.cols;
    if (job.kind == GPJ_PACK) {
        int64_t P = job.as_a ? GP_MR : job.nr, big = job.as_a ? job.rows : job.cols;
        int64_t K = job.as_a ? job.cols : job.rows;
        nkb = gp_kblocks(job.rows, job.cols, job.as_a);
        max = (big + P - 1) / P * P * (K < GP_KC ? K : GP_KC);
    }
    return gp_lazy(c, stem, t, count, gp_job_part, arena_dup(c->arena, &job, sizeof job),
                   job.groups * nkb, max);
}

/* Activation of a fused epilogue: what the lower pass (compiler/lower.c) set in the node. */
static inline void gp_epi_attrs(const Node *n, int *act, float *p0, float *p1) {
    *act = n->epi_act;
    *p0 = n->epi_p0;
    *p1 = n->epi_p1;
}

/* Declares the epilogue struct of one engine call and returns its address ("0" when there is
 * nothing to do).  bias: C pointer expression or NULL (bias[i * sm + j * sn]); res: likewise
 * (res[i * ldr + j]). */
static inline const char *gp_emit_epi(Emit *e, const char *sfx, DType t, const char *bias,
                                      const char *sm, const char *sn, const char *res,
                                      const char *ldr, int act, float p0, float p1) {
    if (!bias && !res && !act)
        return "0";
    const char *name = emit_tmp(e, "ep");
    emit_line(e, "const gemm_epi_%s %s = {%s, %s, %s, %s, %s, %d, %s, %s};", sfx, name,
              bias ? bias : "0", bias ? sm : "0", bias ? sn : "0", res ? res : "0",
              res ? ldr : "0", act, emit_literal(e, t, p0), emit_literal(e, t, p1));
    return arena_printf(emit_arena(e), "&%s", name);
}
#endif
