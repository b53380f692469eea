/* elementwise.c — op family: elementwise math with numpy broadcasting.
 *
 * ONNX: unary math (Abs ... Tanh, the activations Elu/Selu/HardSigmoid/..., IsNaN/IsInf, Not),
 * binary arithmetic, comparisons and logic (Add ... Xor, Mod, Pow, BitShift, PRelu), the
 * variadic Max/Min/Sum/Mean, and Clip, Where, Cast, CastLike.
 * Shapes: the (multidirectional) broadcast of the inputs; PRelu's slope broadcasts to X.
 * Folding: integer (and bool) inputs known at compile time give known outputs as Syms, so
 * shape arithmetic exported by PyTorch (Shape -> Gather -> Mul -> Cast -> Concat) folds away.
 * Code: one loop nest per node through emit_elementwise.  Ops are rows of tables holding one C
 * expression per class of element type; an expression is a template (expand.c's syntax) in which
 *   $0..$9  the input elements (16-bit floats are converted to float on read),
 *   $F      the suffix of the math functions of the compute type ("f" for float, "" for double),
 *   $T      the C compute type, $a $b $c the op's parameters as literals of the compute type,
 *   $y      the output's C type (emit_elementwise's),
 * and whose value is converted back to 16-bit float bits when the output is float16/bfloat16. */
#include "onnx2c.h"
#include <float.h>
#include <math.h>
#include <string.h>

/* ---- element type classes */

typedef enum {
    CL_FLOAT, /* float, double, float16, bfloat16 (the 16-bit ones computed in float) */
    CL_SINT,  /* int8 .. int64 */
    CL_UINT,  /* uint8 .. uint64 */
    CL_BOOL,
    CL_NONE,  /* strings, complex: never supported */
} TypeClass;

static bool is_half(DType t) { return t == DT_FLOAT16 || t == DT_BFLOAT16; }

static TypeClass type_class(DType t) {
    if (dtype_is_float(t) || is_half(t))
        return CL_FLOAT;
    if (dtype_is_int(t))
        return dtype_is_signed(t) ? CL_SINT : CL_UINT;
    if (t == DT_BOOL)
        return CL_BOOL;
    return CL_NONE;
}

/* The type arithmetic is done in: float for the 16-bit floats. */
static DType compute_type(DType t) { return is_half(t) ? DT_FLOAT : t; }

/* One expression per class; NULL: the class is not supported by the op. */
typedef struct {
    const char *f, *s, *u, *b;
} Exprs;

static const char *pick_expr(const Exprs *x, DType t) {
    switch (type_class(t)) {
    case CL_FLOAT: return x->f;
    case CL_SINT: return x->s;
    case CL_UINT: return x->u;
    case CL_BOOL: return x->b;
    default: return NULL;
    }
}

static const char *require_expr(Compiler *c, Node *n, const Exprs *x, DType t) {
    const char *s = pick_expr(x, t);
    if (!s)
        o2c_error(c, n, "element type %s is not supported", dtype_name(t));
    return s;
}

/* ---- expression templates */

/* What the placeholders of an expression template stand for (see the top of the file). */
typedef struct ExprKeys {
    Emit *e;
    Value *const *ins;
    DType ct;
    const double *par;
    bool raw;
} ExprKeys;

/* Replaces $F, $T, $a..$c, and $0..$9 of a 16-bit float input (by its conversion, whose $N
 * emit_elementwise replaces); leaves the other $N and $y to emit_elementwise. */
static bool expr_key(Buf *b, const char *key, size_t len, void *user) {
    const ExprKeys *k = user;
    if (len != 1)
        return false;
    char ch = key[0];
    if (ch >= '0' && ch <= '9' && !k->raw && is_half(k->ins[ch - '0']->dtype)) {
        emit_template(k->e, "ew_half_to_float", DT_UNDEFINED);
        buf_printf(b, "o2c_half_to_float($%c, %d)", ch,
                   k->ins[ch - '0']->dtype == DT_FLOAT16 ? 5 : 8);
    } else if (ch == 'F')
        buf_puts(b, k->ct == DT_FLOAT ? "f" : "");
    else if (ch == 'T')
        buf_puts(b, dtype_ctype(k->ct));
    else if (ch >= 'a' && ch <= 'c')
        buf_puts(b, emit_literal(k->e, k->ct, k->par[ch - 'a']));
    else
        return false;
    return true;
}

/* Expands an expression template (see the top of the file) with the 16-bit float conversions,
 * then prints the loop nest.  raw: move elements as bits (no conversion). */
static void emit_expr(Emit *e, Node *n, Value *out, int nin, Value *const *ins, const char *tmpl,
                      DType ct, const double *par, bool raw) {
    Buf b;
    buf_init_in(&b, emit_arena(e));
    bool wrap = !raw && is_half(out->dtype);
    if (wrap) {
        emit_template(e, "ew_float_to_half", DT_UNDEFINED);
        buf_puts(&b, "o2c_float_to_half((double)(");
    }
    ExprKeys keys = {e, ins, ct, par, raw};
    expand(&b, tmpl, NULL, EXPAND_DOLLAR, expr_key, &keys);
    if (wrap)
        buf_printf(&b, "), %d)", out->dtype == DT_FLOAT16 ? 5 : 8);
    emit_elementwise(e, n, out, nin, ins, b.data);
    buf_free(&b);
}

/* The saturating conversion of a double to the integer type t (templates/int_sat.c). */
static const char *sat_fn(Emit *e, DType t) {
    return arena_printf(emit_arena(e), "o2c_sat_%s", emit_template(e, "int_sat", t));
}

/* ---- shapes */

/* Output shape = broadcast of all present inputs. */
static void infer_broadcast_all(Compiler *c, Node *n, DType out_type) {
    Value *a = infer_in(c, n, 0);
    int r = a->rank;
    for (int k = 1; k < n->nin; k++)
        if (n->in[k] && n->in[k]->rank > r)
            r = n->in[k]->rank;
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
    Sym **tmp = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(r + 1));
    r = a->rank;
    for (int i = 0; i < r; i++)
        shape[i] = a->shape[i];
    for (int k = 1; k < n->nin; k++) {
        Value *b = n->in[k];
        if (!b)
            continue;
        r = infer_broadcast(c, n, r, shape, b->rank, b->shape, tmp);
        for (int i = 0; i < r; i++)
            shape[i] = tmp[i];
    }
    ir_set_shape(c, n->out[0], out_type == DT_UNDEFINED ? a->dtype : out_type, r, shape);
}

