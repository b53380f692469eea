/* misc.c — op family: index and matrix-structure ops that fit no other family.
 *
 * Trilu, CumSum, OneHot, ScatterElements/Scatter, ScatterND, GatherND, TopK, EyeLike, Einsum,
 * MeanVarianceNormalization.  Each rule below cites its ONNX operator and formula.  Shapes are
 * Sym arithmetic; values that decide an output shape (OneHot's depth, TopK's k) must be known at
 * compile time, while values that only steer the computation (Trilu's k, CumSum's axis,
 * indices) are read at run time.  Where ONNX calls an index out of range an error (GatherND,
 * ScatterElements, Scatter, ScatterND, CumSum's axis) the kernel checks every index first and
 * NAME_run returns O2C_RUN_EINDEX with the outputs untouched; OneHot's out-of-range indices
 * give rows of `off` (defined by ONNX).  Any int64 index value is safe: no read or write
 * outside a buffer, no signed overflow.
 * Code: small kernels from templates/misc_*.c taking sizes as int64_t arguments, or short loop
 * nests written here (OneHot, EyeLike, Einsum). */
#include "onnx2c.h"
#include <ctype.h>
#include <string.h>

/* ---- helpers */

/* The one element of a known scalar (or 1-element) tensor of any numeric type, as a double. */
static bool known_scalar(Compiler *c, Value *v, double *out) {
    int64_t len;
    if (!ir_numel_const(v, &len) || len != 1)
        return false;
    if (v->data) {
        const void *d = v->data;
        switch (v->dtype) {
        case DT_FLOAT: *out = *(const float *)d; return true;
        case DT_DOUBLE: *out = *(const double *)d; return true;
        case DT_INT8: *out = *(const int8_t *)d; return true;
        case DT_INT16: *out = *(const int16_t *)d; return true;
        case DT_INT32: *out = *(const int32_t *)d; return true;
        case DT_INT64: *out = (double)*(const int64_t *)d; return true;
        case DT_UINT8: *out = *(const uint8_t *)d; return true;
        case DT_UINT16: *out = *(const uint16_t *)d; return true;
        case DT_UINT32: *out = *(const uint32_t *)d; return true;
        case DT_UINT64: *out = (double)*(const uint64_t *)d; return true;
        default: return false;
        }
    }
    Sym **kv = ir_known_ints(c, v);
    int64_t k;
    if (kv && sym_get_const(kv[0], &k)) {
        *out = (double)k;
        return true;
    }
    return false;
}

static bool numeric(DType t) { return dtype_is_float(t) || dtype_is_int(t); }

/* The C expression of element 0 of a scalar input as int64_t.  A float one is truncated when
 * it lies in (-2^63, 2^63); otherwise (NaN, infinities, huge values, which C may not convert)
 * it gives INT64_MIN, which no dim equals. */
static const char *scalar_i64(Emit *e, Value *v) {
    const char *p = emit_ptr(e, v);
    if (dtype_is_float(v->dtype))
        return arena_printf(emit_arena(e),
                            "((double)%s[0] > -9223372036854775808.0 && (double)%s[0] < "
                            "9223372036854775808.0 ? (int64_t)%s[0] : INT64_MIN)",
                            p, p, p);
    return arena_printf(emit_arena(e), "(int64_t)%s[0]", p);
}

/* ---- Trilu (opset 14): y = x where j - i >= k (upper, default) or j - i <= k (lower) on the
 * last two axes, else 0; k is the optional scalar input 1 (default 0), read at run time. */

