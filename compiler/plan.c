/* plan.c — where every temporary lives in the caller's workspace.
 *
 * 1. Liveness: a value is live from the node that defines it to its last consumer (live nodes
 *    only; graph inputs, outputs and constants are not in the workspace).
 * 2. Buffers: values that may share bytes form one buffer.  The output of Reshape, Flatten,
 *    Squeeze, Unsqueeze, Identity and Dropout shares its input's bytes (an alias: the emitter
 *    copies nothing).  An elementwise op whose emitter reads every element of an input at the
 *    output's index before it writes that element (emit_elementwise's loop) writes over that
 *    input when the input's buffer dies at the node and has the output's shape and type (in
 *    place).  A node's scratch (Node.scratch) is a buffer live only at its node.
 * 3. Placement under --memory-first, when every buffer has a constant size: an offset per
 *    buffer over lifetimes.  The buffers are taken in one of several orders (by size, by
 *    lifetime length, by first use, by size x length, and by node breadth as TFLite's
 *    greedy-by-breadth planner), each put at the first or at the best-fitting gap between the
 *    already placed buffers whose lifetimes overlap its own (TFLM's and TVM's greedy planners
 *    do one such order); the smallest peak wins, and the search stops at the lower bound: the
 *    largest sum of live buffers at one node.
 *    Otherwise (symbolic sizes; the default mode, whose layout measured faster on a server
 *    core) slots are reused once free: a slot's size is the largest (sym_max) of the buffers
 *    placed in it, its offset the sum of the slots before it; a buffer takes a free slot of
 *    exactly its size expression if there is one, else the best-fitting constant one, else any
 *    free slot, which grows to the max of both sizes.  Sound for every dims vector.
 * Every buffer is a multiple of 64 bytes at a multiple of 64. */
#include "onnx2c.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct PBuf {
    Sym *size;      /* bytes, a multiple of 64 */
    int start, end; /* live at the nodes start..end */
    int node;       /* the node whose scratch it is, or -1 */
    Sym *offset;
} PBuf;

struct Plan {
    int nbufs;
    PBuf *bufs;
    const char *how; /* how the offsets were found (--report) */
};

static Sym *align64(Compiler *c, Sym *bytes) {
    SymCtx *s = c->sym;
    return sym_mul(s, sym_ceildiv(s, bytes, sym_const(s, 64)), sym_const(s, 64));
}

static bool default_domain(const Node *n) {
    return !n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx");
}

static bool op_in(const Node *n, const char *const *names) {
    if (!default_domain(n))
        return false;
    for (int i = 0; names[i]; i++)
        if (!strcmp(n->op_type, names[i]))
            return true;
    return false;
}

/* Ops whose output 0 is input 0 relabelled (compiler/ops/shape.c's emit_copy). */
static bool alias_op(const Node *n) {
    static const char *const ops[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                                      "Dropout", NULL};
    if (!strcmp(n->op_type, "Dropout") && !dropout_is_copy(n))
        return false; /* training mode: it scales and drops into a buffer of its own */
    return op_in(n, ops);
}

/* The inputs (a mask of indices) over which an op may run in place: the elementwise ops of
 * compiler/ops/elementwise.c, whose one loop (emit_elementwise) reads every input element at
 * the output's index before it writes that element.  The variadic Max/Min/Sum/Mean run
 * y = in0 op in1, then y = y op in_k: in place over input 0 or 1 only (the mask), and only when
 * no other input shares those bytes (can_run_in_place). */
static unsigned inplace_mask(const Node *n) {
    static const char *const unary[] = {
        "Abs", "Neg", "Relu", "Sign", "Not", "Ceil", "Floor", "Round", "Sqrt", "Exp", "Log",
        "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh",
        "Atanh", "Erf", "Reciprocal", "Sigmoid", "Softplus", "Softsign", "Elu", "Celu", "Selu",
        "LeakyRelu", "ThresholdedRelu", "HardSigmoid", "HardSwish", "Shrink", "PRelu", "Clip",
        "Cast", "CastLike", NULL};
    static const char *const binary[] = {"Add", "Sub", "Mul", "Div", "Mod", "Pow", "BitShift",
                                         "And", "Or", "Xor", "Equal", "Max", "Min", "Sum",
                                         "Mean", NULL};
    static const char *const where[] = {"Where", NULL};
    /* com.microsoft (compiler/ops/quant_ms.c): the table ops read x[i] before writing y[i];
     * QLinearAdd/Mul are one emit_elementwise loop over A (input 0) and B (input 3) */
    if (n->domain && !strcmp(n->domain, "com.microsoft")) {
        if (!strcmp(n->op_type, "QLinearSigmoid") || !strcmp(n->op_type, "QLinearLeakyRelu"))
            return 1u;
        if (!strcmp(n->op_type, "QLinearAdd") || !strcmp(n->op_type, "QLinearMul"))
            return 9u;
        return 0u;
    }
    return op_in(n, unary) ? 1u : op_in(n, binary) ? 3u : op_in(n, where) ? 6u : 0u;
}

/* A value the workspace holds: a temporary of a node (not a graph output, not known). */
static bool in_ws(const Value *v) {
    return v && v->kind == VAL_TEMP && !v->is_output && v->rank >= 0 && !v->data && !v->kv &&
           v->producer && !v->producer->dead;
}

/* ---- groups of values that share bytes (union-find on value ids) */

