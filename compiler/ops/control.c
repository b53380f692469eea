/* ops/control.c — If, Loop and Scan: subgraphs compiled in place.
 *
 * The loader builds each graph attribute into a Region (compiler/onnx_load.c); ir_toposort
 * lays a region's nodes out right after its control node and closes them with a marker node
 * made here (control_prepare):
 *
 *   If    [cond]               then-branch   o2c_Else  else-branch   o2c_End
 *   Loop  [M, cond, v...]      body                                  o2c_End
 *   Scan  [states, scans...]   body                                  o2c_End
 *
 * The control node defines its region's formal inputs (a Loop's iteration number, condition
 * and loop-carried values; a Scan's states and its scan inputs' slices) and opens the C block
 * (`if (cond) {`, `for (...) {`); the marker copies the region's outputs where they go and
 * closes it.  An If's o2c_Else defines the If's outputs, a Loop's or Scan's o2c_End theirs.
 *
 * SequenceMap is a region like Scan's: one run per element of its first sequence.
 *
 * So the nodes of a region are ordinary nodes: inferred, planned and emitted in order, with
 * two differences.  Constraints recorded inside a region are tested where it runs, not by
 * NAME_check (they hold only when it runs: ir_constrain), and unify no dims.  The plan keeps a
 * value that a Loop or Scan body reads alive to the body's end (plan.c: every iteration reads
 * it), and a Loop's or Scan's outputs from its start (the body writes the scan outputs).  A
 * data dim made inside a loop body is set anew at every iteration.
 *
 * Loop-carried values and states keep their shape from one iteration to the next (dims that
 * may differ are checked at run time), but for a carried sequence, which may grow by a fixed
 * count per iteration: its length is a data dim of the loop.  A Loop's scan outputs have the
 * trip count as their first dim: M when the loop always runs M times (no condition, or a
 * constant true one), else a data dim (CONTRACT §2b) bounded by M when it is known, a declared
 * size, or --max. */
#include "onnx2c.h"
#include <string.h>

/* An If output's dim that the branches give differently: a data dim (CONTRACT §2b). */
typedef struct IfDim {
    Sym *dim, *then_dim, *else_dim;
    const char *var;  /* the C local that carries the branch's value past the If */
} IfDim;

/* What infer leaves for emit (Node.priv of the control node). */
typedef struct Ctl {
    Node *mid;        /* If: its o2c_Else */
    int nifd, capifd;
    IfDim *ifd;       /* If: outputs' dims that are data dims */
    const char *it;   /* Loop, Scan: the iteration's C variable */
    const char *cnd;  /* Loop: the condition's */
    Sym *trip;        /* Scan: the trip count; Loop: the scan outputs' first dim */
    bool trip_data;   /* Loop: trip is a data dim that o2c_End sets */
    int nstate;       /* loop-carried values / states */
    int nscan_in;     /* Scan */
    int64_t *in_axis, *in_rev, *out_axis, *out_rev; /* Scan: per scan input / output */
    /* Scan before opset 9: a batch axis 0 (an outer loop), sequence_lens at input 0 */
    bool v8;
    Sym *batch;
    const char *bt, *len;
    Node *end;        /* Loop, Scan: its o2c_End */
    /* Loop: per carried value that is a sequence (ops/sequence.c), its length in the body (a
     * data dim set at each iteration's start), the C local of its length, its length after */
    Sym **slen, **sfinal;
    const char **slen_var;
    const char **elems; /* Loop: per scan output whose element size the body's data decide,
                         * the C local of the first iteration's size (-1 before) */
} Ctl;

static void infer_else(Compiler *c, Node *n);
static void infer_end(Compiler *c, Node *n);
void emit_else(Compiler *c, Emit *e, Node *n);
void emit_end(Compiler *c, Emit *e, Node *n);

static void carry_scratch(Compiler *c, Node *n, Value *const *to, int count);

static const OpDef op_else = {"o2c_Else", "", "control", 1, 0, -1, infer_else, emit_else, 0};
static const OpDef op_end = {"o2c_End", "", "control", 1, 0, -1, infer_end, emit_end, 0};

static Ctl *ctl_of(Compiler *c, Node *p) {
    if (!p->priv)
        p->priv = arena_alloc(c->arena, sizeof(Ctl));
    return p->priv;
}

/* The marker that closes region p->sub[after]. */
static Node *add_marker(Compiler *c, Node *p, const OpDef *op, int after, int nin, Value **in,
                        int nout, Value **out) {
    Node *m = ir_add_node(c, op->name, arena_printf(c->arena, "%s/%s", p->name,
                                                     op == &op_else ? "else" : "end"));
    m->op = op;
    m->opset = p->opset;
    m->region = p->region;
    m->ctl = p;
    p->sub[after]->close = m; /* ir_toposort puts it after the region */
    m->nin = nin;
    m->in = in;
    m->nout = nout;
    m->out = out;
    return m;
}

static Value **concat_values(Compiler *c, int na, Value **a, int nb, Value **b) {
    Value **v = arena_alloc(c->arena, sizeof(Value *) * (size_t)(na + nb + 1));
    if (na)
        memcpy(v, a, sizeof(Value *) * (size_t)na);
    if (nb)
        memcpy(v + na, b, sizeof(Value *) * (size_t)nb);
    return v;
}

static bool default_domain(const Node *n) {
    return !n->domain[0] || !strcmp(n->domain, "ai.onnx");
}

