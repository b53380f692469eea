/* quant.c — op family: linear quantization and integer products.
 *
 * QuantizeLinear (10, 13): y = saturate(rint(x / scale) + zero_point), y uint8 (the default,
 *   without a zero point) or int8; x float or int32.  Per tensor (scalar scale) or, from opset
 *   13, per axis (1-D scale and zero point along `axis`, default 1).
 * DequantizeLinear (10, 13): y = (float(x) - float(zero_point)) * scale, x uint8, int8 or int32
 *   (int32: no zero point); per tensor or per axis as above.
 * DynamicQuantizeLinear (11): x float -> y uint8 with scale = (max(x, 0) - min(x, 0)) / 255 and
 *   zero point = saturate(rint(-min(x, 0) / scale)), computed at run time.
 * MatMulInteger (10): numpy.matmul of 8-bit A and B (int8 or uint8 each) minus their zero
 *   points, int32 result.  a_zero_point: scalar, [M] (per row) or [..., M, 1] (per row and
 *   batch); b_zero_point: scalar, [N] (per column) or [..., 1, N].
 * QLinearMatMul (10): the same product requantized: y = saturate(rint(acc * sa * sb / sy) + zy)
 *   with the scales shaped like their zero points.
 * ConvInteger (10): Conv of 8-bit x and w minus their zero points (x: scalar, w: scalar or per
 *   output channel [M]), int32 result; padding contributes 0.
 * QLinearConv (10): the same with an optional int32 bias [M], requantized like QLinearMatMul
 *   (x_scale scalar, w_scale scalar or [M], y_scale scalar).
 * The lowering (compiler/lower.c) also writes these two ops for the QDQ pattern DQ -> Conv /
 *   MatMul / Gemm -> [Relu | Clip] -> Q: attributes o2c_qmin/o2c_qmax narrow the output range
 *   (the folded activation), and a QLinearMatMul with o2c_bias = 1 takes a 9th input, an int32
 *   bias [N] added to the sums before requantizing.
 *
 * Code: the element-wise ops are loops written here.  The products widen their operands to
 * int32 with the zero points subtracted (templates/quant_widen.c) into the node's scratch, then
 * multiply (quant_mm.c: per batch element; quant_conv.c: direct convolution per image) and, for
 * the QLinear ops, requantize (quant_requant.c).  A quantization parameter given as a 1-D tensor
 * of symbolic length is taken as a scalar when its length is 1 at run time and as a vector
 * otherwise (NAME_run returns O2C_RUN_EDATA when the length is neither 1 nor the expected
 * one). */
#include "onnx2c.h"
#include "gemm_plan.h"
#include "mm_shape.h"
#include <string.h>

static Sym *K(Compiler *c, int64_t v) { return sym_const(c->sym, v); }

static bool is8(DType t) { return t == DT_UINT8 || t == DT_INT8; }

static const char *s8flag(DType t) { return t == DT_INT8 ? "1" : "0"; }

/* ---- quantization parameters (scales and zero points) */

enum { QP_NONE, QP_SCALAR, QP_VEC, QP_DYN, QP_BATCH };

typedef struct QParam {
    Value *v;
    int mode;    /* QP_*: absent, one element, a vector of the expected length, a 1-D tensor of
                  * symbolic length (1 or the expected one, chosen at run time), per batch */
    Sym *expect; /* QP_VEC / QP_DYN: the expected length (NULL: the parameter must be a scalar) */
    bool scalar; /* QP_DYN of a parameter that must be a scalar: its length must be 1 */
} QParam;

/* Classifies parameter v (may be NULL): scalar, or a 1-D vector of length `expect` (NULL when
 * only a scalar is allowed); rank >= 2 is QP_BATCH when allow_batch (the caller checks it). */
static QParam qparam(Compiler *c, Node *n, Value *v, Sym *expect, bool allow_batch,
                     const char *what) {
    QParam q = {v, QP_NONE, expect, false};
    if (!v)
        return q;
    if (v->rank < 0)
        o2c_error(c, n, "%s has unknown rank", what);
    int64_t len, want;
    if (v->rank == 0 || (ir_numel_const(v, &len) && len == 1)) {
        q.mode = QP_SCALAR;
        return q;
    }
    if (v->rank == 1) {
        if (!expect) {
            if (sym_get_const(v->shape[0], &len))
                o2c_error(c, n, "%s has %lld elements; it must be a scalar", what, (long long)len);
            q.mode = QP_DYN;
            q.expect = K(c, 1);
            q.scalar = true;
            return q;
        }
        if (sym_get_const(v->shape[0], &len) && sym_get_const(expect, &want)) {
            if (len != want)
                o2c_error(c, n, "%s has %lld elements; expected 1 or %lld", what, (long long)len,
                          (long long)want);
            q.mode = QP_VEC;
            return q;
        }
        if (v->shape[0] == expect) {
            q.mode = QP_VEC;
            return q;
        }
        q.mode = QP_DYN;
        return q;
    }
    if (allow_batch) {
        q.mode = QP_BATCH;
        return q;
    }
    o2c_error(c, n, "%s has rank %d; it must be a scalar or a 1-D tensor", what, v->rank);
}

/* C expression of the element stride of a scalar/vector parameter: 0 for a scalar, 1 for a
 * vector; for QP_DYN emits the run-time check and a local. */
static const char *qp_stride(Emit *e, const QParam *q) {
    if (q->mode == QP_NONE || q->mode == QP_SCALAR)
        return "0";
    if (q->mode == QP_VEC)
        return "1";
    const char *len = emit_sym(e, q->v->shape[0]), *want = emit_sym(e, q->expect);
    if (q->scalar) {
        emit_line(e, "if (%s != 1)", len);
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
        return "0";
    }
    const char *t = emit_tmp(e, "qs");
    emit_line(e, "if (%s != 1 && %s != %s)", len, len, want);
    emit_line(e, "    return %d;", O2C_RUN_EDATA);
    emit_line(e, "const int64_t %s = %s == 1 ? 0 : 1;", t, len);
    return t;
}

/* Output range of a QLinear op of output type t: the type's, narrowed by the lowering's
 * o2c_qmin/o2c_qmax (a folded Relu or Clip), as C literals. */
static void qlinear_range(Compiler *c, Node *n, DType t, const char **lo, const char **hi) {
    int64_t tlo = t == DT_INT8 ? -128 : 0, thi = t == DT_INT8 ? 127 : 255;
    int64_t a = attr_int(c, n, "o2c_qmin", tlo), b = attr_int(c, n, "o2c_qmax", thi);
    a = a < tlo ? tlo : a > thi ? thi : a;
    b = b < a ? a : b > thi ? thi : b;
    *lo = arena_printf(c->arena, "%lld", (long long)a);
    *hi = arena_printf(c->arena, "%lld", (long long)b);
}

static void require_float(Compiler *c, Node *n, Value *v, const char *what) {
    if (v && v->dtype != DT_FLOAT)
        o2c_error(c, n, "%s has type %s; it must be float", what, dtype_name(v->dtype));
}

/* ---- the int8 engine (templates/quant_i8.c): a constant weight and constant parameters */

typedef struct QFast {
    Value *wpk;           /* the packed weight (int8) */
    Value *wx;            /* a convolution the x86 implicit product may run (quant_i8_convx.c):
                           * the weight packed for it; wpk and wx then exist under QI8_CONVX's
                           * #if and #if ! */
    Value *cb, *cbu, *zw; /* int32 per output: folded bias and zero-point terms, the same less
                           * 128 sum_k W[m][k] (columns biased by 128); zw NULL: all 0 */
    Value *mant, *sh;     /* int32 per output: the requantization multiplier (QLinear ops) */
    int64_t kp;           /* K rounded up to 16 (not depthwise) */
    int64_t mb;           /* outputs per block of the packed weight (not depthwise) */
    int32_t zx, zy, lo, hi;
    int ymode;            /* 0 int8, 1 uint8, 2 int32 */
    bool dw;              /* depthwise: qi8_dw, the weight as [C][kvol] */
} QFast;

/* Element i of constant v (a scalar broadcasts); NULL reads 0. */
static int64_t cint(const Value *v, int64_t i) {
    if (!v)
        return 0;
    int64_t len = 1;
    ir_numel_const(v, &len);
    if (len == 1)
        i = 0;
    switch (v->dtype) {
    case DT_INT8: return ((const int8_t *)v->data)[i];
    case DT_UINT8: return ((const uint8_t *)v->data)[i];
    default: return ((const int32_t *)v->data)[i];
    }
}

static float cflt(const Value *v, int64_t i) {
    int64_t len = 1;
    ir_numel_const(v, &len);
    return ((const float *)v->data)[len == 1 ? 0 : i];
}

