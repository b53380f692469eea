/* pool.c — op family: pooling over the spatial axes of an [N, C, D1, ..., Dk] tensor.
 *
 * ONNX: MaxPool (with the optional Indices output), AveragePool, LpPool (k = 1..3 spatial axes)
 * and GlobalMaxPool, GlobalAveragePool, GlobalLpPool (any k >= 1).
 * Shapes: per spatial axis, with dk = dilation*(kernel-1) + 1 (ONNX MaxPool/AveragePool spec):
 *   explicit pads:  out = floor((in + pad_begin + pad_end - dk) / stride) + 1, or ceil(...) + 1
 *                   when ceil_mode; the window must fit: dk <= in + pad_begin + pad_end
 *   VALID:          out = floor((in - dk) / stride) + 1, with dk <= in
 *   SAME_UPPER/LOWER: out = ceil(in / stride); total pad = max(0, (out-1)*stride + dk - in),
 *                   pad_begin = total/2 (UPPER, the extra pad at the end) or total - total/2
 *   Global*:        out = 1 (the window is the whole spatial extent).
 * All of it is Sym arithmetic, so symbolic N, C, H, W stay symbolic; the windows' fit becomes a
 * runtime check (NAME_check) when the dims are not constants.
 * Code: one call per node to a kernel of templates/pool_{max,avg,lp}.c, which loops over three
 * spatial axes (1-D and 2-D pools have leading sizes of 1; a global pool flattens all its
 * spatial axes into one window).  Sizes, kernel, strides, dilations and pads are int64_t arrays,
 * so one kernel instance serves every shape. */
#include "onnx2c.h"
#include "pool_plan.h"
#include <math.h>
#include <string.h>

static PoolKind pool_kind(const Node *n) {
    switch (n->op->variant) {
    case OPV_POOL_MAX:
    case OPV_GPOOL_MAX:
        return POOL_MAX;
    case OPV_POOL_AVG:
    case OPV_GPOOL_AVG:
        return POOL_AVG;
    default:
        return POOL_LP;
    }
}

/* Input 0: an [N, C, spatial...] tensor of a type the kind supports. */
static Value *pool_input(Compiler *c, Node *n, PoolKind kind) {
    Value *x = infer_in(c, n, 0);
    if (x->rank < 3)
        o2c_error(c, n, "input rank %d: expected [N, C, D1, ...] (rank >= 3)", x->rank);
    bool ok = x->dtype == DT_FLOAT || x->dtype == DT_DOUBLE ||
              (kind == POOL_MAX && dtype_is_int(x->dtype));
    if (!ok)
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    return x;
}

/* LpPool's p: a float before opset 2, an int since. */
static double pool_p(Compiler *c, Node *n) {
    const Attr *a = node_attr(n, "p");
    double p = 2.0;
    if (a)
        p = a->type == ATTR_FLOAT ? (double)a->f : (double)attr_int(c, n, "p", 2);
    if (!(p > 0))
        o2c_error(c, n, "p = %g: must be positive", p);
    return p;
}

static int64_t pool_flag(Compiler *c, Node *n, const char *name) {
    int64_t v = attr_int(c, n, name, 0);
    if (v != 0 && v != 1)
        o2c_error(c, n, "%s = %lld: must be 0 or 1", name, (long long)v);
    return v;
}

static void pool_outputs(Compiler *c, Node *n, PoolKind kind, Value *x, Sym **shape) {
    int maxout = kind == POOL_MAX && n->opset >= 8 && n->op->variant == OPV_POOL_MAX ? 2 : 1;
    if (n->nout < 1 || !n->out[0])
        o2c_error(c, n, "output 0 is required");
    if (n->nout > maxout)
        o2c_error(c, n, "%d outputs, expected at most %d", n->nout, maxout);
    ir_set_shape(c, n->out[0], x->dtype, x->rank, shape);
    if (n->nout > 1 && n->out[1])
        ir_set_shape(c, n->out[1], DT_INT64, x->rank, shape);
}