void control_prepare(Compiler *c, Node *p) {
    bool is_if = default_domain(p) && !strcmp(p->op_type, "If");
    bool is_loop = default_domain(p) && !strcmp(p->op_type, "Loop");
    bool is_scan = default_domain(p) && (!strcmp(p->op_type, "Scan") ||
                                         !strcmp(p->op_type, "SequenceMap"));
    if (!is_if && !is_loop && !is_scan)
        o2c_error(c, p, "attribute '%s' is a graph: only If, Loop, Scan and SequenceMap take "
                  "subgraphs", p->sub[0]->name);
    const char *want0 = is_if ? "then_branch" : "body", *want1 = "else_branch";
    if (is_if && p->nsub == 2 && !strcmp(p->sub[0]->name, want1)) {
        Region *t = p->sub[0];
        p->sub[0] = p->sub[1];
        p->sub[1] = t;
    }
    if (p->nsub != (is_if ? 2 : 1) || strcmp(p->sub[0]->name, want0) ||
        (is_if && strcmp(p->sub[1]->name, want1)))
        o2c_error(c, p, is_if ? "needs the graph attributes then_branch and else_branch"
                              : "needs one graph attribute, body");
    for (int r = 0; r < p->nsub; r++)
        p->sub[r]->loop = !is_if;
    Region *b = p->sub[0];
    if (is_if) {
        Region *e = p->sub[1];
        if (b->nin || e->nin)
            o2c_error(c, p, "an If branch takes no inputs (it has %d)", b->nin + e->nin);
        if (b->nout != p->nout || e->nout != p->nout)
            o2c_error(c, p, "the If has %d outputs but its branches give %d and %d", p->nout,
                      b->nout, e->nout);
        add_marker(c, p, &op_else, 0, b->nout, b->out, p->nout, p->out);
        add_marker(c, p, &op_end, 1, e->nout, e->out, 0, NULL);
        p->nout = 0;
        p->out = NULL;
        return;
    }
    /* Loop, Scan: the control node defines the body's formal inputs; o2c_End reads the body's
     * outputs and the formal inputs (alive across iterations) and defines the outputs */
    add_marker(c, p, &op_end, 0, b->nout + b->nin, concat_values(c, b->nout, b->out, b->nin, b->in),
               p->nout, p->out);
    for (int i = 0; i < b->nin; i++)
        b->in[i]->nuses++;
    p->nout = b->nin;
    p->out = b->in;
}

/* ---- infer */

static bool bool_scalar(const Value *v) {
    int64_t n;
    return v->dtype == DT_BOOL && ir_numel_const(v, &n) && n == 1;
}



static const char *shape_text(Compiler *c, const Value *v) {
    const char **names = arena_alloc(c->arena, sizeof(char *) * (size_t)(c->g->ndims + 1));
    for (int i = 0; i < c->g->ndims; i++)
        names[i] = c->g->dims[i].name;
    Buf b;
    buf_init_in(&b, c->arena);
    buf_puts(&b, "[");
    for (int i = 0; i < v->rank; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", sym_str_max(c->arena, v->shape[i], names, 60));
    buf_puts(&b, "]");
    return b.data;
}

/* A value the region gives where one of the same type and shape is expected (a Loop's
 * carried value, an If's other branch): dims that may differ must be equal at run time (a
 * constraint; one mentioning a size decided by data inside the region is tested there, at
 * every iteration). */
static void require_same(Compiler *c, Node *n, Node *m, const Value *got, const Value *want,
                         const char *what) {
    if (got->dtype != want->dtype || got->rank != want->rank)
        o2c_error(c, n, "%s: '%s' is %s %s where %s %s is expected (shapes that change are not "
                  "supported)", what, got->name, dtype_name(got->dtype), shape_text(c, got),
                  dtype_name(want->dtype), shape_text(c, want));
    for (int d = 0; d < got->rank; d++)
        ir_constrain(c, m, CK_EQ, ir_unified(c, got->shape[d]), ir_unified(c, want->shape[d]),
                     "%s: '%s' %s must have the shape %s of '%s'", what, got->name,
                     shape_text(c, got), shape_text(c, want), want->name);
}

/* control_prepare ran: the node has its graph attributes (not a GRAPHS list, not none). */
static void require_regions(Compiler *c, Node *n) {
    if (!n->nsub)
        o2c_error(c, n, "needs its graph attribute%s (%s)", strcmp(n->op_type, "If") ? "" : "s",
                  strcmp(n->op_type, "If") ? "body" : "then_branch, else_branch");
}

void infer_if(Compiler *c, Node *n) {
    require_regions(c, n);
    Value *cond = infer_in(c, n, 0);
    if (!bool_scalar(cond))
        o2c_error(c, n, "the condition must be one bool element");
    ctl_of(c, n);
}

static void infer_else(Compiler *c, Node *n) {
    Node *p = n->ctl;
    ctl_of(c, p)->mid = n;
    for (int k = 0; k < n->nout; k++)
        ir_same_kind(c, n->out[k], n->in[k]);
}

void infer_loop(Compiler *c, Node *n) {
    require_regions(c, n);
    Region *b = n->sub[0];
    Value *m = node_in(n, 0), *cond = node_in(n, 1);
    if (m) {
        int64_t len;
        if (m->dtype != DT_INT64 || !ir_numel_const(m, &len) || len != 1)
            o2c_error(c, n, "the trip count M must be one int64 element");
    }
    if (cond && !bool_scalar(cond))
        o2c_error(c, n, "the condition must be one bool element");
    int nstate = n->nin - 2;
    if (nstate < 0)
        nstate = 0;
    if (b->nin != 2 + nstate || b->nout < 1 + nstate)
        o2c_error(c, n, "the body takes %d inputs and gives %d outputs; with %d loop-carried "
                  "values it must take %d and give at least %d", b->nin, b->nout, nstate,
                  2 + nstate, 1 + nstate);
    Ctl *x = ctl_of(c, n);
    x->nstate = nstate;
    x->slen = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(nstate + 1));
    x->sfinal = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(nstate + 1));
    x->slen_var = arena_alloc(c->arena, sizeof(char *) * (size_t)(nstate + 1));
    ir_set_shape(c, b->in[0], DT_INT64, 0, NULL);
    ir_set_shape(c, b->in[1], DT_BOOL, 0, NULL);
    for (int k = 0; k < nstate; k++) {
        Value *v = node_in(n, 2 + k), *f = b->in[2 + k];
        if (!v)
            o2c_error(c, n, "loop-carried value %d has no initial value", k);
        if (!v->seq) {
            if (f->seq)
                o2c_error(c, n, "loop-carried value '%s' is a sequence, its initial value '%s' a "
                          "tensor", f->name, v->name);
            ir_same_kind(c, f, v);
            continue;
        }
        /* a sequence: its length may grow from one iteration to the next, a data dim of the
         * loop bounded at o2c_End (its growth per iteration times the trip count's bound) */
        Sym *len = ir_data_dim(c, n, 2 + k, 0, NULL);
        x->slen[k] = len;
        if (v->rank >= 1) {
            Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)v->rank);
            memcpy(sh, v->shape, sizeof(Sym *) * (size_t)v->rank);
            sh[0] = len;
            ir_set_shape(c, f, v->dtype, v->rank, sh);
        } else {
            f->dtype = v->dtype;
            f->rank = -1;
        }
        f->seq = true;
        f->seq_len = len;
    }
}

