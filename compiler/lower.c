/* lower.c — graph rewrites for the GEMM engine's epilogue and the memory plan, after
 * inference, before planning.
 *
 * 1. A zero Pad (constant mode, value 0, constant non-negative pads on the spatial axes) whose
 *    only consumer is a Conv with explicit pads: added to the Conv's pads, so the padded copy
 *    is never made; the Pad is marked dead.
 * 2. BatchNormalization (inference form, constant parameters) right after a Conv with a
 *    constant weight (and constant or no bias), as its only consumer: folded into the Conv's
 *    weight and bias (W'[m] = W[m] * s[m], B'[m] = B[m] * s[m] + beta[m] - mean[m] * s[m],
 *    s = gamma / sqrt(var + eps), in double).  Likewise after a Gemm with a constant B (a
 *    Linear layer and BatchNorm1d): the columns of B' scaled, C the folded bias with beta 1.
 *    The node's rule runs again on the new weight so that it packs the folded one.
 * 3. A residual Add, then an activation (Relu, Clip with constant bounds, LeakyRelu,
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

/* Sets attribute `name` of n (replacing one of that name): INT i, FLOAT f, or INTS ints[0..cnt). */
static void put_attr(Compiler *c, Node *n, const char *name, AttrType t, int64_t i, float f,
                     int cnt, const int64_t *ints) {
    Attr *a = arena_alloc(c->arena, sizeof(Attr) * (size_t)(n->nattr + 1));
    int k = 0;
    for (int j = 0; j < n->nattr; j++)
        if (strcmp(n->attrs[j].name, name))
            a[k++] = n->attrs[j];
    a[k] = (Attr){.name = arena_strdup(c->arena, name), .type = t, .i = i, .f = f, .n = cnt};
    if (ints) {
        a[k].ints = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(cnt + 1));
        memcpy(a[k].ints, ints, sizeof(int64_t) * (size_t)cnt);
    }
    n->attrs = a;
    n->nattr = k + 1;
}

