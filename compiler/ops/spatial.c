/* spatial.c — op family: sampling and scattering over the spatial axes of [N, C, H, W, ...].
 *
 * ONNX: GridSample (opset 16), RoiAlign (opset 10, 16), MaxUnpool (opset 9, 11).
 *   GridSample  x [N, C, H, W], grid [N, Ho, Wo, 2]  ->  y [N, C, Ho, Wo]
 *   RoiAlign    x [N, C, H, W], rois [R, 4], batch_indices [R]  ->  y [R, C, oh, ow]
 *   MaxUnpool   x [N, C, D1..Dk], indices like x  ->  y [N, C, (Di - 1) * stride_i - pad_begin_i
 *               - pad_end_i + kernel_i], or the output_shape input: it must be known at compile
 *               time, or the model must declare y's shape (then it is checked at run time).
 * The kernels (templates/spatial_*.c) take sizes as int64_t arguments; semantics are described
 * there.  Only float and double tensors are supported.  Index data that names nothing (a
 * RoiAlign batch index outside [0, N), a MaxUnpool index outside the unpooled tensor) makes
 * NAME_run return O2C_RUN_EINDEX before the node writes anything: ONNX defines no result for
 * it (onnxruntime rejects such a batch index too).  GridSample's coordinates are floats: any
 * value (NaN, infinities, huge ones) reads inside x or gives the padding. */
#include "onnx2c.h"
#include <string.h>

static Sym *K(Compiler *c, int64_t v) { return sym_const(c->sym, v); }

static void one_output(Compiler *c, Node *n) {
    if (n->nout != 1 || !n->out[0])
        o2c_error(c, n, "expected exactly one output");
}

static void float_input(Compiler *c, Node *n, Value *v, const char *what) {
    if (v->dtype != DT_FLOAT && v->dtype != DT_DOUBLE)
        o2c_error(c, n, "%s type %s is not supported (float or double)", what,
                  dtype_name(v->dtype));
}

/* A string attribute that must be one of names[0..count); returns its index. */
static int pick(Compiler *c, Node *n, const char *attr, const char *def, const char *const *names,
                int count) {
    const char *s = attr_str(c, n, attr, def);
    for (int i = 0; i < count; i++)
        if (!strcmp(s, names[i]))
            return i;
    o2c_error(c, n, "%s '%s' is not supported", attr, s);
}

/* dim a of v must equal want (a compile-time error when both are constants). */
static void same_dim(Compiler *c, Node *n, Sym *a, Sym *b, const char *what) {
    int64_t x, y;
    if (sym_get_const(a, &x) && sym_get_const(b, &y) && x != y)
        o2c_error(c, n, "%s: %lld vs %lld", what, (long long)x, (long long)y);
    ir_constrain(c, n, CK_EQ, a, b, "%s", what);
}

/* ---- GridSample (opset 16) */

typedef struct GridSample {
    int mode, pad, align;
} GridSample;

void infer_gridsample(Compiler *c, Node *n) {
    static const char *const modes[] = {"bilinear", "nearest", "bicubic"};
    static const char *const pads[] = {"zeros", "border", "reflection"};
    one_output(c, n);
    Value *x = infer_in(c, n, 0), *g = infer_in(c, n, 1);
    float_input(c, n, x, "input");
    if (g->dtype != x->dtype)
        o2c_error(c, n, "grid type %s differs from input type %s", dtype_name(g->dtype),
                  dtype_name(x->dtype));
    if (x->rank != 4)
        o2c_error(c, n, "input rank %d: only 4-D inputs [N, C, H, W] are supported", x->rank);
    if (g->rank != 4)
        o2c_error(c, n, "grid rank %d: expected [N, H_out, W_out, 2]", g->rank);
    same_dim(c, n, g->shape[3], K(c, 2), "the last dim of grid must be 2");
    same_dim(c, n, g->shape[0], x->shape[0], "grid and input batch sizes differ");
    GridSample *p = arena_alloc(c->arena, sizeof *p);
    p->mode = pick(c, n, "mode", "bilinear", modes, 3);
    p->pad = pick(c, n, "padding_mode", "zeros", pads, 3);
    int64_t al = attr_int(c, n, "align_corners", 0);
    if (al != 0 && al != 1)
        o2c_error(c, n, "align_corners = %lld: must be 0 or 1", (long long)al);
    p->align = (int)al;
    Sym *shape[4] = {x->shape[0], x->shape[1], g->shape[1], g->shape[2]};
    ir_set_shape(c, n->out[0], x->dtype, 4, shape);
    n->priv = p;
}

