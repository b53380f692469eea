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
 * floordiv(a + c - 1, c).  A symbolic divisor only divides exactly (H*W / W = H).  min and max
 * order their args by id and choose outright when the difference is a constant or provably
 * non-negative (dims are >= 0).  Coefficients wrap in two's complement rather than overflow.
 */
#include "onnx2c.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct SymCtx {
    Arena *arena;
    Sym **tab; /* interning table: open addressing, linear probing, at most half full */
    size_t cap, count;
    int next_id;
};

_Noreturn static void oom(void) {
    fputs("onnx2c: error: out of memory\n", stderr);
    abort();
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p)
        oom();
    return p;
}

/* ---- int64 arithmetic: wrapping + and *, floor division, mod with the sign of the divisor */

static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t wneg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }

static int64_t floordiv64(int64_t a, int64_t b) { /* b != 0 */
    if (b == -1)
        return wneg(a);
    int64_t q = a / b, r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? q - 1 : q;
}

static int64_t ceildiv64(int64_t a, int64_t b) {
    if (b == -1)
        return wneg(a);
    int64_t q = a / b, r = a % b;
    return r != 0 && (r < 0) == (b < 0) ? q + 1 : q;
}

static int64_t mod64(int64_t a, int64_t b) {
    if (b == -1)
        return 0;
    int64_t r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

static uint64_t abs64(int64_t a) { return a < 0 ? 0 - (uint64_t)a : (uint64_t)a; }

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ---- interning */

static uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static void table_put(Sym **tab, size_t cap, Sym *e) {
    size_t i = e->hash & (cap - 1);
    while (tab[i])
        i = (i + 1) & (cap - 1);
    tab[i] = e;
}

SymCtx *sym_ctx_new(Arena *a) {
    SymCtx *s = arena_alloc(a, sizeof *s);
    s->arena = a;
    s->cap = 1024;
    s->tab = arena_alloc(a, s->cap * sizeof *s->tab);
    return s;
}

static Sym *intern(SymCtx *s, SymKind kind, int64_t c, int dim, int n, Sym *const *args) {
    uint64_t h = mix(mix(mix(kind, (uint64_t)c), (uint64_t)dim), (uint64_t)n);
    for (int i = 0; i < n; i++)
        h = mix(h, (uint64_t)args[i]->id);
    for (size_t i = h & (s->cap - 1); s->tab[i]; i = (i + 1) & (s->cap - 1)) {
        Sym *e = s->tab[i];
        if (e->hash == h && e->kind == kind && e->c == c && e->dim == dim && e->n == n &&
            (n == 0 || memcmp(e->args, args, (size_t)n * sizeof *args) == 0))
            return e;
    }
    Sym *e = arena_alloc(s->arena, sizeof *e);
    e->kind = kind;
    e->c = c;
    e->dim = dim;
    e->n = n;
    e->args = n ? arena_dup(s->arena, args, (size_t)n * sizeof *args) : NULL;
    e->id = s->next_id++;
    e->hash = h;
    if (2 * (s->count + 1) > s->cap) { /* grow: the old table is left to the arena */
        size_t cap = 2 * s->cap;
        Sym **tab = arena_alloc(s->arena, cap * sizeof *tab);
        for (size_t i = 0; i < s->cap; i++)
            if (s->tab[i])
                table_put(tab, cap, s->tab[i]);
        s->tab = tab;
        s->cap = cap;
    }
    table_put(s->tab, s->cap, e);
    s->count++;
    return e;
}

static Sym *node2(SymCtx *s, SymKind kind, Sym *a, Sym *b) {
    Sym *args[2] = {a, b};
    return intern(s, kind, 0, 0, 2, args);
}

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
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->t = xrealloc(p->t, (size_t)p->cap * sizeof *p->t);
    }
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

