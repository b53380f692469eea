/* test_templates_gemm_omp.c — the GEMM engine (templates/gemm.c) built with OpenMP, when the
 * build has it (tests/CMakeLists.txt; not under the sanitizers): a product large enough to be
 * shared between two threads (one region over all its (jc, pc) blocks, a barrier between
 * them), and products computed inside someone else's parallel region, one per thread, which
 * must run whole on their thread (work shared by orphaned `omp for` would bind to the caller's
 * team and leave half of each product undone).  Without OpenMP both run serially. */
#include "tu_kernel.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define T float
#include "../../templates/gemm.c"

/* C = A x B (row-major, no transposes) by the engine, checked against sums in double */
static void product(int64_t M, int64_t N, int64_t K, unsigned seed, int *bad) {
    float *A = tu_rnd(M * K, seed), *B = tu_rnd(K * N, seed + 1), *C = tu_rnd(M * N, seed + 2);
    float *work = malloc(sizeof(float) * (size_t)(GEMM_MC * GEMM_KC + GEMM_KC * (GEMM_NC + 32) + 16));
    gemm_T(M, N, K, A, K, 0, B, N, 0, C, N, 1.0f, 0.0f, NULL, work);
    for (int64_t i = 0; i < M; i += 7)
        for (int64_t j = 0; j < N; j += 5) {
            double acc = 0;
            for (int64_t p = 0; p < K; p++)
                acc += (double)A[i * K + p] * B[p * N + j];
            if (fabs(C[i * N + j] - acc) > 1e-4 * (1 + fabs(acc)))
                ++*bad;
        }
    free(A), free(B), free(C), free(work);
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
