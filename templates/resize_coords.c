/* resize_coords.c - per-axis source indices and weights of ONNX Resize / Upsample (untyped).
 *
 * For output index o of one axis, the source coordinate x (ONNX Resize,
 * coordinate_transformation_mode; len is the resized length, which the ONNX reference takes as
 * scale * in):
 *   0 half_pixel          x = (o + 0.5) / scale - 0.5
 *   1 pytorch_half_pixel  x = len == 1 ? -0.5 : (o + 0.5) / scale - 0.5
 *   2 align_corners       x = len == 1 ? 0 : o * (in - 1) / (len - 1)
 *   3 asymmetric          x = o / scale
 *   4 tf_half_pixel_for_nn x = (o + 0.5) / scale
 *   5 tf_crop_and_resize  x = r0 * (in - 1) + (len == 1 ? (r1 - r0) * (in - 1) / 2
 *                                                     : o * (r1 - r0) * (in - 1) / (len - 1));
 *                         outside [0, in - 1] (or NaN) the output is extrapolation_value
 * With x0 = ceil(x) - 1 and r = x - x0 in (0, 1], the taps are x0 + 1 - ntap/2 .. x0 + ntap/2
 * clamped to [0, in - 1] (edge padding), weighted by
 *   ntap 1 (nearest):  x0 or x0 + 1 by nearest_mode (0 round_prefer_floor, 1 round_prefer_ceil,
 *                      2 floor, 3 ceil); x0 + 1 when x is an integer
 *   ntap 2 (linear):   1 - r, r
 *   ntap 4 (cubic):    Keys' kernel with coefficient a at distances 1 + r, r, 1 - r, 2 - r;
 *                      exclude_outside zeroes the taps outside the input and renormalises.
 * An outside output gets idx[0] = -1.  Axis a's table starts at
 * (out[0] + ... + out[a-1]) * ntap. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static double resize_cubic(double d, double a) {
    d = d < 0 ? -d : d;
    if (d <= 1)
        return ((a + 2) * d - (a + 3)) * d * d + 1;
    if (d < 2)
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
    return 0;
}

static void resize_axis(int64_t in, int64_t out, double scale, double len, double r0, double r1,
                        int ctm, int ntap, int nearest, double a, int exclude, int64_t *idx,
                        double *wt) {
    for (int64_t o = 0; o < out; o++, idx += ntap, wt += ntap) {
        double x, fo = (double)o;
        switch (ctm) {
        case 1: x = len == 1.0 ? -0.5 : (fo + 0.5) / scale - 0.5; break;
        case 2: x = len == 1.0 ? 0.0 : fo * (double)(in - 1) / (len - 1.0); break;
        case 3: x = fo / scale; break;
        case 4: x = (fo + 0.5) / scale; break; /* tf_half_pixel_for_nn */
        case 5:
            x = len == 1.0 ? (r1 - r0) * (double)(in - 1) / 2.0
                           : fo * (r1 - r0) * (double)(in - 1) / (len - 1.0);
            x += r0 * (double)(in - 1);
            break;
        default: x = (fo + 0.5) / scale - 0.5; break;
        }
        /* negated, so that a NaN from a hostile roi is outside too (and never converted) */
        if ((ctm == 5 && !(x >= 0.0 && x <= (double)(in - 1))) || in <= 0) {
            for (int t = 0; t < ntap; t++) {
                idx[t] = t ? 0 : -1;
                wt[t] = 0.0;
            }
            continue;
        }
        double c = ceil(x);
        int64_t x0 = (int64_t)c - 1;
        double r = x - (double)x0;
        if (ntap == 1) {
            int up;
            switch (nearest) {
            case 1: up = r >= 0.5; break;
            case 2: up = 0; break;
            case 3: up = 1; break;
            default: up = r > 0.5; break;
            }
            int64_t i = c == x || up ? x0 + 1 : x0;
            idx[0] = i < 0 ? 0 : i >= in ? in - 1 : i;
            wt[0] = 1.0;
            continue;
        }
        double sum = 0.0;
        for (int t = 0; t < ntap; t++) {
            int64_t i = x0 + 1 - ntap / 2 + t;
            double w = ntap == 2 ? (t ? r : 1.0 - r) : resize_cubic(r + 1.0 - (double)t, a);
            if (exclude && (i < 0 || i >= in))
                w = 0.0;
            idx[t] = i < 0 ? 0 : i >= in ? in - 1 : i;
            wt[t] = w;
            sum += w;
        }
        if (exclude && sum != 0.0)
            for (int t = 0; t < ntap; t++)
                wt[t] /= sum;
    }
}

/* The tables of the k resized axes: sc, len per axis, roi = starts then ends. */
static void resize_tables(int k, const int64_t *in, const int64_t *out, const double *sc,
                          const double *len, const double *roi, int ctm, int ntap, int nearest,
                          double a, int exclude, int64_t *idx, double *wt) {
    for (int d = 0; d < k; d++) {
        resize_axis(in[d], out[d], sc[d], len[d], roi[d], roi[k + d], ctm, ntap, nearest, a,
                    exclude, idx, wt);
        idx += out[d] * ntap;
        wt += out[d] * ntap;
    }
}