Pool *pool_geometry(Compiler *c, Node *n, Value *x, PoolKind kind, Sym **shape) {
    SymCtx *s = c->sym;
    int sp = x->rank - 2;
    if (sp > 3)
        o2c_error(c, n, "%d spatial axes: at most 3 are supported", sp);
    int64_t k[3], st[3], dl[3], pads[6];
    if (!node_attr(n, "kernel_shape"))
        o2c_error(c, n, "kernel_shape is required");
    attr_ints_n(c, n, "kernel_shape", sp, 1, 1, k);
    attr_ints_n(c, n, "strides", sp, 1, 1, st);
    attr_ints_n(c, n, "dilations", sp, 1, 1, dl);
    attr_ints_n(c, n, "pads", 2 * sp, 0, 0, pads);
    const int ap = attr_auto_pad(c, n);
    const char *auto_pad = attr_str(c, n, "auto_pad", "NOTSET");
    bool upper = ap == AUTO_PAD_SAME_UPPER, lower = ap == AUTO_PAD_SAME_LOWER;
    bool valid = ap == AUTO_PAD_VALID;
    if (upper || lower || valid)
        for (int i = 0; i < 2 * sp; i++)
            if (pads[i])
                o2c_error(c, n, "pads and auto_pad %s cannot be used together", auto_pad);
    bool ceil_mode = pool_flag(c, n, "ceil_mode");

    Pool *p = arena_alloc(c->arena, sizeof *p);
    p->kind = kind;
    p->nc = sym_mul(s, x->shape[0], x->shape[1]);
    if (kind == POOL_MAX)
        p->col_major = pool_flag(c, n, "storage_order");
    if (kind == POOL_AVG)
        p->count_include_pad = pool_flag(c, n, "count_include_pad");
    if (kind == POOL_LP)
        p->p = pool_p(c, n);
    Sym *one = sym_const(s, 1), *zero = sym_const(s, 0);
    shape[0] = x->shape[0];
    shape[1] = x->shape[1];
    for (int a = 0; a < 3; a++) {
        int i = a - (3 - sp); /* attribute index of axis a; < 0 for a padding axis */
        if (i < 0) {
            p->in[a] = p->out[a] = p->k[a] = p->st[a] = p->dl[a] = one;
            p->pad[a] = p->pad[a + 3] = zero;
            continue;
        }
        Sym *in = x->shape[2 + i], *S = sym_const(s, st[i]);
        /* the dilated window, dl * (k - 1) + 1 (both at most ATTR_SIZE_MAX: it fits) */
        Sym *dk = sym_add(s, sym_mul(s, sym_const(s, dl[i]), sym_const(s, k[i] - 1)), one);
        int64_t dkv = 0;
        sym_get_const(dk, &dkv);
        Sym *out, *pb, *pe;
        if (upper || lower) {
            out = sym_ceildiv(s, in, S);
            Sym *total = sym_sub(s, sym_add(s, sym_mul(s, sym_sub(s, out, one), S), dk), in);
            total = sym_max(s, zero, total);
            Sym *half = sym_floordiv(s, total, sym_const(s, 2));
            pb = upper ? half : sym_sub(s, total, half);
            pe = sym_sub(s, total, pb);
        } else {
            pb = sym_const(s, pads[i]);
            pe = sym_const(s, pads[sp + i]);
            Sym *padded = sym_add(s, in, sym_add(s, pb, pe));
            ir_constrain(c, n, CK_LE, dk, padded,
                         "spatial axis %d: the window (%lld) is larger than the padded input", i,
                         (long long)dkv);
            Sym *span = sym_sub(s, padded, dk);
            out = sym_add(s, ceil_mode && !valid ? sym_ceildiv(s, span, S)
                                                 : sym_floordiv(s, span, S), one);
        }
        p->in[a] = in;
        p->out[a] = out;
        p->k[a] = sym_const(s, k[i]);
        p->st[a] = S;
        p->dl[a] = sym_const(s, dl[i]);
        p->pad[a] = pb;
        p->pad[a + 3] = pe;
        shape[2 + i] = out;
    }
    return p;
}

