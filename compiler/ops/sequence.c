/* ops/sequence.c — sequences of tensors inside a graph: SequenceEmpty, SequenceConstruct,
 * SequenceInsert, SequenceErase, SequenceAt, SequenceLength, ConcatFromSequence,
 * SplitToSequence; and optionals: Optional, OptionalHasElement, OptionalGetElement.
 *
 * A sequence is stored as one tensor [L, E...]: L tensors of one shape E, one after the other
 * (Value.seq, Value.seq_len L).  Its elements must share their shape (constraints checked where
 * the sequence is made); E is unknown only for SequenceEmpty until an insert gives it.  A Loop
 * may carry a sequence that grows: its length is then a data dim of the loop (ops/control.c).
 * Sequences do not cross the generated API: a graph input or output of sequence type is
 * refused (CONTRACT.md defines dense tensors only).
 *
 * An optional is its value (or a placeholder when empty) with Value.opt; whether it holds one
 * must be known at compile time (Optional of an input, or of none), so OptionalHasElement
 * folds and OptionalGetElement is a copy, or an error on an empty optional.  Optionals do not
 * cross the API either. */
#include "onnx2c.h"
#include <string.h>

static void set_seq(Compiler *c, Value *v, DType t, Sym *len, int erank, Sym *const *e) {
    Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(erank + 2));
    sh[0] = len;
    for (int i = 0; i < erank; i++)
        sh[i + 1] = e[i];
    ir_set_shape(c, v, t, erank + 1, sh);
    v->seq = true;
    v->seq_len = len;
}

/* Input i, which must be a sequence; with known elements when `need_elem`. */
static Value *seq_in(Compiler *c, Node *n, int i, bool need_elem) {
    Value *s = node_in(n, i);
    if (!s || !s->seq)
        o2c_error(c, n, "input %d must be a sequence", i);
    if (need_elem && s->rank < 1)
        o2c_error(c, n, "the sequence '%s' is empty where its elements' shape is needed (only "
                  "sequences of one known element shape are supported)", s->name);
    return s;
}

/* A tensor that joins sequence s (its elements' shape when known) must have that shape. */
static void same_elem(Compiler *c, Node *n, const Value *s, const Value *t) {
    if (s->rank < 1)
        return;
    if (t->dtype != s->dtype || t->rank != s->rank - 1)
        o2c_error(c, n, "'%s' (%s, rank %d) joins a sequence of %s tensors of rank %d: the "
                  "elements of a sequence must share their shape", t->name, dtype_name(t->dtype),
                  t->rank, dtype_name(s->dtype), s->rank - 1);
    for (int d = 0; d < t->rank; d++)
        ir_constrain(c, n, CK_EQ, t->shape[d], s->shape[d + 1],
                     "'%s' dimension %d must be that of the sequence's elements", t->name, d);
}

/* A position input, when given, must be one integer (the emitters read it at run time). */
static void check_position(Compiler *c, Node *n, const Value *p) {
    int64_t len;
    if (p && ((p->dtype != DT_INT32 && p->dtype != DT_INT64) || !ir_numel_const(p, &len) ||
              len != 1))
        o2c_error(c, n, "the position must be one int32 or int64 element");
}

void infer_seq_empty(Compiler *c, Node *n) {
    int64_t t = attr_int(c, n, "dtype", DT_FLOAT);
    if (t <= 0 || t > DT_BFLOAT16 || t == DT_STRING || dtype_size((DType)t) == 0)
        o2c_error(c, n, "dtype %lld is not supported", (long long)t);
    Value *y = n->out[0];
    y->dtype = (DType)t;
    y->rank = -1;
    y->seq = true;
    y->seq_len = sym_const(c->sym, 0);
}

void infer_seq_construct(Compiler *c, Node *n) {
    Value *t0 = infer_in(c, n, 0);
    set_seq(c, n->out[0], t0->dtype, sym_const(c->sym, n->nin), t0->rank, t0->shape);
    for (int i = 1; i < n->nin; i++)
        same_elem(c, n, n->out[0], infer_in(c, n, i));
}

