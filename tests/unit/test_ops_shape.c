/* test_ops_shape.c — the shape family (compiler/ops/shape.c).
 *
 * Models with symbolic dims (tests/data/shape/make_shape.py) are compiled through the library
 * API and JIT-compiled with libtcc.  The shape arithmetic must fold: the generated NAME_run
 * holds no Shape / Gather / Concat code, only the memcpy or copy loop of the data, and the
 * output shapes are symbolic expressions checked with NAME_output_shape at two sizes of the
 * dims from the one C file.  NAME_run's results are compared with the ONNX definitions
 * written out here.  The bad_*.onnx models check the errors (one line, naming the node). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPE TU_DATA("shape")

/* The text of model_run in the generated C. */
static const char *run_body(const TuModel *m) {
    const char *p = strstr(m->o.c_src, "int model_run(");
    cr_assert_not_null(p, "no model_run in the generated C");
    return p;
}

/* The folded shape computation leaves no trace in model_run. */
static void expect_no_shape_code(const TuModel *m, const char *const *ops) {
    const char *body = run_body(m);
    for (int i = 0; ops[i]; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, ": %s ", ops[i]);
        cr_assert_null(strstr(body, pat), "model_run still computes %s:\n%s", ops[i], body);
    }
}

static float *iota_floats(int64_t n) {
    float *x = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)i * 0.5f - 3.0f;
    return x;
}

static void expect_floats(const float *got, const float *want, int64_t n, const char *what) {
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "%s element %lld: %g, want %g", what, (long long)i, got[i],
                     want[i]);
}

/* x[N,3,H,W] -> Reshape to [N, 3*H*W] with a folded target; y is x's data. */
static void check_flatten_reshape(const char *file, const char *const *folded) {
    TuModel m;
    tu_open(&m, file, NULL);
    expect_no_shape_code(&m, folded);
    cr_assert_null(strstr(run_body(&m), "for ("), "a loop is left in model_run:\n%s", run_body(&m));
    static const int64_t sizes[2][3] = {{2, 5, 7}, {1, 3, 1}};
    for (int s = 0; s < 2; s++) {
        const int64_t *d = sizes[s];
        int64_t want[2] = {d[0], 3 * d[1] * d[2]};
        tu_expect_shape(&m, d, 0, 2, want);
        int64_t n = want[0] * want[1];
        float *x = iota_floats(n), *y = calloc((size_t)n, sizeof(float));
        const void *ins[1] = {x};
        void *outs[1] = {y};
        cr_assert_eq(tu_run(&m, d, ins, outs), 0);
        expect_floats(y, x, n, "y");
        free(x);
        free(y);
    }
    tu_close(&m);
}

Test(shape, reshape_target_from_shape_arithmetic) {
    static const char *const folded[] = {"Shape", "Mul", "Add", NULL};
    check_flatten_reshape(SHAPE "reshape_mul.onnx", folded);
}

Test(shape, reshape_target_from_gather_concat) {
    static const char *const folded[] = {"Shape", "Gather", "Unsqueeze", "Concat", NULL};
    check_flatten_reshape(SHAPE "reshape_gather.onnx", folded);
}

/* Reshape [-1, 4] of x[N,W]: y[N*W/4, 4], and N*W must be a multiple of 4. */
Test(shape, reshape_inferred_dim_constraint) {
    TuModel m;
    tu_open(&m, SHAPE "reshape_div.onnx", NULL);
    int64_t ok[2] = {3, 4}, ok2[2] = {2, 6}, bad[2] = {3, 5};
    cr_assert_eq(m.check(ok), 0);
    cr_assert_eq(m.check(ok2), 0);
    cr_assert_lt(m.check(bad), 0, "N*W = 15 is not a multiple of 4 but check passed");
    int64_t want[2] = {3, 4}, want2[2] = {3, 4};
    tu_expect_shape(&m, ok, 0, 2, want);
    tu_expect_shape(&m, ok2, 0, 2, want2);
    tu_close(&m);
}

