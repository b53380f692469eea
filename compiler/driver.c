/* driver.c — the compiler as a library call; reads like the table of contents of the pipeline.
 *
 *   load -> dims (--fix/--max) -> toposort -> infer (+fold) -> plan -> emit
 *
 * Every stage reports errors by longjmp back here; onnx2c_compile returns the status and the
 * one-line message, so the CLI, the harness and the unit tests all see the same thing. */
#include "onnx2c.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *basename_of(const char *p) {
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static _Noreturn void usage_error(Compiler *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    o2c_verror(c, O2C_EUSAGE, NULL, fmt, ap);
}

/* Forced-dynamic testing: every input axis, even a constant one, becomes a fresh dim named
 * INPUT_AXIS, so every shape in the graph is symbolic. */
static void force_dynamic(Compiler *c) {
    Graph *g = c->g;
    g->ndims = 0;
    for (int i = 0; i < g->ninputs; i++) {
        Value *v = g->inputs[i];
        for (int d = 0; d < v->rank; d++) {
            char name[300];
            snprintf(name, sizeof name, "%s_%d", v->name, d);
            v->shape[d] = sym_dim(c->sym, ir_add_dim(c, name));
        }
    }
    /* declared shapes named the old dims: those entries become unknown */
    for (int i = 0; i < g->nvalues; i++) {
        Value *v = g->values[i];
        for (int d = 0; v->has_decl && d < v->decl_rank; d++)
            if (v->decl_shape[d] && v->decl_shape[d]->kind != SYM_CONST)
                v->decl_shape[d] = NULL;
    }
}

/* --fix and --max: fixed dims become constants and leave the dim list. */
static void apply_dim_options(Compiler *c) {
    Graph *g = c->g;
    const Options *o = c->opt;
    if (!o)
        return;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? o->nmax : o->nfix;
        const DimSetting *set = pass ? o->max : o->fix;
        for (int k = 0; k < n; k++) {
            int found = -1;
            for (int i = 0; i < g->ndims; i++)
                if (strcmp(g->dims[i].name, set[k].name) == 0 || strcmp(g->dims[i].cname, set[k].name) == 0)
                    found = i;
            if (found < 0 && pass)
                continue; /* may name a data dim: see check_max_names */
            if (found < 0)
                usage_error(c, "--fix %s: the model has no dim named '%s'", set[k].name, set[k].name);
            if (set[k].value < 0)
                o2c_error(c, NULL, "--%s %s: the value must be >= 0", pass ? "max" : "fix", set[k].name);
            if (pass)
                g->dims[found].max = set[k].value;
            else
                g->dims[found].fixed = set[k].value;
        }
    }
    Sym **map = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(g->ndims + 1));
    Dim *kept = arena_alloc(c->arena, sizeof(Dim) * (size_t)(g->ndims + 1));
    int nk = 0;
    for (int i = 0; i < g->ndims; i++) {
        if (g->dims[i].fixed >= 0)
            map[i] = sym_const(c->sym, g->dims[i].fixed);
        else {
            map[i] = sym_dim(c->sym, nk);
            kept[nk++] = g->dims[i];
        }
    }
    if (nk == g->ndims)
        return;
    for (int i = 0; i < g->ninputs; i++) {
        Value *v = g->inputs[i];
        for (int d = 0; d < v->rank; d++)
            v->shape[d] = sym_subst(c->sym, v->shape[d], map);
    }
    for (int i = 0; i < g->nvalues; i++) {
        Value *v = g->values[i];
        for (int d = 0; v->has_decl && d < v->decl_rank; d++)
            if (v->decl_shape[d])
                v->decl_shape[d] = sym_subst(c->sym, v->decl_shape[d], map);
    }
    g->dims = kept;
    g->ndims = nk;
}

/* Every --max names an input dim or a data dim (made while inferring). */
static void check_max_names(Compiler *c) {
    const Options *o = c->opt;
    for (int k = 0; o && k < o->nmax; k++)
        if (ir_find_dim(c, o->max[k].name) < 0) {
            bool by_cname = false;
            for (int i = 0; i < c->g->ndims; i++)
                by_cname |= strcmp(c->g->dims[i].cname, o->max[k].name) == 0;
            if (!by_cname)
                usage_error(c, "--max %s: the model has no dim named '%s'", o->max[k].name,
                            o->max[k].name);
        }
}

/* The newest default-domain opset whose operators onnx2c implements (ONNX 1.12).  A newer
 * model compiles with a warning: an operator changed since may get the older semantics. */
enum { NEWEST_OPSET = 17 };

/* Out of memory anywhere in a compile (the arena, a Buf) unwinds like any error. */
static void on_oom(void *user) {
    Compiler *c = user;
    o2c_error(c, NULL, "out of memory");
}

