/* quant_mm.c - int32 matrix product y[M][N] = a[M][K] x b[K][N] (all row-major, contiguous),
 * the operands already widened with their zero points subtracted (templates/quant_widen.c).
 * The sum wraps around in 32 bits (ONNX: the accumulation may overflow only in 32 bits),
 * computed unsigned so that the wrap is defined.  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void quant_mm(int64_t M, int64_t N, int64_t K, const int32_t *a, const int32_t *b,
                     int32_t *y) {
    for (int64_t m = 0; m < M; m++) {
        uint32_t *yr = (uint32_t *)(void *)(y + m * N);
        for (int64_t j = 0; j < N; j++)
            yr[j] = 0;
        for (int64_t k = 0; k < K; k++) {
            const uint32_t av = (uint32_t)a[m * K + k];
            const int32_t *br = b + k * N;
            if (av == 0)
                continue;
            for (int64_t j = 0; j < N; j++)
                yr[j] += av * (uint32_t)br[j];
        }
    }
}