/* Flatten(axis=2), Unsqueeze([1]), Squeeze([1]), Identity, Dropout with mask of x[N,C,W]. */
Test(shape, data_movement_ops) {
    TuModel m;
    tu_open(&m, SHAPE "moves.onnx", NULL);
    static const int64_t sizes[2][3] = {{2, 3, 4}, {5, 1, 2}};
    for (int s = 0; s < 2; s++) {
        const int64_t *d = sizes[s];
        int64_t n = d[0] * d[1] * d[2];
        int64_t wf[2] = {d[0] * d[1], d[2]}, wu[4] = {d[0], 1, d[1], d[2]};
        tu_expect_shape(&m, d, 0, 2, wf);
        tu_expect_shape(&m, d, 1, 4, wu);
        tu_expect_shape(&m, d, 2, 3, d);
        tu_expect_shape(&m, d, 3, 3, d);
        float *x = iota_floats(n), *f = calloc((size_t)n, 4), *u = calloc((size_t)n, 4),
              *y = calloc((size_t)n, 4);
        unsigned char *mask = calloc((size_t)n, 1);
        const void *ins[1] = {x};
        void *outs[4] = {f, u, y, mask};
        cr_assert_eq(tu_run(&m, d, ins, outs), 0);
        expect_floats(f, x, n, "flatten");
        expect_floats(u, x, n, "unsqueeze");
        expect_floats(y, x, n, "dropout");
        for (int64_t i = 0; i < n; i++)
            cr_assert_eq(mask[i], 1, "mask element %lld is %d", (long long)i, mask[i]);
        free(x);
        free(f);
        free(u);
        free(y);
        free(mask);
    }
    tu_close(&m);
}

/* Expand(x[N,1], Shape(z[N,W])) -> [N,W]; Tile(x, [2,3]) -> [2N,3]. */
Test(shape, expand_and_tile) {
    TuModel m;
    tu_open(&m, SHAPE "expand_tile.onnx", NULL);
    expect_no_shape_code(&m, (const char *const[]){"Shape", NULL});
    static const int64_t sizes[2][2] = {{3, 4}, {1, 2}};
    for (int s = 0; s < 2; s++) {
        int64_t N = sizes[s][0], W = sizes[s][1];
        int64_t we[2] = {N, W}, wt[2] = {2 * N, 3};
        tu_expect_shape(&m, sizes[s], 0, 2, we);
        tu_expect_shape(&m, sizes[s], 1, 2, wt);
        float *x = iota_floats(N), *z = iota_floats(N * W);
        float *e = calloc((size_t)(N * W), 4), *t = calloc((size_t)(6 * N), 4);
        const void *ins[2] = {x, z};
        void *outs[2] = {e, t};
        cr_assert_eq(tu_run(&m, sizes[s], ins, outs), 0);
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = 0; j < W; j++)
                cr_assert_eq(e[i * W + j], x[i], "expand [%lld,%lld]", (long long)i, (long long)j);
        for (int64_t i = 0; i < 2 * N; i++)
            for (int64_t j = 0; j < 3; j++)
                cr_assert_eq(t[i * 3 + j], x[i % N], "tile [%lld,%lld]", (long long)i,
                             (long long)j);
        free(x);
        free(z);
        free(e);
        free(t);
    }
    tu_close(&m);
}

/* ConstantOfShape(Shape(x)) = 7 and Range(0, Size(x), 1), with x[N,W]: fill loops of symbolic
 * length. */
Test(shape, constantofshape_and_range_symbolic) {
    TuModel m;
    tu_open(&m, SHAPE "fill_range.onnx", NULL);
    expect_no_shape_code(&m, (const char *const[]){"Shape", "Size", NULL});
    static const int64_t sizes[2][2] = {{2, 3}, {4, 1}};
    for (int s = 0; s < 2; s++) {
        int64_t N = sizes[s][0], W = sizes[s][1], n = N * W;
        int64_t wr[1] = {n};
        tu_expect_shape(&m, sizes[s], 0, 2, sizes[s]);
        tu_expect_shape(&m, sizes[s], 1, 1, wr);
        float *x = iota_floats(n);
        int64_t *c = calloc((size_t)n, 8), *r = calloc((size_t)n, 8);
        const void *ins[1] = {x};
        void *outs[2] = {c, r};
        cr_assert_eq(tu_run(&m, sizes[s], ins, outs), 0);
        for (int64_t i = 0; i < n; i++) {
            cr_assert_eq(c[i], 7);
            cr_assert_eq(r[i], i);
        }
        free(x);
        free(c);
        free(r);
    }
    tu_close(&m);
}

/* Float Range with a limit (or start) that is Cast(Gather(Shape(x))), the position-encoding
 * pattern torch.arange(S, dtype=float): the Cast keeps the known dim, the length is a Sym.
 * r = Range(1.0, W, 2.0): ceildiv(W - 1, 2) elements (0 for W = 1); q = Range(W, -1.0, -1.0):
 * W, W - 1, ..., 0. */