static void require_same_types(Compiler *c, Node *n, int from, int to) {
    for (int k = from + 1; k < to && k < n->nin; k++)
        if (n->in[k] && n->in[k]->dtype != n->in[from]->dtype)
            o2c_error(c, n, "input %d has type %s but input %d has type %s", k,
                      dtype_name(n->in[k]->dtype), from, dtype_name(n->in[from]->dtype));
}

/* ---- folding of known integer values */

/* Index of output element i in an input of shape `in` broadcast to `out` (constant shapes). */
static int64_t bcast_index(const Value *out, const Value *in, int64_t i) {
    int64_t idx = 0, stride = 1;
    for (int d = out->rank - 1; d >= 0; d--) {
        int64_t od, id = 1;
        sym_get_const(out->shape[d], &od);
        int k = d - (out->rank - in->rank);
        if (k >= 0)
            sym_get_const(in->shape[k], &id);
        int64_t coord = od ? i % od : 0;
        i = od ? i / od : 0;
        if (k >= 0) {
            idx += (id == 1 ? 0 : coord) * stride;
            stride *= id;
        }
    }
    return idx;
}

/* A fold rule: the result as a Sym, or NULL when it cannot be known at compile time. */
typedef Sym *(*Fold2)(SymCtx *, Sym *, Sym *);
typedef Sym *(*Fold1)(SymCtx *, Sym *);

static bool both_const(Sym *a, Sym *b, int64_t *x, int64_t *y) {
    return sym_get_const(a, x) && sym_get_const(b, y);
}

/* Wraps v to the range of the integer (or bool) type t, as a C conversion would. */
static int64_t wrap_int(DType t, int64_t v) {
    switch (t) {
    case DT_BOOL: return v != 0;
    case DT_INT8: return (int8_t)v;
    case DT_UINT8: return (uint8_t)v;
    case DT_INT16: return (int16_t)v;
    case DT_UINT16: return (uint16_t)v;
    case DT_INT32: return (int32_t)v;
    case DT_UINT32: return (uint32_t)v;
    default: return v;
    }
}

static bool foldable_type(DType t) { return dtype_is_int(t) || t == DT_BOOL; }

/* The float v converted to the integer (or bool) type t as the kernel converts it: saturated,
 * NaN to 0 (templates/int_sat.c).  False for a uint64 result above INT64_MAX (no int64 Sym). */
static bool sat_int(DType t, double v, int64_t *out) {
    if (t == DT_BOOL) {
        *out = v != 0;
        return true;
    }
    int bits = (int)dtype_size(t) * 8;
    bool sgn = dtype_is_signed(t);
    double top = ldexp(1.0, sgn ? bits - 1 : bits); /* the first value above t's range */
    if (v != v)
        *out = 0;
    else if (t == DT_UINT64 && v >= ldexp(1.0, 63))
        return false;
    else if (v >= top)
        *out = bits == 64 ? INT64_MAX : (int64_t)top - 1;
    else if (v <= (sgn ? -top : -1.0))
        *out = sgn ? (bits == 64 ? INT64_MIN : -(int64_t)top) : 0;
    else
        *out = (int64_t)v;
    return true;
}

/* y = f(f(in0, in1), in2) ... over known inputs broadcast to y's constant shape. */
static void fold_nary(Compiler *c, Node *n, Fold2 f, int nin, Value *const *ins) {
    Value *y = n->out[0];
    if (!f || !foldable_type(y->dtype))
        return;
    int64_t len = ir_known_len(y);
    if (len < 0 || len > 4096)
        return;
    Sym ***k = arena_alloc(c->arena, sizeof(Sym **) * (size_t)(nin + 1));
    for (int j = 0; j < nin; j++)
        if (!ins[j] || !foldable_type(ins[j]->dtype) || !(k[j] = ir_known_ints(c, ins[j])))
            return;
    Sym **kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len ? len : 1));
    for (int64_t i = 0; i < len; i++) {
        Sym *acc = k[0][bcast_index(y, ins[0], i)];
        for (int j = 1; j < nin && acc; j++)
            acc = f(c->sym, acc, k[j][bcast_index(y, ins[j], i)]);
        if (!acc)
            return;
        int64_t v;
        if (sym_get_const(acc, &v) && wrap_int(y->dtype, v) != v)
            acc = sym_const(c->sym, wrap_int(y->dtype, v));
        kv[i] = acc;
    }
    y->kv = kv;
}

static void fold_unary(Compiler *c, Node *n, Fold1 f) {
    Value *x = n->in[0], *y = n->out[0];
    int64_t len = ir_known_len(y);
    Sym **kx;
    if (!f || !foldable_type(y->dtype) || len < 0 || len > 4096 || !(kx = ir_known_ints(c, x)))
        return;
    Sym **kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len ? len : 1));
    for (int64_t i = 0; i < len; i++) {
        int64_t v;
        if (!(kv[i] = f(c->sym, kx[i])))
            return;
        if (sym_get_const(kv[i], &v) && wrap_int(y->dtype, v) != v)
            kv[i] = sym_const(c->sym, wrap_int(y->dtype, v));
    }
    y->kv = kv;
}

/* The folds of Div and Mod give what the kernel gives (SDIV, SNZ below): x / -1 wraps,
 * x % -1 is 0; a zero divisor is left to the kernel (0). */
static int64_t neg_wrap(int64_t x) { return (int64_t)(0 - (uint64_t)x); }

static Sym *fold_div(SymCtx *s, Sym *a, Sym *b) {
    /* ONNX integer Div truncates toward zero; symbolic values are shape values (non-negative),
     * where truncation is floor */
    int64_t x, y;
    if (both_const(a, b, &x, &y))
        return y == 0 ? NULL : sym_const(s, y == -1 ? neg_wrap(x) : x / y);
    return sym_floordiv(s, a, b);
}

