/* spatial_roialign.c - ONNX RoiAlign on x [N, C, H, W]: for roi r = (x1, y1, x2, y2) * scale
 * (minus 0.5 when half_pixel) of image bidx[r], each of the oh x ow bins of the roi averages
 * (avg) or takes the max of (max, as onnxruntime: the largest weighted corner of each sample)
 * gh x gw bilinear samples at the centres of a regular grid in the bin; gh = ratio, or
 * ceil(roi_h / oh) when ratio is 0 (likewise gw).  Without half_pixel a roi is at least
 * 1 x 1.  Samples more than one pixel outside the image give 0; the others are clamped to it.
 * A batch index outside [0, n) names no image: the indices are all checked first, and the
 * kernel returns 1 having written nothing (NAME_run returns -7), else 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static int roialign_T(const T *x, const T *rois, const int64_t *bidx, T *y, int64_t n,
                       int64_t c, int64_t h, int64_t w, int64_t nroi, int64_t oh, int64_t ow,
                       int64_t ratio, double scale, int half_pixel, int maxmode) {
    double off = half_pixel ? 0.5 : 0.0;
    for (int64_t r = 0; r < nroi; r++)
        if (bidx[r] < 0 || bidx[r] >= n)
            return 1;
    for (int64_t r = 0; r < nroi; r++) {
        const T *rb = rois + r * 4;
        int64_t b = bidx[r];
        double x0 = (double)rb[0] * scale - off, y0 = (double)rb[1] * scale - off;
        double rw = (double)rb[2] * scale - off - x0, rh = (double)rb[3] * scale - off - y0;
        if (!half_pixel) {
            rw = rw > 1.0 ? rw : 1.0;
            rh = rh > 1.0 ? rh : 1.0;
        }
        double bh = rh / (double)oh, bw = rw / (double)ow;
        double fgh = ratio > 0 ? (double)ratio : ceil(rh / (double)oh);
        double fgw = ratio > 0 ? (double)ratio : ceil(rw / (double)ow);
        /* bounded: a non-finite or absurd roi samples nothing */
        int64_t gh = fgh >= 1.0 && fgh <= 65536.0 ? (int64_t)fgh : 0;
        int64_t gw = fgw >= 1.0 && fgw <= 65536.0 ? (int64_t)fgw : 0;
        double count = gh * gw > 0 ? (double)(gh * gw) : 1.0;
        for (int64_t ch = 0; ch < c; ch++) {
            T *yo = y + (r * c + ch) * oh * ow;
            const T *p = x + (b * c + ch) * h * w;
            for (int64_t ph = 0; ph < oh; ph++)
                for (int64_t pw = 0; pw < ow; pw++) {
                    double acc = 0.0;
                    int first = 1;
                    for (int64_t iy = 0; iy < gh; iy++) {
                        double sy = y0 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
                        for (int64_t ix = 0; ix < gw; ix++) {
                            double sx =
                                x0 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
                            double v = 0.0;
                            if (sy >= -1.0 && sy <= (double)h && sx >= -1.0 && sx <= (double)w &&
                                h > 0 && w > 0) {
                                double yy = sy <= 0.0 ? 0.0 : sy, xx = sx <= 0.0 ? 0.0 : sx;
                                int64_t yl = (int64_t)yy, xl = (int64_t)xx, yh, xh;
                                if (yl >= h - 1) {
                                    yl = yh = h - 1;
                                    yy = (double)yl;
                                } else
                                    yh = yl + 1;
                                if (xl >= w - 1) {
                                    xl = xh = w - 1;
                                    xx = (double)xl;
                                } else
                                    xh = xl + 1;
                                double ly = yy - (double)yl, lx = xx - (double)xl;
                                double hy = 1.0 - ly, hx = 1.0 - lx;
                                double v1 = hy * hx * (double)p[yl * w + xl];
                                double v2 = hy * lx * (double)p[yl * w + xh];
                                double v3 = ly * hx * (double)p[yh * w + xl];
                                double v4 = ly * lx * (double)p[yh * w + xh];
                                if (maxmode) {
                                    v = v1 > v2 ? v1 : v2;
                                    v = v > v3 ? v : v3;
                                    v = v > v4 ? v : v4;
                                } else
                                    v = v1 + v2 + v3 + v4;
                            }
                            if (!maxmode)
                                acc += v;
                            else if (first || v > acc)
                                acc = v;
                            first = 0;
                        }
                    }
                    yo[ph * ow + pw] = (T)(maxmode ? acc : acc / count);
                }
        }
    }
    return 0;
}
