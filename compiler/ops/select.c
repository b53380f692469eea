/* select.c — op family: ops whose output size is decided by tensor data.
 *
 * NonZero, Compress, Unique.  Each output size they decide is a data dim (CONTRACT §2b,
 * ir_data_dim): a fresh dim with an upper bound from the input dims (the element count, the
 * length of the selected axis), planned at that bound; the node counts at run time, sets the
 * dim (emit_set_data_dim) and writes its outputs dense at the actual size.  Code: short loop
 * nests written here, in the order the ONNX reference implementation (numpy) gives:
 *
 *   NonZero   y[d, j] = coordinate d of the j-th nonzero element of x, row-major order.
 *   Compress  the slices k < min(len(condition), x.shape[axis]) of x along axis (x flattened
 *             when axis is absent) whose condition[k] is nonzero, in order.
 *   Unique    the distinct slices of x along axis (elements of the flattened x without one),
 *             ascending (lexicographic for slices) when sorted = 1, else in order of first
 *             occurrence; indices: each one's first occurrence; inverse_indices: for every
 *             slice of x, its unique's position; counts.  O(n u) comparisons for n slices and
 *             u distinct ones, and an insertion sort of the u: for the sizes models select at,
 *             not for sorting millions. */
#include "onnx2c.h"
#include <string.h>

/* The C condition "element at C expression idx of x (C pointer p) is nonzero". */
static const char *nonzero_test(Emit *e, DType t, const char *p, const char *idx) {
    Arena *a = emit_arena(e);
    if (t == DT_FLOAT16 || t == DT_BFLOAT16) /* bits: +0 and -0 are zero */
        return arena_printf(a, "(%s[%s] & 0x7fffu) != 0", p, idx);
    return arena_printf(a, "%s[%s] != 0", p, idx);
}

static bool selectable(DType t) { return dtype_size(t) > 0 && t != DT_STRING; }

/* ---- NonZero (opset 9+): y (int64) [rank(x), nz], nz <= numel(x); a scalar x counts as a
 * vector of one element (numpy's nonzero of atleast_1d). */

void infer_nonzero(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *x = infer_in(c, n, 0);
    if (!selectable(x->dtype))
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    Sym *shape[2] = {sym_const(c->sym, x->rank > 0 ? x->rank : 1), NULL};
    shape[1] = ir_data_dim(c, n, 0, 1, ir_numel(c, x));
    ir_set_shape(c, n->out[0], DT_INT64, 2, shape);
}

void emit_nonzero(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *y = n->out[0];
    const char *xp = emit_ptr(e, x), *yp = emit_ptr(e, y), *len = emit_sym(e, ir_numel(c, x));
    const char *nz = emit_sym(e, y->shape[1]);
    emit_line(e, "int64_t cnt = 0;");
    emit_line(e, "for (int64_t i = 0; i < %s; i++)", len);
    emit_line(e, "    cnt += %s;", nonzero_test(e, x->dtype, xp, "i"));
    emit_set_data_dim(e, y->shape[1], "cnt");
    const char *dims = x->rank > 1 ? emit_sym_array(e, "xd", x->rank, x->shape) : NULL;
    emit_line(e, "int64_t j = 0;");
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", len);
    emit_line(e, "    if (!(%s))", nonzero_test(e, x->dtype, xp, "i"));
    emit_line(e, "        continue;");
    if (x->rank <= 1)
        emit_line(e, "    %s[j] = i;", yp);
    else {
        emit_line(e, "    int64_t rest = i;");
        emit_line(e, "    for (int d = %d; d >= 0; d--) {", x->rank - 1);
        emit_line(e, "        %s[d * %s + j] = rest %% %s[d];", yp, nz, dims);
        emit_line(e, "        rest /= %s[d];", dims);
        emit_line(e, "    }");
    }
    emit_line(e, "    j++;");
    emit_line(e, "}");
}

/* ---- the slices of x along an axis: outer x len x inner; without an axis, x flattened */

typedef struct Slices {
    int axis; /* -1: flattened */
    Sym *outer, *len, *inner;
} Slices;

static void slices_of(Compiler *c, Value *x, int axis, Slices *s) {
    s->axis = axis;
    if (axis < 0) {
        s->outer = s->inner = sym_const(c->sym, 1);
        s->len = ir_numel(c, x);
        return;
    }
    s->outer = sym_prod(c->sym, x->shape, 0, axis);
    s->len = x->shape[axis];
    s->inner = sym_prod(c->sym, x->shape, axis + 1, x->rank);
}

