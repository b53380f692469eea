/* test_overflow.c — hostile dims (issue 9, items 3 and 4): NAME_check accepts exactly the dims
 * whose sizes fit, nothing the generated code computes overflows for dims it accepts, on 64-bit
 * and on 32-bit size_t, and NAME_WORKSPACE_MAX is sound.
 *
 * The reference is computed here, from the compiled graph itself (Options.inspect), in 128-bit
 * arithmetic: every Sym NAME_check evaluates (Graph.checked), folded left to right as the C
 * prints it, must stay within [-INT64_MAX, INT64_MAX]; then the constraints; then the byte sizes
 * of the inputs, the outputs and the workspace must fit in size_t.  That gives the code
 * NAME_check must return for each dims vector, NAME_workspace_size's exact value and every
 * shape.  The generated C is then asked (tests/data/overflow/probe.c) about thousands of random
 * and adversarial dims vectors (powers of two up to 2^62 and their neighbours, products near
 * 2^64, zeros): under libtcc in this process, as a host executable under AddressSanitizer and
 * UBSan (which also runs the model at the accepted dims that are small enough to allocate), and
 * as a Cortex-M4 executable on QEMU, where size_t has 32 bits.  Independently of how NAME_check
 * folds, every tensor of the graph must have a byte size that fits in int64 whenever NAME_check
 * accepts. */
#include "onnx2c.h" /* white-box: looks inside the compiler */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXV 2400
#define MAXD 8
#define MAXS 64 /* shape entries per vector */

typedef __int128 i128;
static const i128 I64MAX = INT64_MAX;

typedef struct Want {
    int rc;
    unsigned long long ws;
    int nshape;
    long long shape[MAXS]; /* per input then output: rank (or the code) and its dims */
} Want;

typedef struct Probe {
    int nvec, nd;
    char mode[MAXV];
    int64_t dims[MAXV][MAXD];
    Want want64[MAXV], want32[MAXV];
    int nsizes_only; /* vectors whose sizes fit but some partial sum or product does not */
    int nsizes_only_nonzero; /* those of them without a 0 dim */
    int naccepted;
} Probe;

/* ---- the reference */

/* Exact value of e at dims, as NAME_check computes it: sums of products k * f1 * ... with each
 * term below 2^125 and each partial sum below 2^126 in magnitude (else *huge: too large to
 * tell); divisions floor/ceil/mod with a zero divisor flagged too. */
static i128 ev(const Sym *e, const int64_t *dims, bool *huge) {
    const i128 t125 = (i128)1 << 125, t126 = (i128)1 << 126;
    switch (e->kind) {
    case SYM_CONST: return e->c;
    case SYM_DIM: return dims[e->dim];
    default: break;
    }
    if (e->kind == SYM_ADD || e->kind == SYM_MUL) {
        i128 acc = 0;
        for (int i = 0; i < (e->kind == SYM_ADD ? e->n : 1); i++) {
            const Sym *t = e->kind == SYM_ADD ? e->args[i] : e;
            i128 mag = 1;
            bool neg = false;
            Sym *const *f = (Sym *const *)&t;
            int nf = 1;
            if (t->kind == SYM_CONST) {
                mag = t->c;
                nf = 0;
            } else if (t->kind == SYM_MUL) {
                bool coef = t->args[0]->kind == SYM_CONST;
                mag = coef ? t->args[0]->c : 1;
                f = t->args + coef;
                nf = t->n - coef;
            }
            if (mag < 0) {
                neg = true;
                mag = -mag;
            }
            for (int j = 0; j < nf && !*huge; j++) {
                i128 v = ev(f[j], dims, huge);
                if (v < 0) {
                    neg = !neg;
                    v = -v;
                }
                if (v != 0 && mag >= (t125 + v - 1) / v) {
                    *huge = true; /* the term would reach 2^125 */
                    break;
                }
                mag *= v;
            }
            if (*huge)
                return 0;
            acc += neg ? -mag : mag;
            if (acc >= t126 || acc < -t126) {
                *huge = true;
                return 0;
            }
        }
        return acc;
    }
    i128 a = ev(e->args[0], dims, huge);
    for (int i = 1; i < e->n && !*huge; i++) {
        i128 x = ev(e->args[i], dims, huge);
        switch (e->kind) {
        case SYM_MIN: a = x < a ? x : a; break;
        case SYM_MAX: a = x > a ? x : a; break;
        default: {
            if (x == 0) {
                *huge = true; /* NAME_check refuses a zero divisor */
                return 0;
            }
            i128 q = a / x, r = a % x;
            if (e->kind == SYM_MOD)
                a = r != 0 && (r < 0) != (x < 0) ? r + x : r;
            else if (e->kind == SYM_FLOORDIV)
                a = r != 0 && (r < 0) != (x < 0) ? q - 1 : q;
            else
                a = r != 0 && (r < 0) == (x < 0) ? q + 1 : q;
        }
        }
    }
    return a;
}

