/* infer.c — types, shapes and known values, node by node in topological order.
 *
 * Each op's rule (compiler/ops/) sets its outputs' dtype and symbolic shape and, when its
 * inputs' contents are known at compile time, the outputs' contents too (Value.kv / .data):
 * that is the constant folding of shape arithmetic.  A node whose outputs are all known is
 * dead: nothing is emitted for it, and its known outputs are materialised where a kernel
 * needs them as buffers. */
#include "onnx2c.h"
#include <string.h>

/* Records "divisor >= 1" for every symbolic divisor below e whose node `seen` (a bit per Sym
 * id) does not mark yet; iterative, each node visited once over all calls. */
static void require_divisors(Compiler *c, Sym *e, uint8_t *seen, int nseen, Sym ***stack,
                             int *cap) {
    int sp = 0;
    (*stack)[sp++] = e;
    while (sp) {
        Sym *x = (*stack)[--sp];
        if (x->n == 0 || x->id >= nseen || (seen[x->id >> 3] >> (x->id & 7) & 1))
            continue;
        seen[x->id >> 3] |= (uint8_t)(1u << (x->id & 7));
        if ((x->kind == SYM_FLOORDIV || x->kind == SYM_CEILDIV || x->kind == SYM_MOD) &&
            !sym_is_const(x->args[1]))
            ir_constrain(c, NULL, CK_LE, sym_const(c->sym, 1), x->args[1],
                         "a divisor in a shape must be positive");
        *stack = arena_reserve(c->arena, *stack, sp, sp + x->n, cap, 64, sizeof(Sym *));
        for (int i = x->n - 1; i >= 0; i--)
            (*stack)[sp++] = x->args[i];
    }
}

static bool value_known(const Value *v) {
    return v->data || (v->kv && ir_known_len(v) >= 0);
}

/* Rewrites a value's shape and known contents with the dims unified so far (see ir.c). */
static void apply_unified(Compiler *c, Value *v) {
    for (int d = 0; d < v->rank; d++)
        v->shape[d] = ir_unified(c, v->shape[d]);
    int64_t n = v->kv ? ir_known_len(v) : 0;
    for (int64_t i = 0; i < n; i++)
        v->kv[i] = ir_unified(c, v->kv[i]);
}