/* A Scan's INTS attribute of count entries (0s when absent). */
static int64_t *scan_ints(Compiler *c, Node *n, const char *name, int count) {
    int64_t *v = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(count + 1));
    const int64_t *a;
    int len = attr_ints(c, n, name, &a);
    if (len >= 0 && len != count)
        o2c_error(c, n, "attribute '%s' has %d entries; it needs %d", name, len, count);
    for (int i = 0; i < count && len >= 0; i++)
        v[i] = a[i];
    return v;
}

/* v's shape without its first `drop` dims (and without dim `skip` of those left, -1: none). */
static Sym **shape_without(Compiler *c, const Value *v, int drop, int skip, int *rank) {
    Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(v->rank + 1));
    int k = 0;
    for (int d = drop; d < v->rank; d++)
        if (d - drop != skip)
            sh[k++] = v->shape[d];
    *rank = k;
    return sh;
}

void infer_scan(Compiler *c, Node *n) {
    require_regions(c, n);
    Region *b = n->sub[0];
    Ctl *x = ctl_of(c, n);
    x->v8 = n->opset < 9; /* a batch axis 0, sequence_lens first, `directions` */
    int in0 = x->v8 ? 1 : 0, nin = n->nin - in0;
    int64_t nscan = attr_int(c, n, "num_scan_inputs", -1);
    if (nscan < 1 || nscan > nin)
        o2c_error(c, n, "num_scan_inputs must be between 1 and the states and scan inputs (%d)", nin);
    x->nscan_in = (int)nscan;
    x->nstate = nin - x->nscan_in;
    int nout = b->nout - x->nstate;
    if (b->nin != nin || nout < 0)
        o2c_error(c, n, "the body takes %d inputs and gives %d outputs; with %d states and %d "
                  "scan inputs it must take %d and give at least %d", b->nin, b->nout, x->nstate,
                  x->nscan_in, nin, x->nstate);
    if (x->v8) { /* the scan axis is the one after the batch, outputs forward */
        x->in_axis = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(x->nscan_in + 1));
        x->in_rev = scan_ints(c, n, "directions", x->nscan_in);
        x->out_axis = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(nout + 1));
        x->out_rev = arena_alloc(c->arena, sizeof(int64_t) * (size_t)(nout + 1));
    } else {
        x->in_axis = scan_ints(c, n, "scan_input_axes", x->nscan_in);
        x->in_rev = scan_ints(c, n, "scan_input_directions", x->nscan_in);
        x->out_axis = scan_ints(c, n, "scan_output_axes", nout);
        x->out_rev = scan_ints(c, n, "scan_output_directions", nout);
    }
    int rk;
    for (int k = 0; k < x->nstate; k++) {
        Value *v = infer_in(c, n, in0 + k);
        if (x->v8 && v->rank < 1)
            o2c_error(c, n, "state '%s' has no batch axis", v->name);
        Sym **sh = shape_without(c, v, in0, -1, &rk);
        ir_set_shape(c, b->in[k], v->dtype, rk, sh);
        if (x->v8 && !k)
            x->batch = v->shape[0];
    }
    for (int j = 0; j < x->nscan_in; j++) {
        Value *v = infer_in(c, n, in0 + x->nstate + j);
        if (v->rank < 1 + in0)
            o2c_error(c, n, "scan input '%s' has no scan axis", v->name);
        int a = infer_axis(c, n, x->in_axis[j], v->rank - in0);
        x->in_axis[j] = a;
        if (x->in_rev[j] != 0 && x->in_rev[j] != 1)
            o2c_error(c, n, "the scan directions hold %lld; 0 or 1 expected", (long long)x->in_rev[j]);
        if (!j)
            x->trip = v->shape[in0 + a];
        else
            ir_constrain(c, n, CK_EQ, x->trip, v->shape[in0 + a],
                         "scan inputs '%s' and '%s' must have the same length on their scan axes",
                         n->in[in0 + x->nstate]->name, v->name);
        if (x->v8 && !x->batch)
            x->batch = v->shape[0];
        Sym **sh = shape_without(c, v, in0, a, &rk);
        ir_set_shape(c, b->in[x->nstate + j], v->dtype, rk, sh);
    }
    if (!x->v8)
        return;
    for (int i = in0; i < n->nin; i++) /* one batch size */
        ir_constrain(c, n, CK_EQ, x->batch, n->in[i]->shape[0],
                     "'%s' must have the batch size of the others", n->in[i]->name);
    Value *sl = node_in(n, 0);
    if (sl) {
        if (sl->dtype != DT_INT64 || sl->rank != 1)
            o2c_error(c, n, "sequence_lens must be an int64 vector");
        ir_constrain(c, n, CK_EQ, sl->shape[0], x->batch, "sequence_lens must have the batch size");
    }
}

/* The trip count's bound when it is known: M's value (0 when negative), else NULL. */
static Sym *trip_bound(Compiler *c, Node *p) {
    Value *m = node_in(p, 0);
    Sym **mk = m ? ir_known_ints(c, m) : NULL;
    return mk ? sym_max(c->sym, mk[0], sym_const(c->sym, 0)) : NULL;
}

/* o2c_End of a Loop, carried value k a sequence: the body's must grow by a constant number of
 * elements (0 or more) of the same shape; the length's bound is the initial length's plus
 * that many per iteration the trip count allows (or a --max on the length's name). */