void infer_trilu(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *x = infer_in(c, n, 0), *k = node_in(n, 1);
    if (x->rank < 2)
        o2c_error(c, n, "input rank %d: expected rank >= 2", x->rank);
    if (k && (!dtype_is_int(k->dtype) || (k->rank != 0 && ir_numel(c, k) != sym_const(c->sym, 1))))
        o2c_error(c, n, "k must be an integer scalar");
    int64_t upper = attr_int(c, n, "upper", 1);
    if (upper != 0 && upper != 1)
        o2c_error(c, n, "upper = %lld: must be 0 or 1", (long long)upper);
    n->op_i[0] = upper;
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_trilu(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *k = node_in(n, 1);
    const char *sfx = emit_template(e, "misc_trilu", x->dtype);
    emit_line(e, "trilu_%s(%s, %s, %s, %s, %s, %s, %d);", sfx, emit_ptr(e, x),
              emit_ptr(e, n->out[0]), emit_sym(e, sym_prod(c->sym, x->shape, 0, x->rank - 2)),
              emit_sym(e, x->shape[x->rank - 2]), emit_sym(e, x->shape[x->rank - 1]),
              k ? scalar_i64(e, k) : "0", (int)n->op_i[0]);
}

/* ---- CumSum (opset 11+): y[..i..] = sum over j <= i (j < i when exclusive; reversed when
 * reverse) of x[..j..] along `axis`, the scalar input 1 (checked here when known, else read at
 * run time: outside [-rank, rank) NAME_run returns O2C_RUN_EINDEX). */

void infer_cumsum(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *x = infer_in(c, n, 0), *a = infer_in(c, n, 1);
    if (!numeric(x->dtype))
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    if (x->rank < 1)
        o2c_error(c, n, "input is a scalar: CumSum needs rank >= 1");
    if (a->dtype != DT_INT32 && a->dtype != DT_INT64)
        o2c_error(c, n, "axis type %s: expected int32 or int64", dtype_name(a->dtype));
    double av;
    if (known_scalar(c, a, &av)) { /* an int32/int64 as a double: checked before converting */
        if (!(av >= -x->rank && av < x->rank))
            o2c_error(c, n, "axis %.0f is out of range for rank %d", av, x->rank);
        infer_axis(c, n, (int64_t)av, x->rank);
    }
    for (int i = 0; i < 2; i++) {
        const char *name = i ? "reverse" : "exclusive";
        int64_t v = attr_int(c, n, name, 0);
        if (v != 0 && v != 1)
            o2c_error(c, n, "%s = %lld: must be 0 or 1", name, (long long)v);
        n->op_i[i] = v; /* exclusive, reverse */
    }
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_cumsum(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *a = n->in[1];
    const char *sfx = emit_template(e, "misc_cumsum", x->dtype);
    const char *shape = emit_sym_array(e, "shape", x->rank, x->shape);
    double av;
    const char *axis = known_scalar(c, a, &av) ? emit_int(e, (int64_t)av) : scalar_i64(e, a);
    emit_line(e, "if (cumsum_%s(%s, %s, %s, %d, %s, %d, %d))", sfx, emit_ptr(e, x),
              emit_ptr(e, n->out[0]), shape, x->rank, axis, (int)n->op_i[0],
              (int)n->op_i[1]);
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}

/* ---- OneHot (opset 9+): y has indices' shape with depth inserted at `axis` (default -1, the
 * new last axis); y[.., d, ..] = values[1] where indices (negative + depth) == d, else
 * values[0].  depth must be known at compile time: it is a dim of y. */

typedef struct OneHot {
    Sym *outer, *depth, *inner;
    Value *rt_depth; /* declared shapes: depth read at run time (the declared dim) */
} OneHot;

void infer_onehot(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *ind = infer_in(c, n, 0), *dv = infer_in(c, n, 1), *vals = infer_in(c, n, 2);
    if (!numeric(ind->dtype))
        o2c_error(c, n, "indices type %s is not supported", dtype_name(ind->dtype));
    int64_t len;
    if (vals->rank != 1 || (len = infer_implied_len(c, n, vals, 2, "values")) != 2)
        o2c_error(c, n, "values must be a 2-element vector [off, on]");
    int r = ind->rank;
    int axis = infer_axis(c, n, attr_int(c, n, "axis", -1), r + 1);
    if (axis < 0)
        axis += r + 1;
    OneHot *p = arena_alloc(c->arena, sizeof *p);
    double dd;
    if (known_scalar(c, dv, &dd)) {
        if (!(dd >= 1) || dd > 1e15)
            o2c_error(c, n, "depth = %g: must be positive", dd);
        p->depth = sym_const(c->sym, (int64_t)dd);
    } else if (numeric(dv->dtype) && infer_declared_shape(c, n, n->out[0], vals->dtype) &&
               n->out[0]->rank == r + 1 && infer_implied_len(c, n, dv, 1, "depth") == 1) {
        /* runtime depth: the declared dim, checked by emit_onehot */
        p->depth = n->out[0]->shape[axis];
        p->rt_depth = dv;
    } else
        infer_not_known(c, n, dv, "depth", true);
    p->outer = sym_prod(c->sym, ind->shape, 0, axis);
    p->inner = sym_prod(c->sym, ind->shape, axis, r);
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
    for (int i = 0, j = 0; i <= r; i++)
        shape[i] = i == axis ? p->depth : ind->shape[j++];
    ir_set_shape(c, n->out[0], vals->dtype, r + 1, shape);
    n->priv = p;
}

void emit_onehot(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const OneHot *p = n->priv;
    const char *ind = emit_ptr(e, n->in[0]), *v = emit_ptr(e, n->in[2]);
    const char *y = emit_ptr(e, n->out[0]);
    const char *D = emit_sym(e, p->depth), *in = emit_sym(e, p->inner);
    if (p->rt_depth) {
        emit_line(e, "if (%s != %s)", scalar_i64(e, p->rt_depth), D);
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    }
    emit_line(e, "for (int64_t o = 0; o < %s; o++) {", emit_sym(e, p->outer));
    emit_line(e, "    for (int64_t i = 0; i < %s; i++) {", in);
    emit_line(e, "        double f = (double)%s[o * %s + i];", ind, in);
    emit_line(e, "        int64_t t = f >= -(double)%s && f < (double)%s ? (int64_t)f : %s;", D, D,
              D);
    emit_line(e, "        if (t < 0)");
    emit_line(e, "            t += %s;", D);
    emit_line(e, "        for (int64_t d = 0; d < %s; d++)", D);
    emit_line(e, "            %s[(o * %s + d) * %s + i] = d == t ? %s[1] : %s[0];", y, D, in, v, v);
    emit_line(e, "    }");
    emit_line(e, "}");
}

/* ---- ScatterElements (opset 11+) and Scatter (opset 9-10): y = data, then for every position
 * p of indices, y[p with axis coordinate indices[p]] = updates[p] (or +=, *=, max, min with
 * `reduction`, opset 16/18). */

static int parse_reduction(Compiler *c, Node *n) {
    const char *r = attr_str(c, n, "reduction", "none");
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(r, names[i]))
            return i;
    o2c_error(c, n, "reduction '%s' is not none, add, mul, max or min", r);
}

typedef struct Scatter {
    int axis, reduction;
    Sym *nidx, *k, *slice; /* ScatterND */
} Scatter;

void infer_scatter_elements(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *d = infer_in(c, n, 0), *ind = infer_in(c, n, 1), *u = infer_in(c, n, 2);
    if (ind->dtype != DT_INT32 && ind->dtype != DT_INT64)
        o2c_error(c, n, "indices type %s: expected int32 or int64", dtype_name(ind->dtype));
    if (u->dtype != d->dtype)
        o2c_error(c, n, "updates type %s differs from data type %s", dtype_name(u->dtype),
                  dtype_name(d->dtype));
    if (d->rank < 1 || ind->rank != d->rank || u->rank != d->rank)
        o2c_error(c, n, "data, indices and updates must have one rank >= 1 (%d, %d, %d)", d->rank,
                  ind->rank, u->rank);
    Scatter *p = arena_alloc(c->arena, sizeof *p);
    p->axis = infer_axis(c, n, attr_int(c, n, "axis", 0), d->rank);
    p->reduction = parse_reduction(c, n);
    if (p->reduction && !numeric(d->dtype))
        o2c_error(c, n, "reduction on type %s is not supported", dtype_name(d->dtype));
    for (int i = 0; i < d->rank; i++) {
        ir_constrain(c, n, CK_EQ, u->shape[i], ind->shape[i], "updates dim %d must equal indices dim",
                     i);
        if (i != p->axis)
            ir_constrain(c, n, CK_LE, ind->shape[i], d->shape[i], "indices dim %d must be <= data dim",
                         i);
    }
    ir_set_shape(c, n->out[0], d->dtype, d->rank, d->shape);
    n->priv = p;
}

void emit_scatter_elements(Compiler *c, Emit *e, Node *n) {
    const Scatter *p = n->priv;
    Value *d = n->in[0], *ind = n->in[1], *u = n->in[2];
    const char *sfx = emit_template(e, "misc_scatter", d->dtype);
    const char *is = emit_sym_array(e, "ishape", ind->rank, ind->shape);
    const char *ds = emit_sym_array(e, "dshape", d->rank, d->shape);
    emit_line(e, "if (scatter_elements_%s(%s, %s, %s, %s, %d, %s, %s, %s, %d, %d, %d))", sfx,
              emit_ptr(e, n->out[0]), emit_ptr(e, d), emit_sym(e, ir_numel(c, d)),
              emit_ptr(e, ind), ind->dtype == DT_INT32, emit_ptr(e, u), is, ds, d->rank, p->axis,
              p->reduction);
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}

/* ---- ScatterND (opset 11+): indices [..., k], updates = indices.shape[:-1] +
 * data.shape[k:]; y = data, then y[indices[i]] = updates[i] (or the reduction) per tuple. */

void infer_scatternd(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *d = infer_in(c, n, 0), *ind = infer_in(c, n, 1), *u = infer_in(c, n, 2);
    if (ind->dtype != DT_INT64)
        o2c_error(c, n, "indices type %s: expected int64", dtype_name(ind->dtype));
    if (u->dtype != d->dtype)
        o2c_error(c, n, "updates type %s differs from data type %s", dtype_name(u->dtype),
                  dtype_name(d->dtype));
    /* k follows from the ranks (updates rank = q - 1 + r - k), so a symbolic last dim of
     * indices is fine: it must equal k at run time */
    int q = ind->rank;
    if (q < 1)
        o2c_error(c, n, "indices must have rank >= 1");
    int64_t k = (int64_t)q - 1 + d->rank - u->rank, kd;
    if (k < 1 || k > d->rank)
        o2c_error(c, n, "ranks of data (%d), indices (%d) and updates (%d) do not fit", d->rank, q,
                  u->rank);
    if (sym_get_const(ind->shape[q - 1], &kd) && kd != k)
        o2c_error(c, n, "index tuples of %lld entries: updates rank %d expects %lld",
                  (long long)kd, u->rank, (long long)k);
    ir_constrain(c, n, CK_EQ, ind->shape[q - 1], sym_const(c->sym, k),
                 "the last dim of indices must be %lld", (long long)k);
    for (int i = 0; i < u->rank; i++) {
        Sym *want = i < q - 1 ? ind->shape[i] : d->shape[(int)k + i - (q - 1)];
        ir_constrain(c, n, CK_EQ, u->shape[i], want, "updates dim %d does not match", i);
    }
    Scatter *p = arena_alloc(c->arena, sizeof *p);
    p->reduction = parse_reduction(c, n);
    if (p->reduction && !numeric(d->dtype))
        o2c_error(c, n, "reduction on type %s is not supported", dtype_name(d->dtype));
    p->k = sym_const(c->sym, k);
    p->nidx = sym_prod(c->sym, ind->shape, 0, q - 1);
    p->slice = sym_prod(c->sym, d->shape, (int)k, d->rank);
    ir_set_shape(c, n->out[0], d->dtype, d->rank, d->shape);
    n->priv = p;
}

void emit_scatternd(Compiler *c, Emit *e, Node *n) {
    const Scatter *p = n->priv;
    Value *d = n->in[0];
    const char *sfx = emit_template(e, "misc_scatternd", d->dtype);
    const char *ds = emit_sym_array(e, "dshape", d->rank, d->shape);
    emit_line(e, "if (scatternd_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %d))", sfx,
              emit_ptr(e, n->out[0]), emit_ptr(e, d), emit_sym(e, ir_numel(c, d)),
              emit_ptr(e, n->in[1]), emit_ptr(e, n->in[2]), ds, emit_sym(e, p->nidx),
              emit_sym(e, p->k), emit_sym(e, p->slice), p->reduction);
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}

/* ---- GatherND (opset 11+, batch_dims 12+): indices [b..., ..., k], k known at compile time
 * (the output's rank depends on it);
 * y = indices.shape[:-1] + data.shape[b+k:], y[.., t, ..] = data[batch, indices[batch, t], ..]. */

typedef struct GatherND {
    int b, k;
    Sym *nbatch, *ntuple, *slice, *bstride;
} GatherND;

void infer_gathernd(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *d = infer_in(c, n, 0), *ind = infer_in(c, n, 1);
    if (ind->dtype != DT_INT64)
        o2c_error(c, n, "indices type %s: expected int64", dtype_name(ind->dtype));
    int64_t b = attr_int(c, n, "batch_dims", 0), k;
    int q = ind->rank, r = d->rank;
    if (q < 1 || r < 1)
        o2c_error(c, n, "data and indices must have rank >= 1");
    if (b < 0 || b >= q || b >= r)
        o2c_error(c, n, "batch_dims = %lld: must be below both ranks", (long long)b);
    if (!sym_get_const(ind->shape[q - 1], &k)) {
        /* symbolic: the output's declared rank q - 1 + r - b - k decides it (a constraint) */
        Value *y = n->out[0];
        if (!y->has_decl || y->decl_rank < 0)
            o2c_error(c, n, "the last dim of indices must be known at compile time unless the "
                            "model declares the output's shape");
        k = q - 1 + r - b - y->decl_rank;
        if (k < 1 || k > r - b)
            o2c_error(c, n, "output '%s' is declared with rank %d, which no index tuple length "
                      "gives", y->name, y->decl_rank);
        ir_constrain(c, n, CK_EQ, ind->shape[q - 1], sym_const(c->sym, k),
                     "the last dim of indices must be %lld (the declared rank of '%s' implies it)",
                     (long long)k, y->name);
    }
    if (k < 1 || k > r - b)
        o2c_error(c, n, "index tuples of %lld entries for data of rank %d with %lld batch dims",
                  (long long)k, r, (long long)b);
    for (int i = 0; i < (int)b; i++)
        ir_constrain(c, n, CK_EQ, ind->shape[i], d->shape[i], "batch dim %d must match", i);
    GatherND *p = arena_alloc(c->arena, sizeof *p);
    p->b = (int)b;
    p->k = (int)k;
    p->nbatch = sym_prod(c->sym, d->shape, 0, (int)b);
    p->ntuple = sym_prod(c->sym, ind->shape, (int)b, q - 1);
    p->slice = sym_prod(c->sym, d->shape, (int)(b + k), r);
    p->bstride = sym_prod(c->sym, d->shape, (int)b, r);
    int orank = q - 1 + r - (int)(b + k);
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(orank + 1));
    for (int i = 0; i < orank; i++)
        shape[i] = i < q - 1 ? ind->shape[i] : d->shape[(int)(b + k) + i - (q - 1)];
    ir_set_shape(c, n->out[0], d->dtype, orank, shape);
    n->priv = p;
}

