/* lower.c — graph rewrites for the GEMM engine's epilogue and the memory plan, after
 * inference, before planning.
 *
 * 0. The QDQ pattern DequantizeLinear -> Conv / MatMul / Gemm -> [Relu | Clip] ->
 *    QuantizeLinear with constant weights and parameters: rewritten into QLinearConv /
 *    QLinearMatMul, the activation a clamp of the quantized output (details at qdq_conv); also
 *    a MatMul of two run-time 8-bit tensors, and a MatMul whose bias is a separate Add; and
 *    around the other ops into the com.microsoft integer ops or the op on the 8-bit tensor
 *    (0b).
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
 *    into that node's epilogue (residual as input 3, activation in Node.epi_act, epi_p0 and
 *    epi_p1, read by compiler/ops/gemm_plan.h).  For MatMul an Add of a constant
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
    q->merged_into = p;
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
    pad->merged_into = q;
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
    if (is_op(q, "HardSwish")) {
        *p0 = 1.0f / 6.0f;
        *p1 = 0.5f;
        return ACT_HARDSWISH;
    }
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

/* HardSwish as exporters write it before opset 14: y = p's output, h = HardSigmoid(y),
 * Mul(y, h) (either order), y read by those two nodes only and h by the Mul only.  Fuses both
 * into p's epilogue (x * clip(alpha x + beta, 0, 1), h's alpha and beta) and returns true. */
static bool fuse_hardswish(Compiler *c, Node *p) {
    Graph *g = c->g;
    Value *y = p->out[0];
    if (y->is_output || y->kind != VAL_TEMP)
        return false;
    Node *h = NULL, *m = NULL;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        bool reads = false;
        for (int k = 0; !n->dead && k < n->nin; k++)
            reads |= n->in[k] == y;
        if (!reads)
            continue;
        if (is_op(n, "HardSigmoid") && !h && n->nin == 1 && n->nout == 1)
            h = n;
        else if (is_op(n, "Mul") && !m && n->nin == 2 && n->nout == 1)
            m = n;
        else
            return false;
    }
    if (!h || !m || sole_consumer(g, h->out[0]) != m ||
        !((m->in[0] == y && m->in[1] == h->out[0]) || (m->in[1] == y && m->in[0] == h->out[0])) ||
        !ir_same_shape(m->out[0], y) || !ir_same_shape(h->out[0], y))
        return false;
    float alpha = 0, beta = 0;
    if (activation(c, h, &alpha, &beta) != ACT_HARDSIGMOID)
        return false;
    p->epi_act = ACT_HARDSWISH, p->epi_p0 = alpha, p->epi_p1 = beta;
    h->dead = true;
    h->merged_into = p;
    take_output(p, m);
    return true;
}

static void fuse_epilogue(Compiler *c, Node *p) {
    Graph *g = c->g;
    bool is_mm = is_op(p, "MatMul");
    if (p->out[0]->dtype != DT_FLOAT && p->out[0]->dtype != DT_DOUBLE)
        return;
    for (;;) {
        Value *y = p->out[0];
        if (p->epi_act != ACT_NONE || fuse_hardswish(c, p))
            return;
        Node *q = sole_consumer(g, y);
        if (!q || q->nout != 1)
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
        p->epi_act = act, p->epi_p0 = p0, p->epi_p1 = p1;
        take_output(p, q);
    }
}

/* A depthwise Conv's GlobalAveragePool (the squeeze-excitation of MobileNetV3 and
 * EfficientNet: the Conv's output goes to the pool and to the Mul by its scale): the Conv's
 * kernels take each channel's mean as they finish the channel, while its plane is in the
 * cache, as a second output; the pool goes (2 threads, MobileNetV3-Small's ten pools had
 * scaled 1.2x and read the planes from the other core's cache too). */
static void fuse_gap(Compiler *c, Node *p) {
    Graph *g = c->g;
    Value *y = p->out[0];
    if ((y->dtype != DT_FLOAT && y->dtype != DT_DOUBLE) || !conv_is_depthwise(p))
        return;
    for (int i = 0; i < g->nnodes; i++) {
        Node *q = g->nodes[i];
        if (q->dead || !is_op(q, "GlobalAveragePool") || q->nin < 1 || q->in[0] != y ||
            q->nout != 1 || !q->out[0] || q->out[0]->dtype != y->dtype)
            continue;
        Value **out = arena_alloc(c->arena, sizeof(Value *) * 2);
        out[0] = y, out[1] = q->out[0];
        p->out = out;
        p->nout = 2;
        q->out[0]->producer = p;
        q->dead = true;
        q->merged_into = p;
        return;
    }
}

