/* ir.c — the IR: values, nodes, dims, constraints, attributes, topological order.
 *
 * Everything lives in the compile's arena.  Values are found by name through a hash map
 * (hashmap.c); C identifiers are made unique through another. */
#include "onnx2c.h"
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- string maps: the HashMap of hashmap.c with string keys (copied into the arena) */

static uint64_t strhash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static bool str_eq(const void *x, const void *y) { return strcmp(x, y) == 0; }

static void str_map_init(HashMap *m, Arena *a) { hashmap_init(m, a, 64, str_eq); }

/* The value slot of key; absent, NULL or (insert) a new slot holding NULL. */
static void **map_slot(HashMap *m, const char *key, bool insert) {
    uint64_t h = strhash(key);
    HashEntry *e = insert ? hashmap_put(m, h, key) : hashmap_get(m, h, key);
    if (e && e->key == key) /* new: the map keeps a copy of the name */
        e->key = arena_strdup(m->arena, key);
    return e ? &e->val : NULL;
}

typedef struct Maps {
    HashMap values, idents;
    /* dims: name -> index + 1, lower-cased C identifier -> index + 1 (enum names are
     * upper-cased); valid for the array dims_owned of ndims_seen entries.  When another stage
     * replaces or resets g->dims (--fix, --dynamic) they are rebuilt from it. */
    HashMap dims, dimcase;
    HashMap constraints; /* "kind:a:b" by Sym ids: each constraint is recorded once */
    Dim *dims_owned;
    int ndims_seen, capdims;
} Maps;

static Maps *maps(Compiler *c) {
    if (!c->valmap) {
        Maps *m = c->valmap = arena_alloc(c->arena, sizeof(Maps));
        HashMap *all[] = {&m->values, &m->idents, &m->dims, &m->dimcase, &m->constraints};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            str_map_init(all[i], c->arena);
    }
    return c->valmap;
}

/* ---- data types */

size_t dtype_size(DType t) {
    switch (t) {
    case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
    case DT_DOUBLE: case DT_INT64: case DT_UINT64: return 8;
    case DT_INT16: case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16: return 2;
    case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
    default: return 0;
    }
}

const char *dtype_ctype(DType t) {
    switch (t) {
    case DT_FLOAT: return "float";
    case DT_DOUBLE: return "double";
    case DT_INT8: return "int8_t";
    case DT_INT16: return "int16_t";
    case DT_INT32: return "int32_t";
    case DT_INT64: return "int64_t";
    case DT_UINT8: case DT_BOOL: return "uint8_t";
    case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16: return "uint16_t";
    case DT_UINT32: return "uint32_t";
    case DT_UINT64: return "uint64_t";
    default: return "void";
    }
}