/* r = mant * 2^-sh exactly: mant the significand of float r shifted to 31 bits; the codes of
 * templates/quant_i8.c for |r| >= 2^30 (sh 0), infinite (-1) and NaN (-2) r; 0 for |r| <
 * 2^-32 (the products round to 0).  The same decomposition as the generated code's qi8_mult
 * (templates/quant_requant.c), which the products with run-time scales use. */
static void qmult(float r, int32_t *mant, int32_t *sh) {
    uint32_t b;
    memcpy(&b, &r, 4);
    int32_t e = (int32_t)((b >> 23) & 255), neg = (int32_t)(b >> 31);
    uint32_t f = b & 0x7fffffu;
    if (e == 255) {
        *mant = neg ? -1 : 1;
        *sh = f ? -2 : -1;
        return;
    }
    int32_t s = 157 - e; /* r = (f | 2^23) 2^7 2^-(157 - e) */
    if (e == 0 || s > 62) {
        *mant = 0, *sh = 1;
        return;
    }
    int32_t m = (int32_t)((f | 0x800000u) << 7);
    *mant = neg ? -m : m;
    *sh = s < 1 ? 0 : s;
}

/* The scratch of a tile of the engine's columns: QI8_P (at most 8) int32 column sums, then 8 Kp
 * bytes (8 columns of int8 on x86, 4 of int16 on Arm DSP). */
#define QI8_SCRATCH(kp) (8 * 4 + 8 * (kp))
/* A convolution's scratch slot (QI8_SCRATCH rounded to a cache line), and the threads it may
 * share its tiles with (OpenMP; one slot each). */
#define QI8_SLOT(kp) ((QI8_SCRATCH(kp) + 63) / 64 * 64)
#define QI8_THREADS 4

/* The same when the tiles never hold more than `rows` columns (a product of few rows: a fully
 * connected layer's one): 2 bytes a column on DSP, 1 elsewhere. */
static Sym *qi8_scratch_rows(Compiler *c, Sym *rows, Sym *kp) {
    int64_t r;
    if (!sym_get_const(rows, &r) || r >= 4)
        return sym_add(c->sym, K(c, 8 * 4), sym_mul(c->sym, K(c, 8), kp));
    return sym_add(c->sym, K(c, 8 * 4), sym_mul(c->sym, K(c, 2 * r), kp));
}

static bool cdata(const QParam *q) { return q->mode == QP_NONE || (q->v && q->v->data); }

/* The engine's packed weight (QFast.wpk), for gp_lazy: qfast_build's layout. */
typedef struct QPackJob {
    const uint8_t *wb;
    int64_t wm, wk, M, K, mg, mb, mgp, kp;
    bool dw, w_s8;
} QPackJob;

static void qpack_fill(const void *arg, void *dst) {
    const QPackJob *j = arg;
    int8_t *pk = dst;
    for (int64_t m = 0; m < j->M; m++) {
        int64_t g = m / j->mg, i = m % j->mg;
        for (int64_t k = 0; k < j->K; k++) {
            uint8_t byte = j->wb[m * j->wm + k * j->wk];
            int64_t at = j->dw ? m * j->K + k
                               : g * j->mgp * j->kp + (i / j->mb) * j->mb * j->kp +
                                     (k / 4) * 4 * j->mb + (i % j->mb) * 4 + k % 4;
            pk[at] = (int8_t)(j->w_s8 ? byte : (uint8_t)(byte ^ 0x80));
        }
    }
}

/* Builds the engine's constants for M outputs in G groups of K terms: W[m][k] (m = g mg + i)
 * is byte wt[m * wm + k * wk] of the weight (int8 when w_s8).  zx, zw: the zero points (x's a
 * scalar); for a QLinear op the scales (sw per output or scalar), y's zero point and the
 * clamp range; bias may be NULL. */
static QFast *qfast_build(Compiler *c, Node *n, int64_t G, int64_t M, int64_t K, const Value *w,
                          int64_t wm, int64_t wk, bool dw, DType xt, const Value *zx,
                          const Value *zw, bool qlinear, const Value *sx, const Value *sw,
                          const Value *sy, const Value *zy, const Value *bias, DType yt) {
    QFast *f = arena_alloc(c->arena, sizeof *f);
    bool w_s8 = w->dtype == DT_INT8;
    int64_t mg = M / G, kp = (K + 15) / 16 * 16;
    /* blocks of 16 outputs (one AVX-512 register of sums), fewer for a small layer */
    int64_t mb = mg >= 16 ? 16 : mg > 4 ? 8 : mg > 2 ? 4 : 2, mgp = (mg + mb - 1) / mb * mb;
    f->mb = mb;
    f->dw = dw;
    f->kp = dw ? K : kp;
    f->zx = (int32_t)(cint(zx, 0) - (xt == DT_UINT8 ? 128 : 0));
    int64_t count = dw ? M * K : G * mgp * kp;
    QPackJob *job = arena_alloc(c->arena, sizeof *job);
    *job = (QPackJob){w->data, wm, wk, M, K, mg, mb, mgp, kp, dw, w_s8};
    int32_t *cb = arena_alloc(c->arena, sizeof(int32_t) * (size_t)M);
    int32_t *cbu = arena_alloc(c->arena, sizeof(int32_t) * (size_t)M);
    int32_t *zt = arena_alloc(c->arena, sizeof(int32_t) * (size_t)M);
    int32_t *mt = arena_alloc(c->arena, sizeof(int32_t) * (size_t)M);
    int32_t *st = arena_alloc(c->arena, sizeof(int32_t) * (size_t)M);
    bool anyzw = false;
    const uint8_t *wb = w->data;
    for (int64_t m = 0; m < M; m++) {
        uint32_t sum = 0;
        for (int64_t k = 0; k < K; k++) {
            uint8_t byte = wb[m * wm + k * wk];
            int8_t v = (int8_t)(w_s8 ? byte : (uint8_t)(byte ^ 0x80));
            sum += (uint32_t)(int32_t)v;
        }
        int32_t z = (int32_t)(cint(zw, m) - (w_s8 ? 0 : 128));
        zt[m] = z;
        anyzw |= z != 0;
        cb[m] = (int32_t)((uint32_t)cint(bias, m) - (uint32_t)f->zx * sum +
                          (uint32_t)K * (uint32_t)f->zx * (uint32_t)z);
        cbu[m] = (int32_t)((uint32_t)cb[m] - 128u * sum);
        if (qlinear) {
            float r = cflt(sx, 0) * cflt(sw, m);
            r = r / cflt(sy, 0);
            qmult(r, &mt[m], &st[m]);
        }
    }
    const char *stem = n->name && n->name[0] ? n->name : n->op_type;
    f->wpk = gp_lazy1(c, stem, DT_INT8, count, qpack_fill, job);
    f->cb = gp_const(c, stem, DT_INT32, M, (unsigned char *)cb);
    f->cbu = dw ? NULL : gp_const(c, stem, DT_INT32, M, (unsigned char *)cbu);
    f->zw = anyzw ? gp_const(c, stem, DT_INT32, M, (unsigned char *)zt) : NULL;
    if (qlinear) {
        f->mant = gp_const(c, stem, DT_INT32, M, (unsigned char *)mt);
        f->sh = gp_const(c, stem, DT_INT32, M, (unsigned char *)st);
        int64_t tlo = yt == DT_INT8 ? -128 : 0, thi = yt == DT_INT8 ? 127 : 255;
        int64_t a = attr_int(c, n, "o2c_qmin", tlo), b = attr_int(c, n, "o2c_qmax", thi);
        a = a < tlo ? tlo : a > thi ? thi : a;
        b = b < a ? a : b > thi ? thi : b;
        f->lo = (int32_t)a, f->hi = (int32_t)b;
        f->zy = (int32_t)cint(zy, 0);
        f->ymode = yt == DT_INT8 ? 0 : 1;
    } else {
        f->ymode = 2;
    }
    return f;
}

static const char *qf_ptr(Emit *e, Value *v) { return v ? emit_ptr(e, v) : "(const int32_t *)0"; }

/* The engine's arguments after the weight: cb, [cbu,] zw, mant, sh, zy, lo, hi, ymode. */
static const char *qf_args(Emit *e, const QFast *f) {
    return arena_printf(emit_arena(e), "%s, %s%s%s, %s, %s, %d, %d, %d, %d", emit_ptr(e, f->cb),
                        f->cbu ? emit_ptr(e, f->cbu) : "", f->cbu ? ", " : "", qf_ptr(e, f->zw),
                        qf_ptr(e, f->mant), qf_ptr(e, f->sh), (int)f->zy, (int)f->lo, (int)f->hi,
                        f->ymode);
}

/* ---- QuantizeLinear, DequantizeLinear */

typedef struct QdqPlan {
    Sym *outer, *ax, *inner; /* x viewed as [outer, ax, inner]; ax = 1 per tensor */
    QParam s, z;
} QdqPlan;

