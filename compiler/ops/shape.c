/* shape.c — op family: shape arithmetic and pure data movement.
 *
 * ONNX: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Constant, ConstantOfShape, Range,
 * Identity, Dropout, Expand, Tile.
 * These are the ops through which exporters compute shapes, so they fold: Shape(x) is known
 * at compile time as the Syms of x's dims, and every rule here computes its output's known
 * value (Value.kv for integers, Value.data for constants) whenever its inputs are known.  A
 * chain Shape -> Gather -> Concat -> Reshape thus gives Reshape a known target and leaves no
 * code behind.  A target shape, axes or repeats that depend on runtime tensor data would make
 * the output shape data-dependent: those are rejected, naming the node.
 * Code, when an input is a runtime tensor: a memcpy for the ops that only relabel the shape
 * (Reshape, Flatten, Squeeze, Unsqueeze, Identity, and Dropout unless training mode can drop,
 * where a loop scales and drops elements), a fill loop for ConstantOfShape and Range, and
 * broadcast / modular-index copy loops for Expand and Tile. */
#include "onnx2c.h"
#include <math.h>
#include <string.h>

/* Known outputs up to this many elements are folded into kv/data; bigger ones stay code. */
#define FOLD_MAX 4096

/* ---- helpers */

static bool known(const Value *v) {
    return v->data || (v->kv && ir_known_len(v) >= 0);
}

/* The output relabels the input's elements in the same order: it is known when the input is. */
static void propagate(Value *x, Value *y) {
    if (x->data)
        y->data = x->data;
    else if (x->kv && ir_known_len(x) >= 0)
        y->kv = x->kv;
}

/* The lengths the declared rank implies: Reshape's target, ConstantOfShape's and Expand's
 * shape (Expand: a shorter shape is refused), Tile's repeats, Squeeze's and Unsqueeze's axes. */
static int64_t want_rank(const Node *n, const Value *out) {
    (void)n;
    return out->rank;
}
static int64_t want_in_rank(const Node *n, const Value *out) {
    (void)out;
    return n->in[0]->rank;
}
static int64_t want_squeezed(const Node *n, const Value *out) {
    return n->in[0]->rank - out->rank;
}
static int64_t want_unsqueezed(const Node *n, const Value *out) {
    return out->rank - n->in[0]->rank;
}

/* C condition "a == b" for two Syms, folded when decidable at compile time. */
static const char *sym_eq_c(Emit *e, Sym *a, Sym *b) {
    int64_t x, y;
    if (a == b)
        return "1";
    if (sym_get_const(a, &x) && sym_get_const(b, &y))
        return x == y ? "1" : "0";
    return arena_printf(emit_arena(e), "%s == %s", emit_sym(e, a), emit_sym(e, b));
}

/* Element i of an integer buffer as int64_t. */
static const char *rt_elem(Emit *e, Value *v, int64_t i) {
    return arena_printf(emit_arena(e), "(int64_t)%s[%lld]", emit_ptr(e, v), (long long)i);
}

/* Axes from the attribute (opset < first_input_opset) or from input 1; NULL when absent. */
static int64_t *get_axes(Compiler *c, Node *n, int first_input_opset, int64_t *len) {
    if (n->opset < first_input_opset) {
        const int64_t *a;
        int k = attr_ints(c, n, "axes", &a);
        if (k < 0)
            return NULL;
        *len = k;
        return arena_dup(c->arena, a, sizeof(int64_t) * (size_t)(k + 1));
    }
    Value *v = node_in(n, 1);
    return v ? infer_need_const_ints(c, n, v, "axes", len, true) : NULL;
}

/* Element i of a scalar tensor's data as a double (for ratio, Range operands). */
static double data_double(const Value *v, int64_t i) {
    switch (v->dtype) {
    case DT_FLOAT: return ((const float *)v->data)[i];
    case DT_DOUBLE: return ((const double *)v->data)[i];
    case DT_INT64: return (double)((const int64_t *)v->data)[i];
    case DT_INT32: return ((const int32_t *)v->data)[i];
    case DT_INT16: return ((const int16_t *)v->data)[i];
    case DT_INT8: return ((const int8_t *)v->data)[i];
    case DT_UINT8: case DT_BOOL: return ((const uint8_t *)v->data)[i];
    default: return NAN;
    }
}

/* Source element, in `in`, of output element i when `out` repeats `in` along its axes
 * (Expand: in is right-aligned and its dims are 1 or equal; Tile: out dim = k * in dim).  In
 * both cases the source coordinate is the output coordinate modulo the input dim.  Shapes
 * are constant here. */
static int64_t src_index(const Value *out, const Value *in, int64_t i) {
    int64_t idx = 0, stride = 1;
    for (int d = out->rank - 1; d >= 0; d--) {
        int64_t od = 1, id = 1;
        sym_get_const(out->shape[d], &od);
        int k = d - (out->rank - in->rank);
        if (k >= 0)
            sym_get_const(in->shape[k], &id);
        int64_t coord = i % od;
        i /= od;
        if (k >= 0) {
            idx += (coord % id) * stride;
            stride *= id;
        }
    }
    return idx;
}

/* Folds a repeating copy (Expand, Tile) when the input is known and the output small. */
static void fold_repeat(Compiler *c, Value *x, Value *y) {
    int64_t len = ir_known_len(y);
    if (!known(x) || len < 0 || len > FOLD_MAX)
        return;
    if (x->data) {
        size_t es = dtype_size(x->dtype);
        unsigned char *d = arena_alloc(c->arena, es * (size_t)(len ? len : 1));
        const unsigned char *src = x->data;
        for (int64_t i = 0; i < len; i++)
            memcpy(d + es * (size_t)i, src + es * (size_t)src_index(y, x, i), es);
        y->data = d;
    } else {
        y->kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len ? len : 1));
        for (int64_t i = 0; i < len; i++)
            y->kv[i] = x->kv[src_index(y, x, i)];
    }
}