void emit_gridsample(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const GridSample *p = n->priv;
    Value *x = n->in[0], *g = n->in[1];
    const char *sfx = emit_template(e, "spatial_gridsample", x->dtype);
    emit_line(e, "gridsample_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %d, %d);", sfx,
              emit_ptr(e, x), emit_ptr(e, g), emit_ptr(e, n->out[0]), emit_sym(e, x->shape[0]),
              emit_sym(e, x->shape[1]), emit_sym(e, x->shape[2]), emit_sym(e, x->shape[3]),
              emit_sym(e, g->shape[1]), emit_sym(e, g->shape[2]), p->mode, p->pad, p->align);
}

/* ---- RoiAlign (opset 10, 16; opset 10 has no coordinate_transformation_mode and no pixel
 * shift, like output_half_pixel) */

typedef struct RoiAlign {
    int64_t oh, ow, ratio;
    double scale;
    int half_pixel, maxmode;
} RoiAlign;

void infer_roialign(Compiler *c, Node *n) {
    static const char *const modes[] = {"avg", "max"};
    static const char *const ctms[] = {"output_half_pixel", "half_pixel"};
    one_output(c, n);
    Value *x = infer_in(c, n, 0), *rois = infer_in(c, n, 1), *bi = infer_in(c, n, 2);
    float_input(c, n, x, "input");
    if (rois->dtype != x->dtype)
        o2c_error(c, n, "rois type %s differs from input type %s", dtype_name(rois->dtype),
                  dtype_name(x->dtype));
    if (bi->dtype != DT_INT64)
        o2c_error(c, n, "batch_indices type %s: expected int64", dtype_name(bi->dtype));
    if (x->rank != 4)
        o2c_error(c, n, "input rank %d: expected [N, C, H, W]", x->rank);
    if (rois->rank != 2 || bi->rank != 1)
        o2c_error(c, n, "rois must be [num_rois, 4] and batch_indices [num_rois]");
    same_dim(c, n, rois->shape[1], K(c, 4), "rois must have 4 columns");
    same_dim(c, n, bi->shape[0], rois->shape[0], "batch_indices and rois lengths differ");
    RoiAlign *p = arena_alloc(c->arena, sizeof *p);
    p->oh = attr_int(c, n, "output_height", 1);
    p->ow = attr_int(c, n, "output_width", 1);
    p->ratio = attr_int(c, n, "sampling_ratio", 0);
    p->scale = attr_float(c, n, "spatial_scale", 1.0f);
    if (p->oh < 1 || p->ow < 1)
        o2c_error(c, n, "output_height and output_width must be >= 1");
    if (p->ratio < 0)
        o2c_error(c, n, "sampling_ratio = %lld: must be >= 0", (long long)p->ratio);
    p->maxmode = pick(c, n, "mode", "avg", modes, 2);
    p->half_pixel =
        n->opset >= 16 ? pick(c, n, "coordinate_transformation_mode", "half_pixel", ctms, 2) : 0;
    Sym *shape[4] = {rois->shape[0], x->shape[1], K(c, p->oh), K(c, p->ow)};
    ir_set_shape(c, n->out[0], x->dtype, 4, shape);
    n->priv = p;
}

void emit_roialign(Compiler *c, Emit *e, Node *n) {
    (void)c;
    const RoiAlign *p = n->priv;
    Value *x = n->in[0], *rois = n->in[1];
    const char *sfx = emit_template(e, "spatial_roialign", x->dtype);
    emit_line(e, "if (roialign_%s(%s, %s, %s, %s, %s, %s, %s, %s, %s, %lld, %lld, %lld, %s, %d, "
              "%d))",
              sfx, emit_ptr(e, x), emit_ptr(e, rois), emit_ptr(e, n->in[2]),
              emit_ptr(e, n->out[0]), emit_sym(e, x->shape[0]), emit_sym(e, x->shape[1]),
              emit_sym(e, x->shape[2]), emit_sym(e, x->shape[3]), emit_sym(e, rois->shape[0]),
              (long long)p->oh, (long long)p->ow, (long long)p->ratio,
              emit_literal(e, DT_DOUBLE, p->scale), p->half_pixel, p->maxmode);
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}

/* ---- MaxUnpool (opset 9, 11) */

typedef struct Unpool {
    Sym **ishape;  /* the shape the attributes imply (what the indices index) */
    Value *rt_shape; /* output_shape read at run time (declared output shape), or NULL */
} Unpool;