/* NAME_check's rule for one value the generated code takes as an int64. */
static bool fits(const Sym *e, const int64_t *dims) {
    bool huge = false;
    i128 v = ev(e, dims, &huge);
    return !huge && v <= I64MAX && v >= -I64MAX;
}

/* The exact value (2^100 when too large to tell). */
static i128 ev_exact(const Sym *e, const int64_t *dims) {
    bool huge = false;
    i128 v = ev(e, dims, &huge);
    return huge ? (i128)1 << 100 : v;
}

static i128 bytes_of(Compiler *c, const Value *v, const int64_t *dims) {
    return ev_exact(sym_mul(c->sym, ir_numel(c, v), sym_const(c->sym, (int64_t)dtype_size(v->dtype))),
                    dims);
}

static void want_for(Compiler *c, const int64_t *dims, i128 size_max, Want *w, Probe *p) {
    Graph *g = c->g;
    bool ok = true;
    for (int k = 0; k < g->ndims; k++)
        ok &= dims[k] != INT64_MAX;
    for (int i = 0; i < g->nchecked && ok; i++)
        ok = fits(g->checked[i], dims);
    w->rc = ok ? 0 : -6;
    for (int i = 0; ok && i < g->nconstraints && w->rc == 0; i++) {
        const Constraint *k = &g->constraints[i];
        cr_assert(fits(k->a, dims) && fits(k->b, dims), "a constraint side is not checked");
        i128 a = ev_exact(k->a, dims), b = ev_exact(k->b, dims);
        bool holds = k->kind == CK_EQ   ? a == b
                     : k->kind == CK_LE ? a <= b
                                        : a != 0 && b % a == 0;
        if (!holds)
            w->rc = -100 - i;
    }
    /* sizes alone: every tensor's bytes in [0, INT64_MAX], the caller's buffers and the
     * workspace in size_t too (the "sizes fit" of the issue, blind to how they are computed) */
    const i128 fit = size_max < I64MAX ? size_max : I64MAX; /* size_t, and int64 for indices */
    bool sizes_fit = ev_exact(g->workspace, dims) <= fit;
    for (int i = 0; i < g->nvalues; i++) {
        const Value *v = g->values[i];
        if (v->rank < 0 || (v->producer && v->producer->dead))
            continue;
        i128 b = bytes_of(c, v, dims);
        if (b > I64MAX || b < 0 || ((v->kind == VAL_INPUT || v->is_output) && b > fit))
            sizes_fit = false;
    }
    if (w->rc == 0 && ev_exact(g->workspace, dims) > size_max)
        w->rc = -6;
    for (int i = 0; w->rc == 0 && i < g->ninputs + g->noutputs; i++) {
        const Value *v = i < g->ninputs ? g->inputs[i] : g->outputs[i - g->ninputs];
        if (bytes_of(c, v, dims) > size_max)
            w->rc = -6;
    }
    if (w->rc == 0)
        cr_assert(sizes_fit, "NAME_check would accept dims at which a tensor's size does not fit");
    /* a refusal while every size fits comes from a constraint or from a partial result */
    if (sizes_fit && w->rc == -6 && size_max > UINT32_MAX) {
        p->nsizes_only++;
        bool zero = false;
        for (int k = 0; k < g->ndims; k++)
            zero |= dims[k] == 0;
        p->nsizes_only_nonzero += !zero;
    }
    w->ws = w->rc == 0 ? (unsigned long long)ev_exact(g->workspace, dims) : 0;
    w->nshape = 0;
    for (int i = 0; i < g->ninputs + g->noutputs; i++) {
        const Value *v = i < g->ninputs ? g->inputs[i] : g->outputs[i - g->ninputs];
        cr_assert_lt(w->nshape + 1 + v->rank, MAXS);
        w->shape[w->nshape++] = w->rc == 0 ? v->rank : w->rc;
        for (int d = 0; w->rc == 0 && d < v->rank; d++)
            w->shape[w->nshape++] = (long long)ev_exact(v->shape[d], dims);
    }
}