void emit_gathernd(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const GatherND *p = n->priv;
    Value *d = n->in[0];
    const char *sfx = emit_template(e, "misc_gathernd", d->dtype);
    const char *ds = emit_sym_array(e, "dshape", p->k, d->shape + p->b);
    emit_line(e, "if (gathernd_%s(%s, %s, %s, %s, %s, %s, %d, %s, %s))", sfx, emit_ptr(e, d),
              emit_ptr(e, n->in[1]), emit_ptr(e, n->out[0]), ds, emit_sym(e, p->nbatch),
              emit_sym(e, p->ntuple), p->k, emit_sym(e, p->slice), emit_sym(e, p->bstride));
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}

/* ---- TopK (opset 1: attribute k; 10+: input K; 11+: largest, sorted): the k largest (or
 * smallest) elements along `axis` (default -1) and their int64 indices, sorted, ties by lower
 * index.  k must be known at compile time (it is a dim of the outputs), possibly symbolic (a
 * Sym from shape arithmetic: torch.sort/argsort along a dynamic axis exports k = that dim); the
 * kernel takes k at run time; k <= the axis size. */

typedef struct TopK {
    Sym *outer, *n, *inner, *k;
    Value *rt_k; /* declared shapes: K read at run time (the declared dim) */
    bool k_data; /* no declared shape: K is the data dim k */
} TopK;