static Sym *fold_mod(SymCtx *s, Sym *a, Sym *b) { /* fmod=0: sign of the divisor */
    int64_t x, y;
    if (both_const(a, b, &x, &y) && (y == 0 || y == -1))
        return y ? sym_const(s, 0) : NULL;
    return sym_mod(s, a, b);
}

static Sym *fold_fmod(SymCtx *s, Sym *a, Sym *b) { /* fmod=1: C %, sign of the dividend */
    int64_t x, y;
    if (both_const(a, b, &x, &y))
        return y == 0 ? NULL : sym_const(s, y == -1 ? 0 : x % y);
    return NULL;
}

/* -1, 0 or 1 when a < b, a == b or a > b for every value of the dims; 2 when unknown.  Shape
 * arithmetic compares symbolic sizes with constants: torch's expand(N, -1, -1) exports as
 * Where(Equal([N, -1, -1], -1), 1, [N, -1, -1]), where N == -1 is false because N >= 0. */
static int sym_cmp(SymCtx *s, Sym *a, Sym *b) {
    if (a == b)
        return 0;
    if (sym_nonneg(sym_sub(s, sym_sub(s, a, b), sym_const(s, 1))))
        return 1;
    if (sym_nonneg(sym_sub(s, sym_sub(s, b, a), sym_const(s, 1))))
        return -1;
    return 2;
}

#define FOLD_CMP(name, op)                                                                         \
    static Sym *name(SymCtx *s, Sym *a, Sym *b) {                                                  \
        int64_t x, y;                                                                              \
        if (both_const(a, b, &x, &y))                                                              \
            return sym_const(s, x op y);                                                           \
        int r = sym_cmp(s, a, b);                                                                  \
        if (r != 2)                                                                                \
            return sym_const(s, r op 0);                                                           \
        return NULL;                                                                               \
    }
FOLD_CMP(fold_less, <)
FOLD_CMP(fold_less_equal, <=)
FOLD_CMP(fold_greater, >)
FOLD_CMP(fold_greater_equal, >=)
#undef FOLD_CMP
#define FOLD_CMP(name, op)                                                                         \
    static Sym *name(SymCtx *s, Sym *a, Sym *b) {                                                  \
        int64_t x, y;                                                                              \
        if (both_const(a, b, &x, &y))                                                              \
            return sym_const(s, x op y);                                                           \
        return NULL;                                                                               \
    }
FOLD_CMP(fold_and, &&)
FOLD_CMP(fold_or, ||)
FOLD_CMP(fold_xor, !=)

static Sym *fold_equal(SymCtx *s, Sym *a, Sym *b) {
    int r = sym_cmp(s, a, b); /* interned: the same expression is the same pointer */
    int64_t x, y;
    if (r == 2 && both_const(a, b, &x, &y))
        r = x != y;
    return r == 2 ? NULL : sym_const(s, r == 0);
}

/* Integer data wraps as the kernels' does (WRAP, WNEG): constants are computed in uint64_t;
 * symbolic values are sizes, left to the Sym rules (which refuse an overflow). */
static Sym *fold_add(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    return both_const(a, b, &x, &y) ? sym_const(s, (int64_t)((uint64_t)x + (uint64_t)y))
                                    : sym_add(s, a, b);
}

static Sym *fold_sub(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    return both_const(a, b, &x, &y) ? sym_const(s, (int64_t)((uint64_t)x - (uint64_t)y))
                                    : sym_sub(s, a, b);
}

static Sym *fold_mul(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    return both_const(a, b, &x, &y) ? sym_const(s, (int64_t)((uint64_t)x * (uint64_t)y))
                                    : sym_mul(s, a, b);
}

static Sym *fold_neg(SymCtx *s, Sym *a) {
    int64_t x;
    return sym_get_const(a, &x) ? sym_const(s, neg_wrap(x)) : sym_neg(s, a);
}

static Sym *fold_abs(SymCtx *s, Sym *a) {
    int64_t x;
    return sym_get_const(a, &x) ? sym_const(s, x < 0 ? neg_wrap(x) : x) : NULL;
}

static Sym *fold_not(SymCtx *s, Sym *a) {
    int64_t x;
    return sym_get_const(a, &x) ? sym_const(s, !x) : NULL;
}

static Sym *fold_sign(SymCtx *s, Sym *a) {
    int64_t x;
    return sym_get_const(a, &x) ? sym_const(s, (x > 0) - (x < 0)) : NULL;
}

static Sym *fold_relu(SymCtx *s, Sym *a) { return sym_max(s, a, sym_const(s, 0)); }

/* ---- unary ops */

typedef struct {
    const char *name;
    Exprs x;
    bool to_bool;          /* the output is bool (IsNaN) */
    const char *attr[3];   /* parameters $a..$c: attribute names (NULL: a fixed value) */
    double def[3];         /* their defaults */
    Fold1 fold;
} UnaryOp;

#define MATH(name, fn) {name, {fn "$F($0)", NULL, NULL, NULL}, false, {NULL}, {0}, NULL}

/* min(1, max(0, v)) by comparisons, NaN kept */
#define HCLIP(v) v " > ($T)1 ? ($T)1 : (" v " < ($T)0 ? ($T)0 : " v ")"

/* Integer negation wrapping modulo 2^n: -INT_MIN is INT_MIN (numpy's), computed in uint64_t */
#define WNEG "($y)(0 - (uint64_t)$0)"

