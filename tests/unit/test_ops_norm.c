/* test_ops_norm.c — the norm and softmax families (compiler/ops/norm.c, softmax.c): infer rules
 * seen through onnx2c_compile (output shapes in the generated header, one-line errors), and two
 * models with symbolic dims JIT-compiled with libtcc and compared with values computed here.
 * The models come from tests/data/norm/make_norm.py. */
#include "onnx2c.h"
#include "runtime.h"
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#define NORM ONNX2C_SOURCE_DIR "/tests/data/norm/"

static int compile(const char *path, Output *out, char *err, size_t errlen) {
    Options opt = {0};
    memset(out, 0, sizeof *out);
    err[0] = 0;
    return onnx2c_compile(path, &opt, out, err, errlen);
}

static void expect_error(const char *path, const char *fragment) {
    char err[1024];
    Output out;
    int st = compile(path, &out, err, sizeof err);
    if (st == O2C_OK)
        onnx2c_output_free(&out);
    cr_assert_eq(st, O2C_EMODEL, "%s: status %d, want %d: %s", path, st, O2C_EMODEL, err);
    cr_assert(strstr(err, fragment), "%s: message lacks \"%s\": %s", path, fragment, err);
    cr_assert(!strchr(err, '\n'), "message is not one line: %s", err);
}

typedef int (*RunFn)(const int64_t *, const void *const *, void *const *, void *);

/* Compiles the model and its C; returns the JIT (run function in *run). */
static Jit *build(const char *path, Output *out, RunFn *run) {
    char err[1024];
    int st = compile(path, out, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", path, err);
    char hname[300];
    snprintf(hname, sizeof hname, "%s.h", out->name);
    Jit *j = jit_compile(out->c_src, hname, out->h_src, NULL, err, sizeof err);
    cr_assert_not_null(j, "%s: %s", path, err);
    char sym[300];
    snprintf(sym, sizeof sym, "%s_run", out->name);
    *run = (RunFn)jit_symbol(j, sym);
    cr_assert_not_null(*run);
    return j;
}

Test(norm, layernorm_shapes) {
    char err[1024];
    Output out;
    int st = compile(NORM "layernorm_sym.onnx", &out, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s", err);
    cr_assert(strstr(out.h_src, "output 0 'y': float[N, T, 8]"), "%s", out.h_src);
    cr_assert(strstr(out.h_src, "output 1 'mean': float[N, T, 1]"), "%s", out.h_src);
    cr_assert(strstr(out.h_src, "output 2 'invstd': float[N, T, 1]"), "%s", out.h_src);
    onnx2c_output_free(&out);
}

Test(norm, layernorm_bad_axis) {
    expect_error(NORM "layernorm_bad_axis.onnx",
                 "node 'ln' (LayerNormalization): axis 3 is out of range for rank 2");
}

Test(norm, layernorm_bad_scale) {
    expect_error(NORM "layernorm_bad_scale.onnx", "must match a suffix of the normalized shape");
}

Test(norm, batchnorm_training_outputs_before_opset14) {
    expect_error(NORM "batchnorm_opset9_training.onnx", "only inference");
}

Test(norm, lrn_requires_size) {
    expect_error(NORM "lrn_no_size.onnx", "attribute 'size' is required");
}

/* LayerNormalization from axis 1 of [N, 2, 50], Scale [2, 50] (a big weight), B [50]
 * broadcast over the last axis, epsilon 1e-3; N = 3. */
Test(norm, layernorm_run) {
    enum { N = 3, D = 100 };
    float x[N * D], y[N * D];
    for (int i = 0; i < N * D; i++)
        x[i] = (float)sin(0.37 * i) * (float)(1 + i % 7);
    Output out;
    RunFn run;
    Jit *j = build(NORM "layernorm_big.onnx", &out, &run);
    int64_t dims[1] = {N};
    const void *in[1] = {x};
    void *outs[1] = {y};
    cr_assert_eq(run(dims, in, outs, NULL), 0);
    for (int r = 0; r < N; r++) {
        double m = 0, v = 0;
        for (int k = 0; k < D; k++)
            m += x[r * D + k];
        m /= D;
        for (int k = 0; k < D; k++)
            v += (x[r * D + k] - m) * (x[r * D + k] - m);
        v /= D;
        for (int k = 0; k < D; k++) {
            double want = (x[r * D + k] - m) / sqrt(v + 1e-3) * (0.5 + 0.01 * k) + 0.1 * (k % 50);
            cr_assert(fabs(y[r * D + k] - want) < 1e-4 * (1 + fabs(want)),
                      "y[%d][%d] = %g, want %g", r, k, y[r * D + k], want);
        }
    }
    jit_free(j);
    onnx2c_output_free(&out);
}

/* Softmax at opset 11 on [N, 3, 4] with axis 1: over the 12 elements of each batch row. */
Test(norm, softmax_opset11_coerced_run) {
    enum { N = 2, D = 12 };
    float x[N * D], y[N * D];
    for (int i = 0; i < N * D; i++)
        x[i] = (float)(i % 5) - 2.0f + (i >= D ? 100.0f : 0.0f); /* row 1: large values */
    Output out;
    RunFn run;
    Jit *j = build(NORM "softmax_opset11.onnx", &out, &run);
    int64_t dims[1] = {N};
    const void *in[1] = {x};
    void *outs[1] = {y};
    cr_assert_eq(run(dims, in, outs, NULL), 0);
    for (int r = 0; r < N; r++) {
        double mx = x[r * D], sum = 0;
        for (int k = 1; k < D; k++)
            mx = fmax(mx, x[r * D + k]);
        for (int k = 0; k < D; k++)
            sum += exp(x[r * D + k] - mx);
        for (int k = 0; k < D; k++) {
            double want = exp(x[r * D + k] - mx) / sum;
            cr_assert(fabs(y[r * D + k] - want) < 1e-6, "y[%d][%d] = %g, want %g", r, k,
                      y[r * D + k], want);
        }
    }
    jit_free(j);
    onnx2c_output_free(&out);
}
