/* test_templates_gemm.c — the GEMM engine (templates/gemm.c) as C, against a naive loop in
 * double: shapes around every blocking edge (MR = 8, NR = 32, KC = 256, MC = 128, NC = 1024),
 * every transpose, alpha/beta, sub-blocks (ld > width), operands pre-packed by the compiler's
 * own packing (compiler/ops/gemm_plan.h: the layout must agree with the engine's), and every
 * epilogue (row/column bias, residual, activations).  Built twice: here with the GCC vector
 * extensions, and by test_templates_gemm_plain.c with O2C_NO_VECTOR (the plain C path tcc
 * gets). */
#include "onnx2c.h"
#include "../../compiler/ops/gemm_plan.h"
#include "tu_kernel.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#ifndef GEMM_SUITE
#define GEMM_SUITE gemm_vector
#endif
#define T float
#include "../../templates/gemm.c"


/* One product checked; pack: 0 none, 1 A pre-packed, 2 B pre-packed; epi: 0 none, 1 row bias +
 * residual + act, 2 column bias + act. */
static void check(int64_t M, int64_t N, int64_t K, int ta, int tb, float alpha, float beta,
                  int pack, int epi, int act) {
    int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    int64_t lda = ac + 3, ldb = bc + 1, ldc = N + 2, ldr = N + 5;
    float *A = tu_rnd(ar * lda, 1), *B = tu_rnd(br * ldb, 2), *C = tu_rnd(M * ldc, 3);
    float *want = tu_rnd(M * ldc, 3), *bias = tu_rnd(M > N ? M : N, 4), *res = tu_rnd(M * ldr, 5);
    float *work = malloc(sizeof(float) * (size_t)(GEMM_MC * GEMM_KC + GEMM_KC * (GEMM_NC + 32) + 16));
    float *pk = NULL;
    const float p0 = act == GEMM_ACT_CLIP ? -0.5f : 0.1f, p1 = act == GEMM_ACT_CLIP ? 0.75f : 0.5f;
    gemm_epi_T ep;
    if (beta == 0)
        for (int64_t i = 0; i < M * ldc; i++)
            C[i] = NAN;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double acc = 0;
            for (int64_t p = 0; p < K; p++)
                acc += (double)(ta ? A[p * lda + i] : A[i * lda + p]) *
                       (tb ? B[j * ldb + p] : B[p * ldb + j]);
            double v = alpha * acc + (beta == 0 ? 0 : beta * (double)want[i * ldc + j]);
            if (epi == 1)
                v += bias[i] + res[i * ldr + j];
            if (epi == 2)
                v += bias[j];
            if (epi)
                v = tu_act(act, v, p0, p1);
            want[i * ldc + j] = (float)v;
        }
    ep.bias = bias;
    ep.bias_sm = epi == 1;
    ep.bias_sn = epi == 2;
    ep.res = epi == 1 ? res : NULL;
    ep.ldr = ldr;
    ep.act = act;
    ep.p0 = p0;
    ep.p1 = p1;
    const float *a = A, *b = B;
    int fa = ta, fb = tb;
    if (pack == 1) {
        int64_t n = gp_pack(NULL, 4, M, K, lda, ta, true, GEMM_NR_T, NULL);
        pk = malloc(sizeof(float) * (size_t)(n + 1));
        gp_pack((const unsigned char *)A, 4, M, K, lda, ta, true, GEMM_NR_T, (unsigned char *)pk);
        a = pk, fa = GEMM_PACKED;
    } else if (pack == 2) {
        int64_t n = gp_pack(NULL, 4, K, N, ldb, tb, false, GEMM_NR_T, NULL);
        pk = malloc(sizeof(float) * (size_t)(n + 1));
        gp_pack((const unsigned char *)B, 4, K, N, ldb, tb, false, GEMM_NR_T, (unsigned char *)pk);
        b = pk, fb = GEMM_PACKED;
    }
    gemm_T(M, N, K, a, lda, fa, b, ldb, fb, C, ldc, alpha, beta, epi ? &ep : NULL, work);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float g = C[i * ldc + j], w = want[i * ldc + j];
            cr_assert(fabsf(g - w) <= 1e-4f * (1 + fabsf(w)) * (1 + sqrtf((float)K)),
                      "M=%lld N=%lld K=%lld tA=%d tB=%d alpha=%g beta=%g pack=%d epi=%d act=%d: "
                      "C[%lld][%lld] = %g, want %g",
                      (long long)M, (long long)N, (long long)K, ta, tb, alpha, beta, pack, epi,
                      act, (long long)i, (long long)j, g, w);
        }
    free(A), free(B), free(C), free(want), free(bias), free(res), free(work), free(pk);
}

static const int64_t shapes[][3] = {
    {1, 1, 1},    {7, 31, 5},    {8, 32, 256}, {9, 33, 257},  {17, 65, 3},
    {130, 40, 20}, {3, 1030, 9}, {1, 100, 600}, {64, 96, 130}, {129, 33, 513},
};

