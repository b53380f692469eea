/* lower.c — graph rewrites for the GEMM engine's epilogue, after inference, before planning.
 *
 * 1. BatchNormalization (inference form, constant parameters) right after a Conv with a
 *    constant weight (and constant or no bias), as its only consumer: folded into the Conv's
 *    weight and bias (W'[m] = W[m] * s[m], B'[m] = (B[m] - mean[m]) * s[m] + beta[m],
 *    s = gamma / sqrt(var + eps), in double).  The Conv's rule runs again on the new weight so
 *    that it packs the folded one.
 * 2. A residual Add, then an activation (Relu, Clip with constant bounds, LeakyRelu,
 *    HardSigmoid, HardSwish), that is the only consumer of a Conv, MatMul or Gemm output: moved
 *    into that node's epilogue (residual as input 3, activation as the attributes
 *    o2c_act/o2c_p0/o2c_p1 read by compiler/ops/gemm_plan.h).  For MatMul an Add of a constant
 *    vector along the last dim becomes the epilogue's bias (input 4).  The fused node takes over
 *    the consumer's output value; the consumer is marked dead (plan and emit skip it).
 * Order in the epilogue: bias, residual, activation — an Add after an activation is not fused. */
#include "onnx2c.h"
#include <float.h>
#include <math.h>
#include <string.h>

enum { ACT_NONE, ACT_RELU, ACT_CLIP, ACT_LEAKY, ACT_HARDSIGMOID, ACT_HARDSWISH };

static bool is_op(const Node *n, const char *op) {
    return (!n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx")) && !strcmp(n->op_type, op);
}

/* The only live consumer of v, or NULL (several, none, or v is a graph output). */
static Node *sole_consumer(Graph *g, Value *v) {
    Node *found = NULL;
    if (v->is_output || v->kind != VAL_TEMP)
        return NULL;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->nin; k++)
            if (n->in[k] == v) {
                if (found && found != n)
                    return NULL;
                found = n;
            }
    }
    return found;
}

static void set_attr(Compiler *c, Node *n, const char *name, AttrType t, int64_t i, float f) {
    Attr *a = arena_alloc(c->arena, sizeof(Attr) * (size_t)(n->nattr + 1));
    if (n->nattr)
        memcpy(a, n->attrs, sizeof(Attr) * (size_t)n->nattr);
    a[n->nattr] = (Attr){.name = arena_strdup(c->arena, name), .type = t, .i = i, .f = f};
    n->attrs = a;
    n->nattr++;
}

static void set_input(Compiler *c, Node *n, int k, Value *v) {
    if (k >= n->nin) {
        Value **in = arena_alloc(c->arena, sizeof(Value *) * (size_t)(k + 1));
        memcpy(in, n->in, sizeof(Value *) * (size_t)n->nin);
        n->in = in;
        n->nin = k + 1;
    }
    n->in[k] = v;
}

/* q is dead; p now produces q's output. */
static void take_output(Node *p, Node *q) {
    p->out[0] = q->out[0];
    q->out[0]->producer = p;
    q->dead = true;
}

