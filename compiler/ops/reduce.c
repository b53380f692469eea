/* reduce.c — op family: reductions over axes, and ArgMax / ArgMin.
 *
 * ONNX ReduceSum, ReduceSumSquare, ReduceMean, ReduceProd, ReduceMax, ReduceMin, ReduceL1,
 * ReduceL2, ReduceLogSum, ReduceLogSumExp: y = finalize(fold(accumulate, init, x[reduced]))
 * over the axes given by the `axes` attribute (opset < 13 for ReduceSum, < 18 for the others)
 * or the optional `axes` input (ReduceSum from 13, all from 18), which must then be known at
 * compile time.  No axes: every axis, unless noop_with_empty_axes (then y = x).  keepdims
 * (default 1) keeps reduced axes as 1.  Empty reductions give init finalized: 0 for sums,
 * 1 for ReduceProd, +inf / the largest integer for ReduceMin, -inf for ReduceLogSum, ...
 *
 * Shapes: x's shape with reduced axes set to 1 (keepdims) or removed.  Folding: ReduceSum,
 * ReduceProd, ReduceMax and ReduceMin of known integers give known Syms (exporters compute
 * sizes as ReduceProd(Shape(x))).
 *
 * Code: after merging adjacent axes of the same kind (and dropping size-1 axes), a loop nest
 * over the kept axes, in order (so the output is written sequentially), around a loop nest
 * over the reduced axes; the op's table row supplies init, accumulate and finalize as C
 * expressions.  ArgMax/ArgMin use templates/reduce_arg.c over [outer, axis, inner]. */
#include "onnx2c.h"
#include <math.h>
#include <string.h>

#define MAXR 64

/* ---- the table of reductions */

typedef enum {
    ACC_WIDE, /* integers accumulate in uint64_t, wrapping modulo 2^64 (the signed ones as
               * two's complement: no signed overflow), then wrap to their type; floats in
               * their type */
    ACC_REAL, /* integers accumulate in double (for sqrt, log, exp); floats in their type */
    ACC_SAME, /* the element type (max, min) */
} AccKind;

typedef enum { INIT_ZERO, INIT_ONE, INIT_LOWEST, INIT_HIGHEST } InitKind;

/* In the expressions: a the accumulator, v the element (converted to the accumulator type),
 * m the maximum (pre-pass of ReduceLogSumExp), and the placeholders (expand.c's syntax) $N the
 * element count, $F the math-function suffix ("f" for float), $absv the absolute value of v for
 * the accumulator type, $a the accumulator as a signed value (a signed integer sum kept in
 * uint64_t is int64_t again). */
typedef struct ReduceOp {
    const char *name;
    AccKind acc;
    InitKind init;
    const char *accum;       /* statement updating a from v */
    const char *accum_float; /* float variant (NaN propagation), or NULL */
    const char *fin;         /* the output element, from a */
    bool max_pass;           /* first computes m = max(x) over the reduced elements */
    Sym *(*fold)(SymCtx *, Sym *, Sym *); /* folding of known integers, or NULL */
} ReduceOp;

/* Known integer data wraps as the kernel's uint64_t accumulator does; symbolic values are
 * sizes, left to the Sym rules (which refuse an overflow). */
static Sym *fold_add(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    return sym_get_const(a, &x) && sym_get_const(b, &y)
               ? sym_const(s, (int64_t)((uint64_t)x + (uint64_t)y))
               : sym_add(s, a, b);
}

static Sym *fold_mul(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    return sym_get_const(a, &x) && sym_get_const(b, &y)
               ? sym_const(s, (int64_t)((uint64_t)x * (uint64_t)y))
               : sym_mul(s, a, b);
}