static const UnaryOp unary_ops[] = {
    /* Abs: y = |x| (|INT_MIN| wraps to INT_MIN) */
    {"Abs", {"fabs$F($0)", "$0 < 0 ? " WNEG " : $0", "$0", NULL}, false, {NULL}, {0}, fold_abs},
    /* Neg: y = -x */
    {"Neg", {"-$0", WNEG, NULL, NULL}, false, {NULL}, {0}, fold_neg},
    /* Relu: y = max(0, x) */
    {"Relu", {"$0 > 0 ? $0 : 0", "$0 > 0 ? $0 : 0", "$0", NULL}, false, {NULL}, {0}, fold_relu},
    /* Sign: y = (x > 0) - (x < 0) */
    {"Sign", {"($0 > 0) - ($0 < 0)", "($0 > 0) - ($0 < 0)", "$0 > 0", NULL}, false, {NULL}, {0},
     fold_sign},
    /* Not: y = !x (bool) */
    {"Not", {NULL, NULL, NULL, "!$0"}, false, {NULL}, {0}, fold_not},
    MATH("Ceil", "ceil"),
    MATH("Floor", "floor"),
    MATH("Round", "rint"), /* round half to even: rint in the default rounding mode */
    MATH("Sqrt", "sqrt"),
    MATH("Exp", "exp"),
    MATH("Log", "log"),
    MATH("Sin", "sin"),
    MATH("Cos", "cos"),
    MATH("Tan", "tan"),
    MATH("Asin", "asin"),
    MATH("Acos", "acos"),
    MATH("Atan", "atan"),
    MATH("Sinh", "sinh"),
    MATH("Cosh", "cosh"),
    MATH("Tanh", "tanh"),
    MATH("Asinh", "asinh"),
    MATH("Acosh", "acosh"),
    MATH("Atanh", "atanh"),
    MATH("Erf", "erf"),
    /* Reciprocal: y = 1 / x */
    {"Reciprocal", {"($T)1 / $0", NULL, NULL, NULL}, false, {NULL}, {0}, NULL},
    /* Sigmoid: y = 1 / (1 + exp(-x)) */
    {"Sigmoid", {"($T)1 / (($T)1 + exp$F(-$0))", NULL, NULL, NULL}, false, {NULL}, {0}, NULL},
    /* Softplus: y = ln(exp(x) + 1) */
    {"Softplus", {"log$F(exp$F($0) + ($T)1)", NULL, NULL, NULL}, false, {NULL}, {0}, NULL},
    /* Softsign: y = x / (1 + |x|) */
    {"Softsign", {"$0 / (($T)1 + fabs$F($0))", NULL, NULL, NULL}, false, {NULL}, {0}, NULL},
    /* Elu: y = x > 0 ? x : alpha * (exp(x) - 1) */
    {"Elu", {"$0 > 0 ? $0 : $a * (exp$F($0) - ($T)1)", NULL, NULL, NULL}, false, {"alpha"}, {1.0},
     NULL},
    /* Celu: y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
    {"Celu", {"fmax$F(($T)0, $0) + fmin$F(($T)0, $a * (exp$F($0 / $a) - ($T)1))", NULL, NULL, NULL},
     false, {"alpha"}, {1.0}, NULL},
    /* Selu: y = gamma * (x > 0 ? x : alpha * exp(x) - alpha) */
    {"Selu", {"$0 > 0 ? $b * $0 : $b * ($a * exp$F($0) - $a)", NULL, NULL, NULL}, false,
     {"alpha", "gamma"}, {1.67326319217681884765625, 1.05070102214813232421875}, NULL},
    /* LeakyRelu: y = x < 0 ? alpha * x : x */
    {"LeakyRelu", {"$0 < 0 ? $a * $0 : $0", NULL, NULL, NULL}, false, {"alpha"}, {0.01}, NULL},
    /* ThresholdedRelu: y = x > alpha ? x : 0 */
    {"ThresholdedRelu", {"$0 > $a ? $0 : ($T)0", NULL, NULL, NULL}, false, {"alpha"}, {1.0}, NULL},
    /* HardSigmoid: y = max(0, min(1, alpha * x + beta)), by comparisons: NaN stays NaN (as in
     * the fused epilogue, templates/gemm_act.c) and the loop vectorises (fminf/fmaxf calls do
     * not) */
    {"HardSigmoid", {HCLIP("$a * $0 + $b"), NULL, NULL, NULL}, false,
     {"alpha", "beta"}, {0.2, 0.5}, NULL},
    /* HardSwish: y = x * max(0, min(1, x / 6 + 1 / 2)) */
    {"HardSwish", {"$0 * (" HCLIP("$a * $0 + $b") ")", NULL, NULL, NULL}, false,
     {NULL}, {1.0 / 6.0, 0.5}, NULL},
    /* Shrink: y = x < -lambd ? x + bias : x > lambd ? x - bias : 0 (integers wrap) */
    {"Shrink",
     {"$0 < -$b ? $0 + $a : ($0 > $b ? $0 - $a : ($T)0)",
      "$0 < -$b ? ($y)((uint64_t)$0 + (uint64_t)$a) : ($0 > $b ? ($y)((uint64_t)$0 - (uint64_t)$a) : 0)",
      "$0 > $b ? ($y)((uint64_t)$0 - (uint64_t)$a) : 0", NULL},
     false, {"bias", "lambd"}, {0.0, 0.5}, NULL},
    /* IsNaN: y = x != x */
    {"IsNaN", {"isnan($0) != 0", NULL, NULL, NULL}, true, {NULL}, {0}, NULL},
};

static const UnaryOp *find_unary(const Node *n) {
    for (size_t i = 0; i < sizeof unary_ops / sizeof *unary_ops; i++)
        if (!strcmp(unary_ops[i].name, n->op_type))
            return &unary_ops[i];
    return NULL;
}

typedef struct {
    const char *expr;
    double par[3];
} ExprPriv;

void infer_unary(Compiler *c, Node *n) {
    const UnaryOp *op = find_unary(n);
    O2C_ASSERT(c, op != NULL);
    Value *x = n->in[0];
    ExprPriv *p = arena_alloc(c->arena, sizeof *p);
    p->expr = require_expr(c, n, &op->x, x->dtype);
    for (int i = 0; i < 3; i++)
        p->par[i] = op->attr[i] ? attr_float(c, n, op->attr[i], (float)op->def[i]) : op->def[i];
    /* an integer Shrink takes its parameters as literals of the input type: whole numbers
     * that -lambd and the type's literals hold (non-negative for an unsigned input) */
    if (!strcmp(op->name, "Shrink") && !dtype_is_float(x->dtype) && !is_half(x->dtype))
        for (int i = 0; i < 2; i++)
            if (p->par[i] != floor(p->par[i]) || !(fabs(p->par[i]) < 2147483648.0) ||
                (p->par[i] < 0 && !dtype_is_signed(x->dtype)))
                o2c_error(c, n, "%s = %g is not supported for input type %s (a whole number in "
                          "(-2^31, 2^31), non-negative for an unsigned type)",
                          i ? "lambd" : "bias", p->par[i], dtype_name(x->dtype));
    n->priv = p;
    ir_set_shape(c, n->out[0], op->to_bool ? DT_BOOL : x->dtype, x->rank, x->shape);
    fold_unary(c, n, op->fold);
}

