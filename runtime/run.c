/* run.c — onnx2c-run: runs any model once (or N times), a smoke test without writing C.
 *
 * Compiles MODEL.onnx with the onnx2c library and its C with the JIT (model.c's steps, as
 * onnx2c-test), then: inputs from .npy or .pb files (--input), from a reference folder
 * (--compare DIR: input_K.pb or NAME.npy), else random with a fixed seed; the dims from --dim
 * and from the given inputs' shapes; outputs allocated at their size (a data dim at its bound,
 * CONTRACT.md §2b); the run timed (median of --repeat); each output's shape and summary
 * printed, written as .npy (--output-dir), compared with references (--compare: model.c's
 * jm_compare, so check_output of draws.c: CONTRACT.md §3's tolerance, or for an output made of
 * random draws what its ops guarantee).  Exit status: 0 pass, 1 fail, 2 bad usage. */
#include "runtime.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: onnx2c-run MODEL.onnx [options]\n"
    "\n"
    "Compiles MODEL.onnx with onnx2c and its C in memory (libtcc, or --cc), runs it on inputs\n"
    "from files or random ones, prints each output's shape and summary and the time per run,\n"
    "and compares the outputs with reference files.\n"
    "\n"
    "options:\n"
    "  --dim NAME=V        the symbolic dim NAME is V (repeatable); dims that given inputs\n"
    "                      have are taken from their shapes\n"
    "  --input NAME=FILE   input NAME (or its index) from FILE: .npy, or else a serialized\n"
    "                      onnx.TensorProto (.pb) (repeatable); inputs not given are random\n"
    "  --compare DIR       compare the outputs with DIR/output_K.pb or DIR/NAME.npy (one\n"
    "                      made of random draws: what its ops guarantee, as onnx2c-test\n"
    "                      checks); inputs not given come from DIR/input_K.pb or\n"
    "                      DIR/NAME.npy when there\n"
    "  --output-dir DIR    write each output as DIR/NAME.npy\n"
    "  --repeat N          run N times; the time printed is the median (default 1)\n"
    "  --seed S            the seed of the random inputs (default 1): floats in [-1, 1),\n"
    "                      integers in [0, 3], bools 0 or 1\n"
    "  --cc \"CMD\"          compile the C with CMD (e.g. \"gcc -O2\") instead of libtcc\n"
    "  --max NAME=V        onnx2c --max: a bound for a dim or a data dim (repeatable)\n"
    "  --fix NAME=V        onnx2c --fix: compile the dim NAME as the constant V (repeatable)\n"
    "  --memory-first      compile with onnx2c --memory-first\n"
    "  --no-winograd       compile with onnx2c --no-winograd\n"
    "  --weights           compile with onnx2c --weights: the weights go into a blob (a\n"
    "                      temporary file, mapped), checked once with NAME_weights_check and\n"
    "                      passed to every NAME_run_w\n"
    "  -h, --help          show this text\n"
    "  --version           show the version\n"
    "\n"
    "NAME in a file name: the ONNX name with bytes other than letters, digits, '.', '_' and\n"
    "'-' made '_'.  bfloat16 is read and written as its bits, uint16 ('<u2').\n"
    "\n"
    "exit status: 0 the model ran (and every compared output matches), 1 it does not compile,\n"
    "does not run or an output differs, 2 bad usage (options, missing dims, unreadable or\n"
    "mismatched input files, no reference in DIR)\n";

typedef struct Args {
    const char *model, *compare, *outdir, *cc;
    int repeat;
    uint64_t seed;
    int ndim, ninput;
    const char **dim, **input; /* --dim NAME=V, --input NAME=FILE, from argv */
    Options opt;
} Args;