void infer_graph(Compiler *c) {
    Graph *g = c->g;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        o2c_progress(c, "inferring", i, g->nnodes);
        const OpDef *op = n->op ? n->op : ops_find(n->domain, n->op_type); /* markers have theirs */
        if (!op) {
            if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0 && !ops_find("", n->op_type))
                o2c_error(c, n, "operator domain '%s' is not supported", n->domain);
            o2c_error(c, n, "operator '%s%s%s' is not supported", n->domain, n->domain[0] ? "." : "",
                      n->op_type);
        }
        n->op = op;
        if (!op->domain[0] && n->opset < op->since)
            o2c_error(c, n, "operator '%s' does not exist before opset %d; the model imports "
                            "opset %d", n->op_type, op->since, n->opset);
        /* every op's first output is required, but for the RNNs' (Y) */
        bool rnn = strcmp(op->family, "rnn") == 0;
        if ((n->nout == 0 && !n->nsub && !n->ctl) || (n->nout && !n->out[0] && !rnn))
            o2c_error(c, n, "output 0 is missing (it is required)");
        for (int k = 0; k < n->nin; k++) {
            Value *v = n->in[k];
            if (v && g->any_unified && v->kind != VAL_INPUT)
                apply_unified(c, v);
            if (v && v->rank < 0 && !v->seq) /* (an empty sequence's elements are unknown) */
                o2c_error(c, n, "input '%s' has an unknown shape", v->name);
            if (v && (v->dtype == DT_STRING || dtype_size(v->dtype) == 0))
                o2c_error(c, n, "input '%s' has type %s, which is not supported", v->name,
                          dtype_name(v->dtype));
        }
        bool identity = !op->domain[0] && !strcmp(op->name, "Identity");
        for (int k = 0; k < n->nin; k++) /* sequences: their ops, control flow, Identity */
            if (n->in[k] && (n->in[k]->seq || n->in[k]->opt) && strcmp(op->family, "sequence") &&
                strcmp(op->family, "control") && !identity)
                o2c_error(c, n, "input '%s' is %s: %s takes tensors", n->in[k]->name,
                          n->in[k]->seq ? "a sequence" : "an optional", n->op_type);
        infer_require_inputs(c, n, op->in_min, op->in_max);
        c->cur = n;
        op->infer(c, n);
        ir_data_declared(c, n); /* a pending data dim the model declares gets its bound */
        c->cur = NULL;
        bool all_known = n->nout > 0;
        for (int k = 0; k < n->nout; k++) {
            Value *v = n->out[k];
            if (!v)
                continue;
            if (v->opt && v->is_output)
                o2c_error(c, n, "graph output '%s' is an optional: only tensors cross the "
                          "generated API (CONTRACT.md); an OptionalGetElement before the output "
                          "gives one", v->name);
            if (v->seq && v->is_output)
                o2c_error(c, n, "graph output '%s' is a sequence: only tensors cross the generated "
                          "API (CONTRACT.md); a ConcatFromSequence before the output gives one",
                          v->name);
            if ((v->rank < 0 && !v->seq) || v->dtype == DT_UNDEFINED) {
                /* an optional output the rule chose not to produce */
                if (k > 0 && v->nuses == 0 && !v->is_output)
                    continue;
                o2c_error(c, n, "internal error: no shape inferred for output '%s'", v->name);
            }
            if (!value_known(v))
                all_known = false;
            /* every dim of every tensor is a size: NAME_check refuses dims that make one negative */
            for (int d = 0; d < v->rank; d++)
                if (!sym_nonneg(v->shape[d]))
                    ir_constrain(c, n, CK_LE, sym_const(c->sym, 0), v->shape[d],
                                 "output '%s' dimension %d must not be negative", v->name, d);
        }
        if (all_known && !n->ctl && !n->nsub) /* (control flow's nodes open and close blocks) */
            n->dead = true;
        else if (!op->emit)
            o2c_error(c, n, "operator '%s' is only supported when its result is known at compile "
                            "time", n->op_type);
    }
    ir_data_unbounded(c);
    o2c_progress(c, "inferring", g->nnodes, g->nnodes);
    if (g->any_unified)
        for (int i = 0; i < g->nvalues; i++)
            if (g->values[i]->kind != VAL_INPUT && g->values[i]->rank >= 0)
                apply_unified(c, g->values[i]);
    /* a symbolic divisor in a shape must not be 0 at run time (generated code divides by it) */
    int nseen = sym_count(c->sym), cap = 64;
    uint8_t *seen = arena_alloc(c->arena, (size_t)nseen / 8 + 1);
    Sym **stack = arena_alloc(c->arena, sizeof(Sym *) * (size_t)cap);
    for (int i = 0; i < g->nvalues; i++) {
        Value *v = g->values[i];
        for (int d = 0; d < v->rank; d++)
            require_divisors(c, v->shape[d], seen, nseen, &stack, &cap);
    }
}

void infer_sym_error(void *user, const char *msg) {
    Compiler *c = user;
    o2c_error(c, c->cur, "%s", msg);
}

void infer_require_outputs(Compiler *c, Node *n, int min, int max) {
    if (n->nout < min || n->nout > max)
        o2c_error(c, n, "%d outputs, expected %d to %d", n->nout, min, max);
    for (int i = 0; i < min; i++)
        if (!n->out[i])
            o2c_error(c, n, "output %d is required", i);
}

void infer_require_inputs(Compiler *c, Node *n, int min, int max) {
    int present = n->nin;
    while (present > 0 && !n->in[present - 1])
        present--;
    if (present < min)
        o2c_error(c, n, "expects at least %d inputs, got %d", min, present);
    if (max >= 0 && present > max)
        o2c_error(c, n, "expects at most %d inputs, got %d", max, present);
    for (int i = 0; i < min; i++)
        if (!n->in[i])
            o2c_error(c, n, "input %d is required", i);
}

