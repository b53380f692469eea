/* resize.c — op family: resampling of a tensor's axes (ONNX Resize 10/11/13, Upsample 7/9).
 *
 * Output shape (ONNX Resize): when `sizes` is given, y.shape = sizes (Syms, so sizes folded
 * from Shape arithmetic stay symbolic); else out = floor(in * scale) (opset 11+ with
 * tf_crop_and_resize: floor(in * (roi_end - roi_start) * scale)).  A float32 scale is read as
 * the simplest fraction p/q (q <= 1000) that rounds to it, and out = floor(in * p / q) is Sym
 * arithmetic, so 2.0 gives 2*H and 0.5 gives H/2 on a symbolic H; a scale with no such fraction
 * needs a constant dim.  `scales` and `sizes` must be known at compile time (they fix the output
 * shape); `roi` may be a runtime input.
 * Sampling (ONNX Resize, as in its reference implementation): each output index o of an axis
 * maps to a source coordinate by coordinate_transformation_mode, using scale = the given scale,
 * or out / in when `sizes` is given (templates/resize_coords.c has the formulas), then
 * nearest picks one tap by nearest_mode, linear weighs two taps (1 - r, r), cubic four taps with
 * Keys' kernel of coefficient cubic_coeff_a (exclude_outside renormalises without the taps
 * outside the input).  Upsample and Resize-10 are asymmetric with floor rounding.
 * Code: only the trailing axes from the first resized one are resampled (k of them; leading
 * axes are an outer count).  Sizes and scales are run-time arguments, so one C serves every
 * dim value: resize_tables fills per-axis index and weight tables in the node's scratch, then
 * resize_nearest_T (a gather) or resize_interp_T (separable weights) runs the loop nest;
 * linear over the last two axes (float, double) takes resize_bilin_T (templates/
 * resize_bilin.c), on the threads. */
#include "onnx2c.h"
#include <math.h>
#include <string.h>

enum { MAX_AXES = 8 };

typedef enum {
    RS_NEAREST, /* one tap */
    RS_LINEAR,  /* two taps per axis */
    RS_CUBIC,   /* four taps per axis */
} ResizeMode;

/* coordinate_transformation_mode, numbered as templates/resize_coords.c reads them */
static const char *const ctm_names[] = {
    "half_pixel", "pytorch_half_pixel",   "align_corners",      "asymmetric",
    "tf_half_pixel_for_nn", "tf_crop_and_resize", NULL};
enum { CTM_ASYMMETRIC = 3, CTM_CROP = 5 };
static const char *const nearest_names[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                            "ceil", NULL};
enum { NEAREST_FLOOR = 2 };

/* What emit needs. */
typedef struct Resize {
    ResizeMode mode;
    int ctm, nearest, exclude;
    double cubic_a, extrap;
    int k;                     /* resampled trailing axes */
    Sym *outer;                /* product of the leading axes */
    Sym *in[MAX_AXES], *out[MAX_AXES];
    bool have_scale;           /* scales given: scale[] holds them; else out / in */
    double scale[MAX_AXES];
    Value *roi;                /* tf_crop_and_resize: roi [starts..., ends...] over all axes */
    const double *roi_c;       /* its known contents (2 * rank), or NULL: read at run time */
    /* declared shapes: scales or sizes read at run time (the output shape is the declared
     * one; emit checks the data against it and resamples every axis) */
    Value *rt_scales, *rt_sizes;
} Resize;

/* Linear over the last two axes in float or double, no tf_crop_and_resize box: the fast
 * kernel resize_bilin (templates/resize_bilin.c), on up to resize_slots threads, each with
 * two cached rows of scratch (one thread in --memory-first builds: the smallest workspace). */
static bool resize_bilin(const Resize *r, DType t) {
    return r->mode == RS_LINEAR && r->k == 2 && r->ctm != CTM_CROP &&
           (t == DT_FLOAT || t == DT_DOUBLE);
}
static int resize_slots(const Compiler *c) {
    return c->opt->memory_first ? 1 : 4;
}

static int lookup(Compiler *c, Node *n, const char *attr, const char *def,
                  const char *const *names) {
    const char *v = attr_str(c, n, attr, def);
    for (int i = 0; names[i]; i++)
        if (!strcmp(v, names[i]))
            return i;
    o2c_error(c, n, "%s '%s' is not supported", attr, v);
}