void infer_topk(Compiler *c, Node *n) {
    infer_require_inputs(c, n, 1, n->opset >= 10 ? 2 : 1);
    infer_require_outputs(c, n, 2, 2);
    Value *x = infer_in(c, n, 0);
    if (!numeric(x->dtype))
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    if (x->rank < 1)
        o2c_error(c, n, "input is a scalar: TopK needs rank >= 1");
    double kv;
    Value *rt_k = NULL;
    Sym *sym_k = NULL; /* known but symbolic k (the size of a dynamic axis: torch.sort) */
    bool k_data = false;
    if (n->opset >= 10) {
        Value *kin = infer_in(c, n, 1);
        Sym **ks;
        if (known_scalar(c, kin, &kv))
            ;
        else if (dtype_is_int(kin->dtype) && ir_known_len(kin) == 1 &&
                 (ks = ir_known_ints(c, kin))) {
            sym_k = ks[0];
            kv = 0;
        } else if (dtype_is_int(kin->dtype) && infer_declared_shape(c, n, n->out[0], x->dtype) &&
                 n->out[0]->rank == x->rank && infer_implied_len(c, n, kin, 1, "K") == 1) {
            /* runtime K: the declared dim, checked by emit_topk */
            rt_k = kin;
            kv = 0;
        } else if (dtype_is_int(kin->dtype) && infer_implied_len(c, n, kin, 1, "K") == 1) {
            /* runtime K without a declared shape: a data dim, at most the axis (below) */
            rt_k = kin;
            k_data = true;
            kv = 0;
        } else
            infer_not_known(c, n, kin, "K", true);
    } else {
        if (!node_attr(n, "k"))
            o2c_error(c, n, "attribute k is required");
        kv = (double)attr_int(c, n, "k", 0);
    }
    if (!(kv >= 0) || kv > 1e15)
        o2c_error(c, n, "k = %g: must be >= 0", kv);
    int axis = infer_axis(c, n, attr_int(c, n, "axis", -1), x->rank);
    int64_t largest = attr_int(c, n, "largest", 1), sorted = attr_int(c, n, "sorted", 1);
    if ((largest != 0 && largest != 1) || (sorted != 0 && sorted != 1))
        o2c_error(c, n, "largest and sorted must be 0 or 1");
    n->op_i[0] = largest;
    TopK *p = arena_alloc(c->arena, sizeof *p);
    p->k = sym_k ? sym_k : sym_const(c->sym, (int64_t)kv);
    if (rt_k) {
        p->k = k_data ? ir_data_dim(c, n, 0, axis, x->shape[axis]) : n->out[0]->shape[axis];
        p->rt_k = rt_k;
        p->k_data = k_data;
    }
    p->outer = sym_prod(c->sym, x->shape, 0, axis);
    p->n = x->shape[axis];
    p->inner = sym_prod(c->sym, x->shape, axis + 1, x->rank);
    if (rt_k || sym_k)
        ir_constrain(c, n, CK_LE, p->k, p->n, "k must not exceed the size of axis %d", axis);
    else
        ir_constrain(c, n, CK_LE, p->k, p->n, "k (%lld) must not exceed the size of axis %d",
                     (long long)kv, axis);
    Sym **shape = arena_dup(c->arena, x->shape, sizeof(Sym *) * (size_t)x->rank);
    for (int d = 0; rt_k && !k_data && d < x->rank; d++)
        if (d != axis && n->out[0]->shape[d] != x->shape[d])
            ir_constrain(c, n, CK_EQ, n->out[0]->shape[d], x->shape[d],
                         "declared dimension %d of '%s' must match the input", d, n->out[0]->name);
    shape[axis] = p->k;
    ir_set_shape(c, n->out[0], x->dtype, x->rank, shape);
    ir_set_shape(c, n->out[1], DT_INT64, x->rank, shape);
    n->priv = p;
}