Test(GEMM_SUITE, shapes_transposes_alpha_beta) {
    static const float ab[][2] = {{1, 0}, {0.5f, 1}, {-2, 0.25f}};
    for (int s = 0; s < 10; s++)
        for (int t = 0; t < 4; t++)
            check(shapes[s][0], shapes[s][1], shapes[s][2], t & 1, t >> 1, ab[(s + t) % 3][0],
                  ab[(s + t) % 3][1], 0, 0, 0);
}

Test(GEMM_SUITE, prepacked_operands) {
    for (int s = 0; s < 10; s++)
        for (int t = 0; t < 4; t++) {
            check(shapes[s][0], shapes[s][1], shapes[s][2], t & 1, t >> 1, 1, 0, 1, 0, 0);
            check(shapes[s][0], shapes[s][1], shapes[s][2], t & 1, t >> 1, t ? 0.5f : 1, 0, 2, 0, 0);
        }
}

Test(GEMM_SUITE, epilogues) {
    for (int s = 0; s < 10; s++)
        for (int act = 0; act <= GEMM_ACT_HARDSWISH; act++) {
            check(shapes[s][0], shapes[s][1], shapes[s][2], 0, 0, 1, 0, s & 1, 1, act);
            check(shapes[s][0], shapes[s][1], shapes[s][2], 0, 1, 1, act == 2 ? 1 : 0, 2, 2, act);
        }
}

/* A last column panel of 17 to 20 (N = 49 ...): the half tile plus 1-4 column sums in one pass
 * (gemm_half_cols_T), odd and even K, two K blocks, partial row panels, every operand form,
 * accumulation into C and the epilogues */
Test(GEMM_SUITE, last_panel_17_to_20) {
    static const int64_t sh[][3] = {{8, 49, 300}, {13, 50, 33}, {16, 51, 7}, {9, 52, 257},
                                    {24, 17, 5},  {8, 20, 1},   {130, 81, 64}, {11, 18, 2}};
    for (int s = 0; s < 8; s++)
        for (int t = 0; t < 4; t++) {
            check(sh[s][0], sh[s][1], sh[s][2], t & 1, t >> 1, t == 1 ? -2 : 1,
                  t == 2 ? 0.5f : 0, 0, 0, 0);
            check(sh[s][0], sh[s][1], sh[s][2], t & 1, t >> 1, 1, t == 3 ? 1 : 0, 1, 1,
                  GEMM_ACT_RELU);
            check(sh[s][0], sh[s][1], sh[s][2], t & 1, t >> 1, t ? 0.5f : 1, 0, 2, 2,
                  GEMM_ACT_HARDSWISH);
        }
}

/* M < MR: the small-M path (GEMV-like; B read in place, partial and transposed panels packed) */
Test(GEMM_SUITE, small_m) {
    static const int64_t sm[][3] = {{1, 289, 9216}, {2, 64, 300}, {3, 33, 513}, {4, 1030, 17},
                                    {5, 7, 260},    {6, 96, 3},   {7, 65, 1030}, {1, 1000, 512},
                                    {1, 32, 1},     {4, 31, 256}};
    for (int s = 0; s < 10; s++)
        for (int t = 0; t < 4; t++) {
            check(sm[s][0], sm[s][1], sm[s][2], t & 1, t >> 1, t == 1 ? -2 : 1, t == 2 ? 0.5f : 0,
                  0, 0, 0);
            check(sm[s][0], sm[s][1], sm[s][2], t & 1, t >> 1, 1, 0, 1, 1, GEMM_ACT_RELU);
            check(sm[s][0], sm[s][1], sm[s][2], t & 1, t >> 1, t ? 0.5f : 1, 0, 2, 2,
                  GEMM_ACT_CLIP);
        }
}

/* N == 1 with A pre-packed (a weight times one column: 1x1 Conv on a 1x1 image): the column
 * path (8-row panels streamed once), partial panels, K blocks, B's column strided or not */
Test(GEMM_SUITE, one_column_packed_a) {
    static const int64_t sc[][3] = {{8, 1, 1},     {9, 1, 257},   {130, 1, 20},
                                    {1000, 1, 600}, {3, 1, 9},     {129, 1, 513}};
    for (int s = 0; s < 6; s++)
        for (int tb = 0; tb < 2; tb++) {
            check(sc[s][0], 1, sc[s][2], 0, tb, 1, 0, 1, 0, 0);
            check(sc[s][0], 1, sc[s][2], tb, tb, 1, tb ? 1 : 0.5f, 1, 0, 0);
            check(sc[s][0], 1, sc[s][2], 0, tb, 1, 0, 1, 1, GEMM_ACT_CLIP);
            check(sc[s][0], 1, sc[s][2], 0, tb, 1, 1, 1, 1, GEMM_ACT_HARDSWISH);
        }
}

Test(GEMM_SUITE, empty) {
    check(0, 5, 3, 0, 0, 1, 0, 0, 0, 0);
    check(4, 5, 0, 0, 0, 1, 0, 0, 1, GEMM_ACT_RELU);
    check(4, 5, 0, 0, 0, 1, 0.5f, 0, 0, 0);
}