static const ReduceOp reduce_ops[] = {
    /* ReduceSum: y = sum(x) */
    {"ReduceSum", ACC_WIDE, INIT_ZERO, "a += v", NULL, "a", false, fold_add},
    /* ReduceSumSquare: y = sum(x^2) */
    {"ReduceSumSquare", ACC_WIDE, INIT_ZERO, "a += v * v", NULL, "a", false, NULL},
    /* ReduceMean: y = sum(x) / count */
    {"ReduceMean", ACC_WIDE, INIT_ZERO, "a += v", NULL, "$a / $N", false, NULL},
    /* ReduceProd: y = prod(x) */
    {"ReduceProd", ACC_WIDE, INIT_ONE, "a *= v", NULL, "a", false, fold_mul},
    /* ReduceMax: y = max(x), NaN propagates */
    {"ReduceMax", ACC_SAME, INIT_LOWEST, "if (v > a) a = v", "if (v > a || v != v) a = v", "a",
     false, sym_max},
    /* ReduceMin: y = min(x), NaN propagates */
    {"ReduceMin", ACC_SAME, INIT_HIGHEST, "if (v < a) a = v", "if (v < a || v != v) a = v", "a",
     false, sym_min},
    /* ReduceL1: y = sum(|x|) */
    {"ReduceL1", ACC_WIDE, INIT_ZERO, "a += $absv", NULL, "a", false, NULL},
    /* ReduceL2: y = sqrt(sum(x^2)) */
    {"ReduceL2", ACC_REAL, INIT_ZERO, "a += v * v", NULL, "sqrt$F(a)", false, NULL},
    /* ReduceLogSum: y = log(sum(x)) */
    {"ReduceLogSum", ACC_REAL, INIT_ZERO, "a += v", NULL, "log$F(a)", false, NULL},
    /* ReduceLogSumExp: y = log(sum(exp(x))) = m + log(sum(exp(x - m))), m = max(x) */
    {"ReduceLogSumExp", ACC_REAL, INIT_ZERO, "a += exp$F(v - m)", NULL, "m + log$F(a)", true,
     NULL},
};

static const ReduceOp *find_op(const Node *n) {
    for (size_t i = 0; i < sizeof reduce_ops / sizeof *reduce_ops; i++)
        if (!strcmp(reduce_ops[i].name, n->op_type))
            return &reduce_ops[i];
    return NULL;
}

/* What infer decided, for emit. */
typedef struct ReducePlan {
    const ReduceOp *op;
    bool identity;     /* noop_with_empty_axes with no axes: y = x */
    bool mask[MAXR];   /* reduced axes of x */
    Value *rt_axes;    /* declared shapes: axes read at run time (mask unused) */
    bool rt_data;      /* no declared shape: the output's dims are data dims, set at run time */
    bool keepdims;
    bool rt_noop; /* runtime axes: noop_with_empty_axes, for an axes count that may be 0 */
} ReducePlan;

/* ---- axes */

/* The reduced axes: sets mask and returns how many; -1 when the node reduces nothing (noop);
 * -2 when the axes are runtime data (*rt: the input). */
static int reduce_axes(Compiler *c, Node *n, int rank, bool *mask, Value **rt) {
    const ReduceOp *op = find_op(n);
    bool axes_input = n->opset >= 18 || (!strcmp(op->name, "ReduceSum") && n->opset >= 13);
    int64_t axes[MAXR];
    int naxes = 0;
    bool noop = false;
    if (axes_input) {
        infer_require_inputs(c, n, 1, 2);
        if (node_attr(n, "axes"))
            o2c_error(c, n, "opset %d takes axes as an input, not an attribute", n->opset);
        noop = attr_int(c, n, "noop_with_empty_axes", 0) != 0;
        Value *av = node_in(n, 1);
        if (av) {
            int64_t len;
            Sym **k = infer_ints(c, n, av, "axes", &len);
            if (!k && ir_known_len(av) != 0) {
                /* runtime axes; a symbolic count (len < 0) may be 0 at run time */
                *rt = av;
                return -2;
            }
            if (!k) /* known to be empty */
                len = 0;
            if (len > MAXR)
                o2c_error(c, n, "too many axes (%lld)", (long long)len);
            for (int64_t i = 0; i < len; i++)
                if (!sym_get_const(k[i], &axes[i]))
                    o2c_error(c, n, "axes '%s' must be constant: element %lld is symbolic",
                              av->name, (long long)i);
            naxes = (int)len;
        }
    } else {
        infer_require_inputs(c, n, 1, 1);
        const int64_t *a;
        int na = attr_ints(c, n, "axes", &a);
        if (na > MAXR)
            o2c_error(c, n, "too many axes (%d)", na);
        for (int i = 0; i < na; i++)
            axes[i] = a[i];
        naxes = na < 0 ? 0 : na;
    }
    for (int d = 0; d < rank; d++)
        mask[d] = naxes == 0;
    if (naxes == 0)
        return noop ? -1 : rank;
    for (int i = 0; i < naxes; i++) {
        int d = infer_axis(c, n, axes[i], rank);
        if (mask[d])
            o2c_error(c, n, "axis %lld appears more than once", (long long)axes[i]);
        mask[d] = true;
    }
    return naxes;
}

