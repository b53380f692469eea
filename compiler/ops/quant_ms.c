/* quant_ms.c — op family: the com.microsoft QOperator ops that onnxruntime's quantizer writes.
 *
 * Each op is defined as DequantizeLinear -> the float op -> QuantizeLinear, computed in float32
 * the way that chain reads, so that it is bit-exact with the chain compiled by onnx2c (and with
 * a numpy reference using the same float32 operations).  Notation: T is int8 or uint8 (the
 * zero points' type, 0 when a zero point is omitted); every scale and zero point is a scalar
 * (rank 0, or 1-D of one element); DQ(q, s, z) = ((float)q - (float)z) * s and
 * Q(v, s, z) = saturate(nearbyintf(v / s) + (float)z) (round half to even: the default
 * rounding mode; saturation in float, templates/int_satf.c).  No double anywhere.
 *
 *   QLinearAdd(A, sa, za, B, sb, zb, sc, zc):  C = Q(DQ(A) + DQ(B), sc, zc), numpy broadcast
 *   QLinearMul(same inputs):                    C = Q(DQ(A) * DQ(B), sc, zc)
 *   QLinearSigmoid(X, sx, zx, sy, zy):          Y = Q(1 / (1 + expf(-DQ(X))), sy, zy)
 *   QLinearLeakyRelu(X, sx, zx, sy, zy; alpha): Y = Q(v < 0 ? alpha * v : v, sy, zy), v = DQ(X)
 *   QLinearHardSwish (domain ai.onnx2c, written only by the lowering for DQ -> HardSwish -> Q):
 *       Y = Q(v * fmaxf(0, fminf(1, v / 6 + 0.5)), sy, zy), HardSwish's float expression
 *   QLinearConcat(sy, zy, X0, s0, z0, ...; axis): Y = Concat(Q(DQ(Xk, sk, zk), sy, zy))
 *   QLinearAveragePool(X, sx, zx, sy, zy; AveragePool's attributes, channels_last 0):
 *       acc = sum over the taps inside the input of (x - zx), an exact int32;
 *       Y = Q(((float)acc * sx) / (float)count, sy, zy), count as AveragePool counts
 *       (count_include_pad), a window with nothing to count giving Q(0) = zy
 *   QLinearGlobalAveragePool(X, sx, zx, sy, zy; channels_last 0): the same, one window over
 *       the spatial axes (at most 2^23 elements: NAME_check, so that acc is exact in float).
 * The pools differ from DQ -> AveragePool -> Q, which sums the rounded float products: the sum
 * here is exact (tests/models/make_quant.py's reference computes the same formula).
 *
 * Code: the unary ops and QLinearConcat compute a 256-entry table once per call (int8 has 256
 * values) and look every element up (templates/qms_lut.c); QLinearAdd/QLinearMul are one
 * emit_elementwise loop over the formula (templates/qms_quant.c); the pools run
 * templates/qms_avgpool.c.  The lowering (compiler/lower.c) writes these ops for the QDQ
 * patterns DQ -> Add / Mul / Concat / AveragePool / GlobalAveragePool / Sigmoid / LeakyRelu /
 * Relu / Clip -> Q; its o2c_qmin/o2c_qmax attributes (a folded Relu or Clip) narrow the output
 * range of the table ops. */
#include "onnx2c.h"
#include "pool_plan.h"
#include <string.h>

static bool is8(DType t) { return t == DT_UINT8 || t == DT_INT8; }

/* Input i of n as a per-tensor parameter: NULL when omitted (zero points only); a scale is
 * float, a zero point of type t. */
static Value *qscalar(Compiler *c, Node *n, int i, bool scale, DType t, const char *what) {
    Value *v = node_in(n, i);
    if (!v) {
        if (scale)
            o2c_error(c, n, "%s (input %d) is required", what, i);
        return NULL;
    }
    if (v->rank < 0)
        o2c_error(c, n, "%s has unknown rank", what);
    int64_t len;
    if (v->rank > 1 || (v->rank == 1 && (!sym_get_const(v->shape[0], &len) || len != 1)))
        o2c_error(c, n, "%s must be a scalar (per-tensor quantization); per-axis parameters "
                  "are not supported by this op", what);
    if (scale && v->dtype != DT_FLOAT)
        o2c_error(c, n, "%s has type %s; it must be float", what, dtype_name(v->dtype));
    if (!scale && v->dtype != t)
        o2c_error(c, n, "%s has type %s; it must be %s like the quantized tensor", what,
                  dtype_name(v->dtype), dtype_name(t));
    return v;
}