/* Prints "onnx2c-run: error: ..." (one line) and returns status. */
__attribute__((format(printf, 2, 3))) static int fail(int status, const char *fmt, ...) {
    char raw[2400], line[2400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    onnx2c_oneline(line, sizeof line, raw);
    fflush(stdout); /* the lines so far first */
    fprintf(stderr, "onnx2c-run: error: %s\n", line);
    return status;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ names and files */

/* An ONNX name as a file name: bytes other than [A-Za-z0-9._-] become '_' ("" and the dot
 * names get a '_' in front). */
static void file_name(char *dst, size_t cap, const char *name) {
    size_t n = 0;
    if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        dst[n++] = '_';
    for (const char *p = name; *p && n + 1 < cap; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '.' || ch == '_' || ch == '-';
        dst[n++] = ok ? ch : '_';
    }
    dst[n] = 0;
}

static bool has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* A tensor file: .npy by its suffix, else a serialized TensorProto. */
static int load_file(const char *path, Tensor **t, char *err, size_t errlen) {
    return has_suffix(path, ".npy") ? npy_read(path, t, err, errlen)
                                    : onnx2c_load_tensor(path, t, err, errlen);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* mkdir -p */
static int make_dirs(const char *dir) {
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0777) && errno != EEXIST)
                return -1;
            *s = '/';
        }
    struct stat st;
    if (mkdir(p, 0777) && !(errno == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
        return -1;
    return 0;
}

/* ------------------------------------------------------------------ random inputs */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* float -> IEEE half, to nearest even (the values here are in [-1, 1): no overflow) */
static uint16_t half_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    int e = (int)((u >> 23) & 255) - 127 + 15;
    uint32_t m = u & 0x7FFFFF;
    if (e <= 0) { /* subnormal or zero */
        if (e < -10)
            return sign;
        m |= 0x800000;
        int shift = 14 - e;
        uint32_t half = m >> shift, rest = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t h = (uint32_t)e << 10 | m >> 13, rest = m & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

/* n random elements of type t: floats in [-1, 1), integers in [0, 3], bools 0 or 1. */
static void fill_random(DType t, void *p, int64_t n, uint64_t *state) {
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(state);
        float f = (float)((double)(r >> 11) * 0x1p-53 * 2.0 - 1.0);
        int small = (int)(r >> 62); /* 0..3 */
        switch (t) {
        case DT_FLOAT: ((float *)p)[i] = f; break;
        case DT_DOUBLE: ((double *)p)[i] = (double)(r >> 11) * 0x1p-53 * 2.0 - 1.0; break;
        case DT_FLOAT16: ((uint16_t *)p)[i] = half_bits(f); break;
        case DT_BFLOAT16: {
            uint32_t u;
            memcpy(&u, &f, 4);
            ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
            break;
        }
        case DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)(r >> 63); break;
        case DT_INT8: case DT_UINT8: ((uint8_t *)p)[i] = (uint8_t)small; break;
        case DT_INT16: case DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)small; break;
        case DT_INT32: case DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)small; break;
        case DT_INT64: case DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)small; break;
        default: break;
        }
    }
}

/* ------------------------------------------------------------------ the run */

typedef struct Input {
    Tensor *t;          /* from a file, or NULL */
    const char *source; /* the file, or NULL: random */
    void *data;         /* what the model reads */
    int rank;
    int64_t shape[JM_MAX_RANK];
    bool own_source;    /* source malloc'd here */
} Input;

/* Input index of the --input spec "NAME=FILE": the longest prefix before a '=' that names an
 * input, else a number before the first '='; -1 when none. *file is what follows. */
static int input_of(const JitModel *m, const char *spec, const char **file) {
    int n = m->out.ninputs;
    for (const char *eq = strrchr(spec, '='); eq; ) {
        for (int i = 0; i < n; i++)
            if (strlen(m->input_names[i]) == (size_t)(eq - spec) &&
                !strncmp(m->input_names[i], spec, (size_t)(eq - spec))) {
                *file = eq + 1;
                return i;
            }
        const char *prev = NULL;
        for (const char *p = spec; p < eq; p++)
            if (*p == '=')
                prev = p;
        eq = prev;
    }
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec)
        return -1;
    int k = 0;
    for (const char *p = spec; p < eq; p++) {
        if (*p < '0' || *p > '9' || k > 100000)
            return -1;
        k = k * 10 + (*p - '0');
    }
    *file = eq + 1;
    return k < n ? k : -1;
}

