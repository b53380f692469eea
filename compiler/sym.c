/* sym.c — symbolic integer expressions over the model's dims (shapes, offsets, sizes).
 *
 * Every constructor returns an interned node in canonical form, so two expressions that
 * normalise alike are the same pointer:
 *   atom      a SYM_DIM, or a non-polynomial node (floordiv, ceildiv, mod, min, max)
 *   monomial  an atom, or a SYM_MUL of >= 2 atoms sorted by id (repeats allowed: N*N)
 *   term      k * monomial: the monomial itself when k == 1, else a SYM_MUL of the constant k
 *             followed by the monomial's atoms
 *   sum       a constant, a term, or a SYM_ADD of terms sorted by the id of their monomial
 *             (like terms combined, zero terms dropped), the nonzero constant last
 * + and * expand into this form (a*(b+c) = a*b + a*c).  Division and mod by a constant c move
 * multiples of c out of the dividend, floordiv(q*c + r, c) = q + floordiv(r, c), leaving r's
 * coefficients in [0, c); a common factor of c and r's non-constant coefficients is divided
 * out (floordiv(32*x + 63, 64) = floordiv(x + 1, 2)); ceildiv(a, c) becomes
 * floordiv(a + c - 1, c).  A symbolic divisor only divides exactly (H*W / W = H).
 *
 * Facts.  Each node carries, computed once when it is interned from its children's facts, an
 * interval holding its value for every choice of dims in [0, SYM_DIM_MAX] (divisors taken as
 * positive where they are provably >= 0, which NAME_check enforces for shapes), in 128 bits
 * so that H + 2^62 keeps a finite bound; and the set of dims it mentions.  No query
 * about a node recurses, so expressions as deep as the graph is long (a chain of 20,000 pools)
 * are safe.  An atom whose interval is one value is that constant (floordiv(H, 2^62) - 2 over
 * 2 is -1), a mod whose dividend is already in [0, divisor) is the dividend, and min and max
 * choose outright when the intervals or the difference decide.
 *
 * Overflow.  Constants and coefficients are int64: a construction whose exact result would
 * need a coefficient beyond int64 is an error, reported through the context's error hook
 * (sym_ctx_set_error) when the public call returns, so that scratch memory is freed first.
 * Optional rewrites (flattening nested divisions, ceildiv into floordiv) are skipped rather
 * than reported when they would overflow.  sym_eval and sym_bounds return false on overflow.
 * Walks over an expression (evaluation, bounds, substitution, printing) are iterative. */
#include "onnx2c.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct SymCtx {
    Arena *arena;
    HashMap tab; /* the interning table: every Sym, keyed by its hash and its fields */
    int next_id;
    bool overflow; /* set by checked arithmetic; reported when the public call returns */
    void (*on_error)(void *user, const char *msg);
    void *error_user;
};

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p)
        arena_oom(); /* unwinds the compile (its scratch here is lost, not corrupted) */
    return p;
}

/* ---- int64 arithmetic: checked +, * and - (the wrapped result, and s->overflow set), floor
 * division, mod with the sign of the divisor */

static int64_t cadd(SymCtx *s, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        s->overflow = true;
    return r;
}

static int64_t cmul(SymCtx *s, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        s->overflow = true;
    return r;
}

static int64_t cneg(SymCtx *s, int64_t a) {
    int64_t r;
    if (__builtin_sub_overflow((int64_t)0, a, &r))
        s->overflow = true;
    return r;
}

/* floor(a / b) for b != 0; false when it does not fit (INT64_MIN / -1). */
static bool floordiv64(int64_t a, int64_t b, int64_t *q) {
    if (b == -1)
        return !__builtin_sub_overflow((int64_t)0, a, q);
    int64_t t = a / b, r = a % b;
    *q = r != 0 && (r < 0) != (b < 0) ? t - 1 : t;
    return true;
}

static bool ceildiv64(int64_t a, int64_t b, int64_t *q) {
    if (b == -1)
        return !__builtin_sub_overflow((int64_t)0, a, q);
    int64_t t = a / b, r = a % b;
    *q = r != 0 && (r < 0) == (b < 0) ? t + 1 : t;
    return true;
}