/* ---- 0. QDQ patterns to the integer ops
 *
 * DequantizeLinear(x_q) -> Conv(., DequantizeLinear(w_q constant), bias) -> [Relu | Clip] ->
 * QuantizeLinear becomes one QLinearConv(x_q, w_q, int32 bias), and the same with MatMul or Gemm
 * (transA 0, alpha 1, beta 1 when there is a bias) as a QLinearMatMul (B transposed when
 * transB; the bias as the lowering's 9th input, o2c_bias): the integer kernel runs, and the
 * weight stays int8 in flash instead of being dequantized into the workspace on every run.
 * Every scale and zero point must be a constant; x per tensor; the weight per tensor or per
 * output channel (Conv axis 0, B along N); the Conv's (and the activation's) float output
 * read only by the next node of the pattern.  The bias: DequantizeLinear of an int32 constant
 * with zero point 0 and scale x_scale * w_scale (float), taken as is; or a float constant,
 * quantized as onnxruntime's quantizer does, rint(b / (x_scale * w_scale)) in float.  An
 * activation is the clamp of the requantized value (o2c_qmin/o2c_qmax): Q is monotone, so
 * Q(clip(v, lo, hi)) = clamp(Q(v), Q(lo), Q(hi)), and Relu is clamp(Q(v), y_zp, max).  The
 * DequantizeLinear nodes left without a reader are marked dead.  The result equals the QLinear
 * definition (int32 sums, multiplier x_scale * w_scale / y_scale), which is how ONNX quantizers
 * and tests/models/make_quant.py define the QDQ pattern.
 * Two more forms become QLinearMatMul:
 *   - DQ(a) -> MatMul <- DQ(b) with a and b both run-time 8-bit tensors (attention's Q K^T and
 *     P V), per-tensor parameters: B stays a run-time input of the integer op;
 *   - DQ(a) -> MatMul(DQ(b constant)) -> Add(bias) -> [Relu | Clip] -> Q, torch's Linear
 *     export: the bias of shape [N] or [1, N], a float constant or the DequantizeLinear of an
 *     int32 one, taken as Gemm's C above (the float one rounded to int32 as the quantizers
 *     round it, so the result is the integer definition, not the float graph's); the MatMul's
 *     output read only by the Add. */

typedef struct Qp {
    Value *x, *s, *z; /* the quantized tensor, its scale, its zero point (NULL: 0) */
    int64_t len;      /* elements of the scale: 1 per tensor */
    int axis;         /* per axis: the axis of x; -1 per tensor */
} Qp;

/* The parameters of DequantizeLinear / QuantizeLinear n when they are constants. */
static bool qp_of(Compiler *c, Node *n, Qp *q) {
    if (n->nin < 2 || n->nout != 1 || !n->in[0] || !n->in[1])
        return false;
    q->x = n->in[0], q->s = n->in[1], q->z = node_in(n, 2), q->axis = -1;
    int64_t zl;
    if (!q->s->data || q->s->dtype != DT_FLOAT || !ir_numel_const(q->s, &q->len) || q->len < 1 ||
        (q->z && (!q->z->data || !ir_numel_const(q->z, &zl) || zl != q->len)) ||
        q->x->rank < 0)
        return false;
    if (q->len == 1)
        return true;
    int64_t a = attr_int(c, n, "axis", 1), d;
    if (n->opset < 13 || q->s->rank != 1 || (q->z && q->z->rank != 1) || a < -q->x->rank ||
        a >= q->x->rank)
        return false;
    q->axis = (int)(a < 0 ? a + q->x->rank : a);
    return sym_get_const(q->x->shape[q->axis], &d) && d == q->len;
}

/* The DequantizeLinear that produces v, with constant parameters, or NULL. */
static Node *dq_of(Compiler *c, Value *v, Qp *q) {
    Node *n = v ? v->producer : NULL;
    if (!n || n->dead || !is_op(n, "DequantizeLinear") || !qp_of(c, n, q))
        return NULL;
    return n;
}

static bool is8t(DType t) { return t == DT_INT8 || t == DT_UINT8; }