/* "'a', 'b'" */
static void name_list(char *buf, size_t cap, const char *const *names, int n) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s'%s'", i ? ", " : "", names[i]);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_time(const char *what, double s) {
    if (s < 1e-3)
        printf("%s%.1f us", what, s * 1e6);
    else if (s < 1)
        printf("%s%.3f ms", what, s * 1e3);
    else
        printf("%s%.3f s", what, s);
}

/* "min -0.5 max 0.9 mean 0.1 NaN 0" of n elements */
static void print_summary(DType t, const void *p, int64_t n) {
    if (n == 0) {
        printf("  (no elements)");
        return;
    }
    bool fl = t == DT_FLOAT || t == DT_DOUBLE || t == DT_FLOAT16 || t == DT_BFLOAT16;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t nan = 0, inf = 0, fin = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = tensor_value(t, p, i);
        if (isnan(v)) {
            nan++;
            continue;
        }
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        if (isinf(v))
            inf++;
        else {
            sum += v;
            fin++;
        }
    }
    if (nan == n)
        printf("  all NaN");
    else
        printf("  min %.6g max %.6g mean %.6g", lo, hi, fin ? sum / (double)fin : NAN);
    if (fl)
        printf(" NaN %lld", (long long)nan);
    if (inf)
        printf(" inf %lld", (long long)inf);
}

/* Loads the inputs given by --input, then those in the --compare folder. */
static int load_inputs(const Args *a, const JitModel *m, Input *in) {
    char err[1200];
    for (int k = 0; k < a->ninput; k++) {
        const char *spec = a->input[k], *file = NULL;
        int i = input_of(m, spec, &file);
        if (i < 0) {
            char names[1000];
            name_list(names, sizeof names, m->input_names, m->out.ninputs);
            return fail(EXIT_USAGE, "--input %s: no input of that name or index (the inputs: %s)",
                        spec, m->out.ninputs ? names : "none");
        }
        if (in[i].t)
            return fail(EXIT_USAGE, "--input: input '%s' is given twice", m->input_names[i]);
        if (load_file(file, &in[i].t, err, sizeof err))
            return fail(EXIT_USAGE, "--input %s: %s", m->input_names[i], err);
        in[i].source = file;
    }
    for (int i = 0; a->compare && i < m->out.ninputs; i++) {
        if (in[i].t)
            continue;
        char path[4200], fn[1000];
        snprintf(path, sizeof path, "%s/input_%d.pb", a->compare, i);
        if (!exists(path)) {
            file_name(fn, sizeof fn, m->input_names[i]);
            snprintf(path, sizeof path, "%s/%s.npy", a->compare, fn);
            if (!exists(path))
                continue;
        }
        if (load_file(path, &in[i].t, err, sizeof err))
            return fail(EXIT_USAGE, "--compare: %s", err);
        in[i].source = strdup(path);
        in[i].own_source = true;
    }
    for (int i = 0; i < m->out.ninputs; i++) {
        Tensor *t = in[i].t;
        if (!t)
            continue;
        DType want = m->out.in_types[i];
        if (t->dtype != want && !(want == DT_BFLOAT16 && t->dtype == DT_UINT16))
            return fail(EXIT_USAGE, "input '%s' is %s, but %s holds %s", m->input_names[i],
                        onnx2c_dtype_name(want), in[i].source, onnx2c_dtype_name(t->dtype));
    }
    return 0;
}