static void infer_carried_seq(Compiler *c, Node *n, Node *p, Ctl *x, int k) {
    Region *b = p->sub[0];
    Value *so = b->out[1 + k], *si = b->in[2 + k], *init = p->in[2 + k];
    Sym *len = x->slen[k];
    if (!so->seq)
        o2c_error(c, p, "loop-carried value '%s' is a sequence but the body gives the tensor '%s'",
                  si->name, so->name);
    if (so->rank < 1 && si->rank < 1)
        o2c_error(c, p, "loop-carried sequence '%s' stays empty: its elements' shape is unknown",
                  si->name);
    if (si->rank < 1) { /* an empty sequence at first: the body's inserts give the shape */
        Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)so->rank);
        memcpy(sh, so->shape, sizeof(Sym *) * (size_t)so->rank);
        sh[0] = len;
        ir_set_shape(c, si, so->dtype, so->rank, sh);
    } else if (so->rank != si->rank || so->dtype != si->dtype)
        o2c_error(c, p, "loop-carried sequence '%s': the body gives elements of another type or "
                  "rank", si->name);
    else
        for (int d = 1; d < si->rank; d++)
            ir_constrain(c, n, CK_EQ, so->shape[d], si->shape[d],
                         "loop-carried sequence '%s': its elements' dimension %d changes", si->name,
                         d - 1);
    int64_t inc;
    if (!sym_get_const(sym_sub(c->sym, so->seq_len, len), &inc) || inc < 0)
        o2c_error(c, p, "loop-carried sequence '%s' must grow by a constant number of elements "
                  "per iteration", si->name);
    Sym *tb = trip_bound(c, p);
    Dim *dd = &c->g->dims[len->dim];
    if (tb) {
        Sym *bound = sym_add(c->sym, ir_data_bounded(c, init->seq_len),
                             sym_mul(c->sym, sym_const(c->sym, inc), tb));
        dd->bound = dd->bound ? sym_min(c->sym, dd->bound, bound) : bound;
        c->g->nbounds = 0; /* ir_data_bounded's substitution is stale */
    }
}

/* o2c_End of a Loop or Scan: the carried values keep their shapes; the outputs. */
static void infer_end_loop(Compiler *c, Node *n, Node *p, bool scan) {
    Region *b = p->sub[0];
    Ctl *x = ctl_of(c, p);
    int first = scan ? 0 : 1; /* a Loop's body gives its condition first */
    if (!scan && !bool_scalar(b->out[0]))
        o2c_error(c, p, "the body's condition output '%s' must be one bool element",
                  b->out[0]->name);
    for (int k = 0; k < x->nstate; k++)
        if (scan || !x->slen[k])
            require_same(c, p, n, b->out[first + k], b->in[(scan ? 0 : 2) + k],
                         scan ? "a state" : "a loop-carried value");
        else
            infer_carried_seq(c, n, p, x, k);
    int nscan = b->nout - first - x->nstate;
    if (n->nout > x->nstate + nscan)
        o2c_error(c, p, "%d outputs, but the body gives %d states and %d scan outputs", n->nout,
                  x->nstate, nscan);
    x->end = n;
    for (int k = 0; k < x->nstate && k < n->nout; k++) {
        Value *st = b->in[(scan ? 0 : 2) + k];
        if (!n->out[k])
            continue;
        if (!x->v8 && x->slen && x->slen[k]) { /* a sequence: its length after the loop */
            Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)st->rank);
            memcpy(sh, st->shape, sizeof(Sym *) * (size_t)st->rank);
            sh[0] = x->sfinal[k] = ir_data_dim(c, n, k, 0, c->g->dims[x->slen[k]->dim].bound);
            ir_set_shape(c, n->out[k], st->dtype, st->rank, sh);
            n->out[k]->seq = true;
            n->out[k]->seq_len = sh[0];
            continue;
        }
        if (!x->v8) {
            ir_same_kind(c, n->out[k], st);
            continue;
        }
        Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(st->rank + 1));
        sh[0] = x->batch;
        for (int d = 0; d < st->rank; d++)
            sh[d + 1] = st->shape[d];
        ir_set_shape(c, n->out[k], st->dtype, st->rank + 1, sh);
    }
    if (!scan && nscan > 0 && !x->trip) {
        /* the trip count: M when the loop always runs M times, else a data dim */
        Value *m = node_in(p, 0), *cond = node_in(p, 1);
        Sym **mk = m ? ir_known_ints(c, m) : NULL;
        int64_t t;
        bool cond_true = !cond || (cond->data && ((const uint8_t *)cond->data)[0]);
        Value *co = b->out[0];
        bool body_true = co->data && ((const uint8_t *)co->data)[0];
        if (mk && cond_true && body_true)
            x->trip = mk[0];
        else {
            if (mk && !(sym_get_const(mk[0], &t) && t < 0))
                x->trip = ir_data_dim(c, n, x->nstate, 0, sym_max(c->sym, mk[0], sym_const(c->sym, 0)));
            else
                x->trip = ir_data_dim(c, n, x->nstate, 0, NULL);
            x->trip_data = true;
        }
    }
    for (int j = 0; j < nscan && x->nstate + j < n->nout; j++) {
        Value *e = b->out[first + x->nstate + j], *y = n->out[x->nstate + j];
        if (!y)
            continue;
        int a = 0;
        if (scan) {
            int64_t ax = x->out_axis[j];
            if (ax < -(e->rank + 1) || ax > e->rank)
                o2c_error(c, p, "scan_output_axes[%d] = %lld is out of range for rank %d", j,
                          (long long)ax, e->rank + 1);
            a = (int)(ax < 0 ? ax + e->rank + 1 : ax);
            x->out_axis[j] = a;
            if (x->out_rev[j] != 0 && x->out_rev[j] != 1)
                o2c_error(c, p, "scan_output_directions holds %lld; 0 or 1 expected",
                          (long long)x->out_rev[j]);
        }
        int b0 = x->v8 ? 1 : 0; /* the batch axis first */
        Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(e->rank + 2));
        if (b0)
            sh[0] = x->batch;
        for (int d = 0, k = 0; d <= e->rank; d++)
            sh[b0 + d] = d == a ? x->trip : e->shape[k++];
        ir_set_shape(c, y, e->dtype, e->rank + 1 + b0, sh);
    }
    carry_scratch(c, n, b->out + first, x->nstate);
}