static Value *mk_const(Compiler *c, const char *stem, DType t, int rank, const int64_t *dims) {
    Value *v = ir_value(c, arena_printf(c->arena, "%s.q%d", stem, c->g->nvalues));
    v->kind = VAL_CONST;
    ir_set_shape_ints(c, v, t, rank, dims);
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    v->data = arena_alloc(c->arena, (size_t)n * dtype_size(t) + 1);
    return v;
}

/* z, or a scalar zero of type t when z is absent. */
static Value *zero_point(Compiler *c, Value *z, const Value *x, DType t) {
    return z ? z : mk_const(c, x->name, t, 0, NULL);
}

static int64_t zp_at(const Value *z, int64_t i) {
    if (!z)
        return 0;
    switch (z->dtype) {
    case DT_INT8: return ((const int8_t *)z->data)[i];
    case DT_UINT8: return ((const uint8_t *)z->data)[i];
    case DT_INT32: return ((const int32_t *)z->data)[i];
    default: return 1; /* not a zero */
    }
}

/* A bias along the columns: v of shape [m] or [1, m] (Gemm's C, a MatMul's Add). */
static bool row_vector(const Value *v, int64_t m) {
    int64_t len, d0;
    return (v->rank == 1 || (v->rank == 2 && sym_get_const(v->shape[0], &d0) && d0 == 1)) &&
           ir_numel_const(v, &len) && len == m;
}

/* The int32 bias [m] of the integer op for bias value b (NULL: none, *ok stays true), with
 * sx * sw[o] its scale; NULL with *ok false when b is not one of the two forms above. */
static Value *int_bias(Compiler *c, Value *b, float sx, const Qp *w, int64_t m, bool *ok) {
    *ok = b == NULL;
    if (!b)
        return NULL;
    const float *sw = w->s->data;
    Qp q;
    if (dq_of(c, b, &q)) {
        if (!q.x->data || q.x->dtype != DT_INT32 || !row_vector(q.x, m) ||
            (q.len != 1 && (q.len != m || q.axis != q.x->rank - 1)))
            return NULL;
        for (int64_t o = 0; o < m; o++) {
            float want = sx * sw[w->len == 1 ? 0 : o];
            if (zp_at(q.z, q.len == 1 ? 0 : o) != 0 || ((const float *)q.s->data)[q.len == 1 ? 0 : o] != want)
                return NULL;
        }
        *ok = true;
        if (q.x->rank == 1)
            return q.x;
        Value *r = mk_const(c, q.x->name, DT_INT32, 1, &m); /* [1, m] -> [m] */
        memcpy(r->data, q.x->data, (size_t)m * sizeof(int32_t));
        return r;
    }
    if (!b->data || b->dtype != DT_FLOAT || !row_vector(b, m))
        return NULL;
    Value *r = mk_const(c, b->name, DT_INT32, 1, &m);
    for (int64_t o = 0; o < m; o++) {
        float s = sx * sw[w->len == 1 ? 0 : o];
        float v = nearbyintf(((const float *)b->data)[o] / s);
        if (!(s > 0.0f) || !(v >= -2147483648.0f && v < 2147483648.0f))
            return NULL;
        ((int32_t *)r->data)[o] = (int32_t)v;
    }
    *ok = true;
    return r;
}

/* QuantizeLinear's value of float v with scale s and zero point z into type t (float, as
 * emit_qdq computes it), saturated. */
static int64_t quantize_to(float v, float s, int64_t z, DType t) {
    double lo = t == DT_INT8 ? -128 : 0, hi = t == DT_INT8 ? 127 : 255;
    float q = nearbyintf(v / s) + (float)z;
    return q != q ? 0 : q < lo ? (int64_t)lo : q > hi ? (int64_t)hi : (int64_t)q;
}

/* Marks DequantizeLinear d dead when nothing live reads its output any more. */
static void drop_unread(Graph *g, Node *d) {
    if (!d || d->dead || d->out[0]->is_output)
        return;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        for (int k = 0; !n->dead && k < n->nin; k++)
            if (n->in[k] == d->out[0])
                return;
    }
    d->dead = true;
}

/* The end of the pattern after y: [Relu | Clip] then QuantizeLinear with constant per-tensor
 * parameters; sets *act (the activation node or NULL), *qn and the clamp range. */
