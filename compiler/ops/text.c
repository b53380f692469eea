/* text.c — op family: text features.
 *
 * ONNX TfIdfVectorizer (opset 9) on integer tokens: x [C] or [N, C] of int32 or int64 (a
 * scalar counts as [1]), y float [K] or [N, K], K = max(ngram_indexes) + 1.  The pool
 * (pool_int64s) holds the 1-grams, then the 2-grams..., level n starting at ngram_counts[n - 1];
 * the i-th n-gram of the pool (counted over every level) counts into column ngram_indexes[i].
 * Row by row, the n-grams of x of a length n in [min_gram_length, max_gram_length] found in the
 * pool are counted:
 *
 *   a 1-gram once per position;
 *   an n-gram, n >= 2, once per start i and skip s in [0, max_skip_count]: x[i], x[i + s + 1],
 *   ..., x[i + (n - 1)(s + 1)], all inside the row (ONNX Runtime's counting, which the
 *   backend cases and ONNX's reference implementation follow);
 *
 * then TF: y = count; IDF: y = count > 0 ? w[j] : 0; TFIDF: y = count * w[j], w = weights
 * (ones when absent; TF reads none).  weights are read per output column j, as ONNX Runtime
 * and ONNX's reference implementation do (the spec says "per pool n-gram": the same when
 * ngram_indexes is the identity); with weights in IDF or TFIDF mode every column needs one.
 * Counts are floats (exact to 2^24 per column): no double on a single-precision FPU.
 *
 * The pool is constant: infer sorts each level it counts (lexicographic) and refuses a repeated
 * n-gram (ONNX Runtime does); the kernel (templates/text_tfidf.c) binary-searches the level of
 * each candidate n-gram in static const tables.  Strings (pool_strings, a string x) are
 * refused. */
#include "onnx2c.h"
#include <stdlib.h>
#include <string.h>

enum { TFIDF_TF, TFIDF_IDF, TFIDF_TFIDF }; /* the kernel's mode argument */

typedef struct Tfidf {
    int mode;
    int64_t nlo, nhi; /* the n-gram lengths counted; nhi < nlo: none */
    int64_t maxd;     /* max_skip_count + 1 (clamped: a distance past every row counts nothing) */
    int64_t cols;     /* K */
    int nlev;         /* nhi - nlo + 1, or 0 */
    int64_t *at, *base, *cnt; /* per level: its offset in pool, in col; its n-gram count */
    int npool, ncol;
    int64_t *pool, *col;       /* the sorted n-grams; their output columns */
    const float *w;            /* per column, or NULL (TF mode, or no weights) */
    int nw;
} Tfidf;

/* One n-gram of the pool while sorting a level. */
typedef struct Gram {
    const int64_t *g;
    int64_t n;
    int64_t id; /* its number in the pool (ngram_indexes' index) */
} Gram;