void infer_maxunpool(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    infer_require_inputs(c, n, 2, n->opset >= 11 ? 3 : 2);
    one_output(c, n);
    Value *x = infer_in(c, n, 0), *ind = infer_in(c, n, 1), *os = node_in(n, 2);
    float_input(c, n, x, "input");
    if (ind->dtype != DT_INT64)
        o2c_error(c, n, "indices type %s: expected int64", dtype_name(ind->dtype));
    int r = x->rank, sp = r - 2;
    if (r < 3)
        o2c_error(c, n, "input rank %d: expected [N, C, D1, ...] (rank >= 3)", r);
    if (ind->rank != r)
        o2c_error(c, n, "indices rank %d differs from input rank %d", ind->rank, r);
    for (int d = 0; d < r; d++)
        same_dim(c, n, ind->shape[d], x->shape[d], "indices and input shapes differ");
    if (!node_attr(n, "kernel_shape"))
        o2c_error(c, n, "kernel_shape is required");
    int64_t k[16], st[16], pads[32];
    if (sp > 16)
        o2c_error(c, n, "%d spatial axes: at most 16 are supported", sp);
    attr_ints_n(c, n, "kernel_shape", sp, 1, 1, k);
    attr_ints_n(c, n, "strides", sp, 1, 1, st);
    attr_ints_n(c, n, "pads", 2 * sp, 0, 0, pads);
    Unpool *p = arena_alloc(c->arena, sizeof *p);
    p->ishape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)r);
    p->ishape[0] = x->shape[0];
    p->ishape[1] = x->shape[1];
    for (int i = 0; i < sp; i++) {
        Sym *d = sym_add(s, sym_mul(s, sym_sub(s, x->shape[i + 2], K(c, 1)), K(c, st[i])),
                         sym_sub(s, sym_sub(s, K(c, k[i]), K(c, pads[i])), K(c, pads[i + sp])));
        int64_t v;
        if (sym_get_const(d, &v) && v < 0)
            o2c_error(c, n, "unpooled dimension %d is %lld: negative", i + 2, (long long)v);
        p->ishape[i + 2] = d;
    }
    n->priv = p;
    if (!os) {
        ir_set_shape(c, n->out[0], x->dtype, r, p->ishape);
        return;
    }
    if (!dtype_is_int(os->dtype) || os->rank != 1)
        o2c_error(c, n, "output_shape must be a 1-D integer tensor");
    Sym **kv = ir_known_ints(c, os);
    int64_t len = ir_known_len(os);
    Sym **shape;
    if (kv && len >= 0) {
        if (len != r)
            o2c_error(c, n, "output_shape has %lld values, expected %d", (long long)len, r);
        shape = kv;
    } else if (infer_declared_shape(c, n, n->out[0], x->dtype) && n->out[0]->rank == r &&
               infer_implied_len(c, n, os, r, "output_shape") == r) {
        p->rt_shape = os;
        shape = n->out[0]->shape;
    } else
        infer_not_known(c, n, os, "output_shape", true);
    for (int d = 0; d < r; d++) {
        int64_t a, b;
        if (d < 2) {
            same_dim(c, n, shape[d], x->shape[d], "output_shape must keep N and C");
            continue;
        }
        if (sym_get_const(shape[d], &a) && sym_get_const(p->ishape[d], &b) && a < b)
            o2c_error(c, n, "output_shape[%d] = %lld is smaller than the unpooled size %lld", d,
                      (long long)a, (long long)b);
        ir_constrain(c, n, CK_LE, p->ishape[d], shape[d],
                     "output_shape[%d] must be >= the unpooled size", d);
    }
    ir_set_shape(c, n->out[0], x->dtype, r, shape);
}

void emit_maxunpool(Compiler *c, Emit *e, Node *n) {
    const Unpool *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    int r = x->rank;
    if (p->rt_shape) {
        const char *os = emit_ptr(e, p->rt_shape);
        for (int d = 0; d < r; d++) {
            emit_line(e, "if ((int64_t)%s[%d] != %s)", os, d, emit_sym(e, y->shape[d]));
            emit_line(e, "    return %d;", O2C_RUN_EDATA);
        }
    }
    const char *sfx = emit_template(e, "spatial_unpool", x->dtype);
    const char *is = emit_sym_array(e, "ishape", r, p->ishape);
    const char *osh = emit_sym_array(e, "oshape", r, y->shape);
    emit_line(e, "if (maxunpool_%s(%s, %s, %s, %s, %d, %s, %s))", sfx, emit_ptr(e, x),
              emit_ptr(e, n->in[1]), emit_ptr(e, y), emit_sym(e, ir_numel(c, x)), r, is, osh);
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}
