/* misc_gathernd.c — ONNX GatherND with the batch dims flattened: for batch b < nbatch and index
 * tuple t < ntuple (k entries, negative counts from the end, into the data dims dshape[0..k)
 * after the batch dims), y[b, t, :] = data[b, tuple, :] (slice elements; bstride elements per
 * batch of data).  A tuple out of range gives zeros. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void gathernd_T(const T *x, const int64_t *idx, T *y, const int64_t *dshape, int64_t nbatch,
                       int64_t ntuple, int64_t k, int64_t slice, int64_t bstride) {
    for (int64_t b = 0; b < nbatch; b++)
        for (int64_t t = 0; t < ntuple; t++) {
            const int64_t *tp = idx + (b * ntuple + t) * k;
            T *dst = y + (b * ntuple + t) * slice;
            int64_t off = 0;
            int ok = 1;
            for (int64_t j = 0; j < k; j++) {
                int64_t v = tp[j];
                if (v < 0)
                    v += dshape[j];
                if (v < 0 || v >= dshape[j])
                    ok = 0;
                off = off * dshape[j] + v;
            }
            const T *src = x + b * bstride + off * slice;
            for (int64_t s = 0; s < slice; s++)
                dst[s] = ok ? src[s] : (T)0;
        }
}
