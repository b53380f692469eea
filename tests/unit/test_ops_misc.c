/* test_ops_misc.c — the misc and loss families (compiler/ops/misc.c, compiler/ops/loss.c,
 * templates/misc_*.c, templates/loss_nll.c).
 *
 * Models with symbolic dims (tests/data/misc/make_misc.py) are compiled through the library
 * API and JIT-compiled with libtcc; NAME_output_shape shows the shape rules at run time for
 * several sizes from one C file, and NAME_run is compared with direct references written here.
 * The bad_*.onnx models check the errors (one line, naming the node). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MISC TU_DATA("misc")

/* Runs the model and asserts it succeeds. */
static void run(TuModel *m, const int64_t *dims, const void *const *ins, void *const *outs) {
    cr_assert_eq(tu_run(m, dims, ins, outs), 0, "%s: run failed", m->path);
}

/* OneHot with a known depth 4 on axis 0: y [4, N], y[d, i] = on where indices[i] (negative +
 * 4) == d; an index out of range gives a column of off. */
Test(misc, onehot_known_depth) {
    TuModel m;
    tu_open(&m, MISC "onehot_sym.onnx", NULL);
    const int64_t dims[1] = {5}, want[2] = {4, 5};
    tu_expect_shape(&m, dims, 0, 2, want);
    const int64_t ind[5] = {0, 3, -1, 7, -4};
    const float vals[2] = {-1.0f, 2.0f};
    float y[20];
    const void *ins[2] = {ind, vals};
    void *outs[1] = {y};
    run(&m, dims, ins, outs);
    for (int d = 0; d < 4; d++)
        for (int i = 0; i < 5; i++) {
            int64_t t = ind[i] < 0 ? ind[i] + 4 : ind[i];
            cr_assert_eq(y[d * 5 + i], t == d ? 2.0f : -1.0f, "y[%d, %d] = %g", d, i, y[d * 5 + i]);
        }
    tu_close(&m);
}

/* TopK whose k is the size of the axis (Shape -> Gather -> Unsqueeze: known, symbolic N), as
 * torch.sort / argsort along a dynamic axis exports: a full descending sort of each row. */
Test(misc, topk_symbolic_k_full_sort) {
    TuModel m;
    tu_open(&m, MISC "topk_symk.onnx", NULL);
    for (int64_t N = 1; N <= 5; N += 2) {
        const int64_t dims[2] = {2, N};
        tu_expect_shape(&m, dims, 0, 2, dims);
        tu_expect_shape(&m, dims, 1, 2, dims);
        float x[10], v[10];
        int64_t idx[10];
        for (int64_t i = 0; i < 2 * N; i++)
            x[i] = (float)((i * 7) % 5) - (float)i * 0.25f;
        const void *ins[1] = {x};
        void *outs[2] = {v, idx};
        run(&m, dims, ins, outs);
        for (int b = 0; b < 2; b++)
            for (int64_t j = 0; j < N; j++) {
                const float *row = x + b * N;
                int64_t k = idx[b * N + j];
                cr_assert(k >= 0 && k < N, "index %lld out of range", (long long)k);
                cr_assert_eq(v[b * N + j], row[k]);
                if (j > 0)
                    cr_assert(v[b * N + j - 1] >= v[b * N + j], "row %d not descending", b);
            }
    }
    tu_close(&m);
}

/* TopK k = 3, smallest, axis 1 of [B, N]: sorted ascending, ties by lower index. */
Test(misc, topk_smallest_stable) {
    TuModel m;
    tu_open(&m, MISC "topk_sym.onnx", NULL);
    const int64_t dims[2] = {2, 6}, want[2] = {2, 3};
    tu_expect_shape(&m, dims, 0, 2, want);
    tu_expect_shape(&m, dims, 1, 2, want);
    const float x[12] = {5, 1, 3, 1, 0, 9, /* */ 2, 2, 2, 2, 2, 1};
    float v[6];
    int64_t idx[6];
    const void *ins[1] = {x};
    void *outs[2] = {v, idx};
    run(&m, dims, ins, outs);
    const float wv[6] = {0, 1, 1, 1, 2, 2};
    const int64_t wi[6] = {4, 1, 3, 5, 0, 1};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(v[i], wv[i], "value %d: %g, want %g", i, v[i], wv[i]);
        cr_assert_eq(idx[i], wi[i], "index %d: %lld, want %lld", i, (long long)idx[i],
                     (long long)wi[i]);
    }
    /* k = 3 needs N >= 3: a run-time constraint */
    const int64_t small[2] = {2, 2};
    int64_t shape[2];
    cr_assert_lt(m.oshape(small, 0, shape), 0);
    tu_close(&m);
}