static void infer_qdq(Compiler *c, Node *n, bool quantize) {
    Value *x = infer_in(c, n, 0), *sc = infer_in(c, n, 1), *zp = node_in(n, 2);
    if (quantize) {
        if (x->dtype != DT_FLOAT && x->dtype != DT_INT32)
            o2c_error(c, n, "input x has type %s; it must be float or int32", dtype_name(x->dtype));
        if (zp && !is8(zp->dtype))
            o2c_error(c, n, "zero point has type %s; it must be uint8 or int8",
                      dtype_name(zp->dtype));
    } else {
        if (!is8(x->dtype) && x->dtype != DT_INT32)
            o2c_error(c, n, "input x has type %s; it must be uint8, int8 or int32",
                      dtype_name(x->dtype));
        if (zp && zp->dtype != x->dtype)
            o2c_error(c, n, "zero point has type %s but x has type %s", dtype_name(zp->dtype),
                      dtype_name(x->dtype));
    }
    require_float(c, n, sc, "scale");
    if (zp && zp->rank < 0)
        o2c_error(c, n, "zero point has unknown rank");
    QdqPlan *p = arena_alloc(c->arena, sizeof *p);
    Sym *expect = NULL;
    int axis = -1;
    /* per axis: a 1-D scale that is not a single element (opset 13) */
    bool per_axis = sc->rank == 1 && sc->shape[0] != K(c, 1);
    if (n->opset >= 13) {
        int64_t a = attr_int(c, n, "axis", 1);
        if (per_axis) {
            if (x->rank < 1)
                o2c_error(c, n, "per-axis quantization of a scalar input");
            if (a < -x->rank || a >= x->rank)
                o2c_error(c, n, "axis %lld is out of range for input rank %d", (long long)a,
                          x->rank);
            axis = infer_axis(c, n, a, x->rank);
            expect = x->shape[axis];
        }
    }
    p->s = qparam(c, n, sc, expect, false, "scale");
    p->z = qparam(c, n, zp, expect, false, "zero point");
    if (axis >= 0) {
        p->outer = sym_prod(c->sym, x->shape, 0, axis);
        p->ax = x->shape[axis];
        p->inner = sym_prod(c->sym, x->shape, axis + 1, x->rank);
    } else {
        p->outer = K(c, 1);
        p->ax = K(c, 1);
        p->inner = sym_prod(c->sym, x->shape, 0, x->rank);
    }
    DType yt = quantize ? (zp ? zp->dtype : DT_UINT8) : DT_FLOAT;
    ir_set_shape(c, n->out[0], yt, x->rank, x->shape);
    n->priv = p;
}

void infer_quantize(Compiler *c, Node *n) { infer_qdq(c, n, true); }
void infer_dequantize(Compiler *c, Node *n) { infer_qdq(c, n, false); }

static void emit_qdq(Compiler *c, Emit *e, Node *n, bool quantize) {
    (void)c;
    QdqPlan *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    const char *ss = qp_stride(e, &p->s), *zs = qp_stride(e, &p->z);
    const char *X = emit_ptr(e, x), *Y = emit_ptr(e, y), *S = emit_ptr(e, p->s.v);
    const char *outer = emit_sym(e, p->outer), *ax = emit_sym(e, p->ax),
               *inner = emit_sym(e, p->inner);
    /* quantizing int32: the division in double, as numpy computes int32 / float32 */
    bool dbl = quantize && x->dtype == DT_INT32;
    emit_line(e, "for (int64_t o = 0; o < %s; o++)", outer);
    emit_line(e, "    for (int64_t a = 0; a < %s; a++) {", ax);
    emit_indent(e, 2);
    emit_line(e, "const float s = %s[a * %s];", S, ss);
    if (p->z.v)
        emit_line(e, "const %s z = (%s)%s[a * %s];", dbl ? "double" : "float",
                  dbl ? "double" : "float", emit_ptr(e, p->z.v), zs);
    else
        emit_line(e, "const %s z = 0;", dbl ? "double" : "float");
    emit_line(e, "const %s *xp = %s + (o * %s + a) * %s;", dtype_ctype(x->dtype), X, ax, inner);
    emit_line(e, "%s *yp = %s + (o * %s + a) * %s;", dtype_ctype(y->dtype), Y, ax, inner);
    if (quantize && !dbl && x->dtype == DT_FLOAT &&
        (y->dtype == DT_INT8 || y->dtype == DT_UINT8)) { /* templates/quant_lin.c */
        emit_line(e, "qlin_quantize_%s(xp, %s, s, z, yp);", emit_template(e, "quant_lin", y->dtype),
                  inner);
        emit_indent(e, -2);
        emit_line(e, "    }");
        return;
    }
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", inner);
    if (quantize) {
        /* saturate(v): NaN (a NaN input, a zero scale) gives 0 (templates/int_sat.c; float
         * input: int_satf.c, no double) */
        if (dbl) {
            const char *sat = emit_template(e, "int_sat", y->dtype);
            emit_line(e, "    double v = rint((double)xp[i] / (double)s) + z;");
            emit_line(e, "    yp[i] = o2c_sat_%s(v);", sat);
        } else {
            const char *sat = emit_template(e, "int_satf", y->dtype);
            emit_line(e, "    float v = nearbyintf(xp[i] / s) + z;");
            emit_line(e, "    yp[i] = o2c_satf_%s(v);", sat);
        }
    } else {
        emit_line(e, "    yp[i] = ((float)xp[i] - z) * s;");
    }
    emit_line(e, "}");
    emit_indent(e, -2);
    emit_line(e, "    }");
}

void emit_quantize(Compiler *c, Emit *e, Node *n) { emit_qdq(c, e, n, true); }
void emit_dequantize(Compiler *c, Emit *e, Node *n) { emit_qdq(c, e, n, false); }

/* ---- DynamicQuantizeLinear */

static Value *out_opt(const Node *n, int i) { return i < n->nout ? n->out[i] : NULL; }

void infer_dynquant(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0);
    if (x->dtype != DT_FLOAT)
        o2c_error(c, n, "input x has type %s; it must be float", dtype_name(x->dtype));
    if (n->nout > 3 || !n->out[0])
        o2c_error(c, n, "expected outputs y, y_scale, y_zero_point; got %d", n->nout);
    ir_set_shape(c, n->out[0], DT_UINT8, x->rank, x->shape);
    if (out_opt(n, 1))
        ir_set_shape(c, n->out[1], DT_FLOAT, 0, NULL);
    if (out_opt(n, 2))
        ir_set_shape(c, n->out[2], DT_UINT8, 0, NULL);
}

/* NaN elements are skipped by the range; an infinite one makes the scale infinite, and the
 * quantized values go through the saturating conversion (NaN gives 0: templates/int_satf.c). */
void emit_dynquant(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0];
    const char *X = emit_ptr(e, x), *len = emit_sym(e, ir_numel(c, x));
    const char *sat = emit_template(e, "int_satf", DT_UINT8);
    emit_line(e, "float lo = 0.0f, hi = 0.0f, s, zf;");
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", len);
    emit_line(e, "    lo = %s[i] < lo ? %s[i] : lo;", X, X);
    emit_line(e, "    hi = %s[i] > hi ? %s[i] : hi;", X, X);
    emit_line(e, "}");
    emit_line(e, "s = (hi - lo) / 255.0f;");
    emit_line(e, "zf = s > 0.0f ? nearbyintf(0.0f - lo / s) : 0.0f;");
    emit_line(e, "zf = (float)o2c_satf_%s(zf);", sat);
    Value *ys = out_opt(n, 1), *yz = out_opt(n, 2);
    if (ys && (ys->nuses || ys->is_output))
        emit_line(e, "%s[0] = s;", emit_ptr(e, ys));
    if (yz && (yz->nuses || yz->is_output))
        emit_line(e, "%s[0] = (uint8_t)zf;", emit_ptr(e, yz)); /* saturated above */
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", len);
    emit_line(e, "    float v = s > 0.0f ? nearbyintf(%s[i] / s) + zf : zf;", X);
    emit_line(e, "    %s[i] = o2c_satf_%s(v);", emit_ptr(e, n->out[0]), sat);
    emit_line(e, "}");
}

/* ---- MatMulInteger, QLinearMatMul */

typedef struct QmmPlan {
    bool qlinear;
    MmShape sh;
    QParam za, zb, sa, sb, sy, zy;
    QFast *fast; /* B a constant matrix and every parameter a constant: the int8 engine */
    Sym *rows;   /* fast: rows of A (its elements / K) */
    bool rt;     /* B a run-time tensor, per-tensor A parameters: the engine, B packed per call */
    Sym *kp;     /* rt: K rounded up to 16 */
} QmmPlan;

/* A per-batch parameter of operand v (rank >= 2): shaped [batch of v..., M, 1] for A (row)
 * or [batch of v..., 1, N] for B. */
