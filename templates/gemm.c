/* gemm.c — the GEMM kernel behind MatMul, Gemm, Conv and ConvTranspose.
 *
 *   C = alpha * op(A) * op(B) + beta * C      op(A): M x K, op(B): K x N, C: M x N
 *
 * op(X) is X or its transpose (transX != 0).  Matrices are row-major with leading dimensions
 * lda/ldb/ldc (elements between rows), so a kernel call can address a sub-block or a strided
 * slice (a group of a convolution, a tile of its output positions).  beta == 0 overwrites C
 * without reading it (C may hold garbage, NaN included).
 *
 * Plain C99, cache-blocked: KC x NC panels of B are reused across MC rows of A, and the inner
 * loop runs along a contiguous row of B and C (i-k-j order).  For transB the rows of B are
 * the columns of op(B): the inner loop is a dot product along K, contiguous in both.  A packed,
 * vectorised micro-kernel replaces the block body later; the blocking stays. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

#define GEMM_MC_T 64
#define GEMM_KC_T 256
#define GEMM_NC_T 1024

static void gemm_T(int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, int transA,
                   const T *B, int64_t ldb, int transB, T *C, int64_t ldc, T alpha, T beta) {
    int64_t i, j, k, i0, j0, k0;
    /* C = beta * C */
    for (i = 0; i < M; i++) {
        T *c = C + i * ldc;
        if (beta == (T)0)
            for (j = 0; j < N; j++)
                c[j] = (T)0;
        else if (beta != (T)1)
            for (j = 0; j < N; j++)
                c[j] = beta * c[j];
    }
    if (K <= 0 || alpha == (T)0)
        return;
    for (j0 = 0; j0 < N; j0 += GEMM_NC_T) {
        int64_t j1 = N - j0 < GEMM_NC_T ? N : j0 + GEMM_NC_T;
        for (k0 = 0; k0 < K; k0 += GEMM_KC_T) {
            int64_t k1 = K - k0 < GEMM_KC_T ? K : k0 + GEMM_KC_T;
            for (i0 = 0; i0 < M; i0 += GEMM_MC_T) {
                int64_t i1 = M - i0 < GEMM_MC_T ? M : i0 + GEMM_MC_T;
                for (i = i0; i < i1; i++) {
                    T *c = C + i * ldc;
                    if (!transB) {
                        for (k = k0; k < k1; k++) {
                            const T a = alpha * (transA ? A[k * lda + i] : A[i * lda + k]);
                            const T *b = B + k * ldb;
                            for (j = j0; j < j1; j++)
                                c[j] += a * b[j];
                        }
                    } else {
                        for (j = j0; j < j1; j++) {
                            const T *b = B + j * ldb;
                            T acc = (T)0;
                            if (transA)
                                for (k = k0; k < k1; k++)
                                    acc += A[k * lda + i] * b[k];
                            else
                                for (k = k0; k < k1; k++)
                                    acc += A[i * lda + k] * b[k];
                            c[j] += alpha * acc;
                        }
                    }
                }
            }
        }
    }
}
