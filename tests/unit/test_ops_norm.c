/* test_ops_norm.c — the norm and softmax families (compiler/ops/norm.c, softmax.c): infer rules
 * seen through onnx2c_compile (output shapes in the generated header, one-line errors), and two
 * models with symbolic dims JIT-compiled with libtcc and compared with values computed here.
 * The models come from tests/data/norm/make_norm.py. */
#include "testutil.h"
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#define NORM TU_DATA("norm")

Test(norm, layernorm_shapes) {
    Output out;
    tu_compile_ok(NORM "layernorm_sym.onnx", &out);
    cr_assert(strstr(out.h_src, "output 0 'y': float[N, T, 8]"), "%s", out.h_src);
    cr_assert(strstr(out.h_src, "output 1 'mean': float[N, T, 1]"), "%s", out.h_src);
    cr_assert(strstr(out.h_src, "output 2 'invstd': float[N, T, 1]"), "%s", out.h_src);
    onnx2c_output_free(&out);
}

Test(norm, layernorm_bad_axis) {
    tu_expect_error(NORM "layernorm_bad_axis.onnx", O2C_EMODEL,
                    "node 'ln' (LayerNormalization): axis 3 is out of range for rank 2");
}

Test(norm, layernorm_bad_scale) {
    tu_expect_error(NORM "layernorm_bad_scale.onnx", O2C_EMODEL,
                    "must match a suffix of the normalized shape");
}

Test(norm, batchnorm_training_outputs_before_opset14) {
    tu_expect_error(NORM "batchnorm_opset9_training.onnx", O2C_EMODEL, "only inference");
}

Test(norm, lrn_requires_size) {
    tu_expect_error(NORM "lrn_no_size.onnx", O2C_EMODEL, "attribute 'size' is required");
}

/* LpNormalization (docs/writing-ops.md's worked example): p is 1 or 2; its runnable cases
 * (tests/data/norm/cases/lpnorm_*) run in ctest's op_cases suites. */
Test(norm, lpnorm_p_must_be_1_or_2) {
    tu_expect_error(NORM "lpnorm_bad_p.onnx", O2C_EMODEL,
                    "node 'lpn' (LpNormalization): p = 3: must be 1 or 2");
}

Test(norm, lpnorm_cases) {
    static const char *const names[] = {"lpnorm_default", "lpnorm_p1_axis1", "lpnorm_p2_sym",
                                        "lpnorm_double_last"};
    tu_run_cases(NORM "cases", names, sizeof names / sizeof *names, "--dynamic");
}

/* LayerNormalization from axis 1 of [N, 2, 50], Scale [2, 50] (a big weight), B [50]
 * broadcast over the last axis, epsilon 1e-3; N = 3. */
Test(norm, layernorm_run) {
    enum { N = 3, D = 100 };
    float x[N * D], y[N * D];
    for (int i = 0; i < N * D; i++)
        x[i] = (float)sin(0.37 * i) * (float)(1 + i % 7);
    TuModel net;
    tu_open(&net, NORM "layernorm_big.onnx", NULL);
    int64_t dims[1] = {N};
    const void *in[1] = {x};
    void *outs[1] = {y};
    cr_assert_eq(tu_run(&net, dims, in, outs), 0);
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
    tu_close(&net);
}

/* Softmax at opset 11 on [N, 3, 4] with axis 1: over the 12 elements of each batch row. */
Test(norm, softmax_opset11_coerced_run) {
    enum { N = 2, D = 12 };
    float x[N * D], y[N * D];
    for (int i = 0; i < N * D; i++)
        x[i] = (float)(i % 5) - 2.0f + (i >= D ? 100.0f : 0.0f); /* row 1: large values */
    TuModel net;
    tu_open(&net, NORM "softmax_opset11.onnx", NULL);
    int64_t dims[1] = {N};
    const void *in[1] = {x};
    void *outs[1] = {y};
    cr_assert_eq(tu_run(&net, dims, in, outs), 0);
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
    tu_close(&net);
}

/* templates/exp_fast.c, included as C: within 4 ulp of exp over the range softmax feeds it
 * (x - max <= 0), 0 for -inf and below -87, NaN for NaN. */
#define T float
#include "../../templates/exp_fast.c"
#undef T

Test(norm, exp_fast_accuracy) {
    double worst = 0;
    for (float x = -87.0f; x <= 0.0f; x += 0.00037f) {
        double want = exp((double)x), rel = fabs((double)expf_fast_T(x) - want) / want;
        worst = rel > worst ? rel : worst;
    }
    cr_assert(worst < 4 * FLT_EPSILON / 2, "worst relative error %g", worst);
    cr_assert_eq(expf_fast_T(0.0f), 1.0f);
    cr_assert_eq(expf_fast_T(-INFINITY), 0.0f);
    cr_assert_eq(expf_fast_T(-100.0f), 0.0f);
    cr_assert(isnan(expf_fast_T(NAN)));
    cr_assert(fabsf(expf_fast_T(1.0f) - 2.7182817f) < 1e-6f);
}