/* o2c_End of an If: the else branch's outputs against the then branch's, which o2c_Else gave
 * the If's outputs; a dim they give differently becomes a data dim bounded by the larger. */
static void infer_end_if(Compiler *c, Node *n, Node *p) {
    Ctl *x = ctl_of(c, p);
    Node *mid = x->mid;
    for (int k = 0; k < n->nin; k++) {
        Value *e = n->in[k], *y = mid->out[k];
        if (!y)
            continue;
        if (e->opt != y->opt || e->opt_none != y->opt_none)
            o2c_error(c, p, "output %d: one branch gives %s, the other %s (an optional whose value "
                      "is decided at run time is not supported)", k,
                      y->opt_none ? "an empty optional" : y->opt ? "an optional with a value" : "a tensor",
                      e->opt_none ? "an empty optional" : e->opt ? "an optional with a value" : "a tensor");
        if (e->dtype != y->dtype || e->rank != y->rank)
            o2c_error(c, p, "output %d: the then branch gives %s %s, the else branch %s %s (the "
                      "type and rank must agree)", k, dtype_name(y->dtype), shape_text(c, y),
                      dtype_name(e->dtype), shape_text(c, e));
        Sym **sh = NULL;
        for (int d = 0; d < e->rank; d++) {
            Sym *a = ir_unified(c, y->shape[d]), *b = ir_unified(c, e->shape[d]);
            if (a == b)
                continue;
            if (!sh) {
                sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)e->rank);
                memcpy(sh, y->shape, sizeof(Sym *) * (size_t)e->rank);
            }
            x->ifd = arena_grow(c->arena, x->ifd, x->nifd, &x->capifd, 4, sizeof(IfDim));
            IfDim *f = &x->ifd[x->nifd++];
            f->then_dim = a;
            f->else_dim = b;
            f->dim = ir_data_dim(c, mid, k, d, ir_data_bounded(c, sym_max(c->sym, a, b)));
            c->g->dims[f->dim->dim].producer = n->index; /* set after the If (emit_end) */
            sh[d] = f->dim;
        }
        if (sh) {
            ir_set_shape(c, y, y->dtype, y->rank, sh);
            if (y->seq)
                y->seq_len = sh[0];
        }
    }
}

/* SequenceMap: the body runs once per element of the first input sequence; a sequence input
 * gives it that element, a tensor input itself (copied in once); each body output becomes a
 * sequence of one element per run, all of one shape (checked when a size is decided by data
 * inside the body). */
void infer_seqmap(Compiler *c, Node *n) {
    require_regions(c, n);
    Region *b = n->sub[0];
    Value *s0 = node_in(n, 0);
    if (!s0 || !s0->seq)
        o2c_error(c, n, "input 0 must be a sequence");
    if (b->nin != n->nin || b->nout != n->nout)
        o2c_error(c, n, "the body takes %d inputs and gives %d outputs; it must take %d and give "
                  "%d", b->nin, b->nout, n->nin, n->nout);
    Ctl *x = ctl_of(c, n);
    x->trip = s0->seq_len;
    for (int k = 0; k < n->nin; k++) {
        Value *v = node_in(n, k);
        if (!v)
            o2c_error(c, n, "input %d is missing", k);
        if (!v->seq) {
            ir_same_kind(c, b->in[k], v);
            continue;
        }
        if (v->rank < 1)
            o2c_error(c, n, "the sequence '%s' is empty where its elements' shape is needed",
                      v->name);
        if (k)
            ir_constrain(c, n, CK_EQ, x->trip, v->seq_len,
                         "the sequences '%s' and '%s' must have the same length", s0->name, v->name);
        ir_set_shape(c, b->in[k], v->dtype, v->rank - 1, v->shape + 1);
    }
}

static void infer_end_seqmap(Compiler *c, Node *n, Node *p) {
    Region *b = p->sub[0];
    Ctl *x = ctl_of(c, p);
    x->end = n;
    for (int j = 0; j < n->nout; j++) {
        Value *e = b->out[j], *y = n->out[j];
        if (!y)
            continue;
        if (e->seq)
            o2c_error(c, p, "the body's output '%s' is a sequence: only tensors are supported",
                      e->name);
        Sym **sh = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(e->rank + 1));
        sh[0] = x->trip;
        for (int d = 0; d < e->rank; d++)
            sh[d + 1] = e->shape[d];
        ir_set_shape(c, y, e->dtype, e->rank + 1, sh);
        y->seq = true;
        y->seq_len = x->trip;
    }
}

static void infer_end(Compiler *c, Node *n) {
    Node *p = n->ctl;
    if (!strcmp(p->op_type, "If")) {
        infer_end_if(c, n, p);
        return;
    }
    if (!strcmp(p->op_type, "SequenceMap")) {
        infer_end_seqmap(c, n, p);
        return;
    }
    infer_end_loop(c, n, p, !strcmp(p->op_type, "Scan"));
}

/* ---- emit */

/* dst = src (src's element count), nothing when they share their bytes. */
static void emit_value_copy(Compiler *c, Emit *e, Value *dst, Value *src) {
    if (plan_same_buffer(src, dst) || dst->data || dst->kv) /* (a known dst is not stored) */
        return;
    emit_line(e, "memmove(%s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, dst), emit_ptr(e, src),
              emit_sym(e, ir_numel(c, src)), dtype_ctype(dst->dtype));
}

void emit_if(Compiler *c, Emit *e, Node *n) {
    (void)c;
    Ctl *x = n->priv;
    for (int j = 0; j < x->nifd; j++) { /* the If's data dims, as the branch taken gives them */
        x->ifd[j].var = emit_tmp(e, "ifd");
        emit_line(e, "int64_t %s = 0;", x->ifd[j].var);
    }
    emit_line(e, "if (%s[0]) {", emit_ptr(e, n->in[0]));
    emit_indent(e, 1);
}