static void check_batch_param(Compiler *c, Node *n, const QParam *q, Value *v, Sym *rows,
                              bool row, const char *what) {
    if (q->mode != QP_BATCH)
        return;
    Value *z = q->v;
    if (z->rank != v->rank)
        o2c_error(c, n, "%s has rank %d; it must be a scalar, 1-D, or of rank %d", what, z->rank,
                  v->rank);
    int r = z->rank;
    ir_constrain(c, n, CK_EQ, z->shape[r - 2], row ? rows : K(c, 1),
                 "%s dim %d must be %s", what, r - 2, row ? "the rows of its matrix" : "1");
    ir_constrain(c, n, CK_EQ, z->shape[r - 1], row ? K(c, 1) : rows,
                 "%s dim %d must be %s", what, r - 1, row ? "1" : "the columns of its matrix");
    for (int i = 0; i < r - 2; i++)
        ir_constrain(c, n, CK_EQ, z->shape[i], v->shape[i],
                     "%s dim %d must equal that of its matrix", what, i);
}

static void infer_qmm(Compiler *c, Node *n, bool qlinear) {
    SymCtx *s = c->sym;
    bool has_bias = qlinear && attr_int(c, n, "o2c_bias", 0) != 0;
    if (qlinear)
        infer_require_inputs(c, n, has_bias ? 9 : 8, has_bias ? 9 : 8);
    else
        infer_require_inputs(c, n, 2, 4);
    int ia = 0, ib = qlinear ? 3 : 1;
    Value *a = infer_in(c, n, ia), *b = infer_in(c, n, ib);
    if (!is8(a->dtype) || !is8(b->dtype))
        o2c_error(c, n, "inputs have types %s and %s; they must be uint8 or int8",
                  dtype_name(a->dtype), dtype_name(b->dtype));
    if (a->rank < 1 || b->rank < 1)
        o2c_error(c, n, "inputs must have rank 1 or more (ranks %d and %d)", a->rank, b->rank);
    QmmPlan *p = arena_alloc(c->arena, sizeof *p);
    p->qlinear = qlinear;
    int ra = a->rank, rb = b->rank;
    Sym *out[66];
    int r = mm_shape(c, n, a, b, &p->sh, out);
    Value *za = node_in(n, 2), *zb = node_in(n, qlinear ? 5 : 3);
    if (za && za->dtype != a->dtype)
        o2c_error(c, n, "zero point of A has type %s but A has type %s", dtype_name(za->dtype),
                  dtype_name(a->dtype));
    if (zb && zb->dtype != b->dtype)
        o2c_error(c, n, "zero point of B has type %s but B has type %s", dtype_name(zb->dtype),
                  dtype_name(b->dtype));
    p->za = qparam(c, n, za, p->sh.m, ra >= 2, "zero point of A");
    p->zb = qparam(c, n, zb, p->sh.n, rb >= 2, "zero point of B");
    check_batch_param(c, n, &p->za, a, p->sh.m, true, "zero point of A");
    check_batch_param(c, n, &p->zb, b, p->sh.n, false, "zero point of B");
    DType yt = DT_INT32;
    if (qlinear) {
        Value *sa = n->in[1], *sb = n->in[4], *sy = n->in[6], *zy = n->in[7];
        require_float(c, n, sa, "scale of A");
        require_float(c, n, sb, "scale of B");
        require_float(c, n, sy, "scale of Y");
        if (!is8(zy->dtype))
            o2c_error(c, n, "zero point of Y has type %s; it must be uint8 or int8",
                      dtype_name(zy->dtype));
        p->sa = qparam(c, n, sa, p->sh.m, ra >= 2, "scale of A");
        p->sb = qparam(c, n, sb, p->sh.n, rb >= 2, "scale of B");
        check_batch_param(c, n, &p->sa, a, p->sh.m, true, "scale of A");
        check_batch_param(c, n, &p->sb, b, p->sh.n, false, "scale of B");
        p->sy = qparam(c, n, sy, NULL, false, "scale of Y");
        p->zy = qparam(c, n, zy, NULL, false, "zero point of Y");
        yt = zy->dtype;
        if (has_bias) { /* the lowering's (o2c_bias): int32 [N], B a matrix */
            Value *bias = infer_in(c, n, 8);
            if (bias->dtype != DT_INT32 || bias->rank != 1 || rb != 2)
                o2c_error(c, n, "internal error: bias of a lowered QLinearMatMul");
            ir_constrain(c, n, CK_EQ, bias->shape[0], p->sh.n, "bias length must equal N");
        }
    }
    ir_set_shape(c, n->out[0], yt, r, out);
    int64_t kv, nv;
    bool pv = !qlinear || (p->sa.mode == QP_SCALAR && cdata(&p->sa) &&
                           (p->sb.mode == QP_SCALAR || p->sb.mode == QP_VEC) && cdata(&p->sb) &&
                           cdata(&p->sy) && cdata(&p->zy) && (!has_bias || n->in[8]->data));
    if (rb == 2 && b->data && pv && (p->za.mode == QP_NONE || p->za.mode == QP_SCALAR) &&
        cdata(&p->za) && p->zb.mode != QP_DYN && p->zb.mode != QP_BATCH && cdata(&p->zb) &&
        sym_get_const(p->sh.k, &kv) && sym_get_const(p->sh.n, &nv)) {
        p->fast = qfast_build(c, n, 1, nv, kv, b, 1, nv, false, a->dtype, za, zb, qlinear,
                              qlinear ? n->in[1] : NULL, qlinear ? n->in[4] : NULL,
                              qlinear ? n->in[6] : NULL, qlinear ? n->in[7] : NULL,
                              has_bias ? n->in[8] : NULL, yt);
        p->rows = sym_prod(c->sym, a->shape, 0, ra - 1);
        n->scratch = qi8_scratch_rows(c, p->rows, K(c, p->fast->kp));
        n->priv = p;
        return;
    }
    /* B at run time: the engine packs 16 of its columns at a time (quant_i8_rowsrt.c) when A's
     * parameters are per tensor */
    if ((p->za.mode == QP_NONE || p->za.mode == QP_SCALAR) && p->zb.mode != QP_BATCH &&
        (!qlinear || (p->sa.mode == QP_SCALAR && p->sb.mode != QP_BATCH &&
                      p->sy.mode == QP_SCALAR && p->zy.mode == QP_SCALAR && !has_bias))) {
        p->rt = true;
        p->kp = sym_mul(s, sym_floordiv(s, sym_add(s, p->sh.k, K(c, 15)), K(c, 16)), K(c, 16));
        /* colsum (8), the columns (8 Kp bytes), the block's constants (80), the block (16 Kp) */
        n->scratch = sym_add(s, K(c, 80 * 4), sym_mul(s, p->kp, K(c, 16)));
        n->scratch = sym_add(s, n->scratch, qi8_scratch_rows(c, p->sh.m, p->kp));
        n->priv = p;
        return;
    }
    /* scratch: A and B widened to int32, and the int32 product when it is requantized */
    Sym *words = sym_add(s, sym_mul(s, p->sh.m, p->sh.k), sym_mul(s, p->sh.k, p->sh.n));
    if (qlinear)
        words = sym_add(s, words, sym_mul(s, p->sh.m, p->sh.n));
    n->scratch = sym_mul(s, words, K(c, 4));
    n->priv = p;
}

void infer_matmulinteger(Compiler *c, Node *n) { infer_qmm(c, n, false); }
void infer_qlinearmatmul(Compiler *c, Node *n) { infer_qmm(c, n, true); }

/* Pointer expression of a parameter for the current batch element (row side: per-batch
 * offset of `mat` elements per matrix). */
static const char *param_ptr(Emit *e, const QmmPlan *p, const QParam *q,
                             Sym *const *dims, Sym *mat, const char *null_type) {
    if (q->mode == QP_NONE)
        return arena_printf(emit_arena(e), "(const %s *)0", null_type);
    if (q->mode != QP_BATCH || p->sh.rb == 0)
        return emit_ptr(e, q->v);
    return arena_printf(emit_arena(e), "%s + %s", emit_ptr(e, q->v),
                        emit_batch_offset(e, p->sh.rb, p->sh.batch, dims, mat));
}

static const char *param_stride(Emit *e, const QParam *q) {
    return q->mode == QP_BATCH ? "1" : qp_stride(e, q);
}

/* The loops over a product's batch dims (i0, i1, ...) and, inside them, the element offsets
 * of the current A, B and Y matrices; qmm_batch_close ends them. */