static void set_attr(Compiler *c, Node *n, const char *name, AttrType t, int64_t i, float f) {
    put_attr(c, n, name, t, i, f, 0, NULL);
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

/* Node p's rule again, after its inputs or attributes changed (its constraints are already
 * recorded); its output keeps its shape. */
static void reinfer(Compiler *c, Node *p) {
    Graph *g = c->g;
    int nc = g->nconstraints;
    p->op->infer(c, p);
    g->nconstraints = nc;
}

/* The BatchNormalization q (inference form, constant parameters of m channels along axis 1)
 * as y' = y * sc[o] + sh[o]: returns false when it is not one. */
static bool bn_affine(Compiler *c, Node *q, const Value *y, int64_t m, double *sc, double *sh) {
    if (!is_op(q, "BatchNormalization") || q->in[0] != y || q->nin < 5 ||
        attr_int(c, q, "training_mode", 0) != 0)
        return false;
    for (int k = 1; k < q->nout; k++)
        if (q->out[k] && (q->out[k]->nuses > 0 || q->out[k]->is_output))
            return false;
    Value *g = q->in[1], *bb = q->in[2], *mean = q->in[3], *var = q->in[4];
    const Value *ps[4] = {g, bb, mean, var};
    for (int k = 0; k < 4; k++) {
        int64_t cnt;
        if (!ps[k] || !ps[k]->data || ps[k]->dtype != y->dtype || !ir_numel_const(ps[k], &cnt) ||
            cnt != m)
            return false;
    }
    double eps = attr_float(c, q, "epsilon", 1e-5f);
    for (int64_t o = 0; o < m; o++) {
        sc[o] = elem(g, o) / sqrt(elem(var, o) + eps);
        sh[o] = elem(bb, o) - elem(mean, o) * sc[o];
    }
    return true;
}

/* The BatchNormalization that is the only consumer of y, with its scale and shift per channel
 * (m of them), or NULL. */
static Node *bn_after(Compiler *c, Value *y, int64_t m, double **sc, double **sh) {
    Node *q = sole_consumer(c->g, y);
    *sc = arena_alloc(c->arena, sizeof(double) * (size_t)(m + 1));
    *sh = arena_alloc(c->arena, sizeof(double) * (size_t)(m + 1));
    return q && bn_affine(c, q, y, m, *sc, *sh) ? q : NULL;
}

static void fold_bn(Compiler *c, Node *p) {
    Value *w = p->in[1], *b = node_in(p, 2), *y = p->out[0];
    int64_t m, wn, wdims[8];
    if (!w->data || (b && !b->data) || (y->dtype != DT_FLOAT && y->dtype != DT_DOUBLE) ||
        !sym_get_const(w->shape[0], &m) || !ir_numel_const(w, &wn) || w->rank > 8 || m <= 0)
        return;
    if (b && (!ir_numel_const(b, &wdims[0]) || wdims[0] != m))
        return;
    double *sc, *sh;
    Node *q = bn_after(c, y, m, &sc, &sh);
    if (!q)
        return;
    for (int i = 0; i < w->rank; i++)
        sym_get_const(w->shape[i], &wdims[i]);
    Value *w2 = new_const(c, w, "bnw", w->rank, wdims);
    Value *b2 = new_const(c, w, "bnb", 1, &m);
    int64_t per = wn / m;
    for (int64_t o = 0; o < m; o++) {
        for (int64_t i = 0; i < per; i++)
            put(w2, o * per + i, elem(w, o * per + i) * sc[o]);
        put(b2, o, (b ? elem(b, o) : 0.0) * sc[o] + sh[o]);
    }
    set_input(c, p, 1, w2);
    set_input(c, p, 2, b2);
    take_output(p, q);
    reinfer(c, p); /* for the new weight */
}

/* Gemm then BatchNormalization over its N outputs (a Linear layer and BatchNorm1d): y' =
 * s * (alpha A B' + beta C - mean) + b = alpha A (B' diag(s)) + (s (beta C - mean) + b), so the
 * columns of B' are scaled and C becomes that vector with beta 1. */
static void fold_bn_gemm(Compiler *c, Node *p) {
    Value *b = p->in[1], *cc = node_in(p, 2), *y = p->out[0];
    int64_t k, m, cn = 0;
    if (!b->data || b->rank != 2 || (cc && !cc->data) || y->rank != 2 ||
        (y->dtype != DT_FLOAT && y->dtype != DT_DOUBLE) || !sym_get_const(y->shape[1], &m) ||
        (cc && !ir_numel_const(cc, &cn)))
        return;
    /* C broadcast along N: one value, or N of them along the last dim */
    if (cc && cn != 1 && !(cn == m && cc->rank >= 1 && sym_get_const(cc->shape[cc->rank - 1], &cn) && cn == m))
        return;
    double *sc, *sh;
    Node *q = bn_after(c, y, m, &sc, &sh);
    if (!q)
        return;
    bool tb = attr_int(c, p, "transB", 0) != 0;
    int64_t dims[2];
    sym_get_const(b->shape[0], &dims[0]);
    sym_get_const(b->shape[1], &dims[1]);
    k = tb ? dims[1] : dims[0];
    if ((tb ? dims[0] : dims[1]) != m)
        return;
    double beta = attr_float(c, p, "beta", 1.0f);
    Value *b2 = new_const(c, b, "bnw", 2, dims);
    Value *c2 = new_const(c, b, "bnb", 1, &m);
    for (int64_t o = 0; o < m; o++) {
        for (int64_t i = 0; i < k; i++) {
            int64_t at = tb ? o * k + i : i * m + o;
            put(b2, at, elem(b, at) * sc[o]);
        }
        double cv = cc ? beta * elem(cc, cn == 1 ? 0 : o) : 0.0;
        put(c2, o, cv * sc[o] + sh[o]);
    }
    set_input(c, p, 1, b2);
    set_input(c, p, 2, c2);
    set_attr(c, p, "beta", ATTR_FLOAT, 0, 1.0f);
    take_output(p, q);
    reinfer(c, p);
}

/* Pad (constant mode, value 0, constant non-negative pads on the spatial axes only) whose only
 * consumer is a Conv with explicit pads: the Conv reads the Pad's input with the pads added to
 * its own, so the padded copy is never made (a Conv pads with zeros). */
static void fold_pad(Compiler *c, Node *pad) {
    Value *x = pad->in[0], *py = pad->out[0];
    if (pad->nout != 1 || !x || x->rank < 3 || x->rank > 8 || !py ||
        strcmp(attr_str(c, pad, "mode", "constant"), "constant"))
        return;
    int r = x->rank;
    int64_t pads[16];
    if (pad->opset >= 11) {
        Value *pv = node_in(pad, 1), *cv = node_in(pad, 2);
        if (!pv || node_in(pad, 3) || ir_known_len(pv) != 2 * r)
            return;
        Sym **kp = ir_known_ints(c, pv);
        for (int i = 0; kp && i < 2 * r; i++)
            if (!sym_get_const(kp[i], &pads[i]))
                kp = NULL;
        if (!kp)
            return;
        if (cv) { /* the value must be a known zero (of any type: all bytes 0, or +0.0) */
            int64_t cnt;
            if (!cv->data || !ir_numel_const(cv, &cnt) || cnt != 1)
                return;
            for (size_t i = 0; i < dtype_size(cv->dtype); i++)
                if (((const unsigned char *)cv->data)[i])
                    return;
        }
    } else {
        const int64_t *a;
        if (attr_ints(c, pad, pad->opset < 2 ? "paddings" : "pads", &a) != 2 * r ||
            attr_float(c, pad, "value", 0.0f) != 0.0f)
            return;
        memcpy(pads, a, sizeof(int64_t) * (size_t)(2 * r));
    }
    for (int i = 0; i < 2 * r; i++)
        if (pads[i] < 0 || ((i % r) < 2 && pads[i] != 0) || pads[i] > ATTR_SIZE_MAX / 2)
            return;
    Node *q = sole_consumer(c->g, py);
    if (!q || !is_op(q, "Conv") || q->in[0] != py || node_in(q, 1) == py ||
        strcmp(attr_str(c, q, "auto_pad", "NOTSET"), "NOTSET"))
        return;
    int sp = r - 2;
    const int64_t *cp;
    int ncp = attr_ints(c, q, "pads", &cp);
    if (ncp >= 0 && ncp != 2 * sp)
        return;
    int64_t np[16];
    for (int i = 0; i < sp; i++)
        for (int side = 0; side < 2; side++) {
            int64_t old = ncp >= 0 ? cp[side * sp + i] : 0;
            if (old < 0 || old > ATTR_SIZE_MAX / 2)
                return;
            np[side * sp + i] = old + pads[side * r + 2 + i];
        }
    put_attr(c, q, "pads", ATTR_INTS, 0, 0, 2 * sp, np);
    set_input(c, q, 0, x);
    pad->dead = true;
    reinfer(c, q);
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
            if (!ir_same_shape(q->out[0], y))
                return;
            /* r must exist before p runs */
            if (r->producer && !r->producer->dead && r->producer->index >= p->index)
                return;
            if (ir_same_shape(r, y) && !node_in(p, 3)) {
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
        if (act == ACT_NONE || q->in[0] != y || !ir_same_shape(q->out[0], y))
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
        if (!n->dead && is_op(n, "Pad") && n->nin >= 1)
            fold_pad(c, n);
    }
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (!n->dead && is_op(n, "Conv") && n->nout == 1 && n->out[0])
            fold_bn(c, n);
        if (!n->dead && is_op(n, "Gemm") && n->nout == 1 && n->out[0] && n->nin >= 2)
            fold_bn_gemm(c, n);
    }
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (!n->dead && n->nout == 1 && n->out[0] &&
            (is_op(n, "Conv") || is_op(n, "MatMul") || is_op(n, "Gemm")))
            fuse_epilogue(c, n);
    }
}