void o2c_progress(Compiler *c, const char *stage, int64_t done, int64_t total) {
    if (c->opt->progress)
        c->opt->progress(c->opt->progress_user, stage, done, total);
}

static void *xcalloc(Compiler *c, size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p)
        o2c_error(c, NULL, "out of memory");
    return p;
}

bool onnx2c_parse_setting(const char *arg, DimSetting *out) {
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof out->name)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (errno || *end || end == eq + 1 || v < 0)
        return false;
    memcpy(out->name, arg, (size_t)(eq - arg));
    out->name[eq - arg] = 0;
    out->value = v;
    return true;
}

int onnx2c_compile(const char *path, const Options *opt, Output *out, char *err, size_t errlen) {
    static const Options no_options;
    memset(out, 0, sizeof *out);
    Compiler *c = calloc(1, sizeof *c);
    if (!c) {
        char raw[1200];
        snprintf(raw, sizeof raw, "%s: out of memory", path);
        onnx2c_oneline(err, errlen, raw);
        return O2C_EMODEL;
    }
    c->opt = opt ? opt : &no_options;
    c->path = path;
    OomHandler prev_oom = arena_on_oom((OomHandler){on_oom, c});
    int status = O2C_OK;
    if (setjmp(c->jmp)) {
        status = c->status ? c->status : O2C_EMODEL;
        snprintf(err, errlen, "%s", c->err);
        onnx2c_output_free(out);
        goto done;
    }
    c->arena = arena_new();
    c->sym = sym_ctx_new(c->arena);
    sym_ctx_set_error(c->sym, infer_sym_error, c);
    c->g = arena_alloc(c->arena, sizeof(Graph));
    const char *slash = strrchr(path, '/');
    c->model_dir = slash ? arena_strndup(c->arena, path, slash == path ? 1 : (size_t)(slash - path)) : ".";

    /* the C prefix and the header's file name */
    char stem[256] = "model";
    if (c->opt->out_path) {
        const char *b = basename_of(c->opt->out_path);
        size_t n = strlen(b);
        if (n > 2 && strcmp(b + n - 2, ".c") == 0)
            n -= 2;
        snprintf(stem, sizeof stem, "%.*s", (int)n, b);
    }
    c->header = arena_printf(c->arena, "%s.h", stem);
    char prefix[256];
    ir_to_cident(c->opt->name ? c->opt->name : stem, prefix, sizeof prefix);
    /* the prefix is compiler-made text in every API name: like every identifier the compiler
     * makes it holds no "__" (identifiers from model names are KIND__NAME) and so it may not
     * end in '_' ("in_" + "_run" would be the buffer of a value named "run") */
    if (!c->opt->name) {
        size_t k = 0;
        for (size_t i = 0; prefix[i]; i++)
            if (!(prefix[i] == '_' && k > 0 && prefix[k - 1] == '_'))
                prefix[k++] = prefix[i];
        while (k > 1 && prefix[k - 1] == '_')
            k--;
        prefix[k] = 0;
    }
    c->prefix = arena_strdup(c->arena, prefix);

    if (c->opt->name && strcmp(c->opt->name, prefix) != 0)
        usage_error(c, "--name '%s' is not a C identifier", c->opt->name);
    if (c->opt->name && (strstr(prefix, "__") || prefix[strlen(prefix) - 1] == '_'))
        usage_error(c, "--name '%s' may not hold \"__\" or end in '_'", c->opt->name);
    for (const char *p = stem; *p; p++) /* main.c refuses these; library callers too */
        if ((unsigned char)*p < 32 || (unsigned char)*p > 126 || strchr("\"'\\", *p) ||
            (p[0] == '/' && p[1] == '*') || (p[0] == '*' && p[1] == '/') || (p[0] == '?' && p[1] == '?'))
            usage_error(c, "the output's file name cannot be written into #include \"...\"");
    if (c->opt->weights_blob) { /* FILE.S names it in a string, OUT.h in comments */
        const char *wn = c->opt->weights_name ? basename_of(c->opt->weights_name) : "weights.bin";
        bool bad = !*wn;
        for (const char *p = wn; *p; p++)
            bad |= (unsigned char)*p < 32 || (unsigned char)*p > 126 || strchr("\"'\\", *p) ||
                   (p[0] == '/' && p[1] == '*') || (p[0] == '*' && p[1] == '/') ||
                   (p[0] == '?' && p[1] == '?');
        if (bad)
            usage_error(c, "the weights file's name must be printable ASCII without quotes, "
                           "backslashes, '/*', '*/' or '\?\?'");
    }
    ir_cident(c, "", "dims"); /* reserve the generated API's own names */
    load_model(c, path);
    if (c->g->opset > NEWEST_OPSET)
        o2c_warn(c, NULL, "opset %d of domain 'ai.onnx' is newer than %d, the newest onnx2c "
                 "implements: operators changed since may compile with their opset-%d semantics",
                 c->g->opset, NEWEST_OPSET, NEWEST_OPSET);
    if (c->opt->force_dynamic)
        force_dynamic(c);
    if (c->opt->drop_declared) /* declared types stay */
        for (int i = 0; i < c->g->nvalues; i++)
            c->g->values[i]->decl_rank = -1;
    apply_dim_options(c);
    c->g->nin_dims = c->g->ndims;
    ir_toposort(c);
    infer_graph(c);
    check_max_names(c);
    o2c_progress(c, "lowering", 0, 1);
    lower_graph(c);
    o2c_progress(c, "lowering", 1, 1);
    o2c_progress(c, "planning", 0, 1);
    plan_graph(c);
    o2c_progress(c, "planning", 1, 1);
    Buf *h = buf_new(c->arena);
    Buf *src = buf_new(c->arena);
    Buf *blob = buf_new(c->arena);
    Buf *asm_src = buf_new(c->arena);
    uint64_t blob_size = emit_graph(c, h, src, blob, asm_src);
    if (c->opt->report) {
        plan_report(c, c->opt->report_out ? c->opt->report_out : stdout);
        lower_report(c, c->opt->report_out ? c->opt->report_out : stdout);
    }
    out->h_src = buf_steal(h);
    out->c_src = c->opt->c_file ? NULL : buf_steal(src);
    if (c->opt->weights_blob) {
        out->weights_size = (size_t)blob_size;
        out->weights = c->opt->weights_file ? NULL : (unsigned char *)buf_steal(blob);
        out->s_src = buf_steal(asm_src);
    }
    out->name = xcalloc(c, strlen(c->prefix) + 1, 1);
    memcpy(out->name, c->prefix, strlen(c->prefix));
    out->ndims = c->g->nin_dims;
    out->ndata_dims = c->g->ndims - c->g->nin_dims;
    size_t nb = 0;
    for (int i = 0; i < c->g->ninputs; i++)
        nb += c->g->inputs[i]->rank > 0 ? (size_t)c->g->inputs[i]->rank : 0;
    out->bind = xcalloc(c, nb + 1, sizeof(DimBinding));
    for (int i = 0; i < c->g->ninputs; i++) {
        Value *v = c->g->inputs[i];
        for (int d = 0; d < v->rank; d++)
            if (v->shape[d]->kind == SYM_DIM)
                out->bind[out->nbind++] = (DimBinding){i, d, v->shape[d]->dim};
    }
    out->ninputs = c->g->ninputs;
    out->noutputs = c->g->noutputs;
    out->in_types = xcalloc(c, (size_t)c->g->ninputs + 1, sizeof(DType));
    out->out_types = xcalloc(c, (size_t)c->g->noutputs + 1, sizeof(DType));
    for (int i = 0; i < c->g->ninputs; i++)
        out->in_types[i] = c->g->inputs[i]->dtype;
    for (int i = 0; i < c->g->noutputs; i++)
        out->out_types[i] = c->g->outputs[i]->dtype;
    out->checks = xcalloc(c, (size_t)c->g->noutputs + 1, sizeof(OutputCheck));
    random_checks(c, out->checks);
    int nw = c->nwarn + (c->warn_dropped > 0);
    out->warnings = nw ? xcalloc(c, (size_t)nw, sizeof(char *)) : NULL;
    for (int i = 0; i < c->nwarn; i++) {
        out->warnings[i] = xcalloc(c, strlen(c->warn[i]) + 1, 1);
        memcpy(out->warnings[i], c->warn[i], strlen(c->warn[i]));
        out->nwarnings++;
    }
    if (c->warn_dropped) {
        char *w = arena_printf(c->arena, "%s: %d more warnings not shown", path, c->warn_dropped);
        out->warnings[out->nwarnings] = xcalloc(c, sizeof c->err, 1);
        onnx2c_oneline(out->warnings[out->nwarnings++], sizeof c->err, w);
    }
    if (c->opt->inspect)
        c->opt->inspect(c, c->opt->inspect_user);
done:
    arena_free(c->arena);
    arena_on_oom(prev_oom);
    free(c);
    return status;
}

void onnx2c_output_free(Output *out) {
    free(out->c_src);
    free(out->weights);
    free(out->s_src);
    free(out->h_src);
    free(out->name);
    free(out->bind);
    free(out->in_types);
    free(out->out_types);
    for (int i = 0; i < out->nwarnings; i++)
        free(out->warnings[i]);
    free(out->warnings);
    free(out->checks);
    memset(out, 0, sizeof *out);
}