/* Output shape of a reduction of x over mask. */
static int reduced_shape(Compiler *c, const Value *x, const bool *mask, bool keepdims, Sym **out) {
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        if (!mask[d])
            out[r++] = x->shape[d];
        else if (keepdims)
            out[r++] = sym_const(c->sym, 1);
    }
    return r;
}

/* ---- folding */

static int64_t int_limit(DType t, bool highest) {
    switch (t) {
    case DT_INT8: return highest ? INT8_MAX : INT8_MIN;
    case DT_INT16: return highest ? INT16_MAX : INT16_MIN;
    case DT_INT32: return highest ? INT32_MAX : INT32_MIN;
    case DT_UINT8: return highest ? UINT8_MAX : 0;
    case DT_UINT16: return highest ? UINT16_MAX : 0;
    case DT_UINT32: return highest ? (int64_t)UINT32_MAX : 0;
    case DT_UINT64: return highest ? -1 : 0; /* not representable as int64: see fold_reduce */
    default: return highest ? INT64_MAX : INT64_MIN;
    }
}

/* Known integer x, constant shapes: y[o] = fold over the x elements that reduce into o. */
static void fold_reduce(Compiler *c, Node *n, const ReducePlan *p) {
    Value *x = n->in[0], *y = n->out[0];
    if (!p->op->fold || !dtype_is_int(x->dtype))
        return;
    int64_t len = ir_known_len(y), xlen = ir_known_len(x);
    Sym **kx = ir_known_ints(c, x);
    if (!kx || len < 0 || xlen < 0 || len > 4096)
        return;
    int64_t dims[MAXR];
    for (int d = 0; d < x->rank; d++)
        if (!sym_get_const(x->shape[d], &dims[d]))
            return;
    Sym **kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len ? len : 1));
    for (int64_t i = 0; i < xlen; i++) {
        /* the output index of x element i: its coordinates over the kept axes */
        int64_t rem = i, o = 0, ostride = 1;
        for (int d = x->rank - 1; d >= 0; d--) {
            int64_t coord = rem % dims[d];
            rem /= dims[d];
            if (!p->mask[d]) {
                o += coord * ostride;
                ostride *= dims[d];
            }
        }
        kv[o] = kv[o] ? p->op->fold(c->sym, kv[o], kx[i]) : kx[i];
    }
    for (int64_t o = 0; o < len; o++) {
        if (kv[o])
            continue;
        /* empty reduction */
        if (p->op->init == INIT_ZERO || p->op->init == INIT_ONE)
            kv[o] = sym_const(c->sym, p->op->init == INIT_ONE);
        else if (x->dtype == DT_UINT64 && p->op->init == INIT_HIGHEST)
            return; /* UINT64_MAX is not an int64 Sym: leave it to the kernel */
        else
            kv[o] = sym_const(c->sym, int_limit(x->dtype, p->op->init == INIT_HIGHEST));
    }
    y->kv = kv;
}

/* ---- infer */

