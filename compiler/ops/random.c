/* random.c — op family: random draws.
 *
 * ONNX RandomUniform, RandomNormal (opset 1: the `shape` attribute), RandomUniformLike,
 * RandomNormalLike (opset 1: the input's shape, and its type unless `dtype` says), Bernoulli
 * (opset 15) and Multinomial (opset 7).  Every draw comes from templates/random_draws.c, the
 * generator Dropout's training mode uses too: element i of an output takes the (i + 1)-th
 * output of SplitMix64 started at the `seed` attribute, as a uniform in [0, 1) from its top
 * 24 bits (float) or 53 bits (double); a normal draw takes outputs 2i + 1 and 2i + 2 through
 * Box-Muller's cosine branch.  `seed` is a float in ONNX: a whole number is the integer it
 * holds (two's complement when negative), any other value its 32 bits; no seed is seed 0.  So
 * a run is deterministic, the generated code keeps no state (no globals, no clock) and two
 * runs, or two targets, give the same bits; no value matches another implementation's
 * generator.
 *
 *   RandomUniform   y = low + (high - low) u in the output type (float16: in float, then
 *                   rounded), kept in [low, high): a value that rounds up to high becomes the
 *                   largest value of the type below high (float16 also clamped up to low)
 *   RandomNormal    y = mean + scale z, z the normal draw, in the output type (float16: float)
 *   Bernoulli       y = u < p ? 1 : 0, u in the input's precision (float16: float), in the
 *                   output type (`dtype`, the input's by default): p <= 0 gives 0, p >= 1 gives 1
 *   Multinomial     x [batch, classes] of unnormalized log-probabilities; y [batch,
 *                   sample_size] int32 (default) or int64; sample s of row b uses draw
 *                   b * sample_size + s + 1 (templates/random_multinomial.c: weights
 *                   exp(x - max x), cumulated, binary search), in float for float and float16
 *                   rows, double for double rows
 *
 * Float outputs and float16 ones compute in float only (no double arithmetic: a library call
 * on a single-precision FPU); double outputs in double.
 *
 * The second half of the file tells a test driver what it can check of a graph output that
 * depends on draws (random_checks, for Output.checks in libonnx2c.h): no reference can hold
 * our values, so onnx2c-test compares the shape and type and checks the property each op
 * guarantees instead. */
#include "onnx2c.h"
#include <math.h>
#include <string.h>

typedef struct Rand {
    uint64_t seed;
    double a, b;       /* uniform: low, high; normal: mean, scale */
    double span;       /* uniform: high - low in the output type (float16: float) */
    double below;      /* uniform float, double: the type's largest value below high */
    uint16_t hlo, hhi; /* uniform float16: its smallest value >= low, largest below high */
} Rand;