static void inspect(Compiler *c, void *user) {
    Probe *p = user;
    cr_assert_eq(c->g->ndims, p->nd);
    for (int v = 0; v < p->nvec; v++) {
        want_for(c, p->dims[v], (i128)UINT64_MAX, &p->want64[v], p);
        want_for(c, p->dims[v], (i128)UINT32_MAX, &p->want32[v], p);
        p->naccepted += p->want64[v].rc == 0;
    }
}

/* ---- dims vectors */

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t pow2ish(int k) {
    int64_t v = (int64_t)1 << k;
    switch (next() % 4) {
    case 0: return v > 1 ? v - 1 : v;
    case 1: return v < INT64_MAX / 2 ? v + 1 : v;
    default: return v;
    }
}

static void make_vectors(Probe *p, int nd, const int64_t *small) {
    p->nd = nd;
    p->nvec = 0;
    for (int v = 0; v < MAXV; v++) {
        int64_t *d = p->dims[v];
        int kind = v % 5;
        p->mode[v] = 'c';
        for (int k = 0; k < nd; k++) {
            switch (kind) {
            case 0: d[k] = pow2ish((int)(next() % 63)); break;             /* up to 2^62 */
            case 1: d[k] = (int64_t)(next() % 4) * small[k] + (int64_t)(next() % 3); break;
            case 2: d[k] = next() % 7 == 0 ? 0 : next() % 50 == 0 ? INT64_MAX : pow2ish((int)(next() % 63)); break;
            default: d[k] = 0; break;
            }
        }
        if (kind >= 3) { /* a product near 2^(56..66) spread over the dims */
            int total = 56 + (int)(next() % 11);
            for (int k = 0; k < nd; k++) {
                int share = k == nd - 1 ? total : (int)(next() % (unsigned)(total + 1));
                share = share > 62 ? 62 : share;
                d[k] = pow2ish(share);
                total -= share;
                if (total < 0)
                    total = 0;
            }
        }
        if (kind == 1)
            p->mode[v] = 'r';
        p->nvec++;
    }
}

/* ---- the generated code, asked */

static void write_dims(const char *path, const Probe *p) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%d %d\n", p->nvec, p->nd);
    for (int v = 0; v < p->nvec; v++) {
        fprintf(f, "%c", p->mode[v]);
        for (int k = 0; k < p->nd; k++)
            fprintf(f, " %lld", (long long)p->dims[v][k]);
        fprintf(f, "\n");
    }
    cr_assert_eq(fclose(f), 0);
}