const char *dtype_name(DType t) {
    static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16",
                                        "int16", "int32", "int64", "string", "bool", "float16",
                                        "double", "uint32", "uint64", "complex64", "complex128",
                                        "bfloat16"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

/* the library's names for the two (libonnx2c.h) */
size_t onnx2c_dtype_size(DType t) {
    return dtype_size(t);
}

const char *onnx2c_dtype_name(DType t) {
    return dtype_name(t);
}

const char *dtype_suffix(DType t) {
    static const char *const sfx[] = {"x", "f32", "u8", "i8", "u16", "i16", "i32", "i64", "str",
                                      "b8", "f16", "f64", "u32", "u64", "c64", "c128", "bf16"};
    return (unsigned)t < sizeof sfx / sizeof *sfx ? sfx[t] : "x";
}

bool dtype_is_float(DType t) { return t == DT_FLOAT || t == DT_DOUBLE; }

bool dtype_is_int(DType t) {
    switch (t) {
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64: return true;
    default: return false;
    }
}

bool dtype_is_signed(DType t) {
    return t == DT_INT8 || t == DT_INT16 || t == DT_INT32 || t == DT_INT64 || dtype_is_float(t);
}

/* ---- values and nodes */

Value *ir_find_value(Compiler *c, const char *name) {
    void **slot = map_slot(&maps(c)->values, name, false);
    return slot ? *slot : NULL;
}

Value *ir_value(Compiler *c, const char *name) {
    void **slot = map_slot(&maps(c)->values, name, true);
    if (*slot)
        return *slot;
    Graph *g = c->g;
    Value *v = arena_alloc(c->arena, sizeof *v);
    v->name = arena_strdup(c->arena, name);
    v->rank = -1;
    v->kind = VAL_TEMP;
    v->input_index = v->output_index = -1;
    v->first_def = -1;
    v->last_use = -1;
    g->values = arena_grow(c->arena, g->values, g->nvalues, &g->capvalues, 64, sizeof(Value *));
    v->id = g->nvalues;
    g->values[g->nvalues++] = v;
    *slot = v;
    return v;
}

Node *ir_add_node(Compiler *c, const char *op_type, const char *name) {
    Graph *g = c->g;
    Node *n = arena_alloc(c->arena, sizeof *n);
    n->op_type = arena_strdup(c->arena, op_type ? op_type : "");
    n->name = (name && *name) ? arena_strdup(c->arena, name)
                              : arena_printf(c->arena, "%s_%d", n->op_type, g->nnodes);
    n->domain = "";
    n->opset = g->opset;
    g->nodes = arena_grow(c->arena, g->nodes, g->nnodes, &g->capnodes, 64, sizeof(Node *));
    n->index = g->nnodes;
    g->nodes[g->nnodes++] = n;
    return n;
}

/* The largest element count a value may have (also keeps every product of constant dims,
 * and byte sizes, far from int64 overflow). */
#define MAX_ELEMS ((int64_t)1 << 48)

void ir_set_shape(Compiler *c, Value *v, DType t, int rank, Sym *const *shape) {
    /* the product of the constant dims above 1, so that a 0 does not hide the others (their
     * strides); never past MAX_ELEMS, so it cannot overflow (negative dims are refused by
     * infer_graph) */
    int64_t numel = 1, d;
    for (int i = 0; i < rank; i++)
        if (sym_get_const(shape[i], &d) && d > 1) {
            if (d > MAX_ELEMS / numel)
                o2c_error(c, c->cur, "'%s' would have more than 2^48 elements", v->name);
            numel *= d;
        }
    v->dtype = t;
    v->rank = rank;
    v->shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(rank > 0 ? rank : 1));
    for (int i = 0; i < rank; i++)
        v->shape[i] = shape[i];
}

void ir_set_shape_ints(Compiler *c, Value *v, DType t, int rank, const int64_t *shape) {
    Sym *s[rank > 0 ? rank : 1];
    for (int i = 0; i < rank; i++)
        s[i] = sym_const(c->sym, shape[i]);
    ir_set_shape(c, v, t, rank, s);
}

Sym **ir_strides(Compiler *c, int rank, Sym *const *shape) {
    Sym **st = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(rank > 0 ? rank : 1));
    Sym *s = sym_const(c->sym, 1);
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s = sym_mul(c->sym, s, shape[d]);
    }
    return st;
}

void ir_same_kind(Compiler *c, Value *out, const Value *in) {
    if (in->rank >= 0)
        ir_set_shape(c, out, in->dtype, in->rank, in->shape);
    else { /* an empty sequence: its elements unknown */
        out->dtype = in->dtype;
        out->rank = -1;
    }
    out->seq = in->seq;
    out->seq_len = in->seq_len;
    out->opt = in->opt;
    out->opt_none = in->opt_none;
    if (in->opt_none)
        out->data = in->data; /* an empty optional's placeholder: known */
}

Sym *ir_numel(Compiler *c, const Value *v) {
    Sym *n = sym_const(c->sym, 1);
    for (int i = 0; i < v->rank; i++)
        n = sym_mul(c->sym, n, v->shape[i]);
    return n;
}

bool ir_numel_const(const Value *v, int64_t *out) {
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++) {
        int64_t d;
        if (!sym_get_const(v->shape[i], &d) || __builtin_mul_overflow(n, d, &n))
            return false;
    }
    *out = n;
    return true;
}

static void **dimcase_slot(Compiler *c, const char *cname, bool insert) {
    char low[300];
    size_t i = 0;
    for (; cname[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)cname[i]);
    low[i] = 0;
    return map_slot(&maps(c)->dimcase, low, insert);
}