void emit_topk(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const TopK *p = n->priv;
    Value *x = n->in[0];
    const char *sfx = emit_template(e, "misc_topk", x->dtype);
    if (p->rt_k && p->k_data) { /* K sets the data dim (-5 past the axis) */
        emit_line(e, "if ((int64_t)%s[0] < 0)", emit_ptr(e, p->rt_k));
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
        emit_set_data_dim(e, p->k, arena_printf(emit_arena(e), "(int64_t)%s[0]", emit_ptr(e, p->rt_k)));
    } else if (p->rt_k) {
        emit_line(e, "if ((int64_t)%s[0] != %s)", emit_ptr(e, p->rt_k), emit_sym(e, p->k));
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    }
    emit_line(e, "topk_%s(%s, %s, %s, %s, %s, %s, %s, %d);", sfx, emit_ptr(e, x),
              emit_ptr(e, n->out[0]), emit_ptr(e, n->out[1]), emit_sym(e, p->outer),
              emit_sym(e, p->n), emit_sym(e, p->inner), emit_sym(e, p->k),
              (int)n->op_i[0]);
}

/* ---- EyeLike (opset 9+): y has x's 2-D shape, type `dtype` (default x's type);
 * y[i, j] = 1 where j - i == k, else 0. */

void infer_eyelike(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *x = infer_in(c, n, 0);
    if (x->rank != 2)
        o2c_error(c, n, "input rank %d: expected 2", x->rank);
    DType t = (DType)attr_int(c, n, "dtype", x->dtype);
    if (!numeric(t) && t != DT_BOOL)
        o2c_error(c, n, "output type %s is not supported", dtype_name(t));
    n->op_i[0] = attr_int(c, n, "k", 0);
    ir_set_shape(c, n->out[0], t, 2, x->shape);
}