static bool qdq_tail(Compiler *c, Value *y, Node **act, Node **qn, Qp *qy, int64_t *qmin,
                     int64_t *qmax) {
    Node *q = sole_consumer(c->g, y);
    *act = NULL;
    float p0 = 0, p1 = 0;
    int kind = ACT_NONE;
    if (q && q->nout == 1 && q->in[0] == y && (kind = activation(c, q, &p0, &p1)) != ACT_NONE) {
        if ((kind != ACT_RELU && kind != ACT_CLIP) || (kind == ACT_CLIP && !(p0 <= p1)))
            return false;
        for (int k = 1; k < q->nin; k++)
            if (q->in[k] == y)
                return false;
        *act = q;
        y = q->out[0];
        q = sole_consumer(c->g, y);
    }
    if (!q || !is_op(q, "QuantizeLinear") || q->in[0] != y || !qp_of(c, q, qy) || qy->len != 1 ||
        !is8t(q->out[0]->dtype) || (qy->z && qy->z == y) || qy->s == y)
        return false;
    float sy = *(const float *)qy->s->data;
    if (!(sy > 0.0f) || !isfinite(sy))
        return false;
    DType t = q->out[0]->dtype;
    int64_t zy = zp_at(qy->z, 0);
    *qmin = t == DT_INT8 ? -128 : 0;
    *qmax = t == DT_INT8 ? 127 : 255;
    if (kind == ACT_RELU)
        *qmin = zy;
    else if (kind == ACT_CLIP) {
        *qmin = quantize_to(p0, sy, zy, t);
        *qmax = quantize_to(p1, sy, zy, t);
    }
    *qn = q;
    return true;
}

/* p (the Conv, MatMul or Gemm, now an integer op) takes over the pattern's output. */
static void qdq_finish(Compiler *c, Node *p, const char *op, Node *act, Node *qn, int64_t qmin,
                       int64_t qmax, Node *dx, Node *dw, Node *db) {
    p->op_type = op;
    p->op = ops_find("", op);
    set_attr(c, p, "o2c_qmin", ATTR_INT, qmin, 0);
    set_attr(c, p, "o2c_qmax", ATTR_INT, qmax, 0);
    if (act) {
        act->dead = true;
        act->merged_into = p;
    }
    take_output(p, qn);
    drop_unread(c->g, dx);
    drop_unread(c->g, dw);
    drop_unread(c->g, db);
    reinfer(c, p);
}

static void qdq_conv(Compiler *c, Node *p) {
    Qp qx, qw, qy;
    Node *dx = dq_of(c, p->in[0], &qx), *dw = dq_of(c, node_in(p, 1), &qw), *act, *qn;
    Value *b = node_in(p, 2);
    int64_t m, qmin, qmax;
    if (!dx || !dw || qx.len != 1 || !is8t(qx.x->dtype) || !qw.x->data || !is8t(qw.x->dtype) ||
        (qw.len != 1 && qw.axis != 0) || qw.x->rank < 1 || !sym_get_const(qw.x->shape[0], &m) ||
        !qdq_tail(c, p->out[0], &act, &qn, &qy, &qmin, &qmax))
        return;
    bool ok;
    Qp qb;
    Node *db = b ? dq_of(c, b, &qb) : NULL;
    Value *bias = int_bias(c, b, *(const float *)qx.s->data, &qw, m, &ok);
    if (!ok)
        return;
    Value *in[9] = {qx.x, qx.s, zero_point(c, qx.z, qx.x, qx.x->dtype), qw.x, qw.s,
                    zero_point(c, qw.z, qw.x, qw.x->dtype), qy.s,
                    zero_point(c, qy.z, qy.x, qn->out[0]->dtype), bias};
    p->in = arena_dup(c->arena, in, sizeof in);
    p->nin = bias ? 9 : 8;
    qdq_finish(c, p, "QLinearConv", act, qn, qmin, qmax, dx, dw, db);
}

/* The Add that reads MatMul p's float output, and only it, with a bias along the columns as
 * its other input (a float constant, or the DequantizeLinear of one: int_bias decides), the
 * Add's output of p's shape: the bias of a Linear layer exported as MatMul + Add. */
