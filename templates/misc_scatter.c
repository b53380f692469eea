/* misc_scatter.c - ONNX ScatterElements (and Scatter): y = data (nx elements), then for every
 * position p of indices (shape ishape), the position of y equal to p except along `axis`, where
 * it is idx[p] (negative counts from the end), gets updates[p]: reduction 0 none (assign),
 * 1 add, 2 mul, 3 max, 4 min.  ONNX calls an index outside [-dshape[axis], dshape[axis]) an
 * error: the indices are all checked first, and the kernel returns 1 having written nothing
 * (NAME_run returns -7), else 0.  Integer add and mul wrap modulo 2^n (templates/int_wrap.c). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "int_wrap.c"
#endif

static int scatter_elements_T(T *y, const T *x, int64_t nx, const void *idx, int idx32,
                              const T *upd, const int64_t *ishape, const int64_t *dshape,
                              int64_t rank, int64_t axis, int reduction) {
    const int64_t dim = dshape[axis];
    int64_t count = 1;
    for (int64_t d = 0; d < rank; d++)
        count *= ishape[d];
    for (int64_t p = 0; p < count; p++) {
        const int64_t t = idx32 ? (int64_t)((const int32_t *)idx)[p] : ((const int64_t *)idx)[p];
        if (t < -dim || t >= dim)
            return 1;
    }
    memcpy(y, x, (size_t)nx * sizeof(T));
    for (int64_t p = 0; p < count; p++) {
        int64_t t = idx32 ? (int64_t)((const int32_t *)idx)[p] : ((const int64_t *)idx)[p];
        if (t < 0)
            t += dim;
        int64_t rem = p, off = 0, stride = 1;
        for (int64_t d = rank - 1; d >= 0; d--) {
            int64_t cd = rem % ishape[d];
            rem /= ishape[d];
            off += (d == axis ? t : cd) * stride;
            stride *= dshape[d];
        }
        T u = upd[p];
        switch (reduction) {
        case 1: y[off] = o2c_wrap_T('+', y[off], u); break;
        case 2: y[off] = o2c_wrap_T('*', y[off], u); break;
        case 3: if (u > y[off]) y[off] = u; break;
        case 4: if (u < y[off]) y[off] = u; break;
        default: y[off] = u; break;
        }
    }
    return 0;
}