/* Appends scale * e to p. */
static void poly_add(SymCtx *s, Poly *p, Sym *e, int64_t scale) {
    if (e->kind == SYM_CONST)
        push(p, wmul(scale, e->c), NULL);
    else if (e->kind == SYM_ADD)
        for (int i = 0; i < e->n; i++)
            poly_add(s, p, e->args[i], scale);
    else if (e->kind == SYM_MUL && e->args[0]->kind == SYM_CONST)
        push(p, wmul(scale, e->args[0]->c), monomial(s, e->args + 1, e->n - 1));
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

/* The canonical sum of p's terms; frees p. */
static Sym *build(SymCtx *s, Poly *p) {
    if (p->n > 1)
        qsort(p->t, (size_t)p->n, sizeof *p->t, term_cmp);
    Sym **args = xrealloc(NULL, (size_t)(p->n + 1) * sizeof *args);
    int n = 0;
    int64_t c = 0;
    for (int i = 0; i < p->n;) {
        Sym *m = p->t[i].m;
        int64_t k = 0;
        for (; i < p->n && p->t[i].m == m; i++)
            k = wadd(k, p->t[i].k);
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

Sym *sym_add(SymCtx *s, Sym *a, Sym *b) { return lincomb(s, a, 1, b, 1); }
Sym *sym_sub(SymCtx *s, Sym *a, Sym *b) { return lincomb(s, a, 1, b, -1); }
Sym *sym_neg(SymCtx *s, Sym *a) {
    Poly p = {0};
    poly_add(s, &p, a, -1);
    return build(s, &p);
}

Sym *sym_mul(SymCtx *s, Sym *a, Sym *b) {
    Poly pa = {0}, pb = {0}, r = {0};
    poly_add(s, &pa, a, 1);
    poly_add(s, &pb, b, 1);
    for (int i = 0; i < pa.n; i++)
        for (int j = 0; j < pb.n; j++)
            if (pa.t[i].k && pb.t[j].k)
                push(&r, wmul(pa.t[i].k, pb.t[j].k), mono_mul(s, pa.t[i].m, pb.t[j].m));
    free(pa.t);
    free(pb.t);
    return build(s, &r);
}

/* ---- non-negativity, given that every dim is >= 0 and divisions are defined */

static bool nonneg(const Sym *e) {
    switch (e->kind) {
    case SYM_CONST:
        return e->c >= 0;
    case SYM_DIM:
        return true;
    case SYM_ADD:
    case SYM_MUL:
        for (int i = 0; i < e->n; i++)
            if (!nonneg(e->args[i]))
                return false;
        return true;
    case SYM_FLOORDIV:
    case SYM_CEILDIV:
        return nonneg(e->args[0]) && nonneg(e->args[1]);
    case SYM_MOD: /* takes the sign of the divisor */
        return nonneg(e->args[1]);
    case SYM_MIN:
        return nonneg(e->args[0]) && nonneg(e->args[1]);
    case SYM_MAX:
        return nonneg(e->args[0]) || nonneg(e->args[1]);
    }
    return false;
}

/* ---- division and mod */

/* Splits a = q*c + r with every coefficient of r in [0, c) (or (c, 0] for c < 0).
 * Returns whether r has a non-constant term. */
static bool split_mod(SymCtx *s, Sym *a, int64_t c, Poly *q, Poly *r) {
    Poly p = {0};
    bool sym = false;
    poly_add(s, &p, a, 1);
    for (int i = 0; i < p.n; i++) {
        push(q, floordiv64(p.t[i].k, c), p.t[i].m);
        push(r, mod64(p.t[i].k, c), p.t[i].m);
        sym |= p.t[i].m && r->t[i].k;
    }
    free(p.t);
    return sym;
}

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
            r.t[i].k = r.t[i].m ? r.t[i].k / (int64_t)g : floordiv64(r.t[i].k, (int64_t)g);
        c /= (int64_t)g;
    }
    Sym *qs = build(s, &q), *rs = build(s, &r);
    /* floor((floor(x / b) + k) / c) = floor((x + k*b) / (b*c)) for b, c > 0 */
    bool plus_k = rs->kind == SYM_ADD && rs->n == 2 && rs->args[1]->kind == SYM_CONST;
    Sym *f = plus_k ? rs->args[0] : rs;
    int64_t k = plus_k ? rs->args[1]->c : 0, b, kb, bc;
    if (c > 0 && f->kind == SYM_FLOORDIV && sym_get_const(f->args[1], &b) && b > 0 &&
        !__builtin_mul_overflow(k, b, &kb) && !__builtin_mul_overflow(b, c, &bc))
        return sym_add(s, qs,
                       sym_floordiv(s, sym_add(s, f->args[0], sym_const(s, kb)), sym_const(s, bc)));
    return sym_add(s, qs, node2(s, SYM_FLOORDIV, rs, sym_const(s, c)));
}

static Sym *mod_const(SymCtx *s, Sym *a, int64_t c) {
    Poly q = {0}, r = {0};
    bool sym = split_mod(s, a, c, &q, &r);
    free(q.t);
    Sym *rs = build(s, &r);
    if (!sym)
        return rs;
    /* mod(k * mod(x, c2) + rest, c) = mod(k*x + rest, c) when c divides c2 */
    Poly p = {0};
    poly_add(s, &p, rs, 1);
    for (int i = 0; i < p.n; i++) {
        Sym *m = p.t[i].m;
        int64_t c2;
        if (m && m->kind == SYM_MOD && sym_get_const(m->args[1], &c2) && c2 != 0 &&
            mod64(c2, c) == 0) {
            Sym *x = lincomb(s, rs, 1, m, wneg(p.t[i].k));
            x = lincomb(s, x, 1, m->args[0], p.t[i].k);
            free(p.t);
            return sym_mod(s, x, sym_const(s, c));
        }
    }
    free(p.t);
    return node2(s, SYM_MOD, rs, sym_const(s, c));
}

/* a / b when b (not a constant) is a single term that divides every term of a; else NULL. */
static Sym *exact_quotient(SymCtx *s, Sym *a, Sym *b) {
    if (a == b || (a->kind == SYM_CONST && a->c == 0))
        return sym_const(s, a == b);
    if (b->kind == SYM_ADD)
        return NULL;
    Poly pa = {0}, pb = {0}, q = {0};
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
            push(&q, kb == -1 ? wneg(k) : k / kb, monomial(s, rest, nr));
        free(rest);
    }
    free(pa.t);
    if (!ok) {
        free(q.t);
        return NULL;
    }
    return build(s, &q);
}