Value *infer_in(Compiler *c, Node *n, int i) {
    Value *v = node_in(n, i);
    if (!v)
        o2c_error(c, n, "input %d is required", i);
    return v;
}

int infer_axis(Compiler *c, Node *n, int64_t axis, int rank) {
    if (axis < -(int64_t)rank || axis >= rank)
        o2c_error(c, n, "axis %lld is out of range for rank %d", (long long)axis, rank);
    return (int)(axis < 0 ? axis + rank : axis);
}

int infer_broadcast(Compiler *c, Node *n, int ra, Sym *const *a, int rb, Sym *const *b, Sym **out) {
    int r = ra > rb ? ra : rb;
    Sym *one = sym_const(c->sym, 1);
    for (int i = 0; i < r; i++) {
        Sym *da = i < r - ra ? one : a[i - (r - ra)];
        Sym *db = i < r - rb ? one : b[i - (r - rb)];
        if (da == db || db == one)
            out[i] = da;
        else if (da == one)
            out[i] = db;
        else {
            int64_t ca, cb, lo, ha, hb;
            bool ka = sym_get_const(da, &ca), kb = sym_get_const(db, &cb);
            if (ka && kb)
                o2c_error(c, n, "shapes cannot be broadcast: dimension %d is %lld vs %lld", i,
                          (long long)ca, (long long)cb);
            /* a dim that is 0 or 1 for every size (min(T, 1): x[:, :1] of a dynamic axis)
             * broadcasts against the other: when it is 0 the other must be 0 or 1 */
            sym_range(da, &lo, &ha);
            bool a01 = lo >= 0 && ha <= 1;
            sym_range(db, &lo, &hb);
            bool b01 = lo >= 0 && hb <= 1;
            if (a01 && b01) {
                out[i] = sym_mul(c->sym, da, db);
                continue;
            }
            if (a01 || b01) {
                ir_constrain(c, n, CK_BCAST, da, db, "broadcast dimension %d: 0 against more than 1", i);
                out[i] = a01 ? db : da;
                continue;
            }
            /* sizes that may differ: broadcast decided at run time, either may be 1 (the
             * operands' strides then too: emit_elementwise).  Against a constant k the size is
             * k; else max(a, b) * min(a, b, 1), which is 0 when either is 0 */
            ir_constrain(c, n, CK_BCAST, da, db, "broadcast dimension %d: sizes must be equal or 1", i);
            out[i] = ka   ? da
                     : kb ? db
                          : sym_mul(c->sym, sym_max(c->sym, da, db),
                                    sym_min(c->sym, sym_min(c->sym, da, db), one));
        }
    }
    return r;
}

bool infer_declared_shape(Compiler *c, Node *n, Value *out, DType t) {
    if (!out || !out->has_decl || out->decl_rank < 0) /* declared without a shape */
        return false;
    for (int d = 0; d < out->decl_rank; d++)
        if (!out->decl_shape[d])
            return false;
    if (out->decl_dtype != DT_UNDEFINED && out->decl_dtype != t)
        o2c_error(c, n, "output '%s' is declared as %s but is %s", out->name,
                  dtype_name(out->decl_dtype), dtype_name(t));
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(out->decl_rank + 1));
    for (int d = 0; d < out->decl_rank; d++)
        shape[d] = ir_unified(c, out->decl_shape[d]);
    ir_set_shape(c, out, t, out->decl_rank, shape);
    return true;
}

void infer_declared_agree(Compiler *c, Node *n, Value *out, int d, Sym *want) {
    int64_t a, b;
    if (out->shape[d] == want)
        return;
    if (sym_get_const(out->shape[d], &a) && sym_get_const(want, &b))
        o2c_error(c, n, "output '%s' is declared with dimension %d = %lld, but it is %lld",
                  out->name, d, (long long)a, (long long)b);
    ir_constrain(c, n, CK_EQ, out->shape[d], want, "declared dimension %d of '%s' must match", d,
                 out->name);
}