static Node *bias_add(Compiler *c, Node *p, int64_t n, Value **bias) {
    Value *y = p->out[0];
    Node *a = sole_consumer(c->g, y);
    if (!a || !is_op(a, "Add") || a->nin != 2 || a->nout != 1 || !a->out[0] ||
        (a->in[0] == y) == (a->in[1] == y))
        return NULL;
    Value *b = a->in[a->in[0] == y ? 1 : 0];
    Qp q;
    Value *bv = dq_of(c, b, &q) ? q.x : b;
    if (!bv->data || !row_vector(bv, n) || b->rank > y->rank || a->out[0]->rank != y->rank)
        return NULL;
    *bias = b;
    return a;
}

/* MatMul of two run-time 8-bit tensors (attention's Q K^T and P V), per-tensor parameters, as
 * QLinearMatMul with B at run time. */
static void qdq_matmul_rt(Compiler *c, Node *p, Node *da, const Qp *qa, Node *db, const Qp *qb) {
    Node *act, *qn;
    Qp qy;
    int64_t qmin, qmax;
    if (qb->len != 1 || !is8t(qb->x->dtype) || qb->x->rank < 1 ||
        !qdq_tail(c, p->out[0], &act, &qn, &qy, &qmin, &qmax))
        return;
    Value *in[8] = {qa->x, qa->s, zero_point(c, qa->z, qa->x, qa->x->dtype), qb->x, qb->s,
                    zero_point(c, qb->z, qb->x, qb->x->dtype), qy.s,
                    zero_point(c, qy.z, qy.x, qn->out[0]->dtype)};
    p->in = arena_dup(c->arena, in, sizeof in);
    p->nin = 8;
    p->attrs = NULL;
    p->nattr = 0;
    qdq_finish(c, p, "QLinearMatMul", act, qn, qmin, qmax, da, db, NULL);
}

/* MatMul (B a constant matrix, or run time: qdq_matmul_rt) or Gemm as QLinearMatMul; a
 * MatMul's bias Add (bias_add) becomes the integer op's bias like Gemm's C. */
static void qdq_matmul(Compiler *c, Node *p) {
    bool gemm = is_op(p, "Gemm");
    Qp qa, qb, qy;
    Node *da = dq_of(c, p->in[0], &qa), *dbm = dq_of(c, node_in(p, 1), &qb), *act, *qn;
    Value *cv = gemm ? node_in(p, 2) : NULL;
    int64_t k, n, qmin, qmax;
    bool tb = gemm && attr_int(c, p, "transB", 0) != 0;
    if (gemm && (attr_int(c, p, "transA", 0) != 0 || attr_float(c, p, "alpha", 1.0f) != 1.0f ||
                 (cv && attr_float(c, p, "beta", 1.0f) != 1.0f)))
        return;
    if (!da || !dbm || (gemm && qa.x->rank != 2) || qa.len != 1 || !is8t(qa.x->dtype) ||
        qa.x->rank < 1)
        return;
    if (!gemm && !qb.x->data) {
        qdq_matmul_rt(c, p, da, &qa, dbm, &qb);
        return;
    }
    if (!qb.x->data || !is8t(qb.x->dtype) || qb.x->rank != 2 ||
        !sym_get_const(qb.x->shape[tb ? 1 : 0], &k) || !sym_get_const(qb.x->shape[tb ? 0 : 1], &n) ||
        (qb.len != 1 && qb.axis != (tb ? 0 : 1)))
        return;
    Node *badd = gemm ? NULL : bias_add(c, p, n, &cv);
    if (!qdq_tail(c, badd ? badd->out[0] : p->out[0], &act, &qn, &qy, &qmin, &qmax))
        return;
    bool ok;
    Qp qc;
    Node *dc = cv ? dq_of(c, cv, &qc) : NULL;
    Value *bias = int_bias(c, cv, *(const float *)qa.s->data, &qb, n, &ok);
    if (!ok)
        return;
    Value *bm = qb.x;
    if (tb) { /* [N, K] -> [K, N] */
        int64_t dims[2] = {k, n};
        bm = mk_const(c, qb.x->name, qb.x->dtype, 2, dims);
        for (int64_t i = 0; i < k; i++)
            for (int64_t j = 0; j < n; j++)
                ((uint8_t *)bm->data)[i * n + j] = ((const uint8_t *)qb.x->data)[j * k + i];
    }
    Value *in[9] = {qa.x, qa.s, zero_point(c, qa.z, qa.x, qa.x->dtype), bm, qb.s,
                    zero_point(c, qb.z, qb.x, qb.x->dtype), qy.s,
                    zero_point(c, qy.z, qy.x, qn->out[0]->dtype), bias};
    p->in = arena_dup(c->arena, in, sizeof in);
    p->nin = bias ? 9 : 8;
    p->attrs = NULL;
    p->nattr = 0;
    if (bias)
        set_attr(c, p, "o2c_bias", ATTR_INT, 1, 0);
    if (badd) {
        badd->dead = true;
        badd->merged_into = p;
    }
    qdq_finish(c, p, "QLinearMatMul", act, qn, qmin, qmax, da, dbm, dc);
}