typedef struct Groups {
    SymCtx *s;
    int *parent;          /* by value id */
    int *end;             /* by root id: the last node the group is live at */
    unsigned char *ws;    /* by value id: in the workspace */
    /* by value id: where its bytes start from its parent's (NULL: at them), and whether the
     * way to its root goes through a Concat input placed inside the output (its bytes then
     * lie within the root's: they do not size the group's buffer) */
    Sym **poff;
    unsigned char *inner;
    unsigned char *holds; /* by root id: the group holds a Concat's inputs at offsets */
} Groups;

static int root_of(Groups *gr, int v) {
    const int p = gr->parent[v];
    if (p == v)
        return v;
    const int r = root_of(gr, p); /* short paths: every union joins a root to a root */
    if (p != r) {
        gr->poff[v] = !gr->poff[p] ? gr->poff[v]
                      : !gr->poff[v] ? gr->poff[p]
                                     : sym_add(gr->s, gr->poff[v], gr->poff[p]);
        gr->inner[v] |= gr->inner[p];
        gr->parent[v] = r;
    }
    return r;
}

/* Value v's bytes from its group's root's, NULL for none. */
static Sym *off_of(Groups *gr, int v) {
    return root_of(gr, v) == v ? NULL : gr->poff[v];
}

/* Makes value y's bytes value x's: one group joins the other.  Not when both groups hold a
 * Concat's inputs (every value of the other group is at its root's bytes). */
static bool join(Groups *gr, int x, int y) {
    const int rx = root_of(gr, x), ry = root_of(gr, y);
    if (rx == ry || (gr->holds[rx] && gr->holds[ry]))
        return false;
    if (gr->holds[ry]) { /* x's group goes to y's place inside y's */
        gr->parent[rx] = ry;
        gr->poff[rx] = off_of(gr, y);
        gr->inner[rx] = gr->inner[y];
        if (gr->end[rx] > gr->end[ry])
            gr->end[ry] = gr->end[rx];
    } else {
        gr->parent[ry] = rx;
        gr->poff[ry] = off_of(gr, x);
        gr->inner[ry] = x != rx && gr->inner[x];
        if (gr->end[ry] > gr->end[rx])
            gr->end[rx] = gr->end[ry];
    }
    return true;
}

/* May node n (index i) write its output y over input k? */
static bool can_run_in_place(Groups *gr, const Node *n, int i, int k, const Value *y) {
    const Value *x = n->in[k];
    if (!x || !gr->ws[x->id] || !ir_same_shape(x, y))
        return false;
    int rx = root_of(gr, x->id);
    if (gr->end[rx] != i || rx == root_of(gr, y->id))
        return false;
    for (int j = 0; j < n->nin; j++) {
        const Value *o = n->in[j];
        if (j == k || !o || !gr->ws[o->id] || root_of(gr, o->id) != rx)
            continue;
        /* another input in those bytes: read at the same index in the one loop of a binary
         * op (same shape), never by the later passes of a variadic one */
        if (n->nin > 2 || !ir_same_shape(o, y))
            return false;
    }
    return true;
}

/* Concat n: its inputs that are one contiguous block of its output y each, in the workspace
 * and in a group of their own (no other input shares it, none holds another Concat's inputs),
 * join y's group at their block: their producers write them there and the Concat copies
 * nothing of them (SqueezeNet's Fire modules: the two expand convolutions write the halves of
 * the output; on two threads each thread's part stays in its cache for the next layer). */
static void concat_inside(Compiler *c, Node *n, Groups *gr) {
    Value *y = n->out[0];
    if (!y || !gr->ws[y->id] || y->rank < 1 || gr->holds[root_of(gr, y->id)])
        return;
    const int ry = root_of(gr, y->id);
    Sym *es = sym_const(c->sym, (int64_t)dtype_size(y->dtype));
    for (int k = 0; k < n->nin; k++) {
        Value *x = n->in[k];
        if (!x || !gr->ws[x->id] || x->dtype != y->dtype)
            continue;
        const int rx = root_of(gr, x->id);
        bool alone = rx != ry && !gr->holds[rx];
        for (int j = 0; j < n->nin && alone; j++)
            alone = j == k || !n->in[j] || !gr->ws[n->in[j]->id] ||
                    root_of(gr, n->in[j]->id) != rx;
        Sym *at = alone ? concat_block_at(c, n, k) : NULL;
        if (at)
            at = sym_mul(c->sym, at, es);
        /* at a multiple of 64 bytes, as every buffer: then so is every block's end but the
         * last one's, which is the output's */
        if (!at || ir_has_data_dim(c, at) ||
            sym_mod(c->sym, at, sym_const(c->sym, 64)) != sym_const(c->sym, 0))
            continue;
        gr->parent[rx] = ry;
        gr->poff[rx] = at;
        gr->inner[rx] = 1;
        gr->holds[ry] = 1;
        if (gr->end[rx] > gr->end[ry])
            gr->end[ry] = gr->end[rx];
        x->within = y;
    }
}

/* Builds the groups of the values the nodes 0..upto define.  last[v]: the last node that reads
 * value v (-1: none).  concat: place Concat inputs inside the output (concat_inside). */