/* The dims: --dim, then the given inputs' shapes (each must agree); every input dim set. */
static int find_dims(const Args *a, const JitModel *m, const Input *in, int64_t *dims) {
    int nd = m->out.ndims;
    bool *set = calloc((size_t)nd + 1, sizeof(bool));
    const char **from = calloc((size_t)nd + 1, sizeof(char *));
    int rc = 0;
    for (int k = 0; k < a->ndim && !rc; k++) {
        DimSetting s;
        if (!onnx2c_parse_setting(a->dim[k], &s)) {
            rc = fail(EXIT_USAGE, "--dim needs NAME=VALUE with VALUE >= 0: '%s'", a->dim[k]);
            break;
        }
        int d = 0;
        while (d < nd + m->out.ndata_dims && strcmp(m->dim_names[d], s.name))
            d++;
        if (d >= nd) {
            char names[1000];
            name_list(names, sizeof names, m->dim_names, nd);
            rc = d < nd + m->out.ndata_dims
                     ? fail(EXIT_USAGE, "--dim %s: a data dim is set by the run (bound it with --max)",
                            s.name)
                     : fail(EXIT_USAGE, "--dim %s: the model has no dim of that name (its dims: %s)",
                            s.name, nd ? names : "none");
            break;
        }
        dims[d] = s.value;
        set[d] = true;
        from[d] = "--dim";
    }
    for (int b = 0; b < m->out.nbind && !rc; b++) {
        const DimBinding *db = &m->out.bind[b];
        const Tensor *t = in[db->input].t;
        if (!t || db->axis >= t->rank)
            continue;
        int64_t v = t->dims[db->axis];
        if (set[db->dim] && dims[db->dim] != v) {
            rc = fail(EXIT_USAGE, "dim '%s' is %lld from %s but %lld from %s (axis %d of input '%s')",
                      m->dim_names[db->dim], (long long)dims[db->dim], from[db->dim], (long long)v,
                      in[db->input].source, db->axis, m->input_names[db->input]);
            break;
        }
        dims[db->dim] = v;
        set[db->dim] = true;
        from[db->dim] = in[db->input].source;
    }
    if (!rc) {
        char missing[1000] = "";
        size_t k = 0;
        for (int d = 0; d < nd && k < sizeof missing; d++)
            if (!set[d])
                k += (size_t)snprintf(missing + k, sizeof missing - k, "%s%s", k ? ", " : "",
                                      m->dim_names[d]);
        if (k)
            rc = fail(EXIT_USAGE, "missing dims: %s (give --dim NAME=V, or inputs that have them)",
                      missing);
    }
    free(set);
    free(from);
    return rc;
}

/* Checks the given inputs' shapes and makes the random ones. */
static int prepare_inputs(const Args *a, const JitModel *m, const int64_t *dims, Input *in) {
    uint64_t state = a->seed;
    for (int i = 0; i < m->out.ninputs; i++) {
        Input *x = &in[i];
        x->rank = m->input_shape(dims, i, x->shape);
        if (x->rank < 0 || x->rank > JM_MAX_RANK)
            return fail(EXIT_FAIL, "model_input_shape(%d) returned %d", i, x->rank);
        char s1[600], s2[600];
        jm_shape_text(s1, sizeof s1, x->rank, x->shape);
        if (x->t) {
            bool same = x->t->rank == x->rank;
            for (int d = 0; same && d < x->rank; d++)
                same = x->t->dims[d] == x->shape[d];
            if (!same) {
                jm_shape_text(s2, sizeof s2, x->t->rank, x->t->dims);
                return fail(EXIT_USAGE, "input '%s' is %s for these dims, but %s holds %s",
                            m->input_names[i], s1, x->source, s2);
            }
            x->data = x->t->data;
            continue;
        }
        size_t n = 1, es = onnx2c_dtype_size(m->out.in_types[i]);
        for (int d = 0; d < x->rank; d++) {
            if (x->shape[d] && n > SIZE_MAX / 4 / es / (size_t)x->shape[d])
                return fail(EXIT_USAGE, "input '%s' is too large: %s", m->input_names[i], s1);
            n *= (size_t)x->shape[d];
        }
        x->data = calloc(1, n * es + 64);
        if (!x->data)
            return fail(EXIT_FAIL, "no memory for input '%s' %s", m->input_names[i], s1);
        fill_random(m->out.in_types[i], x->data, (int64_t)n, &state);
    }
    return 0;
}