/* The quantized input i: int8 or uint8 of known rank. */
static Value *qtensor(Compiler *c, Node *n, int i, const char *what) {
    Value *x = infer_in(c, n, i);
    if (!is8(x->dtype))
        o2c_error(c, n, "%s has type %s; it must be int8 or uint8", what, dtype_name(x->dtype));
    return x;
}

/* A float local holding parameter v (0 when omitted). */
static const char *param(Emit *e, Value *v, const char *stem) {
    const char *t = emit_tmp(e, stem);
    if (v)
        emit_line(e, "const float %s = (float)%s[0];", t, emit_ptr(e, v));
    else
        emit_line(e, "const float %s = 0.0f;", t);
    return t;
}

/* The output range as C int literals: T's, narrowed by the lowering's o2c_qmin/o2c_qmax. */
static void out_range(Compiler *c, Node *n, DType t, int64_t *lo, int64_t *hi) {
    int64_t tlo = t == DT_INT8 ? -128 : 0, thi = t == DT_INT8 ? 127 : 255;
    int64_t a = attr_int(c, n, "o2c_qmin", tlo), b = attr_int(c, n, "o2c_qmax", thi);
    *lo = a < tlo ? tlo : a > thi ? thi : a;
    *hi = b < *lo ? *lo : b > thi ? thi : b;
}

/* True when the output range is narrower than T's (then lo..hi is the clamp). */
static bool narrowed(Compiler *c, Node *n, DType t, int64_t *lo, int64_t *hi) {
    out_range(c, n, t, lo, hi);
    return *lo != (t == DT_INT8 ? -128 : 0) || *hi != (t == DT_INT8 ? 127 : 255);
}

/* ---- QLinearAdd, QLinearMul */

/* Inputs: at most max, and those of `required` (a mask of indices) present. */
static void require_inputs(Compiler *c, Node *n, int max, unsigned required) {
    if (n->nin > max)
        o2c_error(c, n, "expects at most %d inputs, got %d", max, n->nin);
    for (int i = 0; i < max; i++)
        if ((required >> i & 1u) && !node_in(n, i))
            o2c_error(c, n, "input %d is required", i);
}

void infer_qbinary(Compiler *c, Node *n) {
    require_inputs(c, n, 8, 1u | 2u | 8u | 16u | 64u);
    Value *a = qtensor(c, n, 0, "A"), *b = qtensor(c, n, 3, "B");
    if (a->dtype != b->dtype)
        o2c_error(c, n, "A has type %s but B has type %s", dtype_name(a->dtype),
                  dtype_name(b->dtype));
    qscalar(c, n, 1, true, a->dtype, "A_scale");
    qscalar(c, n, 2, false, a->dtype, "A_zero_point");
    qscalar(c, n, 4, true, a->dtype, "B_scale");
    qscalar(c, n, 5, false, a->dtype, "B_zero_point");
    qscalar(c, n, 6, true, a->dtype, "C_scale");
    qscalar(c, n, 7, false, a->dtype, "C_zero_point");
    int r = a->rank > b->rank ? a->rank : b->rank;
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
    r = infer_broadcast(c, n, a->rank, a->shape, b->rank, b->shape, shape);
    ir_set_shape(c, n->out[0], a->dtype, r, shape);
}