static int gram_cmp(const void *pa, const void *pb) {
    const Gram *a = pa, *b = pb;
    for (int64_t q = 0; q < a->n; q++)
        if (a->g[q] != b->g[q])
            return a->g[q] < b->g[q] ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int64_t required_int(Compiler *c, Node *n, const char *name) {
    if (!node_attr(n, name))
        o2c_error(c, n, "attribute %s is required", name);
    return attr_int(c, n, name, 0);
}

static int required_ints(Compiler *c, Node *n, const char *name, const int64_t **v) {
    int k = attr_ints(c, n, name, v);
    if (k <= 0)
        o2c_error(c, n, "attribute %s is required (a non-empty list of ints)", name);
    return k;
}

void infer_tfidf(Compiler *c, Node *n) {
    if (n->nout != 1 || !n->out[0])
        o2c_error(c, n, "%d outputs: expected 1", n->nout);
    Value *x = infer_in(c, n, 0);
    if (x->dtype == DT_STRING || node_attr(n, "pool_strings"))
        o2c_error(c, n, "string tensors are not supported (%s)",
                  x->dtype == DT_STRING ? "a string input" : "pool_strings");
    if (x->dtype != DT_INT32 && x->dtype != DT_INT64)
        o2c_error(c, n, "input type %s: expected int32 or int64", dtype_name(x->dtype));
    if (x->rank > 2)
        o2c_error(c, n, "input has rank %d: expected [C] or [N, C]", x->rank);

    Tfidf *p = arena_alloc(c->arena, sizeof *p);
    const char *mode = node_attr(n, "mode") ? attr_str(c, n, "mode", "") : NULL;
    if (!mode)
        o2c_error(c, n, "attribute mode is required");
    if (strcmp(mode, "TF") == 0)
        p->mode = TFIDF_TF;
    else if (strcmp(mode, "IDF") == 0)
        p->mode = TFIDF_IDF;
    else if (strcmp(mode, "TFIDF") == 0)
        p->mode = TFIDF_TFIDF;
    else
        o2c_error(c, n, "mode '%.40s': expected TF, IDF or TFIDF", mode);
    int64_t lo = required_int(c, n, "min_gram_length"), hi = required_int(c, n, "max_gram_length");
    int64_t skip = required_int(c, n, "max_skip_count");
    if (lo < 1)
        o2c_error(c, n, "min_gram_length = %lld: expected >= 1", (long long)lo);
    if (hi < lo)
        o2c_error(c, n, "max_gram_length = %lld is less than min_gram_length = %lld",
                  (long long)hi, (long long)lo);
    if (skip < 0)
        o2c_error(c, n, "max_skip_count = %lld: expected >= 0", (long long)skip);
    p->maxd = (skip < ATTR_SIZE_MAX ? skip : ATTR_SIZE_MAX) + 1;

    const int64_t *counts, *idx, *pool;
    int nlevels = required_ints(c, n, "ngram_counts", &counts);
    int nidx = required_ints(c, n, "ngram_indexes", &idx);
    int npool = required_ints(c, n, "pool_int64s", &pool);
    /* the levels: each a whole number of n-grams, their total one per ngram_indexes entry */
    if (counts[0] != 0)
        o2c_error(c, n, "ngram_counts[0] = %lld: the 1-grams start the pool (expected 0)",
                  (long long)counts[0]);
    int64_t grams = 0;
    for (int l = 0; l < nlevels; l++) {
        int64_t end = l + 1 < nlevels ? counts[l + 1] : npool;
        if (end < counts[l] || end > npool)
            o2c_error(c, n, "ngram_counts[%d] = %lld is out of order or past the pool's %d items",
                      l + 1 < nlevels ? l + 1 : l, (long long)(l + 1 < nlevels ? end : counts[l]),
                      npool);
        if ((end - counts[l]) % (l + 1))
            o2c_error(c, n, "the %d-grams of the pool (items %lld to %lld) are not a whole number "
                      "of %d-grams", l + 1, (long long)counts[l], (long long)end, l + 1);
        grams += (end - counts[l]) / (l + 1);
    }
    if (grams != nidx)
        o2c_error(c, n, "ngram_indexes has %d entries but the pool holds %lld n-grams", nidx,
                  (long long)grams);
    int64_t kmax = -1;
    for (int i = 0; i < nidx; i++) {
        if (idx[i] < 0 || idx[i] >= ATTR_SIZE_MAX)
            o2c_error(c, n, "ngram_indexes[%d] = %lld is out of range", i, (long long)idx[i]);
        kmax = idx[i] > kmax ? idx[i] : kmax;
    }
    p->cols = kmax + 1;
    const float *w = NULL;
    int nw = attr_floats(c, n, "weights", &w);
    if (nw >= 0 && nw != nidx)
        o2c_error(c, n, "weights has %d entries: expected one per n-gram of the pool (%d)", nw,
                  nidx);
    if (nw >= 0 && p->mode != TFIDF_TF) {
        if (p->cols > nw)
            o2c_error(c, n, "output column %lld has no weight (weights scale output columns: "
                      "%d of them)", (long long)kmax, nw);
        p->w = w;
        p->nw = nw;
    }

    /* the levels counted, each sorted; ids run over every level */
    p->nlo = lo;
    p->nhi = hi < nlevels ? hi : nlevels;
    p->nlev = p->nhi >= p->nlo ? (int)(p->nhi - p->nlo + 1) : 0;
    p->at = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(p->nlev + 1));
    p->base = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(p->nlev + 1));
    p->cnt = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(p->nlev + 1));
    p->pool = arena_alloc(c->arena, sizeof(int64_t) * (size_t)npool + 8);
    p->col = arena_alloc(c->arena, sizeof(int64_t) * (size_t)nidx + 8);
    Gram *gs = arena_alloc(c->arena, sizeof(Gram) * (size_t)nidx + 8);
    int64_t id = 0;
    for (int l = 0; l < nlevels; l++) {
        int64_t len = l + 1, end = l + 1 < nlevels ? counts[l + 1] : npool;
        int64_t m = (end - counts[l]) / len;
        if (len < p->nlo || len > p->nhi) {
            id += m;
            continue;
        }
        int lv = (int)(len - p->nlo);
        p->at[lv] = p->npool;
        p->base[lv] = p->ncol;
        p->cnt[lv] = m;
        for (int64_t k = 0; k < m; k++)
            gs[k] = (Gram){pool + counts[l] + k * len, len, id + k};
        qsort(gs, (size_t)m, sizeof *gs, gram_cmp);
        for (int64_t k = 0; k < m; k++) {
            if (k > 0 && memcmp(gs[k].g, gs[k - 1].g, sizeof(int64_t) * (size_t)len) == 0)
                o2c_error(c, n, "pool n-gram %lld repeats n-gram %lld (a %lld-gram)",
                          (long long)gs[k].id, (long long)gs[k - 1].id, (long long)len);
            memcpy(p->pool + p->npool, gs[k].g, sizeof(int64_t) * (size_t)len);
            p->npool += (int)len;
            p->col[p->ncol++] = idx[gs[k].id];
        }
        id += m;
    }
    n->priv = p;

    Sym *shape[2] = {x->rank == 2 ? x->shape[0] : NULL, sym_const(c->sym, p->cols)};
    ir_set_shape(c, n->out[0], DT_FLOAT, x->rank == 2 ? 2 : 1, x->rank == 2 ? shape : shape + 1);
}