static int64_t mod64(int64_t a, int64_t b) { /* b != 0; always fits */
    if (b == -1)
        return 0;
    int64_t r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

static int64_t cfloordiv(SymCtx *s, int64_t a, int64_t b) {
    int64_t q = 0;
    if (!floordiv64(a, b, &q))
        s->overflow = true;
    return q;
}


static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static uint64_t abs64(int64_t a) { return a < 0 ? 0 - (uint64_t)a : (uint64_t)a; }

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ---- facts: interval arithmetic on 128-bit bounds, so that sub-expressions whose range
 * passes int64 (H + 2^62 for dims up to 2^63 - 1) keep finite bounds.  +-WINF stand for the
 * infinities; a bound that does not fit within them is rounded outwards (a lower bound too
 * large becomes WINF - 1, still below the value; one too small becomes -WINF; the reverse for
 * upper bounds), so a lower bound is never +WINF and an upper bound never -WINF. */

__extension__ typedef __int128 Wide;
#define WINF ((Wide)1 << 120)

static Wide wide_get(const uint64_t *p) {
    return (Wide)(((unsigned __int128)p[1] << 64) | p[0]);
}

static void wide_put(uint64_t *p, Wide v) {
    p[0] = (uint64_t)v;
    p[1] = (uint64_t)((unsigned __int128)v >> 64);
}

static Wide lo_of(const Sym *e) { return wide_get(e->range); }
static Wide hi_of(const Sym *e) { return wide_get(e->range + 2); }

static Wide round_lo(Wide v) { return v <= -WINF ? -WINF : v >= WINF ? WINF - 1 : v; }
static Wide round_hi(Wide v) { return v >= WINF ? WINF : v <= -WINF ? -WINF + 1 : v; }
static Wide wmin(Wide a, Wide b) { return a < b ? a : b; }
static Wide wmax(Wide a, Wide b) { return a > b ? a : b; }
static bool winf(Wide a) { return a == WINF || a == -WINF; }

/* Sum of two lower bounds (hi: of two upper bounds): an infinity absorbs; two finite bounds
 * (below 2^120) cannot overflow 128 bits. */
static Wide xadd(Wide a, Wide b, bool hi) {
    if (winf(a) || winf(b))
        return winf(a) ? a : b;
    return hi ? round_hi(a + b) : round_lo(a + b);
}

/* A product of bounds: exact, or an infinity of its sign (rounded by the caller). */
static Wide xmul(Wide a, Wide b) {
    Wide r;
    if (a == 0 || b == 0)
        return 0;
    if (winf(a) || winf(b) || __builtin_mul_overflow(a, b, &r) || r >= WINF || r <= -WINF)
        return (a < 0) != (b < 0) ? -WINF : WINF;
    return r;
}

static void xmul_iv(Wide alo, Wide ahi, Wide blo, Wide bhi, Wide *lo, Wide *hi) {
    Wide p[4] = {xmul(alo, blo), xmul(alo, bhi), xmul(ahi, blo), xmul(ahi, bhi)};
    Wide l = p[0], h = p[0];
    for (int k = 1; k < 4; k++) {
        l = wmin(l, p[k]);
        h = wmax(h, p[k]);
    }
    /* +inf as the least product: every product overflowed upwards (and -inf the reverse) */
    *lo = l == WINF ? WINF - 1 : l;
    *hi = h == -WINF ? -WINF + 1 : h;
}

/* floor (ceil) of a by a divisor b >= 1: b finite, or +inf with a finite. */
static Wide xdiv(Wide a, Wide b, bool ceil) {
    if (winf(a))
        return a;
    if (b == WINF)
        return ceil ? a > 0 : -(Wide)(a < 0);
    Wide q = a / b, r = a % b;
    return ceil ? q + (r > 0) : q - (r < 0);
}

/* The divisor's interval as a positive one: [blo, bhi] itself, or [1, bhi] for a symbolic
 * divisor known to be >= 0 (NAME_check requires it to be >= 1).  *neg is set when the
 * divisor is negative instead (the interval of -b is returned).  False: the sign is unknown. */
static bool pos_divisor(const Sym *b, Wide *blo, Wide *bhi, bool *neg) {
    *blo = lo_of(b);
    *bhi = hi_of(b);
    *neg = false;
    if (*blo >= 0 && *bhi >= 1) {
        *blo = wmax(*blo, 1);
        return true;
    }
    if (*bhi <= -1) {
        Wide t = *blo;
        *blo = -*bhi;
        *bhi = -t;
        *neg = true;
        return true;
    }
    return false;
}

/* The interval of kind(args) from the args' facts (dims in [0, SYM_DIM_MAX]). */
static void facts_of(SymKind kind, int64_t c, int n, Sym *const *args, Wide *lo, Wide *hi) {
    Wide alo, ahi, blo, bhi;
    bool neg;
    switch (kind) {
    case SYM_CONST: *lo = *hi = c; return;
    case SYM_DIM: *lo = 0; *hi = SYM_DIM_MAX; return;
    case SYM_ADD:
        *lo = *hi = 0;
        for (int i = 0; i < n; i++) {
            *lo = xadd(*lo, lo_of(args[i]), false);
            *hi = xadd(*hi, hi_of(args[i]), true);
        }
        return;
    case SYM_MUL:
        *lo = *hi = 1;
        for (int i = 0; i < n; i++)
            xmul_iv(*lo, *hi, lo_of(args[i]), hi_of(args[i]), lo, hi);
        return;
    case SYM_MIN:
        *lo = wmin(lo_of(args[0]), lo_of(args[1]));
        *hi = wmin(hi_of(args[0]), hi_of(args[1]));
        return;
    case SYM_MAX:
        *lo = wmax(lo_of(args[0]), lo_of(args[1]));
        *hi = wmax(hi_of(args[0]), hi_of(args[1]));
        return;
    default: break;
    }
    *lo = -WINF;
    *hi = WINF;
    if (!pos_divisor(args[1], &blo, &bhi, &neg))
        return;
    alo = lo_of(args[0]);
    ahi = hi_of(args[0]);
    if (kind == SYM_MOD) { /* the sign of the divisor, smaller in magnitude, and of a */
        if (neg) {         /* in (b, 0], and >= a when a <= 0 */
            *lo = bhi == WINF ? -WINF : 1 - bhi;
            *hi = 0;
            if (ahi <= 0)
                *lo = wmax(*lo, alo);
        } else { /* in [0, b), and <= a when a >= 0 */
            *lo = 0;
            *hi = bhi == WINF ? WINF : bhi - 1;
            if (alo >= 0)
                *hi = wmin(*hi, ahi);
        }
        return;
    }
    if (neg) { /* a / b = (-a) / (-b) */
        Wide t = alo;
        alo = -ahi;
        ahi = -t;
    }
    /* a positive divisor: the extremes are at the ends of a's and b's intervals */
    bool ceil = kind == SYM_CEILDIV;
    *lo = xdiv(alo, alo < 0 ? blo : bhi, ceil);
    *hi = xdiv(ahi, ahi < 0 ? bhi : blo, ceil);
}

static void set_facts(Sym *e, Wide lo, Wide hi) {
    wide_put(e->range, lo);
    wide_put(e->range + 2, hi);
}

bool sym_nonneg(const Sym *e) { return lo_of(e) >= 0; }

void sym_range(const Sym *e, int64_t *lo, int64_t *hi) {
    Wide l = lo_of(e), h = hi_of(e);
    *lo = l < INT64_MIN ? INT64_MIN : l > INT64_MAX ? INT64_MAX : (int64_t)l;
    *hi = h > INT64_MAX ? INT64_MAX : h < INT64_MIN ? INT64_MIN : (int64_t)h;
}

/* a >= b for every choice of dims (from the facts alone) */
static bool facts_ge(const Sym *a, const Sym *b) { return lo_of(a) >= hi_of(b); }

/* ---- interning */

static uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* Whether the Syms x and y (x interned, y a key being looked up) have the same fields. */
static bool sym_eq(const void *x, const void *y) {
    const Sym *a = x, *b = y;
    return a->kind == b->kind && a->c == b->c && a->dim == b->dim && a->n == b->n &&
           (a->n == 0 || memcmp(a->args, b->args, (size_t)a->n * sizeof *a->args) == 0);
}

SymCtx *sym_ctx_new(Arena *a) {
    SymCtx *s = arena_alloc(a, sizeof *s);
    s->arena = a;
    hashmap_init(&s->tab, a, 1024, sym_eq);
    return s;
}

void sym_ctx_set_error(SymCtx *s, void (*fn)(void *user, const char *msg), void *user) {
    s->on_error = fn;
    s->error_user = user;
}

/* The end of every public constructor: reports an overflow once its scratch is freed.  The
 * hook may not return (the compiler's longjmps); if it does, the (wrapped) result is kept. */
static Sym *done(SymCtx *s, Sym *r) {
    if (s->overflow) {
        s->overflow = false;
        if (s->on_error)
            s->on_error(s->error_user, "shape arithmetic overflows int64");
    }
    return r;
}

static Sym *intern(SymCtx *s, SymKind kind, int64_t c, int dim, int n, Sym *const *args) {
    uint64_t h = mix(mix(mix(kind, (uint64_t)c), (uint64_t)dim), (uint64_t)n);
    for (int i = 0; i < n; i++)
        h = mix(h, (uint64_t)args[i]->id);
    Sym key;
    key.kind = kind;
    key.c = c;
    key.dim = dim;
    key.n = n;
    key.args = (Sym **)args;
    HashEntry *found = hashmap_get(&s->tab, h, &key);
    if (found)
        return (Sym *)found->key;
    Sym *e = arena_alloc(s->arena, sizeof *e);
    e->kind = kind;
    e->c = c;
    e->dim = dim;
    e->n = n;
    e->args = n ? arena_dup(s->arena, args, (size_t)n * sizeof *args) : NULL;
    e->id = s->next_id++;
    e->hash = h;
    Wide lo, hi;
    facts_of(kind, c, n, args, &lo, &hi);
    set_facts(e, lo, hi);
    e->maxdim = kind == SYM_DIM ? dim : -1;
    e->dmask = kind == SYM_DIM ? (uint64_t)1 << (dim & 63) : 0;
    for (int i = 0; i < n; i++) {
        e->maxdim = args[i]->maxdim > e->maxdim ? args[i]->maxdim : e->maxdim;
        e->dmask |= args[i]->dmask;
    }
    hashmap_put(&s->tab, h, e);
    return e;
}

int sym_count(const SymCtx *s) { return s->next_id; }

Sym *sym_const(SymCtx *s, int64_t c) { return intern(s, SYM_CONST, c, 0, 0, NULL); }
Sym *sym_dim(SymCtx *s, int dim) { return intern(s, SYM_DIM, 0, dim, 0, NULL); }

bool sym_is_const(const Sym *e) { return e->kind == SYM_CONST; }

bool sym_get_const(const Sym *e, int64_t *out) {
    if (e->kind != SYM_CONST)
        return false;
    *out = e->c;
    return true;
}

/* ---- polynomials: a list of terms k * m, m a monomial (NULL for the constant) */

typedef struct {
    int64_t k;
    Sym *m;
} Term;

typedef struct {
    Term *t;
    int n, cap;
} Poly;

static void push(Poly *p, int64_t k, Sym *m) {
    p->t = arena_grow(NULL, p->t, p->n, &p->cap, 8, sizeof *p->t);
    p->t[p->n++] = (Term){k, m};
}

/* The atoms of monomial *m; *m must outlive the result. */
static int atoms_of(Sym *const *m, Sym *const **out) {
    if ((*m)->kind == SYM_MUL) {
        *out = (*m)->args;
        return (*m)->n;
    }
    *out = m;
    return 1;
}

static Sym *monomial(SymCtx *s, Sym *const *atoms, int n) {
    return n == 0 ? NULL : n == 1 ? atoms[0] : intern(s, SYM_MUL, 0, 0, n, atoms);
}

/* Product of two monomials (NULL is 1): merge the atom lists by id. */
static Sym *mono_mul(SymCtx *s, Sym *a, Sym *b) {
    if (!a || !b)
        return a ? a : b;
    Sym *const *x, *const *y;
    int nx = atoms_of(&a, &x), ny = atoms_of(&b, &y), i = 0, j = 0, n = 0;
    Sym **r = xrealloc(NULL, (size_t)(nx + ny) * sizeof *r);
    while (i < nx || j < ny)
        r[n++] = j == ny || (i < nx && x[i]->id <= y[j]->id) ? x[i++] : y[j++];
    Sym *m = monomial(s, r, n);
    free(r);
    return m;
}

/* Appends scale * e to p (e's terms are not ADDs: no deeper recursion). */
static void poly_add(SymCtx *s, Poly *p, Sym *e, int64_t scale) {
    if (e->kind == SYM_CONST)
        push(p, cmul(s, scale, e->c), NULL);
    else if (e->kind == SYM_ADD)
        for (int i = 0; i < e->n; i++)
            poly_add(s, p, e->args[i], scale);
    else if (e->kind == SYM_MUL && e->args[0]->kind == SYM_CONST)
        push(p, cmul(s, scale, e->args[0]->c), monomial(s, e->args + 1, e->n - 1));
    else
        push(p, scale, e);
}

static Sym *term(SymCtx *s, int64_t k, Sym *m) {
    if (!m || k == 0)
        return sym_const(s, m ? 0 : k);
    if (k == 1)
        return m;
    Sym *const *at;
    int n = atoms_of(&m, &at);
    Sym **args = xrealloc(NULL, (size_t)(n + 1) * sizeof *args);
    args[0] = sym_const(s, k);
    memcpy(args + 1, at, (size_t)n * sizeof *at);
    Sym *e = intern(s, SYM_MUL, 0, 0, n + 1, args);
    free(args);
    return e;
}

static int term_cmp(const void *x, const void *y) {
    const Term *a = x, *b = y;
    int ia = a->m ? a->m->id : -1, ib = b->m ? b->m->id : -1;
    return (ia > ib) - (ia < ib);
}

/* The canonical sum of p's terms; frees p.  Like terms are summed exactly: an intermediate
 * sum may wrap as long as the total fits (the carries cancel). */
static Sym *build(SymCtx *s, Poly *p) {
    if (p->n > 1)
        qsort(p->t, (size_t)p->n, sizeof *p->t, term_cmp);
    Sym **args = xrealloc(NULL, (size_t)(p->n + 1) * sizeof *args);
    int n = 0;
    int64_t c = 0;
    for (int i = 0; i < p->n;) {
        Sym *m = p->t[i].m;
        int64_t k = 0, carry = 0;
        for (; i < p->n && p->t[i].m == m; i++) {
            int64_t x = p->t[i].k;
            if (__builtin_add_overflow(k, x, &k))
                carry += x > 0 ? 1 : -1;
        }
        if (carry)
            s->overflow = true;
        if (!m)
            c = k;
        else if (k)
            args[n++] = term(s, k, m);
    }
    if (c)
        args[n++] = sym_const(s, c);
    Sym *e = n == 0 ? sym_const(s, 0) : n == 1 ? args[0] : intern(s, SYM_ADD, 0, 0, n, args);
    free(args);
    free(p->t);
    *p = (Poly){0};
    return e;
}

static Sym *lincomb(SymCtx *s, Sym *a, int64_t ka, Sym *b, int64_t kb) {
    Poly p = {0};
    poly_add(s, &p, a, ka);
    poly_add(s, &p, b, kb);
    return build(s, &p);
}

static Sym *add_(SymCtx *s, Sym *a, Sym *b) { return lincomb(s, a, 1, b, 1); }
static Sym *minmax(SymCtx *s, SymKind kind, Sym *a, Sym *b);

/* a - max(x, y) = min(a - x, a - y) and a - min(x, y) = max(a - x, a - y), taken when one of
 * the differences is a constant: the length of x[:, -1:] on a dim T, T - max(T - 1, 0),
 * becomes min(1, T), which the facts show is 0 or 1 (a dim that broadcasts). */
static bool diff_const(SymCtx *s, Sym *a, Sym *x) { /* a - x is a constant (nothing interned) */
    if (!(a->dmask & x->dmask) && !(sym_is_const(a) && sym_is_const(x)))
        return false;
    Poly p = {0};
    poly_add(s, &p, a, 1);
    poly_add(s, &p, x, -1);
    if (p.n > 1)
        qsort(p.t, (size_t)p.n, sizeof *p.t, term_cmp);
    bool k = true;
    for (int i = 0; i < p.n && k;) {
        Sym *m = p.t[i].m;
        uint64_t sum = 0;
        for (; i < p.n && p.t[i].m == m; i++)
            sum += (uint64_t)p.t[i].k;
        k = !m || sum == 0;
    }
    free(p.t);
    return k;
}

static Sym *sub_(SymCtx *s, Sym *a, Sym *b) {
    if ((b->kind == SYM_MAX || b->kind == SYM_MIN) &&
        (diff_const(s, a, b->args[0]) || diff_const(s, a, b->args[1])))
        return minmax(s, b->kind == SYM_MAX ? SYM_MIN : SYM_MAX, lincomb(s, a, 1, b->args[0], -1),
                      lincomb(s, a, 1, b->args[1], -1));
    return lincomb(s, a, 1, b, -1);
}
static Sym *neg_(SymCtx *s, Sym *a) {
    Poly p = {0};
    poly_add(s, &p, a, -1);
    return build(s, &p);
}

static Sym *mul_(SymCtx *s, Sym *a, Sym *b) {
    Poly pa = {0}, pb = {0}, r = {0};
    poly_add(s, &pa, a, 1);
    poly_add(s, &pb, b, 1);
    for (int i = 0; i < pa.n; i++)
        for (int j = 0; j < pb.n; j++)
            if (pa.t[i].k && pb.t[j].k)
                push(&r, cmul(s, pa.t[i].k, pb.t[j].k), mono_mul(s, pa.t[i].m, pb.t[j].m));
    free(pa.t);
    free(pb.t);
    return build(s, &r);
}

/* Runs an optional rewrite: its overflow is not an error, the caller falls back instead.
 * Usage: bool saved = try_begin(s); r = ...; if (!try_end(s, saved)) r = fallback. */
static bool try_begin(SymCtx *s) {
    bool saved = s->overflow;
    s->overflow = false;
    return saved;
}

static bool try_end(SymCtx *s, bool saved) {
    bool ok = !s->overflow;
    s->overflow = saved;
    return ok;
}

/* A floordiv, ceildiv, mod, min or max node, or what it simplifies to by its facts: a
 * constant when they leave one value; the dividend of a mod that cannot change it; a linear
 * function of a dividend that has two possible values, x in {v, v + 1}: f(x) = f(v) +
 * (f(v + 1) - f(v)) * (x - v), which keeps a chain of stride-2 pools (each output
 * floordiv(x, 2) + 1 of the one before, converging to {1, 2}) from nesting ever deeper. */
static Sym *node2(SymCtx *s, SymKind kind, Sym *a, Sym *b) {
    Sym *args[2] = {a, b};
    Wide lo, hi;
    int64_t c, v, f0, f1;
    facts_of(kind, 0, 2, args, &lo, &hi);
    if (lo == hi && lo >= INT64_MIN && lo <= INT64_MAX)
        return sym_const(s, (int64_t)lo);
    if (kind == SYM_MOD && lo_of(a) >= 0 && lo_of(b) >= 1 && hi_of(a) < lo_of(b))
        return a;
    bool two = lo_of(a) >= INT64_MIN && lo_of(a) < INT64_MAX && hi_of(a) == lo_of(a) + 1;
    if (two && kind != SYM_MIN && kind != SYM_MAX && sym_get_const(b, &c) && c != 0) {
        v = (int64_t)lo_of(a);
        bool ok = kind == SYM_FLOORDIV ? floordiv64(v, c, &f0) && floordiv64(v + 1, c, &f1)
                  : kind == SYM_CEILDIV ? ceildiv64(v, c, &f0) && ceildiv64(v + 1, c, &f1)
                                        : (f0 = mod64(v, c), f1 = mod64(v + 1, c), true);
        if (ok) {
            bool saved = try_begin(s);
            int64_t k = f1 - f0; /* both within c of v / c: no overflow */
            Sym *r = lincomb(s, a, k, sym_const(s, 1), cadd(s, f0, cneg(s, cmul(s, k, v))));
            if (try_end(s, saved))
                return r;
        }
    }
    return intern(s, kind, 0, 0, 2, args);
}

/* ---- division and mod */

/* Splits a = q*c + r with every coefficient of r in [0, c) (or (c, 0] for c < 0); q may be
 * NULL when only r is wanted.  Returns whether r has a non-constant term. */
static bool split_mod(SymCtx *s, Sym *a, int64_t c, Poly *q, Poly *r) {
    Poly p = {0};
    bool sym = false;
    poly_add(s, &p, a, 1);
    for (int i = 0; i < p.n; i++) {
        if (q)
            push(q, cfloordiv(s, p.t[i].k, c), p.t[i].m);
        push(r, mod64(p.t[i].k, c), p.t[i].m);
        sym |= p.t[i].m && r->t[i].k;
    }
    free(p.t);
    return sym;
}

static Sym *floordiv_(SymCtx *s, Sym *a, Sym *b);

/* The largest constant a rewrite may add to a dividend (ceil(a / y) = floor((a + y - 1) / y),
 * the flattening of nested divisions): beyond it the generated code's int64 arithmetic could
 * overflow on the way for dims the original expression handles (a Slice step of INT64_MAX). */
#define ADDEND_MAX ((uint64_t)1 << 62)

static Sym *floordiv_const(SymCtx *s, Sym *a, int64_t c) {
    Poly q = {0}, r = {0};
    if (!split_mod(s, a, c, &q, &r)) { /* the remainder's constant is < c: it floors to 0 */
        free(r.t);
        return build(s, &q);
    }
    /* floor((g*x + k) / (g*c')) = floor((x + floor(k / g)) / c') for g > 0, g the gcd of c and
     * r's non-constant coefficients (g < |c| since one of those is nonzero and below |c|) */
    uint64_t g = abs64(c);
    for (int i = 0; i < r.n; i++)
        if (r.t[i].m)
            g = gcd64(g, abs64(r.t[i].k));
    if (g > 1) {
        for (int i = 0; i < r.n; i++)
            r.t[i].k = r.t[i].m ? r.t[i].k / (int64_t)g : cfloordiv(s, r.t[i].k, (int64_t)g);
        c /= (int64_t)g;
    }
    Sym *qs = build(s, &q), *rs = build(s, &r);
    /* floor((floor(x / b) + k) / c) = floor((x + k*b) / (b*c)) for b, c > 0 (skipped when
     * a coefficient would not fit) */
    bool plus_k = rs->kind == SYM_ADD && rs->n == 2 && rs->args[1]->kind == SYM_CONST;
    Sym *f = plus_k ? rs->args[0] : rs;
    int64_t k = plus_k ? rs->args[1]->c : 0, b, kb, bc;
    if (c > 0 && f->kind == SYM_FLOORDIV && sym_get_const(f->args[1], &b) && b > 0 &&
        !__builtin_mul_overflow(k, b, &kb) && !__builtin_mul_overflow(b, c, &bc) &&
        abs64(kb) <= ADDEND_MAX) {
        bool saved = try_begin(s);
        Sym *x = add_(s, qs, floordiv_(s, add_(s, f->args[0], sym_const(s, kb)), sym_const(s, bc)));
        if (try_end(s, saved))
            return x;
    }
    return add_(s, qs, node2(s, SYM_FLOORDIV, rs, sym_const(s, c)));
}

/* a mod c for a constant c other than 0, 1, -1 and a non-constant a. */
static Sym *mod_const(SymCtx *s, Sym *a, int64_t c) {
    for (;;) {
        Poly r = {0};
        bool sym = split_mod(s, a, c, NULL, &r);
        Sym *rs = build(s, &r);
        if (!sym)
            return rs;
        /* mod(k * mod(x, c2) + rest, c) = mod(k*x + rest, c) when c divides c2 */
        Sym *x = NULL;
        Poly p = {0};
        poly_add(s, &p, rs, 1);
        for (int i = 0; i < p.n && !x; i++) {
            Sym *m = p.t[i].m;
            int64_t c2;
            if (m && m->kind == SYM_MOD && sym_get_const(m->args[1], &c2) && c2 != 0 &&
                mod64(c2, c) == 0) {
                bool saved = try_begin(s);
                Sym *y = lincomb(s, rs, 1, m, cneg(s, p.t[i].k));
                y = lincomb(s, y, 1, m->args[0], p.t[i].k);
                if (try_end(s, saved))
                    x = y;
            }
        }
        free(p.t);
        if (!x)
            return node2(s, SYM_MOD, rs, sym_const(s, c));
        int64_t v;
        if (sym_get_const(x, &v))
            return sym_const(s, mod64(v, c));
        a = x;
    }
}

/* a / b when b (not a constant) is a single term that divides every term of a; else NULL. */
static Sym *exact_quotient(SymCtx *s, Sym *a, Sym *b) {
    if (a == b || (a->kind == SYM_CONST && a->c == 0))
        return sym_const(s, a == b);
    if (b->kind == SYM_ADD)
        return NULL;
    Poly pa = {0}, pb = {0}, q = {0};
    bool saved = try_begin(s);
    poly_add(s, &pa, a, 1);
    poly_add(s, &pb, b, 1);
    int64_t kb = pb.t[0].k;
    Sym *mb = pb.t[0].m;
    free(pb.t);
    Sym *const *xb;
    int nb = atoms_of(&mb, &xb);
    bool ok = true;
    for (int i = 0; ok && i < pa.n; i++) {
        int64_t k = pa.t[i].k;
        if (k == 0)
            continue;
        ok = pa.t[i].m && (kb == -1 || k % kb == 0);
        if (!ok)
            break;
        /* the atoms of mb must be a sub-multiset of the term's; keep the rest */
        Sym *const *x;
        int n = atoms_of(&pa.t[i].m, &x), j = 0, nr = 0;
        Sym **rest = xrealloc(NULL, (size_t)n * sizeof *rest);
        for (int t = 0; t < n; t++) {
            if (j < nb && x[t] == xb[j])
                j++;
            else
                rest[nr++] = x[t];
        }
        ok = j == nb;
        if (ok)
            push(&q, kb == -1 ? cneg(s, k) : k / kb, monomial(s, rest, nr));
        free(rest);
    }
    free(pa.t);
    Sym *r = ok ? build(s, &q) : NULL;
    free(q.t);
    return try_end(s, saved) ? r : NULL;
}

static Sym *floordiv_(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    if (!sym_get_const(b, &y)) {
        Sym *q = exact_quotient(s, a, b);
        return q ? q : node2(s, SYM_FLOORDIV, a, b);
    }
    if (y == 0) /* left for the caller's validation */
        return node2(s, SYM_FLOORDIV, a, b);
    if (sym_get_const(a, &x))
        return sym_const(s, cfloordiv(s, x, y));
    return floordiv_const(s, a, y);
}

static Sym *ceildiv_(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y, q = 0;
    if (!sym_get_const(b, &y)) {
        Sym *e = exact_quotient(s, a, b);
        return e ? e : node2(s, SYM_CEILDIV, a, b);
    }
    if (y == 0)
        return node2(s, SYM_CEILDIV, a, b);
    if (sym_get_const(a, &x)) {
        if (!ceildiv64(x, y, &q))
            s->overflow = true;
        return sym_const(s, q);
    }
    /* ceil(a / y) = floor((a + y - 1) / y) for y > 0, floor((a + y + 1) / y) for y < 0 */
    if (abs64(y) > ADDEND_MAX)
        return node2(s, SYM_CEILDIV, a, b);
    bool saved = try_begin(s);
    Sym *e = floordiv_(s, add_(s, a, sym_const(s, y > 0 ? y - 1 : y + 1)), b);
    return try_end(s, saved) ? e : node2(s, SYM_CEILDIV, a, b);
}

static Sym *mod_(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    if (!sym_get_const(b, &y)) {
        Sym *q = exact_quotient(s, a, b);
        return q ? sym_const(s, 0) : node2(s, SYM_MOD, a, b);
    }
    if (y == 0)
        return node2(s, SYM_MOD, a, b);
    if (y == 1 || y == -1)
        return sym_const(s, 0);
    if (sym_get_const(a, &x))
        return sym_const(s, mod64(x, y));
    return mod_const(s, a, y);
}

/* ---- min and max */

static Sym *minmax(SymCtx *s, SymKind kind, Sym *a, Sym *b) {
    if (a == b)
        return a;
    /* absorption: max(a, max(a, c)) = max(a, c); min(a, max(a, c)) = a */
    if (b->kind == kind && (b->args[0] == a || b->args[1] == a))
        return b;
    if (a->kind == kind && (a->args[0] == b || a->args[1] == b))
        return a;
    SymKind dual = kind == SYM_MIN ? SYM_MAX : SYM_MIN;
    if (b->kind == dual && (b->args[0] == a || b->args[1] == a))
        return a;
    if (a->kind == dual && (a->args[0] == b || a->args[1] == b))
        return b;
    /* the intervals decide, or the difference is a constant or of known sign */
    bool a_ge = facts_ge(a, b), b_ge = !a_ge && facts_ge(b, a);
    if (!a_ge && !b_ge) {
        bool saved = try_begin(s);
        Sym *d = sub_(s, a, b);
        if (try_end(s, saved)) {
            a_ge = sym_nonneg(d);
            b_ge = !a_ge && hi_of(d) <= 0;
        }
    }
    if (a_ge || b_ge)
        return (kind == SYM_MAX) == a_ge ? a : b;
    return a->id < b->id ? node2(s, kind, a, b) : node2(s, kind, b, a);
}

/* ---- the public constructors: each reports an overflow when it returns */

Sym *sym_add(SymCtx *s, Sym *a, Sym *b) { return done(s, add_(s, a, b)); }

Sym *sym_sum(SymCtx *s, int n, Sym *const *terms) {
    Poly p = {0};
    for (int i = 0; i < n; i++)
        poly_add(s, &p, terms[i], 1);
    return done(s, build(s, &p));
}
Sym *sym_sub(SymCtx *s, Sym *a, Sym *b) { return done(s, sub_(s, a, b)); }
Sym *sym_neg(SymCtx *s, Sym *a) { return done(s, neg_(s, a)); }
Sym *sym_mul(SymCtx *s, Sym *a, Sym *b) { return done(s, mul_(s, a, b)); }
Sym *sym_floordiv(SymCtx *s, Sym *a, Sym *b) { return done(s, floordiv_(s, a, b)); }
Sym *sym_ceildiv(SymCtx *s, Sym *a, Sym *b) { return done(s, ceildiv_(s, a, b)); }
Sym *sym_mod(SymCtx *s, Sym *a, Sym *b) { return done(s, mod_(s, a, b)); }
Sym *sym_min(SymCtx *s, Sym *a, Sym *b) { return done(s, minmax(s, SYM_MIN, a, b)); }
Sym *sym_max(SymCtx *s, Sym *a, Sym *b) { return done(s, minmax(s, SYM_MAX, a, b)); }

Sym *sym_prod(SymCtx *s, Sym *const *v, int from, int to) {
    Sym *p = sym_const(s, 1);
    for (int i = from; i < to; i++)
        p = sym_mul(s, p, v[i]);
    return p;
}

/* ---- walks over the DAG below a node, without recursion: the nodes to visit are collected
 * with an explicit stack, then processed in id order (children have smaller ids than their
 * parents), each once, with its result kept by position. */

typedef struct {
    HashMap pos; /* node -> 1 + its position in nodes[] (on the heap, by Sym.hash, pointer) */
    const Sym **nodes; /* the collected nodes, in id order once walk_collect returns */
    int n, capn;
} Walk;

/* The position of e in w->nodes, or -1 when it was not collected. */
static int walk_find(const Walk *w, const Sym *e) {
    HashEntry *h = hashmap_get(&w->pos, e->hash, e);
    return h ? (int)(intptr_t)h->val - 1 : -1;
}

static bool walk_add(Walk *w, const Sym *e) {
    HashEntry *h = hashmap_put(&w->pos, e->hash, e);
    if (h->val)
        return false;
    h->val = (void *)(intptr_t)(w->n + 1);
    w->nodes = arena_grow(NULL, w->nodes, w->n, &w->capn, 64, sizeof *w->nodes);
    w->nodes[w->n++] = e;
    return true;
}

static int id_cmp(const void *x, const void *y) {
    const Sym *a = *(const Sym *const *)x, *b = *(const Sym *const *)y;
    return (a->id > b->id) - (a->id < b->id);
}

/* Collects root and the nodes below it that are not leaves (constants, dims) and mention a
 * dim of `mask` (every non-leaf when all). */
static void walk_collect(Walk *w, const Sym *root, uint64_t mask, bool all) {
    *w = (Walk){0};
    hashmap_init(&w->pos, NULL, 64, NULL);
    int sp = 0, cap = 0;
    const Sym **stack = arena_grow(NULL, NULL, 0, &cap, 64, sizeof *stack);
    walk_add(w, root);
    stack[sp++] = root;
    while (sp) {
        const Sym *x = stack[--sp];
        for (int i = 0; i < x->n; i++) {
            const Sym *y = x->args[i];
            if (y->n == 0 || (!all && !(y->dmask & mask)) || !walk_add(w, y))
                continue;
            stack = arena_grow(NULL, stack, sp, &cap, 64, sizeof *stack);
            stack[sp++] = y;
        }
    }
    free(stack);
    qsort(w->nodes, (size_t)w->n, sizeof *w->nodes, id_cmp);
    for (int i = 0; i < w->n; i++)
        hashmap_get(&w->pos, w->nodes[i]->hash, w->nodes[i])->val = (void *)(intptr_t)(i + 1);
}

static void walk_free(Walk *w) {
    hashmap_free(&w->pos);
    free(w->nodes);
}

/* ---- substitution */

Sym *sym_subst(SymCtx *s, Sym *e, Sym *const *dims) {
    uint64_t mask = 0;
    for (int d = 0; d <= e->maxdim; d++)
        if (dims[d] && !(dims[d]->kind == SYM_DIM && dims[d]->dim == d))
            mask |= (uint64_t)1 << (d & 63);
    if (!(e->dmask & mask))
        return e;
    if (e->kind == SYM_DIM)
        return dims[e->dim] ? dims[e->dim] : e;
    Walk w;
    walk_collect(&w, e, mask, false);
    Sym **res = xrealloc(NULL, (size_t)w.n * sizeof *res);
    for (int i = 0; i < w.n; i++) {
        const Sym *x = w.nodes[i];
        Sym *r = NULL;
        Poly p = {0};
        for (int j = 0; j < x->n; j++) {
            Sym *y = x->args[j];
            int at = y->n ? walk_find(&w, y) : -1;
            y = at >= 0 ? res[at] : y->kind == SYM_DIM && dims[y->dim] ? dims[y->dim] : y;
            if (x->kind == SYM_ADD) {
                poly_add(s, &p, y, 1);
                continue;
            }
            if (j == 0) {
                r = y;
                continue;
            }
            switch (x->kind) {
            case SYM_MUL: r = mul_(s, r, y); break;
            case SYM_FLOORDIV: r = floordiv_(s, r, y); break;
            case SYM_CEILDIV: r = ceildiv_(s, r, y); break;
            case SYM_MOD: r = mod_(s, r, y); break;
            case SYM_MIN: r = minmax(s, SYM_MIN, r, y); break;
            case SYM_MAX: r = minmax(s, SYM_MAX, r, y); break;
            default: break;
            }
        }
        res[i] = x->kind == SYM_ADD ? build(s, &p) : r;
    }
    Sym *r = res[w.n - 1];
    free(res);
    walk_free(&w);
    return done(s, r);
}

/* ---- evaluation */

/* The value of child y of a walked node: a leaf directly, else from v[] by its position. */
static int64_t walked(const Walk *w, const int64_t *v, const Sym *y, const int64_t *dims) {
    return y->kind == SYM_CONST ? y->c : y->kind == SYM_DIM ? dims[y->dim] : v[walk_find(w, y)];
}

bool sym_eval(const Sym *e, const int64_t *dims, int64_t *out) {
    if (e->n == 0) {
        *out = e->kind == SYM_CONST ? e->c : dims[e->dim];
        return true;
    }
    Walk w;
    walk_collect(&w, e, 0, true);
    int64_t *v = xrealloc(NULL, (size_t)w.n * sizeof *v);
    bool ok = true;
    for (int i = 0; ok && i < w.n; i++) {
        const Sym *x = w.nodes[i];
        int64_t r = walked(&w, v, x->args[0], dims);
        for (int j = 1; ok && j < x->n; j++) {
            int64_t y = walked(&w, v, x->args[j], dims);
            switch (x->kind) {
            case SYM_ADD: ok = !__builtin_add_overflow(r, y, &r); break;
            case SYM_MUL: ok = !__builtin_mul_overflow(r, y, &r); break;
            case SYM_MIN: r = min64(r, y); break;
            case SYM_MAX: r = max64(r, y); break;
            case SYM_FLOORDIV: ok = y != 0 && floordiv64(r, y, &r); break;
            case SYM_CEILDIV: ok = y != 0 && ceildiv64(r, y, &r); break;
            case SYM_MOD: ok = y != 0 && (r = mod64(r, y), true); break;
            default: ok = false;
            }
        }
        v[i] = r;
    }
    if (ok)
        *out = v[w.n - 1];
    free(v);
    walk_free(&w);
    return ok;
}

/* Interval arithmetic: [lo, hi] of e when each dim i ranges over [dlo[i], dhi[i]].  Sound (the
 * true range is inside the result), not tight.  Returns false when a divisor interval contains
 * zero or is negative, or when a bound does not fit in int64 (no bound is claimed then).  Used
 * for NAME_WORKSPACE_MAX under --max. */
bool sym_bounds(const Sym *e, const int64_t *dlo, const int64_t *dhi, int64_t *lo, int64_t *hi) {
    if (e->n == 0) {
        *lo = e->kind == SYM_CONST ? e->c : dlo[e->dim];
        *hi = e->kind == SYM_CONST ? e->c : dhi[e->dim];
        return true;
    }
    Walk w;
    walk_collect(&w, e, 0, true);
    int64_t *vl = xrealloc(NULL, (size_t)w.n * sizeof *vl);
    int64_t *vh = xrealloc(NULL, (size_t)w.n * sizeof *vh);
    bool ok = true;
    for (int i = 0; ok && i < w.n; i++) {
        const Sym *x = w.nodes[i];
        int64_t alo = walked(&w, vl, x->args[0], dlo), ahi = walked(&w, vh, x->args[0], dhi);
        for (int j = 1; ok && j < x->n; j++) {
            int64_t blo = walked(&w, vl, x->args[j], dlo), bhi = walked(&w, vh, x->args[j], dhi);
            switch (x->kind) {
            case SYM_ADD:
                ok = !__builtin_add_overflow(alo, blo, &alo) && !__builtin_add_overflow(ahi, bhi, &ahi);
                break;
            case SYM_MUL: {
                int64_t p[4];
                ok = !__builtin_mul_overflow(alo, blo, &p[0]) &&
                     !__builtin_mul_overflow(alo, bhi, &p[1]) &&
                     !__builtin_mul_overflow(ahi, blo, &p[2]) &&
                     !__builtin_mul_overflow(ahi, bhi, &p[3]);
                alo = ahi = p[0];
                for (int k = 1; ok && k < 4; k++) {
                    alo = min64(alo, p[k]);
                    ahi = max64(ahi, p[k]);
                }
                break;
            }
            case SYM_MIN: alo = min64(alo, blo); ahi = min64(ahi, bhi); break;
            case SYM_MAX: alo = max64(alo, blo); ahi = max64(ahi, bhi); break;
            /* a positive divisor: the extremes are at the interval ends of a and b (a positive
             * divisor cannot overflow a quotient) */
            case SYM_FLOORDIV:
                ok = blo > 0 && floordiv64(alo, alo < 0 ? blo : bhi, &alo) &&
                     floordiv64(ahi, ahi < 0 ? bhi : blo, &ahi);
                break;
            case SYM_CEILDIV:
                ok = blo > 0 && ceildiv64(alo, alo < 0 ? blo : bhi, &alo) &&
                     ceildiv64(ahi, ahi < 0 ? bhi : blo, &ahi);
                break;
            case SYM_MOD: /* in [0, b), and at most a when a >= 0 */
                ok = blo > 0;
                ahi = alo >= 0 ? min64(ahi, bhi - 1) : bhi - 1;
                alo = 0;
                break;
            default: ok = false;
            }
        }
        vl[i] = alo;
        vh[i] = ahi;
    }
    if (ok) {
        *lo = vl[w.n - 1];
        *hi = vh[w.n - 1];
    }
    free(vl);
    free(vh);
    walk_free(&w);
    return ok;
}

/* ---- printing: C99 (sym_print_c) and the human form (sym_str) share one printer.  It runs
 * on an explicit stack of tasks, not by recursion: a task prints a Sym, a string, an integer,
 * or continues a sum's terms, a product's factors or a division's template where it left
 * off.  Only tasks that will print something are pushed, so with a length limit the printer
 * stops (and writes "...") once the pending tasks alone would pass it: the stack and the work
 * stay within the limit, and the text is a prefix of the full one. */

enum { P_ADD = 1, P_MUL, P_UNARY, P_PRIMARY }; /* binding strength of an expression's top */

typedef enum {
    T_SYM,     /* e at precedence i */
    T_STR,     /* s */
    T_INT,     /* s (a prefix), then v */
    T_TERMS,   /* terms i.. of the sum e */
    T_FACTORS, /* factors i.. of the term e */
    T_FORM,    /* the template s of e, from offset i */
} TaskKind;

typedef struct {
    TaskKind kind;
    int i;
    const Sym *e;
    const char *s;
    int64_t v;
} Task;

typedef struct {
    Buf *b;
    bool c; /* C99 rather than human-readable */
    const char *(*dimname)(int, void *);
    void *user;
    const char *(*subname)(const Sym *, void *); /* names for sub-expressions, or NULL */
    const Sym *root;
    size_t start, max; /* the output began at b->len == start; at most max bytes of it */
    bool cut;          /* stopped before the limit: what is left would pass it */
    Task *stack;
    int n, cap;
} Printer;

static size_t out_len(const Printer *p) { return p->b->len - p->start; }

static void put_n(Printer *p, const char *s, size_t n) {
    size_t room = p->max - out_len(p) + 1; /* one more tells it was cut */
    buf_putn(p->b, s, n < room ? n : room);
}

static void put(Printer *p, const char *s) { put_n(p, s, strlen(s)); }

static void put_int(Printer *p, int64_t v) {
    char t[32];
    if (v == INT64_MIN && p->c)
        put(p, "(-9223372036854775807 - 1)");
    else {
        snprintf(t, sizeof t, "%" PRId64, v);
        put(p, t);
    }
}

static void task(Printer *p, TaskKind kind, const Sym *e, int i, const char *s, int64_t v) {
    p->stack = arena_grow(NULL, p->stack, p->n, &p->cap, 32, sizeof *p->stack);
    p->stack[p->n++] = (Task){kind, i, e, s, v};
}

/* -1, 0 or 1: the sign a divisor is known to have (a symbolic divisor >= 0 is taken as > 0). */
static int divisor_sign(const Sym *b) {
    if (b->kind == SYM_CONST)
        return b->c > 0 ? 1 : b->c < 0 ? -1 : 0;
    return sym_nonneg(b) ? 1 : 0;
}

/* The template for a division, mod, min or max node and its precedence.  In a template (expand.c),
 * $a / $b stand for the operands printed as the left / right operand of `/`, and $A / $B for
 * the operands printed as operands of `<` or of a function call.  Floor semantics must hold
 * in C, whose `/` and `%` truncate: the plain operators serve when the dividend is provably
 * non-negative and the divisor positive, otherwise the quotient is corrected by the sign of
 * the remainder. */
static const char *form(const Printer *p, const Sym *e, int *prec) {
    int sign = divisor_sign(e->args[1]);
    bool plain = sign > 0 && sym_nonneg(e->args[0]);
    *prec = P_PRIMARY;
    switch (e->kind) {
    case SYM_FLOORDIV:
        if (plain || !p->c) {
            *prec = P_MUL;
            return "$a / $b";
        }
        return sign > 0   ? "($a / $b - ($a % $b < 0))"
               : sign < 0 ? "($a / $b - ($a % $b > 0))"
                          : "($a / $b - ($a % $b != 0 && ($a % $b < 0) != ($b < 0)))";
    case SYM_CEILDIV:
        if (!p->c)
            return "ceildiv($A, $B)";
        if (plain) /* not (a + b - 1) / b, which may overflow */
            return "($a / $b + ($a % $b != 0))";
        return sign > 0   ? "($a / $b + ($a % $b > 0))"
               : sign < 0 ? "($a / $b + ($a % $b < 0))"
                          : "($a / $b + ($a % $b != 0 && ($a % $b > 0) == ($b > 0)))";
    case SYM_MOD:
        if (plain || !p->c) {
            *prec = P_MUL;
            return "$a % $b";
        }
        return sign > 0   ? "($a % $b + ($a % $b < 0 ? $b : 0))"
               : sign < 0 ? "($a % $b + ($a % $b > 0 ? $b : 0))"
                          : "($a % $b + ($a % $b != 0 && ($a % $b < 0) != ($b < 0) ? $b : 0))";
    case SYM_MIN: return p->c ? "($A < $B ? $A : $B)" : "min($A, $B)";
    case SYM_MAX: return p->c ? "($A > $B ? $A : $B)" : "max($A, $B)";
    default: return "";
    }
}

static int prec_of(const Printer *p, const Sym *e) {
    int prec;
    switch (e->kind) {
    case SYM_CONST: return e->c < 0 && !(e->c == INT64_MIN && p->c) ? P_UNARY : P_PRIMARY;
    case SYM_DIM: return P_PRIMARY;
    case SYM_ADD: return p->c ? P_UNARY : P_ADD; /* C: a cast, (int64_t)(...) */
    case SYM_MUL: return p->c ? P_UNARY : P_MUL;
    default: form(p, e, &prec); return prec;
    }
}

/* A term (or a whole product) t = k * factors: its coefficient and factors. */
static int term_factors(const Sym *const *t, int64_t *k, Sym *const **f) {
    *k = 1;
    *f = (Sym *const *)t;
    if ((*t)->kind == SYM_CONST) {
        *k = (*t)->c;
        return 0;
    }
    if ((*t)->kind != SYM_MUL)
        return 1;
    bool coef = (*t)->args[0]->kind == SYM_CONST;
    *k = coef ? (*t)->args[0]->c : 1;
    *f = (*t)->args + coef;
    return (*t)->n - coef;
}

/* Starts term t of a sum (or a whole product), with its sign as " - " when it is not the
 * first term: 64 * N * H in C, N*H*64 in the human form. */
static void start_term(Printer *p, const Sym *t, bool first) {
    int64_t k;
    Sym *const *f;
    int nf = term_factors(&t, &k, &f);
    bool neg = k < 0 && k != INT64_MIN;
    if (neg)
        k = -k;
    put(p, first ? (neg ? "-" : "") : neg ? " - " : " + ");
    if (p->c && nf == 0 && !first && k != INT64_MIN) { /* a constant after uint64_t terms */
        put_int(p, k);
        put(p, "u");
        return;
    }
    if (p->c) /* every term starts as uint64_t: the sum wraps instead of overflowing */
        put(p, "(uint64_t)");
    if (nf == 0) {
        put_int(p, k);
        return;
    }
    if (p->c && k != 1) {
        put_int(p, k);
        put(p, " * ");
    } else if (!p->c && k != 1) {
        task(p, T_INT, NULL, 0, "*", k);
    }
    task(p, T_FACTORS, t, 0, NULL, 0);
}

static void step_factors(Printer *p, const Sym *t, int i) {
    int64_t k;
    Sym *const *f;
    int nf = term_factors(&t, &k, &f);
    if (i + 1 < nf)
        task(p, T_FACTORS, t, i + 1, NULL, 0);
    if (i)
        put(p, p->c ? " * " : "*");
    bool unit = k == 1; /* a factor of a plain product binds like a multiplication operand */
    int prec = p->c ? P_UNARY : (nf == 1 && unit ? P_MUL : P_UNARY);
    task(p, T_SYM, f[i], prec, NULL, 0);
}

/* Prints the text of form template tmpl from offset at up to its next placeholder, then that
 * operand (and, as a later task, the rest).  The template is walked with expand_find rather
 * than expand: an operand is printed by a later task of the explicit stack, not by a call. */
static void step_form(Printer *p, const Sym *e, const char *tmpl, int at) {
    const char *t = tmpl + at, *key;
    size_t len;
    const char *d = expand_find(t, NULL, EXPAND_DOLLAR, &key, &len);
    if (!d) {
        put(p, t);
        return;
    }
    put_n(p, t, (size_t)(d - t));
    if (key[len])
        task(p, T_FORM, e, (int)(key + len - tmpl), tmpl, 0);
    char k = key[0]; /* a, b, A or B: form's templates have one-letter keys */
    bool lhs = k == 'a' || k == 'A';
    task(p, T_SYM, e->args[lhs ? 0 : 1], k == 'a' ? P_MUL : k == 'b' ? P_UNARY : P_ADD, NULL, 0);
}

static void step_sym(Printer *p, const Sym *e, int prec) {
    if (p->subname && e != p->root && e->kind != SYM_CONST && e->kind != SYM_DIM) {
        const char *name = p->subname(e, p->user);
        if (name) {
            put(p, name);
            return;
        }
    }
    if ((size_t)p->n + out_len(p) >= p->max) { /* the pending text alone passes the limit */
        p->cut = true;
        return;
    }
    if (prec_of(p, e) < prec) {
        put(p, "(");
        task(p, T_STR, NULL, 0, ")", 0);
    }
    switch (e->kind) {
    case SYM_CONST: put_int(p, e->c); break;
    case SYM_DIM: {
        const char *name = p->dimname ? p->dimname(e->dim, p->user) : NULL;
        if (name) {
            put(p, name);
        } else {
            char t[24];
            snprintf(t, sizeof t, "d%d", e->dim);
            put(p, t);
        }
        break;
    }
    case SYM_ADD:
    case SYM_MUL:
        if (p->c) { /* sums and products in uint64_t, converted back once: exact whenever the
                     * result fits in int64 (NAME_check makes sure), whatever the parts */
            put(p, "(int64_t)(");
            task(p, T_STR, NULL, 0, ")", 0);
        }
        if (e->kind == SYM_ADD)
            task(p, T_TERMS, e, 0, NULL, 0);
        else
            start_term(p, e, true);
        break;
    default: {
        int own;
        task(p, T_FORM, e, 0, form(p, e, &own), 0);
    }
    }
}

static void print(Printer *p, const Sym *e, int prec) {
    p->start = p->b->len;
    task(p, T_SYM, e, prec, NULL, 0);
    while (p->n && out_len(p) <= p->max && !p->cut) {
        Task t = p->stack[--p->n];
        switch (t.kind) {
        case T_SYM: step_sym(p, t.e, t.i); break;
        case T_STR: put(p, t.s); break;
        case T_INT: put(p, t.s); put_int(p, t.v); break;
        case T_TERMS:
            if (t.i + 1 < t.e->n)
                task(p, T_TERMS, t.e, t.i + 1, NULL, 0);
            start_term(p, t.e->args[t.i], t.i == 0);
            break;
        case T_FACTORS: step_factors(p, t.e, t.i); break;
        case T_FORM: step_form(p, t.e, t.s, t.i); break;
        }
    }
    if (p->cut || out_len(p) > p->max) {
        p->b->len = p->start + (out_len(p) < p->max ? out_len(p) : p->max);
        buf_puts(p->b, "...");
    }
    free(p->stack);
    p->stack = NULL;
    p->n = p->cap = 0;
}

void sym_print_c(Buf *b, const Sym *e, const char *(*dimname)(int, void *), void *user) {
    Printer p = {.b = b, .c = true, .dimname = dimname, .user = user, .max = SIZE_MAX / 2};
    print(&p, e, P_ADD);
}

void sym_print_c_named(Buf *b, const Sym *e, const char *(*dimname)(int, void *),
                       const char *(*subname)(const Sym *, void *), void *user) {
    Printer p = {.b = b, .c = true, .dimname = dimname, .user = user, .subname = subname,
                 .root = e, .max = SIZE_MAX / 2};
    print(&p, e, P_ADD);
}

static const char *name_from_array(int i, void *user) {
    const char *const *names = user;
    return names ? names[i] : NULL;
}

char *sym_str_max(Arena *a, const Sym *e, const char *const *dim_names, size_t maxlen) {
    Buf b;
    buf_init_in(&b, a);
    Printer p = {.b = &b, .dimname = name_from_array, .user = (void *)dim_names,
                 .max = maxlen < SIZE_MAX / 2 ? maxlen : SIZE_MAX / 2};
    print(&p, e, P_ADD);
    char *s = arena_strdup(a, b.data ? b.data : "");
    buf_free(&b);
    return s;
}

char *sym_str(Arena *a, const Sym *e, const char *const *dim_names) {
    return sym_str_max(a, e, dim_names, SIZE_MAX);
}