/* Reads the probe's out.txt and compares it with the reference. */
static void compare(const char *path, const Probe *p, bool bits32, const char *what) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: no %s", what, path);
    for (int v = 0; v < p->nvec; v++) {
        const Want *w = bits32 ? &p->want32[v] : &p->want64[v];
        int rc;
        unsigned long long ws;
        cr_assert_eq(fscanf(f, "%d %llu", &rc, &ws), 2, "%s: vector %d: short output", what, v);
        cr_assert_eq(rc, w->rc, "%s: dims vector %d (%lld, %lld, ...): check %d, want %d", what, v,
                     (long long)p->dims[v][0], (long long)p->dims[v][1], rc, w->rc);
        cr_assert_eq(ws, w->ws, "%s: vector %d: workspace_size %llu, want %llu", what, v, ws, w->ws);
        for (int k = 0; k < w->nshape; k++) {
            long long x;
            cr_assert_eq(fscanf(f, "%lld", &x), 1);
            cr_assert_eq(x, w->shape[k], "%s: vector %d: shape entry %d: %lld, want %lld", what, v,
                         k, x, w->shape[k]);
        }
        if (p->mode[v] == 'r' && rc == 0 && !bits32) {
            int run_rc;
            cr_assert_eq(fscanf(f, "%d", &run_rc), 1);
            cr_assert(run_rc == 0 || run_rc == -7, "%s: vector %d: run returned %d", what, v, run_rc);
        }
    }
    fclose(f);
}

/* Runs cmd; on failure the message holds the start of dir's cc.txt and run.txt. */
static void sh(const char *cmd, const char *what, const char *dir) {
    int st = system(cmd);
    if (st == 0)
        return;
    char log[3000] = "", path[400];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, k ? "run.txt" : "cc.txt");
        if (access(path, R_OK) == 0) {
            size_t n = strlen(log);
            tu_read_text(path, log + n, sizeof log - n);
        }
    }
    cr_assert_fail("%s: `%s` failed (%d): %s", what, cmd, st, log);
}