void emit_eyelike(Compiler *c, Emit *e, Node *n) {
    (void)c;
    Value *y = n->out[0];
    const char *cols = emit_sym(e, y->shape[1]);
    emit_line(e, "for (int64_t i = 0; i < %s; i++)", emit_sym(e, y->shape[0]));
    emit_line(e, "    for (int64_t j = 0; j < %s; j++)", cols);
    emit_line(e, "        %s[i * %s + j] = (%s)(j - i == %s);", emit_ptr(e, y), cols,
              dtype_ctype(y->dtype), emit_int(e, n->op_i[0]));
}

/* ---- Einsum (opset 12+): y[out labels] = sum over the other labels of the product of the
 * inputs at their labels (numpy einsum).  Labels a-z, A-Z; `...` stands for the leading
 * broadcast dims; without `->` the output is the ellipsis dims then the labels used once, in
 * alphabetical order.  A label repeated in one input takes the diagonal.  Code: one loop per
 * label, output labels outside, summed labels inside. */

#define EIN_MAXL 64 /* 52 letters + up to 12 ellipsis dims */

typedef struct Einsum {
    int nlabels;             /* labels in use, by id */
    Sym *size[EIN_MAXL];
    int nout, out[EIN_MAXL]; /* output labels */
    int nsum, sum[EIN_MAXL]; /* summed labels */
    int *lab[10];            /* per input, per axis: its label (-1: broadcast axis, no index) */
} Einsum;

static char ein_char(int L) { return (char)(L < 26 ? 'a' + L : L < 52 ? 'A' + L - 26 : '.'); }

static int ein_letter(char ch) {
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a';
    if (ch >= 'A' && ch <= 'Z')
        return 26 + ch - 'A';
    return -1;
}

/* Parses one term ("ij", "...ii") for a tensor of rank `rank` (-1: the output): sets labels[]
 * and returns the count; *ell is the number of ellipsis dims it holds (for the output: whether
 * it has one). */
static int ein_term(Compiler *c, Node *n, const char *t, size_t len, int rank, int nell,
                    int *labels, int *ell) {
    int nletters = 0, cnt = 0;
    bool has_ell = false;
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '.') {
            if (has_ell || i + 2 >= len + 0 || t[i + 1] != '.' || t[i + 2] != '.')
                o2c_error(c, n, "equation: bad ellipsis");
            has_ell = true;
            i += 2;
        } else if (ein_letter(t[i]) >= 0)
            nletters++;
        else
            o2c_error(c, n, "equation: unexpected character '%c'", t[i]);
    }
    int e = rank < 0 ? (has_ell ? nell : 0) : rank - nletters;
    if (rank >= 0 && (e < 0 || (!has_ell && e != 0)))
        o2c_error(c, n, "equation term '%.*s' does not match an input of rank %d", (int)len, t,
                  rank);
    if (e > EIN_MAXL - 52)
        o2c_error(c, n, "equation: too many ellipsis dims");
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '.') {
            for (int j = 0; j < e; j++)
                labels[cnt++] = 52 + (rank < 0 ? j : nell - e + j);
            i += 2;
        } else
            labels[cnt++] = ein_letter(t[i]);
    }
    *ell = e;
    return cnt;
}