void emit_qbinary(Compiler *c, Emit *e, Node *n) {
    Value *a = n->in[0], *b = n->in[3], *y = n->out[0];
    const char *sfx = emit_template(e, "qms_quant", y->dtype);
    const char *sa = param(e, n->in[1], "sa"), *za = param(e, node_in(n, 2), "za");
    const char *sb = param(e, n->in[4], "sb"), *zb = param(e, node_in(n, 5), "zb");
    const char *sc = param(e, n->in[6], "sc"), *zc = param(e, node_in(n, 7), "zc");
    bool mul = n->op->variant == OPV_QMUL;
    int64_t lo, hi;
    bool nar = narrowed(c, n, y->dtype, &lo, &hi); /* the clamp of a folded Relu or Clip */
    Value *ins[2] = {a, b};
    Sym *one = sym_const(c->sym, 1);
    bool flat = y->rank > 0;
    for (int k = 0; k < 2; k++) {
        bool same = ins[k]->rank == y->rank;
        for (int d = 0; same && d < y->rank; d++)
            same = ins[k]->shape[d] == y->shape[d];
        flat &= same || ir_numel(c, ins[k]) == one;
    }
    if (flat) { /* no broadcasting: one call (templates/qms_binary.c) */
        const char *bs = emit_template(e, "qms_binary", y->dtype);
        out_range(c, n, y->dtype, &lo, &hi);
        emit_line(e, "qms_binary_%s(%s, %d, %s, %d, %s, %s, %s, %s, %s, %s, %s, %d, %lld, %lld, %s);",
                  bs, emit_ptr(e, a), ir_numel(c, a) != one, emit_ptr(e, b),
                  ir_numel(c, b) != one, emit_sym(e, ir_numel(c, y)), sa, za, sb, zb, sc, zc,
                  mul, (long long)lo, (long long)hi, emit_ptr(e, y));
        return;
    }
    const char *expr = arena_printf(
        c->arena, "qms_quant_%s(((float)$0 - %s) * %s %s ((float)$1 - %s) * %s, %s, %s)", sfx, za,
        sa, mul ? "*" : "+", zb, sb, sc, zc);
    if (nar)
        expr = arena_printf(c->arena, "qms_clamp_%s(%s, %lld, %lld)", sfx, expr, (long long)lo,
                            (long long)hi);
    emit_elementwise(e, n, y, 2, ins, expr);
}

/* ---- QLinearSigmoid, QLinearLeakyRelu: a table of the 256 values */

/* The inputs of a unary quantized op: X, its scale and zero point, then Y's (names[0..4],
 * the op's spelling); returns X. */
static Value *qunary_inputs(Compiler *c, Node *n, const char *const names[5]) {
    require_inputs(c, n, 5, 1u | 2u | 8u);
    Value *x = qtensor(c, n, 0, names[0]);
    qscalar(c, n, 1, true, x->dtype, names[1]);
    qscalar(c, n, 2, false, x->dtype, names[2]);
    qscalar(c, n, 3, true, x->dtype, names[3]);
    qscalar(c, n, 4, false, x->dtype, names[4]);
    return x;
}