/* ---- 0b. QDQ patterns around the other ops
 *
 * DequantizeLinear -> op -> [Relu | Clip] -> QuantizeLinear with constant per-tensor scales and
 * zero points, every quantized tensor of the one 8-bit type T, the op's float output read only
 * by the next node of the pattern:
 *   Add, Mul          -> QLinearAdd, QLinearMul (com.microsoft; compiler/ops/quant_ms.c)
 *   Concat            -> QLinearConcat
 *   AveragePool, GlobalAveragePool -> QLinearAveragePool, QLinearGlobalAveragePool
 *   Sigmoid           -> QLinearSigmoid
 *   HardSwish         -> QLinearHardSwish (quant_ms.c's own, domain ai.onnx2c)
 *   LeakyRelu, Relu   -> QLinearLeakyRelu (Relu: alpha 0)
 *   Clip (constant bounds) -> QLinearLeakyRelu with alpha 1 (a requantization) clamped to
 *                        Q(lo)..Q(hi), as for the Conv's activation
 *   MaxPool (no Indices), Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Resize (mode
 *                        nearest, not tf_crop_and_resize) -> the op on the 8-bit tensor
 *                        itself; when the output's scale or zero point differ from
 *                        the input's (or a Relu/Clip narrows it) the QuantizeLinear becomes a
 *                        requantization QLinearLeakyRelu (alpha 1) of that result.
 * The quant_ms ops compute DQ -> op -> Q in float32 as this chain does (bit-exact with it), but
 * for the average pools, whose sum of the window is exact in integers (quant_ms.c).  MaxPool
 * and the layout ops (nearest Resize a gather among them) commute with DQ and Q (monotone,
 * elementwise), and Q(DQ(x)) = x with the same parameters.  Everything else (Softmax, the
 * LayerNorm's ops, linear Resize, ConvTranspose: no integer kernel) stays on the float path,
 * named by --report.  A folded Relu / Clip is the clamp o2c_qmin / o2c_qmax, as above. */

static Value *zp_of(Compiler *c, const Qp *q, DType t) { return zero_point(c, q->z, q->x, t); }

/* The DequantizeLinear of a T tensor with constant per-tensor parameters that produces v. */
static Node *dq8(Compiler *c, Value *v, DType t, Qp *q) {
    Node *d = dq_of(c, v, q);
    return d && q->len == 1 && q->x->dtype == t ? d : NULL;
}

static bool same_qp(const Qp *a, const Qp *b) {
    return *(const float *)a->s->data == *(const float *)b->s->data &&
           zp_at(a->z, 0) == zp_at(b->z, 0);
}

/* p becomes the com.microsoft op `op` with inputs in[0..nin) and the clamp qmin..qmax. */
static void become_ms(Compiler *c, Node *p, const char *op, int nin, Value *const *in,
                      int64_t qmin, int64_t qmax) {
    p->op_type = op;
    p->domain = strcmp(op, "QLinearHardSwish") ? "com.microsoft" : "ai.onnx2c";
    p->op = ops_find(p->domain, op);
    O2C_ASSERT(c, p->op != NULL);
    p->in = arena_dup(c->arena, in, sizeof(Value *) * (size_t)nin);
    p->nin = nin;
    set_attr(c, p, "o2c_qmin", ATTR_INT, qmin, 0);
    set_attr(c, p, "o2c_qmax", ATTR_INT, qmax, 0);
}

/* The end of the rewrite of p: it takes over the QuantizeLinear's output. */
static void ms_finish(Compiler *c, Node *p, Node *act, Node *qn, Node *const *dqs, int ndq) {
    if (act) {
        act->dead = true;
        act->merged_into = p;
    }
    take_output(p, qn);
    for (int k = 0; k < ndq; k++)
        drop_unread(c->g, dqs[k]);
    reinfer(c, p);
}

/* Resize that copies elements (mode nearest), with no extrapolation value (which would be a
 * float written into the int8 tensor): a gather, which commutes with DQ and Q. */