/* Elements of a 1-D float/double tensor known at compile time; -1 when it is not known,
 * 0 for an empty tensor (an omitted input in opset 11). */
static int64_t known_floats(Compiler *c, Node *n, Value *v, const char *what, double **out) {
    *out = NULL;
    if (v->rank != 1)
        o2c_error(c, n, "%s '%s' must be a 1-D tensor, got rank %d", what, v->name, v->rank);
    int64_t len;
    if (!sym_get_const(v->shape[0], &len))
        return -1;
    if (len == 0)
        return 0;
    if (!v->data)
        return -1;
    if (v->dtype != DT_FLOAT && v->dtype != DT_DOUBLE)
        o2c_error(c, n, "%s '%s' has type %s: float or double expected", what, v->name,
                  dtype_name(v->dtype));
    double *d = arena_alloc(c->arena, sizeof(double) * (size_t)len);
    for (int64_t i = 0; i < len; i++)
        d[i] = v->dtype == DT_FLOAT ? (double)((const float *)v->data)[i]
                                    : ((const double *)v->data)[i];
    *out = d;
    return len;
}

/* The simplest fraction p/q (q <= 1000) whose float32 value is s. */
static bool simple_ratio(float s, int64_t *p, int64_t *q) {
    for (int64_t d = 1; d <= 1000; d++) {
        double m = nearbyint((double)s * (double)d);
        if (m >= 1 && (float)(m / (double)d) == s) {
            *p = (int64_t)m;
            *q = d;
            return true;
        }
    }
    return false;
}

/* out = floor(in * f) with f = scale (or scale * roi extent when crop is set). */
static Sym *scaled_dim(Compiler *c, Node *n, int axis, Sym *in, double scale, double crop) {
    SymCtx *s = c->sym;
    int64_t p, q, iv;
    if (!(scale > 0 && scale <= 1e9) || !(crop >= 0 && crop <= 1e9))
        o2c_error(c, n, "axis %d: scale %g is not a number in (0, 1e9]", axis, scale * crop);
    if (crop == 1.0 && simple_ratio((float)scale, &p, &q))
        return sym_floordiv(s, sym_mul(s, in, sym_const(s, p)), sym_const(s, q));
    if (sym_get_const(in, &iv)) {
        double d = floor((double)iv * crop * scale);
        if (!(d < 4e18))
            o2c_error(c, n, "axis %d: the output size %g is too large", axis, d);
        return sym_const(s, (int64_t)d);
    }
    o2c_error(c, n, "axis %d: scale %g of a symbolic dim is not a simple fraction p/q "
                    "(q <= 1000): floor(dim * scale) cannot be expressed", axis, scale * crop);
}

