/* test_plan.c — the memory plan (compiler/plan.c) and the rewrites made for it (lower.c).
 *
 * Small graphs written with modelgen whose best plan is known by hand: in-place elementwise
 * chains, Reshape-family aliases, a residual block; random graphs of elementwise ops, concats,
 * slices and aliases, with constant and with symbolic sizes, whose plan is checked from the
 * compiled graph (Options.inspect: no two values live at once share a byte unless one runs in
 * place of or aliases the other, everything fits in the workspace) and whose generated code is
 * run against a reference computed here; the --memory-first scratch budget; Pad and
 * BatchNormalization folds; --report. */
#include "modelgen.h"
#include "onnx2c.h" /* white-box: looks inside the compiler */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- compiling with options, inspecting the plan */

typedef void (*InspectFn)(Compiler *c, void *user);

/* tu_open_opts with --memory-first or not, an inspect hook and --report into a FILE. */
static void open_opts(TuModel *m, const char *path, bool memory_first, InspectFn insp, void *user,
                      FILE *report, const char *cc) {
    Options opt = {0};
    opt.memory_first = memory_first;
    opt.inspect = insp;
    opt.inspect_user = user;
    opt.report = report != NULL;
    opt.report_out = report;
    tu_open_opts(m, path, &opt, cc);
}

static bool is_alias_op(const Node *n) {
    static const char *const ops[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                                      "Dropout"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(n->op_type, ops[i]))
            return true;
    return false;
}

static int64_t ev(const Sym *e, const int64_t *dims) {
    int64_t v = 0;
    cr_assert(sym_eval(e, dims, &v), "a Sym of the plan does not evaluate");
    return v;
}

typedef struct ByteSpan {
    int64_t off, bytes, real; /* real: the value's own bytes (bytes: rounded up to 64) */
    int from, to; /* live at nodes from..to */
    const Value *v; /* NULL: a node's scratch */
    int node;
} ByteSpan;

/* ByteSpan in lies inside region out as a block of a Concat's output (compiler/plan.c's
 * concat_inside): out is that output, or at all its bytes (an alias, or an op in place over
 * it), and in is one of the Concat's inputs placed there (Value.within), or at its bytes. */
static bool concat_block(Compiler *c, const ByteSpan *in, const ByteSpan *out, const int64_t *dims) {
    const Graph *g = c->g;
    if (!in->v || !out->v || in->v->buf != out->v->buf || in->off < out->off ||
        in->off + in->real > out->off + out->real)
        return false;
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = g->nodes[i];
        const Value *o = n->nout == 1 ? n->out[0] : NULL;
        if (n->dead || strcmp(n->op_type, "Concat") || !o || o->buf != out->v->buf)
            continue;
        for (int k = 0; k < n->nin; k++) {
            const Value *x = n->in[k];
            if (x && x->within == o && x->buf == in->v->buf && x->offset == in->v->offset &&
                o->offset == out->v->offset &&
                ev(ir_numel(c, o), dims) * (int64_t)dtype_size(o->dtype) == out->real)
                return true;
        }
    }
    return false;
}

/* The plan at dims (NULL when every size is constant) is sound: every region is 64-byte
 * aligned inside the workspace; two regions live at the same node share no byte, except a
 * value and one that aliases it or runs in place over it (same buffer, same offset), and a
 * value that runs in place (not an alias) only over values that die at its node, and a
 * Concat's input placed inside its output (concat_block), which an op in place over the output
 * overwrites only once the input is dead.  Returns the workspace; *tensors gets the largest
 * sum of live workspace buffers at one node (a buffer: the bytes of all the values in it),
 * *peak the same with each node's scratch (the lower bound of any placement of those
 * buffers). */
static int64_t check_plan_at(Compiler *c, const int64_t *dims, int64_t *tensors, int64_t *peak) {
    Graph *g = c->g;
    int64_t ws = ev(g->workspace, dims);
    ByteSpan *r = calloc((size_t)(g->nvalues + g->nnodes + 1), sizeof *r);
    cr_assert_not_null(r);
    int nr = 0;
    for (int i = 0; i < g->nvalues; i++) {
        const Value *v = g->values[i];
        if (!v->buf)
            continue;
        cr_assert(v->offset && v->bytes && v->first_def >= 0);
        r[nr++] = (ByteSpan){ev(v->offset, dims), ev(v->bytes, dims),
                           ev(ir_numel(c, v), dims) * (int64_t)dtype_size(v->dtype), v->first_def,
                           v->last_use > v->first_def ? v->last_use : v->first_def, v, -1};
    }
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = g->nodes[i];
        if (!n->dead && n->scratch)
            r[nr++] = (ByteSpan){ev(n->scratch_offset, dims), ev(n->scratch, dims),
                               ev(n->scratch, dims), i, i, NULL, i};
    }
    for (int a = 0; a < nr; a++) {
        cr_assert(r[a].off >= 0 && r[a].off % 64 == 0 && r[a].bytes >= 0 &&
                  r[a].off + r[a].bytes <= ws, "region %d [%lld, +%lld) outside the workspace %lld",
                  a, (long long)r[a].off, (long long)r[a].bytes, (long long)ws);
        for (int b = 0; b < a; b++) {
            if (r[a].to < r[b].from || r[b].to < r[a].from || !r[a].real || !r[b].real ||
                r[a].off + r[a].real <= r[b].off || r[b].off + r[b].real <= r[a].off)
                continue;
            const Value *x = r[a].v, *y = r[b].v;
            const bool ab = concat_block(c, &r[a], &r[b], dims),
                       ba = !ab && concat_block(c, &r[b], &r[a], dims);
            /* a block as large as the output (the other inputs empty) is at the same bytes:
             * the rules below */
            if ((ab || ba) && (r[a].off != r[b].off || r[a].real != r[b].real)) {
                const ByteSpan *in = ab ? &r[a] : &r[b], *out = ab ? &r[b] : &r[a];
                /* an op in place over the Concat's output (not the output, not an alias of
                 * it) comes after every read of the blocks inside */
                const Node *p = out->v->producer;
                if (strcmp(p->op_type, "Concat") && !is_alias_op(p))
                    cr_assert(in->v->last_use <= out->v->first_def,
                              "'%s' runs in place over '%s', whose block '%s' is read later",
                              out->v->name, p->in[0] ? p->in[0]->name : "?", in->v->name);
                continue;
            }
            cr_assert(x && y && x->buf == y->buf && r[a].off == r[b].off,
                      "'%s' and '%s' are live at once and overlap", x ? x->name : "(scratch)",
                      y ? y->name : "(scratch)");
            /* the later one aliases or runs in place: its node reads the buffer */
            const Value *late = x->first_def > y->first_def ? x : y;
            const Value *early = late == x ? y : x;
            const Node *p = late->producer;
            bool reads = false;
            for (int k = 0; k < p->nin; k++)
                reads |= p->in[k] && p->in[k]->buf == late->buf;
            cr_assert(reads, "'%s' shares the bytes of '%s' without reading them", late->name,
                      early->name);
            /* a Concat's output over its one (non-empty) block: an alias of it */
            if (!is_alias_op(p) && !(!strcmp(p->op_type, "Concat") && (ab || ba)))
                cr_assert(early->last_use <= late->first_def, "'%s' runs in place over '%s', "
                          "which is read later", late->name, early->name);
        }
    }
    /* each buffer's bytes: from its lowest offset to the highest end of a value in it */
    int64_t *blo = calloc((size_t)(g->nvalues + 2), sizeof *blo);
    int64_t *bhi = calloc((size_t)(g->nvalues + 2), sizeof *bhi);
    cr_assert(blo && bhi);
    for (int a = 0; a < nr; a++) {
        if (!r[a].v)
            continue;
        const int b = r[a].v->buf;
        cr_assert(b > 0 && b <= g->nvalues + 1);
        if (!bhi[b] || r[a].off < blo[b])
            blo[b] = r[a].off;
        if (r[a].off + r[a].bytes > bhi[b])
            bhi[b] = r[a].off + r[a].bytes;
    }
    int64_t top = 0, top_all = 0;
    for (int t = 0; t < g->nnodes; t++) {
        int64_t sum = 0, scratch = 0;
        int counted_buf[4096];
        int nc = 0;
        for (int a = 0; a < nr; a++) {
            if (!r[a].v && r[a].node == t)
                scratch = (r[a].bytes + 63) / 64 * 64;
            if (!r[a].v || r[a].from > t || r[a].to < t)
                continue;
            bool seen = false;
            for (int k = 0; k < nc; k++)
                seen |= counted_buf[k] == r[a].v->buf;
            if (!seen && nc < 4096) {
                counted_buf[nc++] = r[a].v->buf;
                sum += bhi[r[a].v->buf] - blo[r[a].v->buf];
            }
        }
        top = sum > top ? sum : top;
        top_all = sum + scratch > top_all ? sum + scratch : top_all;
    }
    *tensors = top;
    *peak = top_all;
    free(blo);
    free(bhi);
    free(r);
    return ws;
}