/* The `seed` attribute as the generator's start (see the top of the file). */
static uint64_t seed_of(Compiler *c, const Node *n) {
    const Attr *a = node_attr(n, "seed");
    if (!a)
        return 0;
    if (a->type == ATTR_INT)
        return (uint64_t)a->i;
    float f = attr_float(c, n, "seed", 0.0f);
    if (f == floorf(f) && fabsf(f) < 9.2e18f)
        return (uint64_t)(int64_t)f;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* The value of IEEE binary16 bits h. */
static double half_value(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(m + 1024, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

static bool is_real(DType t) { return t == DT_FLOAT16 || t == DT_FLOAT || t == DT_DOUBLE; }

/* The output type of a -Like op or Bernoulli: `dtype`, else the input's. */
static DType out_type(Compiler *c, const Node *n, DType def) {
    return node_attr(n, "dtype") ? (DType)attr_int(c, n, "dtype", 0) : def;
}

/* The node's Rand, with its seed. */
static Rand *new_rand(Compiler *c, Node *n) {
    Rand *p = arena_alloc(c->arena, sizeof *p);
    p->seed = seed_of(c, n);
    n->priv = p;
    return p;
}

/* Input 0 of Bernoulli and Multinomial: float16, float or double. */
static Value *real_input(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0);
    if (!is_real(x->dtype))
        o2c_error(c, n, "input type %s: expected float16, float or double", dtype_name(x->dtype));
    return x;
}

/* The C expression of element `at` of x as the type computed in (float16: float). */
static const char *real_elem(Compiler *c, Emit *e, Value *x, const char *at) {
    const char *v = arena_printf(c->arena, "%s[%s]", emit_ptr(e, x), at);
    if (x->dtype != DT_FLOAT16)
        return v;
    emit_template(e, "ew_half_to_float", DT_UNDEFINED);
    return arena_printf(c->arena, "o2c_half_to_float(%s, 5)", v);
}

/* RandomUniform, RandomNormal and their -Like forms (OPV_UNIFORM...): the output's type and
 * shape, the distribution's parameters. */
void infer_random(Compiler *c, Node *n) {
    int v = n->op->variant;
    bool like = v == OPV_UNIFORM_LIKE || v == OPV_NORMAL_LIKE;
    bool normal = v == OPV_NORMAL || v == OPV_NORMAL_LIKE;
    Value *y = n->out[0];
    Rand *p = new_rand(c, n);
    DType t;
    if (like) {
        Value *x = infer_in(c, n, 0);
        t = out_type(c, n, x->dtype);
        if (!is_real(t))
            o2c_error(c, n, "output type %s: expected float16, float or double (the dtype "
                      "attribute, or the input's type)", dtype_name(t));
        ir_set_shape(c, y, t, x->rank, x->shape);
    } else {
        t = (DType)attr_int(c, n, "dtype", DT_FLOAT);
        if (!is_real(t))
            o2c_error(c, n, "dtype %s: expected float16, float or double", dtype_name(t));
        const int64_t *shape;
        int r = attr_ints(c, n, "shape", &shape);
        if (r < 0)
            o2c_error(c, n, "attribute 'shape' is required");
        for (int d = 0; d < r; d++)
            if (shape[d] < 0 || shape[d] > ATTR_SIZE_MAX)
                o2c_error(c, n, "shape[%d] = %lld is not a size", d, (long long)shape[d]);
        ir_set_shape_ints(c, y, t, r, shape);
    }
    if (normal) {
        p->a = attr_float(c, n, "mean", 0.0f);
        p->b = attr_float(c, n, "scale", 1.0f);
        if (!isfinite(p->a) || !isfinite(p->b))
            o2c_error(c, n, "mean %g and scale %g must be finite", p->a, p->b);
    } else {
        float lo = attr_float(c, n, "low", 0.0f), hi = attr_float(c, n, "high", 1.0f);
        p->a = lo;
        p->b = hi;
        if (!(lo < hi))
            o2c_error(c, n, "low %g is not below high %g", (double)lo, (double)hi);
        if (t == DT_DOUBLE) {
            p->span = (double)hi - (double)lo;
            p->below = nextafter((double)hi, -INFINITY);
        } else {
            float span = hi - lo;
            if (isinf(span))
                o2c_error(c, n, "high - low overflows float (low %g, high %g)", (double)lo,
                          (double)hi);
            p->span = span;
            p->below = nextafterf(hi, -INFINITY);
        }
        if (t == DT_FLOAT16) { /* the float16 values at the ends of [low, high) */
            bool any = false;
            for (uint32_t h = 0; h < 65536; h++) {
                double hv = half_value((uint16_t)h);
                if (!(hv >= lo && hv < hi))
                    continue;
                if (!any || hv < half_value(p->hlo))
                    p->hlo = (uint16_t)h;
                if (!any || hv > half_value(p->hhi))
                    p->hhi = (uint16_t)h;
                any = true;
            }
            if (!any)
                o2c_error(c, n, "no float16 value lies in [low, high) = [%g, %g)", (double)lo,
                          (double)hi);
        }
    }
}

/* The C literal of 1 in type t (16-bit floats as their bits). */
static const char *one_literal(DType t) {
    switch (t) {
    case DT_FLOAT: return "1.0f";
    case DT_DOUBLE: return "1.0";
    case DT_FLOAT16: return "(uint16_t)0x3C00";
    case DT_BFLOAT16: return "(uint16_t)0x3F80";
    default: return "1";
    }
}

static const char *seed_literal(Compiler *c, const Rand *p) {
    return arena_printf(c->arena, "UINT64_C(%llu)", (unsigned long long)p->seed);
}

void emit_random(Compiler *c, Emit *e, Node *n) {
    const Rand *p = n->priv;
    Value *y = n->out[0];
    DType t = y->dtype;
    bool normal = n->op->variant == OPV_NORMAL || n->op->variant == OPV_NORMAL_LIKE;
    bool half = t == DT_FLOAT16;
    DType ct = half ? DT_FLOAT : t; /* the type computed in */
    const char *sfx = dtype_suffix(ct), *ctype = dtype_ctype(ct), *seed = seed_literal(c, p);
    emit_template(e, "random_draws", DT_UNDEFINED);
    if (half)
        emit_template(e, "ew_float_to_half", DT_UNDEFINED);
    if (half && !normal) /* the clamp to [low, high) */
        emit_template(e, "ew_half_to_float", DT_UNDEFINED);
    if (normal)
        emit_line(e, "/* normal draws (Box-Muller), SplitMix64 at seed %llu: mean + scale z */",
                  (unsigned long long)p->seed);
    else
        emit_line(e, "/* uniform draws, SplitMix64 at seed %llu: low + (high - low) u, in "
                  "[low, high) */", (unsigned long long)p->seed);
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", emit_sym(e, ir_numel(c, y)));
    emit_indent(e, 1);
    if (normal)
        emit_line(e, "const %s v = %s + %s * o2c_normal_%s(%s, (uint64_t)i);", ctype,
                  emit_literal(e, ct, p->a), emit_literal(e, ct, p->b), sfx, seed);
    else
        emit_line(e, "const %s v = %s + %s * o2c_unif_%s(%s, (uint64_t)i + 1u);", ctype,
                  emit_literal(e, ct, p->a), emit_literal(e, ct, p->span), sfx, seed);
    const char *yp = emit_ptr(e, y);
    if (normal && half)
        emit_line(e, "%s[i] = o2c_float_to_half((double)v, 5);", yp);
    else if (normal)
        emit_line(e, "%s[i] = v;", yp);
    else if (half) {
        emit_line(e, "const uint16_t h = o2c_float_to_half((double)v, 5);");
        emit_line(e, "const float f = o2c_half_to_float(h, 5);");
        emit_line(e, "%s[i] = f < %s ? (uint16_t)%u : f > %s ? (uint16_t)%u : h;", yp,
                  emit_literal(e, DT_FLOAT, half_value(p->hlo)), (unsigned)p->hlo,
                  emit_literal(e, DT_FLOAT, half_value(p->hhi)), (unsigned)p->hhi);
    } else
        emit_line(e, "%s[i] = v < %s ? v : %s;", yp, emit_literal(e, t, p->b),
                  emit_literal(e, t, p->below));
    emit_indent(e, -1);
    emit_line(e, "}");
}

/* Bernoulli (15): p float16, float or double; y of `dtype` (any number or bool, the input's
 * type by default), the shape of p. */
void infer_bernoulli(Compiler *c, Node *n) {
    Value *x = real_input(c, n);
    DType t = out_type(c, n, x->dtype);
    if (!is_real(t) && t != DT_BFLOAT16 && t != DT_BOOL && !dtype_is_int(t))
        o2c_error(c, n, "output type %s: expected a number type or bool", dtype_name(t));
    ir_set_shape(c, n->out[0], t, x->rank, x->shape);
    new_rand(c, n);
}

void emit_bernoulli(Compiler *c, Emit *e, Node *n) {
    const Rand *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    bool dbl = x->dtype == DT_DOUBLE;
    emit_template(e, "random_draws", DT_UNDEFINED);
    const char *px = real_elem(c, e, x, "i");
    emit_line(e, "/* 1 where the uniform draw (SplitMix64, seed %llu) is below p */",
              (unsigned long long)p->seed);
    emit_line(e, "for (int64_t i = 0; i < %s; i++)", emit_sym(e, ir_numel(c, y)));
    emit_line(e, "    %s[i] = o2c_unif_%s(%s, (uint64_t)i + 1u) < %s ? %s : 0;", emit_ptr(e, y),
              dbl ? "f64" : "f32", seed_literal(c, p), px, one_literal(y->dtype));
}

/* Multinomial (7): x [batch, classes] float16, float or double; y [batch, sample_size] of
 * `dtype` int32 (default) or int64.  Scratch: one row of weights in the type computed in. */
void infer_multinomial(Compiler *c, Node *n) {
    Value *x = real_input(c, n);
    if (x->rank != 2)
        o2c_error(c, n, "input has rank %d: expected [batch_size, class_size]", x->rank);
    DType t = (DType)attr_int(c, n, "dtype", DT_INT32);
    if (t != DT_INT32 && t != DT_INT64)
        o2c_error(c, n, "dtype %s: expected int32 or int64", dtype_name(t));
    int64_t s = attr_int(c, n, "sample_size", 1);
    if (s < 0 || s > ATTR_SIZE_MAX)
        o2c_error(c, n, "sample_size = %lld is not a size", (long long)s);
    ir_constrain(c, n, CK_LE, sym_const(c->sym, 1), x->shape[1],
                 "class_size (input dimension 1) must be at least 1");
    Sym *shape[2] = {x->shape[0], sym_const(c->sym, s)};
    ir_set_shape(c, n->out[0], t, 2, shape);
    DType ct = x->dtype == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
    n->scratch = sym_mul(c->sym, x->shape[1], sym_const(c->sym, (int64_t)dtype_size(ct)));
    new_rand(c, n);
}

void emit_multinomial(Compiler *c, Emit *e, Node *n) {
    const Rand *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    DType ct = x->dtype == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
    const char *sfx = emit_template(e, "random_multinomial", ct), *ctype = dtype_ctype(ct);
    emit_template(e, "random_draws", DT_UNDEFINED);
    const char *px = real_elem(c, e, x, "b * C + k");
    emit_line(e, "/* per row: cumulative weights exp(x - max x), then each sample the class "
                 "of a uniform draw (SplitMix64, seed %llu) */", (unsigned long long)p->seed);
    emit_line(e, "%s *const w = (%s *)(void *)(ws + %s);", ctype, ctype,
              emit_sym(e, n->scratch_offset));
    emit_line(e, "const int64_t C = %s, S = %s;", emit_sym(e, x->shape[1]),
              emit_sym(e, y->shape[1]));
    emit_line(e, "for (int64_t b = 0; b < %s; b++) {", emit_sym(e, x->shape[0]));
    emit_indent(e, 1);
    emit_line(e, "for (int64_t k = 0; k < C; k++)");
    emit_line(e, "    w[k] = %s;", px);
    emit_line(e, "o2c_mn_cumulate_%s(w, C);", sfx);
    emit_line(e, "for (int64_t s = 0; s < S; s++)");
    emit_line(e, "    %s[b * S + s] = (%s)o2c_mn_pick_%s(w, C, o2c_unif_%s(%s, (uint64_t)(b * S "
              "+ s) + 1u));", emit_ptr(e, y), dtype_ctype(y->dtype), sfx, sfx,
              seed_literal(c, p));
    emit_indent(e, -1);
    emit_line(e, "}");
}

/* ---- What a test driver can check of outputs that depend on draws (Output.checks)
 *
 * A value depends on draws when a random op or a Dropout in training mode computes it, or any
 * of its producer's inputs depends on draws.  A graph output that does is described by
 * walking back from it (libonnx2c.h, OutputCheck, says what each kind guarantees):
 *
 *   Identity, Reshape, Flatten, Squeeze, Unsqueeze   keep every property (the row-major
 *                                                    order of elements is kept, so element i
 *                                                    still pairs with ref's element i)
 *   Cast          keeps 0 or 1 (BINARY, MASK) to any type, a class (CLASS) to int32/int64,
 *                 a range or finiteness (RANGE, FINITE) to a wider float type
 *   Bernoulli     BINARY: 0 where p <= 0, 1 where p >= 1
 *   RandomUniform(Like)   RANGE [low, high);  RandomNormal(Like)   FINITE
 *   Multinomial   CLASS;  Dropout in training mode   DROPOUT (output), MASK (mask)
 *   u OP x, OP one of Less, LessOrEqual, Greater, GreaterOrEqual (either operand order), u
 *   a RANGE [lo, hi) and x depending on no draw: BINARY with what the range implies:
 *     u < x:  1 where x >= hi, 0 where x <= lo     u <= x:  1 where x >= hi, 0 where x < lo
 *     u > x:  1 where x < lo,  0 where x >= hi     u >= x:  1 where x <= lo, 0 where x >= hi
 *
 * ref is the runtime input of the same element count that a rule reads (through the same
 * copies), when there is one.  Anything else is O2C_DRAWS_NONE: its values are compared, so
 * an output computed from draws any other way fails rather than passes unchecked. */

static bool copies_elements(const char *op) {
    return !strcmp(op, "Identity") || !strcmp(op, "Reshape") || !strcmp(op, "Flatten") ||
           !strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze");
}

static bool draws_op(const Node *n) {
    if (!n->op)
        return false;
    if (!strcmp(n->op->family, "random"))
        return true;
    return !strcmp(n->op_type, "Dropout") && !n->domain[0] && !dropout_is_copy(n);
}

/* The runtime input whose elements pair with v's (v itself or reached back through copies of
 * the same element count as `out`), or -1. */
static int ref_input(Compiler *c, Value *v, Value *out) {
    Sym *want = ir_numel(c, out);
    for (int depth = 0; depth < 64 && v; depth++) {
        if (ir_numel(c, v) != want)
            return -1;
        if (v->kind == VAL_INPUT)
            return v->input_index;
        Node *n = v->producer;
        if (!n || n->domain[0] || !copies_elements(n->op_type) || v != n->out[0])
            return -1;
        v = n->in[0];
    }
    return -1;
}

/* A scalar constant or runtime input s (Dropout's ratio, training_mode): *in its input
 * index, or -1 and *val its value; false when it is neither. */
static bool scalar_operand(Compiler *c, Value *s, int *in, double *val) {
    *in = -1;
    if (s->kind == VAL_INPUT) {
        *in = s->input_index;
        return true;
    }
    if (s->data && ir_known_len(s) == 1) {
        switch (s->dtype) {
        case DT_FLOAT: *val = *(const float *)s->data; return true;
        case DT_DOUBLE: *val = *(const double *)s->data; return true;
        case DT_FLOAT16: *val = half_value(*(const uint16_t *)s->data); return true;
        case DT_BOOL: *val = *(const uint8_t *)s->data; return true;
        default: break;
        }
    }
    Sym **kv = s->kv ? ir_known_ints(c, s) : NULL;
    int64_t k;
    if (kv && ir_known_len(s) == 1 && sym_get_const(kv[0], &k)) {
        *val = (double)k;
        return true;
    }
    return false;
}

/* Dropout n in training mode: out[0] DROPOUT, out[1] MASK. */
static bool dropout_check(Compiler *c, Node *n, Value *v, OutputCheck *k) {
    double ratio = 0.5, train = 1;
    int ratio_in = -1, train_in = -1;
    if (n->opset >= 12) {
        Value *r = node_in(n, 1), *t = node_in(n, 2);
        if ((r && !scalar_operand(c, r, &ratio_in, &ratio)) ||
            (t && !scalar_operand(c, t, &train_in, &train)))
            return false;
    } else
        ratio = attr_float(c, n, "ratio", 0.5f);
    k->draws = v == n->out[0] ? O2C_DRAWS_DROPOUT : O2C_DRAWS_MASK;
    k->ref = ref_input(c, n->in[0], v);
    k->ratio_in = ratio_in;
    k->ratio = ratio;
    k->train_in = train_in;
    k->train = train != 0;
    return true;
}

/* u OP x for a comparison n whose operand `draw` (0 or 1) is a uniform draw in [lo, hi). */
static void comparison_check(Compiler *c, Node *n, int draw, const OutputCheck *u, Value *v,
                             OutputCheck *k) {
    const char *op = n->op_type;
    bool less = !strncmp(op, "Less", 4), eq = strstr(op, "OrEqual") != NULL;
    if (draw == 1)
        less = !less; /* x OP u is u OP' x */
    k->draws = O2C_DRAWS_BINARY;
    k->ref = ref_input(c, n->in[1 - draw], v);
    if (less) { /* u < x, u <= x */
        k->one_if = O2C_CMP_GE, k->one_at = u->hi;
        k->zero_if = eq ? O2C_CMP_LT : O2C_CMP_LE, k->zero_at = u->lo;
    } else { /* u > x, u >= x */
        k->one_if = eq ? O2C_CMP_LE : O2C_CMP_LT, k->one_at = u->lo;
        k->zero_if = O2C_CMP_GE, k->zero_at = u->hi;
    }
}

/* The check of value v (see above); *src the random op or comparison it comes from.  False:
 * no property found (O2C_DRAWS_NONE). */
static bool walk_draws(Compiler *c, const bool *dep, Value *v, OutputCheck *k, Node **src,
                       int depth) {
    Node *n = v->producer;
    if (!n || !n->op || n->domain[0] || depth > 64)
        return false;
    const char *op = n->op_type;
    *src = n;
    if (copies_elements(op) && v == n->out[0])
        return walk_draws(c, dep, n->in[0], k, src, depth + 1);
    if (!strcmp(op, "Cast") && v == n->out[0]) {
        DType from = n->in[0]->dtype, to = v->dtype;
        if (!walk_draws(c, dep, n->in[0], k, src, depth + 1))
            return false;
        switch (k->draws) {
        case O2C_DRAWS_BINARY: case O2C_DRAWS_MASK: return true;
        case O2C_DRAWS_CLASS: return to == DT_INT32 || to == DT_INT64;
        case O2C_DRAWS_RANGE: case O2C_DRAWS_FINITE:
            return to == from || (from == DT_FLOAT16 && (to == DT_FLOAT || to == DT_DOUBLE)) ||
                   (from == DT_FLOAT && to == DT_DOUBLE);
        default: return false;
        }
    }
    if (!strcmp(op, "Dropout"))
        return !dropout_is_copy(n) && dropout_check(c, n, v, k);
    if (!strcmp(op, "Bernoulli")) {
        k->draws = O2C_DRAWS_BINARY;
        k->ref = ref_input(c, n->in[0], v);
        k->zero_if = O2C_CMP_LE, k->zero_at = 0;
        k->one_if = O2C_CMP_GE, k->one_at = 1;
        return true;
    }
    if (!strcmp(op, "Multinomial")) {
        k->draws = O2C_DRAWS_CLASS;
        k->ref = n->in[0]->kind == VAL_INPUT ? n->in[0]->input_index : -1;
        if (!sym_get_const(n->in[0]->shape[1], &k->classes))
            k->classes = -1;
        return true;
    }
    if (!strcmp(n->op->family, "random")) {
        const Rand *p = n->priv;
        int var = n->op->variant;
        if (var == OPV_NORMAL || var == OPV_NORMAL_LIKE) {
            k->draws = O2C_DRAWS_FINITE;
            return true;
        }
        k->draws = O2C_DRAWS_RANGE;
        k->lo = p->a;
        k->hi = p->b;
        return true;
    }
    if (!strcmp(op, "Less") || !strcmp(op, "LessOrEqual") || !strcmp(op, "Greater") ||
        !strcmp(op, "GreaterOrEqual")) {
        for (int d = 0; d < 2; d++) {
            OutputCheck u = {0};
            Node *us = NULL;
            if (dep[n->in[d]->id] && !dep[n->in[1 - d]->id] &&
                walk_draws(c, dep, n->in[d], &u, &us, depth + 1) && u.draws == O2C_DRAWS_RANGE) {
                comparison_check(c, n, d, &u, v, k);
                snprintf(k->op, sizeof k->op, "%s of %s", op, us->op_type);
                return true;
            }
        }
    }
    return false;
}

void random_checks(Compiler *c, OutputCheck *ck) {
    Graph *g = c->g;
    bool *dep = arena_alloc(c->arena, sizeof(bool) * (size_t)(g->nvalues + 1));
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        bool d = draws_op(n);
        for (int k = 0; k < n->nin && !d; k++)
            d = n->in[k] && dep[n->in[k]->id];
        for (int k = 0; k < n->nout; k++)
            if (n->out[k])
                dep[n->out[k]->id] = d;
    }
    Node **src = arena_alloc(c->arena, sizeof(Node *) * (size_t)(g->noutputs + 1));
    for (int i = 0; i < g->noutputs; i++) {
        Value *v = g->outputs[i];
        OutputCheck *k = &ck[i];
        memset(k, 0, sizeof *k);
        k->dtype = v->dtype;
        k->ref = k->ratio_in = k->train_in = k->pair = -1;
        if (!dep[v->id] || !walk_draws(c, dep, v, k, &src[i], 0)) {
            OutputCheck none = {.dtype = v->dtype, .ref = -1, .ratio_in = -1, .train_in = -1,
                                .pair = -1};
            *k = none;
            src[i] = NULL;
            continue;
        }
        if (!k->op[0])
            snprintf(k->op, sizeof k->op, "%s", src[i]->op_type);
    }
    /* a Dropout's output and mask, both graph outputs: each names the other */
    for (int i = 0; i < g->noutputs; i++)
        for (int j = 0; j < g->noutputs; j++)
            if (ck[i].draws == O2C_DRAWS_DROPOUT && ck[j].draws == O2C_DRAWS_MASK &&
                src[i] == src[j]) {
                ck[i].pair = j;
                ck[j].pair = i;
            }
}
