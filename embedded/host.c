/* host.c — onnx2c-emb: the host side of tools/embedded.sh (tests on a Cortex-M under QEMU).
 *
 *   onnx2c-emb bounds MODEL.onnx CASE_DIR
 *       prints "--max DIM=V ..." with V the largest value of each dim over CASE_DIR's data sets
 *       (nothing for a model without symbolic dims).
 *   onnx2c-emb prep  [--fix D=V]... [--max D=V]... [--memory-first] MODEL.onnx SRC WORK
 *       writes what embedded/runner.c reads from WORK: run.bin (int64: ndims, dims..., nin,
 *       input bytes..., nout, output bytes...) and in_K.raw; prints the bytes of all inputs and
 *       outputs (each rounded up to 64), which sizes the runner's static I/O buffer.  An output
 *       whose size data dims decide (CONTRACT §2b) gets the bytes of its bound; the runner
 *       writes back its actual size.
 *   onnx2c-emb check [--fix D=V]... [--max D=V]... [--memory-first] [--exact] MODEL.onnx SRC WORK
 *       compares WORK/out_K.raw, written back by the runner, with the expected outputs under
 *       CONTRACT.md section 3 (runtime/compare.c), or bit for bit with --exact (the int8
 *       models: their dequantized outputs are exact float32 products); prints "ok" or the
 *       first mismatch, exits 0/1.
 *
 * SRC is a test_data_set_N folder (input_K.pb, output_K.pb), or "pattern": for a model without
 * symbolic dims, inputs of a fixed deterministic pattern, and as the reference the outputs of
 * the same generated C compiled on the host with gcc -O2 -std=c99.
 * The model is compiled in memory with the same compiler library and options as the onnx2c
 * command line, with prefix "net", as tools/embedded.sh converts it. */
#include "runtime.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*check_fn)(const int64_t *);
typedef size_t (*ws_fn)(const int64_t *);
typedef int (*shape_fn)(const int64_t *, int, int64_t *);
typedef int (*run_fn)(const int64_t *, const void *const *, void *const *, void *);

#define MAXT 64

static int die(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "onnx2c-emb: error: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 1;
}

static int read_set(const char *dir, const char *prefix, Tensor **ts, char *err, size_t errlen) {
    int n = 0;
    for (; n < MAXT; n++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s_%d.pb", dir, prefix, n);
        if (access(path, F_OK) != 0)
            break;
        if (onnx2c_load_tensor(path, &ts[n], err, errlen))
            return -1;
    }
    return n;
}

static void free_set(Tensor **ts, int n) {
    for (int i = 0; i < n; i++)
        onnx2c_tensor_free(ts[i]);
}

/* The element type of input/output i, from the "Inputs and outputs" comment of the header. */
static DType io_dtype(const char *h, bool output, int i) {
    char key[64];
    snprintf(key, sizeof key, " *   %s %d '", output ? "output" : "input ", i);
    const char *p = strstr(h, key);
    if (!p || !(p = strstr(p + strlen(key), "': ")))
        return DT_UNDEFINED;
    p += 3;
    for (int t = 1; t <= DT_BFLOAT16; t++) {
        const char *nm = onnx2c_dtype_name((DType)t);
        size_t n = strlen(nm);
        if (onnx2c_dtype_size((DType)t) && !strncmp(p, nm, n) && p[n] == '[')
            return (DType)t;
    }
    return DT_UNDEFINED;
}

static int64_t numel(const int64_t *s, int r) {
    int64_t n = 1;
    for (int d = 0; d < r; d++)
        n *= s[d];
    return n;
}

/* A deterministic pattern in [-1, 1] (integers: 0..9, bool: 0/1). */
static void fill_pattern(DType t, void *p, int64_t n, int k) {
    for (int64_t i = 0; i < n; i++) {
        double v = (double)((i * 7919 + k * 131) % 2001) / 1000.0 - 1.0;
        int64_t iv = (i * 7 + k) % 10;
        switch (t) {
        case DT_FLOAT: ((float *)p)[i] = (float)v; break;
        case DT_DOUBLE: ((double *)p)[i] = v; break;
        case DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)(iv & 1); break;
        default: {
            size_t es = onnx2c_dtype_size(t);
            memcpy((char *)p + (size_t)i * es, &iv, es); /* little-endian */
        }
        }
    }
}

static bool write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static void *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc((size_t)len + 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

/* --exact: every element bit for bit; msg names the first that differs. */
static bool same_bits(const Tensor *want, const void *got, char *msg, size_t msglen) {
    size_t es = onnx2c_dtype_size(want->dtype);
    for (int64_t i = 0; i < want->nelem; i++) {
        const char *w = (const char *)want->data + (size_t)i * es, *g = (const char *)got + (size_t)i * es;
        if (memcmp(w, g, es) == 0)
            continue;
        if (want->dtype == DT_FLOAT) {
            float fw, fg;
            memcpy(&fw, w, 4);
            memcpy(&fg, g, 4);
            snprintf(msg, msglen, "element %lld: got %.9g, want %.9g (not bit-exact)", (long long)i,
                     (double)fg, (double)fw);
        } else
            snprintf(msg, msglen, "element %lld differs (not bit-exact)", (long long)i);
        return false;
    }
    return true;
}

static bool parse_setting(const char *s, DimSetting *d) {
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof d->name)
        return false;
    memcpy(d->name, s, (size_t)(eq - s));
    d->name[eq - s] = 0;
    char *end;
    d->value = strtoll(eq + 1, &end, 10);
    return *end == 0;
}