Test(shape, range_float_symbolic_limit) {
    TuModel m;
    tu_open(&m, SHAPE "range_float.onnx", NULL);
    expect_no_shape_code(&m, (const char *const[]){"Shape", "Gather", "Cast", NULL});
    for (int64_t W = 1; W <= 6; W++) {
        int64_t dims[2] = {2, W}, nr = W / 2, nq = W + 1;
        tu_expect_shape(&m, dims, 0, 1, &nr);
        tu_expect_shape(&m, dims, 1, 1, &nq);
        float x[12] = {0}, r[8], q[8];
        const void *ins[1] = {x};
        void *outs[2] = {r, q};
        cr_assert_eq(tu_run(&m, dims, ins, outs), 0);
        for (int64_t i = 0; i < nr; i++)
            cr_assert_eq(r[i], (float)(1 + 2 * i), "W=%lld r[%lld] = %g", (long long)W,
                         (long long)i, r[i]);
        for (int64_t i = 0; i < nq; i++)
            cr_assert_eq(q[i], (float)(W - i), "W=%lld q[%lld] = %g", (long long)W, (long long)i,
                         q[i]);
    }
    tu_close(&m);
}

/* Constant value_float, value_floats, value_int, value_ints, value; Shape(x) + value_ints. */
Test(shape, constant_attributes) {
    TuModel m;
    tu_open(&m, SHAPE "constants.onnx", NULL);
    cr_assert_null(strstr(run_body(&m), "for ("), "a loop is left in model_run");
    int64_t d[2] = {6, 9};
    float a = 0, b[3] = {0};
    int64_t c = 0, dd[2] = {0}, f[2] = {0};
    int32_t e[4] = {0};
    const void *ins[1] = {b}; /* x is not read */
    void *outs[6] = {&a, b, &c, dd, e, f};
    cr_assert_eq(tu_run(&m, d, ins, outs), 0);
    cr_assert_eq(a, 1.5f);
    cr_assert(b[0] == 1.0f && b[1] == -2.0f && b[2] == 3.25f);
    cr_assert_eq(c, -7);
    cr_assert(dd[0] == 4 && dd[1] == 5);
    cr_assert(e[0] == 1 && e[1] == 2 && e[2] == 3 && e[3] == 4);
    cr_assert(f[0] == 10 && f[1] == 14, "Shape(x) + [4,5] = [%lld,%lld]", (long long)f[0],
              (long long)f[1]);
    tu_close(&m);
}

/* ---- errors */

Test(shape_errors, reshape_runtime_target_is_data_dependent) {
    static const char *const parts[] = {"node 'rs' (Reshape)", "data-dependent", "'t'", NULL};
    tu_expect_error_parts(SHAPE "bad_reshape_runtime.onnx", O2C_EMODEL, parts);
}

Test(shape_errors, reshape_two_inferred_dims) {
    static const char *const parts[] = {"node 'rs' (Reshape)", "more than one -1", NULL};
    tu_expect_error_parts(SHAPE "bad_reshape_two_neg.onnx", O2C_EMODEL, parts);
}

Test(shape_errors, sparse_constant) {
    static const char *const parts[] = {"node 'k' (Constant)", "sparse", NULL};
    tu_expect_error_parts(SHAPE "bad_constant_sparse.onnx", O2C_EMODEL, parts);
}

Test(shape_errors, squeeze_of_a_dim_that_is_not_one) {
    static const char *const parts[] = {"node 'sq' (Squeeze)", "not 1", NULL};
    tu_expect_error_parts(SHAPE "bad_squeeze_not_one.onnx", O2C_EMODEL, parts);
}

Test(shape_errors, range_float_symbolic_limit_fractional_delta) {
    static const char *const parts[] = {"node 'rg' (Range)", "delta is 0.5", "integral", NULL};
    tu_expect_error_parts(SHAPE "bad_range_float_step.onnx", O2C_EMODEL, parts);
}

/* ---- Dropout in training mode (training_mode a runtime input) */

/* Element i's draw as compiler/ops/shape.c documents it: the (i + 1)-th output of SplitMix64
 * started at seed, written here in its sequential form. */
static double splitmix_draw(uint64_t seed, int64_t i) {
    uint64_t s = seed, z = 0;
    for (int64_t k = 0; k <= i; k++) {
        s += UINT64_C(0x9E3779B97F4A7C15);
        z = s;
        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        z ^= z >> 31;
    }
    return (double)(z >> 11) / 9007199254740992.0;
}