/* Exact C literal of one element stored at p (16-bit floats as their bit patterns). */
static const char *elem_literal(Emit *e, DType t, const void *p) {
    union {
        float f;
        double d;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
    } v;
    memcpy(&v, p, dtype_size(t));
    switch (t) {
    case DT_FLOAT: return emit_literal(e, t, v.f);
    case DT_DOUBLE: return emit_literal(e, t, v.d);
    case DT_INT8: return emit_int(e, v.i8);
    case DT_INT16: return emit_int(e, v.i16);
    case DT_INT32: return emit_int(e, v.i32);
    case DT_INT64: return emit_int(e, v.i64);
    case DT_UINT8: case DT_BOOL: return emit_int(e, v.u8);
    case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16: return emit_int(e, v.u16);
    case DT_UINT32: return emit_int(e, v.u32);
    case DT_UINT64: return arena_printf(emit_arena(e), "%lluULL", (unsigned long long)v.u64);
    default: return "0";
    }
}

/* y = x for the ops that only relabel the shape. */
void emit_copy(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *y = n->out[0];
    if (known(y))
        return;
    if (plan_same_buffer(x, y)) { /* the plan made y an alias of x */
        emit_kernel(e, "copy (alias: nothing)");
        emit_line(e, "/* the output shares the input's bytes: nothing to copy */");
        return;
    }
    emit_kernel(e, "copy (memcpy)");
    emit_line(e, "memcpy(%s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, y), emit_ptr(e, x),
              emit_sym(e, ir_numel(c, y)), dtype_ctype(y->dtype));
}

/* Reshape with a runtime target: each entry must give the declared dim (0 copies the input
 * dim unless allowzero; one -1 is inferred, which the element-count constraint settles). */
void emit_reshape(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *t = node_in(n, 1), *y = n->out[0];
    if (n->opset >= 5 && t && !known(t)) {
        bool allowzero = n->op_i[0] != 0;
        emit_line(e, "int64_t nneg = 0;");
        for (int i = 0; i < y->rank; i++) {
            const char *ok = arena_printf(c->arena, "t == %s", emit_sym(e, y->shape[i]));
            if (!allowzero && i < x->rank)
                ok = arena_printf(c->arena, "%s || (t == 0 && %s)", ok,
                                  sym_eq_c(e, x->shape[i], y->shape[i]));
            emit_line(e, "{");
            emit_line(e, "    const int64_t t = %s;", rt_elem(e, t, i));
            emit_line(e, "    if (t == -1)");
            emit_line(e, "        nneg++;");
            emit_line(e, "    else if (!(%s))", ok);
            emit_line(e, "        return %d;", O2C_RUN_EDATA);
            emit_line(e, "}");
        }
        emit_line(e, "if (nneg > 1)");
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    }
    emit_copy(c, e, n);
}

/* Squeeze / Unsqueeze with runtime axes: the marked axes must be the dims of 1 that the
 * declared shape adds or drops, the others the input's dims in order. */
void emit_squeeze(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *a = node_in(n, 1), *y = n->out[0];
    if (n->opset >= 13 && a && !known(a)) {
        bool un = n->op->variant == OPV_UNSQUEEZE;
        Value *big = un ? y : x, *small = un ? x : y;
        emit_axes_marks(e, emit_ptr(e, a), arena_printf(c->arena, "%lld", (long long)infer_len(c, a)), big->rank);
        const char *bd = emit_sym_array(e, "bd", big->rank, big->shape);
        const char *sd = emit_sym_array(e, "sd", small->rank, small->shape);
        emit_line(e, "for (int64_t d = 0, j = 0; d < %d; d++)", big->rank);
        emit_line(e, "    if (mk[d] ? %s[d] != 1 : (j >= %d || %s[d] != %s[j++]))", bd, small->rank,
                  bd, sd);
        emit_line(e, "        return %d;", O2C_RUN_EDATA);
    }
    emit_copy(c, e, n);
}

/* y[i] = value for every element (value: one element of y's type). */
static void emit_fill(Compiler *c, Emit *e, Value *y, const void *value) {
    emit_line(e, "for (int64_t i = 0; i < %s; i++)", emit_sym(e, ir_numel(c, y)));
    emit_line(e, "    %s[i] = %s;", emit_ptr(e, y), elem_literal(e, y->dtype, value));
}

/* ---- Shape, Size */

/* Shape-15: y = x.shape[start:end] (int64), negative bounds count from the end, then both are
 * clamped to [0, rank]; before 15 the whole shape.  Always known: x's dims as Syms. */
void infer_shape(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    int64_t r = x->rank;
    int64_t start = n->opset >= 15 ? attr_int(c, n, "start", 0) : 0;
    int64_t end = n->opset >= 15 ? attr_int(c, n, "end", r) : r;
    if (start < 0)
        start += r;
    if (end < 0)
        end += r;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    int64_t len = end > start ? end - start : 0;
    ir_set_shape_ints(c, y, DT_INT64, 1, &len);
    y->kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len + 1));
    for (int64_t i = 0; i < len; i++)
        y->kv[i] = x->shape[start + i];
}