/* Trilu upper with a runtime k on symbolic [B, R, C]: y = x where j - i >= k. */
Test(misc, trilu_runtime_k) {
    TuModel m;
    tu_open(&m, MISC "trilu_sym.onnx", TU_STRICT_CC);
    static const int64_t sizes[][3] = {{2, 3, 4}, {1, 5, 2}};
    for (int t = 0; t < 2; t++) {
        const int64_t *d = sizes[t];
        tu_expect_shape(&m, d, 0, 3, d);
        int64_t n = d[0] * d[1] * d[2];
        float *x = tu_random_floats(n, (unsigned)t + 1), *y = calloc((size_t)n, sizeof(float));
        for (int64_t k = -2; k <= 2; k++) {
            const void *ins[2] = {x, &k};
            void *outs[1] = {y};
            run(&m, d, ins, outs);
            for (int64_t b = 0; b < d[0]; b++)
                for (int64_t i = 0; i < d[1]; i++)
                    for (int64_t j = 0; j < d[2]; j++) {
                        int64_t o = (b * d[1] + i) * d[2] + j;
                        cr_assert_eq(y[o], j - i >= k ? x[o] : 0.0f);
                    }
        }
        free(x);
        free(y);
    }
    tu_close(&m);
}

/* Einsum "bij,bjk->bik" with symbolic B, I, J, K: y [B, I, K] is the batched matmul. */
Test(misc, einsum_batch_matmul_symbolic) {
    TuModel m;
    tu_open(&m, MISC "einsum_sym.onnx", NULL);
    const int64_t d[4] = {2, 3, 4, 5}, want[3] = {2, 3, 5};
    tu_expect_shape(&m, d, 0, 3, want);
    float *a = tu_random_floats(2 * 3 * 4, 1), *b = tu_random_floats(2 * 4 * 5, 2), y[30];
    const void *ins[2] = {a, b};
    void *outs[1] = {y};
    run(&m, d, ins, outs);
    for (int bb = 0; bb < 2; bb++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 5; k++) {
                double acc = 0;
                for (int j = 0; j < 4; j++)
                    acc += (double)a[(bb * 3 + i) * 4 + j] * b[(bb * 4 + j) * 5 + k];
                float got = y[(bb * 3 + i) * 5 + k];
                cr_assert(fabs(got - acc) <= 1e-3 + 1e-4 * fabs(acc), "y[%d,%d,%d] = %g, want %g",
                          bb, i, k, got, acc);
            }
    free(a);
    free(b);
    tu_close(&m);
}

/* NegativeLogLikelihoodLoss, mean, weights, ignore_index 1, on symbolic [N, C, D]:
 * y = sum(-x[n, t, d] * w[t]) / sum(w[t]) over targets t != 1. */
Test(loss, nll_mean_weight_ignore_symbolic) {
    TuModel m;
    tu_open(&m, MISC "nll_sym.onnx", NULL);
    const int64_t d[3] = {3, 4, 2};
    tu_expect_shape(&m, d, 0, 0, NULL);
    float *x = tu_random_floats(24, 3);
    const float w[4] = {0.5f, 2.0f, 1.0f, 3.0f};
    const int64_t t[6] = {0, 1, 3, 2, 1, 3};
    float y = 0;
    const void *ins[3] = {x, t, w};
    void *outs[1] = {&y};
    run(&m, d, ins, outs);
    double sum = 0, ws = 0;
    for (int n = 0; n < 3; n++)
        for (int j = 0; j < 2; j++) {
            int64_t c = t[n * 2 + j];
            if (c == 1)
                continue;
            sum -= (double)x[(n * 4 + c) * 2 + j] * w[c];
            ws += w[c];
        }
    cr_assert(fabs(y - sum / ws) <= 1e-5, "loss %g, want %g", y, sum / ws);
    free(x);
    tu_close(&m);
}

Test(misc, errors) {
    tu_expect_error(MISC "bad_onehot_depth.onnx", O2C_EMODEL,
                    "node 'oh' (OneHot): depth 'depth' is not known at compile time");
    tu_expect_error(MISC "bad_einsum_label.onnx", O2C_EMODEL,
                    "node 'es' (Einsum): output label 'l' is not in any input");
    tu_expect_error(MISC "bad_einsum_size.onnx", O2C_EMODEL, "label 'j' has sizes 3 and 5");
    tu_expect_error(MISC "bad_gathernd_batch.onnx", O2C_EMODEL,
                    "batch_dims = 2: must be below both ranks");
    tu_expect_error(MISC "bad_topk_k.onnx", O2C_EMODEL, "k (5) must not exceed the size of axis 1");
}

Test(loss, errors) {
    tu_expect_error(MISC "bad_nll_reduction.onnx", O2C_EMODEL,
                    "node 'nll' (NegativeLogLikelihoodLoss): reduction 'avg' is not none, sum or "
                    "mean");
    tu_expect_error(MISC "bad_nll_target.onnx", O2C_EMODEL, "target dim 1 is 4, input dim 2 is 2");
}
