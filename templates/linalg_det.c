/* linalg_det.c - ONNX Det: the determinant of each M x M matrix of x (batch of them), by LU
 * decomposition with partial pivoting in double precision.  a is scratch of M * M doubles. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void det_T(const T *x, T *y, int64_t batch, int64_t m, double *a) {
    for (int64_t b = 0; b < batch; b++) {
        const T *xb = x + b * m * m;
        double det = 1.0;
        for (int64_t i = 0; i < m * m; i++)
            a[i] = (double)xb[i];
        for (int64_t k = 0; k < m; k++) {
            /* pivot: the largest magnitude in column k at or below row k */
            int64_t p = k;
            double best = fabs(a[k * m + k]);
            for (int64_t i = k + 1; i < m; i++) {
                double v = fabs(a[i * m + k]);
                if (v > best) {
                    best = v;
                    p = i;
                }
            }
            if (best == 0.0) {
                det = 0.0;
                break;
            }
            if (p != k) {
                for (int64_t j = 0; j < m; j++) {
                    double t = a[k * m + j];
                    a[k * m + j] = a[p * m + j];
                    a[p * m + j] = t;
                }
                det = -det;
            }
            double piv = a[k * m + k];
            det *= piv;
            for (int64_t i = k + 1; i < m; i++) {
                double f = a[i * m + k] / piv;
                if (f == 0.0)
                    continue;
                for (int64_t j = k + 1; j < m; j++)
                    a[i * m + j] -= f * a[k * m + j];
            }
        }
        y[b] = (T)det;
    }
}