/* Size: y = prod(x.shape), an int64 scalar.  Always known. */
void infer_size(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    ir_set_shape(c, y, DT_INT64, 0, NULL);
    y->kv = arena_alloc(c->arena, sizeof(Sym *));
    y->kv[0] = ir_numel(c, x);
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze, Identity */

/* Reshape (5+: shape is input 1; 1-4: attribute): target entry 0 copies the input dim at the
 * same index (unless allowzero, 14+), -1 is inferred as numel(x) / product(other entries);
 * numel(y) must equal numel(x). */
void infer_reshape(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    Sym **t;
    int64_t len;
    const bool allowzero = n->opset >= 14 && attr_int(c, n, "allowzero", 0) != 0;
    n->op_i[0] = allowzero; /* (emit_reshape's run-time check) */
    if (n->opset < 5) {
        infer_require_inputs(c, n, 1, 1);
        const int64_t *a;
        int k = attr_ints(c, n, "shape", &a);
        if (k < 0)
            o2c_error(c, n, "attribute 'shape' is required");
        len = k;
        t = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(k + 1));
        for (int i = 0; i < k; i++)
            t[i] = sym_const(s, a[i]);
    } else {
        infer_require_inputs(c, n, 2, 2);
        t = infer_ints(c, n, n->in[1], "target shape", &len);
        if (!t) {
            /* runtime target: the declared shape, checked by emit_reshape */
            len = infer_declared_ints(c, n, n->in[1], "target shape", y, x->dtype, want_rank);
            if (len != y->rank)
                o2c_error(c, n, "target shape has %lld entries but output '%s' is declared with "
                          "rank %d", (long long)len, y->name, y->rank);
            ir_constrain(c, n, CK_EQ, ir_numel(c, y), ir_numel(c, x),
                         "declared shape of '%s' must have as many elements as the input", y->name);
            return;
        }
    }
    if (len > 64)
        o2c_error(c, n, "target shape has %lld dims, at most 64 are supported", (long long)len);
    Sym *shape[64];
    int infer_at = -1;
    bool has_zero = false;
    Sym *prod = sym_const(s, 1);
    for (int i = 0; i < len; i++) {
        int64_t v;
        shape[i] = t[i];
        if (sym_get_const(t[i], &v)) {
            if (v == -1) {
                if (infer_at >= 0)
                    o2c_error(c, n, "target shape has more than one -1");
                infer_at = i;
                continue;
            }
            if (v < -1)
                o2c_error(c, n, "target shape entry %d is %lld", i, (long long)v);
            if (v == 0 && !allowzero) {
                if (i >= x->rank)
                    o2c_error(c, n, "target shape entry %d is 0 (copy) but the input has rank %d",
                              i, x->rank);
                shape[i] = x->shape[i];
            } else if (v == 0)
                has_zero = true;
        }
        prod = sym_mul(s, prod, shape[i]);
    }
    Sym *numel = ir_numel(c, x);
    if (infer_at >= 0) {
        int64_t p;
        if (has_zero || (sym_get_const(prod, &p) && p == 0))
            o2c_error(c, n, "target shape has -1 together with a zero dim");
        shape[infer_at] = sym_floordiv(s, numel, prod);
        /* no constraint when the quotient is exact as polynomials (N*C*H*W / N) */
        if (sym_mul(s, shape[infer_at], prod) != numel)
            ir_constrain(c, n, CK_DIVIDES, prod, numel,
                         "input size must be a multiple of the product of the target's other dims");
    } else {
        ir_constrain(c, n, CK_EQ, prod, numel, "target shape must have as many elements as the input");
    }
    ir_set_shape(c, y, x->dtype, (int)len, shape);
    propagate(x, y);
}

/* Flatten: y = x reshaped to [prod(shape[0:axis]), prod(shape[axis:])], axis in [-r, r]. */
void infer_flatten(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    int64_t axis = attr_int(c, n, "axis", 1);
    if (axis < -(int64_t)x->rank || axis > x->rank)
        o2c_error(c, n, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
    if (axis < 0)
        axis += x->rank;
    Sym *d[2] = {sym_const(s, 1), sym_const(s, 1)};
    for (int i = 0; i < x->rank; i++)
        d[i >= axis] = sym_mul(s, d[i >= axis], x->shape[i]);
    ir_set_shape(c, y, x->dtype, 2, d);
    propagate(x, y);
}

/* Marks normalized axes in `mark` (size rank); errors on duplicates. */
static void mark_axes(Compiler *c, Node *n, const int64_t *axes, int64_t k, int rank, bool *mark) {
    for (int64_t i = 0; i < k; i++) {
        int a = infer_axis(c, n, axes[i], rank);
        if (mark[a])
            o2c_error(c, n, "axis %lld is repeated", (long long)axes[i]);
        mark[a] = true;
    }
}

/* Squeeze (13+: axes is input 1; before: attribute): removes the listed axes, which must be
 * 1; without axes, every dim that is 1. */
void infer_squeeze(Compiler *c, Node *n) {
    infer_require_inputs(c, n, 1, n->opset >= 13 ? 2 : 1);
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    Sym *one = sym_const(c->sym, 1);
    int64_t k = 0;
    Value *av = n->opset >= 13 ? node_in(n, 1) : NULL;
    if (av && !infer_ints(c, n, av, "axes", &k)) {
        /* runtime axes: the declared shape, checked by emit_squeeze */
        k = infer_declared_ints(c, n, av, "axes", y, x->dtype, want_squeezed);
        if (y->rank != x->rank - k)
            o2c_error(c, n, "%lld axes squeezed from rank %d but output '%s' is declared with "
                      "rank %d", (long long)k, x->rank, y->name, y->rank);
        return;
    }
    int64_t *axes = get_axes(c, n, 13, &k);
    bool *mark = arena_alloc(c->arena, (size_t)x->rank + 1);
    if (axes) {
        mark_axes(c, n, axes, k, x->rank, mark);
        for (int d = 0; d < x->rank; d++) {
            int64_t v;
            if (!mark[d])
                continue;
            if (sym_get_const(x->shape[d], &v) && v != 1)
                o2c_error(c, n, "cannot squeeze axis %d: its size is %lld, not 1", d, (long long)v);
            ir_constrain(c, n, CK_EQ, x->shape[d], one, "squeezed dimension %d must be 1", d);
        }
    } else {
        for (int d = 0; d < x->rank; d++) {
            int64_t v;
            if (!sym_get_const(x->shape[d], &v))
                o2c_error(c, n, "Squeeze without axes on symbolic dim %d: whether it is 1 is only "
                                "known at run time", d);
            mark[d] = v == 1;
        }
    }
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(x->rank + 1));
    int r = 0;
    for (int d = 0; d < x->rank; d++)
        if (!mark[d])
            shape[r++] = x->shape[d];
    ir_set_shape(c, y, x->dtype, r, shape);
    propagate(x, y);
}

/* Unsqueeze (13+: axes is input 1; before: attribute): inserts dims of 1 at the listed axes,
 * which index the output (rank r + len(axes)). */
void infer_unsqueeze(Compiler *c, Node *n) {
    infer_require_inputs(c, n, n->opset >= 13 ? 2 : 1, n->opset >= 13 ? 2 : 1);
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    int64_t k = 0;
    if (n->opset >= 13 && !infer_ints(c, n, n->in[1], "axes", &k)) {
        /* runtime axes: the declared shape, checked by emit_squeeze */
        k = infer_declared_ints(c, n, n->in[1], "axes", y, x->dtype, want_unsqueezed);
        if (y->rank != x->rank + k)
            o2c_error(c, n, "%lld axes inserted into rank %d but output '%s' is declared with "
                      "rank %d", (long long)k, x->rank, y->name, y->rank);
        return;
    }
    int64_t *axes = get_axes(c, n, 13, &k);
    if (!axes)
        o2c_error(c, n, "attribute 'axes' is required");
    if (k > 64)
        o2c_error(c, n, "too many axes (%lld)", (long long)k);
    int r = x->rank + (int)k;
    bool *mark = arena_alloc(c->arena, (size_t)r + 1);
    mark_axes(c, n, axes, k, r, mark);
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
    for (int d = 0, j = 0; d < r; d++)
        shape[d] = mark[d] ? sym_const(c->sym, 1) : x->shape[j++];
    ir_set_shape(c, y, x->dtype, r, shape);
    propagate(x, y);
}