/* MaxPool, AveragePool, LpPool: the output rule of the file comment. */
void infer_pool(Compiler *c, Node *n) {
    PoolKind kind = pool_kind(n);
    Value *x = pool_input(c, n, kind);
    Sym *shape[5];
    Pool *p = pool_geometry(c, n, x, kind, shape);
    pool_outputs(c, n, kind, x, shape);
    n->priv = p;
}

/* GlobalMaxPool, GlobalAveragePool, GlobalLpPool: y is [N, C, 1, ..., 1]; the kernel sees the
 * spatial axes flattened into one window of their product. */
Pool *pool_global_geometry(Compiler *c, Node *n, Value *x, PoolKind kind, Sym ***shapep) {
    SymCtx *s = c->sym;
    Pool *p = arena_alloc(c->arena, sizeof *p);
    Sym *one = sym_const(s, 1), *zero = sym_const(s, 0), *area = one;
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)x->rank);
    shape[0] = x->shape[0];
    shape[1] = x->shape[1];
    for (int i = 2; i < x->rank; i++) {
        area = sym_mul(s, area, x->shape[i]);
        shape[i] = one;
    }
    p->kind = kind;
    p->nc = sym_mul(s, x->shape[0], x->shape[1]);
    for (int a = 0; a < 3; a++) {
        p->in[a] = p->k[a] = a == 2 ? area : one;
        p->out[a] = p->st[a] = p->dl[a] = one;
        p->pad[a] = p->pad[a + 3] = zero;
    }
    if (kind == POOL_LP)
        p->p = pool_p(c, n);
    *shapep = shape;
    return p;
}

void infer_global_pool(Compiler *c, Node *n) {
    PoolKind kind = pool_kind(n);
    Value *x = pool_input(c, n, kind);
    Sym **shape;
    Pool *p = pool_global_geometry(c, n, x, kind, &shape);
    pool_outputs(c, n, kind, x, shape);
    n->priv = p;
}

/* The smallest value of an element type: what a max window with no tap inside gives. */
static double type_lowest(DType t) {
    switch (t) {
    case DT_INT8: return (double)INT8_MIN;
    case DT_INT16: return (double)INT16_MIN;
    case DT_INT32: return (double)INT32_MIN;
    case DT_INT64: return (double)INT64_MIN;
    case DT_FLOAT: case DT_DOUBLE: return -INFINITY;
    default: return 0; /* unsigned */
    }
}

/* "(const int64_t[]){a, b, ...}": an array literal of syms for a call in a parallel region.
 * Named arrays of the function, passed into the region, reach its outlined body as pointers:
 * the inlined pool then no longer sees the constant window (2x slower), and the serial call
 * after them neither (their address escaped); literals keep both specialised. */
static const char *sym_literal(Emit *e, int n, Sym *const *v) {
    const char *r = "(const int64_t[]){";
    for (int i = 0; i < n; i++)
        r = arena_printf(emit_arena(e), "%s%s%s", r, i ? ", " : "", emit_sym(e, v[i]));
    return arena_printf(emit_arena(e), "%s}", r);
}

/* Built with OpenMP, a pool of enough work (2^14 taps: a few microseconds, several times a
 * fork; MobileNetV3's squeeze-excitation averages over 576 x 7 x 7 on 2 threads 4.4 -> 2.7 us,
 * 960 x 16 x 16 in LR-ASPP 18 -> 10 us) runs on the threads a plane (an (n, c) pair) at a
 * time: writes `if (o2c_par(...)) { the planes in parallel } else` before the
 * caller's whole-tensor call.  Each plane goes to a call of its own with nc = 1 (the pool
 * functions are inlined, so the constant window specialises the loops either way); mid are
 * the arguments between y and nc, tail those after the window.  (ResNet-18's 3x3 stride 2
 * MaxPool over 64 x 112 x 112 on two threads read the conv's output from both cores' caches
 * on one.) */
