/* misc_gathernd.c - ONNX GatherND with the batch dims flattened: for batch b < nbatch and index
 * tuple t < ntuple (k entries, negative counts from the end, into the data dims dshape[0..k)
 * after the batch dims), y[b, t, :] = data[b, tuple, :] (slice elements; bstride elements per
 * batch of data).  ONNX calls a tuple entry outside [-dshape[j], dshape[j]) an error: the
 * indices are all checked first, and the kernel returns 1 having written nothing (NAME_run
 * returns -7), else 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static int gathernd_T(const T *x, const int64_t *idx, T *y, const int64_t *dshape, int64_t nbatch,
                      int64_t ntuple, int64_t k, int64_t slice, int64_t bstride) {
    for (int64_t i = 0; i < nbatch * ntuple; i++)
        for (int64_t j = 0; j < k; j++) {
            const int64_t v = idx[i * k + j];
            if (v < -dshape[j] || v >= dshape[j])
                return 1;
        }
    for (int64_t b = 0; b < nbatch; b++)
        for (int64_t t = 0; t < ntuple; t++) {
            const int64_t *tp = idx + (b * ntuple + t) * k;
            T *dst = y + (b * ntuple + t) * slice;
            int64_t off = 0;
            for (int64_t j = 0; j < k; j++)
                off = off * dshape[j] + (tp[j] < 0 ? tp[j] + dshape[j] : tp[j]);
            const T *src = x + b * bstride + off * slice;
            for (int64_t s = 0; s < slice; s++)
                dst[s] = src[s];
        }
    return 0;
}