void infer_reduce(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0);
    ReducePlan *p = arena_alloc(c->arena, sizeof *p);
    p->op = find_op(n);
    O2C_ASSERT(c, p->op != NULL);
    if (!dtype_is_float(x->dtype) && !dtype_is_int(x->dtype))
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    if (x->rank > MAXR)
        o2c_error(c, n, "rank %d is not supported", x->rank);
    bool keepdims = attr_int(c, n, "keepdims", 1) != 0;
    Value *rt = NULL;
    int nred = reduce_axes(c, n, x->rank, p->mask, &rt);
    Value *y = n->out[0];
    if (nred == -2) {
        /* runtime axes: the declared shape, checked by emit_reduce_rt; without one, with
         * keepdims or a known count of axes, the output dims are data dims (each at most the
         * largest input dim it may be) */
        if (p->op->max_pass)
            infer_not_known(c, n, rt, "axes", true);
        if (!infer_declared_shape(c, n, y, x->dtype)) {
            int64_t len = infer_len(c, rt);
            if (!keepdims && len < 0)
                infer_not_known(c, n, rt, "axes", true);
            int ry = keepdims ? x->rank : x->rank - (int)len;
            if (ry < 0)
                o2c_error(c, n, "%lld axes reduced from rank %d", (long long)len, x->rank);
            Sym **b = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(ry + 1));
            for (int j = 0; j < ry; j++) {
                b[j] = x->shape[j];
                for (int d = j + 1; !keepdims && d < x->rank; d++)
                    b[j] = sym_max(c->sym, b[j], x->shape[d]);
            }
            infer_declared_or_data(c, n, 0, x->dtype, ry, b);
            p->rt_data = true;
        }
        /* a symbolic count: any count with keepdims (the mask is read at run time), else the
         * one the declared rank implies */
        int64_t len = keepdims ? infer_len(c, rt)
                               : infer_implied_len(c, n, rt, x->rank - y->rank, "axes");
        if (len < 0)
            ir_constrain(c, n, CK_LE, ir_numel(c, rt), sym_const(c->sym, x->rank),
                         "axes input '%s' must have at most as many entries as the input's rank",
                         rt->name);
        if (len > x->rank || (len >= 0 && y->rank != (keepdims ? x->rank : x->rank - (int)len)) ||
            (len < 0 && y->rank != x->rank))
            o2c_error(c, n, "%lld axes reduced from rank %d but output '%s' is declared with "
                      "rank %d", (long long)len, x->rank, y->name, y->rank);
        p->rt_axes = rt;
        p->keepdims = keepdims;
        p->rt_noop = attr_int(c, n, "noop_with_empty_axes", 0) != 0;
        n->priv = p;
        return;
    }
    if (nred < 0) {
        /* noop_with_empty_axes = 1 and no axes: the identity */
        p->identity = true;
        ir_set_shape(c, y, x->dtype, x->rank, x->shape);
        if (x->data)
            y->data = x->data;
        else if (x->kv)
            y->kv = x->kv;
        n->priv = p;
        return;
    }
    Sym *shape[MAXR];
    int r = reduced_shape(c, x, p->mask, keepdims, shape);
    ir_set_shape(c, y, x->dtype, r, shape);
    n->priv = p;
    fold_reduce(c, n, p);
}

/* ---- emit */

static const char *acc_type(const ReduceOp *op, DType t) {
    if (dtype_is_float(t) || op->acc == ACC_SAME)
        return dtype_ctype(t);
    if (op->acc == ACC_REAL)
        return "double";
    return "uint64_t";
}

static const char *limit_literal(Emit *e, DType t, bool highest) {
    switch (t) {
    case DT_FLOAT: case DT_DOUBLE: return emit_literal(e, t, highest ? INFINITY : -INFINITY);
    case DT_INT8: return highest ? "INT8_MAX" : "INT8_MIN";
    case DT_INT16: return highest ? "INT16_MAX" : "INT16_MIN";
    case DT_INT32: return highest ? "INT32_MAX" : "INT32_MIN";
    case DT_INT64: return highest ? "INT64_MAX" : "INT64_MIN";
    case DT_UINT8: return highest ? "UINT8_MAX" : "0";
    case DT_UINT16: return highest ? "UINT16_MAX" : "0";
    case DT_UINT32: return highest ? "UINT32_MAX" : "0";
    case DT_UINT64: return highest ? "UINT64_MAX" : "0";
    default: return "0";
    }
}

