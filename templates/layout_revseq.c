/* layout_revseq.c - ONNX ReverseSequence: for each batch entry b, the first lens[b] steps along
 * the time axis are reversed, the rest copied.  x is seen as [outer, A, B, inner] with the time
 * axis of stride ts and the batch axis of stride bs (in elements of one row of `inner`).  A
 * length outside [0, steps] is an error: the lengths are all checked first, and the kernel
 * returns 1 having written nothing (NAME_run returns -7), else 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static int revseq_T(const T *x, const int64_t *lens, T *y, int64_t batch, int64_t steps,
                    int64_t bs, int64_t ts, int64_t inner) {
    for (int64_t b = 0; b < batch; b++)
        if (lens[b] < 0 || lens[b] > steps)
            return 1;
    for (int64_t b = 0; b < batch; b++) {
        const int64_t len = lens[b];
        for (int64_t t = 0; t < steps; t++) {
            int64_t s = t < len ? len - 1 - t : t;
            const T *src = x + (b * bs + s * ts) * inner;
            T *dst = y + (b * bs + t * ts) * inner;
            for (int64_t i = 0; i < inner; i++)
                dst[i] = src[i];
        }
    }
    return 0;
}