static void build_groups(Compiler *c, int upto, const int *last, Groups *gr, bool concat) {
    Graph *g = c->g;
    Arena *a = c->arena;
    gr->s = c->sym;
    gr->parent = arena_alloc(a, sizeof(int) * (size_t)(g->nvalues + 1));
    gr->end = arena_alloc(a, sizeof(int) * (size_t)(g->nvalues + 1));
    gr->ws = arena_alloc(a, (size_t)g->nvalues + 1);
    gr->poff = arena_alloc(a, sizeof(Sym *) * (size_t)(g->nvalues + 1));
    gr->inner = arena_alloc(a, (size_t)g->nvalues + 1);
    gr->holds = arena_alloc(a, (size_t)g->nvalues + 1);
    for (int v = 0; v < g->nvalues; v++) {
        gr->parent[v] = v;
        gr->end[v] = -1;
    }
    for (int i = 0; i <= upto; i++) {
        Node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->nout; k++) {
            Value *v = n->out[k];
            if (!in_ws(v) || v->producer != n)
                continue;
            gr->ws[v->id] = 1;
            gr->end[v->id] = last[v->id] > i ? last[v->id] : i;
        }
    }
    /* aliases first: they extend their input's life, which decides what runs in place */
    for (int i = 0; i <= upto; i++) {
        Node *n = g->nodes[i];
        if (n->dead || !alias_op(n) || n->nin < 1 || n->nout < 1)
            continue;
        Value *x = n->in[0], *y = n->out[0];
        if (!x || !y || !gr->ws[x->id] || !gr->ws[y->id] || x->dtype != y->dtype)
            continue;
        join(gr, x->id, y->id);
    }
    /* then a Concat's inputs inside its output, before anything runs in place: an op that
     * writes over such an input must see that the output keeps those bytes alive */
    for (int i = 0; concat && i <= upto; i++) {
        Node *n = g->nodes[i];
        static const char *const cat[] = {"Concat", NULL};
        if (!n->dead && n->nout == 1 && op_in(n, cat))
            concat_inside(c, n, gr);
    }
    for (int i = 0; i <= upto; i++) {
        Node *n = g->nodes[i];
        unsigned mask;
        if (n->dead || n->nout != 1 || !(mask = inplace_mask(n)))
            continue;
        Value *y = n->out[0];
        if (!y || !gr->ws[y->id])
            continue;
        for (int k = 0; k < n->nin && k < 8; k++) {
            if (!(mask & (1u << k)) || !can_run_in_place(gr, n, i, k, y) ||
                !join(gr, n->in[k]->id, y->id))
                continue;
            break;
        }
    }
}

bool plan_same_buffer(const Value *a, const Value *b) {
    return a && b && a->buf > 0 && a->buf == b->buf && a->offset == b->offset;
}

/* ---- placement with constant sizes: offsets over lifetimes */

typedef struct Key {
    int64_t k[3];
    int idx;
} Key;

static int cmp_key(const void *pa, const void *pb) {
    const Key *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->k[i] != b->k[i])
            return a->k[i] < b->k[i] ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

typedef struct Span {
    int64_t off, end;
} Span;