/* ---- the plan's outcome on one graph, from the inspect hook */

typedef struct Seen {
    const int64_t (*dims)[4]; /* symbolic: dims vectors to check the plan at */
    int ndims_vec;
    int64_t ws, tensors, peak; /* at constant sizes */
    int64_t budget[64];       /* plan_scratch_budget per node */
    int ndead;
    char dead[8][32];         /* op types of dead nodes */
} Seen;

/* The graph's constraints hold at dims (what NAME_check requires besides sizes that fit). */
static bool constraints_hold(Compiler *c, const int64_t *dims) {
    Graph *g = c->g;
    for (int k = 0; k < g->nconstraints; k++) {
        const Constraint *q = &g->constraints[k];
        int64_t a, b;
        if (!sym_eval(q->a, dims, &a) || !sym_eval(q->b, dims, &b))
            return false;
        if (q->kind == CK_EQ ? a != b : q->kind == CK_LE ? a > b : (a == 0 || b % a != 0))
            return false;
    }
    return true;
}

static void inspect_plan(Compiler *c, void *user) {
    Seen *s = user;
    if (!s->dims)
        s->ws = check_plan_at(c, NULL, &s->tensors, &s->peak);
    for (int k = 0; k < s->ndims_vec; k++) {
        int64_t t, p;
        if (constraints_hold(c, s->dims[k]))
            check_plan_at(c, s->dims[k], &t, &p);
    }
    for (int i = 0; i < c->g->nnodes && i < 64; i++) {
        Node *n = c->g->nodes[i];
        s->budget[i] = plan_scratch_budget(c, n);
        if (n->dead && s->ndead < 8)
            snprintf(s->dead[s->ndead++], sizeof s->dead[0], "%s", n->op_type);
    }
}

static bool seen_dead(const Seen *s, const char *op) {
    for (int i = 0; i < s->ndead; i++)
        if (!strcmp(s->dead[i], op))
            return true;
    return false;
}

static void model_path(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "/tmp/onnx2c-plan-%d-%s.onnx", (int)getpid(), name);
}

static size_t count(const char *hay, const char *needle) {
    size_t k = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        k++;
    return k;
}

/* ---- in place and aliases */

/* x[1,1000] -> Mul w -> Relu -> Sigmoid -> Add w -> LeakyRelu -> Clip -> y: one buffer of
 * 4032 bytes (4000 rounded up to 64), every temporary in it. */