void emit_else(Compiler *c, Emit *e, Node *n) {
    Ctl *x = n->ctl->priv;
    for (int k = 0; k < n->nout; k++)
        if (n->out[k])
            emit_value_copy(c, e, n->out[k], n->in[k]);
    for (int j = 0; j < x->nifd; j++)
        emit_line(e, "%s = %s;", x->ifd[j].var, emit_sym(e, x->ifd[j].then_dim));
    emit_indent(e, -1);
    emit_line(e, "} else {");
    emit_indent(e, 1);
}

/* The copies of a Loop's or Scan's carried values from the body's outputs to its formal
 * inputs, through the node's scratch when one output shares the bytes of another input (the
 * body passes them on swapped). */
static void emit_carry(Compiler *c, Emit *e, Node *n, Value *const *from, Value *const *to,
                       int count) {
    bool staged = false;
    for (int j = 0; j < count && !staged; j++)
        for (int k = 0; k < count && !staged; k++)
            staged = j != k && plan_same_buffer(from[j], to[k]);
    if (!staged) {
        for (int k = 0; k < count; k++)
            emit_value_copy(c, e, to[k], from[k]);
        return;
    }
    O2C_ASSERT(c, n->scratch_offset != NULL);
    for (int pass = 0; pass < 2; pass++) {
        Sym *at = sym_const(c->sym, 0);
        for (int k = 0; k < count; k++) {
            Sym *bytes = sym_mul(c->sym, ir_numel(c, from[k]),
                                 sym_const(c->sym, (int64_t)dtype_size(to[k]->dtype)));
            const char *tmp = arena_printf(c->arena, "(ws + %s + %s)", emit_sym(e, n->scratch_offset),
                                           emit_sym(e, at));
            if (pass == 0)
                emit_line(e, "memcpy(%s, %s, (size_t)%s);", tmp, emit_ptr(e, from[k]),
                          emit_sym(e, bytes));
            else
                emit_line(e, "memcpy(%s, %s, (size_t)%s);", emit_ptr(e, to[k]), tmp,
                          emit_sym(e, bytes));
            at = sym_add(c->sym, at, sym_mul(c->sym, sym_ceildiv(c->sym, bytes, sym_const(c->sym, 64)),
                                             sym_const(c->sym, 64)));
        }
    }
}

/* Scratch for emit_carry: the bytes of the body's carried outputs, when there are two or
 * more. */
static void carry_scratch(Compiler *c, Node *n, Value *const *to, int count) {
    if (count < 2)
        return;
    Sym *sum = sym_const(c->sym, 0);
    for (int k = 0; k < count; k++) {
        Sym *bytes = sym_mul(c->sym, ir_numel(c, to[k]), sym_const(c->sym, (int64_t)dtype_size(to[k]->dtype)));
        sum = sym_add(c->sym, sum, sym_mul(c->sym, sym_ceildiv(c->sym, bytes, sym_const(c->sym, 64)),
                                           sym_const(c->sym, 64)));
    }
    n->scratch = sum;
}

/* Copies slice t of the axis of v (rank r, shape sh) to or from a dense buffer. */
static void emit_axis_slice(Compiler *c, Emit *e, Value *whole, int axis, Value *part,
                            const char *t, bool gather) {
    Sym *outer = sym_const(c->sym, 1), *inner = sym_const(c->sym, 1);
    for (int d = 0; d < whole->rank; d++)
        if (d < axis)
            outer = sym_mul(c->sym, outer, whole->shape[d]);
        else if (d > axis)
            inner = sym_mul(c->sym, inner, whole->shape[d]);
    const char *len = emit_sym(e, whole->shape[axis]), *in = emit_sym(e, inner);
    const char *ct = dtype_ctype(whole->dtype);
    const char *wo = arena_printf(c->arena, "%s + (o * %s + %s) * %s", emit_ptr(e, whole), len, t, in);
    const char *po = arena_printf(c->arena, "%s + o * %s", emit_ptr(e, part), in);
    emit_line(e, "for (int64_t o = 0; o < %s; o++)", emit_sym(e, outer));
    emit_line(e, "    memcpy(%s, %s, (size_t)%s * sizeof(%s));", gather ? po : wo, gather ? wo : po,
              in, ct);
}

void emit_loop(Compiler *c, Emit *e, Node *n) {
    Ctl *x = n->priv;
    Region *b = n->sub[0];
    Value *m = node_in(n, 0), *cond = node_in(n, 1);
    x->it = emit_tmp(e, "it");
    x->cnd = emit_tmp(e, "cnd");
    emit_line(e, "int64_t %s = 0;", x->it);
    emit_line(e, "int %s = %s;", x->cnd, cond ? arena_printf(c->arena, "%s[0] != 0", emit_ptr(e, cond)) : "1");
    for (int k = 0; k < x->nstate; k++) {
        Value *v = n->in[2 + k];
        if (x->slen[k]) { /* a sequence: its length, then its elements (none when empty) */
            x->slen_var[k] = emit_tmp(e, "slen");
            emit_line(e, "int64_t %s = %s;", x->slen_var[k], emit_sym(e, v->seq_len));
            if (v->rank < 1)
                continue;
        }
        emit_value_copy(c, e, b->in[2 + k], v);
    }
    int nscan = b->nout - 1 - x->nstate;
    x->elems = arena_alloc(c->arena, sizeof(char *) * (size_t)(nscan + 1));
    for (int j = 0; j < nscan; j++)
        if (ir_has_data_dim(c, ir_numel(c, b->out[1 + x->nstate + j]))) {
            x->elems[j] = emit_tmp(e, "elems");
            emit_line(e, "int64_t %s = -1;", x->elems[j]);
        }
    emit_line(e, "for (;; %s++) {", x->it);
    emit_indent(e, 1);
    emit_line(e, "if (!%s%s)", x->cnd,
              m ? arena_printf(c->arena, " || %s >= %s[0]", x->it, emit_ptr(e, m)) : "");
    emit_line(e, "    break;");
    if (b->in[0]->nuses)
        emit_line(e, "%s[0] = %s;", emit_ptr(e, b->in[0]), x->it);
    if (b->in[1]->nuses)
        emit_line(e, "%s[0] = (%s)%s;", emit_ptr(e, b->in[1]), dtype_ctype(DT_BOOL), x->cnd);
    for (int k = 0; k < x->nstate; k++)
        if (x->slen[k])
            emit_set_data_dim(e, x->slen[k], x->slen_var[k]);
}

