/* test_templates_gemm_omp.c — the GEMM engine (templates/gemm.c) built with OpenMP, when the
 * build has it (tests/CMakeLists.txt; not under the sanitizers): a product large enough to be
 * shared between two threads (one region over all its (jc, pc) blocks, a barrier between
 * them), and products computed inside someone else's parallel region, one per thread, which
 * must run whole on their thread (work shared by orphaned `omp for` would bind to the caller's
 * team and leave half of each product undone); and a weight packed by the compiler's packing
 * (a 1x1 Conv's form) over more columns than the engine's B buffer holds, which the threads
 * pack and multiply in slices of their own.  Without OpenMP they run serially. */
#include "onnx2c.h"
#include "../../compiler/ops/gemm_plan.h"
#include "tu_kernel.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define T float
#include "../../templates/gemm.c"

/* C = A x B (row-major; B transposed when tb; A pre-packed when pack_a) by the engine, checked
 * against sums in double: every 7th row and 5th column, and all of the last row and column */
static void product_ab(int64_t M, int64_t N, int64_t K, int tb, int pack_a, unsigned seed,
                       int *bad) {
    float *A = tu_rnd(M * K, seed), *B = tu_rnd(K * N, seed + 1), *C = tu_rnd(M * N, seed + 2);
    float *work = malloc(sizeof(float) * (size_t)(GEMM_MC * GEMM_KC + GEMM_KC * (GEMM_NC + 32) + 16));
    float *pk = NULL;
    if (pack_a) {
        const int64_t n = gp_pack(NULL, 4, M, K, K, 0, true, GEMM_NR_T, NULL);
        pk = malloc(sizeof(float) * (size_t)(n + 1));
        gp_pack((const unsigned char *)A, 4, M, K, K, 0, true, GEMM_NR_T, (unsigned char *)pk);
    }
    gemm_T(M, N, K, pack_a ? pk : A, K, pack_a ? GEMM_PACKED : 0, B, tb ? K : N, tb, C, N, 1.0f,
           0.0f, NULL, work);
    for (int64_t i = 0; i < M; i = i + 7 < M || i == M - 1 ? i + 7 : M - 1)
        for (int64_t j = 0; j < N; j = j + 5 < N || j == N - 1 ? j + 5 : N - 1) {
            double acc = 0;
            for (int64_t p = 0; p < K; p++)
                acc += (double)A[i * K + p] * (tb ? B[j * K + p] : B[p * N + j]);
            if (fabs(C[i * N + j] - acc) > 1e-4 * (1 + fabs(acc)))
                ++*bad;
        }
    free(A), free(B), free(C), free(work), free(pk);
}

static void product(int64_t M, int64_t N, int64_t K, unsigned seed, int *bad) {
    product_ab(M, N, K, 0, 0, seed, bad);
}

Test(gemm_omp, shared_product_all_blocks) {
    int bad = 0;
#ifdef _OPENMP
    omp_set_num_threads(2);
#endif
    product(200, 2100, 600, 11, &bad); /* 3 x 3 (jc, pc) blocks, M * NC * KC past GEMM_PAR_MIN */
    cr_assert_eq(bad, 0, "%d elements wrong", bad);
}

Test(gemm_omp, products_inside_a_caller_region) {
    int bad[2] = {0, 0};
#ifdef _OPENMP
    omp_set_num_threads(2);
#pragma omp parallel num_threads(2)
    {
        const int me = omp_get_thread_num();
        product(160 + 8 * me, 1100, 300, 20 + 3 * (unsigned)me, &bad[me]);
    }
#else
    product(160, 1100, 300, 20, &bad[0]);
    product(168, 1100, 300, 23, &bad[1]);
#endif
    cr_assert_eq(bad[0] + bad[1], 0, "%d and %d elements wrong", bad[0], bad[1]);
}

/* A packed, B packed by the engine (M > MC or K > 160: not read in place) and wider than its
 * buffer (N > NC): on 2 and 3 threads each packs its own panels into its own slice of the
 * buffer, in blocks of up to NC / threads columns (uneven shares of panels, a partial last
 * panel, K past one KC block, B transposed) */
Test(gemm_omp, packed_weight_wide_image) {
    int bad = 0;
    for (int thr = 2; thr <= 3; thr++) {
#ifdef _OPENMP
        omp_set_num_threads(thr);
#endif
        product_ab(144, 3136, 24, 0, 1, 31, &bad);  /* MobileNetV2's 24 -> 144 at 56x56 */
        product_ab(40, 2150, 300, 0, 1, 37, &bad);  /* two K blocks */
        product_ab(136, 1059, 170, 1, 1, 41, &bad); /* transposed, 34 panels, the last of 3 */
        cr_assert_eq(bad, 0, "%d threads: %d elements wrong", thr, bad);
    }
}