static int cmp_span(const void *pa, const void *pb) {
    const Span *a = pa, *b = pb;
    if (a->off != b->off)
        return a->off < b->off ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

typedef struct Packer {
    int nb, nnodes;
    const int64_t *size; /* by buffer */
    const int *start, *end;
    int *first;          /* by node: where its list of placed live buffers begins in `list` */
    int *fill;           /* by node: how many are placed */
    int *list;
    int *stamp;          /* by buffer */
    Span *conf;
} Packer;

/* Places the buffers in `order`, each at the first (or the smallest) gap that holds it between
 * the placed buffers live at the same time; returns the peak, or -1 on int64 overflow. */
static int64_t pack(Packer *p, const int *order, bool best_fit, int64_t *off) {
    memset(p->fill, 0, sizeof(int) * (size_t)p->nnodes);
    for (int b = 0; b < p->nb; b++)
        p->stamp[b] = -1;
    int64_t peak = 0;
    for (int q = 0; q < p->nb; q++) {
        int b = order[q];
        int64_t need = p->size[b];
        off[b] = 0;
        if (need == 0)
            continue;
        int nc = 0;
        for (int t = p->start[b]; t <= p->end[b]; t++)
            for (int k = 0; k < p->fill[t]; k++) {
                int o = p->list[p->first[t] + k];
                if (p->stamp[o] != b) {
                    p->stamp[o] = b;
                    p->conf[nc++] = (Span){off[o], off[o] + p->size[o]};
                }
            }
        qsort(p->conf, (size_t)nc, sizeof(Span), cmp_span);
        int64_t at = -1, at_gap = 0, cur = 0;
        for (int k = 0; k < nc; k++) {
            int64_t gap = p->conf[k].off - cur;
            if (gap >= need && (at < 0 || (best_fit && gap < at_gap))) {
                at = cur;
                at_gap = gap;
                if (!best_fit)
                    break;
            }
            if (p->conf[k].end > cur)
                cur = p->conf[k].end;
        }
        if (at < 0)
            at = cur;
        int64_t top;
        if (__builtin_add_overflow(at, need, &top))
            return -1;
        off[b] = at;
        if (top > peak)
            peak = top;
        for (int t = p->start[b]; t <= p->end[b]; t++)
            p->list[p->first[t] + p->fill[t]++] = b;
    }
    return peak;
}

static int64_t sat_mul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Offsets for buffers of constant sizes; false when the search is too large (or the sizes
 * overflow), which leaves the slot placement to do it. */
static bool place_constant(Compiler *c, PBuf *bufs, int nb, const char **how) {
    Graph *g = c->g;
    Arena *a = c->arena;
    int nn = g->nnodes > 0 ? g->nnodes : 1;
    int64_t *size = arena_alloc(a, sizeof(int64_t) * (size_t)(nb + 1));
    int *start = arena_alloc(a, sizeof(int) * (size_t)(nb + 1));
    int *end = arena_alloc(a, sizeof(int) * (size_t)(nb + 1));
    int *live = arena_alloc(a, sizeof(int) * (size_t)(nn + 1));   /* buffers live at t */
    int64_t *breadth = arena_alloc(a, sizeof(int64_t) * (size_t)(nn + 1));
    for (int b = 0; b < nb; b++) {
        sym_get_const(bufs[b].size, &size[b]);
        start[b] = bufs[b].start;
        end[b] = bufs[b].end;
    }
    /* the lower bound, and the work of one packing (sum over nodes of live^2) */
    int64_t lower = 0, work = 0, entries = 0;
    for (int b = 0; b < nb; b++)
        if (size[b] > 0)
            for (int t = start[b]; t <= end[b]; t++) {
                live[t]++;
                if (__builtin_add_overflow(breadth[t], size[b], &breadth[t]))
                    return false;
                if (++entries > (INT64_C(1) << 24))
                    return false;
            }
    for (int t = 0; t < nn; t++) {
        if (breadth[t] > lower)
            lower = breadth[t];
        work += (int64_t)live[t] * live[t];
    }
    if (work > (INT64_C(1) << 27))
        return false;
    Packer p = {.nb = nb, .nnodes = nn, .size = size, .start = start, .end = end};
    p.first = arena_alloc(a, sizeof(int) * (size_t)(nn + 1));
    p.fill = arena_alloc(a, sizeof(int) * (size_t)(nn + 1));
    p.list = arena_alloc(a, sizeof(int) * (size_t)(entries + 1));
    p.stamp = arena_alloc(a, sizeof(int) * (size_t)(nb + 1));
    p.conf = arena_alloc(a, sizeof(Span) * (size_t)(nb + 1));
    for (int t = 0, at = 0; t < nn; t++) {
        p.first[t] = at;
        at += live[t];
    }
    /* the orders */
    enum { NORDERS = 5 };
    static const char *const names[NORDERS] = {"size", "lifetime", "first use", "size x lifetime",
                                               "breadth"};
    Key *keys = arena_alloc(a, sizeof(Key) * (size_t)(nb + 1));
    int *order = arena_alloc(a, sizeof(int) * (size_t)(nb + 1));
    int64_t *off = arena_alloc(a, sizeof(int64_t) * (size_t)(nb + 1));
    int64_t *best = arena_alloc(a, sizeof(int64_t) * (size_t)(nb + 1));
    int64_t best_peak = -1;
    /* a big search runs the first order only */
    int norders = work > (INT64_C(1) << 22) ? 1 : NORDERS;
    for (int o = 0; o < norders && best_peak != lower; o++) {
        if (o < 4) {
            for (int b = 0; b < nb; b++) {
                int64_t len = end[b] - start[b] + 1;
                Key *k = &keys[b];
                switch (o) {
                case 0: *k = (Key){{-size[b], start[b], 0}, b}; break;
                case 1: *k = (Key){{-len, -size[b], start[b]}, b}; break;
                case 2: *k = (Key){{start[b], -size[b], 0}, b}; break;
                default: *k = (Key){{-sat_mul(size[b], len), start[b], 0}, b}; break;
                }
            }
            qsort(keys, (size_t)nb, sizeof(Key), cmp_key);
            for (int b = 0; b < nb; b++)
                order[b] = keys[b].idx;
        } else {
            /* nodes by breadth, widest first; at each, its unordered buffers by size */
            Key *nk = arena_alloc(a, sizeof(Key) * (size_t)(nn + 1));
            for (int t = 0; t < nn; t++)
                nk[t] = (Key){{-breadth[t], t, 0}, t};
            qsort(nk, (size_t)nn, sizeof(Key), cmp_key);
            for (int b = 0; b < nb; b++)
                keys[b] = (Key){{-size[b], start[b], 0}, b};
            qsort(keys, (size_t)nb, sizeof(Key), cmp_key);
            /* buffers live at each node, largest first */
            int *at = arena_alloc(a, sizeof(int) * (size_t)(nn + 1));
            int *byn = arena_alloc(a, sizeof(int) * (size_t)(entries + 1));
            for (int q = 0; q < nb; q++) {
                int b = keys[q].idx;
                if (size[b] > 0)
                    for (int t = start[b]; t <= end[b]; t++)
                        byn[p.first[t] + at[t]++] = b;
            }
            unsigned char *taken = arena_alloc(a, (size_t)nb + 1);
            int m = 0;
            for (int q = 0; q < nn; q++) {
                int t = nk[q].idx;
                for (int k = 0; k < at[t]; k++) {
                    int b = byn[p.first[t] + k];
                    if (!taken[b]) {
                        taken[b] = 1;
                        order[m++] = b;
                    }
                }
            }
            for (int b = 0; b < nb; b++)
                if (!taken[b])
                    order[m++] = b;
        }
        for (int fit = 0; fit < 2; fit++) {
            int64_t peak = pack(&p, order, fit == 1, off);
            if (peak < 0)
                return false;
            if (best_peak < 0 || peak < best_peak) {
                best_peak = peak;
                memcpy(best, off, sizeof(int64_t) * (size_t)nb);
                *how = arena_printf(a, "offsets by %s, %s fit", names[o], fit ? "best" : "first");
            }
            if (best_peak == lower)
                break;
        }
    }
    for (int b = 0; b < nb; b++)
        bufs[b].offset = sym_const(c->sym, best[b]);
    g->workspace = sym_const(c->sym, best_peak);
    return true;
}

/* ---- placement with symbolic sizes: slots */

typedef struct Slot {
    Sym *size;      /* the max of the sizes placed here so far */
    int busy_until; /* index of the last node that uses what is placed here */
    Sym **sizes;    /* the sizes that made `size` grow, in order: the final size is their max
                     * taken as a balanced tree, so a slot reused by a chain of thousands of
                     * symbolic values is not a max nested thousands deep */
    int nsizes, capsizes;
} Slot;

static void slot_grow(Compiler *c, Slot *sl, Sym *size) {
    sl->sizes = arena_grow(c->arena, sl->sizes, sl->nsizes, &sl->capsizes, 4, sizeof(Sym *));
    sl->sizes[sl->nsizes++] = size;
}

/* Places a buffer of `size` in slot sl, which grows to the max of the two. */
static void slot_add(Compiler *c, Slot *sl, Sym *size) {
    Sym *m = sym_max(c->sym, sl->size, size);
    if (sl->nsizes == 0 || m != sl->size) {
        sl->size = m;
        if (m == size) /* it holds every size before it: those no longer count */
            sl->nsizes = 0;
        slot_grow(c, sl, size);
    }
}

/* max(v[0..n)) as a balanced tree of depth log2(n). */
static Sym *max_balanced(Compiler *c, Sym **v, int n) {
    while (n > 1) {
        int m = 0;
        for (int i = 0; i < n; i += 2)
            v[m++] = i + 1 < n ? sym_max(c->sym, v[i], v[i + 1]) : v[i];
        n = m;
    }
    return v[0];
}

static int place_slot(Compiler *c, Slot **slots, int *nslots, int *cap, Sym *size, int def, int last) {
    int exact = -1, fit = -1, any = -1;
    int64_t want, fit_size = 0;
    bool want_const = sym_get_const(size, &want);
    for (int i = 0; i < *nslots && exact < 0; i++) {
        Slot *sl = &(*slots)[i];
        int64_t have;
        if (sl->busy_until >= def)
            continue;
        if (sl->size == size)
            exact = i;
        else if (want_const && sym_get_const(sl->size, &have)) {
            /* best fit: the smallest slot that holds it, else the largest (it grows least) */
            bool fits = have >= want, best_fits = fit >= 0 && fit_size >= want;
            if (fit < 0 || (fits && (!best_fits || have < fit_size)) || (!fits && !best_fits && have > fit_size)) {
                fit = i;
                fit_size = have;
            }
        } else if (any < 0)
            any = i;
    }
    int best = exact >= 0 ? exact : fit >= 0 ? fit : any;
    if (best < 0) {
        *slots = arena_grow(c->arena, *slots, *nslots, cap, 16, sizeof(Slot));
        best = (*nslots)++;
        (*slots)[best] = (Slot){.size = size};
    }
    slot_add(c, &(*slots)[best], size);
    (*slots)[best].busy_until = last;
    return best;
}

/* shared_scratch: every node's scratch in slot 0 (offset 0), which no value shares: a thread
 * that takes part of a node's scratch then writes the same bytes as in the node before, not
 * cache lines another core wrote last (Winograd's input transform on the second of 2 threads,
 * 48 -> 192 at 13x13: 54 -> 35 us, timed with the scratch in private memory standing for the
 * shared slot). */
static void place_slots(Compiler *c, PBuf *bufs, int nb, bool shared_scratch) {
    SymCtx *s = c->sym;
    int nslots = 0, cap = 0;
    Slot *slots = NULL;
    int *slot_of = arena_alloc(c->arena, sizeof(int) * (size_t)(nb + 1));
    bool scratch_slot = false; /* slot 0 is the scratch */
    for (int b = 0; b < nb && shared_scratch; b++) {
        if (bufs[b].node < 0)
            continue;
        if (!scratch_slot) {
            slots = arena_grow(c->arena, slots, nslots, &cap, 16, sizeof(Slot));
            slots[0] = (Slot){.size = bufs[b].size, .busy_until = INT_MAX};
            nslots = 1;
            scratch_slot = true;
        }
        slot_add(c, &slots[0], bufs[b].size);
    }
    for (int b = 0; b < nb; b++) /* bufs are in order of their first node */
        slot_of[b] = shared_scratch && bufs[b].node >= 0
                         ? 0
                         : place_slot(c, &slots, &nslots, &cap, bufs[b].size, bufs[b].start,
                                      bufs[b].end);
    Sym **offsets = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(nslots + 1));
    Sym *total = sym_const(s, 0);
    for (int i = 0; i < nslots; i++) {
        Sym *size = max_balanced(c, slots[i].sizes, slots[i].nsizes);
        offsets[i] = total;
        total = sym_add(s, total, size);
        if (i == 0 && scratch_slot)
            c->g->scratch_slot = size;
    }
    if (!scratch_slot)
        c->g->scratch_slot = NULL;
    c->g->workspace = total;
    for (int b = 0; b < nb; b++)
        bufs[b].offset = offsets[slot_of[b]];
}