/* Scan before opset 9: the batch loop around the scan, each batch element's states and its
 * scan outputs (zeros past its sequence length). */
static void emit_scan_batch(Compiler *c, Emit *e, Node *n, Ctl *x, Region *b) {
    const char *T = emit_sym(e, x->trip);
    x->bt = emit_tmp(e, "bt");
    x->len = emit_tmp(e, "len");
    emit_line(e, "for (int64_t %s = 0; %s < %s; %s++) {", x->bt, x->bt, emit_sym(e, x->batch), x->bt);
    emit_indent(e, 1);
    Value *sl = node_in(n, 0);
    emit_line(e, "const int64_t %s = %s;", x->len,
              sl ? arena_printf(c->arena, "%s[%s]", emit_ptr(e, sl), x->bt) : T);
    if (sl) {
        emit_line(e, "if (%s < 0 || %s > %s)", x->len, x->len, T);
        emit_line(e, "    return %d; /* a sequence length outside [0, the scan axis] */", O2C_RUN_EDATA);
    }
    for (int k = 0; k < x->nstate; k++) {
        Value *st = b->in[k];
        const char *cnt = emit_sym(e, ir_numel(c, st));
        emit_line(e, "memcpy(%s, %s + %s * %s, (size_t)%s * sizeof(%s));", emit_ptr(e, st),
                  emit_ptr(e, n->in[1 + k]), x->bt, cnt, cnt, dtype_ctype(st->dtype));
    }
    for (int j = x->nstate; j < x->end->nout; j++) {
        Value *y = x->end->out[j];
        if (!y)
            continue;
        const char *cnt = emit_sym(e, sym_floordiv(c->sym, ir_numel(c, y), x->batch));
        emit_line(e, "memset(%s + %s * %s, 0, (size_t)%s * sizeof(%s));", emit_ptr(e, y), x->bt,
                  cnt, cnt, dtype_ctype(y->dtype));
    }
    emit_line(e, "for (int64_t %s = 0; %s < %s; %s++) {", x->it, x->it, x->len, x->it);
    emit_indent(e, 1);
    for (int j = 0; j < x->nscan_in; j++) {
        Value *part = b->in[x->nstate + j];
        if (!part->nuses)
            continue;
        const char *cnt = emit_sym(e, ir_numel(c, part));
        emit_line(e, "memcpy(%s, %s + (%s * %s + %s) * %s, (size_t)%s * sizeof(%s));",
                  emit_ptr(e, part), emit_ptr(e, n->in[1 + x->nstate + j]), x->bt, T,
                  x->in_rev[j] ? arena_printf(c->arena, "(%s - 1 - %s)", x->len, x->it) : x->it,
                  cnt, cnt, dtype_ctype(part->dtype));
    }
}

void emit_seqmap(Compiler *c, Emit *e, Node *n) {
    Ctl *x = n->priv;
    Region *b = n->sub[0];
    x->it = emit_tmp(e, "it");
    x->elems = arena_alloc(c->arena, sizeof(char *) * (size_t)(b->nout + 1));
    for (int j = 0; j < b->nout; j++)
        if (ir_has_data_dim(c, ir_numel(c, b->out[j]))) {
            x->elems[j] = emit_tmp(e, "elems");
            emit_line(e, "int64_t %s = -1;", x->elems[j]);
        }
    for (int k = 0; k < n->nin; k++) /* tensor inputs: once */
        if (!n->in[k]->seq && b->in[k]->nuses)
            emit_value_copy(c, e, b->in[k], n->in[k]);
    emit_line(e, "for (int64_t %s = 0; %s < %s; %s++) {", x->it, x->it, emit_sym(e, x->trip), x->it);
    emit_indent(e, 1);
    for (int k = 0; k < n->nin; k++) {
        Value *part = b->in[k];
        if (!n->in[k]->seq || !part->nuses)
            continue;
        const char *cnt = emit_sym(e, ir_numel(c, part));
        emit_line(e, "memcpy(%s, %s + %s * %s, (size_t)%s * sizeof(%s));", emit_ptr(e, part),
                  emit_ptr(e, n->in[k]), x->it, cnt, cnt, dtype_ctype(part->dtype));
    }
}

void emit_scan(Compiler *c, Emit *e, Node *n) {
    Ctl *x = n->priv;
    Region *b = n->sub[0];
    x->it = emit_tmp(e, "it");
    if (x->v8) {
        emit_scan_batch(c, e, n, x, b);
        return;
    }
    for (int k = 0; k < x->nstate; k++)
        emit_value_copy(c, e, b->in[k], n->in[k]);
    const char *T = emit_sym(e, x->trip);
    emit_line(e, "for (int64_t %s = 0; %s < %s; %s++) {", x->it, x->it, T, x->it);
    emit_indent(e, 1);
    for (int j = 0; j < x->nscan_in; j++) {
        Value *part = b->in[x->nstate + j];
        if (!part->nuses)
            continue;
        const char *t = x->in_rev[j] ? arena_printf(c->arena, "(%s - 1 - %s)", T, x->it) : x->it;
        emit_axis_slice(c, e, n->in[x->nstate + j], (int)x->in_axis[j], part, t, true);
    }
}