Sym *sym_floordiv(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    if (!sym_get_const(b, &y)) {
        Sym *q = exact_quotient(s, a, b);
        return q ? q : node2(s, SYM_FLOORDIV, a, b);
    }
    if (y == 0) /* left for the caller's validation */
        return node2(s, SYM_FLOORDIV, a, b);
    if (sym_get_const(a, &x))
        return sym_const(s, floordiv64(x, y));
    return floordiv_const(s, a, y);
}

Sym *sym_ceildiv(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    if (!sym_get_const(b, &y)) {
        Sym *q = exact_quotient(s, a, b);
        return q ? q : node2(s, SYM_CEILDIV, a, b);
    }
    if (y == 0)
        return node2(s, SYM_CEILDIV, a, b);
    if (sym_get_const(a, &x))
        return sym_const(s, ceildiv64(x, y));
    /* ceil(a / y) = floor((a + y - 1) / y) for y > 0, floor((a + y + 1) / y) for y < 0 */
    return sym_floordiv(s, sym_add(s, a, sym_const(s, y > 0 ? y - 1 : y + 1)), b);
}

Sym *sym_mod(SymCtx *s, Sym *a, Sym *b) {
    int64_t x, y;
    if (!sym_get_const(b, &y)) {
        Sym *q = exact_quotient(s, a, b);
        return q ? sym_const(s, 0) : node2(s, SYM_MOD, a, b);
    }
    if (y == 0)
        return node2(s, SYM_MOD, a, b);
    if (sym_get_const(a, &x))
        return sym_const(s, mod64(x, y));
    return mod_const(s, a, y);
}

/* ---- min and max */

static Sym *minmax(SymCtx *s, SymKind kind, Sym *a, Sym *b) {
    if (a == b)
        return a;
    /* absorption: max(a, max(a, c)) = max(a, c) */
    if (b->kind == kind && (b->args[0] == a || b->args[1] == a))
        return b;
    if (a->kind == kind && (a->args[0] == b || a->args[1] == b))
        return a;
    Sym *d = sym_sub(s, a, b);
    bool a_ge = nonneg(d), b_ge = !a_ge && nonneg(sym_neg(s, d)); /* a constant d decides */
    if (a_ge || b_ge)
        return (kind == SYM_MAX) == a_ge ? a : b;
    return a->id < b->id ? node2(s, kind, a, b) : node2(s, kind, b, a);
}