void emit_unary(Compiler *c, Emit *e, Node *n) {
    (void)c;
    ExprPriv *p = n->priv;
    emit_expr(e, n, n->out[0], 1, n->in, p->expr, compute_type(n->in[0]->dtype), p->par, false);
}

/* IsInf: y = isinf(x) && (x > 0 ? detect_positive : detect_negative) */
void infer_isinf(Compiler *c, Node *n) {
    Value *x = n->in[0];
    if (type_class(x->dtype) != CL_FLOAT)
        o2c_error(c, n, "element type %s is not supported", dtype_name(x->dtype));
    bool pos = attr_int(c, n, "detect_positive", 1) != 0;
    bool neg = attr_int(c, n, "detect_negative", 1) != 0;
    ExprPriv *p = arena_alloc(c->arena, sizeof *p);
    p->expr = pos && neg ? "isinf($0) != 0"
              : pos      ? "isinf($0) && $0 > 0"
              : neg      ? "isinf($0) && $0 < 0"
                         : "0";
    n->priv = p;
    ir_set_shape(c, n->out[0], DT_BOOL, x->rank, x->shape);
}

/* ---- binary and variadic ops */

typedef struct {
    const char *name;
    const char *variant; /* attribute value selecting the row (Mod fmod, BitShift direction) */
    Exprs x;             /* the result from $0 and $1 */
    bool to_bool;        /* comparisons */
    bool variadic;       /* Max/Min/Sum/Mean: 1..n inputs, folded left to right */
    Fold2 fold;
} BinaryOp;

/* Max/Min propagate NaN from either side (as numpy's maximum does). */
#define MAXMIN(op) "$0 " op " $1 || $0 != $0 ? $0 : $1", "$0 " op " $1 ? $0 : $1", "$0 " op " $1 ? $0 : $1"
#define ARITH(op) "$0 " op " $1", "$0 " op " $1", "$0 " op " $1"
/* Integer +, -, * wrap modulo 2^n as numpy's do: computed in uint64_t (no signed overflow,
 * no promotion of uint16 to int) and converted back */
#define WRAP(op) "$0 " op " $1", "($y)((uint64_t)$0 " op " (uint64_t)$1)", "($y)((uint64_t)$0 " op " (uint64_t)$1)"
/* Integer division and remainder by zero give 0 rather than trap; so does a signed remainder
 * by -1 (INT_MIN % -1 traps too; x % -1 is 0), and a signed quotient by -1 is the wrapping
 * negation (INT_MIN / -1 is INT_MIN).  ONNX leaves these undefined; docs/ops.md lists them. */
#define NZ(x) "$1 != 0 ? " x " : 0"
#define SNZ(x) "$1 != 0 && $1 != -1 ? " x " : 0"
#define SDIV "$1 != 0 && $1 != -1 ? $0 / $1 : $1 == -1 ? " WNEG " : 0"
/* Mod, fmod=0: r = a % b, plus b when r and b differ in sign (the sign of the divisor) */
#define PYMOD(m) "(" m " != 0 && ((" m " < 0) != ($1 < 0))) ? " m " + $1 : " m

static const BinaryOp binary_ops[] = {
    {"Add", NULL, {WRAP("+"), NULL}, false, false, fold_add},
    {"Sub", NULL, {WRAP("-"), NULL}, false, false, fold_sub},
    {"Mul", NULL, {WRAP("*"), NULL}, false, false, fold_mul},
    /* Div: integer division truncates toward zero, as C's / does */
    {"Div", NULL, {"$0 / $1", SDIV, NZ("$0 / $1"), NULL}, false, false, fold_div},
    /* Mod fmod=1: C fmod / %, the sign of the dividend */
    {"Mod", "1", {"fmod$F($0, $1)", SNZ("$0 % $1"), NZ("$0 % $1"), NULL}, false, false, fold_fmod},
    /* Mod fmod=0: the sign of the divisor (Python's %) */
    {"Mod", "0", {PYMOD("fmod$F($0, $1)"), SNZ("(" PYMOD("$0 % $1") ")"), NZ("$0 % $1"), NULL}, false, false, fold_mod},
    /* BitShift: shifts of the width or more give 0 (C leaves them undefined) */
    {"BitShift", "LEFT", {NULL, NULL, "$1 < 64 ? ($y)((uint64_t)$0 << $1) : 0", NULL}, false, false,
     NULL},
    {"BitShift", "RIGHT", {NULL, NULL, "$1 < 64 ? ($y)((uint64_t)$0 >> $1) : 0", NULL}, false, false,
     NULL},
    {"Equal", NULL, {"$0 == $1", "$0 == $1", "$0 == $1", "$0 == $1"}, true, false, fold_equal},
    {"Less", NULL, {ARITH("<"), NULL}, true, false, fold_less},
    {"LessOrEqual", NULL, {ARITH("<="), NULL}, true, false, fold_less_equal},
    {"Greater", NULL, {ARITH(">"), NULL}, true, false, fold_greater},
    {"GreaterOrEqual", NULL, {ARITH(">="), NULL}, true, false, fold_greater_equal},
    {"And", NULL, {NULL, NULL, NULL, "$0 && $1"}, true, false, fold_and},
    {"Or", NULL, {NULL, NULL, NULL, "$0 || $1"}, true, false, fold_or},
    {"Xor", NULL, {NULL, NULL, NULL, "($0 != 0) != ($1 != 0)"}, true, false, fold_xor},
    /* PRelu: y = x < 0 ? slope * x : x, slope broadcast to x (integers wrap) */
    {"PRelu", NULL, {"$0 < 0 ? $0 * $1 : $0", "$0 < 0 ? ($y)((uint64_t)$0 * (uint64_t)$1) : $0", "$0", NULL}, false, false, NULL},
    {"Max", NULL, {MAXMIN(">"), NULL}, false, true, sym_max},
    {"Min", NULL, {MAXMIN("<"), NULL}, false, true, sym_min},
    {"Sum", NULL, {WRAP("+"), NULL}, false, true, fold_add},
    /* Mean: the sum, then divided by the count */
    {"Mean", NULL, {"$0 + $1", NULL, NULL, NULL}, false, true, NULL},
};