void emit_end(Compiler *c, Emit *e, Node *n) {
    Node *p = n->ctl;
    Ctl *x = p->priv;
    if (!strcmp(p->op_type, "If")) {
        for (int k = 0; k < n->nin; k++)
            if (x->mid->out[k])
                emit_value_copy(c, e, x->mid->out[k], n->in[k]);
        for (int j = 0; j < x->nifd; j++)
            emit_line(e, "%s = %s;", x->ifd[j].var, emit_sym(e, x->ifd[j].else_dim));
        emit_indent(e, -1);
        emit_line(e, "}");
        for (int j = 0; j < x->nifd; j++)
            emit_set_data_dim(e, x->ifd[j].dim, x->ifd[j].var);
        return;
    }
    Region *b = p->sub[0];
    if (!strcmp(p->op_type, "SequenceMap")) { /* each output's element of this run */
        for (int j = 0; j < n->nout; j++) {
            Value *el = b->out[j], *y = n->out[j];
            if (!y)
                continue;
            Sym *en = ir_numel(c, el);
            const char *cnt = emit_sym(e, en);
            if (x->elems && x->elems[j]) {
                emit_line(e, "if (%s >= 0 && %s != %s)", x->elems[j], x->elems[j], cnt);
                emit_line(e, "    return %d; /* the elements of an output differ in size */",
                          O2C_RUN_EDATA);
                emit_line(e, "%s = %s;", x->elems[j], cnt);
            }
            emit_line(e, "memcpy(%s + %s * %s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, y),
                      x->it, cnt, emit_ptr(e, el), cnt, dtype_ctype(el->dtype));
        }
        emit_indent(e, -1);
        emit_line(e, "}");
        return;
    }
    bool scan = !strcmp(p->op_type, "Scan");
    int first = scan ? 0 : 1, fin = scan ? 0 : 2;
    if (!scan)
        emit_line(e, "%s = %s[0] != 0;", x->cnd, emit_ptr(e, b->out[0]));
    int nscan = b->nout - first - x->nstate;
    for (int j = 0; j < nscan && x->nstate + j < n->nout; j++) {
        Value *el = b->out[first + x->nstate + j], *y = n->out[x->nstate + j];
        if (!y)
            continue;
        if (scan && x->v8) {
            const char *cnt = emit_sym(e, ir_numel(c, el));
            emit_line(e, "memcpy(%s + (%s * %s + %s) * %s, %s, (size_t)%s * sizeof(%s));",
                      emit_ptr(e, y), x->bt, emit_sym(e, x->trip), x->it, cnt, emit_ptr(e, el),
                      cnt, dtype_ctype(el->dtype));
            continue;
        }
        if (scan) {
            const char *T = emit_sym(e, x->trip);
            const char *t = x->out_rev[j] ? arena_printf(c->arena, "(%s - 1 - %s)", T, x->it) : x->it;
            emit_axis_slice(c, e, y, (int)x->out_axis[j], el, t, false);
            continue;
        }
        if (x->trip_data && j == 0) {
            Sym *bound = ir_data_bounded(c, x->trip);
            emit_line(e, "if (%s >= %s)", x->it, emit_sym(e, bound));
            emit_line(e, "    return %d; /* more iterations than the scan outputs' bound */",
                      O2C_RUN_EBOUND);
        }
        Sym *en = ir_numel(c, el);
        if (x->elems[j]) { /* the scan output's elements must keep the first iteration's size */
            const char *v = x->elems[j], *cur = emit_sym(e, en);
            emit_line(e, "if (%s >= 0 && %s != %s)", v, v, cur);
            emit_line(e, "    return %d; /* a scan output's size changes between iterations */",
                      O2C_RUN_EDATA);
            emit_line(e, "%s = %s;", v, cur);
        }
        emit_line(e, "memcpy(%s + %s * %s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, y), x->it,
                  emit_sym(e, en), emit_ptr(e, el), emit_sym(e, en), dtype_ctype(el->dtype));
    }
    for (int k = 0; !scan && k < x->nstate; k++)
        if (x->slen[k]) { /* the grown sequence must fit its buffer before it is copied there */
            emit_line(e, "if (%s > %s)", emit_sym(e, b->out[first + k]->seq_len),
                      emit_sym(e, c->g->dims[x->slen[k]->dim].bound));
            emit_line(e, "    return %d; /* a carried sequence longer than its bound */",
                      O2C_RUN_EBOUND);
        }
    emit_carry(c, e, n, b->out + first, b->in + fin, x->nstate);
    for (int k = 0; !scan && k < x->nstate; k++)
        if (x->slen[k])
            emit_line(e, "%s = %s;", x->slen_var[k], emit_sym(e, b->out[first + k]->seq_len));
    emit_indent(e, -1);
    emit_line(e, "}");
    if (x->v8) { /* each batch element's final states, then the batch loop's end */
        for (int k = 0; k < x->nstate && k < n->nout; k++) {
            if (!n->out[k])
                continue;
            const char *cnt = emit_sym(e, ir_numel(c, b->in[k]));
            emit_line(e, "memcpy(%s + %s * %s, %s, (size_t)%s * sizeof(%s));", emit_ptr(e, n->out[k]),
                      x->bt, cnt, emit_ptr(e, b->in[k]), cnt, dtype_ctype(b->in[k]->dtype));
        }
        emit_indent(e, -1);
        emit_line(e, "}");
        return;
    }
    for (int k = 0; k < x->nstate && k < n->nout; k++) {
        if (!n->out[k])
            continue;
        if (scan || !x->slen[k]) {
            emit_value_copy(c, e, n->out[k], b->in[fin + k]);
            continue;
        }
        /* a sequence: its length after the last iteration (the data dim of the body keeps
         * that of the last iteration's start) */
        Value *st = b->in[fin + k];
        Sym *el = sym_const(c->sym, 1);
        for (int d = 1; d < st->rank; d++)
            el = sym_mul(c->sym, el, st->shape[d]);
        emit_line(e, "memmove(%s, %s, (size_t)(%s * %s) * sizeof(%s));", emit_ptr(e, n->out[k]),
                  emit_ptr(e, st), x->slen_var[k], emit_sym(e, el), dtype_ctype(st->dtype));
        emit_set_data_dim(e, x->sfinal[k], x->slen_var[k]);
    }
    if (x->trip_data)
        emit_set_data_dim(e, x->trip, x->it);
}