int64_t infer_len(Compiler *c, const Value *v) {
    if (v->rank < 0)
        return -1;
    int64_t n = 1;
    for (int d = 0; d < v->rank; d++) {
        int64_t k;
        if (!sym_get_const(ir_unified(c, v->shape[d]), &k))
            return -1;
        n *= k;
    }
    return n;
}

int64_t infer_implied_len(Compiler *c, Node *n, Value *v, int64_t want, const char *what) {
    int64_t len = infer_len(c, v);
    if (len >= 0 || want < 0)
        return len;
    ir_constrain(c, n, CK_EQ, ir_numel(c, v), sym_const(c->sym, want),
                 "%s '%s' must have %lld elements (the declared shape of the output implies it)",
                 what, v->name, (long long)want);
    return want;
}

/* ---- attribute-like inputs */

void infer_not_known(Compiler *c, Node *n, const Value *v, const char *what, bool declarable) {
    o2c_error(c, n, "%s '%s' is not known at compile time (it depends on runtime tensor data): "
                    "data-dependent shapes are not supported%s", what, v->name,
              declarable ? " unless the model declares the output's shape (graph output or "
                           "value_info)"
                         : "");
}

Sym **infer_ints(Compiler *c, Node *n, Value *v, const char *what, int64_t *len) {
    *len = -1;
    if (!dtype_is_int(v->dtype))
        o2c_error(c, n, "%s '%s' must be an integer tensor, got %s", what, v->name,
                  dtype_name(v->dtype));
    if (v->rank > 1)
        o2c_error(c, n, "%s '%s' must be a 1-D tensor, got rank %d", what, v->name, v->rank);
    Sym **k = ir_known_ints(c, v);
    int64_t l = ir_known_len(v);
    if (!k || l < 0)
        return NULL;
    *len = l;
    return k;
}

Sym **infer_need_ints(Compiler *c, Node *n, Value *v, const char *what, int64_t *len,
                      bool declarable) {
    Sym **k = infer_ints(c, n, v, what, len);
    if (!k)
        infer_not_known(c, n, v, what, declarable);
    return k;
}

int64_t *infer_need_const_ints(Compiler *c, Node *n, Value *v, const char *what, int64_t *len,
                               bool declarable) {
    Sym **k = infer_need_ints(c, n, v, what, len, declarable);
    int64_t *out = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(*len + 1));
    for (int64_t i = 0; i < *len; i++)
        if (!sym_get_const(k[i], &out[i]))
            o2c_error(c, n, "%s '%s' must be constant: element %lld is symbolic", what, v->name,
                      (long long)i);
    return out;
}

bool infer_runtime_ints(Compiler *c, Value *v) {
    return v && dtype_is_int(v->dtype) && !(ir_known_ints(c, v) && ir_known_len(v) >= 0);
}

int64_t infer_declared_ints(Compiler *c, Node *n, Value *v, const char *what, Value *out,
                            DType t, int64_t (*want)(const Node *n, const Value *out)) {
    if (!infer_declared_shape(c, n, out, t))
        infer_not_known(c, n, v, what, true);
    int64_t len = infer_implied_len(c, n, v, want(n, out), what);
    if (len < 0)
        infer_not_known(c, n, v, what, true);
    return len;
}

bool infer_declared_or_data(Compiler *c, Node *n, int k, DType t, int rank, Sym *const *bounds) {
    Value *out = n->out[k];
    if (infer_declared_shape(c, n, out, t)) {
        if (out->rank != rank)
            o2c_error(c, n, "output '%s' is declared with rank %d, expected %d", out->name,
                      out->rank, rank);
        return true;
    }
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(rank + 1));
    for (int d = 0; d < rank; d++)
        shape[d] = ir_data_dim(c, n, k, d, bounds[d]);
    ir_set_shape(c, out, t, rank, shape);
    return false;
}

void infer_declared_out(Compiler *c, Node *n, const Value *v, const char *what, Value *out,
                        DType t, int rank) {
    if (!infer_declared_shape(c, n, out, t))
        infer_not_known(c, n, v, what, true);
    if (out->rank != rank)
        o2c_error(c, n, "output '%s' is declared with rank %d, expected %d", out->name, out->rank,
                  rank);
}