static const BinaryOp *find_binary(Compiler *c, const Node *n) {
    const char *variant = NULL;
    if (!strcmp(n->op_type, "Mod"))
        variant = attr_int(c, n, "fmod", 0) ? "1" : "0";
    else if (!strcmp(n->op_type, "BitShift")) {
        variant = attr_str(c, n, "direction", NULL);
        if (!variant)
            o2c_error(c, n, "attribute 'direction' is required");
    }
    for (size_t i = 0; i < sizeof binary_ops / sizeof *binary_ops; i++)
        if (!strcmp(binary_ops[i].name, n->op_type) &&
            (!variant || !strcmp(binary_ops[i].variant, variant)))
            return &binary_ops[i];
    o2c_error(c, n, "unsupported attribute value '%s'", variant ? variant : "");
}

void infer_binary(Compiler *c, Node *n) {
    const BinaryOp *op = find_binary(c, n);
    if (op->variadic) {
        infer_require_inputs(c, n, 1, -1);
        for (int k = 0; k < n->nin; k++)
            if (!n->in[k])
                o2c_error(c, n, "input %d is empty", k);
    } else
        infer_require_inputs(c, n, 2, 2);
    require_same_types(c, n, 0, n->nin);
    DType t = n->in[0]->dtype;
    require_expr(c, n, &op->x, t);
    if (!strcmp(op->name, "PRelu")) {
        /* unidirectional: the slope broadcasts to X's shape */
        Value *x = n->in[0], *s = n->in[1];
        Sym **tmp = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(x->rank + s->rank + 1));
        int r = infer_broadcast(c, n, x->rank, x->shape, s->rank, s->shape, tmp);
        bool ok = r == x->rank;
        for (int i = 0; ok && i < r; i++) { /* a dim of the slope decided at run time: X's */
            int si = i - (r - s->rank);
            ok = tmp[i] == x->shape[i] || (si >= 0 && !sym_is_const(s->shape[si]) &&
                                           !sym_is_const(x->shape[i]));
        }
        if (!ok)
            o2c_error(c, n, "slope of rank %d does not broadcast to X of rank %d", s->rank, x->rank);
        ir_set_shape(c, n->out[0], t, x->rank, x->shape);
    } else
        infer_broadcast_all(c, n, op->to_bool ? DT_BOOL : DT_UNDEFINED);
    if (!dtype_is_int(t) && t != DT_BOOL)
        return;
    fold_nary(c, n, op->fold, n->nin, n->in);
}

/* A float Mul of a tensor by one value per row, [R..., 1...] against [R..., C...] (the
 * excitation of squeeze-excitation, a scale [N, C, 1, 1] over [N, C, H, W]): a call of
 * templates/ew_scale.c, which the C compiler vectorises at -O2 too.  False when n is not one. */
static bool emit_row_scale(Compiler *c, Emit *e, Node *n) {
    Value *y = n->out[0];
    int r = y->rank;
    if ((y->dtype != DT_FLOAT && y->dtype != DT_DOUBLE) || n->nin != 2 || !n->in[0] || !n->in[1] ||
        n->in[0]->dtype != y->dtype || n->in[1]->dtype != y->dtype || r < 2)
        return false;
    for (int a = 0; a < 2; a++) {
        Value *x = n->in[a], *sc = n->in[1 - a];
        bool ok = x->rank == r && sc->rank == r;
        for (int d = 0; ok && d < r; d++)
            ok = x->shape[d] == y->shape[d];
        int k = r;
        int64_t one;
        while (ok && k > 0 && sym_get_const(sc->shape[k - 1], &one) && one == 1)
            k--;
        for (int d = 0; ok && d < k; d++)
            ok = sc->shape[d] == y->shape[d];
        if (!ok || k == r)
            continue;
        Sym *rows = sym_prod(c->sym, y->shape, 0, k), *cols = sym_prod(c->sym, y->shape, k, r);
        int64_t nc;
        if (sym_get_const(cols, &nc) && nc == 1)
            continue;
        const char *sfx = emit_template(e, "ew_scale", y->dtype);
        emit_kernel(e, "scale rows (ew_scale)");
        emit_line(e, "/* y = x * s[row]: %s rows of %s */", emit_sym(e, rows), emit_sym(e, cols));
        emit_line(e, "ew_scale_%s(%s, %s, %s, %s, %s);", sfx, emit_ptr(e, y), emit_ptr(e, x),
                  emit_ptr(e, sc), emit_sym(e, rows), emit_sym(e, cols));
        return true;
    }
    return false;
}

void emit_binary(Compiler *c, Emit *e, Node *n) {
    const BinaryOp *op = find_binary(c, n);
    Value *y = n->out[0];
    DType t = n->in[0]->dtype, ct = compute_type(t);
    const char *expr = pick_expr(&op->x, t);
    if (!strcmp(op->name, "Mul") && emit_row_scale(c, e, n))
        return;
    if (!op->variadic) {
        emit_expr(e, n, y, 2, n->in, expr, ct, NULL, false);
        return;
    }
    /* variadic: y = in0 op in1, then y = y op in_k for each further input (in place) */
    if (n->nin == 1)
        emit_expr(e, n, y, 1, n->in, "$0", ct, NULL, true);
    else
        emit_expr(e, n, y, 2, n->in, expr, ct, NULL, false);
    for (int k = 2; k < n->nin; k++) {
        Value *ins[2] = {y, n->in[k]};
        emit_expr(e, n, y, 2, ins, expr, ct, NULL, false);
    }
    if (!strcmp(op->name, "Mean") && n->nin > 1) {
        double cnt[1] = {(double)n->nin};
        emit_expr(e, n, y, 1, &y, "$0 / $a", ct, cnt, false);
    }
}