static bool same_shape(const Value *a, const Value *b) {
    if (a->rank != b->rank || a->dtype != b->dtype)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

/* A float scalar from a constant input (float or double); false when unknown. */
static bool const_scalar(const Value *v, double *out) {
    int64_t n;
    if (!v || !v->data || !ir_numel_const(v, &n) || n != 1)
        return false;
    if (v->dtype == DT_FLOAT)
        *out = *(const float *)v->data;
    else if (v->dtype == DT_DOUBLE)
        *out = *(const double *)v->data;
    else
        return false;
    return true;
}

static double elem(const Value *v, int64_t i) {
    return v->dtype == DT_DOUBLE ? ((const double *)v->data)[i] : ((const float *)v->data)[i];
}

static Value *new_const(Compiler *c, const Value *like, const char *what, int rank,
                        const int64_t *dims) {
    Value *v = ir_value(c, arena_printf(c->arena, "%s.%s%d", like->name, what, c->g->nvalues));
    v->kind = VAL_CONST;
    ir_set_shape_ints(c, v, like->dtype, rank, dims);
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    v->data = arena_alloc(c->arena, (size_t)n * dtype_size(like->dtype) + 1);
    return v;
}

static void put(Value *v, int64_t i, double x) {
    if (v->dtype == DT_DOUBLE)
        ((double *)v->data)[i] = x;
    else
        ((float *)v->data)[i] = (float)x;
}

static void fold_bn(Compiler *c, Node *p) {
    Graph *g = c->g;
    Value *w = p->in[1], *b = node_in(p, 2), *y = p->out[0];
    if (!w->data || (b && !b->data) || (y->dtype != DT_FLOAT && y->dtype != DT_DOUBLE))
        return;
    Node *q = sole_consumer(g, y);
    if (!q || !is_op(q, "BatchNormalization") || q->in[0] != y || q->nin < 5)
        return;
    for (int k = 1; k < q->nout; k++)
        if (q->out[k] && (q->out[k]->nuses > 0 || q->out[k]->is_output))
            return;
    if (attr_int(c, q, "training_mode", 0) != 0)
        return;
    Value *sc = q->in[1], *bb = q->in[2], *mean = q->in[3], *var = q->in[4];
    int64_t m;
    if (!sc || !bb || !mean || !var || !sc->data || !bb->data || !mean->data || !var->data ||
        !sym_get_const(w->shape[0], &m))
        return;
    int64_t cnt;
    if (!ir_numel_const(sc, &cnt) || cnt != m || !ir_numel_const(bb, &cnt) || cnt != m ||
        !ir_numel_const(mean, &cnt) || cnt != m || !ir_numel_const(var, &cnt) || cnt != m ||
        sc->dtype != y->dtype || bb->dtype != y->dtype || mean->dtype != y->dtype ||
        var->dtype != y->dtype)
        return;
    int64_t wn, wdims[8];
    if (!ir_numel_const(w, &wn) || w->rank > 8)
        return;
    for (int i = 0; i < w->rank; i++)
        sym_get_const(w->shape[i], &wdims[i]);
    double eps = attr_float(c, q, "epsilon", 1e-5f);
    Value *w2 = new_const(c, w, "bnw", w->rank, wdims);
    Value *b2 = new_const(c, w, "bnb", 1, &m);
    int64_t per = wn / m;
    for (int64_t o = 0; o < m; o++) {
        double s = elem(sc, o) / sqrt(elem(var, o) + eps);
        for (int64_t i = 0; i < per; i++)
            put(w2, o * per + i, elem(w, o * per + i) * s);
        put(b2, o, ((b ? elem(b, o) : 0.0) - elem(mean, o)) * s + elem(bb, o));
    }
    set_input(c, p, 1, w2);
    set_input(c, p, 2, b2);
    take_output(p, q);
    /* the rule again, for the new weight (its constraints are already recorded) */
    int nc = g->nconstraints;
    p->op->infer(c, p);
    g->nconstraints = nc;
}

/* The activation q applies, or ACT_NONE when it is not one the epilogue has (or its
 * parameters are not constants). */
static int activation(Compiler *c, Node *q, float *p0, float *p1) {
    if (is_op(q, "Relu"))
        return ACT_RELU;
    if (is_op(q, "LeakyRelu")) {
        *p0 = attr_float(c, q, "alpha", 0.01f);
        return ACT_LEAKY;
    }
    if (is_op(q, "HardSigmoid")) {
        *p0 = attr_float(c, q, "alpha", 0.2f);
        *p1 = attr_float(c, q, "beta", 0.5f);
        return ACT_HARDSIGMOID;
    }
    if (is_op(q, "HardSwish"))
        return ACT_HARDSWISH;
    if (is_op(q, "Clip")) {
        double lo = -INFINITY, hi = INFINITY;
        if (q->opset < 11) {
            lo = attr_float(c, q, "min", -FLT_MAX);
            hi = attr_float(c, q, "max", FLT_MAX);
        } else {
            Value *a = node_in(q, 1), *b = node_in(q, 2);
            if ((a && !const_scalar(a, &lo)) || (b && !const_scalar(b, &hi)))
                return ACT_NONE;
        }
        if (isnan(lo) || isnan(hi))
            return ACT_NONE;
        *p0 = (float)lo;
        *p1 = (float)hi;
        return ACT_CLIP;
    }
    return ACT_NONE;
}

static void fuse_epilogue(Compiler *c, Node *p) {
    Graph *g = c->g;
    bool is_mm = is_op(p, "MatMul");
    if (p->out[0]->dtype != DT_FLOAT && p->out[0]->dtype != DT_DOUBLE)
        return;
    for (;;) {
        Value *y = p->out[0];
        Node *q = sole_consumer(g, y);
        if (!q || q->nout != 1)
            return;
        if (attr_int(c, p, "o2c_act", 0) != ACT_NONE)
            return;
        if (is_op(q, "Add") && q->nin == 2 && q->in[0] && q->in[1] && q->in[0] != q->in[1]) {
            Value *r = q->in[0] == y ? q->in[1] : q->in[0];
            if (!same_shape(q->out[0], y))
                return;
            /* r must exist before p runs */
            if (r->producer && !r->producer->dead && r->producer->index >= p->index)
                return;
            if (same_shape(r, y) && !node_in(p, 3)) {
                set_input(c, p, 3, r);
            } else if (is_mm && r->data && r->rank == 1 && y->rank >= 1 &&
                       r->shape[0] == y->shape[y->rank - 1] && r->dtype == y->dtype &&
                       !node_in(p, 4) && !node_in(p, 3)) {
                set_input(c, p, 4, r);
            } else
                return;
            take_output(p, q);
            continue;
        }
        float p0 = 0, p1 = 0;
        int act = activation(c, q, &p0, &p1);
        if (act == ACT_NONE || q->in[0] != y || !same_shape(q->out[0], y))
            return;
        set_attr(c, p, "o2c_act", ATTR_INT, act, 0);
        set_attr(c, p, "o2c_p0", ATTR_FLOAT, 0, p0);
        set_attr(c, p, "o2c_p1", ATTR_FLOAT, 0, p1);
        take_output(p, q);
    }
}

void lower_graph(Compiler *c) {
    Graph *g = c->g;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (!n->dead && is_op(n, "Conv") && n->nout == 1 && n->out[0])
            fold_bn(c, n);
    }
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (!n->dead && n->nout == 1 && n->out[0] &&
            (is_op(n, "Conv") || is_op(n, "MatMul") || is_op(n, "Gemm")))
            fuse_epilogue(c, n);
    }
}