/* Reference for output i in DIR: output_K.pb, else NAME.npy; NULL (and *missing) when none. */
static int load_reference(const char *dir, const JitModel *m, int i, Tensor **t, char *path,
                          size_t cap) {
    char fn[1000], err[1200];
    *t = NULL;
    snprintf(path, cap, "%s/output_%d.pb", dir, i);
    if (!exists(path)) {
        file_name(fn, sizeof fn, m->output_names[i]);
        snprintf(path, cap, "%s/%s.npy", dir, fn);
        if (!exists(path))
            return 0;
    }
    if (load_file(path, t, err, sizeof err))
        return fail(EXIT_USAGE, "--compare: %s", err);
    return 0;
}

static int run(const Args *a) {
    JitModel m;
    char msg[2400];
    double t0 = now();
    int st = jm_compile(&m, a->model, &a->opt, msg, sizeof msg);
    if (st)
        return fail(st == O2C_EMODEL ? EXIT_FAIL : EXIT_USAGE, "%s", msg);
    double t1 = now();
    if (jm_load(&m, a->cc, msg, sizeof msg)) {
        jm_close(&m);
        return fail(EXIT_FAIL, "%s: %s", a->model, msg);
    }
    double t2 = now();
    int nin = m.out.ninputs, nout = m.out.noutputs, nd = m.out.ndims;
    Input *in = calloc((size_t)nin + 1, sizeof(Input));
    void **outs = calloc((size_t)nout + 1, sizeof(void *));
    const void **inptr = calloc((size_t)nin + 1, sizeof(void *));
    double *secs = calloc((size_t)a->repeat, sizeof(double));
    int64_t *dims = jm_new_dims(&m);
    /* --compare: the references, their files, the inputs as tensors */
    Tensor **want = calloc((size_t)nout + 1, sizeof(Tensor *));
    char (*paths)[4200] = calloc((size_t)nout + 1, sizeof *paths);
    Tensor *inview = calloc((size_t)nin + 1, sizeof(Tensor));
    Tensor **inv = calloc((size_t)nin + 1, sizeof(Tensor *));
    int rc = EXIT_PASS;
    if (!in || !outs || !inptr || !secs || !dims || !want || !paths || !inview || !inv) {
        rc = fail(EXIT_FAIL, "out of memory");
        goto done;
    }
    printf("model %s: %d input%s, %d output%s, %d dim%s", a->model, nin, nin == 1 ? "" : "s",
           nout, nout == 1 ? "" : "s", nd, nd == 1 ? "" : "s");
    if (m.out.ndata_dims)
        printf(" and %d data dim%s", m.out.ndata_dims, m.out.ndata_dims == 1 ? "" : "s");
    print_time("; onnx2c ", t1 - t0);
    printf(", %s", a->cc ? a->cc : "libtcc");
    print_time(" ", t2 - t1);
    if (m.blob)
        printf("; weights: a blob of %zu bytes", m.weights_size);
    printf("\n");
    for (int i = 0; i < m.out.nwarnings; i++)
        printf("warning: %s\n", m.out.warnings[i]);
    if ((rc = load_inputs(a, &m, in)) || (rc = find_dims(a, &m, in, dims)))
        goto done;
    if (nd) {
        printf("dims:");
        for (int d = 0; d < nd; d++)
            printf(" %s=%lld", m.dim_names[d], (long long)dims[d]);
        printf("\n");
    }
    int crc = m.check(dims);
    if (crc) {
        rc = fail(EXIT_FAIL, "these dims are refused: model_check returned %d (%s)", crc,
                  m.strerror(crc));
        goto done;
    }
    if ((rc = prepare_inputs(a, &m, dims, in)))
        goto done;
    for (int i = 0; i < nin; i++) {
        char s[600];
        jm_shape_text(s, sizeof s, in[i].rank, in[i].shape);
        printf("input  %d '%s': %s%s  ", i, m.input_names[i], onnx2c_dtype_name(m.out.in_types[i]), s);
        if (in[i].source)
            printf("from %s\n", in[i].source);
        else
            printf("random (seed %llu)\n", (unsigned long long)a->seed);
        inptr[i] = in[i].data;
    }
    for (int i = 0; i < nout; i++)
        if (jm_alloc_output(&m, dims, i, &outs[i], NULL, msg, sizeof msg) < 0) {
            rc = fail(EXIT_FAIL, "%s", msg);
            goto done;
        }
    if (jm_run(&m, dims, inptr, outs, a->repeat, secs, msg, sizeof msg)) {
        rc = fail(EXIT_FAIL, "%s", msg);
        goto done;
    }
    if (m.out.ndata_dims) {
        printf("data dims:");
        for (int d = nd; d < nd + m.out.ndata_dims; d++)
            printf(" %s=%lld", m.dim_names[d], (long long)dims[d]);
        printf("\n");
    }
    if (a->outdir && make_dirs(a->outdir)) {
        rc = fail(EXIT_USAGE, "--output-dir: cannot make '%s': %s", a->outdir, strerror(errno));
        goto done;
    }
    for (int i = 0; i < nout; i++) {
        int64_t shape[JM_MAX_RANK];
        int r = m.output_shape(dims, i, shape); /* the actual shape, after the run */
        if (r < 0 || r > JM_MAX_RANK) {
            rc = fail(EXIT_FAIL, "model_output_shape(%d) returned %d after the run", i, r);
            goto done;
        }
        int64_t n = 1;
        for (int d = 0; d < r; d++)
            n *= shape[d];
        char s[600];
        jm_shape_text(s, sizeof s, r, shape);
        printf("output %d '%s': %s%s", i, m.output_names[i], onnx2c_dtype_name(m.out.out_types[i]),
               s);
        print_summary(m.out.out_types[i], outs[i], n);
        printf("\n");
        if (a->outdir) {
            char fn[1000], path[4200], err[1200];
            file_name(fn, sizeof fn, m.output_names[i]);
            snprintf(path, sizeof path, "%s/%s.npy", a->outdir, fn);
            if (npy_write(path, m.out.out_types[i], r, shape, outs[i], err, sizeof err)) {
                rc = fail(EXIT_USAGE, "--output-dir: %s", err);
                goto done;
            }
        }
    }
    qsort(secs, (size_t)a->repeat, sizeof *secs, cmp_double);
    print_time("time: ", secs[a->repeat / 2]);
    printf(" per run (median of %d)\n", a->repeat);
    if (a->outdir)
        printf("outputs written to %s/\n", a->outdir);
    if (a->compare) {
        /* all the references first: check_output reads the inputs and, for Dropout's output
         * and mask, the other outputs */
        int compared = 0, failed = 0;
        for (int i = 0; i < nout; i++)
            if ((rc = load_reference(a->compare, &m, i, &want[i], paths[i], sizeof paths[i])))
                goto done;
        for (int i = 0; i < nin; i++) {
            int64_t n = 1;
            for (int d = 0; d < in[i].rank; d++)
                n *= in[i].shape[d];
            inview[i] = (Tensor){.name = m.input_names[i], .dtype = m.out.in_types[i],
                                 .rank = in[i].rank, .dims = in[i].shape, .nelem = n,
                                 .data = in[i].data};
            inv[i] = &inview[i];
        }
        for (int i = 0; i < nout; i++) {
            if (!want[i]) {
                printf("compare output %d '%s': no reference in %s\n", i, m.output_names[i],
                       a->compare);
                continue;
            }
            compared++;
            if (jm_compare(&m, dims, i, inv, nin, want, outs, nout, msg, sizeof msg))
                printf("compare output %d '%s': ok\n", i, m.output_names[i]);
            else {
                failed++;
                printf("compare output %d '%s': FAIL %s (%s)\n", i, m.output_names[i], msg,
                       paths[i]);
            }
        }
        if (!compared) {
            rc = fail(EXIT_USAGE, "--compare: no reference in '%s' (output_K.pb or NAME.npy)",
                      a->compare);
            goto done;
        }
        printf("%s: %d of %d output%s compared\n", failed ? "FAIL" : "PASS", compared, nout,
               nout == 1 ? "" : "s");
        rc = failed ? EXIT_FAIL : EXIT_PASS;
    }
done:
    for (int i = 0; in && i < nin; i++) {
        if (!in[i].t) /* random */
            free(in[i].data);
        onnx2c_tensor_free(in[i].t);
        if (in[i].own_source)
            free((void *)in[i].source);
    }
    for (int i = 0; i < nout; i++) {
        if (outs)
            free(outs[i]);
        if (want)
            onnx2c_tensor_free(want[i]);
    }
    free(in);
    free(outs);
    free(inptr);
    free(secs);
    free(dims);
    free(want);
    free(paths);
    free(inview);
    free(inv);
    jm_close(&m);
    fflush(stdout);
    return rc;
}