/* ---- Pow: y = x ^ p; from opset 12 the exponent's type may differ from the base's */

void infer_pow(Compiler *c, Node *n) {
    DType tb = n->in[0]->dtype, te = n->in[1]->dtype;
    TypeClass cb = type_class(tb), ce = type_class(te);
    if (cb == CL_BOOL || cb == CL_NONE || ce == CL_BOOL || ce == CL_NONE)
        o2c_error(c, n, "element types %s and %s are not supported", dtype_name(tb), dtype_name(te));
    if (n->opset < 12 && tb != te)
        o2c_error(c, n, "input 1 has type %s but input 0 has type %s", dtype_name(te), dtype_name(tb));
    infer_broadcast_all(c, n, DT_UNDEFINED);
}

void emit_pow(Compiler *c, Emit *e, Node *n) {
    (void)c;
    DType tb = n->in[0]->dtype;
    TypeClass ce = type_class(n->in[1]->dtype);
    if (type_class(tb) == CL_FLOAT)
        emit_expr(e, n, n->out[0], 2, n->in, "pow$F($0, ($T)$1)", compute_type(tb), NULL, false);
    else if (ce != CL_FLOAT) { /* integer ^ integer: exact, by squaring */
        const char *sfx = emit_template(e, "ew_ipow", tb);
        emit_expr(e, n, n->out[0], 2, n->in, arena_printf(emit_arena(e), "ipow_%s($0, (int64_t)$1)", sfx),
                  tb, NULL, false);
    } else /* integer base, float exponent: computed in double, saturated to the base type */
        emit_expr(e, n, n->out[0], 2, n->in,
                  arena_printf(emit_arena(e), "%s(pow((double)$0, (double)$1))", sat_fn(e, tb)),
                  DT_DOUBLE, NULL, false);
}

/* ---- Clip: y = min(max(x, lo), hi); lo/hi are attributes before opset 11, inputs after */

typedef struct {
    int nin;
    Value *ins[3];
    const char *expr;
    double par[3];
} ClipPriv;

void infer_clip(Compiler *c, Node *n) {
    ClipPriv *p = arena_alloc(c->arena, sizeof *p);
    Value *x = infer_in(c, n, 0);
    TypeClass cl = type_class(x->dtype);
    if (cl == CL_BOOL || cl == CL_NONE)
        o2c_error(c, n, "element type %s is not supported", dtype_name(x->dtype));
    p->ins[p->nin++] = x;
    const char *lo = NULL, *hi = NULL;
    if (n->opset < 11) {
        infer_require_inputs(c, n, 1, 1);
        if (cl != CL_FLOAT) /* min and max are float attributes, taken as literals of x's type */
            o2c_error(c, n, "element type %s is not supported before opset 11",
                      dtype_name(x->dtype));
        if (node_attr(n, "min")) {
            p->par[0] = attr_float(c, n, "min", 0);
            lo = "$a";
        }
        if (node_attr(n, "max")) {
            p->par[1] = attr_float(c, n, "max", 0);
            hi = "$b";
        }
    } else {
        infer_require_inputs(c, n, 1, 3);
        static const char *const refs[3] = {"$0", "$1", "$2"};
        for (int k = 1; k < 3; k++) {
            Value *b = node_in(n, k);
            if (!b)
                continue;
            int64_t cnt;
            if (b->dtype != x->dtype)
                o2c_error(c, n, "input %d has type %s but input 0 has type %s", k,
                          dtype_name(b->dtype), dtype_name(x->dtype));
            if (!ir_numel_const(b, &cnt) || cnt != 1)
                o2c_error(c, n, "input %d (%s) must be a scalar", k, k == 1 ? "min" : "max");
            *(k == 1 ? &lo : &hi) = refs[p->nin];
            p->ins[p->nin++] = b;
        }
    }
    Arena *a = c->arena;
    const char *t = lo ? arena_printf(a, "($0 < %s ? %s : $0)", lo, lo) : "$0";
    p->expr = hi ? arena_printf(a, "%s > %s ? %s : %s", t, hi, hi, t) : t;
    n->priv = p;
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_clip(Compiler *c, Emit *e, Node *n) {
    (void)c;
    ClipPriv *p = n->priv;
    emit_expr(e, n, n->out[0], p->nin, p->ins, p->expr, compute_type(p->ins[0]->dtype), p->par,
              false);
}

/* ---- Where: y = cond ? x : y, all three broadcast */

void infer_where(Compiler *c, Node *n) {
    if (n->in[0]->dtype != DT_BOOL)
        o2c_error(c, n, "condition has type %s, expected bool", dtype_name(n->in[0]->dtype));
    require_same_types(c, n, 1, 3);
    infer_broadcast_all(c, n, n->in[1]->dtype);
    /* fold: a known condition picks known values element by element */
    Value *y = n->out[0];
    int64_t len = ir_known_len(y);
    if (!foldable_type(y->dtype) || len < 0 || len > 4096)
        return;
    Sym **kc = ir_known_ints(c, n->in[0]), **kx = ir_known_ints(c, n->in[1]),
        **ky = ir_known_ints(c, n->in[2]);
    if (!kc || !kx || !ky)
        return;
    Sym **kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len ? len : 1));
    for (int64_t i = 0; i < len; i++) {
        int64_t cv;
        if (!sym_get_const(kc[bcast_index(y, n->in[0], i)], &cv))
            return;
        Value *src = cv ? n->in[1] : n->in[2];
        kv[i] = (cv ? kx : ky)[bcast_index(y, src, i)];
    }
    y->kv = kv;
}

void emit_where(Compiler *c, Emit *e, Node *n) {
    (void)c;
    emit_expr(e, n, n->out[0], 3, n->in, "$0 ? $1 : $2", DT_UNDEFINED, NULL, true);
}

/* ---- Cast / CastLike: y = (to)x for every pair of numeric types, bool and 16-bit floats.
 * To float16: rounded to nearest even.  To bfloat16: rounded toward zero, so a float keeps its
 * upper 16 bits: ONNX 1.12's reference data truncates (onnx.backend.test.case.node.cast), and
 * so does this (templates/ew_float_to_bf16.c); NaN stays a quiet NaN.  The arithmetic ops on
 * bfloat16 round their float result to nearest even (templates/ew_float_to_half.c).
 * Float -> integer truncates toward zero and saturates: out of the target's range gives its
 * minimum or maximum, NaN gives 0 (ONNX 1.12 leaves it undefined, C too: templates/int_sat.c);
 * integer -> integer wraps modulo 2^n. */

