/* resize_interp.c - ONNX Resize modes "linear" and "cubic" (and Upsample linear): separable
 * N-linear / N-cubic interpolation over the k trailing axes.
 *
 * x is [outer, in[0], ..., in[k-1]] and y [outer, out[0], ..., out[k-1]].  idx and wt hold ntap
 * source indices and weights per output index of each axis (templates/resize_coords.c); an
 * output index with idx -1 on its first tap is outside a tf_crop_and_resize box and gets
 * `extrap`.  For each output row, every combination of the leading axes' taps adds its weighted
 * source row, interpolated along the last axis, into acc (out[k-1] doubles of scratch).  The
 * interpolated source rows are cached, one slot per tap combination (up to 16; scratch: (1 +
 * slots) x out[k-1] doubles): consecutive output rows mostly read the same source rows, so an
 * upsampling by s interpolates each source row about twice instead of 2 s times, and the
 * accumulation runs over contiguous rows.  (Linear over the last two axes has its own kernel:
 * resize_bilin.c.) */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void resize_interp_T(const T *x, T *y, int64_t outer, int k, const int64_t *in,
                            const int64_t *out, const int64_t *idx, const double *wt, int ntap,
                            double *acc, T extrap) {
    int64_t base[8], o[8], insz = 1, rows = 1, combs = 1, last = k - 1, wl = out[last];
    int64_t at = 0;
    for (int d = 0; d < k; at += out[d], d++) {
        base[d] = at * ntap;
        o[d] = 0;
        insz *= in[d];
        if (d < last) {
            rows *= out[d];
            combs *= ntap;
        }
    }
    const int64_t *il = idx + base[last];
    const double *wlast = wt + base[last];
    const int nslot = combs < 16 ? (int)combs : 16;
    int64_t tag[16]; /* the source row (offset in units of rows) each slot holds, or -1 */
    for (int64_t p = 0; p < outer; p++) {
        const T *xp = x + p * insz;
        for (int sl = 0; sl < nslot; sl++)
            tag[sl] = -1;
        for (int64_t r = 0; r < rows; r++, y += wl) {
            int outside = 0;
            for (int d = 0; d < last; d++)
                outside |= idx[base[d] + o[d] * ntap] < 0;
            for (int64_t j = 0; j < wl; j++)
                acc[j] = 0.0;
            for (int64_t cmb = 0; cmb < combs && !outside; cmb++) {
                int64_t off = 0, rest = cmb, div = combs;
                double w = 1.0;
                for (int d = 0; d < last; d++) {
                    div /= ntap;
                    int64_t q = base[d] + o[d] * ntap + rest / div;
                    rest %= div;
                    w *= wt[q];
                    off = off * in[d] + idx[q];
                }
                if (w == 0.0)
                    continue;
                const int sl = (int)(cmb % nslot);
                double *h = acc + (1 + sl) * wl;
                if (tag[sl] != off) { /* interpolate source row `off` along the last axis */
                    const T *row = xp + off * in[last];
                    for (int64_t j = 0; j < wl; j++) {
                        const int64_t *ij = il + j * ntap;
                        const double *wj = wlast + j * ntap;
                        double sum = 0.0;
                        if (ij[0] >= 0)
                            for (int t = 0; t < ntap; t++)
                                sum += wj[t] * (double)row[ij[t]];
                        h[j] = sum;
                    }
                    tag[sl] = off;
                }
                for (int64_t j = 0; j < wl; j++)
                    acc[j] += w * h[j];
            }
            for (int64_t j = 0; j < wl; j++)
                y[j] = outside || il[j * ntap] < 0 ? extrap : (T)acc[j];
            for (int d = last - 1; d >= 0 && ++o[d] == out[d]; d--)
                o[d] = 0;
        }
    }
}