void infer_resize(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    bool upsample = n->op->variant == OPV_UPSAMPLE;
    bool legacy = upsample || n->opset < 11; /* Upsample, Resize-10: X, scales */
    infer_require_inputs(c, n, 1, legacy ? 2 : 4);
    if (n->nout != 1 || !n->out[0])
        o2c_error(c, n, "expected one output");
    Value *x = infer_in(c, n, 0);
    int rank = x->rank;
    if (rank < 1 || rank > MAX_AXES)
        o2c_error(c, n, "input rank %d: 1 to %d is supported", rank, MAX_AXES);
    if (dtype_size(x->dtype) == 0 || x->dtype == DT_STRING)
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));

    Resize *r = arena_alloc(c->arena, sizeof *r);
    const char *mode = attr_str(c, n, "mode", "nearest");
    if (!strcmp(mode, "nearest"))
        r->mode = RS_NEAREST;
    else if (!strcmp(mode, "linear") || (legacy && !strcmp(mode, "bilinear")))
        r->mode = RS_LINEAR;
    else if (!strcmp(mode, "cubic") && !legacy)
        r->mode = RS_CUBIC;
    else
        o2c_error(c, n, "mode '%s' is not supported", mode);
    if (r->mode != RS_NEAREST && x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE)
        o2c_error(c, n, "mode '%s' needs a float or double input, got %s", mode,
                  dtype_name(x->dtype));
    if (legacy) {
        r->ctm = CTM_ASYMMETRIC;
        r->nearest = NEAREST_FLOOR;
    } else {
        r->ctm = lookup(c, n, "coordinate_transformation_mode", "half_pixel", ctm_names);
        r->nearest = lookup(c, n, "nearest_mode", "round_prefer_floor", nearest_names);
        r->cubic_a = attr_float(c, n, "cubic_coeff_a", -0.75f);
        int64_t ex = attr_int(c, n, "exclude_outside", 0);
        if (ex != 0 && ex != 1)
            o2c_error(c, n, "exclude_outside = %lld: must be 0 or 1", (long long)ex);
        r->exclude = (int)ex;
        r->extrap = attr_float(c, n, "extrapolation_value", 0.0f);
        if (node_attr(n, "axes") || node_attr(n, "keep_aspect_ratio_policy"))
            o2c_error(c, n, "attributes axes and keep_aspect_ratio_policy are not supported");
    }
    if (r->ctm == CTM_CROP && x->dtype == DT_FLOAT16)
        o2c_error(c, n, "tf_crop_and_resize of float16 is not supported");

    /* scales: Upsample-7 attribute, else an input */
    double *sc = NULL;
    int64_t nsc = -1;
    Value *scales = NULL, *sizes = NULL;
    if (upsample && n->opset < 9) {
        const float *f;
        int cnt = attr_floats(c, n, "scales", &f);
        if (cnt < 0)
            o2c_error(c, n, "attribute scales is required");
        sc = arena_alloc(c->arena, sizeof(double) * (size_t)(cnt + 1));
        for (int i = 0; i < cnt; i++)
            sc[i] = f[i];
        nsc = cnt;
        if (n->nin > 1)
            o2c_error(c, n, "Upsample-%d has one input", n->opset);
    } else {
        scales = node_in(n, legacy ? 1 : 2);
        sizes = legacy ? NULL : node_in(n, 3);
        if (scales) {
            infer_in(c, n, legacy ? 1 : 2);
            if (scales->dtype != DT_FLOAT)
                o2c_error(c, n, "scales '%s' must be float, got %s", scales->name,
                          dtype_name(scales->dtype));
            nsc = known_floats(c, n, scales, "scales", &sc);
            if (nsc < 0 && scales->rank == 1 &&
                infer_declared_shape(c, n, n->out[0], x->dtype)) {
                /* a symbolic count is implied: one scale per input axis */
                r->rt_scales = scales;
                nsc = infer_implied_len(c, n, scales, rank, "scales");
            }
            if (nsc < 0)
                infer_not_known(c, n, scales, "scales", true);
            if (nsc == 0)
                nsc = -1; /* empty: not given */
        }
        if (legacy && nsc < 0)
            o2c_error(c, n, "input scales is required");
    }
    Sym **sz = NULL;
    if (sizes) {
        infer_in(c, n, 3);
        if (sizes->dtype != DT_INT64)
            o2c_error(c, n, "sizes '%s' must be int64, got %s", sizes->name,
                      dtype_name(sizes->dtype));
        if (sizes->rank != 1)
            o2c_error(c, n, "sizes '%s' must be a 1-D tensor, got rank %d", sizes->name,
                      sizes->rank);
        int64_t len;
        if (sym_get_const(sizes->shape[0], &len) && len == 0)
            sizes = NULL; /* empty */
        else {
            sz = ir_known_ints(c, sizes);
            len = ir_known_len(sizes);
            if ((!sz || len < 0) && infer_declared_shape(c, n, n->out[0], x->dtype)) {
                /* a symbolic count is implied: one size per input axis */
                r->rt_sizes = sizes;
                sz = n->out[0]->shape;
                len = infer_implied_len(c, n, sizes, rank, "sizes");
            }
            if (!sz || len < 0)
                infer_not_known(c, n, sizes, "sizes", true);
            if (len != rank)
                o2c_error(c, n, "sizes has %lld values, expected %d (the input rank)",
                          (long long)len, rank);
        }
    }
    if (sizes && nsc >= 0)
        o2c_error(c, n, "scales and sizes cannot both be given");
    if (!sizes && nsc < 0)
        o2c_error(c, n, "one of scales and sizes is required");
    if (nsc >= 0 && nsc != rank)
        o2c_error(c, n, "scales has %lld values, expected %d (the input rank)", (long long)nsc,
                  rank);
    if ((r->rt_scales || r->rt_sizes) && n->out[0]->rank != rank)
        o2c_error(c, n, "output '%s' is declared with rank %d, the input has rank %d",
                  n->out[0]->name, n->out[0]->rank, rank);
    for (int i = 0; nsc >= 0 && sc && i < rank; i++)
        if (!(sc[i] > 0))
            o2c_error(c, n, "scales[%d] = %g: must be positive", i, sc[i]);

    /* roi: only tf_crop_and_resize reads it */
    const double *roi = NULL;
    if (r->ctm == CTM_CROP) {
        Value *rv = node_in(n, 1);
        if (!rv)
            o2c_error(c, n, "tf_crop_and_resize needs the roi input");
        infer_in(c, n, 1);
        if (rv->dtype != DT_FLOAT && rv->dtype != DT_DOUBLE)
            o2c_error(c, n, "roi '%s' has type %s: float or double expected", rv->name,
                      dtype_name(rv->dtype));
        double *d;
        int64_t len = known_floats(c, n, rv, "roi", &d);
        if (len < 0 && (rv->rank != 1 || infer_implied_len(c, n, rv, 2 * rank, "roi") != 2 * rank))
            o2c_error(c, n, "roi '%s' must have %d values", rv->name, 2 * rank);
        if (len >= 0 && len != 2 * rank)
            o2c_error(c, n, "roi has %lld values, expected %d", (long long)len, 2 * rank);
        r->roi = rv;
        roi = r->roi_c = d;
        if (!sizes && !roi && !r->rt_scales)
            o2c_error(c, n, "tf_crop_and_resize with scales needs a roi known at compile time");
    }

    /* output shape, and the axes that change */
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)rank);
    int first = rank;
    for (int i = 0; i < rank; i++) {
        Sym *in = x->shape[i];
        double crop = roi ? roi[rank + i] - roi[i] : 1.0;
        shape[i] = sz ? sz[i] : r->rt_scales ? n->out[0]->shape[i]
                                              : scaled_dim(c, n, i, in, sc[i], crop);
        int64_t v;
        if (sym_get_const(shape[i], &v) && v < 0)
            o2c_error(c, n, "axis %d: output size %lld is negative", i, (long long)v);
        bool same = sz ? shape[i] == in : sc && sc[i] == 1.0;
        if (r->ctm == CTM_CROP && (!roi || roi[i] != 0.0 || roi[rank + i] != 1.0))
            same = false;
        if (r->rt_scales)
            same = false;
        if (!same && first == rank)
            first = i;
    }
    if (first == rank)
        first = rank - 1; /* nothing changes: resample the last axis as an identity */
    r->k = rank - first;
    r->outer = sym_const(s, 1);
    for (int i = 0; i < first; i++)
        r->outer = sym_mul(s, r->outer, x->shape[i]);
    r->have_scale = !sz;
    for (int d = 0; d < r->k; d++) {
        r->in[d] = x->shape[first + d];
        r->out[d] = shape[first + d];
        if (!sz && sc)
            r->scale[d] = sc[first + d];
    }
    ir_set_shape(c, n->out[0], x->dtype, rank, shape);

    /* scratch: per resampled axis out * ntap indices and weights, plus one row of sums and
     * the cached interpolated rows (templates/resize_interp.c: one per tap combination of the
     * leading axes, at most 16) */
    int ntap = r->mode == RS_NEAREST ? 1 : r->mode == RS_LINEAR ? 2 : 4;
    Sym *tot = sym_const(s, 0);
    for (int d = 0; d < r->k; d++)
        tot = sym_add(s, tot, r->out[d]);
    Sym *bytes = sym_mul(s, tot, sym_const(s, 16 * ntap));
    int64_t combs = 1;
    for (int d = 0; d + 1 < r->k && combs < 16; d++)
        combs *= ntap;
    if (combs > 16)
        combs = 16;
    if (resize_bilin(r, x->dtype)) { /* resize_bilin.c: two cached rows per thread slot */
        const int64_t row = (int64_t)(2 * resize_slots(c) * dtype_size(x->dtype));
        bytes = sym_add(s, bytes, sym_mul(s, r->out[1], sym_const(s, row)));
    } else if (r->mode != RS_NEAREST)
        bytes = sym_add(s, bytes, sym_mul(s, r->out[r->k - 1], sym_const(s, 8 * (1 + combs))));
    n->scratch = bytes;
    n->priv = r;
}