/* The slices of Compress / Unique: along attribute axis, else of the flattened x (n->priv). */
static Slices *slices_of_attr(Compiler *c, Node *n, Value *x) {
    int axis = -1;
    if (node_attr(n, "axis")) {
        if (x->rank < 1)
            o2c_error(c, n, "axis given for a scalar input");
        axis = infer_axis(c, n, attr_int(c, n, "axis", 0), x->rank);
    }
    Slices *p = arena_alloc(c->arena, sizeof *p);
    slices_of(c, x, axis, p);
    n->priv = p;
    return p;
}

/* x's shape with the axis (or the flattened x) of length `len` */
static void sliced_shape(Compiler *c, Value *x, const Slices *s, Sym *len, Value *y) {
    if (s->axis < 0) {
        ir_set_shape(c, y, x->dtype, 1, &len);
        return;
    }
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(x->rank + 1));
    memcpy(shape, x->shape, sizeof(Sym *) * (size_t)x->rank);
    shape[s->axis] = len;
    ir_set_shape(c, y, x->dtype, x->rank, shape);
}

/* Emits `for o, for i: dst[(o * dn + dk) * inner + i] = src[(o * sn + sk) * inner + i]`:
 * slice sk of src (sn slices) to slot dk of dst (dn slots). */
static void emit_copy_slice(Emit *e, const Slices *s, const char *dst, const char *dn, const char *dk,
                            const char *src, const char *sn, const char *sk) {
    const char *outer = emit_sym(e, s->outer), *inner = emit_sym(e, s->inner);
    emit_line(e, "for (int64_t o = 0; o < %s; o++)", outer);
    emit_line(e, "    for (int64_t i = 0; i < %s; i++)", inner);
    emit_line(e, "        %s[(o * %s + %s) * %s + i] = %s[(o * %s + %s) * %s + i];", dst, dn, dk, inner,
              src, sn, sk, inner);
}

/* ---- Compress (opset 9+; negative axis from 11) */

void infer_compress(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *x = infer_in(c, n, 0), *cond = infer_in(c, n, 1);
    if (!selectable(x->dtype))
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    if (cond->rank != 1)
        o2c_error(c, n, "condition has rank %d: expected 1", cond->rank);
    if (cond->dtype != DT_BOOL && !dtype_is_int(cond->dtype))
        o2c_error(c, n, "condition type %s: expected bool", dtype_name(cond->dtype));
    Slices *p = slices_of_attr(c, n, x);
    int axis = p->axis;
    /* slices past the condition's length are dropped (ONNX: "can be less than the input length") */
    Sym *bound = sym_min(c->sym, cond->shape[0], p->len);
    sliced_shape(c, x, p, ir_data_dim(c, n, 0, axis < 0 ? 0 : axis, bound), n->out[0]);
}

void emit_compress(Compiler *c, Emit *e, Node *n) {
    const Slices *p = n->priv;
    Value *x = n->in[0], *cond = n->in[1], *y = n->out[0];
    Sym *k = y->shape[p->axis < 0 ? 0 : p->axis];
    const char *cp = emit_ptr(e, cond);
    const char *m = emit_sym(e, sym_min(c->sym, cond->shape[0], p->len));
    emit_line(e, "int64_t cnt = 0;");
    emit_line(e, "for (int64_t k = 0; k < %s; k++)", m);
    emit_line(e, "    cnt += %s[k] != 0;", cp);
    emit_set_data_dim(e, k, "cnt");
    emit_line(e, "int64_t j = 0;");
    emit_line(e, "for (int64_t k = 0; k < %s; k++) {", m);
    emit_line(e, "    if (!%s[k])", cp);
    emit_line(e, "        continue;");
    emit_indent(e, 1);
    emit_copy_slice(e, p, emit_ptr(e, y), "cnt", "j", emit_ptr(e, x), emit_sym(e, p->len), "k");
    emit_indent(e, -1);
    emit_line(e, "    j++;");
    emit_line(e, "}");
}

/* ---- Unique (opset 11+) */

void infer_unique(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 4);
    Value *x = infer_in(c, n, 0);
    if (!dtype_is_float(x->dtype) && !dtype_is_int(x->dtype) && x->dtype != DT_BOOL)
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    int64_t sorted = attr_int(c, n, "sorted", 1);
    if (sorted != 0 && sorted != 1)
        o2c_error(c, n, "sorted = %lld: expected 0 or 1", (long long)sorted);
    Slices *p = slices_of_attr(c, n, x);
    int axis = p->axis;
    n->op_i[0] = sorted;
    Sym *u = ir_data_dim(c, n, 0, axis < 0 ? 0 : axis, p->len);
    sliced_shape(c, x, p, u, n->out[0]);
    for (int k = 1; k < n->nout; k++)
        if (n->out[k])
            ir_set_shape(c, n->out[k], DT_INT64, 1, k == 2 ? &p->len : &u);
    /* scratch: per slice its unique (first-occurrence order), per unique its first slice,
     * the sorted order and each unique's place in it */
    n->scratch = sym_mul(c->sym, p->len, sym_const(c->sym, 4 * 8));
}