Sym *sym_min(SymCtx *s, Sym *a, Sym *b) { return minmax(s, SYM_MIN, a, b); }
Sym *sym_max(SymCtx *s, Sym *a, Sym *b) { return minmax(s, SYM_MAX, a, b); }

/* ---- substitution (memoised: expressions are DAGs) */

typedef struct {
    const Sym **key;
    Sym **val;
    size_t cap, n;
} Memo;

/* The slot holding e, or the empty slot where e would go. */
static size_t memo_index(const Memo *m, const Sym *e) {
    size_t i = e->hash & (m->cap - 1);
    while (m->key[i] && m->key[i] != e)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void memo_put(Memo *m, const Sym *e, Sym *v) {
    if (2 * (m->n + 1) > m->cap) {
        Memo g = {xcalloc(2 * m->cap, sizeof *g.key), xcalloc(2 * m->cap, sizeof *g.val),
                  2 * m->cap, m->n};
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t j = memo_index(&g, m->key[i]);
                g.key[j] = m->key[i];
                g.val[j] = m->val[i];
            }
        free(m->key);
        free(m->val);
        *m = g;
    }
    size_t i = memo_index(m, e);
    m->key[i] = e;
    m->val[i] = v;
    m->n++;
}

static Sym *subst(SymCtx *s, Sym *e, Sym *const *dims, Memo *m) {
    if (e->kind == SYM_CONST)
        return e;
    if (e->kind == SYM_DIM)
        return dims[e->dim] ? dims[e->dim] : e;
    size_t i = memo_index(m, e);
    if (m->key[i])
        return m->val[i];
    Sym *r = subst(s, e->args[0], dims, m);
    for (int j = 1; j < e->n; j++) {
        Sym *x = subst(s, e->args[j], dims, m);
        switch (e->kind) {
        case SYM_ADD: r = sym_add(s, r, x); break;
        case SYM_MUL: r = sym_mul(s, r, x); break;
        case SYM_FLOORDIV: r = sym_floordiv(s, r, x); break;
        case SYM_CEILDIV: r = sym_ceildiv(s, r, x); break;
        case SYM_MOD: r = sym_mod(s, r, x); break;
        case SYM_MIN: r = sym_min(s, r, x); break;
        case SYM_MAX: r = sym_max(s, r, x); break;
        default: break;
        }
    }
    memo_put(m, e, r);
    return r;
}

Sym *sym_subst(SymCtx *s, Sym *e, Sym *const *dims) {
    Memo m = {xcalloc(64, sizeof *m.key), xcalloc(64, sizeof *m.val), 64, 0};
    Sym *r = subst(s, e, dims, &m);
    free(m.key);
    free(m.val);
    return r;
}

/* ---- evaluation */

/* Interval arithmetic: [lo, hi] of e when each dim i ranges over [dlo[i], dhi[i]].  Sound (the
 * true range is inside the result), not tight.  Returns false when a divisor interval contains
 * zero or is negative (no bound is claimed then).  Used for NAME_WORKSPACE_MAX under --max. */