/* Identity: y = x. */
void infer_identity(Compiler *c, Node *n) {
    if (n->in[0] && (n->in[0]->seq || n->in[0]->opt)) { /* a sequence or an optional passed on */
        ir_same_kind(c, n->out[0], n->in[0]);
        return;
    }
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    ir_set_shape(c, y, x->dtype, x->rank, x->shape);
    propagate(x, y);
}

/* ---- Dropout */

typedef struct DropoutPriv {
    unsigned char one[8]; /* the mask's "true" in the mask's type */
    bool train;           /* training may be on at run time and drop: the kernel below */
    int64_t seed;
} DropoutPriv;

/* Dropout: output = data and mask (optional) = all true, unless training mode (12+: input
 * training_mode, a bool; before 7: is_test = 0) is on and ratio (12+: input, default 0.5;
 * before: attribute) is not 0.  Then element i is kept when its draw u_i >= ratio, and
 *   output[i] = kept ? data[i] * scale : 0,  scale = 1 / (1 - ratio) (double, then rounded to
 *   the data's type as numpy's reference; float for float16/bfloat16),  mask[i] = kept.
 * The draws come from templates/random_draws.c: element i's is the (i + 1)-th output of
 * SplitMix64 started at the `seed` attribute (0 when absent), its top 53 bits a double in
 * [0, 1), so a run is deterministic and no state is kept; they cannot match numpy's generator
 * (onnx2c-test checks what Dropout guarantees instead: Output.checks, compiler/ops/random.c).
 * A ratio known at compile time must lie in [0, 1); one given at run time is used as it is,
 * without a clamp: ratio >= 1 (or NaN) drops every element (output 0, not inf * 0), ratio < 0
 * keeps them all, scaled by 1 / (1 - ratio).
 * Mask type: bool from 10, data's type before.  Only the known inference case folds. */
void infer_dropout(Compiler *c, Node *n) {
    infer_require_inputs(c, n, 1, n->opset >= 12 ? 3 : 1);
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    bool training = false;
    double ratio = 0.5;
    bool ratio_known = true;
    if (n->opset >= 12) {
        Value *r = node_in(n, 1), *t = node_in(n, 2);
        if (r) {
            if (!dtype_is_float(r->dtype) && r->dtype != DT_FLOAT16 && r->dtype != DT_BFLOAT16)
                o2c_error(c, n, "ratio has type %s: expected a float type", dtype_name(r->dtype));
            if (r->data && ir_known_len(r) == 1)
                ratio = data_double(r, 0);
            else
                ratio_known = false;
            ir_constrain(c, n, CK_EQ, ir_numel(c, r), sym_const(c->sym, 1),
                         "ratio must be a scalar (one element)");
        }
        if (t) {
            if (t->dtype != DT_BOOL)
                o2c_error(c, n, "training_mode has type %s: expected bool", dtype_name(t->dtype));
            Sym **kt = ir_known_ints(c, t);
            int64_t tv;
            if (kt && ir_known_len(t) == 1 && sym_get_const(kt[0], &tv))
                training = tv != 0;
            else
                training = true; /* at run time: the kernel reads it */
            ir_constrain(c, n, CK_EQ, ir_numel(c, t), sym_const(c->sym, 1),
                         "training_mode must be a scalar (one element)");
        }
    } else {
        ratio = attr_float(c, n, "ratio", 0.5f);
        if (n->opset < 7)
            training = attr_int(c, n, "is_test", 0) == 0;
    }
    bool train = training && !(ratio_known && ratio == 0);
    if (train && ratio_known && !(ratio >= 0 && ratio < 1))
        o2c_error(c, n, "ratio %g is outside [0, 1)", ratio);
    if (train && x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE && x->dtype != DT_FLOAT16 &&
        x->dtype != DT_BFLOAT16)
        o2c_error(c, n, "data type %s is not supported in training mode (a float type)",
                  dtype_name(x->dtype));
    ir_set_shape(c, y, x->dtype, x->rank, x->shape);
    DropoutPriv *p = arena_alloc(c->arena, sizeof *p);
    p->train = train;
    p->seed = n->opset >= 12 ? attr_int(c, n, "seed", 0) : 0;
    n->priv = p;
    if (!train)
        propagate(x, y);
    Value *m = n->nout > 1 ? n->out[1] : NULL;
    if (!m)
        return;
    DType mt = n->opset >= 10 ? DT_BOOL : x->dtype;
    ir_set_shape(c, m, mt, x->rank, x->shape);
    switch (mt) {
    case DT_FLOAT: { float v = 1; memcpy(p->one, &v, sizeof v); break; }
    case DT_DOUBLE: { double v = 1; memcpy(p->one, &v, sizeof v); break; }
    case DT_FLOAT16: { uint16_t v = 0x3c00; memcpy(p->one, &v, sizeof v); break; }
    case DT_BFLOAT16: { uint16_t v = 0x3f80; memcpy(p->one, &v, sizeof v); break; }
    default: p->one[0] = 1; break; /* little-endian integer 1 */
    }
    int64_t len = ir_known_len(m);
    if (!train && len >= 0 && len <= FOLD_MAX) {
        size_t es = dtype_size(mt);
        unsigned char *d = arena_alloc(c->arena, es * (size_t)(len ? len : 1));
        for (int64_t i = 0; i < len; i++)
            memcpy(d + es * (size_t)i, p->one, es);
        m->data = d;
    }
}

bool dropout_is_copy(const Node *n) {
    const DropoutPriv *p = n->priv;
    return !p || !p->train;
}