int main(int argc, char **argv) {
    Args a = {.repeat = 1, .seed = 1};
    a.dim = calloc((size_t)argc, sizeof(char *));
    a.input = calloc((size_t)argc, sizeof(char *));
    DimSetting *fix = calloc((size_t)argc, sizeof *fix), *max = calloc((size_t)argc, sizeof *max);
    int rc = EXIT_PASS;
    if (!a.dim || !a.input || !fix || !max) {
        rc = fail(EXIT_FAIL, "out of memory");
        goto end;
    }
    a.opt.fix = fix;
    a.opt.max = max;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool next = i + 1 < argc;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(usage, stdout);
            goto end;
        } else if (!strcmp(o, "--version")) {
            printf("onnx2c-run %s\n", O2C_VERSION);
            goto end;
        } else if (!strcmp(o, "--memory-first")) {
            a.opt.memory_first = true;
            continue;
        } else if (!strcmp(o, "--no-winograd")) {
            a.opt.no_winograd = true;
            continue;
        } else if (!strcmp(o, "--weights")) {
            a.opt.weights_blob = true;
            continue;
        } else if (o[0] != '-') {
            if (a.model) {
                rc = fail(EXIT_USAGE, "unexpected argument '%s' (try 'onnx2c-run --help')", o);
                goto end;
            }
            a.model = o;
            continue;
        }
        static const char *const with_value[] = {"--dim", "--input", "--compare", "--output-dir",
                                                 "--cc", "--repeat", "--seed", "--max", "--fix"};
        bool known = false;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            known |= !strcmp(o, with_value[k]);
        if (!known || !next) {
            rc = fail(EXIT_USAGE, known ? "%s needs a value (try 'onnx2c-run --help')"
                                        : "unknown option '%s' (try 'onnx2c-run --help')", o);
            goto end;
        }
        const char *v = argv[++i];
        if (!strcmp(o, "--dim"))
            a.dim[a.ndim++] = v;
        else if (!strcmp(o, "--input"))
            a.input[a.ninput++] = v;
        else if (!strcmp(o, "--compare"))
            a.compare = v;
        else if (!strcmp(o, "--output-dir"))
            a.outdir = v;
        else if (!strcmp(o, "--cc"))
            a.cc = v;
        else if (!strcmp(o, "--repeat") || !strcmp(o, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            bool rep = o[2] == 'r';
            if (errno || *end || end == v || v[0] == '-' || (rep && (x < 1 || x > 1000000))) {
                rc = fail(EXIT_USAGE, "%s needs %s, not '%s'", o,
                          rep ? "a count from 1 to 1000000" : "a number >= 0", v);
                goto end;
            }
            if (rep)
                a.repeat = (int)x;
            else
                a.seed = x;
        } else { /* --max, --fix */
            bool isfix = o[2] == 'f';
            if (!onnx2c_parse_setting(v, isfix ? &fix[a.opt.nfix] : &max[a.opt.nmax])) {
                rc = fail(EXIT_USAGE, "%s needs DIM=VALUE with VALUE >= 0: '%s'", o, v);
                goto end;
            }
            if (isfix)
                a.opt.nfix++;
            else
                a.opt.nmax++;
        }
    }
    if (!a.model) {
        fputs(usage, stderr);
        rc = EXIT_USAGE;
        goto end;
    }
    rc = run(&a);
end:
    free(a.dim);
    free(a.input);
    free(fix);
    free(max);
    return rc;
}