static void qmm_batch_open(Compiler *c, Emit *e, const MmShape *sh, const char **ao,
                           const char **bo, const char **yo) {
    SymCtx *s = c->sym;
    for (int d = 0; d < sh->rb; d++) {
        emit_line(e, "for (int64_t i%d = 0; i%d < %s; i%d++) {", d, d, emit_sym(e, sh->batch[d]), d);
        emit_indent(e, 1);
    }
    *ao = emit_batch_offset(e, sh->rb, sh->batch, sh->abatch, sym_mul(s, sh->m, sh->k));
    *bo = emit_batch_offset(e, sh->rb, sh->batch, sh->bbatch, sym_mul(s, sh->k, sh->n));
    *yo = emit_batch_offset(e, sh->rb, sh->batch, sh->batch, sym_mul(s, sh->m, sh->n));
}

static void qmm_batch_close(Emit *e, const MmShape *sh) {
    for (int d = 0; d < sh->rb; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}

/* The run-time operand paths' arguments.  rt_zp declares `name`: the zero point of an 8-bit
 * operand of type t as the engine takes it (flipped for uint8; absent: 0). */
static void rt_zp(Emit *e, const QParam *q, DType t, const char *name) {
    bool u8 = t == DT_UINT8;
    if (q->mode == QP_NONE)
        emit_line(e, "const int32_t %s = %d;", name, u8 ? -128 : 0);
    else
        emit_line(e, "const int32_t %s = (int32_t)%s[0]%s;", name, emit_ptr(e, q->v),
                  u8 ? " - 128" : "");
}

/* "s1[0], s2, s2_stride, sy[0], zy, lo, hi, ymode": the requantization (a QLinear op) or none
 * (ymode 2, an Integer op: no scales are read). */
static const char *rt_requant(Compiler *c, Emit *e, Node *n, bool ql, const QParam *s1,
                              const QParam *s2, const char *s2s, const QParam *sy,
                              const QParam *zy) {
    Arena *a = emit_arena(e);
    if (!ql)
        return "1.0f, (const float *)0, 0, 1.0f, 0, 0, 0, 2";
    const char *lo, *hi;
    qlinear_range(c, n, n->out[0]->dtype, &lo, &hi);
    return arena_printf(a, "%s[0], %s, %s, %s[0], (int32_t)%s[0], %s, %s, %d", emit_ptr(e, s1->v),
                        emit_ptr(e, s2->v), s2s, emit_ptr(e, sy->v), emit_ptr(e, zy->v), lo, hi,
                        n->out[0]->dtype == DT_INT8 ? 0 : 1);
}

/* A product with a run-time B by the int8 engine (templates/quant_i8_rowsrt.c), per batch
 * element. */
static void emit_qmm_rt(Compiler *c, Emit *e, Node *n) {
    QmmPlan *p = n->priv;
    bool ql = p->qlinear;
    Value *a = n->in[0], *b = n->in[ql ? 3 : 1], *y = n->out[0];
    emit_template(e, "quant_i8_rowsrt", DT_UNDEFINED);
    const char *zbs = param_stride(e, &p->zb), *sbs = "0";
    if (ql)
        sbs = param_stride(e, &p->sb);
    const char *kp = emit_sym(e, p->kp);
    /* the block's constants, the block, then the column sums and the columns */
    emit_line(e, "int32_t *const qt = (int32_t *)(void *)(ws + %s);", emit_sym(e, n->scratch_offset));
    emit_line(e, "int8_t *const qw = (int8_t *)(void *)(qt + 80);");
    emit_line(e, "int32_t *const qs = (int32_t *)(void *)(qw + 16 * %s);", kp);
    emit_line(e, "qi8_col *const qc = (qi8_col *)(void *)(qs + 8);");
    bool au8 = a->dtype == DT_UINT8;
    rt_zp(e, &p->za, a->dtype, "qza");
    const MmShape *sh = &p->sh;
    const char *ao, *bo, *yo;
    qmm_batch_open(c, e, sh, &ao, &bo, &yo);
    emit_line(e, "qi8_rows_rt(%s, %s, %s + %s, %d, qza, %s, %s + %s, %d, %s, %s, %s, %s + %s, qw, "
              "qt, qc, qs);",
              emit_sym(e, sh->m), emit_sym(e, sh->k), emit_ptr(e, a), ao, au8, emit_sym(e, sh->n),
              emit_ptr(e, b), bo, b->dtype == DT_UINT8,
              p->zb.mode == QP_NONE ? "(const void *)0" : emit_ptr(e, p->zb.v), zbs,
              rt_requant(c, e, n, ql, &p->sa, &p->sb, sbs, &p->sy, &p->zy), emit_ptr(e, y), yo);
    qmm_batch_close(e, &p->sh);
}

void emit_qmm(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    QmmPlan *p = n->priv;
    bool ql = p->qlinear;
    Value *a = n->in[0], *b = n->in[ql ? 3 : 1], *y = n->out[0];
    if (p->fast) {
        const QFast *f = p->fast;
        emit_template(e, "quant_i8_rows", DT_UNDEFINED);
        emit_line(e, "int32_t *const qs = (int32_t *)(void *)(ws + %s);",
                  emit_sym(e, n->scratch_offset));
        emit_line(e, "qi8_rows(%s, %s, %s, %d, %s, %lld, %lld, %s, %s, %s, %s, "
                  "(qi8_col *)(void *)(qs + 8), qs);",
                  emit_sym(e, p->rows), emit_sym(e, p->sh.k), emit_ptr(e, a),
                  a->dtype == DT_UINT8, emit_sym(e, p->sh.n), (long long)f->kp,
                  (long long)f->mb, emit_ptr(e, f->wpk), qf_args(e, f), emit_ptr(e, y),
                  emit_sym(e, p->sh.n));
        return;
    }
    if (p->rt) {
        emit_qmm_rt(c, e, n);
        return;
    }
    emit_template(e, "quant_widen", DT_UNDEFINED);
    emit_template(e, "quant_mm", DT_UNDEFINED);
    if (ql)
        emit_template(e, "quant_requant", DT_UNDEFINED);
    const char *M = emit_sym(e, p->sh.m), *N = emit_sym(e, p->sh.n), *Kd = emit_sym(e, p->sh.k);
    const char *zas = param_stride(e, &p->za), *zbs = param_stride(e, &p->zb);
    const char *sas = "0", *sbs = "0";
    if (ql) {
        sas = param_stride(e, &p->sa);
        sbs = param_stride(e, &p->sb);
        qp_stride(e, &p->sy);
        qp_stride(e, &p->zy);
    }
    emit_line(e, "int32_t *const qa = (int32_t *)(void *)(ws + %s);",
              emit_sym(e, n->scratch_offset));
    emit_line(e, "int32_t *const qb = qa + %s;", emit_sym(e, sym_mul(s, p->sh.m, p->sh.k)));
    if (ql)
        emit_line(e, "int32_t *const qy = qb + %s;", emit_sym(e, sym_mul(s, p->sh.k, p->sh.n)));
    const MmShape *sh = &p->sh;
    const char *ao, *bo, *yo;
    qmm_batch_open(c, e, sh, &ao, &bo, &yo);
    emit_line(e, "quant_widen(%s, %s, %s + %s, %s, %s, %s, %s, 0, qa);", M, Kd, emit_ptr(e, a), ao,
              s8flag(a->dtype), param_ptr(e, p, &p->za, p->sh.abatch, p->sh.m, "uint8_t"),
              s8flag(a->dtype), zas);
    emit_line(e, "quant_widen(%s, %s, %s + %s, %s, %s, %s, 0, %s, qb);", Kd, N, emit_ptr(e, b), bo,
              s8flag(b->dtype), param_ptr(e, p, &p->zb, p->sh.bbatch, p->sh.n, "uint8_t"),
              s8flag(b->dtype), zbs);
    if (!ql) {
        emit_line(e, "quant_mm(%s, %s, %s, qa, qb, %s + %s);", M, N, Kd, emit_ptr(e, y), yo);
    } else {
        emit_line(e, "quant_mm(%s, %s, %s, qa, qb, qy);", M, N, Kd);
        const char *lo, *hi;
        qlinear_range(c, n, y->dtype, &lo, &hi);
        Value *bias = node_in(n, 8);
        emit_line(e, "quant_requant(%s, %s, qy, %s, 0, 1, %s, %s, 0, %s, 0, %s, %s[0], "
                  "(int32_t)%s[0], %s, %s, %s, %s + %s);",
                  M, N, bias ? emit_ptr(e, bias) : "(const int32_t *)0",
                  param_ptr(e, p, &p->sa, p->sh.abatch, p->sh.m, "float"), sas,
                  param_ptr(e, p, &p->sb, p->sh.bbatch, p->sh.n, "float"), sbs,
                  emit_ptr(e, p->sy.v), emit_ptr(e, p->zy.v), s8flag(y->dtype), lo, hi,
                  emit_ptr(e, y), yo);
    }
    qmm_batch_close(e, &p->sh);
}

/* ---- ConvInteger, QLinearConv */


typedef struct QconvPlan {
    bool qlinear;
    int ix, iw, ib; /* input indices of x, w and the bias (-1: none) */
    /* spatial sizes normalised to 3-D: input, output, kernel, stride, dilation, pad_begin */
    Sym *in[3], *out[3], *k[3], *stride[3], *dil[3], *pad[3];
    Sym *group, *cg, *mg, *m, *c, *isp, *osp, *rows;
    QParam zx, zw, sx, sw, sy, zy;
    QFast *fast; /* a constant weight and every parameter a constant: the int8 engine */
    int slots;   /* fast or rt: scratch slots, one per thread the engine may run */
    bool rt;     /* a run-time weight, per-tensor x parameters: the engine, packed per run */
    Sym *kp;     /* rt: K rounded up to 16 */
} QconvPlan;

/* The weight of a convolution packed for templates/quant_i8_convx.c (one group, up to two
 * spatial axes, a weight without zero points, an 8-bit output; not with --memory-first, whose
 * scratch stays a tile): wx[((b T + t) CQ + cq) 64 + 4 i + j] = W[16 b + i][4 cq + j][t]
 * (T taps, CQ channel quads).  Returns the scratch that path needs (NULL: not this path). */
typedef struct QconvxJob {
    const uint8_t *wb;
    int64_t m, cin, nt, cq;
    bool w_s8;
} QconvxJob;

static void qconvx_fill(const void *arg, void *dst) {
    const QconvxJob *j = arg;
    int8_t *pk = dst;
    for (int64_t o = 0; o < j->m; o++)
        for (int64_t ci = 0; ci < j->cin; ci++)
            for (int64_t t = 0; t < j->nt; t++) {
                uint8_t byte = j->wb[(o * j->cin + ci) * j->nt + t];
                pk[((o / 16 * j->nt + t) * j->cq + ci / 4) * 64 + o % 16 * 4 + ci % 4] =
                    (int8_t)(j->w_s8 ? byte : (uint8_t)(byte ^ 0x80));
            }
}

static Sym *qconvx_build(Compiler *c, Node *n, QconvPlan *p, const Value *w) {
    SymCtx *s = c->sym;
    QFast *f = p->fast;
    int64_t g, k0, i0, o0, k1, k2, s1, s2, d1, d2, m, cin;
    if (c->opt->memory_first || f->dw || f->zw || f->ymode == 2 ||
        !sym_get_const(p->group, &g) || g != 1 || !sym_get_const(p->k[0], &k0) || k0 != 1 ||
        !sym_get_const(p->in[0], &i0) || i0 != 1 || !sym_get_const(p->out[0], &o0) || o0 != 1 ||
        !sym_get_const(p->k[1], &k1) || !sym_get_const(p->k[2], &k2) ||
        !sym_get_const(p->stride[1], &s1) || !sym_get_const(p->stride[2], &s2) ||
        !sym_get_const(p->dil[1], &d1) || !sym_get_const(p->dil[2], &d2) ||
        !sym_get_const(p->m, &m) || !sym_get_const(p->cg, &cin) || k1 * k2 > 128)
        return NULL; /* (128: the kernel's table of taps, QX_TAPS) */
    int64_t nt = k1 * k2, cq = (cin + 3) / 4, nb = (m + 15) / 16, count = nb * nt * cq * 64;
    QconvxJob *job = arena_alloc(c->arena, sizeof *job);
    *job = (QconvxJob){w->data, m, cin, nt, cq, w->dtype == DT_INT8};
    const char *stem = n->name && n->name[0] ? n->name : n->op_type;
    f->wx = gp_lazy1(c, stem, DT_INT8, count, qconvx_fill, job);
    f->wx->pp_if = "QI8_CONVX";
    f->wpk->pp_if = "!QI8_CONVX";
    f->cb->pp_if = "!QI8_CONVX"; /* (qi8_convx reads cbu) */
    /* qi8_xbuf: 4 (CQ S1 S2 H W + 48 + W), H = O1 + (K1 - 1) D1 / S1, W likewise */
    Sym *hh = sym_add(s, p->out[1], K(c, (k1 - 1) * d1 / s1));
    Sym *ww = sym_add(s, p->out[2], K(c, (k2 - 1) * d2 / s2));
    Sym *planes = sym_mul(s, K(c, cq * s1 * s2), sym_mul(s, hh, ww));
    return sym_mul(s, K(c, 4), sym_add(s, planes, sym_add(s, ww, K(c, 48))));
}

static void infer_qconv(Compiler *c, Node *n, bool qlinear) {
    SymCtx *s = c->sym;
    QconvPlan *p = arena_alloc(c->arena, sizeof *p);
    p->qlinear = qlinear;
    if (qlinear) {
        infer_require_inputs(c, n, 8, 9);
        p->ix = 0, p->iw = 3, p->ib = node_in(n, 8) ? 8 : -1;
    } else {
        infer_require_inputs(c, n, 2, 4);
        p->ix = 0, p->iw = 1, p->ib = -1;
    }
    Value *x = infer_in(c, n, p->ix), *w = infer_in(c, n, p->iw);
    if (!is8(x->dtype) || !is8(w->dtype))
        o2c_error(c, n, "x and w have types %s and %s; they must be uint8 or int8",
                  dtype_name(x->dtype), dtype_name(w->dtype));
    if (w->rank != x->rank)
        o2c_error(c, n, "weight rank %d does not match input rank %d", w->rank, x->rank);
    if (x->rank < 3 || x->rank > 5)
        o2c_error(c, n, "input rank %d is not supported (1 to 3 spatial axes)", x->rank);
    int sp = x->rank - 2, off = 3 - sp;
    int64_t stride[3], dil[3], pads[6], group;
    int mode = attr_conv(c, n, sp, stride, dil, pads, &group);
    p->group = K(c, group);
    int64_t kv[3];
    bool nk = node_attr(n, "kernel_shape") != NULL;
    attr_ints_n(c, n, "kernel_shape", sp, 1, 1, kv);
    for (int i = 0; i < 3; i++) {
        p->in[i] = p->k[i] = p->stride[i] = p->dil[i] = p->out[i] = K(c, 1);
        p->pad[i] = K(c, 0);
    }
    for (int i = 0; i < sp; i++) {
        int a = off + i;
        p->in[a] = x->shape[2 + i];
        p->k[a] = w->shape[2 + i];
        p->stride[a] = K(c, stride[i]);
        p->dil[a] = K(c, dil[i]);
        if (nk) {
            ir_constrain(c, n, CK_EQ, K(c, kv[i]), w->shape[2 + i],
                         "kernel_shape[%d] must equal the weight's spatial dim %d", i, i);
            p->k[a] = K(c, kv[i]);
        }
        Sym *span = sym_add(s, sym_mul(s, p->dil[a], sym_sub(s, p->k[a], K(c, 1))), K(c, 1));
        if (mode == AUTO_PAD_SAME_UPPER || mode == AUTO_PAD_SAME_LOWER) {
            p->out[a] = sym_ceildiv(s, p->in[a], p->stride[a]);
            Sym *need = sym_add(s, sym_mul(s, sym_sub(s, p->out[a], K(c, 1)), p->stride[a]), span);
            Sym *total = sym_max(s, K(c, 0), sym_sub(s, need, p->in[a]));
            Sym *half = sym_floordiv(s, total, K(c, 2));
            p->pad[a] = mode == AUTO_PAD_SAME_UPPER ? half : sym_sub(s, total, half);
            ir_constrain(c, n, CK_LE, K(c, 1), p->k[a], "kernel dim %d must be positive", i);
        } else {
            Sym *padded = sym_add(s, p->in[a], sym_add(s, K(c, pads[i]), K(c, pads[sp + i])));
            ir_constrain(c, n, CK_LE, span, padded,
                         "kernel (dilated) must fit in the padded input along spatial axis %d", i);
            p->out[a] =
                sym_add(s, sym_floordiv(s, sym_sub(s, padded, span), p->stride[a]), K(c, 1));
            p->pad[a] = K(c, pads[i]);
        }
    }
    p->m = w->shape[0];
    p->c = x->shape[1];
    p->cg = w->shape[1];
    ir_constrain(c, n, CK_EQ, x->shape[1], sym_mul(s, p->cg, p->group),
                 "input channels must equal weight channels (dim 1) times group");
    ir_constrain(c, n, CK_DIVIDES, p->group, p->m, "group must divide the output channels");
    p->mg = sym_floordiv(s, p->m, p->group);
    p->isp = sym_mul(s, sym_mul(s, p->in[0], p->in[1]), p->in[2]);
    p->osp = sym_mul(s, sym_mul(s, p->out[0], p->out[1]), p->out[2]);
    p->rows = sym_mul(s, p->cg, sym_mul(s, sym_mul(s, p->k[0], p->k[1]), p->k[2]));
    Value *zx = node_in(n, 2), *zw = node_in(n, qlinear ? 5 : 3);
    if (zx && zx->dtype != x->dtype)
        o2c_error(c, n, "zero point of x has type %s but x has type %s", dtype_name(zx->dtype),
                  dtype_name(x->dtype));
    if (zw && zw->dtype != w->dtype)
        o2c_error(c, n, "zero point of w has type %s but w has type %s", dtype_name(zw->dtype),
                  dtype_name(w->dtype));
    p->zx = qparam(c, n, zx, NULL, false, "zero point of x");
    p->zw = qparam(c, n, zw, p->m, false, "zero point of w");
    DType yt = DT_INT32;
    if (qlinear) {
        Value *sx = n->in[1], *sw = n->in[4], *sy = n->in[6], *zy = n->in[7];
        require_float(c, n, sx, "scale of x");
        require_float(c, n, sw, "scale of w");
        require_float(c, n, sy, "scale of y");
        if (!is8(zy->dtype))
            o2c_error(c, n, "zero point of y has type %s; it must be uint8 or int8",
                      dtype_name(zy->dtype));
        p->sx = qparam(c, n, sx, NULL, false, "scale of x");
        p->sw = qparam(c, n, sw, p->m, false, "scale of w");
        p->sy = qparam(c, n, sy, NULL, false, "scale of y");
        p->zy = qparam(c, n, zy, NULL, false, "zero point of y");
        if (p->ib >= 0) {
            Value *bias = infer_in(c, n, p->ib);
            if (bias->dtype != DT_INT32)
                o2c_error(c, n, "bias has type %s; it must be int32", dtype_name(bias->dtype));
            if (bias->rank != 1)
                o2c_error(c, n, "bias has rank %d, expected 1", bias->rank);
            ir_constrain(c, n, CK_EQ, bias->shape[0], p->m, "bias length must equal the output channels");
        }
        yt = zy->dtype;
    }
    Sym *shape[5] = {x->shape[0], p->m};
    for (int i = 0; i < sp; i++)
        shape[2 + i] = p->out[off + i];
    ir_set_shape(c, n->out[0], yt, x->rank, shape);
    int64_t gv, mv, cgv, rowsv;
    bool pv = !qlinear || (p->sx.mode == QP_SCALAR && cdata(&p->sx) &&
                           (p->sw.mode == QP_SCALAR || p->sw.mode == QP_VEC) && cdata(&p->sw) &&
                           cdata(&p->sy) && cdata(&p->zy) && (p->ib < 0 || n->in[p->ib]->data));
    if (w->data && pv && (p->zx.mode == QP_NONE || p->zx.mode == QP_SCALAR) && cdata(&p->zx) &&
        (p->zw.mode == QP_NONE || p->zw.mode == QP_SCALAR || p->zw.mode == QP_VEC) &&
        cdata(&p->zw) && sym_get_const(p->group, &gv) && sym_get_const(p->m, &mv) &&
        sym_get_const(p->cg, &cgv) && sym_get_const(p->rows, &rowsv)) {
        bool dw = cgv == 1 && mv == gv;
        p->fast = qfast_build(c, n, gv, mv, rowsv, w, rowsv, 1, dw, x->dtype, zx, zw, qlinear,
                              qlinear ? n->in[1] : NULL, qlinear ? n->in[4] : NULL,
                              qlinear ? n->in[6] : NULL, qlinear ? n->in[7] : NULL,
                              p->ib >= 0 ? n->in[p->ib] : NULL, yt);
        /* a slot per thread (OpenMP; one with --memory-first); depthwise: the padded plane of
         * one channel (a 1-D or 2-D convolution whose weight has no zero point) */
        p->slots = c->opt->memory_first ? 1 : QI8_THREADS;
        n->scratch = K(c, p->slots * QI8_SLOT(p->fast->kp));
        Sym *xs = qconvx_build(c, n, p, w);
        if (xs)
            n->scratch = sym_max(s, n->scratch, xs);
        if (dw) {
            int64_t k0, i0, o0;
            bool plane = sym_get_const(p->k[0], &k0) && k0 == 1 && sym_get_const(p->in[0], &i0) &&
                         i0 == 1 && sym_get_const(p->out[0], &o0) && o0 == 1 && !p->fast->zw;
            n->scratch = K(c, 0);
            if (plane) {
                Sym *rows = sym_add(s, sym_add(s, sym_mul(s, sym_sub(s, p->out[1], K(c, 1)), p->stride[1]),
                                               sym_mul(s, sym_sub(s, p->k[1], K(c, 1)), p->dil[1])),
                                    K(c, 1));
                Sym *cols = sym_add(s, sym_add(s, sym_mul(s, sym_sub(s, p->out[2], K(c, 1)), p->stride[2]),
                                               sym_mul(s, sym_sub(s, p->k[2], K(c, 1)), p->dil[2])),
                                    K(c, 1));
                /* one plane (rounded up to 64 bytes) per slot */
                n->scratch = sym_mul(s, K(c, p->slots),
                                     sym_mul(s, sym_floordiv(s, sym_add(s, sym_mul(s, rows, cols),
                                                                        K(c, 63)),
                                                             K(c, 64)),
                                             K(c, 64)));
            }
        }
        n->priv = p;
        return;
    }
    /* a run-time weight: the engine packs it on every run (quant_i8_convrt.c) when x's
     * parameters are per tensor */
    if ((p->zx.mode == QP_NONE || p->zx.mode == QP_SCALAR) &&
        (!qlinear || (p->sx.mode == QP_SCALAR && p->sy.mode == QP_SCALAR &&
                      p->zy.mode == QP_SCALAR))) {
        p->rt = true;
        p->slots = c->opt->memory_first ? 1 : QI8_THREADS;
        p->kp = sym_mul(s, sym_floordiv(s, sym_add(s, p->rows, K(c, 15)), K(c, 16)), K(c, 16));
        Sym *mgp = sym_mul(s, sym_floordiv(s, sym_add(s, p->mg, K(c, 15)), K(c, 16)), K(c, 16));
        Sym *slot = sym_mul(s, sym_floordiv(s, sym_add(s, sym_mul(s, p->kp, K(c, 8)), K(c, 32 + 63)),
                                            K(c, 64)), K(c, 64));
        /* the slots, the packed weight, the per-output constants */
        n->scratch = sym_add(s, sym_mul(s, K(c, p->slots), slot),
                             sym_add(s, sym_mul(s, sym_mul(s, p->group, mgp), p->kp),
                                     sym_mul(s, p->m, K(c, 5 * 4))));
        n->priv = p;
        return;
    }
    /* scratch: one image of x and all of w widened to int32, the int32 sums when requantized */
    Sym *words = sym_add(s, sym_mul(s, p->c, p->isp), sym_mul(s, p->m, p->rows));
    if (qlinear)
        words = sym_add(s, words, sym_mul(s, p->m, p->osp));
    n->scratch = sym_mul(s, words, K(c, 4));
    n->priv = p;
}

void infer_convinteger(Compiler *c, Node *n) { infer_qconv(c, n, false); }
void infer_qlinearconv(Compiler *c, Node *n) { infer_qconv(c, n, true); }

static const char *qp_ptr(Emit *e, const QParam *q, const char *null_type) {
    if (q->mode == QP_NONE)
        return arena_printf(emit_arena(e), "(const %s *)0", null_type);
    return emit_ptr(e, q->v);
}

/* A convolution with a run-time weight by the int8 engine (templates/quant_i8_convrt.c). */
static void emit_qconv_rt(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    QconvPlan *p = n->priv;
    bool ql = p->qlinear;
    Value *x = n->in[p->ix], *w = n->in[p->iw], *y = n->out[0];
    emit_template(e, "quant_i8_convrt", DT_UNDEFINED);
    const char *zws = qp_stride(e, &p->zw), *sws = "0";
    if (ql)
        sws = qp_stride(e, &p->sw);
    const char *in = emit_sym_array(e, "qc_in", 3, p->in), *out = emit_sym_array(e, "qc_out", 3, p->out);
    const char *k = emit_sym_array(e, "qc_k", 3, p->k), *st = emit_sym_array(e, "qc_stride", 3, p->stride);
    const char *dl = emit_sym_array(e, "qc_dil", 3, p->dil), *pd = emit_sym_array(e, "qc_pad", 3, p->pad);
    Sym *mgp = sym_mul(s, sym_floordiv(s, sym_add(s, p->mg, K(c, 15)), K(c, 16)), K(c, 16));
    Sym *slot = sym_mul(s, sym_floordiv(s, sym_add(s, sym_mul(s, p->kp, K(c, 8)), K(c, 32 + 63)),
                                        K(c, 64)), K(c, 64));
    emit_line(e, "char *const qsl = (char *)(ws + %s);", emit_sym(e, n->scratch_offset));
    emit_line(e, "int8_t *const qwp = (int8_t *)(void *)(qsl + %s);",
              emit_sym(e, sym_mul(s, K(c, p->slots), slot)));
    emit_line(e, "int32_t *const qtab = (int32_t *)(void *)(qwp + %s);",
              emit_sym(e, sym_mul(s, sym_mul(s, p->group, mgp), p->kp)));
    rt_zp(e, &p->zx, x->dtype, "qzx");
    emit_line(e, "qi8_conv_rt(%s, %d, qzx, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, "
              "%s, %s, %s, %s, %s, %s, qwp, qtab, qsl, %d, %s);",
              emit_ptr(e, x), x->dtype == DT_UINT8, emit_sym(e, x->shape[0]),
              emit_sym(e, sym_mul(s, p->c, p->isp)), emit_sym(e, p->group), emit_sym(e, p->cg),
              emit_sym(e, p->mg), in, out, k, st, dl, pd, emit_ptr(e, w), w->dtype == DT_UINT8,
              p->zw.mode == QP_NONE ? "(const void *)0" : emit_ptr(e, p->zw.v), zws,
              p->ib >= 0 ? emit_ptr(e, n->in[p->ib]) : "(const int32_t *)0", emit_sym(e, p->kp),
              rt_requant(c, e, n, ql, &p->sx, &p->sw, sws, &p->sy, &p->zy), emit_ptr(e, y),
              emit_sym(e, sym_mul(s, p->m, p->osp)), p->slots, emit_sym(e, slot));
}

void emit_qconv(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    QconvPlan *p = n->priv;
    bool ql = p->qlinear;
    Value *x = n->in[p->ix], *w = n->in[p->iw], *y = n->out[0];
    if (p->fast) {
        const QFast *f = p->fast;
        emit_template(e, f->dw ? "quant_i8_dw" : "quant_i8_conv", DT_UNDEFINED);
        if (f->wx)
            emit_template(e, "quant_i8_convx", DT_UNDEFINED);
        const char *in = emit_sym_array(e, "qc_in", 3, p->in), *out = emit_sym_array(e, "qc_out", 3, p->out);
        const char *k = emit_sym_array(e, "qc_k", 3, p->k), *st = emit_sym_array(e, "qc_stride", 3, p->stride);
        const char *dl = emit_sym_array(e, "qc_dil", 3, p->dil), *pd = emit_sym_array(e, "qc_pad", 3, p->pad);
        const char *cisp = emit_sym(e, sym_mul(s, p->c, p->isp));
        const char *mosp = emit_sym(e, sym_mul(s, p->m, p->osp));
        int64_t zero = -1;
        bool plane = f->dw && !(sym_get_const(n->scratch, &zero) && zero == 0);
        if (!f->dw)
            emit_line(e, "int32_t *const qs = (int32_t *)(void *)(ws + %s);",
                      emit_sym(e, n->scratch_offset));
        emit_line(e, "for (int64_t nb = 0; nb < %s; nb++)", emit_sym(e, x->shape[0]));
        if (f->dw)
            emit_line(e, "    qi8_dw(%s + nb * %s, %d, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                      "nb * %s, %s);",
                      emit_ptr(e, x), cisp, x->dtype == DT_UINT8, (int)f->zx, emit_sym(e, p->m),
                      in, out, k, st, dl, pd, emit_ptr(e, f->wpk), qf_args(e, f), emit_ptr(e, y),
                      mosp, plane ? arena_printf(emit_arena(e), "(int8_t *)(ws + %s), %d",
                                                  emit_sym(e, n->scratch_offset), p->slots)
                                  : "(int8_t *)0, 1");
        else {
            if (f->wx)
                emit_raw(e, "#if !QI8_CONVX\n");
            emit_line(e, "    qi8_conv(%s + nb * %s, %d, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                      "%lld, %lld, %s, %s, %s, nb * %s, qs, %d, %lld);",
                      emit_ptr(e, x), cisp, x->dtype == DT_UINT8, (int)f->zx,
                      emit_sym(e, p->group), emit_sym(e, p->cg), emit_sym(e, p->mg), in, out, k,
                      st, dl, pd, (long long)f->kp, (long long)f->mb, emit_ptr(e, f->wpk),
                      qf_args(e, f), emit_ptr(e, y), mosp, p->slots,
                      (long long)QI8_SLOT(f->kp));
            if (f->wx) {
                emit_raw(e, "#else\n");
                emit_line(e, "    qi8_convx(%s + nb * %s, %d, %d, %s, %s, %s, %s, %s, %s, %s, %s, "
                          "%s, %s, %s, %s, %d, %d, %d, %d, %s, nb * %s, qs, %d);",
                          emit_ptr(e, x), cisp, x->dtype == DT_UINT8, (int)f->zx,
                          emit_sym(e, p->cg), emit_sym(e, p->m), in, out, k, st, dl, pd,
                          emit_ptr(e, f->wx), emit_ptr(e, f->cbu), emit_ptr(e, f->mant),
                          emit_ptr(e, f->sh), (int)f->zy, (int)f->lo, (int)f->hi, f->ymode,
                          emit_ptr(e, y), mosp, p->slots);
                emit_raw(e, "#endif\n");
            }
        }
        return;
    }
    if (p->rt) {
        emit_qconv_rt(c, e, n);
        return;
    }
    emit_template(e, "quant_widen", DT_UNDEFINED);
    emit_template(e, "quant_conv", DT_UNDEFINED);
    if (ql)
        emit_template(e, "quant_requant", DT_UNDEFINED);
    const char *zxs = qp_stride(e, &p->zx), *zws = qp_stride(e, &p->zw);
    (void)zxs;
    const char *sws = "0";
    if (ql) {
        qp_stride(e, &p->sx);
        sws = qp_stride(e, &p->sw);
        qp_stride(e, &p->sy);
        qp_stride(e, &p->zy);
    }
    const char *M = emit_sym(e, p->m), *cisp = emit_sym(e, sym_mul(s, p->c, p->isp));
    const char *mosp = emit_sym(e, sym_mul(s, p->m, p->osp));
    const char *in = emit_sym_array(e, "qc_in", 3, p->in), *out = emit_sym_array(e, "qc_out", 3, p->out);
    const char *k = emit_sym_array(e, "qc_k", 3, p->k), *st = emit_sym_array(e, "qc_stride", 3, p->stride);
    const char *dl = emit_sym_array(e, "qc_dil", 3, p->dil), *pd = emit_sym_array(e, "qc_pad", 3, p->pad);
    emit_line(e, "int32_t *const qx = (int32_t *)(void *)(ws + %s);",
              emit_sym(e, n->scratch_offset));
    emit_line(e, "int32_t *const qw = qx + %s;", cisp);
    if (ql)
        emit_line(e, "int32_t *const qy = qw + %s;", emit_sym(e, sym_mul(s, p->m, p->rows)));
    emit_line(e, "quant_widen(%s, %s, %s, %s, %s, %s, %s, 0, qw);", M, emit_sym(e, p->rows),
              emit_ptr(e, w), s8flag(w->dtype), qp_ptr(e, &p->zw, "uint8_t"), s8flag(w->dtype),
              zws);
    emit_line(e, "for (int64_t nb = 0; nb < %s; nb++) {", emit_sym(e, x->shape[0]));
    emit_indent(e, 1);
    emit_line(e, "quant_widen(1, %s, %s + nb * %s, %s, %s, %s, 0, 0, qx);", cisp, emit_ptr(e, x),
              cisp, s8flag(x->dtype), qp_ptr(e, &p->zx, "uint8_t"), s8flag(x->dtype));
    const char *dst = ql ? "qy" : arena_printf(emit_arena(e), "%s + nb * %s", emit_ptr(e, y), mosp);
    emit_line(e, "quant_conv(qx, qw, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s);", dst,
              emit_sym(e, p->group), emit_sym(e, p->cg), emit_sym(e, p->mg), in, out, k, st, dl,
              pd);
    if (ql) {
        const char *lo, *hi;
        qlinear_range(c, n, y->dtype, &lo, &hi);
        emit_line(e, "quant_requant(%s, %s, qy, %s, 1, 0, %s, 0, 0, %s, %s, 0, %s[0], "
                  "(int32_t)%s[0], %s, %s, %s, %s + nb * %s);",
                  M, emit_sym(e, p->osp),
                  p->ib >= 0 ? emit_ptr(e, n->in[p->ib]) : "(const int32_t *)0",
                  emit_ptr(e, p->sx.v), emit_ptr(e, p->sw.v), sws, emit_ptr(e, p->sy.v),
                  emit_ptr(e, p->zy.v), s8flag(y->dtype), lo, hi, emit_ptr(e, y), mosp);
    }
    emit_indent(e, -1);
    emit_line(e, "}");
}