void infer_einsum(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Sym *one = sym_const(s, 1);
    if (n->nin < 1 || n->nin > 10)
        o2c_error(c, n, "%d inputs: 1 to 10 are supported", n->nin);
    infer_require_inputs(c, n, n->nin, n->nin);
    infer_require_outputs(c, n, 1, 1);
    const char *eq0 = attr_str(c, n, "equation", NULL);
    if (!eq0)
        o2c_error(c, n, "attribute equation is required");
    /* drop spaces */
    char *eq = arena_strdup(c->arena, eq0), *w = eq;
    for (const char *r = eq0; *r; r++)
        if (!isspace((unsigned char)*r))
            *w++ = *r;
    *w = 0;
    char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    DType dt = n->in[0]->dtype;
    if (!numeric(dt))
        o2c_error(c, n, "input type %s is not supported", dtype_name(dt));
    /* the ellipsis rank: the most dims any input's ellipsis covers */
    Einsum *p = arena_alloc(c->arena, sizeof *p);
    int count[EIN_MAXL] = {0};
    bool seen[EIN_MAXL] = {false};
    int nell = 0, term_ell[10];
    const char *terms[10];
    size_t tlen[10];
    int nt = 0;
    for (const char *t = eq; t < eq + lhs_len;) {
        const char *comma = memchr(t, ',', (size_t)(eq + lhs_len - t));
        const char *end = comma ? comma : eq + lhs_len;
        if (nt == 10)
            o2c_error(c, n, "equation has more terms than inputs");
        terms[nt] = t;
        tlen[nt++] = (size_t)(end - t);
        t = comma ? comma + 1 : end;
        if (comma && t == eq + lhs_len)
            o2c_error(c, n, "equation: empty term");
    }
    if (nt != n->nin)
        o2c_error(c, n, "equation has %d input terms for %d inputs", nt, n->nin);
    int labels[EIN_MAXL + 16];
    for (int k = 0; k < nt; k++) {
        Value *v = n->in[k];
        if (v->dtype != dt)
            o2c_error(c, n, "input %d type %s differs from input 0 type %s", k,
                      dtype_name(v->dtype), dtype_name(dt));
        if (v->rank > EIN_MAXL)
            o2c_error(c, n, "input %d rank %d is too large", k, v->rank);
        int e;
        ein_term(c, n, terms[k], tlen[k], v->rank, EIN_MAXL - 52, labels, &e);
        term_ell[k] = e;
        if (e > nell)
            nell = e;
    }
    for (int k = 0; k < nt; k++) {
        Value *v = n->in[k];
        int e;
        int cnt = ein_term(c, n, terms[k], tlen[k], v->rank, nell, labels, &e);
        O2C_ASSERT(c, cnt == v->rank && e == term_ell[k]);
        p->lab[k] = arena_alloc(c->arena, sizeof(int) * (size_t)(cnt + 1));
        for (int a = 0; a < cnt; a++) {
            int L = labels[a];
            Sym *d = v->shape[a];
            p->lab[k][a] = L;
            count[L]++;
            if (!seen[L]) {
                seen[L] = true;
                p->size[L] = d;
            } else if (p->size[L] != d) {
                if (L >= 52 && d == one)
                    continue; /* broadcast: fixed up below */
                if (L >= 52 && p->size[L] == one)
                    p->size[L] = d;
                else {
                    int64_t x, y;
                    if (sym_get_const(d, &x) && sym_get_const(p->size[L], &y))
                        o2c_error(c, n, "label '%c' has sizes %lld and %lld", ein_char(L),
                                  (long long)y, (long long)x);
                    ir_constrain(c, n, CK_EQ, d, p->size[L], "the dims of one label must match");
                }
            }
        }
    }
    /* broadcast axes of an ellipsis: size 1 against a larger size, no index */
    for (int k = 0; k < nt; k++)
        for (int a = 0; a < n->in[k]->rank; a++) {
            int L = p->lab[k][a];
            if (L >= 52 && n->in[k]->shape[a] == one && p->size[L] != one)
                p->lab[k][a] = -1;
        }
    bool in_out[EIN_MAXL] = {false};
    if (arrow) {
        const char *ot = arrow + 2;
        int e;
        int cnt = ein_term(c, n, ot, strlen(ot), -1, nell, labels, &e);
        for (int i = 0; i < cnt; i++) {
            int L = labels[i];
            if (!seen[L])
                o2c_error(c, n, "output label '%c' is not in any input", ein_char(L));
            if (in_out[L])
                o2c_error(c, n, "output label '%c' is repeated", ein_char(L));
            in_out[L] = true;
            p->out[p->nout++] = L;
        }
    } else {
        for (int j = 0; j < nell; j++) {
            in_out[52 + j] = true;
            p->out[p->nout++] = 52 + j;
        }
        for (int L = 0; L < 52; L++)
            if (count[L] == 1) {
                in_out[L] = true;
                p->out[p->nout++] = L;
            }
    }
    for (int L = 0; L < EIN_MAXL; L++)
        if (seen[L] && !in_out[L])
            p->sum[p->nsum++] = L;
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(p->nout + 1));
    for (int i = 0; i < p->nout; i++)
        shape[i] = p->size[p->out[i]];
    ir_set_shape(c, n->out[0], dt, p->nout, shape);
    n->priv = p;
}

static const char *ein_var(Emit *e, int L) {
    if (L < 26)
        return arena_printf(emit_arena(e), "e_%c", 'a' + L);
    if (L < 52)
        return arena_printf(emit_arena(e), "e_%c%c", 'A' + L - 26, 'u');
    return arena_printf(emit_arena(e), "e_d%d", L - 52);
}

