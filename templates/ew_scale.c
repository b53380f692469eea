/* ew_scale.c - a Mul of x by one value per row, s broadcast along the rows' columns:
 * y[r * cols + j] = x[r * cols + j] * s[r] (the excitation of a squeeze-excitation block, the
 * scale [N, C, 1, 1] of each channel's plane).  A kernel of its own (O2C_KERNEL), so that the C
 * compiler vectorises it at -O2 too: as a loop in the run function, gcc -O2 had left it
 * scalar (MobileNetV3-Small's nine took 10x their -O3 time, 0.12 ms of the model's 1.1).  y may
 * be x (run in place).  Built with OpenMP, from 2^16 elements the rows go to the threads, as
 * the other elementwise loops (compiler/emit.c: EW_PAR_MIN). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

static O2C_INLINE void ew_scale_rows_T(T *y, const T *x, const T *s, int64_t r0, int64_t r1,
                                       int64_t cols) {
    int64_t r, j;
    for (r = r0; r < r1; r++) {
        const T v = s[r];
        T *yr = y + r * cols;
        const T *xr = x + r * cols;
        for (j = 0; j < cols; j++)
            yr[j] = xr[j] * v;
    }
}

O2C_KERNEL
static void ew_scale_T(T *y, const T *x, const T *s, int64_t rows, int64_t cols) {
#ifdef _OPENMP
    if (o2c_par(rows * cols >= 65536 && rows > 1)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(rows, &lo, &hi);
            ew_scale_rows_T(y, x, s, lo, hi, cols);
        }
        return;
    }
#endif
    ew_scale_rows_T(y, x, s, 0, rows, cols);
}