/* Runs dropout_train.onnx (seed 7) on n elements with ratio r and training_mode t. */
static void run_dropout(TuModel *m, int64_t n, float r, int t, const float *x, float *y,
                        unsigned char *mask) {
    unsigned char tm = (unsigned char)t;
    const void *ins[3] = {x, &r, &tm};
    void *outs[2] = {y, mask};
    cr_assert_eq(tu_run(m, &n, ins, outs), 0);
}

Test(shape, dropout_training_mode) {
    enum { N = 200000 };
    TuModel m, g;
    tu_open(&m, SHAPE "dropout_train.onnx", NULL);
    tu_open(&g, SHAPE "dropout_train.onnx", TU_STRICT_CC);
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N),
          *y2 = malloc(sizeof(float) * N);
    unsigned char *mask = malloc(N), *mask2 = malloc(N);
    for (int64_t i = 0; i < N; i++)
        x[i] = 1.0f + (float)(i % 97) * 0.25f;
    /* ratio 0.3: kept elements scaled by (float)(1 / 0.7), dropped ones 0, near 70% kept */
    run_dropout(&m, N, 0.3f, 1, x, y, mask);
    const float scale = (float)(1.0 / (1.0 - (double)0.3f));
    int64_t kept = 0;
    for (int64_t i = 0; i < N; i++) {
        cr_assert(mask[i] == 0 || mask[i] == 1, "mask element %lld is %d", (long long)i, mask[i]);
        kept += mask[i];
        float want = mask[i] ? x[i] * scale : 0.0f;
        cr_assert_eq(y[i], want, "element %lld: %g, want %g (mask %d)", (long long)i, y[i], want,
                     mask[i]);
        if (i < 2000)
            cr_assert_eq(mask[i], splitmix_draw(7, i) >= (double)0.3f,
                         "element %lld: the mask is not the documented draw's", (long long)i);
    }
    cr_assert(kept > N * 0.69 && kept < N * 0.71, "kept %lld of %d", (long long)kept, N);
    /* deterministic: again, and under gcc, the same bytes */
    run_dropout(&m, N, 0.3f, 1, x, y2, mask2);
    cr_assert(!memcmp(y, y2, sizeof(float) * N) && !memcmp(mask, mask2, N), "a second run differs");
    run_dropout(&g, N, 0.3f, 1, x, y2, mask2);
    cr_assert(!memcmp(y, y2, sizeof(float) * N) && !memcmp(mask, mask2, N), "gcc's run differs");
    /* training off, or ratio 0: the identity, every mask element true */
    for (int k = 0; k < 2; k++) {
        run_dropout(&m, N, k ? 0.0f : 0.3f, k, x, y, mask);
        for (int64_t i = 0; i < N; i++)
            cr_assert(y[i] == x[i] && mask[i] == 1, "case %d element %lld: %g (mask %d)", k,
                      (long long)i, y[i], mask[i]);
    }
    /* runtime ratio out of [0, 1), no clamp: 1 drops all (0, not NaN); -0.5 keeps all, / 1.5 */
    run_dropout(&m, N, 1.0f, 1, x, y, mask);
    for (int64_t i = 0; i < N; i++)
        cr_assert(y[i] == 0 && mask[i] == 0, "ratio 1, element %lld: %g", (long long)i, y[i]);
    run_dropout(&m, N, -0.5f, 1, x, y, mask);
    for (int64_t i = 0; i < N; i++)
        cr_assert(y[i] == x[i] * (float)(1.0 / 1.5) && mask[i] == 1, "ratio -0.5, element %lld",
                  (long long)i);
    free(x);
    free(y);
    free(y2);
    free(mask);
    free(mask2);
    tu_close(&m);
    tu_close(&g);
}

/* float16 data, ratio 0.5: kept elements are 2x exactly. */
Test(shape, dropout_training_float16) {
    TuModel m;
    tu_open(&m, SHAPE "dropout_train_f16.onnx", NULL);
    enum { N = 4096 };
    uint16_t x[N], y[N];
    unsigned char mask[N], tm = 1;
    for (int i = 0; i < N; i++)
        x[i] = (uint16_t)(0x3c00 + (i % 512)); /* 1 .. 1.5: doubling is exact */
    const void *ins[2] = {x, &tm};
    void *outs[2] = {y, mask};
    int64_t n = N;
    cr_assert_eq(tu_run(&m, &n, ins, outs), 0);
    int kept = 0;
    for (int i = 0; i < N; i++) {
        kept += mask[i];
        uint16_t want = mask[i] ? (uint16_t)(x[i] + 0x0400) : 0; /* exponent + 1 */
        cr_assert_eq(y[i], want, "element %d: 0x%04x, want 0x%04x", i, y[i], want);
    }
    cr_assert(kept > N * 0.45 && kept < N * 0.55, "kept %d of %d", kept, N);
    tu_close(&m);
}

