/* misc_scatternd.c - ONNX ScatterND: y = data (nx elements, shape dshape), then for each of the
 * nidx index tuples of k entries (negative counts from the end), the slice of `slice` elements
 * y[tuple, ...] gets updates[i, ...]: reduction 0 none (assign), 1 add, 2 mul, 3 max, 4 min.
 * A tuple entry outside [-dshape[j], dshape[j]) is an error (as in GatherND): the indices are
 * all checked first, and the kernel returns 1 having written nothing (NAME_run returns -7),
 * else 0.  Integer add and mul wrap modulo 2^n (templates/int_wrap.c). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "int_wrap.c"
#endif

static int scatternd_T(T *y, const T *x, int64_t nx, const int64_t *idx, const T *upd,
                       const int64_t *dshape, int64_t nidx, int64_t k, int64_t slice,
                       int reduction) {
    for (int64_t i = 0; i < nidx; i++)
        for (int64_t j = 0; j < k; j++) {
            const int64_t v = idx[i * k + j];
            if (v < -dshape[j] || v >= dshape[j])
                return 1;
        }
    memcpy(y, x, (size_t)nx * sizeof(T));
    for (int64_t i = 0; i < nidx; i++) {
        int64_t off = 0;
        for (int64_t j = 0; j < k; j++) {
            const int64_t v = idx[i * k + j];
            off = off * dshape[j] + (v < 0 ? v + dshape[j] : v);
        }
        T *dst = y + off * slice;
        const T *src = upd + i * slice;
        for (int64_t s = 0; s < slice; s++) {
            switch (reduction) {
            case 1: dst[s] = o2c_wrap_T('+', dst[s], src[s]); break;
            case 2: dst[s] = o2c_wrap_T('*', dst[s], src[s]); break;
            case 3: if (src[s] > dst[s]) dst[s] = src[s]; break;
            case 4: if (src[s] < dst[s]) dst[s] = src[s]; break;
            default: dst[s] = src[s]; break;
            }
        }
    }
    return 0;
}