void infer_qunary(Compiler *c, Node *n) {
    static const char *const names[] = {"X", "X_scale", "X_zero_point", "Y_scale",
                                        "Y_zero_point"};
    Value *x = qunary_inputs(c, n, names);
    if (n->op->variant == OPV_QLEAKYRELU)
        n->op_f[0] = attr_float(c, n, "alpha", 0.01f);
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

/* Declares `T lut[256]` (index: the value minus T's minimum) with lut[q] = Q(f(DQ(q))) clamped
 * to the output range; f is a C expression of the float v. */
static const char *emit_lut(Compiler *c, Emit *e, Node *n, DType t, Value *sx, Value *zx,
                            Value *sy, Value *zy, const char *f) {
    const char *sfx = emit_template(e, "qms_quant", t);
    const char *xs = param(e, sx, "sx"), *xz = param(e, zx, "zx");
    const char *ys = param(e, sy, "sy"), *yz = param(e, zy, "zy");
    const char *lut = emit_tmp(e, "lut");
    int64_t lo, hi, off = t == DT_INT8 ? 128 : 0;
    emit_line(e, "%s %s[256];", dtype_ctype(t), lut);
    emit_line(e, "for (int q = 0; q < 256; q++) {");
    emit_line(e, "    const float v = ((float)(q - %lld) - %s) * %s;", (long long)off, xz, xs);
    if (!narrowed(c, n, t, &lo, &hi))
        emit_line(e, "    %s[q] = qms_quant_%s(%s, %s, %s);", lut, sfx, f, ys, yz);
    else /* the clamp of a folded Relu or Clip */
        emit_line(e, "    %s[q] = qms_clamp_%s(qms_quant_%s(%s, %s, %s), %lld, %lld);", lut, sfx,
                  sfx, f, ys, yz, (long long)lo, (long long)hi);
    emit_line(e, "}");
    return lut;
}

void emit_qunary(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0], *y = n->out[0];
    const char *f;
    if (n->op->variant == OPV_QSIGMOID)
        f = "1.0f / (1.0f + expf(-v))";
    else if (n->op->variant == OPV_QHARDSWISH) /* HardSwish's float expression */
        f = arena_printf(c->arena, "v * fmaxf(0.0f, fminf(1.0f, %s * v + 0.5f))",
                         emit_literal(e, DT_FLOAT, 1.0 / 6.0));
    else
        f = arena_printf(c->arena, "v < 0 ? %s * v : v",
                         emit_literal(e, DT_FLOAT, n->op_f[0]));
    const char *lut = emit_lut(c, e, n, x->dtype, n->in[1], node_in(n, 2), n->in[3],
                               node_in(n, 4), f);
    const char *sfx = emit_template(e, "qms_lut", x->dtype);
    emit_line(e, "qms_lut_%s(%s, %s, %s, %s);", sfx, emit_ptr(e, x), emit_ptr(e, y),
              emit_sym(e, ir_numel(c, x)), lut);
}

/* ---- QLinearConcat */

void infer_qconcat(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    if (n->nin < 5 || (n->nin - 2) % 3 != 0)
        o2c_error(c, n, "%d inputs: expected Y_scale, Y_zero_point, then (X, X_scale, "
                  "X_zero_point) for each tensor", n->nin);
    Value *x0 = qtensor(c, n, 2, "input 2");
    DType t = x0->dtype;
    qscalar(c, n, 0, true, t, "Y_scale");
    Value *zy = qscalar(c, n, 1, false, t, "Y_zero_point");
    (void)zy;
    int r = x0->rank;
    if (r < 1)
        o2c_error(c, n, "inputs must have rank 1 or more");
    int64_t ax = attr_int(c, n, "axis", 0);
    if (ax < -r || ax >= r)
        o2c_error(c, n, "axis %lld is out of range for rank %d", (long long)ax, r);
    int axis = infer_axis(c, n, ax, r);
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)r);
    memcpy(shape, x0->shape, sizeof(Sym *) * (size_t)r);
    shape[axis] = sym_const(s, 0);
    for (int k = 2; k < n->nin; k += 3) {
        Value *x = qtensor(c, n, k, "a tensor");
        if (x->dtype != t)
            o2c_error(c, n, "input %d has type %s but input 2 has type %s", k,
                      dtype_name(x->dtype), dtype_name(t));
        if (x->rank != r)
            o2c_error(c, n, "input %d has rank %d but input 2 has rank %d", k, x->rank, r);
        qscalar(c, n, k + 1, true, t, "a scale");
        qscalar(c, n, k + 2, false, t, "a zero point");
        for (int d = 0; d < r; d++)
            if (d != axis)
                ir_constrain(c, n, CK_EQ, x->shape[d], x0->shape[d],
                             "input %d dim %d must equal that of input 2", k, d);
        shape[axis] = sym_add(s, shape[axis], x->shape[axis]);
    }
    for (int d = 0; d < r; d++)
        shape[d] = ir_unified(c, shape[d]);
    ir_set_shape(c, n->out[0], t, r, shape);
    n->priv = (void *)(intptr_t)(axis + 1);
}

