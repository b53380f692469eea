/* misc_scatternd.c — ONNX ScatterND into y, which already holds a copy of data (shape dshape):
 * for each of the nidx index tuples of k entries (negative counts from the end), the slice of
 * `slice` elements y[tuple, ...] gets updates[i, ...]: reduction 0 none (assign), 1 add, 2 mul,
 * 3 max, 4 min.  Tuples out of range are skipped. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void scatternd_T(T *y, const int64_t *idx, const T *upd, const int64_t *dshape,
                        int64_t nidx, int64_t k, int64_t slice, int reduction) {
    for (int64_t i = 0; i < nidx; i++) {
        int64_t off = 0;
        int ok = 1;
        for (int64_t j = 0; j < k; j++) {
            int64_t v = idx[i * k + j];
            if (v < 0)
                v += dshape[j];
            if (v < 0 || v >= dshape[j])
                ok = 0;
            off = off * dshape[j] + v;
        }
        if (!ok)
            continue;
        T *dst = y + off * slice;
        const T *src = upd + i * slice;
        for (int64_t s = 0; s < slice; s++) {
            switch (reduction) {
            case 1: dst[s] += src[s]; break;
            case 2: dst[s] *= src[s]; break;
            case 3: if (src[s] > dst[s]) dst[s] = src[s]; break;
            case 4: if (src[s] < dst[s]) dst[s] = src[s]; break;
            default: dst[s] = src[s]; break;
            }
        }
    }
}