/* ---- the plan */

/* NAME_WORKSPACE_MAX: the interval bound of the workspace with every dim in [0, --max], into
 * g->workspace_max (-1: no macro).  When the bound does not fit in int64 the bounds are
 * refused, naming the dims that make it so. */
static void workspace_max(Compiler *c) {
    Graph *g = c->g;
    g->workspace_max = -1;
    int64_t *lo = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(g->ndims + 1));
    int64_t *hi = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(g->ndims + 1));
    for (int i = 0; i < g->nin_dims; i++) { /* data dims: the workspace is at their bounds */
        if (g->dims[i].max < 0)
            return;
        hi[i] = g->dims[i].max;
    }
    int64_t wsmin, wsmax;
    if (sym_bounds(g->workspace, lo, hi, &wsmin, &wsmax)) {
        g->workspace_max = wsmax;
        return;
    }
    /* No bound: either a divisor's interval holds 0 (no macro, as without --max), or the bound
     * overflows.  Small bounds tell which; then the dims that overflow alone are named, or all
     * the large ones when only their combination does. */
    const int64_t small = 1024;
    for (int i = 0; i < g->nin_dims; i++)
        hi[i] = g->dims[i].max < small ? g->dims[i].max : small;
    if (!sym_bounds(g->workspace, lo, hi, &wsmin, &wsmax))
        return;
    Buf names;
    buf_init_in(&names, c->arena);
    for (int pass = 0; pass < 2 && !names.len; pass++)
        for (int i = 0; i < g->nin_dims; i++) {
            if (g->dims[i].max <= small)
                continue;
            hi[i] = g->dims[i].max;
            if (pass || !sym_bounds(g->workspace, lo, hi, &wsmin, &wsmax))
                buf_printf(&names, "%s%s=%lld", names.len ? ", " : "", g->dims[i].name,
                           (long long)g->dims[i].max);
            hi[i] = small;
        }
    o2c_error(c, NULL, "--max %.600s: the workspace bound for these dims does not fit in 64 "
                       "bits; give smaller bounds", names.data ? names.data : "");
}

