/* misc_trilu.c - ONNX Trilu on x seen as [batch, rows, cols]: y[b, i, j] = x[b, i, j] where
 * j - i >= k (upper) or j - i <= k (lower), else 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void trilu_T(const T *x, T *y, int64_t batch, int64_t rows, int64_t cols, int64_t k,
                    int upper) {
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                int64_t o = (b * rows + i) * cols + j;
                int keep = upper ? j - i >= k : j - i <= k;
                y[o] = keep ? x[o] : (T)0;
            }
}
