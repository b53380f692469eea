/* test_sym.c — symbolic expressions: canonical forms are pointer-equal, folding, floor
 * semantics, min/max, substitution, and evaluation / printed C checked against a direct
 * evaluation of random expression trees (the C is JIT-compiled with libtcc, and compiled once
 * with the system compiler under -Wall -Wextra -pedantic -Werror). */
#include "onnx2c.h"
#include <criterion/criterion.h>
#include <inttypes.h>
#include <libtcc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static Arena *A;
static SymCtx *S;
static Sym *H, *W, *N;
static const char *NAMES[] = {"H", "W", "N"};

static void setup(void) {
    A = arena_new();
    S = sym_ctx_new(A);
    H = sym_dim(S, 0);
    W = sym_dim(S, 1);
    N = sym_dim(S, 2);
}

static void teardown(void) { arena_free(A); }

TestSuite(sym, .init = setup, .fini = teardown);

static Sym *K(int64_t c) { return sym_const(S, c); }
static Sym *add(Sym *a, Sym *b) { return sym_add(S, a, b); }
static Sym *sub(Sym *a, Sym *b) { return sym_sub(S, a, b); }
static Sym *mul(Sym *a, Sym *b) { return sym_mul(S, a, b); }
static Sym *floordv(Sym *a, Sym *b) { return sym_floordiv(S, a, b); }
static Sym *ceildv(Sym *a, Sym *b) { return sym_ceildiv(S, a, b); }
static Sym *mod(Sym *a, Sym *b) { return sym_mod(S, a, b); }
static Sym *smin(Sym *a, Sym *b) { return sym_min(S, a, b); }
static Sym *smax(Sym *a, Sym *b) { return sym_max(S, a, b); }
static const char *str(const Sym *e) { return sym_str(A, e, NAMES); }