enum { RELU_N = 1000 };

/* Runs a Relu -> Dropout(ratio 0.25, training) -> Add model on x[i] = i % 13 - 6: y, and the
 * Relu's output into rx. */
static void run_relu_dropout(const char *path, float *y, float *rx) {
    TuModel m;
    tu_open(&m, path, NULL);
    float x[RELU_N], r = 0.25f;
    unsigned char tm = 1;
    for (int i = 0; i < RELU_N; i++) {
        x[i] = (float)(i % 13) - 6.0f;
        rx[i] = x[i] > 0 ? x[i] : 0;
    }
    const void *ins[3] = {x, &r, &tm};
    void *outs[1] = {y};
    int64_t n = RELU_N;
    cr_assert_eq(tu_run(&m, &n, ins, outs), 0);
    tu_close(&m);
}

/* Relu -> Dropout -> Add(d, d): the Dropout writes over the Relu output, which only it reads. */
Test(shape, dropout_training_in_place) {
    enum { N = RELU_N };
    TuModel ref;
    tu_open(&ref, SHAPE "dropout_train.onnx", NULL);
    float rx[N], y[N], d[N];
    unsigned char mask[N];
    run_relu_dropout(SHAPE "dropout_train_inplace.onnx", y, rx);
    run_dropout(&ref, N, 0.25f, 1, rx, d, mask);
    for (int i = 0; i < N; i++)
        cr_assert_eq(y[i], d[i] + d[i], "element %d: %g, want %g", i, y[i], d[i] + d[i]);
    tu_close(&ref);
}

Test(shape, dropout_training_errors) {
    tu_expect_error(SHAPE "bad_dropout_ratio.onnx", O2C_EMODEL,
                    "node 'drop' (Dropout): ratio 1 is outside [0, 1)");
}

/* Relu -> Dropout -> Add(d, relu): the training Dropout writes a buffer of its own (plan.c
 * aliases only an inference Dropout), so the Add still reads the Relu output. */
Test(shape, dropout_training_input_read_later) {
    enum { N = RELU_N };
    float rx[N], y[N];
    run_relu_dropout(SHAPE "dropout_train_shared.onnx", y, rx);
    int dropped = 0;
    for (int i = 0; i < N; i++) {
        /* y = dropout(relu) + relu: relu (dropped) or relu * (1 + 1 / 0.75) (kept) */
        float k = rx[i] + rx[i] * (float)(1.0 / (1.0 - (double)0.25f));
        cr_assert(y[i] == rx[i] || y[i] == k, "element %d: %g (relu %g)", i, y[i], rx[i]);
        dropped += rx[i] > 0 && y[i] == rx[i];
    }
    cr_assert(dropped > 0, "some elements were dropped");
}

/* ---- Range of tensor data without a declared shape of its own: a data dim (CONTRACT §2b;
 * tests/data/shape/make_range_data.py).  A declared shape it reaches bounds it exactly (-4
 * where the data differ), else --max must. */

/* range_decl_sym: y = Cast(Range(0, n, 1)) * 0.5 + 1 declared [N], z = x * 2: the data dim's
 * bound is N, the size before the run; n above or below N is -4, before y is written. */