void emit_resize(Compiler *c, Emit *e, Node *n) {
    SymCtx *s = c->sym;
    Resize *r = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    int k = r->k, ntap = r->mode == RS_NEAREST ? 1 : r->mode == RS_LINEAR ? 2 : 4;
    int rank = x->rank, first = rank - k;
    /* declared shapes: the runtime scales / sizes must give the declared output dims */
    for (int i = 0; r->rt_sizes && i < rank; i++) {
        emit_line(e, "if ((int64_t)%s[%d] != %s)", emit_ptr(e, r->rt_sizes), i,
                  emit_sym(e, y->shape[i]));
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    }
    for (int i = 0; r->rt_scales && i < rank; i++) {
        const char *crop = "1.0";
        if (r->ctm == CTM_CROP && r->roi_c)
            crop = emit_literal(e, DT_DOUBLE, r->roi_c[rank + i] - r->roi_c[i]);
        else if (r->ctm == CTM_CROP)
            crop = arena_printf(c->arena, "((double)%s[%d] - (double)%s[%d])", emit_ptr(e, r->roi),
                                rank + i, emit_ptr(e, r->roi), i);
        /* floor(in * scale), allowing a float32 scale just below its fraction (0.7f * 10) */
        emit_line(e, "{");
        emit_line(e, "    const double sv = (double)%s[%d], v = (double)%s * sv * %s;",
                  emit_ptr(e, r->rt_scales), i, emit_sym(e, x->shape[i]), crop);
        /* compared as doubles: v may be NaN or beyond int64 (hostile scales or roi) */
        emit_line(e, "    if (!(sv > 0) || ((double)%s != floor(v) && (double)%s != floor(v + 1e-6)))",
                  emit_sym(e, y->shape[i]), emit_sym(e, y->shape[i]));
        emit_line(e, "        return %d;", O2C_RUN_EDATA);
        emit_line(e, "}");
    }
    if (r->mode == RS_LINEAR && !resize_bilin(r, x->dtype))
        o2c_warn(c, n, "linear Resize on the generic separable path (templates/resize_interp.c, "
                 "one thread), not the bilinear kernel: %s",
                 r->k != 2 ? arena_printf(c->arena, "it resizes %d axes (the kernel takes the "
                                          "last two)", r->k)
                 : r->ctm == CTM_CROP ? "coordinate_transformation_mode is tf_crop_and_resize"
                 : arena_printf(c->arena, "its type is %s (the kernel takes float and double)",
                                dtype_name(x->dtype)));
    emit_kernel(e, "resize %s", r->mode == RS_NEAREST ? "nearest (gather)"
                                : resize_bilin(r, x->dtype) ? "bilinear (threaded)"
                                : r->mode == RS_LINEAR ? "linear (generic separable)"
                                                       : "cubic (separable)");
    emit_template(e, "resize_coords", DT_UNDEFINED);
    const char *sfx = emit_template(e, r->mode == RS_NEAREST      ? "resize_nearest"
                                       : resize_bilin(r, x->dtype) ? "resize_bilin"
                                                                   : "resize_interp",
                                    x->dtype);
    const char *in = emit_sym_array(e, "in", k, r->in);
    const char *out = emit_sym_array(e, "out", k, r->out);
    /* scale (the given one, else out / in) and resized length (scale * in, else out) */
    Buf bs, bl, br;
    buf_init_in(&bs, c->arena);
    buf_init_in(&bl, c->arena);
    buf_init_in(&br, c->arena);
    for (int d = 0; d < k; d++) {
        const char *sep = d ? ", " : "";
        if (r->rt_scales) {
            const char *sv = arena_printf(c->arena, "(double)%s[%d]", emit_ptr(e, r->rt_scales),
                                          first + d);
            buf_printf(&bs, "%s%s", sep, sv);
            buf_printf(&bl, "%s%s * (double)%s", sep, sv, emit_sym(e, r->in[d]));
        } else if (r->have_scale) {
            const char *lit = emit_literal(e, DT_DOUBLE, r->scale[d]);
            buf_printf(&bs, "%s%s", sep, lit);
            int64_t iv;
            if (sym_get_const(r->in[d], &iv))
                buf_printf(&bl, "%s%s", sep, emit_literal(e, DT_DOUBLE, r->scale[d] * (double)iv));
            else
                buf_printf(&bl, "%s%s * (double)%s", sep, lit, emit_sym(e, r->in[d]));
        } else {
            buf_printf(&bs, "%s(double)%s / (double)%s", sep, emit_sym(e, r->out[d]),
                       emit_sym(e, r->in[d]));
            buf_printf(&bl, "%s(double)%s", sep, emit_sym(e, r->out[d]));
        }
    }
    for (int h = 0; h < 2; h++)
        for (int d = 0; d < k; d++) {
            int i = h * rank + first + d;
            const char *sep = h || d ? ", " : "";
            if (!r->roi)
                buf_printf(&br, "%s%s", sep, h ? "1.0" : "0.0");
            else if (r->roi_c)
                buf_printf(&br, "%s%s", sep, emit_literal(e, DT_DOUBLE, r->roi_c[i]));
            else
                buf_printf(&br, "%s(double)%s[%d]", sep, emit_ptr(e, r->roi), i);
        }
    const char *sc = emit_tmp(e, "sc"), *len = emit_tmp(e, "len"), *roi = emit_tmp(e, "roi");
    emit_line(e, "const double %s[%d] = {%s};", sc, k, bs.data);
    emit_line(e, "const double %s[%d] = {%s};", len, k, bl.data);
    emit_line(e, "const double %s[%d] = {%s};", roi, 2 * k, br.data);
    buf_free(&bs);
    buf_free(&bl);
    buf_free(&br);
    Sym *tot = sym_const(s, 0);
    for (int d = 0; d < k; d++)
        tot = sym_add(s, tot, r->out[d]);
    Sym *woff = sym_add(s, n->scratch_offset, sym_mul(s, tot, sym_const(s, 8 * ntap)));
    const char *idx = emit_tmp(e, "idx"), *wt = emit_tmp(e, "wt");
    emit_line(e, "int64_t *%s = (int64_t *)(void *)(ws + %s);", idx,
              emit_sym(e, n->scratch_offset));
    emit_line(e, "double *%s = (double *)(void *)(ws + %s);", wt,
              emit_sym(e, woff));
    emit_line(e, "resize_tables(%d, %s, %s, %s, %s, %s, %d, %d, %d, %s, %d, %s, %s);", k, in, out,
              sc, len, roi, r->ctm, ntap, r->nearest, emit_literal(e, DT_DOUBLE, r->cubic_a),
              r->exclude, idx, wt);
    const char *ext = emit_literal(e, x->dtype, r->extrap);
    if (r->mode == RS_NEAREST)
        emit_line(e, "resize_nearest_%s(%s, %s, %s, %d, %s, %s, %s, %s);", sfx, emit_ptr(e, x),
                  emit_ptr(e, y), emit_sym(e, r->outer), k, in, out, idx, ext);
    else if (resize_bilin(r, x->dtype))
        emit_line(e, "resize_bilin_%s(%s, %s, %s, %s, %s, %s, %s, (%s *)(void *)(%s + %s), %d);",
                  sfx, emit_ptr(e, x), emit_ptr(e, y), emit_sym(e, r->outer), in, out, idx, wt,
                  dtype_ctype(x->dtype), wt, emit_sym(e, sym_mul(s, tot, sym_const(s, ntap))),
                  resize_slots(c));
    else
        emit_line(e, "resize_interp_%s(%s, %s, %s, %d, %s, %s, %s, %s, %d, %s + %s, %s);", sfx,
                  emit_ptr(e, x), emit_ptr(e, y), emit_sym(e, r->outer), k, in, out, idx, wt,
                  ntap, wt, emit_sym(e, sym_mul(s, tot, sym_const(s, ntap))), ext);
}