/* Training mode: the draws, the scaled copy and the mask (see infer_dropout). */
static void emit_dropout_train(Compiler *c, Emit *e, Node *n) {
    const DropoutPriv *p = n->priv;
    Value *x = n->in[0], *y = n->out[0], *m = n->nout > 1 ? n->out[1] : NULL;
    Value *r = n->opset >= 12 ? node_in(n, 1) : NULL, *t = n->opset >= 12 ? node_in(n, 2) : NULL;
    bool half = x->dtype == DT_FLOAT16 || x->dtype == DT_BFLOAT16;
    int eb = x->dtype == DT_FLOAT16 ? 5 : 8;
    const char *ct = half ? "float" : dtype_ctype(x->dtype);
    emit_template(e, "random_draws", DT_UNDEFINED);
    if (half || (r && (r->dtype == DT_FLOAT16 || r->dtype == DT_BFLOAT16)))
        emit_template(e, "ew_half_to_float", DT_UNDEFINED);
    if (half)
        emit_template(e, "ew_float_to_half", DT_UNDEFINED);
    const char *ratio = "0.5";
    if (r && r->dtype == DT_FLOAT16)
        ratio = arena_printf(c->arena, "(double)o2c_half_to_float(%s[0], 5)", emit_ptr(e, r));
    else if (r && r->dtype == DT_BFLOAT16)
        ratio = arena_printf(c->arena, "(double)o2c_half_to_float(%s[0], 8)", emit_ptr(e, r));
    else if (r)
        ratio = arena_printf(c->arena, "(double)%s[0]", emit_ptr(e, r));
    else if (n->opset < 12)
        ratio = emit_literal(e, DT_DOUBLE, attr_float(c, n, "ratio", 0.5f));
    emit_line(e, "/* training mode: element i kept when its draw (SplitMix64, seed %lld) >= "
                 "ratio, then scaled by 1 / (1 - ratio) */", (long long)p->seed);
    emit_line(e, "const int train = %s;", t ? arena_printf(c->arena, "%s[0] != 0", emit_ptr(e, t))
                                             : "1");
    emit_line(e, "const double ratio = %s;", ratio);
    emit_line(e, "const %s scale = (%s)(ratio < 1 ? 1.0 / (1.0 - ratio) : 0.0);", ct, ct);
    const char *xe = half ? arena_printf(c->arena, "o2c_half_to_float(%s[i], %d)", emit_ptr(e, x),
                                         eb)
                          : arena_printf(c->arena, "%s[i]", emit_ptr(e, x));
    const char *ye = half ? arena_printf(c->arena, "o2c_float_to_half((double)(%s * scale), %d)",
                                         xe, eb)
                          : arena_printf(c->arena, "%s * scale", xe);
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", emit_sym(e, ir_numel(c, x)));
    emit_indent(e, 1);
    emit_line(e, "const int keep = !train || ratio == 0 || "
                 "o2c_unif_f64(UINT64_C(%llu), (uint64_t)i + 1u) >= ratio;",
              (unsigned long long)p->seed);
    emit_line(e, "%s[i] = !train ? %s[i] : keep ? %s : 0;", emit_ptr(e, y), emit_ptr(e, x), ye);
    if (m)
        emit_line(e, "%s[i] = keep ? %s : 0;", emit_ptr(e, m), elem_literal(e, m->dtype, p->one));
    emit_indent(e, -1);
    emit_line(e, "}");
}

void emit_dropout(Compiler *c, Emit *e, Node *n) {
    const DropoutPriv *p = n->priv;
    if (p->train) {
        emit_dropout_train(c, e, n);
        return;
    }
    emit_copy(c, e, n);
    Value *m = n->nout > 1 ? n->out[1] : NULL;
    if (m && m->rank >= 0 && !known(m))
        emit_fill(c, e, m, p->one);
}

/* ---- Constant, ConstantOfShape */

/* Constant: y = the one value attribute: value (tensor), value_float(s), value_int(s).
 * String and sparse values are not supported. */
void infer_constant(Compiler *c, Node *n) {
    Value *y = n->out[0];
    const Attr *a = NULL;
    for (int i = 0; i < n->nattr; i++) {
        if (a)
            o2c_error(c, n, "has more than one value attribute ('%s' and '%s')", a->name,
                      n->attrs[i].name);
        a = &n->attrs[i];
    }
    if (!a)
        o2c_error(c, n, "has no value attribute");
    const char *nm = a->name;
    if (!strcmp(nm, "value") && a->type == ATTR_TENSOR) {
        const Tensor *t = a->t;
        size_t es = dtype_size(t->dtype);
        if (t->dtype == DT_STRING || es == 0)
            o2c_error(c, n, "value of type %s is not supported", dtype_name(t->dtype));
        ir_set_shape_ints(c, y, t->dtype, t->rank, t->dims);
        size_t bytes = es * (size_t)t->nelem;
        y->data = arena_alloc(c->arena, bytes ? bytes : 1);
        if (bytes)
            memcpy(y->data, t->data, bytes);
    } else if (!strcmp(nm, "value_float") && a->type == ATTR_FLOAT) {
        ir_set_shape(c, y, DT_FLOAT, 0, NULL);
        y->data = arena_dup(c->arena, &a->f, sizeof(float));
    } else if (!strcmp(nm, "value_floats") && a->type == ATTR_FLOATS) {
        int64_t k = a->n;
        ir_set_shape_ints(c, y, DT_FLOAT, 1, &k);
        y->data = arena_dup(c->arena, a->floats, sizeof(float) * (size_t)(k + 1));
    } else if (!strcmp(nm, "value_int") && a->type == ATTR_INT) {
        ir_set_shape(c, y, DT_INT64, 0, NULL);
        y->data = arena_dup(c->arena, &a->i, sizeof(int64_t));
    } else if (!strcmp(nm, "value_ints") && a->type == ATTR_INTS) {
        int64_t k = a->n;
        ir_set_shape_ints(c, y, DT_INT64, 1, &k);
        y->data = arena_dup(c->arena, a->ints, sizeof(int64_t) * (size_t)(k + 1));
    } else if (!strcmp(nm, "sparse_value")) {
        o2c_error(c, n, "sparse constant values are not supported");
    } else if (!strcmp(nm, "value_string") || !strcmp(nm, "value_strings")) {
        o2c_error(c, n, "string constants are not supported");
    } else {
        o2c_error(c, n, "unexpected attribute '%s'", nm);
    }
}

