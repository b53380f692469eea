/* spatial_gridsample.c - ONNX GridSample (opset 16, the semantics of PyTorch's grid_sample) on
 * x [N, C, H, W] with grid [N, Ho, Wo, 2] (x, y in [-1, 1]) giving y [N, C, Ho, Wo].
 *   unnormalize: align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2
 *   padding 0 zeros (taps outside read 0), 1 border (clamp to [0, size - 1]),
 *           2 reflection (reflect about the border pixels' centres when align, their outer
 *             edges otherwise, then clamp)
 *   mode 0 bilinear, 1 nearest (round half to even), 2 bicubic (Keys, a = -0.75, on the 4 x 4
 *        taps around the unpadded coordinate, each tap padded on its own).
 * Coordinates and sums are computed in double. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static double gs_reflect_T(double v, double lo2, double hi2) {
    if (lo2 == hi2)
        return 0.0;
    double mn = lo2 / 2, span = (hi2 - lo2) / 2;
    v = fabs(v - mn);
    double extra = fmod(v, span);
    double flips = floor(v / span);
    return fmod(flips, 2.0) == 0.0 ? extra + mn : span - extra + mn;
}

/* A (possibly fractional) source coordinate after padding. */
static double gs_pad_T(double v, int64_t size, int pad, int align) {
    if (pad == 2) {
        if (align)
            v = gs_reflect_T(v, 0.0, 2.0 * (double)(size - 1));
        else
            v = gs_reflect_T(v, -1.0, 2.0 * (double)size - 1.0);
    }
    if (pad != 0) {
        double hi = (double)(size - 1);
        v = v < 0.0 ? 0.0 : v > hi ? hi : v;
    }
    return v;
}

/* Plane element at the integral coordinates (fy, fx), 0 outside (and for NaN). */
static double gs_at_T(const T *p, int64_t h, int64_t w, double fy, double fx) {
    if (fy >= 0.0 && fy < (double)h && fx >= 0.0 && fx < (double)w)
        return (double)p[(int64_t)fy * w + (int64_t)fx];
    return 0.0;
}

static double gs_cubic_T(double v0, double v1, double v2, double v3, double t) {
    const double a = -0.75;
    double d0 = t + 1.0, d1 = t, d2 = 1.0 - t, d3 = 2.0 - t;
    double w0 = ((a * d0 - 5 * a) * d0 + 8 * a) * d0 - 4 * a;
    double w1 = ((a + 2) * d1 - (a + 3)) * d1 * d1 + 1;
    double w2 = ((a + 2) * d2 - (a + 3)) * d2 * d2 + 1;
    double w3 = ((a * d3 - 5 * a) * d3 + 8 * a) * d3 - 4 * a;
    return v0 * w0 + v1 * w1 + v2 * w2 + v3 * w3;
}

static void gridsample_T(const T *x, const T *grid, T *y, int64_t n, int64_t c, int64_t h,
                         int64_t w, int64_t ho, int64_t wo, int mode, int pad, int align) {
    int64_t npix = ho * wo;
    for (int64_t b = 0; b < n; b++)
        for (int64_t q = 0; q < npix; q++) {
            const T *g = grid + (b * npix + q) * 2;
            double gx = (double)g[0], gy = (double)g[1];
            double fx = align ? (gx + 1) / 2 * (double)(w - 1) : ((gx + 1) * (double)w - 1) / 2;
            double fy = align ? (gy + 1) / 2 * (double)(h - 1) : ((gy + 1) * (double)h - 1) / 2;
            for (int64_t ch = 0; ch < c; ch++) {
                const T *p = x + (b * c + ch) * h * w;
                double v;
                if (mode == 2) {
                    double x0 = floor(fx), y0 = floor(fy), r[4];
                    for (int i = 0; i < 4; i++) {
                        double t[4];
                        double sy = gs_pad_T(y0 - 1 + i, h, pad, align);
                        for (int j = 0; j < 4; j++)
                            t[j] = gs_at_T(p, h, w, sy, gs_pad_T(x0 - 1 + j, w, pad, align));
                        r[i] = gs_cubic_T(t[0], t[1], t[2], t[3], fx - x0);
                    }
                    v = gs_cubic_T(r[0], r[1], r[2], r[3], fy - y0);
                } else if (mode == 1) {
                    double sx = gs_pad_T(fx, w, pad, align), sy = gs_pad_T(fy, h, pad, align);
                    double rx = floor(sx + 0.5), ry = floor(sy + 0.5);
                    if (rx - sx == 0.5 && fmod(rx, 2.0) != 0.0)
                        rx -= 1.0;
                    if (ry - sy == 0.5 && fmod(ry, 2.0) != 0.0)
                        ry -= 1.0;
                    v = gs_at_T(p, h, w, ry, rx);
                } else {
                    double sx = gs_pad_T(fx, w, pad, align), sy = gs_pad_T(fy, h, pad, align);
                    double x0 = floor(sx), y0 = floor(sy), lx = sx - x0, ly = sy - y0;
                    v = (gs_at_T(p, h, w, y0, x0) * (1 - lx) + gs_at_T(p, h, w, y0, x0 + 1) * lx) *
                            (1 - ly) +
                        (gs_at_T(p, h, w, y0 + 1, x0) * (1 - lx) +
                         gs_at_T(p, h, w, y0 + 1, x0 + 1) * lx) * ly;
                }
                y[(b * c + ch) * npix + q] = (T)v;
            }
        }
}