static void check_model(const char *model, const int64_t *small, int nd) {
    static Probe p; /* large: not on the stack */
    memset(&p, 0, sizeof p);
    make_vectors(&p, nd, small);
    Options opt = {0};
    opt.name = "model";
    opt.out_path = "model.c";
    opt.inspect = inspect;
    opt.inspect_user = &p;
    Output o;
    char err[1024];
    int st = onnx2c_compile(model, &opt, &o, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", model, err);
    cr_log_info("%s: %d vectors, %d accepted, %d refused with every size fitting (a "
                "value inside a size does not fit; %d of them without a 0 dim)", model, p.nvec, p.naccepted,
                p.nsizes_only, p.nsizes_only_nonzero);
    cr_assert_gt(p.naccepted, p.nvec / 20, "%s: too few accepted vectors to test", model);
    /* without a 0 dim, a value the code computes is bounded by some tensor's size: accepted
     * exactly when every size fits (with a 0 dim, H * W may not fit while N * H * W does) */
    cr_assert_eq(p.nsizes_only_nonzero, 0, "%s: dims refused although every size fits", model);

    char dir[] = "/tmp/onnx2c-ovf-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[300], cmd[3000];
    snprintf(path, sizeof path, "%s/model.c", dir);
    tu_write_file(path, o.c_src, strlen(o.c_src));
    snprintf(path, sizeof path, "%s/model.h", dir);
    tu_write_file(path, o.h_src, strlen(o.h_src));
    snprintf(path, sizeof path, "%s/dims.txt", dir);
    write_dims(path, &p);

    /* libtcc, in this process */
    {
        char jerr[1024] = "";
        Jit *j = jit_compile(o.c_src, "model.h", o.h_src, NULL, jerr, sizeof jerr);
        cr_assert_not_null(j, "%s", jerr);
        int (*check)(const int64_t *) = (int (*)(const int64_t *))jit_symbol(j, "model_check");
        size_t (*wsize)(const int64_t *) = (size_t(*)(const int64_t *))jit_symbol(j, "model_workspace_size");
        for (int v = 0; v < p.nvec; v++) {
            cr_assert_eq(check(p.dims[v]), p.want64[v].rc, "tcc: vector %d", v);
            cr_assert_eq((unsigned long long)wsize(p.dims[v]), p.want64[v].ws, "tcc: vector %d", v);
        }
        jit_free(j);
    }

    /* host: ASan + UBSan, every size and shape, and runs at the small accepted dims */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && gcc -std=c99 -Wall -Wextra -pedantic -Werror -O1 -g -fsanitize=address,undefined "
             "-fno-sanitize-recover=all -I. model.c '%s' -o probe -lm 2>cc.txt && ./probe 2>run.txt",
             dir, ONNX2C_SOURCE_DIR "/tests/data/overflow/probe.c");
    sh(cmd, model, dir);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    compare(path, &p, false, "host (ASan, UBSan)");

    /* Cortex-M4 on QEMU: 32-bit size_t (skipped without the cross tools) */
    if (system("command -v arm-none-eabi-gcc >/dev/null && command -v qemu-system-arm >/dev/null") == 0) {
        const char *emb = ONNX2C_SOURCE_DIR "/embedded";
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && rm -f out.txt && M4='-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16' && "
                 "arm-none-eabi-gcc $M4 -std=c99 -Wall -Wextra -pedantic -Werror -O1 -DPROBE_NO_RUN -I. "
                 "-c model.c '%s' 2>>cc.txt && "
                 "arm-none-eabi-gcc $M4 -std=c11 -O1 -c '%s/startup.c' 2>>cc.txt && "
                 "arm-none-eabi-gcc $M4 --specs=rdimon.specs -nostartfiles -L'%s' -T mps2.ld "
                 "-Wl,--gc-sections startup.o model.o probe.o -lm -o probe.elf 2>>cc.txt && "
                 "timeout 300 qemu-system-arm -M mps2-an386 -cpu cortex-m4 -display none -monitor none "
                 "-serial none -semihosting-config enable=on,target=native -kernel probe.elf",
                 dir, ONNX2C_SOURCE_DIR "/tests/data/overflow/probe.c", emb, emb);
        sh(cmd, "Cortex-M4", dir);
        snprintf(path, sizeof path, "%s/out.txt", dir);
        compare(path, &p, true, "Cortex-M4 (32-bit size_t)");
    } else
        cr_log_warn("arm-none-eabi-gcc or qemu-system-arm missing: the 32-bit run is skipped");

    onnx2c_output_free(&o);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    sh(cmd, "cleanup", dir);
}

Test(overflow, tinynet_batch_height_width) {
    const int64_t small[3] = {2, 9, 11};
    check_model(ONNX2C_SOURCE_DIR "/examples/tinynet.onnx", small, 3);
}

Test(overflow, retinaface_n_h_w) {
    const int64_t small[3] = {1, 17, 12};
    check_model(ONNX2C_SOURCE_DIR "/tests/models/retinaface_small/model.onnx", small, 3);
}

Test(overflow, transformer_b_s) {
    const int64_t small[2] = {2, 7};
    check_model(ONNX2C_SOURCE_DIR "/tests/models/transformer_encoder/model.onnx", small, 2);
}

Test(overflow, correlation_six_dims) {
    const int64_t small[6] = {1, 3, 9, 8, 3, 2};
    check_model(ONNX2C_SOURCE_DIR "/tests/models/corr_xcorr/model.onnx", small, 6);
}

/* ---- NAME_WORKSPACE_MAX under --max: sound, also near 2^62, or refused */

typedef struct MaxProbe {
    int nd;
    int64_t hi[MAXD];
    int npoints, naccepted;
    i128 worst; /* the largest exact workspace at accepted points */
} MaxProbe;