void emit_tfidf(Compiler *c, Emit *e, Node *n) {
    const Tfidf *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    const char *sfx = emit_template(e, "text_tfidf", x->dtype);
    Sym *one = sym_const(c->sym, 1);
    Sym *rows = x->rank == 2 ? x->shape[0] : one, *len = x->rank >= 1 ? x->shape[x->rank - 1] : one;
    const char *pool = emit_int_array(e, "pool", p->npool, p->pool);
    const char *col = emit_int_array(e, "col", p->ncol, p->col);
    const char *at = emit_int_array(e, "at", p->nlev, p->at);
    const char *base = emit_int_array(e, "base", p->nlev, p->base);
    const char *cnt = emit_int_array(e, "cnt", p->nlev, p->cnt);
    const char *w = "0";
    n->flash += 8 * (int64_t)(p->npool + p->ncol + 3 * p->nlev);
    if (p->w) {
        Buf b;
        buf_init_in(&b, emit_arena(e));
        for (int i = 0; i < p->nw; i++)
            buf_printf(&b, "%s%s", i ? ", " : "", emit_literal(e, DT_FLOAT, p->w[i]));
        w = emit_tmp(e, "w");
        emit_line(e, "static const float %s[%d] = {%s};", w, p->nw, b.data);
        buf_free(&b);
        n->flash += 4 * (int64_t)p->nw;
    }
    emit_line(e, "tfidf_%s(%s, %s, %s, %s, %lld, %s, %s, %s, %s, %s, %lld, %lld, %lld, %d, %s);",
              sfx, emit_ptr(e, x), emit_ptr(e, y), emit_sym(e, rows), emit_sym(e, len),
              (long long)p->cols, pool, at, base, cnt, col, (long long)p->nlo,
              (long long)p->nhi, (long long)p->maxd, p->mode, w);
}