void infer_seq_insert(Compiler *c, Node *n) {
    Value *s = seq_in(c, n, 0, false), *t = infer_in(c, n, 1);
    check_position(c, n, node_in(n, 2));
    if (s->dtype != DT_UNDEFINED && t->dtype != s->dtype)
        o2c_error(c, n, "'%s' is %s: the sequence holds %s", t->name, dtype_name(t->dtype),
                  dtype_name(s->dtype));
    same_elem(c, n, s, t);
    set_seq(c, n->out[0], t->dtype, sym_add(c->sym, s->seq_len, sym_const(c->sym, 1)), t->rank,
            t->shape);
}

void infer_seq_erase(Compiler *c, Node *n) {
    Value *s = seq_in(c, n, 0, true);
    check_position(c, n, node_in(n, 1));
    ir_constrain(c, n, CK_LE, sym_const(c->sym, 1), s->seq_len,
                 "SequenceErase needs a sequence of at least one element");
    set_seq(c, n->out[0], s->dtype, sym_sub(c->sym, s->seq_len, sym_const(c->sym, 1)),
            s->rank - 1, s->shape + 1);
}

void infer_seq_at(Compiler *c, Node *n) {
    Value *s = seq_in(c, n, 0, true);
    check_position(c, n, infer_in(c, n, 1));
    ir_set_shape(c, n->out[0], s->dtype, s->rank - 1, s->shape + 1);
}

void infer_seq_length(Compiler *c, Node *n) {
    Value *s = seq_in(c, n, 0, false);
    ir_set_shape(c, n->out[0], DT_INT64, 0, NULL);
    if (!ir_has_data_dim(c, s->seq_len)) { /* known: folded */
        n->out[0]->kv = arena_alloc(c->arena, sizeof(Sym *));
        n->out[0]->kv[0] = s->seq_len;
    }
}

/* ConcatFromSequence: the elements joined along `axis` (new_axis 0) or stacked on a new axis
 * there (new_axis 1).  Either way the output is, per index of the axes before it, the elements'
 * blocks of the axes from it on, one after the other (op_i[0]: the axis). */
void infer_concat_from_seq(Compiler *c, Node *n) {
    Value *s = seq_in(c, n, 0, true);
    int64_t na = attr_int(c, n, "new_axis", 0);
    if (na != 0 && na != 1)
        o2c_error(c, n, "new_axis must be 0 or 1");
    int er = s->rank - 1;
    int64_t ax = attr_int(c, n, "axis", 0);
    if (!na && er == 0)
        o2c_error(c, n, "the elements are scalars: there is no axis to join them on");
    int a = infer_axis(c, n, ax, er + (int)na);
    n->op_i[0] = a;
    Sym *const *E = s->shape + 1;
    int r = er + (int)na;
    Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
    for (int d = 0; d < r; d++)
        sh[d] = na ? (d < a ? E[d] : d == a ? s->seq_len : E[d - 1])
                   : (d == a ? sym_mul(c->sym, s->seq_len, E[d]) : E[d]);
    ir_set_shape(c, n->out[0], s->dtype, r, sh);
}

/* SplitToSequence with one part per index of the axis (no split input) or parts of one size
 * (a scalar split dividing the axis): the sequence is x with the axis moved to the front. */
void infer_split_to_seq(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0), *sp = node_in(n, 1);
    if (x->rank < 1)
        o2c_error(c, n, "the input is a scalar");
    int a = infer_axis(c, n, attr_int(c, n, "axis", 0), x->rank);
    int64_t keep = attr_int(c, n, "keepdims", 1);
    Sym *part = sym_const(c->sym, 1), *count = x->shape[a];
    if (sp) {
        int64_t len = -1;
        Sym **k = infer_need_ints(c, n, sp, "split", &len, false);
        if (sp->rank != 0 && len != 1)
            o2c_error(c, n, "split lists parts of several sizes: only one size is supported (the "
                      "elements of a sequence share their shape)");
        part = k[0];
        ir_constrain(c, n, CK_DIVIDES, part, x->shape[a],
                     "split must divide the axis (parts of one size)");
        count = sym_floordiv(c->sym, x->shape[a], part);
        keep = 1;
    }
    n->op_i[0] = a;
    Sym **e = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(x->rank + 1));
    int r = 0;
    for (int d = 0; d < x->rank; d++)
        if (d != a)
            e[r++] = x->shape[d];
        else if (keep)
            e[r++] = part;
    set_seq(c, n->out[0], x->dtype, count, r, e);
}