static void inspect_max(Compiler *c, void *user) {
    MaxProbe *m = user;
    Probe *p = calloc(1, sizeof *p);
    cr_assert_not_null(p);
    m->worst = -1;
    for (int v = 0; v < 4000; v++) {
        int64_t d[MAXD];
        for (int k = 0; k < m->nd; k++) {
            uint64_t r = next();
            /* corners, one below them, and points spread in between */
            d[k] = r % 4 == 0 ? m->hi[k] : r % 4 == 1 ? (m->hi[k] > 0 ? m->hi[k] - 1 : 0)
                   : (int64_t)((next() >> 1) % (uint64_t)(m->hi[k] + 1));
        }
        Want w;
        want_for(c, d, (i128)UINT64_MAX, &w, p);
        m->npoints++;
        if (w.rc != 0)
            continue;
        m->naccepted++;
        i128 ws = ev_exact(c->g->workspace, d);
        if (ws > m->worst)
            m->worst = ws;
    }
    free(p);
}

/* Returns false when onnx2c refused the bounds. */
static bool check_max(const char *model, int nd, const char *const *names, const int64_t *hi) {
    MaxProbe m = {.nd = nd};
    Options opt = {0};
    DimSetting max[MAXD];
    for (int k = 0; k < nd; k++) {
        snprintf(max[k].name, sizeof max[k].name, "%s", names[k]);
        max[k].value = m.hi[k] = hi[k];
    }
    opt.name = "model";
    opt.out_path = "model.c";
    opt.nmax = nd;
    opt.max = max;
    opt.inspect = inspect_max;
    opt.inspect_user = &m;
    Output o;
    char err[1024];
    int st = onnx2c_compile(model, &opt, &o, err, sizeof err);
    if (st != O2C_OK) {
        /* refused: only for bounds whose interval does not fit, saying so in one line */
        cr_assert_eq(st, O2C_EMODEL, "%s: %s", model, err);
        cr_assert(strstr(err, "does not fit in 64 bits") && !strchr(err, '\n'), "%s", err);
        return false;
    }
    const char *def = strstr(o.h_src, "#define MODEL_WORKSPACE_MAX ");
    cr_assert_not_null(def, "%s: no MODEL_WORKSPACE_MAX under --max", model);
    unsigned long long bound = strtoull(def + strlen("#define MODEL_WORKSPACE_MAX "), NULL, 10);
    cr_assert(m.worst <= (i128)bound, "%s: a workspace of %llu bytes at dims within --max, above "
              "MODEL_WORKSPACE_MAX %llu", model, (unsigned long long)m.worst, bound);
    onnx2c_output_free(&o);
    return true;
}

Test(overflow, workspace_max_sound) {
    static const struct {
        const char *model;
        int nd;
        const char *names[MAXD];
    } models[] = {
        {ONNX2C_SOURCE_DIR "/examples/tinynet.onnx", 3, {"batch", "height", "width"}},
        {ONNX2C_SOURCE_DIR "/tests/models/retinaface_small/model.onnx", 3, {"N", "H", "W"}},
        {ONNX2C_SOURCE_DIR "/tests/models/transformer_encoder/model.onnx", 2, {"B", "S"}},
        {ONNX2C_SOURCE_DIR "/tests/models/corr_xcorr/model.onnx", 6, {"N", "C", "H", "W", "KH", "KW"}},
    };
    int refused = 0, total = 0;
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        for (int trial = 0; trial < 12; trial++) {
            /* every bound small; one bound up to 2^62; every bound anywhere up to 2^62 */
            int64_t hi[MAXD];
            int big = (int)(next() % (uint64_t)models[i].nd);
            for (int k = 0; k < models[i].nd; k++) {
                int e = trial % 3 == 0 ? 1 + (int)(next() % 10)
                        : trial % 3 == 1 ? (k == big ? 20 + (int)(next() % 43) : 1 + (int)(next() % 8))
                                         : 1 + (int)(next() % 62);
                hi[k] = pow2ish(e);
            }
            refused += !check_max(models[i].model, models[i].nd, models[i].names, hi);
            total++;
        }
    cr_log_info("workspace_max_sound: %d bound sets, %d refused", total, refused);
    cr_assert_lt(refused, total * 3 / 4, "most bounds refused: little was tested");
}
