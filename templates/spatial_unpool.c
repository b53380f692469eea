/* spatial_unpool.c - ONNX MaxUnpool: y = 0, then y[pos(ind[i])] = x[i] for each element of x,
 * where ind[i] is a flat index into a tensor of shape ishape (the unpooled shape the attributes
 * imply) and pos places the same coordinates in y of shape oshape (>= ishape per axis: an
 * explicit output_shape pads at the end of each axis).  An index outside [0, prod(ishape)) has
 * no place in y: the indices are all checked first, and the kernel returns 1 having written
 * nothing (NAME_run returns -7), else 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static int maxunpool_T(const T *x, const int64_t *ind, T *y, int64_t nx, int64_t rank,
                       const int64_t *ishape, const int64_t *oshape) {
    int64_t itotal = 1, ototal = 1;
    for (int64_t d = 0; d < rank; d++) {
        itotal *= ishape[d];
        ototal *= oshape[d];
    }
    for (int64_t i = 0; i < nx; i++)
        if (ind[i] < 0 || ind[i] >= itotal)
            return 1;
    for (int64_t i = 0; i < ototal; i++)
        y[i] = (T)0;
    for (int64_t i = 0; i < nx; i++) {
        int64_t rem = ind[i], off = 0, mul = 1;
        for (int64_t d = rank - 1; d >= 0; d--) {
            off += rem % ishape[d] * mul;
            rem /= ishape[d];
            mul *= oshape[d];
        }
        y[off] = x[i];
    }
    return 0;
}