/* Replaces the placeholders of a table expression ($N, $F, $absv, $a) for elements of type
 * t accumulated in acc. */
static const char *expand_expr(Emit *e, const char *s, DType t, const char *acc,
                               const char *count) {
    bool is_float = !strcmp(acc, "float");
    bool is_real = is_float || !strcmp(acc, "double");
    bool sint = !is_real && dtype_is_signed(t); /* a signed integer in uint64_t */
    const char *absv = is_real ? (is_float ? "fabsf(v)" : "fabs(v)")
                       : sint  ? "(v >> 63 ? 0 - v : v)" /* the sign bit, in unsigned arithmetic */
                               : "v";
    ExpandKey keys[] = {
        {"N", arena_printf(emit_arena(e), "(%s)%s", sint ? "int64_t" : acc, count)},
        {"F", is_float ? "f" : ""},
        {"absv", absv},
        {"a", sint ? "(int64_t)a" : "a"},
        {NULL, NULL},
    };
    Buf b;
    buf_init_in(&b, emit_arena(e));
    expand(&b, s, NULL, EXPAND_DOLLAR, expand_table, keys);
    const char *r = arena_strdup(emit_arena(e), b.data ? b.data : "");
    buf_free(&b);
    return r;
}

/* The accumulator's first value. */
static const char *acc_init(Emit *e, const ReduceOp *op, DType t) {
    switch (op->init) {
    case INIT_ZERO: return "0";
    case INIT_ONE: return "1";
    default: return limit_literal(e, t, op->init == INIT_HIGHEST);
    }
}

/* The output element of type t from the finalized value fin: a conversion, saturating for an
 * integer computed in double (ReduceL2, ReduceLogSum, ReduceLogSumExp give NaN, infinities
 * and values past the type's range: templates/int_sat.c). */
static const char *store(Emit *e, const ReduceOp *op, DType t, const char *fin) {
    if (!dtype_is_float(t) && op->acc == ACC_REAL)
        return arena_printf(emit_arena(e), "o2c_sat_%s((double)(%s))",
                            emit_template(e, "int_sat", t), fin);
    return arena_printf(emit_arena(e), "(%s)(%s)", dtype_ctype(t), fin);
}

/* One merged axis of the loop nest. */
typedef struct Axis {
    Sym *size, *stride;
    bool reduced;
} Axis;

/* Emits `for (...)` headers over the axes of one kind; returns how many were opened. */
static int open_loops(Emit *e, const Axis *ax, int nax, bool reduced, const char *var) {
    int k = 0;
    for (int i = 0; i < nax; i++) {
        if (ax[i].reduced != reduced)
            continue;
        const char *sz = emit_sym(e, ax[i].size);
        emit_line(e, "for (int64_t %s%d = 0; %s%d < %s; %s%d++) {", var, i, var, i, sz, var, i);
        emit_indent(e, 1);
        k++;
    }
    return k;
}