/* ConstantOfShape: y of shape `input` (known, may be symbolic), every element = value (a
 * one-element tensor attribute, default float 0). */
void infer_constantofshape(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    int64_t len;
    Sym **shape = infer_ints(c, n, x, "shape", &len);
    if (len > 64)
        o2c_error(c, n, "shape has %lld dims, at most 64 are supported", (long long)len);
    for (int64_t i = 0; shape && i < len; i++) {
        int64_t v;
        if (sym_get_const(shape[i], &v) && v < 0)
            o2c_error(c, n, "shape entry %lld is negative (%lld)", (long long)i, (long long)v);
    }
    static const float zero = 0;
    DType t = DT_FLOAT;
    const void *value = &zero;
    const Attr *a = node_attr(n, "value");
    if (a) {
        if (a->type != ATTR_TENSOR)
            o2c_error(c, n, "attribute 'value' must be a tensor");
        if (a->t->nelem != 1)
            o2c_error(c, n, "attribute 'value' must have one element, got %lld",
                      (long long)a->t->nelem);
        t = a->t->dtype;
        if (t == DT_STRING || dtype_size(t) == 0)
            o2c_error(c, n, "value of type %s is not supported", dtype_name(t));
        value = a->t->data;
    }
    size_t es = dtype_size(t);
    n->priv = arena_dup(c->arena, value, es);
    if (!shape) {
        /* runtime shape: the declared one, checked by emit_constantofshape */
        len = infer_declared_ints(c, n, x, "shape", y, t, want_rank);
        if (len != y->rank)
            o2c_error(c, n, "shape has %lld entries but output '%s' is declared with rank %d",
                      (long long)len, y->name, y->rank);
        return;
    }
    ir_set_shape(c, y, t, (int)len, shape);
    int64_t cnt = ir_known_len(y);
    if (cnt >= 0 && cnt <= FOLD_MAX) {
        unsigned char *d = arena_alloc(c->arena, es * (size_t)(cnt ? cnt : 1));
        for (int64_t i = 0; i < cnt; i++)
            memcpy(d + es * (size_t)i, value, es);
        y->data = d;
    }
}

/* Each shape-like entry i (read at run time) must equal the declared dim i. */
static void emit_rt_equal(Emit *e, Value *v, Value *y) {
    for (int i = 0; i < y->rank; i++) {
        emit_line(e, "if (%s != %s)", rt_elem(e, v, i), emit_sym(e, y->shape[i]));
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    }
}

void emit_constantofshape(Compiler *c, Emit *e, Node *n) {
    if (!known(n->in[0]))
        emit_rt_equal(e, n->in[0], n->out[0]);
    emit_fill(c, e, n->out[0], n->priv);
}

/* ---- Range */

/* Range-11: y[i] = start + i * delta for i < max(ceil((limit - start) / delta), 0).  Integer
 * operands may be symbolic (Syms) when delta is a constant; float operands are constants, or
 * known integers (kv, exact) with integral constant others: the length is then the Sym
 * max(ceildiv(limit - start, delta), 0) and the kernel computes (T)(start + i * delta).
 * Operands known at compile time are required: the length is the output's shape. */
void infer_range(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *v[3], *y = n->out[0];
    static const char *const names[3] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; i++) {
        v[i] = infer_in(c, n, i);
        if (v[i]->dtype != v[0]->dtype)
            o2c_error(c, n, "%s has type %s but start has type %s", names[i],
                      dtype_name(v[i]->dtype), dtype_name(v[0]->dtype));
        if (ir_known_len(v[i]) != 1)
            o2c_error(c, n, "%s must be a scalar", names[i]);
    }
    DType t = v[0]->dtype;
    if (t != DT_FLOAT && t != DT_DOUBLE && !dtype_is_int(t))
        o2c_error(c, n, "type %s is not supported", dtype_name(t));
    bool runtime = false, all_data = true;
    for (int i = 0; i < 3; i++) {
        if (dtype_is_int(t) ? !ir_known_ints(c, v[i]) : !v[i]->data && !v[i]->kv)
            runtime = true;
        all_data &= v[i]->data != NULL;
    }
    if (runtime) {
        /* operands read at run time: the declared length, checked by emit_range; without
         * one a data dim (bounded by --max, or by a declared shape it reaches: else pending,
         * an error at the end of inference), computed by emit_range */
        if (!infer_declared_shape(c, n, y, t)) {
            Sym *len = ir_data_dim(c, n, 0, 0, NULL);
            ir_set_shape(c, y, t, 1, &len);
        }
        if (y->rank != 1)
            o2c_error(c, n, "output '%s' is declared with rank %d, not 1", y->name, y->rank);
        n->priv = NULL;
        return;
    }
    if (dtype_is_int(t) || !all_data) {
        /* integer operands, or float ones of which one is a known integer Sym (kv: a Cast of
         * shape arithmetic, torch.arange(S, dtype=float)): the others must be integral */
        Sym *k[3];
        for (int i = 0; i < 3; i++) {
            Sym **kk = ir_known_ints(c, v[i]);
            if (kk) {
                k[i] = kk[0];
                continue;
            }
            O2C_ASSERT(c, !dtype_is_int(t) && v[i]->data);
            double d = data_double(v[i], 0);
            if (!(d == floor(d) && fabs(d) <= 9007199254740992.0))
                o2c_error(c, n, "%s is %g: a float Range whose operands are symbolic needs "
                                "integral start, limit and delta", names[i], d);
            k[i] = sym_const(s, (int64_t)d);
        }
        int64_t delta;
        if (!sym_get_const(k[2], &delta))
            o2c_error(c, n, "delta must be a constant, it is symbolic");
        if (delta == 0)
            o2c_error(c, n, "delta is 0");
        Sym *len = delta > 0 ? sym_ceildiv(s, sym_sub(s, k[1], k[0]), k[2])
                             : sym_ceildiv(s, sym_sub(s, k[0], k[1]), sym_const(s, -delta));
        len = sym_max(s, len, sym_const(s, 0));
        ir_set_shape(c, y, t, 1, &len);
        Sym **prm = arena_alloc(c->arena, sizeof(Sym *) * 2);
        prm[0] = k[0];
        prm[1] = k[2];
        n->priv = prm;
        int64_t cnt;
        if (dtype_is_int(t) && sym_get_const(len, &cnt) && cnt <= FOLD_MAX) {
            y->kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(cnt + 1));
            for (int64_t i = 0; i < cnt; i++)
                y->kv[i] = sym_add(s, k[0], sym_mul(s, sym_const(s, i), k[2]));
        }
        return;
    }
    for (int i = 0; i < 3; i++)
        if (!v[i]->data)
            infer_not_known(c, n, v[i], names[i], false);
    double start = data_double(v[0], 0), limit = data_double(v[1], 0), delta = data_double(v[2], 0);
    if (delta == 0 || !isfinite(start) || !isfinite(limit) || !isfinite(delta))
        o2c_error(c, n, "start, limit and delta must be finite and delta nonzero");
    double lenf = ceil((limit - start) / delta);
    if (lenf < 0)
        lenf = 0;
    if (lenf > (1 << 24))
        o2c_error(c, n, "output length %.0f is too large to fold", lenf);
    int64_t cnt = (int64_t)lenf;
    ir_set_shape_ints(c, y, t, 1, &cnt);
    size_t es = dtype_size(t);
    unsigned char *d = arena_alloc(c->arena, es * (size_t)(cnt ? cnt : 1));
    for (int64_t i = 0; i < cnt; i++) {
        if (t == DT_FLOAT) {
            float f = (float)start + (float)i * (float)delta;
            memcpy(d + es * (size_t)i, &f, es);
        } else {
            double f = start + (double)i * delta;
            memcpy(d + es * (size_t)i, &f, es);
        }
    }
    y->data = d;
}