/* "v0 * s0 + v1 * s1 ..." for the given labels and shape, row-major. */
static const char *ein_offset(Compiler *c, Emit *e, int rank, const int *lab, Sym *const *shape) {
    Buf b;
    buf_init_in(&b, c->arena);
    Sym *stride = sym_const(c->sym, 1);
    for (int a = rank - 1; a >= 0; a--) {
        if (lab[a] >= 0) {
            int64_t v;
            if (sym_get_const(stride, &v) && v == 1)
                buf_printf(&b, "%s%s", b.len ? " + " : "", ein_var(e, lab[a]));
            else
                buf_printf(&b, "%s%s * %s", b.len ? " + " : "", ein_var(e, lab[a]),
                           emit_sym(e, stride));
        }
        stride = sym_mul(c->sym, stride, shape[a]);
    }
    const char *r = arena_strdup(emit_arena(e), b.len ? b.data : "0");
    buf_free(&b);
    return r;
}

/* Integers sum their products in uint64_t (wrapping modulo 2^n, no signed overflow, no int
 * promotion of uint16 products) and convert back; floats in their type. */
void emit_einsum(Compiler *c, Emit *e, Node *n) {
    const Einsum *p = n->priv;
    Value *y = n->out[0];
    bool wrap = !dtype_is_float(y->dtype);
    const char *ct = wrap ? "uint64_t" : dtype_ctype(y->dtype);
    for (int i = 0; i < p->nout; i++) {
        const char *v = ein_var(e, p->out[i]);
        emit_line(e, "for (int64_t %s = 0; %s < %s; %s++) {", v, v,
                  emit_sym(e, p->size[p->out[i]]), v);
        emit_indent(e, 1);
    }
    emit_line(e, "%s acc = 0;", ct);
    for (int i = 0; i < p->nsum; i++) {
        const char *v = ein_var(e, p->sum[i]);
        emit_line(e, "for (int64_t %s = 0; %s < %s; %s++) {", v, v,
                  emit_sym(e, p->size[p->sum[i]]), v);
        emit_indent(e, 1);
    }
    Buf prod_b;
    buf_init_in(&prod_b, c->arena);
    for (int k = 0; k < n->nin; k++) {
        Value *v = n->in[k];
        buf_printf(&prod_b, "%s%s%s[%s]", k ? " * " : "", wrap ? "(uint64_t)" : "", emit_ptr(e, v),
                   ein_offset(c, e, v->rank, p->lab[k], v->shape));
    }
    emit_line(e, "acc += %s;", prod_b.data);
    buf_free(&prod_b);
    for (int i = 0; i < p->nsum; i++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    emit_line(e, "%s[%s] = %sacc;", emit_ptr(e, y), ein_offset(c, e, p->nout, p->out, y->shape),
              wrap ? arena_printf(emit_arena(e), "(%s)", dtype_ctype(y->dtype)) : "");
    for (int i = 0; i < p->nout; i++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}

/* ---- MeanVarianceNormalization (opset 9+): over `axes` (default [0, 2, 3]),
 * y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9), the spec's function body. */

typedef struct Mvn {
    int64_t reduced[EIN_MAXL];
} Mvn;

void infer_mvn(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *x = infer_in(c, n, 0);
    if (!dtype_is_float(x->dtype))
        o2c_error(c, n, "input type %s is not supported (float or double)", dtype_name(x->dtype));
    if (x->rank < 1 || x->rank > EIN_MAXL)
        o2c_error(c, n, "input rank %d is not supported", x->rank);
    const int64_t *axes;
    static const int64_t def[] = {0, 2, 3};
    int na = attr_ints(c, n, "axes", &axes);
    if (na < 0) {
        axes = def;
        na = 3;
    }
    Mvn *p = arena_alloc(c->arena, sizeof *p);
    for (int i = 0; i < na; i++) {
        int a = infer_axis(c, n, axes[i], x->rank);
        if (p->reduced[a])
            o2c_error(c, n, "axis %lld is repeated", (long long)axes[i]);
        p->reduced[a] = 1;
    }
    Sym *kept = sym_const(c->sym, 1);
    for (int i = 0; i < x->rank; i++)
        if (!p->reduced[i])
            kept = sym_mul(c->sym, kept, x->shape[i]);
    n->scratch = sym_mul(c->sym, kept, sym_const(c->sym, 3 * (int64_t)sizeof(double)));
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
    n->priv = p;
}

void emit_mvn(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const Mvn *p = n->priv;
    Value *x = n->in[0];
    const char *sfx = emit_template(e, "misc_mvn", x->dtype);
    const char *shape = emit_sym_array(e, "shape", x->rank, x->shape);
    const char *red = emit_int_array(e, "reduced", x->rank, p->reduced);
    emit_line(e, "mvn_%s(%s, %s, %s, %s, %d, (void *)(ws + %s));",
              sfx, emit_ptr(e, x), emit_ptr(e, n->out[0]), shape, red, x->rank,
              emit_sym(e, n->scratch_offset));
}