Test(shape, range_data_dim_bounded_by_declared_output) {
    TuModel m;
    tu_open(&m, SHAPE "cases/range_decl_sym/model.onnx", NULL);
    cr_assert_eq(m.o.ndims, 1);
    cr_assert_eq(m.o.ndata_dims, 1);
    cr_assert(strstr(m.o.h_src, "MODEL_DIM_N = 0, MODEL_DIM_RANGE_R_0 = 1 }"), "%s", m.o.h_src);
    cr_assert(strstr(m.o.h_src, "-4: one the model declares"), "%s", m.o.h_src);
    for (int64_t N = 3; N <= 5; N += 2) {
        int64_t dims[2] = {N, -1}, wn[1] = {N};
        tu_expect_shape(&m, dims, 0, 1, wn);
        float x[5] = {1, 2, 3, 4, 5}, y[5], z[5];
        const void *ins[2];
        void *outs[2] = {y, z};
        for (int64_t n = N - 1; n <= N + 1; n++) {
            for (int i = 0; i < 5; i++)
                y[i] = -9;
            ins[0] = x;
            ins[1] = &n;
            dims[1] = -1;
            int rc = tu_run_data(&m, dims, ins, outs);
            if (n != N) {
                cr_assert_eq(rc, -4, "N %lld, n %lld: %d", (long long)N, (long long)n, rc);
                cr_assert_eq(y[0], -9, "y was written before the -4");
                continue;
            }
            cr_assert_eq(rc, 0);
            cr_assert_eq(dims[1], N, "the run writes the data dim: %lld", (long long)dims[1]);
            tu_expect_shape(&m, dims, 0, 1, wn);
            for (int64_t i = 0; i < N; i++)
                cr_assert_eq(y[i], (float)i * 0.5f + 1, "y[%lld] = %g", (long long)i, y[i]);
        }
    }
    tu_close(&m);
}

Test(shape, range_data_cases) {
    static const char *const names[] = {"range_decl_sym", "range_value_info_sym"};
    tu_run_cases(SHAPE "cases", names, 2, NULL);
    tu_run_cases(SHAPE "cases", names, 2, "--strict --memory-first");
}

/* range_max: y = Range(start, limit, delta) * 2 declares nothing; --max range_r_0=8 bounds the
 * data dim: the size before the run, -5 (nothing written) for a longer one, a delta of 0 or a
 * length past int64. */
Test(shape, range_data_dim_max) {
    Options opt = {0};
    DimSetting max = {.value = 8};
    snprintf(max.name, sizeof max.name, "range_r_0");
    opt.nmax = 1;
    opt.max = &max;
    TuModel m;
    tu_open_opts(&m, SHAPE "range_max.onnx", &opt, NULL);
    cr_assert_eq(m.o.ndims, 0);
    cr_assert_eq(m.o.ndata_dims, 1);
    int64_t dims[1] = {-1}, w8[1] = {8};
    tu_expect_shape(&m, dims, 0, 1, w8);
    static const struct {
        int64_t st, li, de;
        int rc;
        int64_t len;
    } c[] = {
        {0, 5, 1, 0, 5},          {5, 0, -2, 0, 3},       {0, 8, 1, 0, 8},
        {3, 3, 1, 0, 0},          {0, 9, 1, -5, 0},       {0, 4, 0, -5, 0},
        {INT64_MIN, INT64_MAX, 1, -5, 0}, {INT64_MAX, INT64_MIN, INT64_MIN, 0, 2},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        int64_t y[9];
        for (int i = 0; i < 9; i++)
            y[i] = -9;
        const void *ins[3] = {&c[k].st, &c[k].li, &c[k].de};
        void *outs[1] = {y};
        dims[0] = -1;
        int rc = tu_run_data(&m, dims, ins, outs);
        cr_assert_eq(rc, c[k].rc, "case %zu: %d, want %d", k, rc, c[k].rc);
        cr_assert_eq(y[c[k].len], -9, "case %zu: written past the length", k);
        if (rc)
            continue;
        cr_assert_eq(dims[0], c[k].len, "case %zu: length %lld", k, (long long)dims[0]);
        for (int64_t i = 0; i < c[k].len; i++) /* modulo 2^64, as the kernel */
            cr_assert_eq(y[i], (int64_t)(((uint64_t)c[k].st + (uint64_t)i * (uint64_t)c[k].de) * 2u),
                         "case %zu: y[%lld] = %lld", k, (long long)i, (long long)y[i]);
    }
    tu_close(&m);
}

Test(shape_errors, range_data_dim_without_bound) {
    static const char *const parts[] = {"node 'range' (Range)", "axis 0 of 'r'",
                                        "no declared shape", "--max range_r_0=N", NULL};
    tu_expect_error_parts(SHAPE "range_max.onnx", O2C_EMODEL, parts);
}

Test(shape_errors, range_data_dim_declared_twice) {
    static const char *const parts[] = {"node 'add' (Add)", "'y2' is declared with dimension 0 = 5",
                                        "declared 4 before", NULL};
    tu_expect_error_parts(SHAPE "bad_range_two_decls.onnx", O2C_EMODEL, parts);
}
