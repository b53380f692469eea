/* resize_nearest.c - ONNX Resize mode "nearest" (and Upsample nearest): a gather.
 *
 * x is [outer, in[0], ..., in[k-1]] and y [outer, out[0], ..., out[k-1]]; idx holds one source
 * index per output index of each axis (templates/resize_coords.c), -1 where the output is
 * outside a tf_crop_and_resize box and gets `extrap`. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void resize_nearest_T(const T *x, T *y, int64_t outer, int k, const int64_t *in,
                             const int64_t *out, const int64_t *idx, T extrap) {
    int64_t base[8], o[8], insz = 1, rows = 1, last = k - 1, wl = out[last];
    int64_t at = 0;
    for (int d = 0; d < k; at += out[d], d++) {
        base[d] = at;
        o[d] = 0;
        insz *= in[d];
        if (d < last)
            rows *= out[d];
    }
    const int64_t *il = idx + base[last];
    for (int64_t p = 0; p < outer; p++) {
        const T *xp = x + p * insz;
        for (int64_t r = 0; r < rows; r++, y += wl) {
            int64_t off = 0;
            int outside = 0;
            for (int d = 0; d < last; d++) {
                int64_t i = idx[base[d] + o[d]];
                outside |= i < 0;
                off = off * in[d] + (i < 0 ? 0 : i);
            }
            const T *row = xp + off * in[last];
            for (int64_t j = 0; j < wl; j++)
                y[j] = outside || il[j] < 0 ? extrap : row[il[j]];
            for (int d = last - 1; d >= 0 && ++o[d] == out[d]; d--)
                o[d] = 0;
        }
    }
}
