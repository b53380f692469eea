/* testutil.c — helpers shared by the unit tests (see testutil.h).  No Test() here. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- compiling */

int tu_compile(const char *path, Output *out, char *err, size_t errlen) {
    Options opt = {0};
    opt.name = "model";
    opt.out_path = "model.c";
    memset(out, 0, sizeof *out);
    err[0] = 0;
    return onnx2c_compile(path, &opt, out, err, errlen);
}

void tu_compile_ok(const char *path, Output *out) {
    char err[1024];
    int st = tu_compile(path, out, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: status %d: %s", path, st, err);
}

void tu_expect_error_parts(const char *path, int status, const char *const *parts) {
    char err[1024];
    Output out;
    int st = tu_compile(path, &out, err, sizeof err);
    if (st == O2C_OK)
        onnx2c_output_free(&out);
    cr_assert_eq(st, status, "%s: status %d, want %d: %s", path, st, status, err);
    for (int i = 0; parts[i]; i++)
        cr_assert(strstr(err, parts[i]), "%s: message lacks \"%s\": %s", path, parts[i], err);
    cr_assert(!strchr(err, '\n'), "%s: message is not one line: %s", path, err);
}

void tu_expect_error(const char *path, int status, const char *fragment) {
    const char *parts[2] = {fragment, NULL};
    tu_expect_error_parts(path, status, parts);
}

/* ---- JIT-compiled models */

void tu_open(TuModel *m, const char *path, const char *cc) {
    Options opt = {0};
    tu_open_opts(m, path, &opt, cc);
}

void tu_open_opts(TuModel *m, const char *path, const Options *opt, const char *cc) {
    char err[1024] = "";
    Options o = *opt;
    o.name = "model";
    o.out_path = "model.c";
    memset(m, 0, sizeof *m);
    m->path = path;
    int st = onnx2c_compile(path, &o, &m->o, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: status %d: %s", path, st, err);
    m->j = jit_compile(m->o.c_src, "model.h", m->o.h_src, cc, err, sizeof err);
    cr_assert_not_null(m->j, "%s: %s", path, err);
    m->check = (tu_check_fn)jit_symbol(m->j, "model_check");
    m->wsize = (tu_wsize_fn)jit_symbol(m->j, "model_workspace_size");
    m->oshape = (tu_shape_fn)jit_symbol(m->j, "model_output_shape");
    m->run = (tu_run_fn)jit_symbol(m->j, "model_run");
    cr_assert(m->check && m->wsize && m->oshape && m->run, "%s: a model_* function is missing",
              path);
}

void tu_close(TuModel *m) {
    jit_free(m->j);
    onnx2c_output_free(&m->o);
    m->j = NULL;
}

int tu_run(TuModel *m, const int64_t *dims, const void *const *ins, void *const *outs) {
    size_t wsz = m->wsize(dims);
    void *ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
    cr_assert(!wsz || ws, "%s: no memory for a workspace of %zu bytes", m->path, wsz);
    int rc = m->run(dims, ins, outs, ws);
    free(ws);
    return rc;
}

int tu_run_data(TuModel *m, int64_t *dims, const void *const *ins, void *const *outs) {
    typedef int (*run_data_fn)(int64_t *, const void *const *, void *const *, void *);
    size_t wsz = m->wsize(dims);
    void *ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
    cr_assert(!wsz || ws, "%s: no memory for a workspace of %zu bytes", m->path, wsz);
    int rc = ((run_data_fn)(void *)m->run)(dims, ins, outs, ws);
    free(ws);
    return rc;
}

void tu_expect_shape(TuModel *m, const int64_t *dims, int out, int rank, const int64_t *want) {
    int64_t got[8];
    int r = m->oshape(dims, out, got);
    cr_assert_eq(r, rank, "%s output %d: rank %d, want %d", m->path, out, r, rank);
    for (int i = 0; i < rank; i++)
        cr_assert_eq(got[i], want[i], "%s output %d axis %d: %lld, want %lld", m->path, out, i,
                     (long long)got[i], (long long)want[i]);
}

void tu_expect_file_shape(const char *path, const int64_t *dims, int rank, const int64_t *want) {
    TuModel m;
    tu_open(&m, path, NULL);
    tu_expect_shape(&m, dims, 0, rank, want);
    tu_close(&m);
}

/* ---- data */

Tensor *tu_load_tensor(const char *path) {
    Tensor *t = NULL;
    char err[1024] = "";
    int st = onnx2c_load_tensor(path, &t, err, sizeof err);
    cr_assert_eq(st, 0, "onnx2c_load_tensor(%s) = %d: %s", path, st, err);
    cr_assert_not_null(t, "onnx2c_load_tensor(%s) gave no tensor", path);
    return t;
}

int tu_load_set(const char *dir, int k, const char *prefix, Tensor **t, int max) {
    int n = 0;
    for (; n < max; n++) {
        char path[4096];
        snprintf(path, sizeof path, "%.2048s/test_data_set_%d/%.256s_%d.pb", dir, k, prefix, n);
        FILE *f = fopen(path, "rb");
        if (!f)
            break;
        fclose(f);
        t[n] = tu_load_tensor(path);
    }
    return n;
}

enum { TU_MAX_IO = 16, TU_MAX_DIMS = 64 };

void tu_run_data_sets(TuModel *m, const char *dir, int nsets) {
    cr_assert(m->o.ndims <= TU_MAX_DIMS, "%s: %d dims", dir, m->o.ndims);
    for (int k = 0; k < nsets; k++) {
        Tensor *in[TU_MAX_IO], *want[TU_MAX_IO];
        int nin = tu_load_set(dir, k, "input", in, TU_MAX_IO);
        int nout = tu_load_set(dir, k, "output", want, TU_MAX_IO);
        cr_assert(nin > 0 && nout > 0, "%s: set %d is missing", dir, k);
        int64_t dims[TU_MAX_DIMS + 1];
        for (int d = 0; d < m->o.ndims; d++)
            dims[d] = -1;
        for (int b = 0; b < m->o.nbind; b++)
            dims[m->o.bind[b].dim] = in[m->o.bind[b].input]->dims[m->o.bind[b].axis];
        for (int d = 0; d < m->o.ndims; d++)
            cr_assert(dims[d] > 0, "%s: dim %d not bound", dir, d);
        cr_assert_eq(m->check(dims), 0, "%s set %d: check failed", dir, k);
        const void *ins[TU_MAX_IO];
        void *outs[TU_MAX_IO];
        for (int i = 0; i < nin; i++)
            ins[i] = in[i]->data;
        for (int i = 0; i < nout; i++) {
            int64_t shape[8];
            int r = m->oshape(dims, i, shape);
            cr_assert_eq(r, want[i]->rank, "%s set %d output %d: rank %d", dir, k, i, r);
            for (int a = 0; a < r; a++)
                cr_assert_eq(shape[a], want[i]->dims[a],
                             "%s set %d output %d axis %d: %lld, want %lld", dir, k, i, a,
                             (long long)shape[a], (long long)want[i]->dims[a]);
            outs[i] = calloc((size_t)want[i]->nelem + 1, onnx2c_dtype_size(want[i]->dtype));
        }
        cr_assert_eq(tu_run(m, dims, ins, outs), 0, "%s set %d: run failed", dir, k);
        for (int i = 0; i < nout; i++) {
            char msg[256] = "";
            cr_assert(check_output(&m->o, i, in, nin, want, outs, nout, msg, sizeof msg),
                      "%s set %d output %d: %s", dir, k, i, msg);
        }
        for (int i = 0; i < nout; i++) {
            free(outs[i]);
            onnx2c_tensor_free(want[i]);
        }
        for (int i = 0; i < nin; i++)
            onnx2c_tensor_free(in[i]);
    }
}

float *tu_random_floats(int64_t n, unsigned seed) {
    float *x = malloc(sizeof(float) * (size_t)(n ? n : 1));
    cr_assert_not_null(x);
    srand(seed);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(rand() % 2001 - 1000) / 100.0f;
    return x;
}

void tu_expect_close(const float *got, const float *want, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        cr_assert(fabsf(got[i] - want[i]) <= 1e-4f + 1e-4f * fabsf(want[i]),
                  "element %lld: %g, want %g", (long long)i, got[i], want[i]);
}

/* ---- the onnx2c-test harness */

/* Runs cmd (an onnx2c-test command line) and returns its exit status, its FAIL lines in fails. */
static int run_harness(const char *cmd, char *fails, size_t cap) {
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "cannot run: %s", cmd);
    char line[4096];
    fails[0] = 0;
    while (fgets(line, sizeof line, p))
        if (!strncmp(line, "FAIL", 4) && strlen(fails) + strlen(line) < cap)
            strcat(fails, line);
    return pclose(p);
}

void tu_run_cases(const char *root, const char *const *names, size_t n, const char *flags) {
    char *cmd = NULL;
    size_t cmdlen = 0;
    FILE *m = open_memstream(&cmd, &cmdlen);
    cr_assert_not_null(m);
    fprintf(m, "%s/onnx2c-test -q %s --root %s", ONNX2C_BINARY_DIR, flags ? flags : "", root);
    for (size_t i = 0; i < n; i++)
        fprintf(m, " %s", names[i]);
    fputs(" 2>&1", m);
    cr_assert_eq(fclose(m), 0);
    char fails[8192];
    int st = run_harness(cmd, fails, sizeof fails);
    free(cmd);
    cr_assert_eq(st, 0, "onnx2c-test failed:\n%s", fails);
}

void tu_expect_case_fails(const char *dir, const char *fragment) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/onnx2c-test -q %.3000s 2>&1", ONNX2C_BINARY_DIR, dir);
    char fails[8192];
    int st = run_harness(cmd, fails, sizeof fails);
    cr_assert_neq(st, 0, "onnx2c-test passed %s", dir);
    cr_assert_not_null(strstr(fails, fragment), "%s: the failure does not say '%s':\n%s", dir,
                       fragment, fails);
}

/* ---- files */

void tu_write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    size_t w = fwrite(data, 1, n, f);
    fclose(f);
    cr_assert_eq(w, n, "%s: wrote %zu of %zu bytes", path, w, n);
}

size_t tu_read_text(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
    return n;
}