/* Makes the dim maps and array ours again after another stage changed g->dims. */
static Maps *dims_sync(Compiler *c) {
    Maps *m = maps(c);
    Graph *g = c->g;
    if (g->dims == m->dims_owned && g->ndims == m->ndims_seen)
        return m;
    str_map_init(&m->dims, c->arena);
    str_map_init(&m->dimcase, c->arena);
    m->capdims = g->ndims < 32 ? 64 : g->ndims * 2;
    Dim *nd = arena_alloc(c->arena, sizeof(Dim) * (size_t)m->capdims);
    if (g->ndims)
        memcpy(nd, g->dims, sizeof(Dim) * (size_t)g->ndims);
    g->dims = m->dims_owned = nd;
    m->ndims_seen = g->ndims;
    for (int i = 0; i < g->ndims; i++) {
        void **slot = map_slot(&m->dims, g->dims[i].name, true);
        if (!*slot)
            *slot = (void *)(intptr_t)(i + 1);
        slot = dimcase_slot(c, g->dims[i].cname, true);
        if (!*slot)
            *slot = (void *)(intptr_t)(i + 1);
    }
    return m;
}

int ir_find_dim(Compiler *c, const char *name) {
    void **slot = map_slot(&dims_sync(c)->dims, name, false);
    return slot && *slot ? (int)(intptr_t)*slot - 1 : -1;
}

/* Dims are found by name through a map and the array grows geometrically: a model with tens
 * of thousands of dims loads in linear time. */
int ir_add_dim(Compiler *c, const char *name) {
    Graph *g = c->g;
    Maps *m = dims_sync(c);
    void **slot = map_slot(&m->dims, name, true);
    if (*slot)
        return (int)(intptr_t)*slot - 1;
    if (g->ndims >= INT_MAX / 2 - 1)
        o2c_error(c, NULL, "too many dims");
    g->dims = m->dims_owned =
        arena_grow(c->arena, g->dims, g->ndims, &m->capdims, 64, sizeof(Dim));
    Dim *d = &g->dims[g->ndims];
    d->name = arena_strdup(c->arena, name);
    /* at most 40 characters of the name (the identifiers built on it, NAME_DIM_ID and d__ID,
     * stay within the 63 that C99 guarantees to tell apart) */
    char id[64];
    ir_to_cident(name, id, 41);
    /* enum names are upper-cased: dims differing only in case need distinct identifiers */
    void **cs = dimcase_slot(c, id, false);
    if (cs && *cs) {
        size_t len = strlen(id);
        snprintf(id + len, sizeof id - len, "_%d", g->ndims + 1);
    }
    d->cname = ir_cident(c, "", id);
    for (int k = 2; (cs = dimcase_slot(c, d->cname, false)) && *cs; k++) /* "A_2" after "a_2" */
        d->cname = ir_cident(c, "", arena_printf(c->arena, "%s_%d", id, k));
    *dimcase_slot(c, d->cname, true) = (void *)(intptr_t)(g->ndims + 1);
    d->fixed = d->max = -1;
    d->bound = NULL;
    d->producer = -1;
    d->exact = false;
    d->of = NULL;
    d->axis = -1;
    *slot = (void *)(intptr_t)(g->ndims + 1);
    m->ndims_seen = ++g->ndims;
    return g->ndims - 1;
}

static bool mentions_dim(const Sym *e, int d) {
    if (e->kind == SYM_DIM)
        return e->dim == d;
    for (int i = 0; i < e->n; i++)
        if (mentions_dim(e->args[i], d))
            return true;
    return false;
}

/* The unified array holds an entry for every dim (data dims are made after it was). */
static void unified_fit(Compiler *c) {
    Graph *g = c->g;
    if (g->nunified >= g->ndims)
        return;
    Sym **u = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(g->ndims + 1));
    if (g->unified)
        memcpy(u, g->unified, sizeof(Sym *) * (size_t)g->nunified);
    g->unified = u;
    g->nunified = g->ndims;
}

Sym *ir_unified(Compiler *c, Sym *e) {
    if (!c->g->any_unified)
        return e;
    unified_fit(c);
    return sym_subst(c->sym, e, c->g->unified);
}

bool ir_bcast_dim(const Sym *in, const Sym *out) {
    int64_t lo, hi;
    if (in->kind == SYM_CONST)
        return in->c == 1 && !(out->kind == SYM_CONST && out->c == 1);
    sym_range(in, &lo, &hi);
    return in != out && lo >= 0 && hi <= 1;
}

/* ---- data dims (CONTRACT §2b) */

bool ir_has_data_dim(const Compiler *c, const Sym *e) { return e->maxdim >= c->g->nin_dims; }

int ir_last_data_dim(const Compiler *c, const Sym *e) {
    return e->maxdim >= c->g->nin_dims ? e->maxdim : -1;
}