static void pool_par_planes(Emit *e, const Pool *p, const char *fn, const char *sfx,
                            const char *x, const char *y, const char *mid, const char *tail) {
    const char *i = emit_tmp(e, "plane"), *nc = emit_sym(e, p->nc);
    const char *isz = arena_printf(emit_arena(e), "%s * %s * %s", emit_sym(e, p->in[0]),
                                   emit_sym(e, p->in[1]), emit_sym(e, p->in[2]));
    const char *osz = arena_printf(emit_arena(e), "%s * %s * %s", emit_sym(e, p->out[0]),
                                   emit_sym(e, p->out[1]), emit_sym(e, p->out[2]));
    emit_line(e, "#ifdef _OPENMP");
    /* the taps in double: no int64 overflow, whatever the window */
    emit_line(e, "if (o2c_par((double)%s * (double)(%s) * (double)%s * (double)%s * (double)%s >= "
                 "16384.0 && %s > 1)) {",
              nc, osz, emit_sym(e, p->k[0]), emit_sym(e, p->k[1]), emit_sym(e, p->k[2]), nc);
    emit_line(e, "#pragma omp parallel for schedule(static)");
    emit_line(e, "    for (int64_t %s = 0; %s < %s; %s++)", i, i, nc, i);
    emit_line(e, "        %s_%s(%s + %s * (%s), %s + %s * (%s), %s1, %s, %s, %s, %s, %s, %s, %s);",
              fn, sfx, x, i, isz, y, i, osz, mid, sym_literal(e, 3, p->in),
              sym_literal(e, 3, p->out), sym_literal(e, 3, p->k), sym_literal(e, 3, p->st),
              sym_literal(e, 3, p->dl), sym_literal(e, 6, p->pad), tail);
    emit_line(e, "} else");
    emit_line(e, "#endif");
}

void emit_pool(Compiler *c, Emit *e, Node *n) {
    (void)c;
    Pool *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    const char *name = p->kind == POOL_MAX ? "pool_max" : p->kind == POOL_AVG ? "pool_avg" : "pool_lp";
    const char *sfx = emit_template(e, name, x->dtype);
    const char *in = emit_sym_array(e, "in", 3, p->in);
    const char *out = emit_sym_array(e, "out", 3, p->out);
    const char *k = emit_sym_array(e, "k", 3, p->k);
    const char *st = emit_sym_array(e, "st", 3, p->st);
    const char *dl = emit_sym_array(e, "dl", 3, p->dl);
    const char *pad = emit_sym_array(e, "pad", 6, p->pad);
    const char *args = arena_printf(emit_arena(e), "%s, %s, %s, %s, %s, %s", in, out, k, st, dl, pad);
    const char *nc = emit_sym(e, p->nc);
    switch (p->kind) {
    case POOL_MAX: {
        Value *ind = n->nout > 1 ? n->out[1] : NULL;
        const char *lowest = emit_literal(e, x->dtype, type_lowest(x->dtype));
        if (!ind) /* (indices count from the whole tensor's start: no planes of their own) */
            pool_par_planes(e, p, "maxpool", sfx, emit_ptr(e, x), emit_ptr(e, y), "(int64_t *)0, ",
                            arena_printf(emit_arena(e), "0, %s", lowest));
        emit_line(e, "maxpool_%s(%s, %s, %s, %s, %s, %lld, %s);", sfx, emit_ptr(e, x),
                  emit_ptr(e, y), ind ? emit_ptr(e, ind) : "(int64_t *)0", nc, args,
                  (long long)p->col_major, lowest);
        break;
    }
    case POOL_AVG:
        pool_par_planes(e, p, "avgpool", sfx, emit_ptr(e, x), emit_ptr(e, y), "",
                        arena_printf(emit_arena(e), "%lld", (long long)p->count_include_pad));
        emit_line(e, "avgpool_%s(%s, %s, %s, %s, %lld);", sfx, emit_ptr(e, x), emit_ptr(e, y), nc,
                  args, (long long)p->count_include_pad);
        break;
    case POOL_LP:
        emit_line(e, "lppool_%s(%s, %s, %s, %s, %s);", sfx, emit_ptr(e, x), emit_ptr(e, y), nc, args,
                  emit_literal(e, DT_DOUBLE, p->p));
        break;
    }
}