/* `int cmp`: -1, 0 or 1 as slice a of x (C pointer xp, type ct) is before, equal to or after
 * slice b: the first differing element decides (a NaN equals a NaN, as numpy's unique). */
static void emit_slice_cmp(Emit *e, const char *ct, const char *xp, const char *len,
                           const char *outer, const char *inner, const char *a, const char *b) {
    emit_line(e, "int cmp = 0;");
    emit_line(e, "for (int64_t o = 0; o < %s && !cmp; o++)", outer);
    emit_line(e, "    for (int64_t i = 0; i < %s && !cmp; i++) {", inner);
    emit_line(e, "        const %s xa = %s[(o * %s + %s) * %s + i], xb = %s[(o * %s + %s) * %s + i];", ct,
              xp, len, a, inner, xp, len, b, inner);
    emit_line(e, "        cmp = (xa > xb) - (xa < xb);");
    emit_line(e, "    }");
}

void emit_unique(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const Slices *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    const char *xp = emit_ptr(e, x), *len = emit_sym(e, p->len);
    const char *outer = emit_sym(e, p->outer), *inner = emit_sym(e, p->inner);
    emit_line(e, "int64_t *const inv = (int64_t *)(ws + %s);", emit_sym(e, n->scratch_offset));
    emit_line(e, "int64_t *const first = inv + %s, *const ord = first + %s, *const pos = ord + %s;",
              len, len, len);
    const char *ct = dtype_ctype(x->dtype);
    emit_line(e, "int64_t u = 0;");
    emit_line(e, "for (int64_t k = 0; k < %s; k++) {", len);
    emit_line(e, "    int64_t f = -1;");
    emit_line(e, "    for (int64_t q = 0; q < u && f < 0; q++) {");
    emit_indent(e, 2);
    emit_slice_cmp(e, ct, xp, len, outer, inner, "first[q]", "k");
    emit_indent(e, -2);
    emit_line(e, "        if (cmp == 0)");
    emit_line(e, "            f = q;");
    emit_line(e, "    }");
    emit_line(e, "    if (f < 0) {");
    emit_line(e, "        first[u] = k;");
    emit_line(e, "        f = u++;");
    emit_line(e, "    }");
    emit_line(e, "    inv[k] = f;");
    emit_line(e, "}");
    emit_set_data_dim(e, y->shape[p->axis < 0 ? 0 : p->axis], "u");
    emit_line(e, "for (int64_t q = 0; q < u; q++)");
    emit_line(e, "    ord[q] = q;");
    if (n->op_i[0]) { /* insertion sort of the uniques by their slices: stable */
        emit_line(e, "for (int64_t q = 1; q < u; q++) {");
        emit_line(e, "    const int64_t v = ord[q];");
        emit_line(e, "    int64_t r = q;");
        emit_line(e, "    for (; r > 0; r--) {");
        emit_indent(e, 2);
        emit_slice_cmp(e, ct, xp, len, outer, inner, "first[v]", "first[ord[r - 1]]");
        emit_indent(e, -2);
        emit_line(e, "        if (cmp >= 0)");
        emit_line(e, "            break;");
        emit_line(e, "        ord[r] = ord[r - 1];");
        emit_line(e, "    }");
        emit_line(e, "    ord[r] = v;");
        emit_line(e, "}");
    }
    emit_line(e, "for (int64_t q = 0; q < u; q++)");
    emit_line(e, "    pos[ord[q]] = q;");
    emit_line(e, "for (int64_t q = 0; q < u; q++) {");
    emit_indent(e, 1);
    emit_copy_slice(e, p, emit_ptr(e, y), "u", "q", xp, len, "first[ord[q]]");
    emit_indent(e, -1);
    emit_line(e, "}");
    if (n->nout > 1 && n->out[1]) {
        emit_line(e, "for (int64_t q = 0; q < u; q++)");
        emit_line(e, "    %s[q] = first[ord[q]];", emit_ptr(e, n->out[1]));
    }
    if (n->nout > 2 && n->out[2]) {
        emit_line(e, "for (int64_t k = 0; k < %s; k++)", len);
        emit_line(e, "    %s[k] = pos[inv[k]];", emit_ptr(e, n->out[2]));
    }
    if (n->nout > 3 && n->out[3]) {
        const char *cp = emit_ptr(e, n->out[3]);
        emit_line(e, "for (int64_t q = 0; q < u; q++)");
        emit_line(e, "    %s[q] = 0;", cp);
        emit_line(e, "for (int64_t k = 0; k < %s; k++)", len);
        emit_line(e, "    %s[pos[inv[k]]]++;", cp);
    }
}