/* Control flow (ops/control.c): a value that a Loop or Scan body reads but that is defined
 * before it stays alive to the body's end (every iteration reads it), inner loops first; the
 * outputs of a Loop or Scan are live from its start (the body writes the scan outputs). */
static void extend_loops(Compiler *c) {
    Graph *g = c->g;
    int nr = 0;
    Region **rs = arena_alloc(c->arena, sizeof(Region *) * (size_t)(g->nregions + 1));
    for (int r = 0; r < g->nregions; r++)
        if (g->regions[r]->loop && !g->regions[r]->owner->dead)
            rs[nr++] = g->regions[r];
    for (int i = 1; i < nr; i++) /* by length: a region inside another is shorter */
        for (int j = i; j > 0 && rs[j]->end - rs[j]->begin < rs[j - 1]->end - rs[j - 1]->begin; j--) {
            Region *t = rs[j];
            rs[j] = rs[j - 1];
            rs[j - 1] = t;
        }
    for (int r = 0; r < nr; r++) {
        int b = rs[r]->begin, e = rs[r]->end;
        for (int i = 0; i < g->nvalues; i++) {
            Value *v = g->values[i];
            if (v->first_def < b && v->last_use >= b && v->last_use < e)
                v->last_use = e;
        }
        Node *end = g->nodes[e];
        for (int k = 0; k < end->nout; k++)
            if (end->out[k] && end->out[k]->first_def == e)
                end->out[k]->first_def = b;
    }
}