void emit_range(Compiler *c, Emit *e, Node *n) {
    Value *y = n->out[0];
    Sym **prm = n->priv;
    const char *ct = dtype_ctype(y->dtype);
    int64_t v;
    if (!prm) {
        /* runtime operands: the length must be the declared one, or it is a data dim (a
         * delta of 0 or NaN operands: a length past every bound) */
        Sym *ls = y->shape[0];
        bool data = ls->kind == SYM_DIM && ls->dim >= c->g->nin_dims &&
                    c->g->dims[ls->dim].producer == n->index;
        const char *yp = emit_ptr(e, y), *len = emit_sym(e, ls);
        emit_line(e, "const %s st = %s[0], li = %s[0], de = %s[0];", ct, emit_ptr(e, n->in[0]),
                  emit_ptr(e, n->in[1]), emit_ptr(e, n->in[2]));
        if (dtype_is_int(y->dtype)) {
            /* the length ceil((li - st) / de) and the values st + i * de in uint64_t: exact
             * (modulo 2^64) for any operands, so INT64_MIN / INT64_MAX do not overflow */
            emit_line(e, "const int up = de > 0;");
            emit_line(e, "const uint64_t num = up ? (uint64_t)li - (uint64_t)st : (uint64_t)st - "
                         "(uint64_t)li;");
            emit_line(e, "const uint64_t den = up ? (uint64_t)de : (uint64_t)0 - (uint64_t)de;");
            if (data) {
                emit_line(e, "const uint64_t cnt = de == 0 ? UINT64_MAX : (up ? li > st : st > li) "
                             "? (num - 1) / den + 1 : 0;");
                emit_set_data_dim(e, ls, "cnt > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)cnt");
            } else {
                emit_line(e, "if (de == 0 || ((up ? li > st : st > li) ? (num - 1) / den + 1 : 0) "
                             "!= (uint64_t)%s)", len);
                emit_line(e, "    return %d;", O2C_RUN_EDATA);
            }
            emit_line(e, "for (int64_t i = 0; i < %s; i++) {", len);
            emit_line(e, "    const uint64_t u = (uint64_t)st + (uint64_t)i * (uint64_t)de;");
            emit_line(e, "    %s[i] = (%s)(u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)~u - 1);",
                      yp, ct);
            emit_line(e, "}");
        } else {
            emit_line(e, "const double nf = ceil(((double)li - (double)st) / (double)de);");
            if (data)
                emit_set_data_dim(e, ls, "de == 0 || isnan(nf) || nf >= 9223372036854775807.0 "
                                         "? INT64_MAX : nf > 0 ? (int64_t)nf : 0");
            else {
                emit_line(e, "if (!(de != 0 && isfinite(nf) && (nf > 0 ? nf : 0) == (double)%s))",
                          len);
                emit_line(e, "    return %d;", O2C_RUN_EDATA);
            }
            emit_line(e, "for (int64_t i = 0; i < %s; i++)", len);
            emit_line(e, "    %s[i] = st + (%s)i * de;", yp, ct);
        }
        return;
    }
    const char *term = sym_get_const(prm[1], &v) && v == 1
                           ? "i"
                           : arena_printf(c->arena, "i * %s", emit_sym(e, prm[1]));
    const char *val = sym_get_const(prm[0], &v) && v == 0
                          ? term
                          : arena_printf(c->arena, "%s + %s", emit_sym(e, prm[0]), term);
    emit_line(e, "for (int64_t i = 0; i < %s; i++)", emit_sym(e, y->shape[0]));
    emit_line(e, "    %s[i] = (%s)(%s);", emit_ptr(e, y), ct, val);
}

/* ---- Expand, Tile */

/* Expand-8: y = x broadcast (numpy rules, both ways) against the known shape input. */
void infer_expand(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    int64_t len;
    Sym **t = infer_ints(c, n, n->in[1], "shape", &len);
    if (!t) {
        /* runtime shape: the declared one, checked by emit_expand; x must broadcast to it */
        len = infer_declared_ints(c, n, n->in[1], "shape", y, x->dtype, want_rank);
        int r = y->rank;
        if (r != (len > x->rank ? len : x->rank))
            o2c_error(c, n, "shape has %lld entries and the input rank %d, but output '%s' is "
                      "declared with rank %d", (long long)len, x->rank, y->name, r);
        Sym **b = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
        infer_broadcast(c, n, x->rank, x->shape, r, y->shape, b);
        for (int d = 0; d < r; d++)
            infer_declared_agree(c, n, y, d, b[d]);
        return;
    }
    if (len > 64)
        o2c_error(c, n, "shape has %lld dims, at most 64 are supported", (long long)len);
    for (int64_t i = 0; i < len; i++) {
        int64_t v;
        if (sym_get_const(t[i], &v) && v < 0)
            o2c_error(c, n, "shape entry %lld is negative (%lld)", (long long)i, (long long)v);
    }
    int r = (int)len > x->rank ? (int)len : x->rank;
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
    r = infer_broadcast(c, n, x->rank, x->shape, (int)len, t, shape);
    ir_set_shape(c, y, x->dtype, r, shape);
    fold_repeat(c, x, y);
}