static Sym *fold_cast(SymCtx *s, Sym *a) { /* wrapped to the output type by fold_unary */
    (void)s;
    return a;
}

/* A known integer value cast to float/double (torch.arange(S, dtype=float): Cast(Shape ->
 * Gather)): the output keeps the known integers as kv (Syms), so that Range can compute its
 * length.  Constant elements must be exact in the float type; symbolic ones are dims, taken
 * to be exact (below 2^24).  Every consumer reads kv as integers or as a local array of the
 * float type (emit.c); integer folding rules ignore float values. */
static void fold_int_to_float(Compiler *c, Node *n, DType to) {
    Value *x = n->in[0], *y = n->out[0];
    int64_t len = ir_known_len(y);
    Sym **kx;
    if (len < 0 || len > 4096 || !(kx = ir_known_ints(c, x)))
        return;
    for (int64_t i = 0; i < len; i++) {
        int64_t v;
        if (!sym_get_const(kx[i], &v))
            continue;
        if (x->dtype == DT_UINT64 && v < 0)
            return;
        int64_t lim = to == DT_FLOAT ? INT64_C(1) << 24 : INT64_C(1) << 53;
        if (v < -lim || v > lim)
            return;
    }
    y->kv = arena_dup(c->arena, kx, sizeof(Sym *) * (size_t)(len ? len : 1));
}

/* Cast of float values known at compile time (data: the constant's elements, else x's kv of
 * integers) to the integer type t: saturated as the kernel does.  A symbolic kv entry is a
 * dim, kept as it is for int32 and int64; nothing is folded where an entry is neither. */
static void fold_float_known(Compiler *c, Node *n, DType to, const void *data) {
    Value *x = n->in[0];
    int64_t len = ir_known_len(x);
    if (len < 0 || len > 4096)
        return;
    Sym **kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len ? len : 1));
    for (int64_t i = 0; i < len; i++) {
        double v;
        int64_t k;
        if (data)
            v = x->dtype == DT_FLOAT ? ((const float *)data)[i] : ((const double *)data)[i];
        else if (sym_get_const(x->kv[i], &k))
            v = (double)k;
        else if (to == DT_INT32 || to == DT_INT64) {
            kv[i] = x->kv[i];
            continue;
        } else
            return;
        if (!sat_int(to, v, &k))
            return;
        kv[i] = sym_const(c->sym, k);
    }
    n->out[0]->kv = kv;
}

void infer_cast(Compiler *c, Node *n) {
    DType to;
    if (n->op->variant == OPV_CASTLIKE) {
        infer_require_inputs(c, n, 2, 2);
        to = n->in[1]->dtype;
    } else {
        infer_require_inputs(c, n, 1, 1);
        const Attr *a = node_attr(n, "to");
        if (!a)
            o2c_error(c, n, "attribute 'to' is required");
        if (a->type != ATTR_INT) /* Cast-1 named the type by a string */
            o2c_error(c, n, "attribute 'to' must be an integer data type (opset 6+)");
        to = (DType)a->i;
    }
    if (to == DT_STRING)
        o2c_error(c, n, "cast to string is not supported (strings have no C form: CONTRACT.md)");
    if (type_class(to) == CL_NONE)
        o2c_error(c, n, "cast to type %d is not supported", (int)to);
    Value *x = n->in[0];
    ir_set_shape(c, n->out[0], to, x->rank, x->shape);
    if (foldable_type(x->dtype)) {
        if (foldable_type(to))
            fold_unary(c, n, fold_cast);
        else if (to == DT_FLOAT || to == DT_DOUBLE)
            fold_int_to_float(c, n, to);
    } else if (x->kv && dtype_is_float(x->dtype)) {
        /* a float kv holds integers, exact; the kernel saturates them (symbolic ones are dims:
         * they fit an int32 or int64) */
        if (foldable_type(to))
            fold_float_known(c, n, to, NULL);
        else if (to == DT_FLOAT || to == DT_DOUBLE)
            fold_int_to_float(c, n, to);
    } else if (foldable_type(to) && x->data && dtype_is_float(x->dtype)) {
        /* a constant float tensor cast to an integer type (e.g. a computed size) */
        fold_float_known(c, n, to, x->data);
    }
}

void emit_cast(Compiler *c, Emit *e, Node *n) {
    (void)c;
    Value *x = n->in[0], *y = n->out[0];
    DType from = x->dtype, to = y->dtype;
    const char *expr;
    bool raw = false;
    if (from == to) {
        expr = "$0";
        raw = true;
    } else if (to == DT_BOOL)
        expr = "$0 != 0";
    else if (to == DT_BFLOAT16) {
        /* toward zero, from the source's value ($0 as is: raw, a float16 converted here) */
        emit_template(e, "ew_float_to_bf16", DT_UNDEFINED);
        if (from == DT_FLOAT16)
            emit_template(e, "ew_half_to_float", DT_UNDEFINED);
        expr = from == DT_FLOAT16 ? "o2c_float_to_bf16((double)o2c_half_to_float($0, 5))"
                                  : "o2c_float_to_bf16((double)($0))";
        raw = true;
    } else if (is_half(to))
        expr = "$0"; /* emit_expr converts from a 16-bit source and rounds to the 16-bit output */
    else if (from == DT_DOUBLE && type_class(to) != CL_FLOAT)
        expr = arena_printf(emit_arena(e), "%s((double)$0)", sat_fn(e, to));
    else if (type_class(from) == CL_FLOAT && type_class(to) != CL_FLOAT)
        /* float, float16, bfloat16: saturated in float (templates/int_satf.c), no double */
        expr = arena_printf(emit_arena(e), "o2c_satf_%s((float)$0)",
                            emit_template(e, "int_satf", to));
    else
        expr = "($y)$0";
    emit_expr(e, n, y, 1, n->in, expr, DT_FLOAT, NULL, raw);
}