int main(int argc, char **argv) {
    static DimSetting fix[32], max[32];
    Options opt = {.name = "net", .out_path = "net.c", .fix = fix, .max = max};
    const char *pos[4];
    int npos = 0;
    bool exact = false;
    for (int i = 1; i < argc; i++) {
        bool isfix = !strcmp(argv[i], "--fix"), ismax = !strcmp(argv[i], "--max");
        if ((isfix || ismax) && i + 1 < argc) {
            int *n = isfix ? &opt.nfix : &opt.nmax;
            if (*n == 32 || !parse_setting(argv[++i], isfix ? &fix[*n] : &max[*n]))
                return die("bad setting '%s'%s", argv[i], "");
            (*n)++;
        } else if (!strcmp(argv[i], "--memory-first"))
            opt.memory_first = true;
        else if (!strcmp(argv[i], "--exact"))
            exact = true;
        else if (npos < 4)
            pos[npos++] = argv[i];
        else
            return die("too many arguments%s%s", "", "");
    }
    const char *mode = npos ? pos[0] : "";
    bool bounds = !strcmp(mode, "bounds");
    if (!(bounds && npos == 3) && !((!strcmp(mode, "prep") || !strcmp(mode, "check")) && npos == 4)) {
        fputs("usage: onnx2c-emb bounds MODEL.onnx CASE_DIR\n"
              "       onnx2c-emb prep|check [--fix D=V]... [--max D=V]... [--memory-first] [--exact]\n"
              "              MODEL.onnx SRC WORK\n",
              stderr);
        return 2;
    }
    bool check = !strcmp(mode, "check");
    const char *model = pos[1], *src = pos[2], *work = bounds ? "" : pos[3];
    bool pattern = !bounds && !strcmp(src, "pattern");

    char err[1200];
    Output o;
    if (onnx2c_compile(model, &opt, &o, err, sizeof err))
        return die("%s%s", err, "");
    Jit *j = jit_compile(o.c_src, "net.h", o.h_src, NULL, err, sizeof err);
    if (!j)
        return die("jit: %s%s", err, "");
    shape_fn ishape = (shape_fn)jit_symbol(j, "net_input_shape");
    shape_fn oshape = (shape_fn)jit_symbol(j, "net_output_shape");
    const char *const *dim_names = (const char *const *)jit_symbol(j, "net_dim_names");
    if (!ishape || !oshape)
        return die("jit: a generated function is missing%s%s", "", "");
    int64_t dims[64] = {0};
    int nd = o.ndims, rc = 0;
    if (nd + o.ndata_dims > 64)
        return die("too many dims%s%s", "", "");

    if (bounds) {
        int64_t hi[64] = {0};
        for (int s = 0;; s++) {
            char dir[1400];
            snprintf(dir, sizeof dir, "%s/test_data_set_%d", src, s);
            if (access(dir, F_OK) != 0)
                break;
            Tensor *in[MAXT];
            int nin = read_set(dir, "input", in, err, sizeof err);
            if (nin < 0)
                return die("%s%s", err, "");
            for (int b = 0; b < o.nbind; b++) {
                const DimBinding *db = &o.bind[b];
                if (db->input < nin && db->axis < in[db->input]->rank && in[db->input]->dims[db->axis] > hi[db->dim])
                    hi[db->dim] = in[db->input]->dims[db->axis];
            }
            free_set(in, nin);
        }
        for (int d = 0; d < nd; d++)
            printf("%s--max %s=%lld", d ? " " : "", dim_names ? dim_names[d] : "?", (long long)hi[d]);
        printf("\n");
        jit_free(j);
        onnx2c_output_free(&o);
        return 0;
    }

    /* the inputs and the expected outputs */
    Tensor *in[MAXT] = {0}, *want[MAXT] = {0};
    int nin = 0, nout = 0;
    Jit *ref = NULL;
    if (pattern) {
        if (nd != 0)
            return die("pattern inputs need a model without symbolic dims (use --fix)%s%s", "", "");
        int64_t shape[16];
        for (; nin < MAXT; nin++) {
            int r = ishape(dims, nin, shape);
            if (r < 0)
                break;
            Tensor *t = calloc(1, sizeof *t);
            t->dtype = io_dtype(o.h_src, false, nin);
            if (t->dtype == DT_UNDEFINED)
                return die("cannot tell the type of an input%s%s", "", "");
            t->rank = r;
            t->dims = calloc((size_t)r + 1, sizeof(int64_t));
            memcpy(t->dims, shape, sizeof(int64_t) * (size_t)r);
            t->nelem = numel(shape, r);
            t->data = calloc((size_t)t->nelem + 1, onnx2c_dtype_size(t->dtype));
            fill_pattern(t->dtype, t->data, t->nelem, nin);
            in[nin] = t;
        }
        for (; nout < MAXT; nout++) {
            int r = oshape(dims, nout, shape);
            if (r < 0)
                break;
            Tensor *t = calloc(1, sizeof *t);
            t->dtype = io_dtype(o.h_src, true, nout);
            if (t->dtype == DT_UNDEFINED)
                return die("cannot tell the type of an output%s%s", "", "");
            t->rank = r;
            t->dims = calloc((size_t)r + 1, sizeof(int64_t));
            memcpy(t->dims, shape, sizeof(int64_t) * (size_t)r);
            t->nelem = numel(shape, r);
            t->data = calloc((size_t)t->nelem + 1, onnx2c_dtype_size(t->dtype));
            want[nout] = t;
        }
        if (check) { /* the reference: the same C, compiled for the host by gcc */
            ref = jit_compile(o.c_src, "net.h", o.h_src, "gcc -O2 -std=c99", err, sizeof err);
            if (!ref)
                return die("host gcc: %s%s", err, "");
            ws_fn wsize = (ws_fn)jit_symbol(ref, "net_workspace_size");
            run_fn run = (run_fn)jit_symbol(ref, "net_run");
            size_t wsb = wsize(dims);
            void *ws = wsb ? aligned_alloc(64, (wsb + 63) / 64 * 64) : NULL;
            const void *ip[MAXT];
            void *op[MAXT];
            for (int i = 0; i < nin; i++)
                ip[i] = in[i]->data;
            for (int i = 0; i < nout; i++)
                op[i] = want[i]->data;
            int r = run(dims, ip, op, ws);
            free(ws);
            if (r)
                return die("host run of the reference failed%s%s", "", "");
        }
    } else {
        nin = read_set(src, "input", in, err, sizeof err);
        if (nin >= 0)
            nout = read_set(src, "output", want, err, sizeof err);
        if (nin < 0 || nout < 0)
            return die("%s%s", err, "");
        for (int b = 0; b < o.nbind; b++) {
            const DimBinding *db = &o.bind[b];
            if (db->input < nin && db->axis < in[db->input]->rank)
                dims[db->dim] = in[db->input]->dims[db->axis];
        }
    }

    char path[1400];
    if (!check) {
        int64_t hdr[3 + 64 + 2 * MAXT];
        int k = 0;
        size_t io = 0;
        hdr[k++] = nd;
        for (int d = 0; d < nd; d++)
            hdr[k++] = dims[d];
        hdr[k++] = nin;
        for (int i = 0; i < nin; i++) {
            size_t b = (size_t)in[i]->nelem * onnx2c_dtype_size(in[i]->dtype);
            hdr[k++] = (int64_t)b;
            io += (b + 63) / 64 * 64;
            snprintf(path, sizeof path, "%s/in_%d.raw", work, i);
            if (!write_file(path, in[i]->data, b))
                return die("cannot write '%s': %s", path, strerror(errno));
        }
        hdr[k++] = nout;
        for (int d = nd; d < nd + o.ndata_dims && d < 64; d++)
            dims[d] = -1; /* output_shape then gives the bounds */
        for (int i = 0; i < nout; i++) {
            int64_t shape[16];
            int r = o.ndata_dims ? oshape(dims, i, shape) : -1;
            size_t b = (size_t)(r >= 0 ? numel(shape, r) : want[i]->nelem) * onnx2c_dtype_size(want[i]->dtype);
            hdr[k++] = (int64_t)b;
            io += (b + 63) / 64 * 64;
        }
        snprintf(path, sizeof path, "%s/run.bin", work);
        if (!write_file(path, hdr, sizeof(int64_t) * (size_t)k))
            return die("cannot write '%s': %s", path, strerror(errno));
        printf("%zu\n", io);
    } else {
        void *got[MAXT] = {0};
        for (int i = 0; i < nout && rc == 0; i++) {
            size_t b = (size_t)want[i]->nelem * onnx2c_dtype_size(want[i]->dtype), n = 0;
            snprintf(path, sizeof path, "%s/out_%d.raw", work, i);
            got[i] = read_file(path, &n);
            if (!got[i]) {
                printf("output %d: no %s\n", i, path);
                rc = 1;
            } else if (n != b) {
                printf("output %d: %zu bytes, want %zu\n", i, n, b);
                rc = 1;
            }
        }
        /* every output read: a Dropout's mask is checked against its output */
        for (int i = 0; i < nout && rc == 0; i++) {
            char msg[400];
            if (exact ? !same_bits(want[i], got[i], msg, sizeof msg)
                      : !check_output(&o, i, in, nin, want, got, nout, msg, sizeof msg)) {
                printf("output %d: %s\n", i, msg);
                rc = 1;
            }
        }
        for (int i = 0; i < nout; i++)
            free(got[i]);
        if (rc == 0)
            printf("ok\n");
    }
    free_set(in, nin);
    free_set(want, nout);
    jit_free(ref);
    jit_free(j);
    onnx2c_output_free(&o);
    return rc;
}