static void close_loops(Emit *e, int k) {
    for (int i = 0; i < k; i++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}

/* The offset sum of the axes of one kind, e.g. "i0 * s12 + i2". */
static const char *offset_expr(Emit *e, Compiler *c, const Axis *ax, int nax, bool reduced,
                               const char *var) {
    Buf b;
    buf_init_in(&b, c->arena);
    Sym *one = sym_const(c->sym, 1);
    for (int i = 0; i < nax; i++) {
        if (ax[i].reduced != reduced)
            continue;
        if (ax[i].stride == one)
            buf_printf(&b, "%s%s%d", b.len ? " + " : "", var, i);
        else
            buf_printf(&b, "%s%s%d * %s", b.len ? " + " : "", var, i, emit_sym(e, ax[i].stride));
    }
    const char *r = arena_strdup(emit_arena(e), b.len ? b.data : "0");
    buf_free(&b);
    return r;
}

/* The loop that adds to `var` the offset (strides xs) of the axes d where `cond` holds (of the
 * local mask mk) of the flat index `idx` over those axes (dims xd), dividing idx down. */
static void emit_marked_offset(Emit *e, const char *var, const char *idx, const char *cond,
                               const char *xd, const char *xs, int r) {
    emit_line(e, "for (int64_t d = %d; d >= 0; d--)", r - 1);
    emit_line(e, "    if (%s) {", cond);
    emit_line(e, "        %s += %s %% %s[d] * %s[d];", var, idx, xd, xs);
    emit_line(e, "        %s /= %s[d];", idx, xd);
    emit_line(e, "    }");
}

/* Runtime axes: a mask read from the axes input, checked against the declared shape; then one
 * pass per output element over the reduced elements (coordinates rebuilt by division). */
static void emit_reduce_rt(Compiler *c, Emit *e, Node *n) {
    const ReducePlan *p = n->priv;
    const ReduceOp *op = p->op;
    Value *x = n->in[0], *y = n->out[0], *av = p->rt_axes;
    int r = x->rank;
    DType t = x->dtype;
    const char *xd = emit_sym_array(e, "xd", r, x->shape);
    const char *yd = p->rt_data ? NULL : emit_sym_array(e, "yd", y->rank, y->shape);
    const char *xs = emit_sym_array(e, "xs", r, ir_strides(c, r, x->shape));
    int64_t len = infer_len(c, av);
    const char *cnt = emit_sym(e, ir_numel(c, av));
    emit_axes_marks(e, emit_ptr(e, av), cnt, r);
    if (len < 0 && !p->rt_noop) {
        /* no axes at run time: every axis */
        emit_line(e, "if (%s == 0)", cnt);
        emit_line(e, "    for (int64_t d = 0; d < %d; d++)", r);
        emit_line(e, "        mk[d] = 1;");
    }
    emit_line(e, "int64_t cnt = 1;");
    if (p->rt_data) { /* the output dims: the kept input dims (1 for reduced ones, keepdims) */
        emit_line(e, "int64_t od[%d] = {0}, nk = 0;", r > 0 ? r : 1);
        emit_line(e, "for (int64_t d = 0; d < %d; d++) {", r);
        emit_line(e, "    if (mk[d])");
        emit_line(e, "        cnt *= %s[d];", xd);
        emit_line(e, "    if (%s)", p->keepdims ? "1" : "!mk[d]");
        emit_line(e, "        od[nk++] = mk[d] ? 1 : %s[d];", xd);
        emit_line(e, "}");
        emit_line(e, "if (nk != %d)", y->rank);
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
        for (int j = 0; j < y->rank; j++)
            emit_set_data_dim(e, y->shape[j], arena_printf(emit_arena(e), "od[%d]", j));
    } else {
    emit_line(e, "for (int64_t d = 0, j = 0; d < %d; d++) {", r);
    emit_line(e, "    if (mk[d])");
    emit_line(e, "        cnt *= %s[d];", xd);
    if (p->keepdims)
        emit_line(e, "    if (%s[j++] != (mk[d] ? 1 : %s[d]))", yd, xd);
    else
        emit_line(e, "    if (!mk[d] && %s[j++] != %s[d])", yd, xd);
    emit_line(e, "        return %d;", O2C_RUN_EDATA);
    emit_line(e, "}");
    }
    const char *A = acc_type(op, t);
    bool is_float = dtype_is_float(t);
    const char *init = acc_init(e, op, t);
    const char *accum =
        expand_expr(e, is_float && op->accum_float ? op->accum_float : op->accum, t, A, "cnt");
    const char *fin = expand_expr(e, op->fin, t, A, "cnt");
    if (strstr(op->fin, "$N") && !is_float)
        fin = arena_printf(emit_arena(e), "cnt > 0 ? %s : 0", fin);
    emit_line(e, "for (int64_t o = 0; o < %s; o++) {", emit_sym(e, ir_numel(c, y)));
    emit_indent(e, 1);
    emit_line(e, "int64_t base = 0, rem = o;");
    emit_marked_offset(e, "base", "rem", "!mk[d]", xd, xs, r);
    emit_line(e, "%s a = %s;", A, init);
    emit_line(e, "for (int64_t j = 0; j < cnt; j++) {");
    emit_indent(e, 1);
    emit_line(e, "int64_t off = base, rj = j;");
    emit_marked_offset(e, "off", "rj", "mk[d]", xd, xs, r);
    emit_line(e, "const %s v = (%s)%s[off];", A, A, emit_ptr(e, x));
    emit_line(e, "%s;", accum);
    emit_indent(e, -1);
    emit_line(e, "}");
    emit_line(e, "%s[o] = %s;", emit_ptr(e, y), store(e, op, t, fin));
    emit_indent(e, -1);
    emit_line(e, "}");
}

void emit_reduce(Compiler *c, Emit *e, Node *n) {
    const ReducePlan *p = n->priv;
    const ReduceOp *op = p->op;
    Value *x = n->in[0], *y = n->out[0];
    if (p->rt_axes) {
        emit_reduce_rt(c, e, n);
        return;
    }
    if (p->identity) {
        emit_elementwise(e, n, y, 1, n->in, "$0");
        return;
    }
    DType t = x->dtype;
    SymCtx *s = c->sym;
    Sym *one = sym_const(s, 1);

    /* merge adjacent axes of the same kind; size-1 axes vanish */
    Axis ax[MAXR];
    int nax = 0;
    Sym *stride = one, *count = one;
    for (int d = x->rank - 1; d >= 0; d--) {
        Sym *sz = x->shape[d];
        if (p->mask[d])
            count = sym_mul(s, count, sz);
        if (sz != one) {
            if (nax > 0 && ax[nax - 1].reduced == p->mask[d])
                ax[nax - 1].size = sym_mul(s, ax[nax - 1].size, sz);
            else
                ax[nax++] = (Axis){sz, stride, p->mask[d]};
        }
        stride = sym_mul(s, stride, sz);
    }
    /* innermost first -> outermost first */
    for (int i = 0; i < nax / 2; i++) {
        Axis tmp = ax[i];
        ax[i] = ax[nax - 1 - i];
        ax[nax - 1 - i] = tmp;
    }

    const char *T = dtype_ctype(t), *A = acc_type(op, t);
    bool is_float = dtype_is_float(t);
    /* emit_sym declares what it names: only ask for the count where it is used */
    const char *cnt = strstr(op->fin, "$N") ? emit_sym(e, count) : "";
    const char *init = acc_init(e, op, t);
    const char *acc_src = is_float && op->accum_float ? op->accum_float : op->accum;
    const char *accum = expand_expr(e, acc_src, t, A, cnt);
    const char *fin = expand_expr(e, op->fin, t, A, cnt);
    int64_t kc;
    if (strstr(op->fin, "$N") && !dtype_is_float(t) && !(sym_get_const(count, &kc) && kc > 0))
        fin = arena_printf(emit_arena(e), "%s > 0 ? %s : 0", cnt, fin); /* no integer 0 / 0 */

    const char *xp = emit_ptr(e, x), *yp = emit_ptr(e, y);
    const char *xoff = offset_expr(e, c, ax, nax, false, "i");
    const char *roff = offset_expr(e, c, ax, nax, true, "j");
    bool same = !strcmp(A, T);
    const char *load = same ? arena_printf(emit_arena(e), "p[%s]", roff)
                            : arena_printf(emit_arena(e), "(%s)p[%s]", A, roff);
    emit_line(e, "int64_t o = 0;");
    int outer = open_loops(e, ax, nax, false, "i");
    emit_line(e, "const %s *p = %s + %s;", T, xp, xoff);
    if (op->max_pass) {
        /* m = max over the reduced elements; an infinite m (or none) would give inf - inf */
        emit_line(e, "%s m = %s;", A, limit_literal(e, dtype_is_float(t) ? t : DT_DOUBLE, false));
        int k = open_loops(e, ax, nax, true, "j");
        emit_line(e, "const %s v = %s;", A, load);
        emit_line(e, "if (v > m) m = v;");
        close_loops(e, k);
        emit_line(e, "if (m == %s || m == %s) m = 0;", limit_literal(e, is_float ? t : DT_DOUBLE, false),
                  limit_literal(e, is_float ? t : DT_DOUBLE, true));
    }
    emit_line(e, "%s a = %s;", A, init);
    int nred = 0;
    for (int i = 0; i < nax; i++)
        nred += ax[i].reduced;
    /* a sum of v, v * v or |v| along the contiguous axis: templates/reduce_lanes.c's 16 lanes,
     * added pairwise at the end (the order of a float sum is then lane-wise, as in Softmax),
     * which vectorise under every compiler; one chain of dependent adds took 13 us for a
     * transformer's [128, 256] mean, 8 lanes written as a scalar array 9 us under GCC 12 -O3
     * -march=native (1 us elsewhere), the vectors 1 us */
    int mode = !strcmp(acc_src, "a += v")       ? 0
               : !strcmp(acc_src, "a += v * v") ? 1
               : !strcmp(acc_src, "a += $absv") ? 2
                                                : -1;
    if (is_float && same && op->init == INIT_ZERO && !op->max_pass && mode >= 0 && nred == 1 &&
        ax[nax - 1].reduced) {
        const char *sfx = emit_template(e, "reduce_lanes", t);
        emit_line(e, "a = reduce_sum_%s(p, %s, %d);", sfx, emit_sym(e, ax[nax - 1].size), mode);
    } else {
        int k = open_loops(e, ax, nax, true, "j");
        emit_line(e, "const %s v = %s;", A, load);
        emit_line(e, "%s;", accum);
        close_loops(e, k);
    }
    if (same && !strcmp(fin, "a"))
        emit_line(e, "%s[o++] = a;", yp);
    else
        emit_line(e, "%s[o++] = %s;", yp, store(e, op, t, fin));
    close_loops(e, outer);
}

/* ---- ArgMax, ArgMin */

/* ONNX ArgMax/ArgMin: y = index of the largest/smallest element along `axis` (default 0);
 * keepdims (default 1); select_last_index (opset 12+) picks the last of equal extremes. */
void infer_arg(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0);
    if (!dtype_is_float(x->dtype) && !dtype_is_int(x->dtype))
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    if (x->rank > MAXR)
        o2c_error(c, n, "rank %d is not supported", x->rank);
    if (x->rank == 0)
        o2c_error(c, n, "input must have rank >= 1");
    int axis = infer_axis(c, n, attr_int(c, n, "axis", 0), x->rank);
    bool keepdims = attr_int(c, n, "keepdims", 1) != 0;
    int64_t last = attr_int(c, n, "select_last_index", 0);
    if (last && n->opset < 12)
        o2c_error(c, n, "select_last_index needs opset 12");
    n->op_i[0] = last != 0;
    bool mask[MAXR] = {false};
    mask[axis] = true;
    Sym *shape[MAXR];
    int r = reduced_shape(c, x, mask, keepdims, shape);
    ir_set_shape(c, n->out[0], DT_INT64, r, shape);
    ir_constrain(c, n, CK_LE, sym_const(c->sym, 1), x->shape[axis],
                 "%s axis %d must not be empty", n->op_type, axis);
    int *pa = arena_alloc(c->arena, sizeof *pa);
    *pa = axis;
    n->priv = pa;
}

void emit_arg(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *y = n->out[0];
    int axis = *(const int *)n->priv;
    Sym *outer = sym_const(c->sym, 1), *inner = outer;
    for (int d = 0; d < axis; d++)
        outer = sym_mul(c->sym, outer, x->shape[d]);
    for (int d = axis + 1; d < x->rank; d++)
        inner = sym_mul(c->sym, inner, x->shape[d]);
    const char *sfx = emit_template(e, "reduce_arg", x->dtype);
    emit_line(e, "reduce_arg_%s(%s, %s, %s, %s, %s, %d, %d);", sfx, emit_ptr(e, x), emit_ptr(e, y),
              emit_sym(e, outer), emit_sym(e, x->shape[axis]), emit_sym(e, inner),
              n->op->variant == OPV_ARGMAX, n->op_i[0] != 0);
}
