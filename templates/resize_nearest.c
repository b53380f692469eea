/* resize_nearest.c - ONNX Resize mode "nearest" (and Upsample nearest): a gather.
 *
 * x is [outer, in[0], ..., in[k-1]] and y [outer, out[0], ..., out[k-1]]; idx holds one source
 * index per output index of each axis (templates/resize_coords.c), -1 where the output is
 * outside a tf_crop_and_resize box and gets `extrap`.  Built with OpenMP, from 2^16 outputs the
 * output rows (all axes but the last) are shared among the threads. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif

/* Output rows [r0, r1) of the outer x out[0] x ... x out[k-2] rows. */
O2C_KERNEL
static void resize_nearest_rows_T(const T *x, T *y, int k, const int64_t *in, const int64_t *out,
                                  const int64_t *idx, T extrap, int64_t r0, int64_t r1) {
    int64_t base[8], o[8], insz = 1, rows = 1, last = k - 1, wl = out[last];
    int64_t at = 0, p, r;
    for (int d = 0; d < k; at += out[d], d++) {
        base[d] = at;
        insz *= in[d];
        if (d < last)
            rows *= out[d];
    }
    const int64_t *il = idx + base[last];
    int inside = 1; /* no output index of the last axis outside the box */
    for (int64_t j = 0; j < wl; j++)
        inside &= il[j] >= 0;
    p = r0 / rows, r = r0 % rows;
    for (int d = last - 1; d >= 0; d--) { /* o from r, the axis before the last fastest */
        o[d] = r % out[d];
        r /= out[d];
    }
    y += r0 * wl;
    for (r = r0; r < r1; r++, y += wl) {
        const T *xp = x + p * insz;
        int64_t off = 0;
        int outside = 0;
        for (int d = 0; d < last; d++) {
            int64_t i = idx[base[d] + o[d]];
            outside |= i < 0;
            off = off * in[d] + (i < 0 ? 0 : i);
        }
        const T *row = xp + off * in[last];
        if (inside && !outside) /* a plain gather (vectorised) */
            for (int64_t j = 0; j < wl; j++)
                y[j] = row[il[j]];
        else
            for (int64_t j = 0; j < wl; j++)
                y[j] = outside || il[j] < 0 ? extrap : row[il[j]];
        int d = last - 1;
        for (; d >= 0 && ++o[d] == out[d]; d--)
            o[d] = 0;
        if (d < 0)
            p++;
    }
}

static void resize_nearest_T(const T *x, T *y, int64_t outer, int k, const int64_t *in,
                             const int64_t *out, const int64_t *idx, T extrap) {
    int64_t rows = outer;
    for (int d = 0; d + 1 < k; d++)
        rows *= out[d];
#ifdef _OPENMP
    if (o2c_par(rows * out[k - 1] >= 65536 && rows > 1)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(rows, &lo, &hi);
            resize_nearest_rows_T(x, y, k, in, out, idx, extrap, lo, hi);
        }
        return;
    }
#endif
    resize_nearest_rows_T(x, y, k, in, out, idx, extrap, 0, rows);
}