/* ---- NonMaxSuppression (opset 10+): selected_indices (int64) [count, 3] of [batch, class,
 * box] rows, count <= batches x classes x min(max_output_boxes_per_class, n) (the last only
 * when it is known at compile time).  templates/select_nms.c. */

/* The one element of a known integer tensor, when there is one. */
static bool known_int(Compiler *c, Value *v, int64_t *out) {
    Sym **k;
    return v && ir_known_len(v) == 1 && (k = ir_known_ints(c, v)) && sym_get_const(k[0], out);
}

void infer_nms(Compiler *c, Node *n) {
    infer_require_outputs(c, n, 1, 1);
    Value *boxes = infer_in(c, n, 0), *scores = infer_in(c, n, 1);
    if (boxes->dtype != DT_FLOAT && boxes->dtype != DT_DOUBLE)
        o2c_error(c, n, "boxes type %s: expected float or double", dtype_name(boxes->dtype));
    if (scores->dtype != boxes->dtype)
        o2c_error(c, n, "scores type %s differs from boxes type %s", dtype_name(scores->dtype),
                  dtype_name(boxes->dtype));
    if (boxes->rank != 3 || scores->rank != 3)
        o2c_error(c, n, "boxes and scores must have rank 3 (they have %d and %d)", boxes->rank,
                  scores->rank);
    ir_constrain(c, n, CK_EQ, boxes->shape[2], sym_const(c->sym, 4), "boxes must be [batches, n, 4]");
    ir_constrain(c, n, CK_EQ, scores->shape[0], boxes->shape[0], "scores and boxes must have as many batches");
    ir_constrain(c, n, CK_EQ, scores->shape[2], boxes->shape[1], "scores and boxes must have as many boxes");
    static const char *const what[3] = {"max_output_boxes_per_class", "iou_threshold", "score_threshold"};
    for (int k = 2; k < n->nin; k++) {
        Value *v = n->in[k];
        if (!v)
            continue;
        ir_constrain(c, n, CK_EQ, ir_numel(c, v), sym_const(c->sym, 1), "%s must have one element",
                     what[k - 2]);
        if (k == 2 ? v->dtype != DT_INT64 : v->dtype != DT_FLOAT)
            o2c_error(c, n, "%s has type %s: expected %s", what[k - 2], dtype_name(v->dtype),
                      k == 2 ? "int64" : "float");
    }
    int64_t center = attr_int(c, n, "center_point_box", 0);
    if (center != 0 && center != 1)
        o2c_error(c, n, "center_point_box = %lld: expected 0 or 1", (long long)center);
    n->op_i[0] = center;
    Sym *per = boxes->shape[1];
    int64_t kmax;
    if (n->nin < 3 || !n->in[2])
        per = sym_const(c->sym, 0); /* absent: no box is selected */
    else if (known_int(c, n->in[2], &kmax))
        per = sym_min(c->sym, per, sym_const(c->sym, kmax < 0 ? 0 : kmax));
    Sym *bound = sym_mul(c->sym, sym_mul(c->sym, boxes->shape[0], scores->shape[1]), per);
    Sym *shape[2] = {ir_data_dim(c, n, 0, 0, bound), sym_const(c->sym, 3)};
    ir_set_shape(c, n->out[0], DT_INT64, 2, shape);
    n->scratch = sym_mul(c->sym, boxes->shape[1], sym_const(c->sym, 3 * 8));
}

void emit_nms(Compiler *c, Emit *e, Node *n) {
    (void)c;
    Value *boxes = n->in[0], *scores = n->in[1], *y = n->out[0];
    const char *sfx = emit_template(e, "select_nms", boxes->dtype);
    Value *kv = n->nin > 2 ? n->in[2] : NULL, *iv = n->nin > 3 ? n->in[3] : NULL;
    Value *sv = n->nin > 4 ? n->in[4] : NULL;
    emit_line(e, "const int64_t cnt = nms_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s, "
                 "(int64_t *)(ws + %s));",
              sfx, emit_ptr(e, boxes), emit_ptr(e, scores), emit_sym(e, boxes->shape[0]),
              emit_sym(e, scores->shape[1]), emit_sym(e, boxes->shape[1]),
              kv ? arena_printf(emit_arena(e), "%s[0]", emit_ptr(e, kv)) : "0",
              iv ? arena_printf(emit_arena(e), "(%s)%s[0]", dtype_ctype(boxes->dtype), emit_ptr(e, iv)) : "0",
              sv ? arena_printf(emit_arena(e), "(%s)%s[0]", dtype_ctype(boxes->dtype), emit_ptr(e, sv)) : "0",
              sv ? "1" : "0",
              (int)n->op_i[0], emit_ptr(e, y), emit_sym(e, c->g->dims[y->shape[0]->dim].bound),
              emit_sym(e, n->scratch_offset));
    emit_set_data_dim(e, y->shape[0], "cnt");
}
