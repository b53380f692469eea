/* test_templates_gemv.c — the fully connected kernel of --memory-first (templates/gemv.c) as
 * C, against a naive loop in double: N around the block of 8 (1, 2, 7, 8, 9, 12, 16, 23, 640),
 * K = 1, odd K and K around the unroll by 4, several rows, a strided x (Gemm's transA), alpha,
 * beta, every bias shape Gemm allows (scalar, [N], [M, 1], [M, N] through the strides bm, bn),
 * residual and every activation; the weight reordered by the compiler's own gp_gemv_blocks
 * (compiler/ops/gemm_plan.h) from op(B) given as K x N or as N x K (transB).  Built twice: here
 * with the target's vectors (SSE on x86), and by test_templates_gemv_plain.c with
 * O2C_NO_VECTOR (the scalar blocks of Cortex-M4 and tcc). */
#include "onnx2c.h"
#include "../../compiler/ops/gemm_plan.h"
#include "tu_kernel.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#ifndef GEMV_SUITE
#define GEMV_SUITE gemv_vector
#endif
#define T float
#include "../../templates/gemv.c"

typedef struct Case {
    int64_t M, N, K;
    int transa, transb;
    float alpha, beta;
    int bias; /* 0 none, 1 scalar, 2 [N], 3 [M, 1], 4 [M, N] */
    int res, act;
} Case;

static void check(Case t) {
    const int64_t M = t.M, N = t.N, K = t.K;
    /* A: M x K row-major with a padded row (lda = K + 3), or K x M (transA, lda = M + 2) */
    const int64_t lda = t.transa ? M + 2 : K + 3, ldy = N + 1, ldr = N + 4;
    const int64_t ldb = t.transb ? K : N;
    float *A = tu_rnd((t.transa ? K : M) * lda, 1), *B = tu_rnd(K * N, 2);
    float *bias = tu_rnd(M * N, 3), *res = tu_rnd(M * ldr, 4), *y = tu_rnd(M * ldy + 1, 5);
    float *wr = malloc(sizeof(float) * (size_t)(K * N + 1));
    const float p0 = t.act == GEMM_ACT_CLIP ? -0.5f : 0.1f;
    const float p1 = t.act == GEMM_ACT_CLIP ? 0.75f : 0.5f;
    const int64_t bm = t.bias == 3 ? 1 : t.bias == 4 ? N : 0;
    const int64_t bn = t.bias == 2 || t.bias == 4 ? 1 : 0;
    for (int64_t m = 0; m <= M; m++) /* sentinels between the rows and past the output */
        y[m * ldy + (m < M ? N : 0)] = 12345.0f;
    gp_gemv_blocks((const unsigned char *)B, sizeof(float), K, N, ldb, t.transb,
                   (unsigned char *)wr);
    gemv_T(M, N, K, A, t.transa ? 1 : lda, t.transa ? lda : 1, wr, y, ldy, t.alpha,
           t.bias ? bias : NULL, bm, bn, t.beta, t.res ? res : NULL, ldr, t.act, p0, p1);
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double acc = 0;
            for (int64_t k = 0; k < K; k++)
                acc += (double)(t.transa ? A[k * lda + m] : A[m * lda + k]) *
                       (t.transb ? B[n * ldb + k] : B[k * ldb + n]);
            acc *= t.alpha;
            if (t.bias)
                acc += (double)t.beta * bias[m * bm + n * bn];
            if (t.res)
                acc += res[m * ldr + n];
            acc = tu_act(t.act, acc, p0, p1);
            float got = y[m * ldy + n];
            cr_assert(fabs(got - acc) <= 1e-5 * (1 + fabs(acc)) * (1 + sqrt((double)K)),
                      "M=%lld N=%lld K=%lld transA=%d transB=%d alpha=%g beta=%g bias=%d res=%d "
                      "act=%d: y[%lld][%lld] = %g, want %g",
                      (long long)M, (long long)N, (long long)K, t.transa, t.transb, t.alpha,
                      t.beta, t.bias, t.res, t.act, (long long)m, (long long)n, got, acc);
        }
    for (int64_t m = 0; m <= M; m++)
        cr_assert(y[m * ldy + (m < M ? N : 0)] == 12345.0f, "wrote past row %lld", (long long)m);
    free(A), free(B), free(bias), free(res), free(y), free(wr);
}

static const int64_t Ns[] = {1, 2, 7, 8, 9, 12, 16, 23, 640};
static const int64_t Ks[] = {1, 2, 3, 4, 5, 7, 8, 9, 64, 127, 128, 640};

Test(GEMV_SUITE, sizes) {
    for (size_t i = 0; i < sizeof Ns / sizeof Ns[0]; i++)
        for (size_t j = 0; j < sizeof Ks / sizeof Ks[0]; j++) {
            Case t = {1, Ns[i], Ks[j], 0, (int)(i + j) % 2, 1.0f, 1.0f, 2, 0, GEMM_ACT_RELU};
            check(t);
        }
}

Test(GEMV_SUITE, rows_and_transposes) {
    for (int64_t M = 1; M <= 5; M += 2)
        for (int ta = 0; ta <= 1; ta++)
            for (int tb = 0; tb <= 1; tb++) {
                Case t = {M, 13, 11, ta, tb, 1.0f, 1.0f, 4, 1, 0};
                check(t);
                t.N = 24, t.K = 4;
                check(t);
            }
}

Test(GEMV_SUITE, epilogues) {
    /* every bias shape x every activation, in full blocks (N 8) and with a tail (N 17), with
     * alpha and beta 1 and not */
    for (int bias = 0; bias <= 4; bias++)
        for (int act = 0; act <= GEMM_ACT_HARDSWISH; act++)
            for (int v = 0; v <= 1; v++) {
                Case t = {3, v ? 17 : 8, bias % 2 ? 9 : 12, 0, v,
                          (bias + act + v) % 2 ? 1.0f : -0.75f, (bias + act) % 3 ? 1.0f : 2.5f,
                          bias, (act + v) % 2, act};
                check(t);
            }
}