bool sym_bounds(const Sym *e, const int64_t *dlo, const int64_t *dhi, int64_t *lo, int64_t *hi) {
    int64_t alo, ahi, blo, bhi;
    switch (e->kind) {
    case SYM_CONST: *lo = *hi = e->c; return true;
    case SYM_DIM: *lo = dlo[e->dim]; *hi = dhi[e->dim]; return true;
    default: break;
    }
    if (!sym_bounds(e->args[0], dlo, dhi, &alo, &ahi))
        return false;
    for (int i = 1; i < e->n; i++) {
        if (!sym_bounds(e->args[i], dlo, dhi, &blo, &bhi))
            return false;
        switch (e->kind) {
        case SYM_ADD: alo = wadd(alo, blo); ahi = wadd(ahi, bhi); break;
        case SYM_MUL: {
            int64_t p[4] = {wmul(alo, blo), wmul(alo, bhi), wmul(ahi, blo), wmul(ahi, bhi)};
            alo = ahi = p[0];
            for (int k = 1; k < 4; k++) {
                alo = p[k] < alo ? p[k] : alo;
                ahi = p[k] > ahi ? p[k] : ahi;
            }
            break;
        }
        case SYM_MIN: alo = blo < alo ? blo : alo; ahi = bhi < ahi ? bhi : ahi; break;
        case SYM_MAX: alo = blo > alo ? blo : alo; ahi = bhi > ahi ? bhi : ahi; break;
        case SYM_FLOORDIV:
        case SYM_CEILDIV:
            if (blo <= 0)
                return false;
            /* a positive divisor: extremes at the interval ends of a and b */
            if (e->kind == SYM_FLOORDIV) {
                alo = floordiv64(alo, alo < 0 ? blo : bhi);
                ahi = floordiv64(ahi, ahi < 0 ? bhi : blo);
            } else {
                alo = ceildiv64(alo, alo < 0 ? blo : bhi);
                ahi = ceildiv64(ahi, ahi < 0 ? bhi : blo);
            }
            break;
        case SYM_MOD:
            if (blo <= 0)
                return false;
            alo = 0;
            ahi = bhi - 1;
            break;
        default: return false;
        }
    }
    *lo = alo;
    *hi = ahi;
    return true;
}

bool sym_eval(const Sym *e, const int64_t *dims, int64_t *out) {
    int64_t r, x;
    switch (e->kind) {
    case SYM_CONST: *out = e->c; return true;
    case SYM_DIM: *out = dims[e->dim]; return true;
    default: break;
    }
    if (!sym_eval(e->args[0], dims, &r))
        return false;
    for (int i = 1; i < e->n; i++) {
        if (!sym_eval(e->args[i], dims, &x))
            return false;
        switch (e->kind) {
        case SYM_ADD: r = wadd(r, x); break;
        case SYM_MUL: r = wmul(r, x); break;
        case SYM_MIN: r = x < r ? x : r; break;
        case SYM_MAX: r = x > r ? x : r; break;
        default:
            if (x == 0)
                return false;
            r = e->kind == SYM_FLOORDIV  ? floordiv64(r, x)
                : e->kind == SYM_CEILDIV ? ceildiv64(r, x)
                                         : mod64(r, x);
        }
    }
    *out = r;
    return true;
}

/* ---- printing: C99 (sym_print_c) and the human form (sym_str) share one printer */

enum { P_ADD = 1, P_MUL, P_UNARY, P_PRIMARY }; /* binding strength of an expression's top */

typedef struct {
    Buf *b;
    bool c; /* C99 rather than human-readable */
    const char *(*dimname)(int, void *);
    void *user;
    const char *(*subname)(const Sym *, void *); /* names for sub-expressions, or NULL */
    const Sym *root;
} Printer;

static void print(Printer *p, const Sym *e, int prec);

static void put_int(Printer *p, int64_t v) {
    if (v == INT64_MIN && p->c)
        buf_puts(p->b, "(-9223372036854775807 - 1)");
    else
        buf_printf(p->b, "%" PRId64, v);
}

/* -1, 0 or 1: the sign a divisor is known to have (a symbolic divisor >= 0 is taken as > 0). */
static int divisor_sign(const Sym *b) {
    if (b->kind == SYM_CONST)
        return b->c > 0 ? 1 : b->c < 0 ? -1 : 0;
    return nonneg(b) ? 1 : 0;
}

/* The template for a division, mod, min or max node and its precedence.  In a template,
 * $a / $b stand for the operands printed as the left / right operand of `/`, and $A / $B for
 * the operands printed as operands of `<` or of a function call.  Floor semantics must hold
 * in C, whose `/` and `%` truncate: the plain operators serve when the dividend is provably
 * non-negative and the divisor positive, otherwise the quotient is corrected by the sign of
 * the remainder. */