Test(plan, elementwise_chain_in_place) {
    char path[128];
    model_path(path, sizeof path, "chain");
    enum { K = 1000 };
    MgGraph *g = mg_new(13);
    MgDim d[2] = {{NULL, 1}, {NULL, K}};
    mg_input(g, "x", MG_FLOAT, 2, d);
    float *w = tu_random_floats(K, 3);
    mg_init(g, "w", MG_FLOAT, 2, (const int64_t[]){1, K}, w);
    mg_init(g, "lo", MG_FLOAT, 0, NULL, (const float[]){-0.25f});
    mg_init(g, "hi", MG_FLOAT, 0, NULL, (const float[]){0.75f});
    mg_node(g, "Mul", "mul", 2, (const char *[]){"x", "w"}, 1, (const char *[]){"t1"});
    mg_node(g, "Relu", "relu", 1, (const char *[]){"t1"}, 1, (const char *[]){"t2"});
    mg_node(g, "Sigmoid", "sig", 1, (const char *[]){"t2"}, 1, (const char *[]){"t3"});
    mg_node(g, "Add", "add", 2, (const char *[]){"w", "t3"}, 1, (const char *[]){"t4"});
    MgNode *lr = mg_node(g, "LeakyRelu", "lrelu", 1, (const char *[]){"t4"}, 1, (const char *[]){"t5"});
    mg_attr_float(lr, "alpha", 0.5f);
    mg_node(g, "Clip", "clip", 3, (const char *[]){"t5", "lo", "hi"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, 2, d);
    mg_write(g, path);
    for (int mf = 0; mf < 2; mf++) {
        Seen s = {0};
        TuModel m;
        open_opts(&m, path, mf, inspect_plan, &s, NULL, NULL);
        cr_assert_eq(s.ws, 4032, "workspace %lld", (long long)s.ws);
        cr_assert_eq(m.wsize(NULL), 4032);
        float *x = tu_random_floats(K, 4), y[K], want[K];
        for (int i = 0; i < K; i++) {
            float t = x[i] * w[i];
            t = t > 0 ? t : 0;
            t = 1.0f / (1.0f + expf(-t));
            t = w[i] + t;
            t = t < 0 ? 0.5f * t : t;
            want[i] = t < -0.25f ? -0.25f : t > 0.75f ? 0.75f : t;
        }
        cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
        tu_expect_close(y, want, K);
        free(x);
        tu_close(&m);
    }
    free(w);
    unlink(path);
}

/* Concat inputs placed inside the output.  x[1,16,H,W] -> Relu -> a, Neg -> b, Sigmoid -> c
 * (a graph output); Concat(a, b, x) -> t -> Exp -> y; Abs(a) -> z (a read after the Concat).
 * a and b get the output's bytes (Value.within), x (a graph input) and c (an output) do not
 * count; the Exp runs in place over t only once a is read.  At 16 x 4 x 4: the workspace is
 * t alone (3 x 1024 bytes) where it was t plus a and b; the generated code copies only x. */
static void inspect_concat(Compiler *c, void *user) {
    int *within = user;
    inspect_plan(c, (Seen *)(void *)(within + 4));
    for (int i = 0; i < c->g->nvalues; i++) {
        const Value *v = c->g->values[i];
        if (v->within && !strcmp(v->within->name, "t"))
            within[!strcmp(v->name, "a") ? 0 : !strcmp(v->name, "b") ? 1 : 2]++;
    }
}

Test(plan, concat_inputs_inside_output) {
    char path[128];
    model_path(path, sizeof path, "concat");
    MgGraph *g = mg_new(13);
    MgDim d[4] = {{NULL, 1}, {NULL, 16}, {"H", 4}, {"W", 4}};
    mg_input(g, "x", MG_FLOAT, 4, d);
    mg_node(g, "Relu", "relu", 1, (const char *[]){"x"}, 1, (const char *[]){"a"});
    mg_node(g, "Neg", "neg", 1, (const char *[]){"x"}, 1, (const char *[]){"b"});
    MgNode *cn = mg_node(g, "Concat", "cat", 3, (const char *[]){"a", "b", "x"}, 1,
                         (const char *[]){"t"});
    mg_attr_int(cn, "axis", 1);
    mg_node(g, "Exp", "exp", 1, (const char *[]){"t"}, 1, (const char *[]){"y"});
    mg_node(g, "Abs", "abs", 1, (const char *[]){"a"}, 1, (const char *[]){"z"});
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_output(g, "z", MG_FLOAT, -1, NULL);
    mg_write(g, path);
    static const int64_t dimv[3][4] = {{4, 4}, {1, 3}, {5, 2}};
    for (int mf = 0; mf < 2; mf++) {
        struct {
            int within[4];
            Seen s;
        } u = {{0}, {.dims = dimv, .ndims_vec = 3}};
        TuModel m;
        open_opts(&m, path, mf, inspect_concat, &u, NULL, NULL);
        cr_assert(u.within[0] == 1 && u.within[1] == 1 && u.within[2] == 0,
                  "inside t: a %d, b %d, others %d", u.within[0], u.within[1], u.within[2]);
        cr_assert_eq(m.wsize(dimv[0]), 3 * 16 * 16 * 4, "workspace %lld at 4 x 4",
                     (long long)m.wsize(dimv[0]));
        cr_assert_eq(count(m.o.c_src, "memcpy("), 1, "the Concat copies x only");
        for (int k = 0; k < 3; k++) {
            const int64_t n = 16 * dimv[k][0] * dimv[k][1];
            float *x = tu_random_floats(n, 7 + (unsigned)k), *y = malloc(sizeof(float) * 3 * n),
                  *z = malloc(sizeof(float) * n), *wy = malloc(sizeof(float) * 3 * n),
                  *wz = malloc(sizeof(float) * n);
            cr_assert(y && z && wy && wz);
            for (int64_t i = 0; i < n; i++) {
                const float a = x[i] > 0 ? x[i] : 0;
                wy[i] = expf(a);
                wy[n + i] = expf(-x[i]);
                wy[2 * n + i] = expf(x[i]);
                wz[i] = a;
            }
            cr_assert_eq(tu_run(&m, dimv[k], (const void *[]){x}, (void *[]){y, z}), 0);
            tu_expect_close(y, wy, 3 * n);
            tu_expect_close(z, wz, n);
            free(x), free(y), free(z), free(wy), free(wz);
        }
        tu_close(&m);
    }
    unlink(path);
}

/* Sum of three runs y = in0 + in1, then y += in2: in place over input 0 or 1 only.  Here only
 * input 2 (t) dies at the Sum; s = Sum(x, x, t) must get bytes of its own, and Mean(u, u2, u)
 * none over u (read again by the later passes). */
Test(plan, variadic_in_place_inputs) {
    char path[128];
    model_path(path, sizeof path, "variadic");
    MgGraph *g = mg_new(13);
    MgDim d[2] = {{NULL, 1}, {NULL, 16}};
    mg_input(g, "x", MG_FLOAT, 2, d);
    mg_node(g, "Neg", "neg", 1, (const char *[]){"x"}, 1, (const char *[]){"t"});
    mg_node(g, "Sum", "sum", 3, (const char *[]){"x", "x", "t"}, 1, (const char *[]){"s"});
    mg_node(g, "Relu", "relu", 1, (const char *[]){"s"}, 1, (const char *[]){"u"});
    mg_node(g, "Abs", "abs", 1, (const char *[]){"x"}, 1, (const char *[]){"u2"});
    mg_node(g, "Mean", "mean", 3, (const char *[]){"u", "u2", "u"}, 1, (const char *[]){"m"});
    mg_node(g, "Sigmoid", "sig", 1, (const char *[]){"m"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, 2, d);
    mg_write(g, path);
    Seen s = {0};
    TuModel m;
    open_opts(&m, path, true, inspect_plan, &s, NULL, NULL);
    float x[16], y[16];
    for (int i = 0; i < 16; i++)
        x[i] = (float)i - 7.5f;
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
    for (int i = 0; i < 16; i++) {
        float u = x[i] > 0 ? x[i] : 0; /* x + x - x */
        float mean = (u + fabsf(x[i]) + u) / 3;
        cr_assert_float_eq(y[i], 1.0f / (1.0f + expf(-mean)), 1e-6, "y[%d]", i);
    }
    tu_close(&m);
    unlink(path);
}

/* t1 = x * 2 -> Reshape [4,6] -> Flatten -> Squeeze/Unsqueeze -> Identity -> Relu (in place) ->
 * Add with itself (in place) -> y: one buffer, no copy. */
Test(plan, reshape_family_alias) {
    char path[128];
    model_path(path, sizeof path, "alias");
    MgGraph *g = mg_new(13);
    MgDim d[3] = {{NULL, 2}, {NULL, 3}, {NULL, 4}};
    mg_input(g, "x", MG_FLOAT, 3, d);
    mg_init(g, "two", MG_FLOAT, 0, NULL, (const float[]){2.0f});
    mg_init(g, "shape", MG_INT64, 1, (const int64_t[]){2}, (const int64_t[]){4, 6});
    mg_init(g, "ax", MG_INT64, 1, (const int64_t[]){1}, (const int64_t[]){0});
    mg_node(g, "Mul", "mul", 2, (const char *[]){"x", "two"}, 1, (const char *[]){"t1"});
    mg_node(g, "Reshape", "reshape", 2, (const char *[]){"t1", "shape"}, 1, (const char *[]){"t2"});
    MgNode *f = mg_node(g, "Flatten", "flatten", 1, (const char *[]){"t2"}, 1, (const char *[]){"t3"});
    mg_attr_int(f, "axis", 0);
    mg_node(g, "Squeeze", "squeeze", 2, (const char *[]){"t3", "ax"}, 1, (const char *[]){"t4"});
    mg_node(g, "Unsqueeze", "unsqueeze", 2, (const char *[]){"t4", "ax"}, 1, (const char *[]){"t5"});
    mg_node(g, "Identity", "identity", 1, (const char *[]){"t5"}, 1, (const char *[]){"t6"});
    mg_node(g, "Relu", "relu", 1, (const char *[]){"t6"}, 1, (const char *[]){"t7"});
    mg_node(g, "Add", "add", 2, (const char *[]){"t7", "t7"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_write(g, path);
    Seen s = {0};
    TuModel m;
    open_opts(&m, path, true, inspect_plan, &s, NULL, NULL);
    cr_assert_eq(s.ws, 128, "workspace %lld", (long long)s.ws);
    cr_assert_eq(count(m.o.c_src, "nothing to copy"), 5, "%s", m.o.c_src);
    cr_assert_eq(count(m.o.c_src, "memcpy("), 0, "%s", m.o.c_src);
    float x[24], y[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i - 11.5f;
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
    for (int i = 0; i < 24; i++)
        cr_assert_float_eq(y[i], x[i] > 0 ? 4 * x[i] : 0.0f, 1e-6, "y[%d]", i);
    tu_close(&m);
    unlink(path);
}

/* An alias whose input is read again later: the op after the alias must not run in place
 * (t1 and t2 are one buffer, and t1 is read by the Add). */
Test(plan, no_in_place_over_a_live_alias) {
    char path[128];
    model_path(path, sizeof path, "livealias");
    MgGraph *g = mg_new(13);
    MgDim d[2] = {{NULL, 1}, {NULL, 64}};
    mg_input(g, "x", MG_FLOAT, 2, d);
    mg_init(g, "two", MG_FLOAT, 0, NULL, (const float[]){2.0f});
    mg_node(g, "Mul", "mul", 2, (const char *[]){"x", "two"}, 1, (const char *[]){"t1"});
    mg_node(g, "Identity", "id", 1, (const char *[]){"t1"}, 1, (const char *[]){"t2"});
    mg_node(g, "Neg", "neg", 1, (const char *[]){"t2"}, 1, (const char *[]){"t3"});
    mg_node(g, "Add", "add", 2, (const char *[]){"t3", "t1"}, 1, (const char *[]){"t4"});
    mg_node(g, "Add", "add2", 2, (const char *[]){"t4", "t2"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, 2, d);
    mg_write(g, path);
    Seen s = {0};
    TuModel m;
    open_opts(&m, path, true, inspect_plan, &s, NULL, NULL);
    cr_assert_eq(s.ws, 512, "workspace %lld", (long long)s.ws); /* t1=t2, t3=t4 */
    float x[64], y[64];
    for (int i = 0; i < 64; i++)
        x[i] = (float)i - 20.0f;
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
    for (int i = 0; i < 64; i++) /* -2x + 2x + 2x */
        cr_assert_float_eq(y[i], 2 * x[i], 1e-5, "y[%d]", i);
    tu_close(&m);
    unlink(path);
}

/* ---- a residual block of convolutions */

static void conv_node(MgGraph *g, const char *name, const char *x, const char *w, const char *b,
                      const char *y) {
    MgNode *n = mg_node(g, "Conv", name, 3, (const char *[]){x, w, b}, 1, (const char *[]){y});
    mg_attr_ints(n, "kernel_shape", 2, (const int64_t[]){3, 3});
    mg_attr_ints(n, "pads", 4, (const int64_t[]){1, 1, 1, 1});
}

/* x[1,8,16,16] -> conv0+relu -> a0; conv1+relu -> a1; conv2 + a0 -> relu -> s; conv3 -> y.
 * Live: conv1: a0, a1; conv2: a0, a1, s (the residual Add is fused into conv2, or runs in
 * place) = 3 x 8192 = 24576 bytes of tensors, the liveness bound.  Also with the Add and the
 * Relu as nodes of their own (after a Mul the lowering does not fuse). */
Test(plan, residual_block) {
    char path[128];
    model_path(path, sizeof path, "resblock");
    enum { C = 8, H = 16, WN = C * C * 9 };
    for (int unfused = 0; unfused < 2; unfused++) {
        MgGraph *g = mg_new(13);
        MgDim d[4] = {{NULL, 1}, {NULL, C}, {NULL, H}, {NULL, H}};
        mg_input(g, "x", MG_FLOAT, 4, d);
        const char *wn[4] = {"w0", "w1", "w2", "w3"}, *bn[4] = {"b0", "b1", "b2", "b3"};
        for (int k = 0; k < 4; k++) {
            float *w = tu_random_floats(WN, 10 + (unsigned)k), *b = tu_random_floats(C, 20 + (unsigned)k);
            for (int i = 0; i < WN; i++)
                w[i] *= 0.01f;
            mg_init(g, wn[k], MG_FLOAT, 4, (const int64_t[]){C, C, 3, 3}, w);
            mg_init(g, bn[k], MG_FLOAT, 1, (const int64_t[]){C}, b);
            free(w);
            free(b);
        }
        mg_init(g, "one", MG_FLOAT, 0, NULL, (const float[]){1.0f});
        conv_node(g, "conv0", "x", "w0", "b0", "c0");
        mg_node(g, "Relu", "relu0", 1, (const char *[]){"c0"}, 1, (const char *[]){"a0"});
        conv_node(g, "conv1", "a0", "w1", "b1", "c1");
        mg_node(g, "Relu", "relu1", 1, (const char *[]){"c1"}, 1, (const char *[]){"a1"});
        conv_node(g, "conv2", "a1", "w2", "b2", "c2");
        const char *sum_in = "c2";
        if (unfused) {
            mg_node(g, "Mul", "mul", 2, (const char *[]){"c2", "one"}, 1, (const char *[]){"m2"});
            sum_in = "m2";
        }
        mg_node(g, "Add", "add", 2, (const char *[]){sum_in, "a0"}, 1, (const char *[]){"s0"});
        mg_node(g, "Relu", "relu2", 1, (const char *[]){"s0"}, 1, (const char *[]){"s"});
        conv_node(g, "conv3", "s", "w3", "b3", "y");
        mg_output(g, "y", MG_FLOAT, 4, d);
        mg_write(g, path);
        for (int mf = 0; mf < 2; mf++) {
            Seen s = {0};
            TuModel m;
            open_opts(&m, path, mf, inspect_plan, &s, NULL, NULL);
            cr_assert_eq(s.tensors, 3 * 8192, "unfused %d: tensors live at once %lld", unfused,
                         (long long)s.tensors);
            tu_close(&m);
        }
    }
    unlink(path);
}

/* ---- random graphs: the plan is sound and the code computes the graph */

enum { RG_MAXV = 80, RG_MAXN = 4096 };

typedef struct RandGraph {
    int nv;
    int64_t len[RG_MAXV];  /* constant mode: the length of value i ([1, len]) */
    int op[RG_MAXV], a[RG_MAXV], b[RG_MAXV], c3[RG_MAXV];
    int64_t s0[RG_MAXV], s1[RG_MAXV]; /* Slice start and end */
    bool out[RG_MAXV];
} RandGraph;

enum { R_INPUT, R_RELU, R_SIGMOID, R_ADD, R_MULK, R_CONCAT, R_SLICE, R_FLATTEN, R_RESHAPE,
       R_SUM3, R_CLIP, R_IDENTITY, R_NOPS };

static uint64_t rg_state;
static uint64_t rg_next(void) {
    rg_state ^= rg_state << 13;
    rg_state ^= rg_state >> 7;
    rg_state ^= rg_state << 17;
    return rg_state;
}

static const char *vname(char *buf, int i) {
    sprintf(buf, "v%d", i);
    return buf;
}

/* A random graph of nv values; value 0 is the input x[1, L] (L a dim when symbolic). */
static void make_random(RandGraph *r, int nv, const char *path, bool symbolic) {
    memset(r, 0, sizeof *r);
    r->nv = nv;
    r->len[0] = 40;
    r->op[0] = R_INPUT;
    for (int i = 1; i < nv; i++) {
        int op = 1 + (int)(rg_next() % (R_NOPS - 1));
        int a = (int)(rg_next() % (uint64_t)i);
        /* prefer recent values: lifetimes of a few nodes, as in a network */
        if (rg_next() % 3)
            a = i - 1 - (int)(rg_next() % (uint64_t)(i < 4 ? i : 4));
        int b = a, c3 = a;
        for (int k = 0; k < 6; k++) {
            int t = (int)(rg_next() % (uint64_t)i);
            if (r->len[t] == r->len[a] && t != a) {
                b = t;
                break;
            }
        }
        for (int k = 0; k < 6; k++) {
            int t = (int)(rg_next() % (uint64_t)i);
            if (r->len[t] == r->len[a]) {
                c3 = t;
                break;
            }
        }
        if (op == R_CONCAT && r->len[a] + r->len[b] > 400)
            op = R_SLICE;
        if (op == R_ADD && b == a && rg_next() % 2)
            op = R_RELU;
        r->op[i] = op;
        r->a[i] = a;
        r->b[i] = b;
        r->c3[i] = c3;
        int64_t la = r->len[a];
        switch (op) {
        case R_CONCAT: r->len[i] = la + r->len[b]; break;
        case R_SLICE:
            r->s0[i] = (int64_t)(rg_next() % 3);
            r->s1[i] = la - (int64_t)(rg_next() % 3);
            r->len[i] = r->s1[i] - r->s0[i] > 0 ? r->s1[i] - r->s0[i] : 0;
            break;
        case R_SUM3: r->len[i] = la; break;
        default: r->len[i] = la; break;
        }
    }
    r->out[nv - 1] = true;
    for (int k = 0; k < 2; k++)
        r->out[1 + (int)(rg_next() % (uint64_t)(nv - 1))] = true;
    /* the model */
    MgGraph *g = mg_new(13);
    MgDim d[2] = {{NULL, 1}, {symbolic ? "L" : NULL, 40}};
    mg_input(g, "v0", MG_FLOAT, 2, d);
    mg_init(g, "k", MG_FLOAT, 0, NULL, (const float[]){-1.5f});
    mg_init(g, "lo", MG_FLOAT, 0, NULL, (const float[]){-2.0f});
    mg_init(g, "hi", MG_FLOAT, 0, NULL, (const float[]){3.0f});
    mg_init(g, "shp", MG_INT64, 1, (const int64_t[]){2}, (const int64_t[]){1, -1});
    mg_init(g, "ax1", MG_INT64, 1, (const int64_t[]){1}, (const int64_t[]){1});
    for (int i = 1; i < nv; i++) {
        char y[16], na[16], nb[16], nc[16], nm[16], s0[24], s1[24];
        vname(y, i);
        vname(na, r->a[i]);
        vname(nb, r->b[i]);
        vname(nc, r->c3[i]);
        sprintf(nm, "n%d", i);
        const char *one[1] = {y};
        switch (r->op[i]) {
        case R_RELU: mg_node(g, "Relu", nm, 1, (const char *[]){na}, 1, one); break;
        case R_SIGMOID: mg_node(g, "Sigmoid", nm, 1, (const char *[]){na}, 1, one); break;
        case R_ADD: mg_node(g, "Add", nm, 2, (const char *[]){na, nb}, 1, one); break;
        case R_MULK: mg_node(g, "Mul", nm, 2, (const char *[]){"k", na}, 1, one); break;
        case R_CONCAT: {
            MgNode *n = mg_node(g, "Concat", nm, 2, (const char *[]){na, nb}, 1, one);
            mg_attr_int(n, "axis", 1);
            break;
        }
        case R_SLICE:
            sprintf(s0, "st%d", i);
            sprintf(s1, "en%d", i);
            mg_init(g, s0, MG_INT64, 1, (const int64_t[]){1}, &r->s0[i]);
            /* symbolic: the end counts from the end of the axis */
            {
                int64_t e = symbolic ? r->s1[i] - r->len[r->a[i]] - 0 : r->s1[i];
                if (symbolic && e == 0)
                    e = INT64_MAX;
                mg_init(g, s1, MG_INT64, 1, (const int64_t[]){1}, &e);
            }
            mg_node(g, "Slice", nm, 4, (const char *[]){na, s0, s1, "ax1"}, 1, one);
            break;
        case R_FLATTEN: {
            MgNode *n = mg_node(g, "Flatten", nm, 1, (const char *[]){na}, 1, one);
            mg_attr_int(n, "axis", 1);
            break;
        }
        case R_RESHAPE: mg_node(g, "Reshape", nm, 2, (const char *[]){na, "shp"}, 1, one); break;
        case R_SUM3: mg_node(g, "Sum", nm, 3, (const char *[]){na, nb, nc}, 1, one); break;
        case R_CLIP: mg_node(g, "Clip", nm, 3, (const char *[]){na, "lo", "hi"}, 1, one); break;
        default: mg_node(g, "Identity", nm, 1, (const char *[]){na}, 1, one); break;
        }
    }
    for (int i = 1; i < nv; i++)
        if (r->out[i]) {
            char y[16];
            mg_output(g, vname(y, i), MG_FLOAT, -1, NULL);
        }
    mg_write(g, path);
}

/* The graph computed here, at input length L: val[i] gets len[i] floats. */
static void eval_random(const RandGraph *r, int64_t L, const float *x, float **val, int64_t *len) {
    len[0] = L;
    val[0] = malloc(sizeof(float) * (size_t)(L + 1));
    memcpy(val[0], x, sizeof(float) * (size_t)L);
    for (int i = 1; i < r->nv; i++) {
        int a = r->a[i], b = r->b[i], c3 = r->c3[i];
        int64_t la = len[a];
        int64_t n = la, s0 = 0;
        if (r->op[i] == R_CONCAT)
            n = la + len[b];
        if (r->op[i] == R_SLICE) {
            /* constant mode: [s0, s1); symbolic: [s0, la - (len0 - s1)) clamped */
            int64_t e = r->s1[i] - r->len[a] + la;
            s0 = r->s0[i] < la ? r->s0[i] : la;
            e = e < 0 ? 0 : e > la ? la : e;
            n = e > s0 ? e - s0 : 0;
        }
        len[i] = n;
        float *y = val[i] = malloc(sizeof(float) * (size_t)(n + 1));
        const float *A = val[a], *B = val[b], *C3 = val[c3];
        for (int64_t j = 0; j < n; j++) {
            switch (r->op[i]) {
            case R_RELU: y[j] = A[j] > 0 ? A[j] : 0; break;
            case R_SIGMOID: y[j] = 1.0f / (1.0f + expf(-A[j])); break;
            case R_ADD: y[j] = A[j] + B[j]; break;
            case R_MULK: y[j] = -1.5f * A[j]; break;
            case R_CONCAT: y[j] = j < la ? A[j] : B[j - la]; break;
            case R_SLICE: y[j] = A[s0 + j]; break;
            case R_SUM3: y[j] = (A[j] + B[j]) + C3[j]; break;
            case R_CLIP: y[j] = A[j] < -2 ? -2 : A[j] > 3 ? 3 : A[j]; break;
            default: y[j] = A[j]; break;
            }
        }
    }
}

static void run_random(TuModel *m, const RandGraph *r, int64_t L, const int64_t *dims) {
    float *x = tu_random_floats(L, (unsigned)L);
    float *val[RG_MAXV];
    int64_t len[RG_MAXV];
    eval_random(r, L, x, val, len);
    const void *in[1] = {x};
    void *out[RG_MAXV];
    int no = 0, which[RG_MAXV];
    for (int i = 1; i < r->nv; i++)
        if (r->out[i]) {
            which[no] = i;
            out[no++] = malloc(sizeof(float) * (size_t)(len[i] + 1));
        }
    cr_assert_eq(tu_run(m, dims, in, out), 0);
    for (int k = 0; k < no; k++) {
        tu_expect_close(out[k], val[which[k]], len[which[k]]);
        free(out[k]);
    }
    for (int i = 0; i < r->nv; i++)
        free(val[i]);
    free(x);
}

/* Constant sizes: the offsets plan (checked), and the code is right with gcc -O2 too (which
 * vectorises the in-place loops). */
Test(plan, random_graphs_constant, .timeout = 300) {
    char path[128];
    model_path(path, sizeof path, "random");
    rg_state = 0x9E3779B97F4A7C15ull;
    int at_bound = 0, below_default = 0;
    enum { TRIALS = 40 };
    for (int trial = 0; trial < TRIALS; trial++) {
        RandGraph r;
        make_random(&r, 12 + (int)(rg_next() % 40), path, false);
        int64_t ws[2];
        for (int mf = 0; mf < 2; mf++) {
            Seen s = {0};
            TuModel m;
            open_opts(&m, path, mf, inspect_plan, &s, NULL,
                      trial % 10 == 0 && mf ? "gcc -std=c99 -O2" : NULL);
            cr_assert(s.ws >= s.tensors);
            ws[mf] = s.ws;
            at_bound += mf && s.ws == s.tensors; /* no scratch here: the lower bound */
            run_random(&m, &r, 40, NULL);
            tu_close(&m);
        }
        /* --memory-first takes the slots' layout when no order of offsets beats it */
        cr_assert_leq(ws[1], ws[0], "trial %d: --memory-first %lld > default %lld", trial,
                      (long long)ws[1], (long long)ws[0]);
        below_default += ws[1] < ws[0];
    }
    cr_log_info("random_graphs_constant: %d of %d --memory-first plans at the lower bound, %d "
                "smaller than the default's", at_bound, TRIALS, below_default);
    cr_assert_geq(at_bound, TRIALS * 3 / 4, "%d of %d plans at the lower bound", at_bound, TRIALS);
    unlink(path);
}

/* Symbolic sizes (x[1, L]): the slot plan is sound at several L, and the code right. */
Test(plan, random_graphs_symbolic, .timeout = 300) {
    char path[128];
    model_path(path, sizeof path, "random-sym");
    rg_state = 0xD1B54A32D192ED03ull;
    static const int64_t dimv[5][4] = {{0}, {1}, {3}, {40}, {1000}};
    for (int trial = 0; trial < 25; trial++) {
        RandGraph r;
        make_random(&r, 12 + (int)(rg_next() % 40), path, true);
        Seen s = {.dims = dimv, .ndims_vec = 5};
        TuModel m;
        open_opts(&m, path, trial % 2, inspect_plan, &s, NULL, NULL);
        for (int k = 1; k < 5; k++)
            if (m.check(dimv[k]) == 0)
                run_random(&m, &r, dimv[k][0], dimv[k]);
        tu_close(&m);
    }
    unlink(path);
}

/* ---- the scratch budget of --memory-first */

/* x[1,4096] -> Mul -> t1 (16384 B) -> Concat(t1, t1) -> t2 (32768 B) -> Slice -> t3 (256 B)
 * -> Relu -> y.  Live: mul 16384; concat 49152; slice 33024; relu 256 (in place would be
 * over t3... y is an output).  Budget at the Slice: 49152 - 33024 = 16128 (more than
 * 33024 / 16); at the Relu: 49152 - 256. */
Test(plan, scratch_budget) {
    char path[128];
    model_path(path, sizeof path, "budget");
    MgGraph *g = mg_new(13);
    MgDim d[2] = {{NULL, 1}, {NULL, 4096}};
    mg_input(g, "x", MG_FLOAT, 2, d);
    mg_init(g, "two", MG_FLOAT, 0, NULL, (const float[]){2.0f});
    mg_init(g, "st", MG_INT64, 1, (const int64_t[]){1}, (const int64_t[]){100});
    mg_init(g, "en", MG_INT64, 1, (const int64_t[]){1}, (const int64_t[]){164});
    mg_init(g, "ax", MG_INT64, 1, (const int64_t[]){1}, (const int64_t[]){1});
    mg_node(g, "Mul", "mul", 2, (const char *[]){"x", "two"}, 1, (const char *[]){"t1"});
    MgNode *cn = mg_node(g, "Concat", "concat", 2, (const char *[]){"t1", "t1"}, 1, (const char *[]){"t2"});
    mg_attr_int(cn, "axis", 1);
    mg_node(g, "Slice", "slice", 4, (const char *[]){"t2", "st", "en", "ax"}, 1, (const char *[]){"t3"});
    mg_node(g, "Relu", "relu", 1, (const char *[]){"t3"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, 2, (MgDim[]){{NULL, 1}, {NULL, 64}});
    mg_write(g, path);
    Seen s = {0};
    TuModel m;
    open_opts(&m, path, false, inspect_plan, &s, NULL, NULL);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(s.budget[i], -1, "default mode: no limit");
    tu_close(&m);
    memset(&s, 0, sizeof s);
    open_opts(&m, path, true, inspect_plan, &s, NULL, NULL);
    static const int64_t want[4] = {16384 / 16, 49152 / 16 / 64 * 64, 16128, 49152 - 256};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(s.budget[i], want[i], "node %d: budget %lld, want %lld", i,
                     (long long)s.budget[i], (long long)want[i]);
    cr_assert_eq(s.ws, 49152);
    tu_close(&m);
    unlink(path);
}

/* ---- folds made for the plan */

/* Pad (zeros, spatial) -> Conv without pads == Conv with those pads; the Pad is folded away
 * (no padded copy in the workspace). */
Test(plan, zero_pad_folds_into_conv) {
    char p1[128], p2[128];
    model_path(p1, sizeof p1, "padconv");
    model_path(p2, sizeof p2, "convpads");
    enum { C = 3, M = 4, H = 9, W = 7 };
    float *w = tu_random_floats(M * C * 9, 5), *b = tu_random_floats(M, 6);
    for (int form = 0; form < 2; form++) {
        MgGraph *g = mg_new(13);
        MgDim d[4] = {{NULL, 1}, {NULL, C}, {NULL, H}, {NULL, W}};
        mg_input(g, "x", MG_FLOAT, 4, d);
        mg_init(g, "w", MG_FLOAT, 4, (const int64_t[]){M, C, 3, 3}, w);
        mg_init(g, "b", MG_FLOAT, 1, (const int64_t[]){M}, b);
        MgNode *cv;
        if (form == 0) {
            mg_init(g, "pads", MG_INT64, 1, (const int64_t[]){8},
                    (const int64_t[]){0, 0, 2, 1, 0, 0, 1, 0});
            mg_node(g, "Pad", "pad", 2, (const char *[]){"x", "pads"}, 1, (const char *[]){"xp"});
            cv = mg_node(g, "Conv", "conv", 3, (const char *[]){"xp", "w", "b"}, 1, (const char *[]){"y"});
            mg_attr_ints(cv, "pads", 4, (const int64_t[]){0, 1, 1, 1});
        } else {
            cv = mg_node(g, "Conv", "conv", 3, (const char *[]){"x", "w", "b"}, 1, (const char *[]){"y"});
            mg_attr_ints(cv, "pads", 4, (const int64_t[]){2, 2, 2, 1});
        }
        mg_attr_ints(cv, "kernel_shape", 2, (const int64_t[]){3, 3});
        mg_output(g, "y", MG_FLOAT, -1, NULL);
        mg_write(g, form ? p2 : p1);
    }
    float *x = tu_random_floats(C * H * W, 7);
    float y[2][M * (H + 2) * (W + 1)];
    for (int form = 0; form < 2; form++) {
        Seen s = {0};
        TuModel m;
        open_opts(&m, form ? p2 : p1, true, inspect_plan, &s, NULL, NULL);
        if (form == 0)
            cr_assert(seen_dead(&s, "Pad"), "the Pad was not folded");
        cr_assert_eq(s.tensors, 0, "no temporary: the padded copy is not made");
        int64_t shape[4];
        cr_assert_eq(m.oshape(NULL, 0, shape), 4);
        cr_assert(shape[2] == H + 2 && shape[3] == W + 1, "%lld x %lld", (long long)shape[2],
                  (long long)shape[3]);
        cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y[form]}), 0);
        tu_close(&m);
    }
    tu_expect_close(y[0], y[1], M * (H + 2) * (W + 1));
    free(x);
    free(w);
    free(b);
    unlink(p1);
    unlink(p2);
}

/* Gemm (transB 0 and 1, bias C and beta) -> BatchNormalization -> Relu: folded into the
 * Gemm (no BN left), same result as computed here. */
Test(plan, batchnorm_folds_into_gemm) {
    char path[128];
    model_path(path, sizeof path, "gemmbn");
    enum { K = 5, N = 6 };
    float *bw = tu_random_floats(K * N, 8), *cb = tu_random_floats(N, 9);
    float *gam = tu_random_floats(N, 10), *bet = tu_random_floats(N, 11),
          *mean = tu_random_floats(N, 12), *var = tu_random_floats(N, 13);
    for (int i = 0; i < N; i++)
        var[i] = fabsf(var[i]) + 0.5f;
    for (int tb = 0; tb < 2; tb++) {
        MgGraph *g = mg_new(13);
        MgDim d[2] = {{NULL, 1}, {NULL, K}};
        mg_input(g, "x", MG_FLOAT, 2, d);
        mg_init(g, "B", MG_FLOAT, 2, tb ? (const int64_t[]){N, K} : (const int64_t[]){K, N}, bw);
        mg_init(g, "C", MG_FLOAT, 1, (const int64_t[]){N}, cb);
        mg_init(g, "g", MG_FLOAT, 1, (const int64_t[]){N}, gam);
        mg_init(g, "bb", MG_FLOAT, 1, (const int64_t[]){N}, bet);
        mg_init(g, "mu", MG_FLOAT, 1, (const int64_t[]){N}, mean);
        mg_init(g, "var", MG_FLOAT, 1, (const int64_t[]){N}, var);
        MgNode *gm = mg_node(g, "Gemm", "gemm", 3, (const char *[]){"x", "B", "C"}, 1, (const char *[]){"t"});
        mg_attr_int(gm, "transB", tb);
        mg_attr_float(gm, "alpha", 0.5f);
        mg_attr_float(gm, "beta", 2.0f);
        mg_node(g, "BatchNormalization", "bn", 5, (const char *[]){"t", "g", "bb", "mu", "var"}, 1,
                (const char *[]){"u"});
        mg_node(g, "Relu", "relu", 1, (const char *[]){"u"}, 1, (const char *[]){"y"});
        mg_output(g, "y", MG_FLOAT, 2, (MgDim[]){{NULL, 1}, {NULL, N}});
        mg_write(g, path);
        Seen s = {0};
        TuModel m;
        open_opts(&m, path, tb == 1, inspect_plan, &s, NULL, NULL);
        cr_assert(seen_dead(&s, "BatchNormalization") && seen_dead(&s, "Relu"));
        float x[K], y[N], want[N];
        for (int i = 0; i < K; i++)
            x[i] = (float)i * 0.5f - 1.0f;
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int i = 0; i < K; i++)
                acc += x[i] * (tb ? bw[j * K + i] : bw[i * N + j]);
            double t = 0.5 * acc + 2.0 * cb[j];
            double u = (t - mean[j]) / sqrt(var[j] + 1e-5) * gam[j] + bet[j];
            want[j] = (float)(u > 0 ? u : 0);
        }
        cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
        tu_expect_close(y, want, N);
        tu_close(&m);
    }
    free(bw);
    free(cb);
    free(gam);
    free(bet);
    free(mean);
    free(var);
    unlink(path);
}

/* ---- --report */

/* Per node: the bytes in use, the scratch and the weights' flash bytes; then the totals. */
Test(plan, report_columns_and_totals) {
    char path[128];
    model_path(path, sizeof path, "report");
    enum { K = 64, N = 32 };
    float *bw = tu_random_floats(K * N, 14);
    MgGraph *g = mg_new(13);
    MgDim d[2] = {{NULL, 1}, {NULL, K}};
    mg_input(g, "x", MG_FLOAT, 2, d);
    mg_init(g, "two", MG_FLOAT, 0, NULL, (const float[]){2.0f});
    mg_init(g, "B", MG_FLOAT, 2, (const int64_t[]){K, N}, bw);
    mg_node(g, "Mul", "scale", 2, (const char *[]){"x", "two"}, 1, (const char *[]){"t"});
    mg_node(g, "MatMul", "fc", 2, (const char *[]){"t", "B"}, 1, (const char *[]){"u"});
    mg_node(g, "Sigmoid", "sig", 1, (const char *[]){"u"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_write(g, path);
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    cr_assert_not_null(f);
    Seen s = {0};
    TuModel m;
    open_opts(&m, path, true, inspect_plan, &s, f, NULL);
    fclose(f);
    cr_assert(strstr(text, "offset") && strstr(text, "scratch") && strstr(text, "flash") &&
              strstr(text, "arena in use"), "%s", text);
    char want[200];
    snprintf(want, sizeof want, "peak workspace: %lld bytes\n", (long long)s.ws);
    cr_assert(strstr(text, want), "%s", text);
    cr_assert(strstr(text, "largest sum of live buffers at one node: "), "%s", text);
    /* the parameters: 4 + K * N * 4 bytes; the MatMul's row is its own line */
    snprintf(want, sizeof want, "parameters: %d bytes", 4 + K * N * 4);
    cr_assert(strstr(text, want), "%s", text);
    const char *fc = strstr(text, "\nfc ");
    cr_assert_not_null(fc, "%s", text);
    const char *eol = strchr(fc + 1, '\n');
    char line[400];
    snprintf(line, sizeof line, "%.*s", (int)(eol - fc - 1), fc + 1);
    long long off, bytes, scratch, flash, inuse;
    char shape[100];
    cr_assert_eq(sscanf(line, "fc MatMul %99s %lld %lld %lld %lld %lld", shape, &off, &bytes,
                        &scratch, &flash, &inuse), 6, "%s", line);
    cr_assert_eq(bytes, N * 4 < 64 ? 64 : N * 4);
    cr_assert_geq(flash, K * N * 4, "%s", line); /* packed or not, the whole weight */
    cr_assert_eq(inuse, 256 + 128 + (scratch + 63) / 64 * 64, "%s", line);
    tu_close(&m);
    free(text);
    free(bw);
    unlink(path);
}

/* ---- the MLPerf Tiny-style models (tests/models/tiny_*) */

typedef struct TinySeen {
    int64_t ws, tensors, peak;
} TinySeen;

static void inspect_tiny(Compiler *c, void *user) {
    TinySeen *t = user;
    t->ws = check_plan_at(c, NULL, &t->tensors, &t->peak);
}

/* With --memory-first the tensors live at once never exceed the liveness bound of issue 10
 * (tools/liveness_bound.py: the graph's own node order, Relu/Clip/zero Pad/Add over a dying
 * input) and the offsets reach the plan's lower bound (tensors + scratch at one node). */
Test(plan, tiny_models_at_the_liveness_bound) {
    static const struct {
        const char *name;
        int64_t bound;
    } models[] = {{"tiny_kws", 64000}, {"tiny_vww", 221184}, {"tiny_resnet8", 196608},
                  {"tiny_ad", 1024}};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/tests/models/%s/model.onnx", ONNX2C_SOURCE_DIR,
                 models[i].name);
        TinySeen t = {0};
        Options opt = {0};
        opt.memory_first = true;
        opt.inspect = inspect_tiny;
        opt.inspect_user = &t;
        opt.name = "model";
        opt.out_path = "model.c";
        Output o;
        char err[1024];
        cr_assert_eq(onnx2c_compile(path, &opt, &o, err, sizeof err), O2C_OK, "%s", err);
        cr_log_info("%s: workspace %lld, tensors %lld, tensors + scratch %lld, bound %lld",
                    models[i].name, (long long)t.ws, (long long)t.tensors, (long long)t.peak,
                    (long long)models[i].bound);
        cr_assert_leq(t.tensors, models[i].bound, "%s", models[i].name);
        cr_assert_eq(t.ws, t.peak, "%s: workspace %lld above the lower bound %lld", models[i].name,
                     (long long)t.ws, (long long)t.peak);
        onnx2c_output_free(&o);
    }
}