/* ---- emit */

void emit_seq_empty(Compiler *c, Emit *e, Node *n) {
    (void)c;
    (void)n;
    emit_line(e, "/* an empty sequence: nothing to store */");
}

void emit_seq_construct(Compiler *c, Emit *e, Node *n) {
    Value *y = n->out[0];
    for (int i = 0; i < n->nin; i++) {
        const char *cnt = emit_sym(e, ir_numel(c, n->in[i]));
        emit_line(e, "memcpy(%s + %d * %s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, y), i, cnt,
                  emit_ptr(e, n->in[i]), cnt, dtype_ctype(y->dtype));
    }
}

/* `p` (C expression of a position read from v) normalized against count (+ extra: an insert
 * may go at the end) into local `pos`, O2C_RUN_EINDEX outside. */
static void emit_position(Emit *e, Value *v, const char *count, int extra) {
    emit_line(e, "int64_t pos = (int64_t)%s[0];", emit_ptr(e, v));
    emit_line(e, "if (pos < 0)");
    emit_line(e, "    pos += %s;", count);
    emit_line(e, "if (pos < 0 || pos >= %s + %d)", count, extra);
    emit_line(e, "    return %d; /* a position outside the sequence */", O2C_RUN_EINDEX);
}

void emit_seq_insert(Compiler *c, Emit *e, Node *n) {
    Value *s = n->in[0], *t = n->in[1], *y = n->out[0], *p = node_in(n, 2);
    const char *ct = dtype_ctype(y->dtype), *L = emit_sym(e, s->seq_len);
    const char *en = emit_sym(e, ir_numel(c, t));
    if (p) /* in [-L, L], a negative one counting from the back (-1: before the last) */
        emit_position(e, p, L, 1);
    else /* at the back */
        emit_line(e, "const int64_t pos = %s;", L);
    if (s->rank >= 1 && !plan_same_buffer(s, y)) {
        emit_line(e, "memmove(%s, %s, (size_t)(pos * %s) * sizeof(%s));", emit_ptr(e, y),
                  emit_ptr(e, s), en, ct);
        emit_line(e, "memmove(%s + (pos + 1) * %s, %s + pos * %s, (size_t)((%s - pos) * %s) * sizeof(%s));",
                  emit_ptr(e, y), en, emit_ptr(e, s), en, L, en, ct);
    }
    emit_line(e, "memcpy(%s + pos * %s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, y), en,
              emit_ptr(e, t), en, ct);
}

void emit_seq_erase(Compiler *c, Emit *e, Node *n) {
    Value *s = n->in[0], *y = n->out[0], *p = node_in(n, 1);
    const char *ct = dtype_ctype(y->dtype), *L = emit_sym(e, s->seq_len);
    Sym *el = sym_const(c->sym, 1);
    for (int d = 1; d < s->rank; d++)
        el = sym_mul(c->sym, el, s->shape[d]);
    const char *en = emit_sym(e, el);
    if (p)
        emit_position(e, p, L, 0);
    else
        emit_line(e, "const int64_t pos = %s - 1;", L);
    emit_line(e, "memmove(%s, %s, (size_t)(pos * %s) * sizeof(%s));", emit_ptr(e, y), emit_ptr(e, s),
              en, ct);
    emit_line(e, "memmove(%s + pos * %s, %s + (pos + 1) * %s, (size_t)((%s - 1 - pos) * %s) * sizeof(%s));",
              emit_ptr(e, y), en, emit_ptr(e, s), en, L, en, ct);
}

void emit_seq_at(Compiler *c, Emit *e, Node *n) {
    Value *s = n->in[0], *y = n->out[0];
    const char *en = emit_sym(e, ir_numel(c, y));
    emit_position(e, n->in[1], emit_sym(e, s->seq_len), 0);
    emit_line(e, "memcpy(%s, %s + pos * %s, (size_t)%s * sizeof(%s));", emit_ptr(e, y),
              emit_ptr(e, s), en, en, dtype_ctype(y->dtype));
}

void emit_seq_length(Compiler *c, Emit *e, Node *n) {
    (void)c;
    emit_line(e, "%s[0] = %s;", emit_ptr(e, n->out[0]), emit_sym(e, n->in[0]->seq_len));
}

