/* test_sym.c — symbolic expressions: canonical forms are pointer-equal, folding, floor
 * semantics, min/max, substitution, and evaluation / printed C checked against a direct
 * evaluation of random expression trees (the C is JIT-compiled with libtcc, and compiled once
 * with the system compiler under -Wall -Wextra -pedantic -Werror); overflow reported through
 * the error hook, facts and sym_bounds sound on random expressions and boxes up to 2^63, and
 * expressions 50,000 deep evaluated, bounded, substituted and printed on a 256 KB stack. */
#include "onnx2c.h"
#include <criterion/criterion.h>
#include <inttypes.h>
#include <libtcc.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static Arena *A;
static SymCtx *S;
static Sym *H, *W, *N;
static const char *NAMES[] = {"H", "W", "N"};
static int overflows; /* reports through the error hook */

static void count_overflow(void *user, const char *msg) {
    (void)user;
    cr_assert_str_eq(msg, "shape arithmetic overflows int64");
    overflows++;
}

static void setup(void) {
    A = arena_new();
    S = sym_ctx_new(A);
    sym_ctx_set_error(S, count_overflow, NULL);
    overflows = 0;
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
    cr_assert_eq(overflows, 0);
    floordv(K(INT64_MIN), K(-1)); /* -INT64_MIN does not fit: reported, does not trap */
    cr_assert_eq(overflows, 1);
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

/* a - max(x, y) = min(a - x, a - y) (and a - min = max) when a difference is a constant: the
 * length of x[:, -1:] on a dim T is min(T, 1), 0 or 1 for every T (it broadcasts). */
Test(sym, minus_min_max) {
    Sym *last = sub(H, smax(sub(H, K(1)), K(0)));
    SAME(last, smin(H, K(1)));
    int64_t lo, hi;
    sym_range(last, &lo, &hi);
    cr_assert(lo == 0 && hi == 1, "[%lld, %lld]", (long long)lo, (long long)hi);
    SAME(sub(add(H, K(2)), smin(H, W)), smax(K(2), sub(add(H, K(2)), W)));
    /* no constant difference: left as it is */
    cr_assert_eq(sub(H, smax(W, K(3)))->kind, SYM_ADD);
    for (int64_t h = 0; h < 4; h++) {
        int64_t v, dims[2] = {h, 0};
        cr_assert(sym_eval(last, dims, &v));
        cr_assert_eq(v, h < 1 ? h : 1);
    }
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

/* C: sums and products in uint64_t, converted back (no partial result overflows; exact when
 * the value fits, which NAME_check makes sure of); divisions on int64 values. */
Test(sym, print_c) {
    cr_assert_str_eq(c_hw(sub(H, K(3))), "(int64_t)((uint64_t)H - 3u)");
    cr_assert_str_eq(c_hw(add(mul(N, K(64)), K(3))), "(int64_t)((uint64_t)64 * N + 3u)");
    cr_assert_str_eq(c_hw(sub(K(2), mul(K(3), W))), "(int64_t)(-(uint64_t)3 * W + 2u)");
    cr_assert_str_eq(c_hw(sub(W, H)), "(int64_t)(-(uint64_t)H + (uint64_t)W)");
    cr_assert_str_eq(c_hw(K(INT64_MIN)), "(-9223372036854775807 - 1)");
    cr_assert_str_eq(c_hw(add(H, K(INT64_MIN))),
                     "(int64_t)((uint64_t)H + (uint64_t)(-9223372036854775807 - 1))");
    cr_assert_str_eq(c_hw(K(-5)), "-5");
    cr_assert_str_eq(c_hw(add(floordv(sub(H, K(3)), K(2)), K(1))),
                     "(int64_t)((uint64_t)((int64_t)((uint64_t)H + 1u) / 2) - 1u)");
    cr_assert_str_eq(c_hw(mul(floordv(H, K(2)), K(3))), "(int64_t)((uint64_t)3 * (H / 2))");
    cr_assert_str_eq(c_hw(mod(add(H, K(1)), K(3))), "(int64_t)((uint64_t)H + 1u) % 3");
    cr_assert_str_eq(c_hw(ceildv(H, W)), "(H / W + (H % W != 0))"); /* no H + W - 1 */
    cr_assert_str_eq(c_hw(ceildv(H, K(INT64_MAX))), "(H / 9223372036854775807 + (H % 9223372036854775807 != 0))");
    cr_assert_str_eq(c_hw(smax(H, W)), "(H > W ? H : W)");
    /* a dividend that may be negative gets floor semantics */
    Sym *m = smin(sub(H, K(5)), W);
    const char *mc = "(W < (int64_t)((uint64_t)H - 5u) ? W : (int64_t)((uint64_t)H - 5u))";
    cr_assert_str_eq(c_hw(floordv(m, K(2))), arena_printf(A, "(%s / 2 - (%s %% 2 < 0))", mc, mc));
    cr_assert_str_eq(c_hw(mod(m, K(2))), arena_printf(A, "(%s %% 2 + (%s %% 2 < 0 ? 2 : 0))", mc, mc));
    const char *hw = "(int64_t)((uint64_t)H - (uint64_t)W)";
    cr_assert_str_eq(c_hw(floordv(H, sub(H, W))),
                     arena_printf(A, "(H / %s - (H %% %s != 0 && (H %% %s < 0) != (%s < 0)))", hw, hw,
                                  hw, hw));
    cr_assert_str_eq(cstr(mul(H, W)), "(int64_t)((uint64_t)d0 * d1)");
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
    e[NTREES + 1] = mul(add(W, H), K(INT64_MIN));
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

/* ------------------------------------------------------------------ overflow */

/* e is built with exactly `want` overflow reports */
#define OVERFLOWS(e, want)                                                                         \
    do {                                                                                           \
        int before_ = overflows;                                                                   \
        Sym *e_ = (e);                                                                             \
        cr_assert_eq(overflows - before_, (want), "%s: %d overflow reports, want %d (%s)", #e,    \
                     overflows - before_, (want), str(e_));                                       \
    } while (0)

Test(sym, overflow_is_reported) {
    Sym *fix[3] = {K(INT64_C(1) << 40), NULL, NULL};
    OVERFLOWS(add(K(INT64_MAX), K(1)), 1);
    OVERFLOWS(sub(K(INT64_MIN), K(1)), 1);
    OVERFLOWS(mul(K(INT64_MAX), K(2)), 1);
    OVERFLOWS(sym_neg(S, K(INT64_MIN)), 1);
    OVERFLOWS(floordv(K(INT64_MIN), K(-1)), 1);
    OVERFLOWS(ceildv(K(INT64_MIN), K(-1)), 1);
    OVERFLOWS(mul(add(H, K(4)), K(INT64_C(1) << 62)), 1); /* 4 * 2^62 */
    OVERFLOWS(add(mul(H, K(INT64_MAX)), H), 1);            /* a coefficient of 2^63 */
    OVERFLOWS(mul(mul(H, K(INT64_C(1) << 40)), mul(W, K(INT64_C(1) << 40))), 1);
    OVERFLOWS(sym_subst(S, mul(H, K(INT64_C(1) << 40)), fix), 1);
    OVERFLOWS(floordv(add(mul(H, K(INT64_MIN)), K(1)), K(-1)), 1);
    OVERFLOWS(mul(floordv(H, K(3)), K(INT64_MIN)), 0);
    /* exact results that fit are not overflows, whatever the way there */
    OVERFLOWS(add(mul(H, K(INT64_MAX)), mul(H, K(INT64_MIN))), 0);
    IS_CONST(add(add(K(INT64_MAX), K(INT64_MIN)), K(1)), 0);
    OVERFLOWS(mul(sub(H, K(1)), add(H, K(1))), 0);
    /* optional rewrites that would overflow are skipped, not reported */
    Sym *c = NULL;
    OVERFLOWS(c = ceildv(add(H, K(INT64_MAX - 1)), K(4)), 0); /* not floordiv(a + 3, 4) */
    cr_assert_eq(c->kind, SYM_CEILDIV, "%s", str(c));
    OVERFLOWS(c = smin(add(H, K(INT64_MAX - 1)), sub(mul(W, W), K(INT64_MAX - 1))), 0); /* a - b */
    cr_assert_eq(c->kind, SYM_MIN, "%s", str(c));
    OVERFLOWS(floordv(add(floordv(H, K(INT64_C(1) << 62)), K(3)), K(4)), 0);
    /* evaluation reports overflow by failing */
    int64_t d[3] = {INT64_C(1) << 62, 4, 0}, v;
    cr_assert_not(sym_eval(mul(H, W), d, &v));
    cr_assert_not(sym_eval(add(H, K(INT64_MAX)), d, &v));
    cr_assert_not(sym_eval(floordv(sub(K(0), add(H, H)), sub(N, K(1))), (int64_t[]){INT64_C(1) << 62, 0, 0}, &v));
    cr_assert(sym_eval(sub(mul(H, K(2)), H), d, &v));
    cr_assert_eq(v, INT64_C(1) << 62);
}

/* A compiler hook does not return: the error unwinds from the outermost constructor. */
#include <setjmp.h>
static jmp_buf hook_jmp;
static void jump_hook(void *user, const char *msg) {
    (void)user;
    (void)msg;
    longjmp(hook_jmp, 1);
}

Test(sym, error_hook_may_unwind) {
    sym_ctx_set_error(S, jump_hook, NULL);
    volatile int reached = 0;
    if (!setjmp(hook_jmp)) {
        sym_subst(S, smax(mul(floordv(H, K(7)), K(INT64_C(1) << 62)), W), (Sym *[]){K(1000), NULL, NULL});
        reached = 1;
    }
    cr_assert_eq(reached, 0, "the overflow did not reach the hook");
    /* the context is still usable */
    SAME(add(H, K(1)), add(K(1), H));
    IS_CONST(sym_subst(S, add(H, K(1)), (Sym *[]){K(2), NULL, NULL}), 3);
}

/* ------------------------------------------------------------------ facts */

static void expect_range(Sym *e, int64_t lo, int64_t hi) {
    int64_t l, h;
    sym_range(e, &l, &h);
    cr_assert(l == lo && h == hi, "'%s': range [%" PRId64 ", %" PRId64 "], want [%" PRId64
              ", %" PRId64 "]", str(e), l, h, lo, hi);
}

Test(sym, facts_decide) {
    expect_range(H, 0, INT64_MAX - 1); /* SYM_DIM_MAX */
    expect_range(add(H, K(2)), 2, INT64_MAX); /* H + 2 may pass int64: its upper bound is cut */
    expect_range(sub(K(5), H), INT64_MIN + 7, 5);
    expect_range(floordv(add(H, K(INT64_C(1) << 62)), K(INT64_C(1) << 62)), 1, 2);
    expect_range(mod(sub(H, K(5)), K(3)), 0, 2);
    expect_range(mod(H, K(-3)), -2, 0);
    expect_range(smin(H, K(7)), 0, 7);
    expect_range(mul(sub(H, K(2)), sub(W, K(3))), INT64_MIN, INT64_MAX);
    cr_assert(sym_nonneg(floordv(H, add(W, K(1)))));
    cr_assert_not(sym_nonneg(floordv(sub(H, K(1)), K(2))));
    cr_assert(sym_nonneg(mod(sub(H, K(5)), K(3))));
    cr_assert(sym_nonneg(smax(sub(H, K(5)), W)));
    /* an atom whose facts leave one value is that constant */
    Sym *x = floordv(H, K(INT64_C(1) << 62)); /* 0 or 1 */
    expect_range(x, 0, 1);
    IS_CONST(floordv(sub(x, K(2)), K(2)), -1);
    IS_CONST(floordv(x, K(2)), 0);
    IS_CONST(ceildv(add(x, K(5)), K(8)), 1);
    SAME(mod(add(x, K(6)), K(8)), add(x, K(6)));
    SAME(mod(x, K(2)), x);                   /* already in [0, 2) */
    SAME(floordv(add(x, K(1)), K(2)), x);    /* two values: linear there */
    SAME(mod(add(x, K(1)), K(2)), sub(K(1), x));
    SAME(smin(x, K(1)), x);
    SAME(smax(x, K(1)), K(1));
    cr_assert_eq(smax(x, H)->kind, SYM_MAX); /* H may be 0 */
    /* a chain of stride-2 pools collapses: the 62nd output is H / 2^62, the 63rd 0 */
    Sym *y = H;
    for (int i = 0; i < 63; i++)
        y = add(floordv(sub(y, K(2)), K(2)), K(1));
    IS_CONST(y, 0);
    /* with ceil_mode and a pad of 1 the sizes converge to {1, 2}: the chain stops growing */
    Sym *z = H, *z150 = NULL;
    for (int i = 0; i < 400; i++) {
        z = add(ceildv(sub(z, K(1)), K(2)), K(1));
        if (i == 149)
            z150 = z;
    }
    SAME(z, z150);
    expect_range(z, 1, 2);
    cr_assert_eq(overflows, 0);
}

/* ------------------------------------------------------------------ bounds on random boxes */

static uint64_t rnd64(void) {
    rnd(2);
    return rng;
}

/* gen() with constants that are large at times. */
static Tree *gen_big(int depth) {
    static const int64_t big[] = {INT64_C(1) << 31, INT64_C(1) << 62, INT64_MAX, INT64_MAX - 7,
                                  -(INT64_C(1) << 40), INT64_MIN + 3, 3};
    Tree *t = gen(depth);
    if (t->op == T_CONST && rnd(3) == 0)
        t->c = big[rnd(7)];
    if (t->l)
        t->l = rnd(2) ? gen_big(depth - 1) : t->l;
    return t;
}

/* The exact value of a tree in 128 bits; false on division by zero or beyond 2^100. */
__extension__ typedef __int128 I128;
static bool direct_wide(const Tree *t, const int64_t *d, I128 *out) {
    I128 a = 0, b = 0, v;
    if (t->op == T_CONST || t->op == T_DIM) {
        *out = t->op == T_CONST ? t->c : d[t->dim];
        return true;
    }
    if (!direct_wide(t->l, d, &a) || (t->r && !direct_wide(t->r, d, &b)))
        return false;
    switch (t->op) {
    case T_ADD: v = a + b; break;
    case T_SUB: v = a - b; break;
    case T_MUL:
        if (__builtin_mul_overflow(a, b, &v))
            return false;
        break;
    case T_NEG: v = -a; break;
    case T_MIN: v = a < b ? a : b; break;
    case T_MAX: v = a > b ? a : b; break;
    default: {
        if (b == 0)
            return false;
        I128 q = a / b, r = a % b;
        if (t->op == T_MOD)
            v = r != 0 && (r < 0) != (b < 0) ? r + b : r;
        else if (t->op == T_FDIV)
            v = r != 0 && (r < 0) != (b < 0) ? q - 1 : q;
        else
            v = r != 0 && (r < 0) == (b < 0) ? q + 1 : q;
    }
    }
    I128 lim = (I128)1 << 100;
    if (v > lim || v < -lim)
        return false;
    *out = v;
    return true;
}

/* Random boxes (bounds up to INT64_MAX) and points in them: whenever sym_bounds claims
 * [lo, hi] and sym_eval succeeds, the value is inside; sym_eval, when it succeeds, is the
 * exact value; the facts (sym_range) hold for every point with dims up to SYM_DIM_MAX. */
Test(sym, bounds_contain_every_value) {
    static const int64_t ends[] = {0, 1, 7, 1000, INT64_C(1) << 31, (INT64_C(1) << 62) - 3,
                                   INT64_C(1) << 62, INT64_MAX - 5, INT64_MAX};
    int inside = 0, claimed = 0, exact = 0;
    for (int k = 0; k < 4 * NTREES; k++) {
        int before = overflows;
        Tree *t = k % 2 ? gen_big(5) : gen(5);
        Sym *e = build(t);
        if (overflows != before)
            continue; /* the expression does not fit: nothing to bound */
        int64_t flo, fhi;
        sym_range(e, &flo, &fhi);
        for (int b = 0; b < 12; b++) {
            int64_t dlo[3], dhi[3], lo = 0, hi = 0;
            for (int i = 0; i < 3; i++) {
                int64_t x = ends[rnd(9)], y = ends[rnd(9)];
                dlo[i] = x < y ? x : y;
                dhi[i] = x < y ? y : x;
                int64_t w = rnd(4);
                if (rnd(3) == 0 && dhi[i] - dlo[i] > w) /* small boxes too */
                    dhi[i] = dlo[i] + w;
            }
            bool ok = sym_bounds(e, dlo, dhi, &lo, &hi);
            claimed += ok;
            if (ok)
                cr_assert_leq(lo, hi, "'%s': bounds [%" PRId64 ", %" PRId64 "]", str(e), lo, hi);
            for (int j = 0; j < 12; j++) {
                int64_t d[3], v;
                for (int i = 0; i < 3; i++) {
                    uint64_t w = (uint64_t)dhi[i] - (uint64_t)dlo[i];
                    uint64_t r = j == 0 ? 0 : j == 1 ? w : w == UINT64_MAX ? rnd64() : rnd64() % (w + 1);
                    d[i] = (int64_t)((uint64_t)dlo[i] + r);
                }
                if (!sym_eval(e, d, &v))
                    continue;
                I128 want;
                if (direct_wide(t, d, &want)) {
                    cr_assert(want == v, "tree %d: '%s' at (%" PRId64 ",%" PRId64 ",%" PRId64
                              "): sym_eval %" PRId64 ", exact %" PRId64 "%s", k, str(e), d[0], d[1],
                              d[2], v, (int64_t)want, want != (int64_t)want ? " (beyond int64)" : "");
                    exact++;
                }
                bool in_domain = d[0] <= SYM_DIM_MAX && d[1] <= SYM_DIM_MAX && d[2] <= SYM_DIM_MAX;
                cr_assert(!in_domain || (v >= flo && v <= fhi), "'%s' = %" PRId64 " at (%" PRId64
                          ",%" PRId64 ",%" PRId64 ") outside its facts [%" PRId64 ", %" PRId64 "]",
                          str(e), v, d[0], d[1], d[2], flo, fhi);
                if (ok) {
                    cr_assert(v >= lo && v <= hi, "'%s' = %" PRId64 " at (%" PRId64 ",%" PRId64
                              ",%" PRId64 ") outside [%" PRId64 ", %" PRId64 "]", str(e), v, d[0],
                              d[1], d[2], lo, hi);
                    inside++;
                }
            }
        }
    }
    cr_assert_gt(inside, 20 * NTREES, "only %d points checked against bounds", inside);
    cr_assert_gt(claimed, 10 * NTREES, "sym_bounds claimed only %d boxes", claimed);
    cr_assert_gt(exact, 20 * NTREES, "only %d values checked exactly", exact);
}

Test(sym, bounds_refuse_overflow) {
    int64_t lo, hi, dlo[3] = {0, 0, 0}, dhi[3] = {INT64_C(1) << 62, 4, INT64_MAX};
    cr_assert_not(sym_bounds(mul(H, W), dlo, dhi, &lo, &hi));
    cr_assert_not(sym_bounds(add(N, K(1)), dlo, dhi, &lo, &hi));
    cr_assert_not(sym_bounds(mul(ceildv(add(H, K(1)), K(64)), K(256)), dlo, dhi, &lo, &hi));
    cr_assert_not(sym_bounds(floordv(H, sub(W, K(1))), dlo, dhi, &lo, &hi)); /* divisor may be <= 0 */
    cr_assert(sym_bounds(mul(ceildv(add(H, K(1)), K(64)), K(64)), dlo, dhi, &lo, &hi));
    cr_assert_eq(lo, 64);
    cr_assert_eq(hi, (INT64_C(1) << 62) + 64);
    cr_assert(sym_bounds(smin(mul(H, W), K(10)), (int64_t[]){0, 0, 0}, (int64_t[]){1 << 30, 1 << 30, 0}, &lo, &hi));
    cr_assert_eq(hi, 10);
    cr_assert(sym_bounds(mod(sub(H, K(9)), add(W, K(1))), dlo, dhi, &lo, &hi));
    cr_assert(lo == 0 && hi == 4);
    /* floor(-H / 3) is -H + floor(2H / 3): 2H passes int64 for H up to 2^62, not 2^61 */
    cr_assert_not(sym_bounds(floordv(sub(K(0), H), K(3)), dlo, dhi, &lo, &hi));
    dhi[0] = INT64_C(1) << 61;
    cr_assert(sym_bounds(floordv(sub(K(0), H), K(3)), dlo, dhi, &lo, &hi));
    cr_assert(lo <= -((INT64_C(1) << 61) + 1) / 3 && hi >= 0, "[%" PRId64 ", %" PRId64 "]", lo, hi);
}

/* ------------------------------------------------------------------ deep expressions */

typedef struct Deep {
    int depth;
    bool eval_ok, bounds_ok, nonneg;
    int64_t v, want, lo, hi, subst_v;
    bool subst_const;
    size_t c_len, str_len, str_cap_len;
    char str[128];
} Deep;

/* Everything below runs on a thread with a 256 KB stack: no walk may recurse per level. */
static void *deep_work(void *arg) {
    Deep *r = arg;
    Sym *x = H;
    int64_t want = 3; /* H = 3, W = 5: x = (x + W) / 2 settles at 4 */
    for (int i = 0; i < r->depth; i++) {
        x = floordv(add(x, W), K(2)); /* not flattened: the dividend is not x' + constant */
        want = (want + 5) / 2;
    }
    r->want = want;
    r->eval_ok = sym_eval(x, (int64_t[]){3, 5, 0}, &r->v);
    r->bounds_ok = sym_bounds(x, (int64_t[]){0, 0, 0}, (int64_t[]){10, 10, 0}, &r->lo, &r->hi);
    r->nonneg = sym_nonneg(x);
    Sym *s = sym_subst(S, x, (Sym *[]){K(3), K(5), NULL});
    r->subst_const = sym_get_const(s, &r->subst_v);
    Sym *half = sym_subst(S, x, (Sym *[]){NULL, K(5), NULL}); /* nests again from 2^62 on */
    Buf b;
    buf_init(&b);
    sym_print_c(&b, x, NULL, NULL);
    sym_print_c(&b, half, NULL, NULL);
    r->c_len = b.len;
    buf_free(&b);
    char *t = sym_str_max(A, x, NAMES, 60);
    r->str_len = strlen(t);
    snprintf(r->str, sizeof r->str, "%s", t);
    r->str_cap_len = strlen(sym_str_max(A, half, NAMES, 100));
    return NULL;
}

Test(sym, deep_expressions_need_no_stack) {
    Deep r = {.depth = 50000};
    pthread_attr_t at;
    pthread_t th;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    cr_assert_eq(pthread_create(&th, &at, deep_work, &r), 0);
    pthread_join(th, NULL);
    pthread_attr_destroy(&at);
    cr_assert(r.eval_ok);
    cr_assert_eq(r.v, r.want);
    cr_assert(r.bounds_ok);
    cr_assert(r.lo <= r.v && r.v <= r.hi && r.lo >= 0 && r.hi <= 10, "[%" PRId64 ", %" PRId64 "]", r.lo, r.hi);
    cr_assert(r.nonneg);
    cr_assert(r.subst_const);
    cr_assert_eq(r.subst_v, r.want);
    cr_assert_gt(r.c_len, 50000 * 8);
    cr_assert_leq(r.str_len, 63, "'%s'", r.str);
    cr_assert(strstr(r.str, "...") != NULL, "'%s'", r.str);
    cr_assert_leq(r.str_cap_len, 103);
}

Test(sym, str_max) {
    Sym *e = add(mul(floordv(sub(H, K(3)), K(2)), W), K(1));
    cr_assert_str_eq(sym_str_max(A, e, NAMES, 100), str(e));
    char want[16];
    snprintf(want, sizeof want, "%.5s...", str(e));
    cr_assert_str_eq(sym_str_max(A, e, NAMES, 5), want);
    cr_assert_str_eq(sym_str_max(A, e, NAMES, 0), "...");
    Sym *wide = K(0);
    for (int i = 0; i < 2000; i++)
        wide = add(wide, floordv(add(H, K(i)), K(i + 2)));
    char *t = sym_str_max(A, wide, NAMES, 40);
    size_t n = strlen(t);
    cr_assert(n <= 43 && n > 30 && strcmp(t + n - 3, "...") == 0, "'%s'", t);
    cr_assert_eq(strncmp(t, str(wide), n - 3), 0, "'%s' is not a prefix", t); /* of the full text */
}