void plan_graph(Compiler *c) {
    Graph *g = c->g;
    SymCtx *s = c->sym;
    Arena *a = c->arena;
    /* liveness over live nodes */
    for (int i = 0; i < g->nvalues; i++) {
        g->values[i]->last_use = -1;
        g->values[i]->first_def = -1;
        g->values[i]->buf = 0;
    }
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->nout; k++)
            if (n->out[k])
                n->out[k]->first_def = i;
        for (int k = 0; k < n->nin; k++)
            if (n->in[k])
                n->in[k]->last_use = i;
    }
    extend_loops(c);
    int *last = arena_alloc(a, sizeof(int) * (size_t)(g->nvalues + 1));
    for (int v = 0; v < g->nvalues; v++)
        last[v] = g->values[v]->last_use;
    Groups gr;
    build_groups(c, g->nnodes - 1, last, &gr, true);
    /* one buffer per group (in order of its first node: a group's root is its first value),
     * then each node's scratch */
    PBuf *bufs = arena_alloc(a, sizeof(PBuf) * (size_t)(g->nvalues + g->nnodes + 1));
    int nb = 0;
    int *buf_of_root = arena_alloc(a, sizeof(int) * (size_t)(g->nvalues + 1));
    Sym **sub = arena_alloc(a, sizeof(Sym *) * (size_t)(g->nvalues + 1));
    for (int v = 0; v <= g->nvalues; v++)
        buf_of_root[v] = -1;
    bool all_const = true;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->nout; k++) {
            Value *v = n->out[k];
            if (!v || !gr.ws[v->id] || v->producer != n)
                continue;
            /* a size decided by data is planned at its bound (CONTRACT §2b) */
            v->bytes = align64(c, ir_data_bounded(c, sym_mul(s, ir_numel(c, v),
                                                              sym_const(s, (int64_t)dtype_size(v->dtype)))));
            int r = root_of(&gr, v->id);
            sub[v->id] = off_of(&gr, v->id);
            /* a group's buffer from its first value's node (a Concat's output, the root of its
             * group, comes after the inputs inside it), sized by the values not inside another */
            if (buf_of_root[r] < 0) {
                buf_of_root[r] = nb;
                bufs[nb++] = (PBuf){.size = NULL, .start = v->first_def, .end = gr.end[r], .node = -1};
            }
            PBuf *pb = &bufs[buf_of_root[r]];
            if (!gr.inner[v->id] || r == v->id)
                pb->size = !pb->size ? v->bytes
                           : pb->size != v->bytes ? sym_max(s, pb->size, v->bytes) /* a Reshape */
                                                  : pb->size;
            v->buf = buf_of_root[r] + 1;
        }
        if (n->scratch)
            bufs[nb++] = (PBuf){.size = align64(c, ir_data_bounded(c, n->scratch)), .start = i,
                                .end = i, .node = i};
    }
    for (int b = 0; b < nb; b++) {
        int64_t v;
        all_const &= sym_get_const(bufs[b].size, &v);
    }
    Plan *plan = arena_alloc(a, sizeof(Plan));
    plan->how = "slots";
    /* offsets only under --memory-first: in the default mode they made resnet18 (bench/) 5%
     * slower than the slots' layout, with a third less workspace */
    if (all_const && c->opt && c->opt->memory_first && place_constant(c, bufs, nb, &plan->how)) {
        /* the slots' layout is one more candidate */
        PBuf *alt = arena_alloc(a, sizeof(PBuf) * (size_t)(nb + 1));
        memcpy(alt, bufs, sizeof(PBuf) * (size_t)nb);
        Sym *ws = g->workspace;
        int64_t w0 = 0, w1 = 0;
        place_slots(c, alt, nb, false);
        if (sym_get_const(ws, &w0) && sym_get_const(g->workspace, &w1) && w1 < w0) {
            memcpy(bufs, alt, sizeof(PBuf) * (size_t)nb);
            plan->how = "slots, smaller than every order of offsets";
        } else
            g->workspace = ws;
    } else {
        plan->how = !all_const ? "slots (symbolic sizes)"
                    : c->opt && c->opt->memory_first
                        ? "slots (too many overlapping lifetimes to search offsets)"
                        : "slots (the default mode; --memory-first searches offsets)";
        place_slots(c, bufs, nb, !(c->opt && c->opt->memory_first));
    }
    plan->nbufs = nb;
    plan->bufs = bufs;
    g->plan = plan;
    for (int j = 0; j < g->nvalues; j++) {
        Value *v = g->values[j];
        if (v->buf)
            v->offset = sub[v->id] ? sym_add(s, bufs[v->buf - 1].offset, sub[v->id])
                                   : bufs[v->buf - 1].offset;
    }
    for (int b = 0; b < nb; b++)
        if (bufs[b].node >= 0)
            g->nodes[bufs[b].node]->scratch_offset = bufs[b].offset;
    workspace_max(c);
}

/* ---- the scratch budget of --memory-first */

int64_t plan_scratch_budget(Compiler *c, const Node *n) {
    if (!c->opt || !c->opt->memory_first)
        return -1;
    Graph *g = c->g;
    Arena *a = c->arena;
    int upto = n->index;
    /* the last reader of each value among all nodes (later ones are not inferred yet: every
     * one but a Shape or Size, which read no data, counts) */
    int *last = arena_alloc(a, sizeof(int) * (size_t)(g->nvalues + 1));
    for (int v = 0; v < g->nvalues; v++)
        last[v] = -1;
    static const char *const shape_only[] = {"Shape", "Size", NULL};
    for (int i = 0; i < g->nnodes; i++) {
        Node *m = g->nodes[i];
        if ((i <= upto && m->dead) || op_in(m, shape_only))
            continue;
        for (int k = 0; k < m->nin; k++)
            if (m->in[k])
                last[m->in[k]->id] = i;
    }
    Groups gr;
    build_groups(c, upto, last, &gr, false);
    /* live bytes at each node up to n: each group from its first value's node to its end */
    int64_t *at = arena_alloc(a, sizeof(int64_t) * (size_t)(upto + 2));
    for (int i = 0; i <= upto; i++) {
        Node *m = g->nodes[i];
        if (m->dead)
            continue;
        for (int k = 0; k < m->nout; k++) {
            Value *v = m->out[k];
            int64_t numel;
            if (!v || !gr.ws[v->id] || v->producer != m || root_of(&gr, v->id) != v->id)
                continue;
            if (!ir_numel_const(v, &numel))
                return 0;
            int64_t bytes = (numel * (int64_t)dtype_size(v->dtype) + 63) / 64 * 64;
            int e = gr.end[v->id] < upto ? gr.end[v->id] : upto;
            for (int t = i; t <= e; t++)
                at[t] += bytes;
        }
    }
    int64_t peak = 0;
    for (int t = 0; t <= upto; t++)
        if (at[t] > peak)
            peak = at[t];
    int64_t here = at[upto], budget = peak - here > here / 16 ? peak - here : here / 16;
    return budget / 64 * 64;
}