static bool nearest_resize(Compiler *c, Node *n) {
    return is_op(n, "Resize") && !strcmp(attr_str(c, n, "mode", "nearest"), "nearest") &&
           strcmp(attr_str(c, n, "coordinate_transformation_mode", "half_pixel"),
                  "tf_crop_and_resize");
}

static bool layout_op(Compiler *c, Node *n) {
    return is_op(n, "Reshape") || is_op(n, "Flatten") || is_op(n, "Transpose") ||
           is_op(n, "Squeeze") || is_op(n, "Unsqueeze") || nearest_resize(c, n) ||
           (is_op(n, "MaxPool") && (n->nout == 1 || !n->out[1] ||
                                    (!n->out[1]->nuses && !n->out[1]->is_output)));
}

/* MaxPool and the layout ops on the 8-bit tensor (see above). */
static void qdq_layout(Compiler *c, Node *p, Node *dx, const Qp *qx, Node *act, Node *qn,
                       const Qp *qy, int64_t qmin, int64_t qmax) {
    DType t = qn->out[0]->dtype;
    bool full = qmin == (t == DT_INT8 ? -128 : 0) && qmax == (t == DT_INT8 ? 127 : 255);
    set_input(c, p, 0, qx->x);
    if (full && same_qp(qx, qy)) {
        ms_finish(c, p, act, qn, &dx, 1);
        return;
    }
    /* p writes a new 8-bit value; qn requantizes it */
    Value *y8 = ir_value(c, arena_printf(c->arena, "%s.q8_%d", p->out[0]->name, c->g->nvalues));
    p->out[0] = y8;
    y8->producer = p;
    reinfer(c, p);
    if (act) {
        act->dead = true;
        act->merged_into = p;
    }
    Value *in[5] = {y8, qx->s, zp_of(c, qx, t), qy->s, zp_of(c, qy, t)};
    become_ms(c, qn, "QLinearLeakyRelu", 5, in, qmin, qmax);
    set_attr(c, qn, "alpha", ATTR_FLOAT, 0, 1.0f);
    drop_unread(c->g, dx);
    reinfer(c, qn);
}

static void qdq_other(Compiler *c, Node *p) {
    Node *act, *qn;
    Qp qy, qx;
    int64_t qmin, qmax;
    Node *dx = dq_of(c, p->in[0], &qx);
    if (!dx || qx.len != 1 || !qdq_tail(c, p->out[0], &act, &qn, &qy, &qmin, &qmax))
        return;
    DType t = qn->out[0]->dtype;
    if (qx.x->dtype != t)
        return;
    if (layout_op(c, p)) {
        if (dx)
            qdq_layout(c, p, dx, &qx, act, qn, &qy, qmin, qmax);
        return;
    }
    if (is_op(p, "Add") || is_op(p, "Mul")) {
        Qp qb;
        Node *db = p->nin == 2 ? dq8(c, p->in[1], t, &qb) : NULL;
        if (!dx || !db)
            return;
        Value *in[8] = {qx.x, qx.s, zp_of(c, &qx, t), qb.x, qb.s, zp_of(c, &qb, t), qy.s,
                        zp_of(c, &qy, t)};
        become_ms(c, p, is_op(p, "Add") ? "QLinearAdd" : "QLinearMul", 8, in, qmin, qmax);
        Node *dqs[2] = {dx, db};
        ms_finish(c, p, act, qn, dqs, 2);
        return;
    }
    if (is_op(p, "Concat")) {
        int k = p->nin;
        Value **in = arena_alloc(c->arena, sizeof(Value *) * (size_t)(2 + 3 * k));
        Node **dqs = arena_alloc(c->arena, sizeof(Node *) * (size_t)k);
        in[0] = qy.s;
        in[1] = zp_of(c, &qy, t);
        for (int i = 0; i < k; i++) {
            Qp q;
            if (!p->in[i] || !(dqs[i] = dq8(c, p->in[i], t, &q)))
                return;
            in[2 + 3 * i] = q.x;
            in[3 + 3 * i] = q.s;
            in[4 + 3 * i] = zp_of(c, &q, t);
        }
        become_ms(c, p, "QLinearConcat", 2 + 3 * k, in, qmin, qmax);
        ms_finish(c, p, act, qn, dqs, k);
        return;
    }
    if (!dx || p->nout != 1)
        return;
    Value *in[5] = {qx.x, qx.s, zp_of(c, &qx, t), qy.s, zp_of(c, &qy, t)};
    const char *op = NULL;
    float alpha = 1.0f, p0 = 0, p1 = 0;
    if (is_op(p, "AveragePool") || is_op(p, "GlobalAveragePool")) {
        op = is_op(p, "AveragePool") ? "QLinearAveragePool" : "QLinearGlobalAveragePool";
    } else if (is_op(p, "Sigmoid")) {
        op = "QLinearSigmoid";
    } else if (is_op(p, "HardSwish")) {
        op = "QLinearHardSwish";
    } else {
        int kind = activation(c, p, &p0, &p1);
        if (kind == ACT_RELU || kind == ACT_LEAKY) {
            op = "QLinearLeakyRelu";
            alpha = kind == ACT_RELU ? 0.0f : p0;
        } else if (kind == ACT_CLIP && p0 <= p1) {
            op = "QLinearLeakyRelu";
            float sy = *(const float *)qy.s->data;
            int64_t zy = zp_at(qy.z, 0), lo = quantize_to(p0, sy, zy, t), hi = quantize_to(p1, sy, zy, t);
            qmin = lo > qmin ? lo : qmin;
            qmax = hi < qmax ? hi : qmax;
        }
    }
    if (!op)
        return;
    become_ms(c, p, op, 5, in, qmin, qmax);
    if (!strcmp(op, "QLinearLeakyRelu"))
        set_attr(c, p, "alpha", ATTR_FLOAT, 0, alpha);
    ms_finish(c, p, act, qn, &dx, 1);
}