static const char *form(const Printer *p, const Sym *e, int *prec) {
    int sign = divisor_sign(e->args[1]);
    bool plain = sign > 0 && nonneg(e->args[0]);
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
        if (plain) {
            *prec = P_MUL;
            return "($A + $b - 1) / $b";
        }
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
    case SYM_ADD: return P_ADD;
    case SYM_MUL: return P_MUL;
    default: form(p, e, &prec); return prec;
    }
}

/* One term of a sum (or a whole product): k * factors, with its sign as " - " when it is
 * not the first term. */
static void print_term(Printer *p, const Sym *t, bool first) {
    int64_t k = 1;
    Sym *const *f = (Sym *const *)&t;
    int nf = 1;
    if (t->kind == SYM_CONST) {
        k = t->c;
        nf = 0;
    } else if (t->kind == SYM_MUL) {
        bool coef = t->args[0]->kind == SYM_CONST;
        k = coef ? t->args[0]->c : 1;
        f = t->args + coef;
        nf = t->n - coef;
    }
    bool neg = k < 0 && k != INT64_MIN;
    if (neg)
        k = -k;
    buf_puts(p->b, first ? (neg ? "-" : "") : neg ? " - " : " + ");
    if (nf == 0) {
        put_int(p, k);
    } else if (p->c) { /* 64 * N * H */
        if (k != 1) {
            put_int(p, k);
            buf_puts(p->b, " * ");
        }
        for (int i = 0; i < nf; i++) {
            if (i)
                buf_puts(p->b, " * ");
            print(p, f[i], i == 0 && k == 1 && !neg ? P_MUL : P_UNARY);
        }
    } else { /* N*H*64 */
        for (int i = 0; i < nf; i++) {
            if (i)
                buf_puts(p->b, "*");
            print(p, f[i], nf == 1 && k == 1 && !neg ? P_MUL : P_UNARY);
        }
        if (k != 1) {
            buf_puts(p->b, "*");
            put_int(p, k);
        }
    }
}

static void print(Printer *p, const Sym *e, int prec) {
    if (p->subname && e != p->root && e->kind != SYM_CONST && e->kind != SYM_DIM) {
        const char *name = p->subname(e, p->user);
        if (name) {
            buf_puts(p->b, name);
            return;
        }
    }
    bool paren = prec_of(p, e) < prec;
    if (paren)
        buf_puts(p->b, "(");
    switch (e->kind) {
    case SYM_CONST: put_int(p, e->c); break;
    case SYM_DIM: {
        const char *name = p->dimname ? p->dimname(e->dim, p->user) : NULL;
        if (name)
            buf_puts(p->b, name);
        else
            buf_printf(p->b, "d%d", e->dim);
        break;
    }
    case SYM_ADD:
        for (int i = 0; i < e->n; i++)
            print_term(p, e->args[i], i == 0);
        break;
    case SYM_MUL: print_term(p, e, true); break;
    default: {
        int own;
        for (const char *t = form(p, e, &own); *t; t++) {
            if (*t != '$') {
                buf_putn(p->b, t, 1);
                continue;
            }
            t++;
            bool lhs = *t == 'a' || *t == 'A';
            print(p, e->args[lhs ? 0 : 1], *t == 'a' ? P_MUL : *t == 'b' ? P_UNARY : P_ADD);
        }
    }
    }
    if (paren)
        buf_puts(p->b, ")");
}

void sym_print_c(Buf *b, const Sym *e, const char *(*dimname)(int, void *), void *user) {
    Printer p = {b, true, dimname, user, NULL, NULL};
    print(&p, e, P_ADD);
}

void sym_print_c_named(Buf *b, const Sym *e, const char *(*dimname)(int, void *),
                       const char *(*subname)(const Sym *, void *), void *user) {
    Printer p = {b, true, dimname, user, subname, e};
    print(&p, e, P_ADD);
}

static const char *name_from_array(int i, void *user) {
    const char *const *names = user;
    return names ? names[i] : NULL;
}

char *sym_str(Arena *a, const Sym *e, const char *const *dim_names) {
    Buf b;
    buf_init(&b);
    Printer p = {&b, false, name_from_array, (void *)dim_names, NULL, NULL};
    print(&p, e, P_ADD);
    char *s = arena_strdup(a, b.data ? b.data : "");
    buf_free(&b);
    return s;
}