#define SAME(a, b)                                                                                 \
    do {                                                                                           \
        Sym *a_ = (a), *b_ = (b);                                                                  \
        cr_assert(a_ == b_, "%s: '%s' is not '%s'", #a " == " #b, str(a_), str(b_));             \
    } while (0)

#define IS_CONST(e, v)                                                                             \
    do {                                                                                           \
        int64_t v_;                                                                                \
        Sym *e_ = (e);                                                                             \
        cr_assert(sym_get_const(e_, &v_), "%s: '%s' is not a constant", #e, str(e_));             \
        cr_assert_eq(v_, (int64_t)(v), "%s = %" PRId64 ", want %" PRId64, #e, v_, (int64_t)(v)); \
    } while (0)

static const char *cstr(const Sym *e) {
    Buf b;
    buf_init(&b);
    sym_print_c(&b, e, NULL, NULL);
    char *s = arena_strdup(A, b.data ? b.data : "");
    buf_free(&b);
    return s;
}

static const char *hw_name(int i, void *user) {
    (void)user;
    return NAMES[i];
}

static const char *c_hw(const Sym *e) {
    Buf b;
    buf_init(&b);
    sym_print_c(&b, e, hw_name, NULL);
    char *s = arena_strdup(A, b.data);
    buf_free(&b);
    return s;
}

/* ------------------------------------------------------------------ canonical forms */

Test(sym, interning) {
    SAME(sym_dim(S, 0), H);
    SAME(K(42), K(42));
    cr_assert_neq(H, W);
    cr_assert_lt(H->id, W->id);
    SAME(add(H, W), add(W, H));
    SAME(mul(H, W), mul(W, H));
}

Test(sym, polynomial_normal_form) {
    Sym *a = add(mul(N, K(64)), K(3));
    SAME(a, add(K(3), mul(K(64), N)));
    SAME(a, add(mul(add(mul(N, K(32)), K(1)), K(2)), K(1)));
    SAME(add(mul(K(3), N), mul(K(2), N)), mul(K(5), N));
    SAME(sub(H, H), K(0));
    SAME(mul(H, K(0)), K(0));
    SAME(mul(H, K(1)), H);
    SAME(add(H, K(0)), H);
    SAME(sym_neg(S, sym_neg(S, H)), H);
    SAME(add(add(H, W), N), add(H, add(N, W)));
    SAME(mul(mul(H, W), N), mul(H, mul(N, W)));
    /* distribution */
    SAME(mul(add(H, W), sub(H, W)), sub(mul(H, H), mul(W, W)));
    SAME(mul(add(H, K(1)), add(W, K(1))), add(add(mul(H, W), H), add(W, K(1))));
    SAME(mul(N, add(H, W)), add(mul(N, H), mul(W, N)));
    /* the layout the header promises */
    cr_assert_eq(a->kind, SYM_ADD);
    cr_assert_eq(a->args[a->n - 1]->kind, SYM_CONST);
    Sym *m = mul(K(-3), mul(W, H));
    cr_assert_eq(m->kind, SYM_MUL);
    cr_assert_eq(m->n, 3);
    cr_assert_eq(m->args[0]->kind, SYM_CONST);
    cr_assert_eq(m->args[0]->c, -3);
    cr_assert_lt(m->args[1]->id, m->args[2]->id);
}

Test(sym, constant_folding) {
    IS_CONST(add(K(2), K(3)), 5);
    IS_CONST(mul(K(6), K(-7)), -42);
    IS_CONST(sub(K(2), K(9)), -7);
    IS_CONST(sym_neg(S, K(4)), -4);
    IS_CONST(smin(K(3), K(-5)), -5);
    IS_CONST(smax(K(3), K(-5)), 3);
    IS_CONST(floordv(K(7), K(2)), 3);
    IS_CONST(ceildv(K(7), K(2)), 4);
    IS_CONST(mod(K(7), K(3)), 1);
    IS_CONST(mul(add(H, K(1)), K(0)), 0);
    cr_assert(sym_is_const(K(0)));
    cr_assert_not(sym_is_const(H));
}

Test(sym, division_of_negative_constants) {
    IS_CONST(floordv(K(-7), K(2)), -4);
    IS_CONST(ceildv(K(-7), K(2)), -3);
    IS_CONST(floordv(K(7), K(-2)), -4);
    IS_CONST(ceildv(K(7), K(-2)), -3);
    IS_CONST(floordv(K(-7), K(-2)), 3);
    IS_CONST(ceildv(K(-7), K(-2)), 4);
    IS_CONST(floordv(K(-8), K(2)), -4);
    IS_CONST(mod(K(-7), K(3)), 2);
    IS_CONST(mod(K(7), K(-3)), -2);
    IS_CONST(mod(K(-7), K(-3)), -1);
    IS_CONST(mod(K(-6), K(3)), 0);
    IS_CONST(floordv(K(INT64_MIN), K(-1)), INT64_MIN); /* wraps, does not trap */
    IS_CONST(mod(K(INT64_MIN), K(-1)), 0);
    IS_CONST(floordv(K(INT64_MIN), K(2)), INT64_MIN / 2);
}

Test(sym, division_by_zero_is_left_to_the_caller) {
    int64_t d[3] = {5, 0, 1}, v;
    Sym *e[] = {floordv(H, K(0)), ceildv(H, K(0)), mod(H, K(0)), floordv(K(3), K(0)), floordv(H, W),
                mod(H, W), ceildv(H, W)};
    for (size_t i = 0; i < sizeof e / sizeof *e; i++) {
        cr_assert_not_null(e[i]);
        cr_assert_not(sym_eval(e[i], d, &v), "%s evaluated", str(e[i]));
    }
}

Test(sym, division_rules) {
    SAME(floordv(H, K(1)), H);
    SAME(ceildv(H, K(1)), H);
    SAME(floordv(add(mul(K(4), N), K(8)), K(4)), add(N, K(2)));
    SAME(floordv(add(mul(K(6), N), K(-3)), K(3)), sub(mul(K(2), N), K(1)));
    SAME(floordv(add(mul(N, K(64)), K(3)), K(64)), N);
    SAME(ceildv(add(mul(N, K(64)), K(3)), K(64)), add(N, K(1)));
    SAME(mod(add(mul(K(4), N), K(3)), K(2)), K(1));
    SAME(mod(mul(K(4), N), K(2)), K(0));
    SAME(mod(H, K(1)), K(0));
    SAME(mod(add(H, K(7)), K(3)), mod(add(H, K(1)), K(3)));
    /* the same conv output size written two ways */
    SAME(add(floordv(sub(H, K(3)), K(2)), K(1)), floordv(sub(H, K(1)), K(2)));
    SAME(ceildv(H, K(2)), floordv(add(H, K(1)), K(2)));
    SAME(floordv(add(mul(K(2), H), K(2)), K(4)), floordv(add(H, K(1)), K(2)));
    SAME(floordv(add(mul(K(2), H), K(3)), K(4)), floordv(add(H, K(1)), K(2)));
    SAME(floordv(add(mul(K(32), H), K(63)), K(64)), floordv(add(H, K(1)), K(2)));
    /* 64-byte alignment of a size that is a multiple of 32 */
    SAME(mul(ceildv(mul(K(32), H), K(64)), K(64)), mul(floordv(add(H, K(1)), K(2)), K(64)));
    /* nested division by positive constants */
    SAME(floordv(floordv(H, K(2)), K(3)), floordv(H, K(6)));
    SAME(floordv(add(floordv(add(H, K(1)), K(2)), K(1)), K(2)), floordv(add(H, K(3)), K(4)));
    SAME(mod(mod(H, K(4)), K(2)), mod(H, K(2)));
    SAME(mod(add(mul(K(3), mod(H, K(6))), W), K(3)), mod(W, K(3)));
    /* symbolic divisors: exact quotients only */
    SAME(floordv(mul(mul(H, W), K(2)), W), mul(H, K(2)));
    SAME(floordv(mul(N, mul(H, W)), mul(H, W)), N);
    SAME(ceildv(add(mul(H, W), W), W), add(H, K(1)));
    SAME(mod(mul(H, W), W), K(0));
    SAME(mod(K(0), add(H, K(1))), K(0));
    SAME(floordv(K(0), add(H, W)), K(0));
    SAME(floordv(add(H, W), add(W, H)), K(1));
    cr_assert_eq(floordv(add(mul(H, W), K(1)), W)->kind, SYM_FLOORDIV);
    cr_assert_eq(mod(H, W)->kind, SYM_MOD);
    /* ceildiv is floordiv in disguise for constant divisors */
    cr_assert_eq(ceildv(H, K(4))->kind, SYM_FLOORDIV);
    cr_assert_eq(ceildv(H, W)->kind, SYM_CEILDIV);
}

Test(sym, min_max) {
    SAME(smin(H, H), H);
    SAME(smin(H, W), smin(W, H));
    SAME(smax(H, W), smax(W, H));
    cr_assert_neq(smin(H, W), smax(H, W));
    SAME(smin(H, add(H, K(1))), H);
    SAME(smax(add(H, K(1)), H), add(H, K(1)));
    SAME(smin(sub(W, K(2)), add(W, K(3))), sub(W, K(2)));
    SAME(smax(H, K(0)), H);            /* dims are >= 0 */
    SAME(smin(H, K(0)), K(0));
    SAME(smax(add(H, W), H), add(H, W));
    SAME(smin(H, smin(W, H)), smin(H, W));
    SAME(smax(smax(H, W), W), smax(H, W));
    cr_assert_eq(smax(sub(H, K(1)), K(0))->kind, SYM_MAX);
    cr_assert_eq(smin(H, W)->kind, SYM_MIN);
}

Test(sym, subst) {
    Sym *out = add(floordv(sub(H, K(3)), K(2)), K(1));
    Sym *fix[3] = {K(7), NULL, NULL};
    IS_CONST(sym_subst(S, out, fix), 3);
    Sym *unify[3] = {NULL, H, NULL};
    SAME(sym_subst(S, add(H, W), unify), mul(H, K(2)));
    SAME(sym_subst(S, smax(H, W), unify), H);
    SAME(sym_subst(S, mod(mul(H, N), W), unify), K(0));
    Sym *shift[3] = {add(W, K(1)), NULL, NULL};
    SAME(sym_subst(S, mul(H, H), shift), add(add(mul(W, W), mul(K(2), W)), K(1)));
    Sym *none[3] = {NULL, NULL, NULL};
    SAME(sym_subst(S, out, none), out);
}

/* ------------------------------------------------------------------ printing */

Test(sym, print_c) {
    cr_assert_str_eq(c_hw(sub(H, K(3))), "H - 3");
    cr_assert_str_eq(c_hw(add(mul(N, K(64)), K(3))), "64 * N + 3");
    cr_assert_str_eq(c_hw(sub(K(2), mul(K(3), W))), "-3 * W + 2");
    cr_assert_str_eq(c_hw(sub(W, H)), "-H + W");
    cr_assert_str_eq(c_hw(K(INT64_MIN)), "(-9223372036854775807 - 1)");
    cr_assert_str_eq(c_hw(add(H, K(INT64_MIN))), "H + (-9223372036854775807 - 1)");
    cr_assert_str_eq(c_hw(K(-5)), "-5");
    cr_assert_str_eq(c_hw(add(floordv(sub(H, K(3)), K(2)), K(1))), "(H + 1) / 2 - 1");
    cr_assert_str_eq(c_hw(mul(floordv(H, K(2)), K(3))), "3 * (H / 2)");
    cr_assert_str_eq(c_hw(mod(add(H, K(1)), K(3))), "(H + 1) % 3");
    cr_assert_str_eq(c_hw(ceildv(H, W)), "(H + W - 1) / W");
    cr_assert_str_eq(c_hw(smax(H, W)), "(H > W ? H : W)");
    /* a dividend that may be negative gets floor semantics */
    Sym *m = smin(sub(H, K(5)), W);
    cr_assert_str_eq(c_hw(floordv(m, K(2))),
                     "((W < H - 5 ? W : H - 5) / 2 - ((W < H - 5 ? W : H - 5) % 2 < 0))");
    cr_assert_str_eq(c_hw(mod(m, K(2))), "((W < H - 5 ? W : H - 5) % 2 + "
                                         "((W < H - 5 ? W : H - 5) % 2 < 0 ? 2 : 0))");
    cr_assert_str_eq(c_hw(floordv(H, sub(H, W))),
                     "(H / (H - W) - (H % (H - W) != 0 && (H % (H - W) < 0) != ((H - W) < 0)))");
    cr_assert_str_eq(cstr(mul(H, W)), "d0 * d1");
}

Test(sym, print_human) {
    cr_assert_str_eq(str(mul(N, K(64))), "N*64");
    cr_assert_str_eq(str(add(floordv(sub(H, K(3)), K(2)), K(1))), "(H + 1) / 2 - 1");
    cr_assert_str_eq(str(smax(W, H)), "max(H, W)");
    cr_assert_str_eq(str(sub(K(2), mul(K(3), H))), "-H*3 + 2");
    cr_assert_str_eq(str(mul(mul(H, W), K(4))), "H*W*4");
    cr_assert_str_eq(str(mul(floordv(H, K(2)), W)), "W*(H / 2)"); /* factors in id order */
    cr_assert_str_eq(str(ceildv(H, W)), "ceildiv(H, W)");
    cr_assert_str_eq(str(mod(H, K(3))), "H % 3");
    cr_assert_str_eq(sym_str(A, add(H, W), NULL), "d0 + d1");
}

/* ------------------------------------------------------------------ random trees */

enum { T_CONST, T_DIM, T_ADD, T_SUB, T_MUL, T_NEG, T_FDIV, T_CDIV, T_MOD, T_MIN, T_MAX, T_NOPS };

typedef struct Tree {
    int op;
    int64_t c;
    int dim;
    struct Tree *l, *r;
} Tree;

/* -DSEED=... -DNTREES=... for a longer stress run by hand */
#ifndef SEED
#define SEED 0x2545f4914f6cdd1dull
#endif
static uint64_t rng = SEED;

static int rnd(int n) { /* xorshift64, uniform enough for tests */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (uint64_t)n);
}

static Tree *gen(int depth) {
    Tree *t = arena_alloc(A, sizeof *t);
    if (depth <= 0 || rnd(5) == 0) {
        t->op = rnd(2) ? T_CONST : T_DIM;
        t->c = rnd(9) - 4;
        t->dim = rnd(3);
        return t;
    }
    static const int64_t divisors[] = {1, 2, 3, 4, 5, 8, -2, -3};
    t->op = T_ADD + rnd(T_NOPS - T_ADD);
    t->l = gen(depth - 1);
    switch (t->op) {
    case T_NEG: break;
    case T_MUL: t->r = gen(depth - 2); break; /* keeps degrees (and values) modest */
    case T_FDIV:
    case T_CDIV:
    case T_MOD:
        if (rnd(3)) {
            t->r = arena_alloc(A, sizeof *t);
            t->r->op = T_CONST;
            t->r->c = divisors[rnd(8)];
        } else {
            t->r = gen(depth - 2);
        }
        break;
    default: t->r = gen(depth - 1);
    }
    return t;
}

/* Swaps the operands of commutative operators at random. */
static Tree *commute(Tree *t) {
    if (!t->l)
        return t;
    Tree *u = arena_dup(A, t, sizeof *t);
    u->l = commute(t->l);
    u->r = t->r ? commute(t->r) : NULL;
    if ((u->op == T_ADD || u->op == T_MUL || u->op == T_MIN || u->op == T_MAX) && rnd(2)) {
        Tree *x = u->l;
        u->l = u->r;
        u->r = x;
    }
    return u;
}

static Sym *build(const Tree *t) {
    switch (t->op) {
    case T_CONST: return K(t->c);
    case T_DIM: return sym_dim(S, t->dim);
    case T_NEG: return sym_neg(S, build(t->l));
    default: break;
    }
    Sym *a = build(t->l), *b = build(t->r);
    switch (t->op) {
    case T_ADD: return add(a, b);
    case T_SUB: return sub(a, b);
    case T_MUL: return mul(a, b);
    case T_FDIV: return floordv(a, b);
    case T_CDIV: return ceildv(a, b);
    case T_MOD: return mod(a, b);
    case T_MIN: return smin(a, b);
    default: return smax(a, b);
    }
}

/* The reference: direct evaluation with floor semantics from floorl/ceill.  Fails on
 * division by zero and on values large enough to make the comparison doubtful. */
static bool direct(const Tree *t, const int64_t *d, int64_t *out) {
    int64_t a = 0, b = 0, v;
    if (t->op == T_CONST) {
        *out = t->c;
        return true;
    }
    if (t->op == T_DIM) {
        *out = d[t->dim];
        return true;
    }
    if (!direct(t->l, d, &a) || (t->r && !direct(t->r, d, &b)))
        return false;
    switch (t->op) {
    case T_ADD: v = a + b; break;
    case T_SUB: v = a - b; break;
    case T_MUL: v = a * b; break;
    case T_NEG: v = -a; break;
    case T_MIN: v = a < b ? a : b; break;
    case T_MAX: v = a > b ? a : b; break;
    default:
        if (b == 0)
            return false;
        v = t->op == T_CDIV ? (int64_t)ceill((long double)a / b)
                            : (int64_t)floorl((long double)a / b);
        if (t->op == T_MOD)
            v = a - b * v;
    }
    if (v > 1000000000000 || v < -1000000000000)
        return false;
    *out = v;
    return true;
}

static void random_dims(int64_t *d) {
    for (int i = 0; i < 3; i++)
        d[i] = rnd(10);
}

static void check_shape(const Sym *e) {
    for (int i = 0; i < e->n; i++) {
        cr_assert_lt(e->args[i]->id, e->id, "child of '%s' has a larger id", str(e));
        check_shape(e->args[i]);
    }
    if (e->kind == SYM_ADD) {
        cr_assert_geq(e->n, 2);
        for (int i = 0; i < e->n - 1; i++)
            cr_assert_neq(e->args[i]->kind, SYM_CONST, "'%s': constant not last", str(e));
    }
    if (e->kind == SYM_MUL) {
        cr_assert_geq(e->n, 2);
        for (int i = 1; i < e->n; i++)
            cr_assert(e->args[i]->kind != SYM_CONST && e->args[i]->kind != SYM_ADD &&
                          e->args[i]->kind != SYM_MUL,
                      "'%s': not a flat product", str(e));
        for (int i = 2; i < e->n; i++)
            cr_assert_leq(e->args[i - 1]->id, e->args[i]->id, "'%s': unsorted", str(e));
    }
}

#ifndef NTREES
#define NTREES 200
#endif

Test(sym, random_trees_eval_and_canonical) {
    int compared = 0;
    for (int k = 0; k < NTREES; k++) {
        Tree *t = gen(5);
        Sym *e = build(t);
        check_shape(e);
        SAME(build(commute(t)), e);
        Sym *none[3] = {NULL, NULL, NULL};
        SAME(sym_subst(S, e, none), e);
        for (int j = 0; j < 30; j++) {
            int64_t d[3], want, got;
            random_dims(d);
            if (!direct(t, d, &want))
                continue;
            cr_assert(sym_eval(e, d, &got), "tree %d: '%s' failed at (%" PRId64 ",%" PRId64
                      ",%" PRId64 ")", k, str(e), d[0], d[1], d[2]);
            cr_assert_eq(got, want, "tree %d: '%s' at H=%" PRId64 " W=%" PRId64 " N=%" PRId64
                         ": %" PRId64 ", want %" PRId64, k, str(e), d[0], d[1], d[2], got, want);
            /* substituting the values folds to the same constant */
            Sym *vals[3] = {K(d[0]), K(d[1]), K(d[2])};
            IS_CONST(sym_subst(S, e, vals), want);
            compared++;
        }
    }
    cr_assert_gt(compared, NTREES * 10, "only %d comparisons", compared);
}

static const char *dref(int i, void *user) {
    static const char *n[] = {"d[0]", "d[1]", "d[2]"};
    (void)user;
    return n[i];
}

static bool has_zero_divisor(const Sym *e) {
    if ((e->kind == SYM_FLOORDIV || e->kind == SYM_CEILDIV || e->kind == SYM_MOD) &&
        e->args[1]->kind == SYM_CONST && e->args[1]->c == 0)
        return true;
    for (int i = 0; i < e->n; i++)
        if (has_zero_divisor(e->args[i]))
            return true;
    return false;
}

/* C source defining int64_t fK(const int64_t *d) for each usable expression. */
static char *c_source(Sym **e, int n) {
    Buf b;
    buf_init(&b);
    buf_puts(&b, "#include <stdint.h>\n");
    for (int k = 0; k < n; k++) {
        if (!e[k])
            continue;
        buf_printf(&b, "int64_t f%d(const int64_t *d);\nint64_t f%d(const int64_t *d) {\n"
                       "    (void)d;\n    return ", k, k);
        sym_print_c(&b, e[k], dref, NULL);
        buf_puts(&b, ";\n}\n");
    }
    return buf_steal(&b);
}

static void random_exprs(Sym **e, Tree **t, int n) {
    for (int k = 0; k < n; k++) {
        t[k] = gen(5);
        e[k] = build(t[k]);
        if (has_zero_divisor(e[k]))
            e[k] = NULL;
    }
}

typedef int64_t (*Fn)(const int64_t *);

Test(sym, printed_c_evaluates_like_sym_eval) {
    Sym *e[NTREES + 4];
    Tree *t[NTREES];
    random_exprs(e, t, NTREES);
    e[NTREES] = add(H, K(INT64_MIN));
    e[NTREES + 1] = mul(sub(W, H), K(INT64_MIN));
    e[NTREES + 2] = floordv(sub(H, K(7)), sub(W, K(4)));
    e[NTREES + 3] = ceildv(smin(sub(H, K(7)), W), sub(N, K(4)));
    char *src = c_source(e, NTREES + 4);

    TCCState *s = tcc_new();
    cr_assert_not_null(s);
    tcc_set_lib_path(s, "/usr/lib/x86_64-linux-gnu/tcc");
    tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
    cr_assert_eq(tcc_compile_string(s, src), 0, "tcc rejected the source");
    cr_assert_geq(tcc_relocate(s, TCC_RELOCATE_AUTO), 0);
    int compared = 0;
    for (int k = 0; k < NTREES + 4; k++) {
        if (!e[k])
            continue;
        char name[16];
        snprintf(name, sizeof name, "f%d", k);
        Fn f;
        void *p = tcc_get_symbol(s, name);
        cr_assert_not_null(p);
        memcpy(&f, &p, sizeof f);
        for (int j = 0; j < 30; j++) {
            int64_t d[3], want;
            random_dims(d);
            if (!sym_eval(e[k], d, &want))
                continue; /* division by zero: the C would trap too */
            int64_t got = f(d);
            cr_assert_eq(got, want, "'%s' at (%" PRId64 ",%" PRId64 ",%" PRId64 "): C gives %" PRId64
                         ", sym_eval %" PRId64 "\nC: %s", str(e[k]), d[0], d[1], d[2], got, want,
                         c_hw(e[k]));
            compared++;
        }
    }
    cr_assert_gt(compared, NTREES * 10);
    tcc_delete(s);
    free(src);
}

Test(sym, printed_c_compiles_without_warnings) {
    if (system("command -v cc >/dev/null 2>&1") != 0)
        cr_skip_test("no system C compiler");
    Sym *e[NTREES + 3];
    Tree *t[NTREES];
    random_exprs(e, t, NTREES);
    e[NTREES] = add(mul(H, K(INT64_MIN)), K(INT64_MIN));
    e[NTREES + 1] = mod(sub(W, smax(H, N)), sub(H, W));
    e[NTREES + 2] = ceildv(sub(W, H), K(-3));
    char *src = c_source(e, NTREES + 3);
    char path[64], cmd[256];
    snprintf(path, sizeof path, "/tmp/o2c_test_sym_%ld.c", (long)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -std=c99 -Wall -Wextra -pedantic -Werror -c %s -o /dev/null",
             path);
    int rc = system(cmd);
    cr_assert_eq(rc, 0, "'%s' failed (the file is kept)", cmd);
    remove(path);
    free(src);
}