/* ---- --report */

static const char *sym_text(Compiler *c, Sym *e, const char **names) {
    return sym_str_max(c->arena, e, names, 200);
}

void plan_report(Compiler *c, FILE *f) {
    Graph *g = c->g;
    SymCtx *s = c->sym;
    Plan *plan = g->plan;
    const char **names = arena_alloc(c->arena, sizeof(char *) * (size_t)(g->ndims + 1));
    for (int i = 0; i < g->ndims; i++)
        names[i] = g->dims[i].name;
    /* bytes in use at each node: the buffers live there, its scratch included */
    int nn = g->nnodes;
    Sym **use = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(nn + 1));
    int64_t *cuse = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(nn + 1));
    bool all_const = true;
    for (int b = 0; plan && b < plan->nbufs; b++) {
        int64_t v;
        all_const &= sym_get_const(plan->bufs[b].size, &v);
    }
    for (int b = 0; plan && b < plan->nbufs; b++) {
        PBuf *pb = &plan->bufs[b];
        int64_t v = 0;
        sym_get_const(pb->size, &v);
        for (int t = pb->start; t <= pb->end; t++) {
            if (all_const)
                cuse[t] += v;
            else
                use[t] = use[t] ? sym_add(s, use[t], pb->size) : pb->size;
        }
    }
    int wn = 24; /* the node column: the longest name, up to 48 */
    for (int i = 0; i < nn; i++) {
        int len = (int)strlen(g->nodes[i]->name);
        wn = len > wn ? (len < 48 ? len : 48) : wn;
    }
    fprintf(f, "%-*s %-18s %-40s %-24s %-12s %-12s %-12s %-12s %s\n", wn, "node", "op",
            "output shape", "offset", "bytes", "scratch", "flash", "arena in use", "kernel");
    int64_t flash = 0, top = 0;
    int top_node = -1;
    for (int i = 0; i < nn; i++) {
        Node *n = g->nodes[i];
        flash += n->flash;
        if (!n->dead && all_const && cuse[i] > top) {
            top = cuse[i];
            top_node = i;
        }
        int rows = 0;
        for (int k = 0; k < n->nout || (k == 0 && rows == 0); k++) {
            Value *v = k < n->nout ? n->out[k] : NULL;
            if (v && v->rank < 0)
                continue;
            Buf sh;
            buf_init_in(&sh, c->arena);
            const char *where = "-", *bytes = "-";
            if (v) {
                buf_puts(&sh, dtype_name(v->dtype));
                buf_puts(&sh, "[");
                for (int d = 0; d < v->rank; d++)
                    buf_printf(&sh, "%s%s", d ? "," : "", sym_str(c->arena, v->shape[d], names));
                buf_puts(&sh, "]");
                where = n->dead ? (n->merged_into || (v->producer && v->producer != n &&
                                                      !v->producer->dead)
                                       ? "(fused)" : "(folded)")
                        : v->is_output ? "(output)"
                        : v->data || v->kv ? "(known)"
                        : v->offset ? sym_text(c, v->offset, names)
                                    : "-";
                if (!n->dead && v->buf)
                    bytes = sym_text(c, v->bytes, names);
            }
            const char *scratch = "", *fl = "", *inuse = "";
            if (rows == 0 && !n->dead) {
                scratch = n->scratch ? sym_text(c, n->scratch, names) : "0";
                fl = arena_printf(c->arena, "%lld", (long long)n->flash);
                inuse = all_const ? arena_printf(c->arena, "%lld", (long long)cuse[i])
                        : use[i] ? sym_text(c, use[i], names) : "0";
            }
            if (*inuse) /* (the kernel last: the columns before it keep their places) */
                fprintf(f, "%-*s %-18s %-40s %-24s %-12s %-12s %-12s %-12s %s\n", wn,
                        rows ? "" : n->name, rows ? "" : n->op_type, sh.data ? sh.data : "",
                        where, bytes, scratch, fl, inuse, n->kernel ? n->kernel : "-");
            else
                fprintf(f, "%-*s %-18s %-40s %-24s %s\n", wn, rows ? "" : n->name,
                        rows ? "" : n->op_type, sh.data ? sh.data : "", where, bytes);
            buf_free(&sh);
            rows++;
        }
        if (n->scratch && !n->dead)
            fprintf(f, "%-*s %-18s %-40s %-24s %s\n", wn, "", "(scratch)", "",
                    sym_text(c, n->scratch_offset, names), sym_text(c, align64(c, n->scratch), names));
    }
    int64_t params = 0;
    for (int v = 0; v < g->nvalues; v++) {
        Value *x = g->values[v];
        int64_t numel;
        if (x->param && ir_numel_const(x, &numel))
            params += numel * (int64_t)dtype_size(x->dtype);
    }
    fprintf(f, "peak workspace: %s bytes\n", sym_text(c, g->workspace, names));
    if (all_const && top_node >= 0)
        fprintf(f, "largest sum of live buffers at one node: %lld bytes, at '%s' (%s)\n",
                (long long)top, g->nodes[top_node]->name, plan->how);
    else if (plan)
        fprintf(f, "placement: %s\n", plan->how);
    fprintf(f, "weights: %lld bytes of arrays in the C file; parameters: %lld bytes\n",
            (long long)flash, (long long)params);
}