Sym *ir_data_bounded(Compiler *c, Sym *e) {
    Graph *g = c->g;
    if (!ir_has_data_dim(c, e))
        return e;
    if (g->nbounds != g->ndims) { /* data dims were added: the substitution array again */
        g->bounds = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(g->ndims + 1));
        for (int i = g->nin_dims; i < g->ndims; i++)
            g->bounds[i] = g->dims[i].bound;
        g->nbounds = g->ndims;
    }
    return sym_subst(c->sym, e, g->bounds);
}

Sym *ir_data_dim(Compiler *c, Node *n, int output, int axis, Sym *bound) {
    Graph *g = c->g;
    char name[200];
    snprintf(name, sizeof name, "%s_%s_%d", (n->ctl ? n->ctl : n)->op_type, n->out[output]->name,
             axis);
    for (char *p = name; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    const char *nm = name;
    for (int k = 2; ir_find_dim(c, nm) >= 0; k++)
        nm = arena_printf(c->arena, "%s_%d", name, k);
    int d = ir_add_dim(c, nm);
    Dim *dd = &g->dims[d];
    dd->producer = n->index;
    const Options *o = c->opt;
    for (int k = 0; o && k < o->nmax; k++)
        if (strcmp(o->max[k].name, dd->name) == 0 || strcmp(o->max[k].name, dd->cname) == 0) {
            if (o->max[k].value < 0)
                o2c_error(c, NULL, "--max %s: the value must be >= 0", o->max[k].name);
            dd->max = o->max[k].value;
        }
    /* a bound in earlier data dims: theirs put in (sizes grow with their dims); one of them
     * pending leaves this one pending too */
    if (bound && ir_has_data_dim(c, bound)) {
        for (int i = g->nin_dims; i < d && bound; i++)
            if (!g->dims[i].bound && mentions_dim(bound, i))
                bound = NULL;
        if (bound)
            bound = ir_data_bounded(c, bound);
    }
    if (dd->max >= 0) {
        Sym *m = sym_const(c->sym, dd->max);
        bound = bound ? sym_min(c->sym, bound, m) : m;
    }
    dd->bound = bound; /* NULL: pending (ir_data_declared, ir_data_unbounded) */
    dd->of = n->out[output]->name;
    dd->axis = axis;
    return sym_dim(c->sym, d);
}

void ir_data_declared(Compiler *c, Node *n) {
    Graph *g = c->g;
    for (int k = 0; k < n->nout; k++) {
        Value *v = n->out[k];
        if (!v || !v->has_decl || v->decl_rank != v->rank)
            continue;
        for (int a = 0; a < v->rank; a++) {
            Sym *s = v->shape[a], *want = v->decl_shape[a];
            if (!want || s->kind != SYM_DIM || s->dim < g->nin_dims)
                continue;
            Dim *dd = &g->dims[s->dim];
            want = ir_unified(c, want);
            if (!dd->bound) {
                dd->bound = want;
                dd->exact = true;
                g->nbounds = 0; /* ir_data_bounded's substitution is stale */
            } else if (dd->exact) {
                int64_t x, y;
                if (sym_get_const(dd->bound, &x) && sym_get_const(want, &y) && x != y)
                    o2c_error(c, n, "output '%s' is declared with dimension %d = %lld, but that "
                                    "size was declared %lld before", v->name, a, (long long)y,
                              (long long)x);
                ir_constrain(c, n, CK_EQ, dd->bound, want,
                             "declared dimension %d of '%s' must match the size declared before",
                             a, v->name);
            }
        }
    }
}

void ir_data_unbounded(Compiler *c) {
    Graph *g = c->g;
    for (int i = g->nin_dims; i < g->ndims; i++) {
        Dim *dd = &g->dims[i];
        if (!dd->bound)
            o2c_error(c, g->nodes[dd->producer],
                      "the size of axis %d of '%s' is decided by tensor data and has no bound "
                      "onnx2c can derive (no --max, no declared shape of a value it reaches): "
                      "give one with --max %s=N",
                      dd->axis, dd->of, dd->name);
    }
}

/* An equality between dims (or a dim and an expression) holds at run time once NAME_check has
 * passed, so everything downstream may use one side for the other: the later dim is replaced
 * by the earlier one, a dim by a constant or by an expression that does not mention it. */
static void unify(Compiler *c, Sym *a, Sym *b) {
    Graph *g = c->g;
    a = ir_unified(c, a);
    b = ir_unified(c, b);
    if (a == b || ir_has_data_dim(c, a) || ir_has_data_dim(c, b))
        return; /* checked where the data dim is known (emit.c), never replaced */
    int d = -1;
    Sym *to = NULL;
    if (a->kind == SYM_DIM && b->kind == SYM_DIM) {
        d = a->dim > b->dim ? a->dim : b->dim;
        to = a->dim > b->dim ? b : a;
    } else if (a->kind == SYM_DIM && !mentions_dim(b, a->dim)) {
        d = a->dim;
        to = b;
    } else if (b->kind == SYM_DIM && !mentions_dim(a, b->dim)) {
        d = b->dim;
        to = a;
    }
    if (d < 0)
        return;
    unified_fit(c);
    g->unified[d] = to;
    g->any_unified = true;
    for (int i = 0; i < g->ndims; i++)
        if (g->unified[i] && i != d)
            g->unified[i] = sym_subst(c->sym, g->unified[i], g->unified);
}

void ir_constrain(Compiler *c, const Node *n, ConstraintKind kind, Sym *a, Sym *b, const char *fmt,
                  ...) {
    Graph *g = c->g;
    if ((kind == CK_EQ || kind == CK_BCAST) && a == b)
        return;
    int64_t ca, cb;
    bool ka = sym_get_const(a, &ca), kb = sym_get_const(b, &cb);
    if (kind == CK_BCAST && ((ka && ca == 1) || (kb && cb == 1)))
        return; /* a 1 broadcasts against anything */
    va_list ap;
    va_start(ap, fmt);
    const char *what = arena_vprintf(c->arena, fmt, ap);
    va_end(ap);
    if (ka && kb) {
        bool ok = kind == CK_EQ      ? ca == cb
                  : kind == CK_LE    ? ca <= cb
                  : kind == CK_BCAST ? ca == cb || ca == 1 || cb == 1
                                     : (ca != 0 && cb % ca == 0);
        if (!ok)
            o2c_error(c, n, "%s", what);
        return;
    }
    /* false for every size: a - b is a constant that breaks the relation (N vs N + 1) */
    int64_t diff;
    if ((kind == CK_EQ || kind == CK_LE) && sym_get_const(sym_sub(c->sym, a, b), &diff)) {
        if (kind == CK_EQ ? diff != 0 : diff > 0)
            o2c_error(c, n, "%s (for every size)", what);
        return;
    }
    /* inside an If branch or a Loop/Scan body it holds only where that code runs: NAME_run
     * tests it there, and no dims are unified */
    const Node *at = n ? n : c->cur;
    if (at && !at->region)
        at = NULL;
    char key[64];
    snprintf(key, sizeof key, "%d:%d:%d:%d", (int)kind, a->id, b->id, at ? at->index : -1);
    void **seen = map_slot(&maps(c)->constraints, key, true);
    if (*seen)
        return;
    *seen = (void *)1;
    g->constraints = arena_grow(c->arena, g->constraints, g->nconstraints, &g->capconstraints,
                                16, sizeof(Constraint));
    Constraint *k = &g->constraints[g->nconstraints++];
    k->a = a;
    k->b = b;
    k->kind = kind;
    k->what = n ? arena_printf(c->arena, "node '%s' (%s): %s", n->name, n->op_type, what) : what;
    k->at = at;
    if (kind == CK_EQ && !at)
        unify(c, a, b);
}

/* s as a C identifier in out (outlen bytes): other bytes become '_', a leading digit gets a
 * '_' before it, the empty string is "_" */
void ir_to_cident(const char *s, char *out, size_t outlen) {
    size_t k = 0;
    if (outlen == 0)
        return;
    if (isdigit((unsigned char)*s) && k + 1 < outlen)
        out[k++] = '_';
    for (; *s && k + 1 < outlen; s++)
        out[k++] = (isalnum((unsigned char)*s) || *s == '_') ? *s : '_';
    if (k == 0 && outlen > 1)
        out[k++] = '_';
    out[k] = 0;
}

const char *ir_cident(Compiler *c, const char *prefix, const char *name) {
    char base[200];
    snprintf(base, sizeof base, "%s%s", prefix, name);
    char id[256];
    ir_to_cident(base, id, sizeof id);
    HashMap *m = &maps(c)->idents;
    for (int k = 1;; k++) {
        char cand[280];
        if (k == 1)
            snprintf(cand, sizeof cand, "%s", id);
        else
            snprintf(cand, sizeof cand, "%s_%d", id, k);
        void **slot = map_slot(m, cand, true);
        if (!*slot) {
            *slot = (void *)1;
            return arena_strdup(c->arena, cand);
        }
    }
}

bool ir_same_shape(const Value *a, const Value *b) {
    if (a->rank != b->rank || a->dtype != b->dtype)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

void ir_set_const(Compiler *c, Value *v, const Tensor *t) {
    v->kind = VAL_CONST;
    v->param = true;
    ir_set_shape_ints(c, v, t->dtype, t->rank, t->dims);
    v->data = t->data; /* the loader's tensor lives in the arena, and data is never written */
    v->kv = NULL;
}

int64_t ir_known_len(const Value *v) {
    int64_t n;
    if (v->rank < 0 || !ir_numel_const(v, &n))
        return -1;
    return n;
}

static int64_t load_int(const void *p, DType t, int64_t i) {
    switch (t) {
    case DT_INT64: return ((const int64_t *)p)[i];
    case DT_INT32: return ((const int32_t *)p)[i];
    case DT_INT16: return ((const int16_t *)p)[i];
    case DT_INT8: return ((const int8_t *)p)[i];
    case DT_UINT64: return (int64_t)((const uint64_t *)p)[i];
    case DT_UINT32: return ((const uint32_t *)p)[i];
    case DT_UINT16: return ((const uint16_t *)p)[i];
    case DT_UINT8: case DT_BOOL: return ((const uint8_t *)p)[i];
    default: return 0;
    }
}

Sym **ir_known_ints(Compiler *c, Value *v) {
    if (v->kv)
        return v->kv;
    if (!v->data || !(dtype_is_int(v->dtype) || v->dtype == DT_BOOL))
        return NULL;
    int64_t n = ir_known_len(v);
    if (n < 0 || n > 4096)
        return NULL;
    v->kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        v->kv[i] = sym_const(c->sym, load_int(v->data, v->dtype, i));
    return v->kv;
}

/* ---- attributes */

const Attr *node_attr(const Node *n, const char *name) {
    for (int i = 0; i < n->nattr; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

static const Attr *typed_attr(Compiler *c, const Node *n, const char *name, AttrType t) {
    const Attr *a = node_attr(n, name);
    if (a && a->type != t)
        o2c_error(c, n, "attribute '%s' has the wrong type", name);
    return a;
}

int64_t attr_int(Compiler *c, const Node *n, const char *name, int64_t def) {
    const Attr *a = typed_attr(c, n, name, ATTR_INT);
    return a ? a->i : def;
}

float attr_float(Compiler *c, const Node *n, const char *name, float def) {
    const Attr *a = node_attr(n, name);
    if (a && a->type == ATTR_INT)
        return (float)a->i;
    a = typed_attr(c, n, name, ATTR_FLOAT);
    return a ? a->f : def;
}

const char *attr_str(Compiler *c, const Node *n, const char *name, const char *def) {
    const Attr *a = typed_attr(c, n, name, ATTR_STRING);
    return a ? a->s : def;
}

int attr_ints(Compiler *c, const Node *n, const char *name, const int64_t **out) {
    const Attr *a = typed_attr(c, n, name, ATTR_INTS);
    *out = a ? a->ints : NULL;
    return a ? a->n : -1;
}

int attr_floats(Compiler *c, const Node *n, const char *name, const float **out) {
    const Attr *a = typed_attr(c, n, name, ATTR_FLOATS);
    *out = a ? a->floats : NULL;
    return a ? a->n : -1;
}

void attr_ints_n(Compiler *c, const Node *n, const char *name, int len, int64_t def, int64_t lo,
                 int64_t *out) {
    const int64_t *v;
    int cnt = attr_ints(c, n, name, &v);
    for (int i = 0; i < len; i++)
        out[i] = def;
    if (cnt < 0)
        return;
    if (cnt != len)
        o2c_error(c, n, "attribute '%s' has %d values, expected %d", name, cnt, len);
    for (int i = 0; i < len; i++) {
        if (v[i] < lo)
            o2c_error(c, n, "%s[%d] = %lld: must be >= %lld", name, i, (long long)v[i],
                      (long long)lo);
        if (v[i] > ATTR_SIZE_MAX)
            o2c_error(c, n, "%s[%d] = %lld is too large (at most %lld)", name, i, (long long)v[i],
                      (long long)ATTR_SIZE_MAX);
        out[i] = v[i];
    }
}

int attr_auto_pad(Compiler *c, const Node *n) {
    const char *s = attr_str(c, n, "auto_pad", "NOTSET");
    if (!strcmp(s, "NOTSET"))
        return AUTO_PAD_NOTSET;
    if (!strcmp(s, "VALID"))
        return AUTO_PAD_VALID;
    if (!strcmp(s, "SAME_UPPER"))
        return AUTO_PAD_SAME_UPPER;
    if (!strcmp(s, "SAME_LOWER"))
        return AUTO_PAD_SAME_LOWER;
    o2c_error(c, n, "auto_pad '%s' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", s);
}

int attr_conv(Compiler *c, const Node *n, int sp, int64_t *stride, int64_t *dil, int64_t *pads,
              int64_t *group) {
    int mode = attr_auto_pad(c, n);
    attr_ints_n(c, n, "strides", sp, 1, 1, stride);
    attr_ints_n(c, n, "dilations", sp, 1, 1, dil);
    attr_ints_n(c, n, "pads", 2 * sp, 0, 0, pads);
    if (mode != AUTO_PAD_NOTSET)
        for (int i = 0; i < 2 * sp; i++)
            pads[i] = 0;
    *group = attr_int(c, n, "group", 1);
    if (*group < 1)
        o2c_error(c, n, "group %lld must be positive", (long long)*group);
    return mode;
}

Value *node_in(const Node *n, int i) { return i < n->nin ? n->in[i] : NULL; }

/* ---- topological order
 * Kahn's algorithm in file order, so a well-ordered model keeps its order (deterministic
 * output).  A value that is consumed but neither produced, an input, nor an initializer is a
 * dangling input; nodes left over are on a cycle. */
/* ---- topological order with control flow
 *
 * The nodes of a region (an If branch, a Loop or Scan body) run between their control node
 * and its marker.  So the order is made level by level: the top-level nodes, each standing
 * for everything inside it, then each region's own nodes, after which the whole is flattened:
 * control node, its first region's nodes, (o2c_Else, the second region's nodes), o2c_End. */

static Node *region_owner(const Graph *g, int r) {
    return g->regions[r - 1]->owner;
}

/* What stands for n among the nodes of region lvl (0: top level): n's ancestor there (a
 * marker stands for its control node), or NULL when n is not inside lvl. */
static Node *unit_at(const Graph *g, Node *n, int lvl) {
    if (n->ctl)
        n = n->ctl;
    while (n->region != lvl) {
        if (!n->region)
            return NULL;
        n = region_owner(g, n->region);
    }
    return n;
}

static int region_depth(const Graph *g, int r) {
    int d = 0;
    for (; r; r = region_owner(g, r)->region)
        d++;
    return d;
}

/* The innermost region holding regions a and b (0: the top level). */
static int common_region(const Graph *g, int a, int b) {
    int da = region_depth(g, a), db = region_depth(g, b);
    for (; da > db; da--)
        a = region_owner(g, a)->region;
    for (; db > da; db--)
        b = region_owner(g, b)->region;
    while (a != b) {
        a = region_owner(g, a)->region;
        b = region_owner(g, b)->region;
    }
    return a;
}

typedef struct Topo {
    int *ndeps;
    Node ***deps;  /* per node index: the units of its level it must follow */
    bool *done;
    Node **order;
    int k;
} Topo;

/* Orders list[0..n) (the units of one level) by their deps; errors on a cycle. */
static void topo_level(Compiler *c, Topo *t, Node **list, int n) {
    Node **order = arena_alloc(c->arena, sizeof(Node *) * (size_t)(n + 1));
    int k = 0, start = 0;
    bool progress = true;
    /* O(n^2) worst case but linear for models already in order, which is the common case */
    while (k < n && progress) {
        progress = false;
        for (int i = start; i < n; i++) {
            Node *x = list[i];
            if (t->done[x->index])
                continue;
            bool ready = true;
            for (int j = 0; j < t->ndeps[x->index] && ready; j++)
                ready = t->done[t->deps[x->index][j]->index];
            if (!ready)
                continue;
            t->done[x->index] = true;
            order[k++] = x;
            progress = true;
            if (i == start)
                while (start < n && t->done[list[start]->index])
                    start++;
        }
    }
    if (k < n)
        for (int i = 0; i < n; i++)
            if (!t->done[list[i]->index])
                o2c_error(c, list[i], "the graph has a cycle through this node");
    memcpy(list, order, sizeof(Node *) * (size_t)n);
}

/* Appends the ordered list and, after each control node, its regions and markers. */
static void topo_flatten(Compiler *c, Topo *t, Node **list, int n) {
    for (int i = 0; i < n; i++) {
        Node *x = list[i];
        t->order[t->k++] = x;
        for (int r = 0; r < x->nsub; r++) {
            Region *rg = x->sub[r];
            rg->begin = t->k - 1;
            topo_level(c, t, rg->nodes, rg->nnodes);
            topo_flatten(c, t, rg->nodes, rg->nnodes);
            /* the region's marker: o2c_Else closes an If's then branch, o2c_End the last */
            rg->end = t->k;
            t->order[t->k++] = rg->close;
        }
    }
}

void ir_toposort(Compiler *c) {
    Graph *g = c->g;
    int nn0 = g->nnodes;
    for (int i = 0; i < nn0; i++) /* control nodes: their formal inputs and markers */
        if (g->nodes[i]->nsub)
            control_prepare(c, g->nodes[i]);
    int nn = g->nnodes;
    for (int i = 0; i < g->nvalues; i++)
        g->values[i]->producer = NULL;
    for (int i = 0; i < nn; i++) {
        Node *n = g->nodes[i];
        n->index = i;
        for (int k = 0; k < n->nout; k++) {
            Value *v = n->out[k];
            if (!v)
                continue;
            if (v->producer || v->kind == VAL_INPUT || v->kind == VAL_CONST)
                o2c_error(c, n, "output '%s' is already defined elsewhere in the graph", v->name);
            v->producer = n;
        }
    }
    for (int i = 0; i < nn; i++) {
        Node *n = g->nodes[i];
        for (int k = 0; k < n->nin; k++) {
            Value *v = n->in[k];
            if (v && !v->producer && v->kind != VAL_INPUT && v->kind != VAL_CONST)
                o2c_error(c, n->ctl ? n->ctl : n, "%s '%s' is not produced by any node, graph "
                          "input or initializer", n->ctl ? "subgraph output" : "input", v->name);
        }
    }
    for (int i = 0; i < g->noutputs; i++) {
        Value *v = g->outputs[i];
        if (!v->producer && v->kind != VAL_INPUT && v->kind != VAL_CONST)
            o2c_error(c, NULL, "graph output '%s' is not produced by any node", v->name);
        if (v->producer && (v->producer->ctl ? v->producer->ctl : v->producer)->region)
            o2c_error(c, v->producer, "graph output '%s' is defined inside a subgraph", v->name);
    }
    Topo t = {0};
    t.ndeps = arena_alloc(c->arena, sizeof(int) * (size_t)(nn + 1));
    t.deps = arena_alloc(c->arena, sizeof(Node **) * (size_t)(nn + 1));
    t.done = arena_alloc(c->arena, (size_t)(nn + 1));
    t.order = arena_alloc(c->arena, sizeof(Node *) * (size_t)(nn + 1));
    int *cap = arena_alloc(c->arena, sizeof(int) * (size_t)(nn + 1));
    Node **top = arena_alloc(c->arena, sizeof(Node *) * (size_t)(nn + 1));
    int ntop = 0;
    for (int i = 0; i < nn; i++) {
        Node *x = g->nodes[i];
        if (!x->ctl && !x->region) /* (a marker goes after its region: topo_flatten) */
            top[ntop++] = x;
        for (int k = 0; k < x->nin; k++) {
            Value *v = x->in[k];
            if (!v || !v->producer)
                continue;
            Node *p = v->producer;
            int xr = (x->ctl ? x->ctl : x)->region, pr = (p->ctl ? p->ctl : p)->region;
            int lvl = xr == pr ? xr : common_region(g, xr, pr);
            /* a value is seen in the region defining it and the regions inside (a marker reads
             * its own regions' outputs) */
            if (lvl != pr && !x->ctl)
                o2c_error(c, x, "input '%s' is defined inside a subgraph this node is not in",
                          v->name);
            Node *ux = unit_at(g, x, lvl), *up = unit_at(g, p, lvl);
            if (ux == up)
                continue;
            t.deps[ux->index] = arena_grow(c->arena, t.deps[ux->index], t.ndeps[ux->index],
                                           &cap[ux->index], 4, sizeof(Node *));
            t.deps[ux->index][t.ndeps[ux->index]++] = up;
        }
    }
    topo_level(c, &t, top, ntop);
    topo_flatten(c, &t, top, ntop);
    O2C_ASSERT(c, t.k == nn);
    for (int i = 0; i < nn; i++) {
        g->nodes[i] = t.order[i];
        t.order[i]->index = i;
    }
}