void emit_expand(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *t = n->in[1], *y = n->out[0];
    if (!known(t)) {
        /* broadcast of x with the runtime shape must give the declared dims */
        int64_t len = infer_len(c, t);
        for (int d = 0; d < y->rank; d++) {
            int k = d - (y->rank - (int)len);
            if (k < 0)
                continue; /* x's dim: settled at compile time (decl_agree) */
            Sym *xd = d - (y->rank - x->rank) >= 0 ? x->shape[d - (y->rank - x->rank)]
                                                   : sym_const(c->sym, 1);
            emit_line(e, "{");
            emit_line(e, "    const int64_t t = %s, xd = %s, want = %s;", rt_elem(e, t, k),
                      emit_sym(e, xd), emit_sym(e, y->shape[d]));
            emit_line(e, "    if (!((t == xd || t == 1) ? xd == want : (xd == 1 && t == want)))");
            emit_line(e, "        return %d;", O2C_RUN_EDATA);
            emit_line(e, "}");
        }
    }
    emit_elementwise(e, n, n->out[0], 1, n->in, "$0");
}

/* Tile-6/13: y.shape[d] = x.shape[d] * repeats[d], y[i...] = x[i % x.shape...].  Tile-1 had a
 * scalar `tiles` count and an `axis` input instead. */
void infer_tile(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x = infer_in(c, n, 0), *y = n->out[0];
    Sym **rep;
    if (n->opset < 6) {
        infer_require_inputs(c, n, 3, 3);
        int64_t l1, l2;
        Sym **tiles = infer_need_ints(c, n, n->in[1], "tiles", &l1, false);
        int64_t *axis = infer_need_const_ints(c, n, n->in[2], "axis", &l2, false);
        if (l1 != 1 || l2 != 1)
            o2c_error(c, n, "tiles and axis must be scalars");
        int a = infer_axis(c, n, axis[0], x->rank);
        rep = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(x->rank + 1));
        for (int d = 0; d < x->rank; d++)
            rep[d] = d == a ? tiles[0] : sym_const(s, 1);
    } else {
        infer_require_inputs(c, n, 2, 2);
        int64_t len;
        rep = infer_ints(c, n, n->in[1], "repeats", &len);
        if (!rep) {
            /* runtime repeats: the declared shape, checked by emit_tile */
            len = infer_declared_ints(c, n, n->in[1], "repeats", y, x->dtype, want_in_rank);
            if (len != x->rank || y->rank != x->rank)
                o2c_error(c, n, "repeats has %lld entries, the input rank %d and output '%s' is "
                          "declared with rank %d", (long long)len, x->rank, y->name, y->rank);
            return;
        }
        if (len != x->rank)
            o2c_error(c, n, "repeats has %lld entries but the input has rank %d", (long long)len,
                      x->rank);
    }
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(x->rank + 1));
    for (int d = 0; d < x->rank; d++) {
        int64_t v;
        if (sym_get_const(rep[d], &v) && v < 0)
            o2c_error(c, n, "repeats[%d] is negative (%lld)", d, (long long)v);
        shape[d] = sym_mul(s, x->shape[d], rep[d]);
    }
    ir_set_shape(c, y, x->dtype, x->rank, shape);
    fold_repeat(c, x, y);
}

void emit_tile(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    Value *x = n->in[0], *y = n->out[0];
    Sym *one = sym_const(s, 1);
    int r = y->rank;
    const char *yp = emit_ptr(e, y), *xp = emit_ptr(e, x);
    if (n->opset >= 6 && !known(n->in[1]))
        for (int d = 0; d < r; d++) {
            emit_line(e, "{");
            /* t * x == y without the product (which may overflow) */
            const char *X = emit_sym(e, x->shape[d]), *Y = emit_sym(e, y->shape[d]);
            int64_t xv;
            emit_line(e, "    const int64_t t = %s;", rt_elem(e, n->in[1], d));
            if (sym_get_const(x->shape[d], &xv) && xv == 0)
                emit_line(e, "    if (t < 0 || %s != 0)", Y);
            else
                emit_line(e, "    if (t < 0 || (%s == 0 ? %s != 0 : %s %% %s != 0 || t != %s / %s))", X,
                          Y, Y, X, Y, X);
            emit_line(e, "        return %d;", O2C_RUN_EDATA);
            emit_line(e, "}");
        }
    if (r == 0) {
        emit_line(e, "%s[0] = %s[0];", yp, xp);
        return;
    }
    /* y is written in order: k counts its elements; x's index is rebuilt per element */
    emit_line(e, "int64_t k = 0;");
    for (int d = 0; d < r; d++) {
        emit_line(e, "for (int64_t i%d = 0; i%d < %s; i%d++) {", d, d, emit_sym(e, y->shape[d]), d);
        emit_indent(e, 1);
    }
    Buf ix;
    buf_init_in(&ix, c->arena);
    Sym *stride = one;
    for (int d = r - 1; d >= 0; d--) {
        if (x->shape[d] != one) {
            const char *coord =
                x->shape[d] == y->shape[d]
                    ? arena_printf(c->arena, "i%d", d)
                    : arena_printf(c->arena, "i%d %% %s", d, emit_sym(e, x->shape[d]));
            if (stride == one)
                buf_printf(&ix, "%s(%s)", ix.len ? " + " : "", coord);
            else
                buf_printf(&ix, "%s(%s) * %s", ix.len ? " + " : "", coord, emit_sym(e, stride));
        }
        stride = sym_mul(s, stride, x->shape[d]);
    }
    emit_line(e, "%s[k++] = %s[%s];", yp, xp, ix.len ? ix.data : "0");
    buf_free(&ix);
    for (int d = 0; d < r; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}
