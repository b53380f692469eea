/* plan.c — where every temporary lives in the caller's workspace.
 *
 * Liveness: a temporary is live from the node that defines it to its last consumer.  Slots are
 * reused once free: a slot's size is the largest (sym_max) of the values placed in it, its offset
 * the sum of the slots before it, each rounded up to 64 bytes.  With constant shapes this is
 * best-fit packing; with symbolic shapes a value takes a free slot of exactly its size expression
 * if there is one, else any free slot, which grows to the max of both sizes.
 * Node-local scratch (Node.scratch) is placed the same way, live only during its node. */
#include "onnx2c.h"
#include <string.h>

typedef struct Slot {
    Sym *size;      /* the max of the sizes placed here so far */
    int busy_until; /* index of the last node that uses what is placed here */
    Sym **sizes;    /* the sizes that made `size` grow, in order: the final size is their max
                     * taken as a balanced tree, so a slot reused by a chain of thousands of
                     * symbolic values is not a max nested thousands deep */
    int nsizes, capsizes;
} Slot;

static void slot_grow(Compiler *c, Slot *sl, Sym *size) {
    if (sl->nsizes == sl->capsizes) {
        int cap = sl->capsizes ? 2 * sl->capsizes : 4;
        Sym **ns = arena_alloc(c->arena, sizeof(Sym *) * (size_t)cap);
        if (sl->nsizes)
            memcpy(ns, sl->sizes, sizeof(Sym *) * (size_t)sl->nsizes);
        sl->sizes = ns;
        sl->capsizes = cap;
    }
    sl->sizes[sl->nsizes++] = size;
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

static Sym *align64(Compiler *c, Sym *bytes) {
    SymCtx *s = c->sym;
    return sym_mul(s, sym_ceildiv(s, bytes, sym_const(s, 64)), sym_const(s, 64));
}

static int place(Compiler *c, Slot **slots, int *nslots, int *cap, Sym *size, int def, int last) {
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
        if (*nslots == *cap) {
            int nc = *cap ? *cap * 2 : 16;
            Slot *ns = arena_alloc(c->arena, sizeof(Slot) * (size_t)nc);
            if (*nslots)
                memcpy(ns, *slots, sizeof(Slot) * (size_t)*nslots);
            *slots = ns;
            *cap = nc;
        }
        best = (*nslots)++;
        (*slots)[best].size = size;
        slot_grow(c, &(*slots)[best], size);
    } else {
        Slot *sl = &(*slots)[best];
        Sym *m = sym_max(c->sym, sl->size, size);
        if (m != sl->size) {
            sl->size = m;
            if (m == size) /* it holds every size before it: those no longer count */
                sl->nsizes = 0;
            slot_grow(c, sl, size);
        }
    }
    (*slots)[best].busy_until = last;
    return best;
}

void plan_graph(Compiler *c) {
    Graph *g = c->g;
    SymCtx *s = c->sym;
    /* liveness over live nodes */
    for (int i = 0; i < g->nvalues; i++) {
        g->values[i]->last_use = -1;
        g->values[i]->first_def = -1;
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
    int nslots = 0, cap = 0;
    Slot *slots = NULL;
    int *slot_of_value = arena_alloc(c->arena, sizeof(int) * (size_t)(g->nvalues + 1));
    int *slot_of_scratch = arena_alloc(c->arena, sizeof(int) * (size_t)(g->nnodes + 1));
    for (int i = 0; i < g->nvalues; i++)
        slot_of_value[i] = -1;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        slot_of_scratch[i] = -1;
        if (n->dead)
            continue;
        for (int k = 0; k < n->nout; k++) {
            Value *v = n->out[k];
            if (!v || v->is_output || v->kind != VAL_TEMP || v->rank < 0)
                continue;
            v->bytes = align64(c, sym_mul(s, ir_numel(c, v), sym_const(s, (int64_t)dtype_size(v->dtype))));
            int last = v->last_use > i ? v->last_use : i;
            slot_of_value[v->id] = place(c, &slots, &nslots, &cap, v->bytes, i, last);
        }
        if (n->scratch)
            slot_of_scratch[i] = place(c, &slots, &nslots, &cap, align64(c, n->scratch), i, i);
    }
    Sym **offsets = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(nslots + 1));
    Sym *total = sym_const(s, 0);
    for (int i = 0; i < nslots; i++) {
        offsets[i] = total;
        total = sym_add(s, total, max_balanced(c, slots[i].sizes, slots[i].nsizes));
    }
    g->workspace = total;
    for (int j = 0; j < g->nvalues; j++)
        if (slot_of_value[j] >= 0)
            g->values[j]->offset = offsets[slot_of_value[j]];
    for (int i = 0; i < g->nnodes; i++)
        if (slot_of_scratch[i] >= 0)
            g->nodes[i]->scratch_offset = offsets[slot_of_scratch[i]];

    if (c->opt && c->opt->report) {
        FILE *f = c->opt->report_out ? c->opt->report_out : stdout;
        const char **names = arena_alloc(c->arena, sizeof(char *) * (size_t)(g->ndims + 1));
        for (int i = 0; i < g->ndims; i++)
            names[i] = g->dims[i].name;
        fprintf(f, "%-24s %-18s %-40s %-24s %s\n", "node", "op", "output shape", "offset", "bytes");
        for (int i = 0; i < g->nnodes; i++) {
            Node *n = g->nodes[i];
            for (int k = 0; k < n->nout; k++) {
                Value *v = n->out[k];
                if (!v || v->rank < 0)
                    continue;
                Buf sh;
                buf_init(&sh);
                buf_puts(&sh, dtype_name(v->dtype));
                buf_puts(&sh, "[");
                for (int d = 0; d < v->rank; d++)
                    buf_printf(&sh, "%s%s", d ? "," : "", sym_str(c->arena, v->shape[d], names));
                buf_puts(&sh, "]");
                const char *where = n->dead ? "(folded)"
                                    : v->is_output ? "(output)"
                                    : v->offset ? sym_str(c->arena, v->offset, names)
                                                : "-";
                fprintf(f, "%-24s %-18s %-40s %-24s %s\n", k ? "" : n->name, k ? "" : n->op_type,
                        sh.data, where, v->bytes && !n->dead && !v->is_output ? sym_str(c->arena, v->bytes, names) : "-");
                buf_free(&sh);
            }
            if (n->scratch && !n->dead)
                fprintf(f, "%-24s %-18s %-40s %-24s %s\n", "", "(scratch)", "",
                        sym_str(c->arena, n->scratch_offset, names), sym_str(c->arena, n->scratch, names));
        }
        fprintf(f, "peak workspace: %s bytes\n", sym_str(c->arena, total, names));
    }
}