void emit_qconcat(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    Value *y = n->out[0];
    int axis = (int)(intptr_t)n->priv - 1, r = y->rank;
    Sym *outer = sym_const(s, 1), *inner = sym_const(s, 1);
    for (int d = 0; d < axis; d++)
        outer = sym_mul(s, outer, y->shape[d]);
    for (int d = axis + 1; d < r; d++)
        inner = sym_mul(s, inner, y->shape[d]);
    const char *sfx = emit_template(e, "qms_lut", y->dtype);
    const char *at = emit_tmp(e, "at");
    emit_line(e, "int64_t %s = 0;", at);
    for (int k = 2; k < n->nin; k += 3) {
        Value *x = n->in[k];
        emit_line(e, "{");
        emit_indent(e, 1);
        const char *lut = emit_lut(c, e, n, y->dtype, n->in[k + 1], node_in(n, k + 2), n->in[0],
                                   node_in(n, 1), "v");
        Sym *chunk = sym_mul(s, x->shape[axis], inner), *ychunk = sym_mul(s, y->shape[axis], inner);
        emit_line(e, "for (int64_t o = 0; o < %s; o++)", emit_sym(e, outer));
        emit_line(e, "    qms_lut_%s(%s + o * %s, %s + o * %s + %s, %s, %s);", sfx, emit_ptr(e, x),
                  emit_sym(e, chunk), emit_ptr(e, y), emit_sym(e, ychunk), at, emit_sym(e, chunk),
                  lut);
        emit_line(e, "%s += %s;", at, emit_sym(e, chunk));
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    emit_line(e, "(void)%s;", at);
}

/* ---- QLinearAveragePool, QLinearGlobalAveragePool */

void infer_qpool(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    bool global = n->op->variant == OPV_QGLOBALPOOL;
    static const char *const names[] = {"X", "x_scale", "x_zero_point", "y_scale",
                                        "y_zero_point"};
    Value *x = qunary_inputs(c, n, names);
    if (attr_int(c, n, "channels_last", 0) != 0)
        o2c_error(c, n, "channels_last = 1 (NHWC) is not supported: only NCHW (channels_last = 0)");
    if (x->rank < 3)
        o2c_error(c, n, "input rank %d: expected [N, C, D1, ...] (rank >= 3)", x->rank);
    Pool *p;
    Sym **shape, *window;
    if (global) {
        p = pool_global_geometry(c, n, x, POOL_AVG, &shape);
        window = p->k[2];
    } else {
        if (x->rank > 5)
            o2c_error(c, n, "%d spatial axes: at most 3 are supported", x->rank - 2);
        if (!node_attr(n, "kernel_shape"))
            o2c_error(c, n, "kernel_shape is required");
        shape = arena_alloc(c->arena, sizeof(Sym *) * 5);
        p = pool_geometry(c, n, x, POOL_AVG, shape);
        window = sym_mul(s, sym_mul(s, p->k[0], p->k[1]), p->k[2]);
    }
    /* acc = the sum of at most `window` terms of magnitude <= 255, exact in float */
    ir_constrain(c, n, CK_LE, window, sym_const(s, 1 << 23),
                 "the pooling window must hold at most 2^23 elements");
    ir_set_shape(c, n->out[0], x->dtype, x->rank, shape);
    n->priv = p;
}

void emit_qpool(Compiler *c, Emit *e, Node *n) {
    Pool *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    const char *sfx = emit_template(e, "qms_avgpool", x->dtype);
    const char *sx = param(e, n->in[1], "sx"), *zx = param(e, node_in(n, 2), "zx");
    const char *sy = param(e, n->in[3], "sy"), *zy = param(e, node_in(n, 4), "zy");
    const char *in = emit_sym_array(e, "in", 3, p->in), *out = emit_sym_array(e, "out", 3, p->out);
    const char *k = emit_sym_array(e, "k", 3, p->k), *st = emit_sym_array(e, "st", 3, p->st);
    const char *dl = emit_sym_array(e, "dl", 3, p->dl), *pad = emit_sym_array(e, "pad", 6, p->pad);
    int64_t lo, hi;
    out_range(c, n, y->dtype, &lo, &hi);
    emit_line(e, "qms_avgpool_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %lld, %s, (int32_t)%s, %s, %s, "
              "%lld, %lld);",
              sfx, emit_ptr(e, x), emit_ptr(e, y), emit_sym(e, p->nc), in, out, k, st, dl, pad,
              (long long)p->count_include_pad, sx, zx, sy, zy, (long long)lo, (long long)hi);
}