void emit_concat_from_seq(Compiler *c, Emit *e, Node *n) {
    Value *s = n->in[0], *y = n->out[0];
    int a = (int)n->op_i[0];
    Sym *outer = sym_const(c->sym, 1), *block = sym_const(c->sym, 1);
    for (int d = 1; d < s->rank; d++)
        if (d - 1 < a)
            outer = sym_mul(c->sym, outer, s->shape[d]);
        else
            block = sym_mul(c->sym, block, s->shape[d]);
    const char *L = emit_sym(e, s->seq_len), *O = emit_sym(e, outer), *B = emit_sym(e, block);
    emit_line(e, "for (int64_t o = 0; o < %s; o++)", O);
    emit_line(e, "    for (int64_t l = 0; l < %s; l++)", L);
    emit_line(e, "        memcpy(%s + (o * %s + l) * %s, %s + (l * %s + o) * %s, (size_t)%s * sizeof(%s));",
              emit_ptr(e, y), L, B, emit_ptr(e, s), O, B, B, dtype_ctype(y->dtype));
}

void emit_split_to_seq(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *y = n->out[0];
    int a = (int)n->op_i[0];
    Sym *outer = sym_const(c->sym, 1), *inner = sym_const(c->sym, 1);
    for (int d = 0; d < x->rank; d++)
        if (d < a)
            outer = sym_mul(c->sym, outer, x->shape[d]);
        else if (d > a)
            inner = sym_mul(c->sym, inner, x->shape[d]);
    /* element l holds x[o, l * part + j, i] for j < part: a block of part x inner */
    Sym *part = sym_floordiv(c->sym, x->shape[a], y->seq_len);
    const char *L = emit_sym(e, y->seq_len), *O = emit_sym(e, outer);
    const char *B = emit_sym(e, sym_mul(c->sym, part, inner));
    emit_line(e, "for (int64_t l = 0; l < %s; l++)", L);
    emit_line(e, "    for (int64_t o = 0; o < %s; o++)", O);
    emit_line(e, "        memcpy(%s + (l * %s + o) * %s, %s + (o * %s + l) * %s, (size_t)%s * sizeof(%s));",
              emit_ptr(e, y), O, B, emit_ptr(e, x), L, B, B, dtype_ctype(y->dtype));
}

/* ---- optionals */

void infer_optional(Compiler *c, Node *n) {
    Value *x = node_in(n, 0), *y = n->out[0];
    if (x) {
        if (x->opt)
            o2c_error(c, n, "an optional of an optional is not supported");
        ir_same_kind(c, y, x);
        y->opt = true;
        return;
    }
    /* empty: a placeholder byte, known (nothing is emitted for it) */
    ir_set_shape(c, y, DT_UINT8, 0, NULL);
    y->data = arena_alloc(c->arena, 1);
    y->opt = y->opt_none = true;
}

void infer_optional_has(Compiler *c, Node *n) {
    Value *x = node_in(n, 0), *y = n->out[0];
    ir_set_shape(c, y, DT_BOOL, 0, NULL);
    y->data = arena_alloc(c->arena, 1);
    ((uint8_t *)y->data)[0] = !(x && x->opt_none); /* a tensor (not an optional) holds one */
}

void infer_optional_get(Compiler *c, Node *n) {
    Value *x = node_in(n, 0), *y = n->out[0];
    if (!x || x->opt_none)
        o2c_error(c, n, "the optional '%s' holds no value", x ? x->name : "");
    ir_same_kind(c, y, x);
    y->opt = false;
    if (x->data && x->rank >= 0) { /* a known value stays known */
        int64_t len = ir_known_len(x);
        size_t bytes = (size_t)(len > 0 ? len : 0) * dtype_size(x->dtype);
        y->data = arena_alloc(c->arena, bytes ? bytes : 1);
        memcpy(y->data, x->data, bytes);
    }
}

/* Optional of a value and OptionalGetElement: a copy (nothing when the plan shares bytes). */
void emit_optional(Compiler *c, Emit *e, Node *n) {
    Value *x = node_in(n, 0), *y = n->out[0];
    if (!x || x->rank < 0 || plan_same_buffer(x, y))
        return;
    emit_line(e, "memcpy(%s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, y), emit_ptr(e, x),
              emit_sym(e, ir_numel(c, x)), dtype_ctype(y->dtype));
}