void lower_graph(Compiler *c) {
    Graph *g = c->g;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead || n->nout < 1 || !n->out[0] || n->nin < 1 || n->out[0]->dtype != DT_FLOAT)
            continue;
        if (is_op(n, "Conv") && n->nout == 1 && n->nin >= 2)
            qdq_conv(c, n);
        else if ((is_op(n, "MatMul") || is_op(n, "Gemm")) && n->nout == 1 && n->nin >= 2)
            qdq_matmul(c, n);
        else
            qdq_other(c, n);
    }
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
        if (!n->dead && n->nout == 1 && n->out[0] && is_op(n, "Conv"))
            fuse_gap(c, n);
    }
}

/* ---- --report: what stays on the float path of a quantized graph */

static bool is_qdq(const Node *n) {
    return is_op(n, "QuantizeLinear") || is_op(n, "DequantizeLinear");
}

static bool floaty(const Value *v) {
    return v && (v->dtype == DT_FLOAT || v->dtype == DT_DOUBLE || v->dtype == DT_FLOAT16 ||
                 v->dtype == DT_BFLOAT16);
}

void lower_report(Compiler *c, FILE *f) {
    Graph *g = c->g;
    int nq = 0, ndq = 0;
    bool any = false;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        any |= is_qdq(n);
        if (!n->dead && is_op(n, "QuantizeLinear"))
            nq++;
        if (!n->dead && is_op(n, "DequantizeLinear"))
            ndq++;
    }
    if (!any)
        return;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead || is_qdq(n))
            continue;
        bool fl = false, from_dq = false, to_q = false;
        for (int k = 0; k < n->nin; k++) {
            Value *v = n->in[k];
            fl |= floaty(v) && !v->data && !v->kv;
            from_dq |= v && v->producer && !v->producer->dead && is_op(v->producer, "DequantizeLinear");
        }
        for (int k = 0; k < n->nout; k++) {
            Value *v = n->out[k];
            if (!v)
                continue;
            fl |= floaty(v);
            for (int j = i + 1; j < g->nnodes && !to_q; j++) {
                Node *r = g->nodes[j];
                if (!r->dead && is_op(r, "QuantizeLinear") && r->nin > 0 && r->in[0] == v)
                    to_q = true;
            }
        }
        if (!fl)
            continue;
        fprintf(f, "float path: node '%s' (%s)%s\n", n->name, n->op_type,
                from_dq && to_q ? " between DequantizeLinear and QuantizeLinear"
                : from_dq       ? " after DequantizeLinear"
                : to_q          ? " before QuantizeLinear"
                                : "");
    }
    fprintf(f, "quantization: %d DequantizeLinear and %d QuantizeLinear nodes left (the float "
            "path's boundaries)\n", ndq, nq);
}
