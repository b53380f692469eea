/* conv_im2col.c - unfold (im2col) for Conv: one image, one group, a tile of output positions.
 *
 * Every convolution is handled as 3-D: 1-D and 2-D ones pass size 1, kernel 1, stride 1,
 * dilation 1, pad 0 for the missing leading axes.  x is C x D x H x W; output position p is
 * flattened over OD x OH x OW.  Row r = ((c * KD + kz) * KH + ky) * KW + kx of the unfolded
 * matrix holds, for the np positions p0 .. p0+np-1, the input element that kernel tap meets
 * there (ONNX Conv: in = out * stride + k * dilation - pad_begin), or 0 in the padding.  Then
 * Y[m, p] = sum_r W[m, r] * cols[r, p - p0] is one GEMM with the weight as stored.
 *
 * cols is row-major, rows x np (leading dimension np): the engine (templates/gemm.c) packs it
 * per K block as its B operand, or reads it in place when the rows are few (K <= 128).
 *
 * Along the last axis, each run of output positions splits into the left padding (zeros),
 * the interior (a copy, or a strided gather) and the right padding, computed once per run:
 * no bounds test in the inner loops.
 *
 * sizes: in[3] = {D, H, W}, out[3] = {OD, OH, OW}; kern, stride, dil, pad: 3 each. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm.c"
#endif

/* t in [*lo, *hi) (both within [0, run]): 0 <= ix0 + t * sw < W */
static void im2col_span_T(int64_t ix0, int64_t sw, int64_t W, int64_t run, int64_t *lo,
                          int64_t *hi) {
    int64_t l = ix0 < 0 ? (-ix0 + sw - 1) / sw : 0;
    int64_t h = W - 1 - ix0 < 0 ? 0 : (W - 1 - ix0) / sw + 1;
    if (h > run)
        h = run;
    if (l > h)
        l = h;
    *lo = l, *hi = h;
}

/* Rows r = u * KW .. u * KW + KW - 1 of the tile: unit u = (c * KD + kz) * KH + ky. */
O2C_KERNEL
static void im2col_unit_T(const T *x, int64_t u, const int64_t *in, const int64_t *out,
                          const int64_t *kern, const int64_t *stride, const int64_t *dil,
                          const int64_t *pad, int64_t p0, int64_t np, T *cols) {
    const int64_t OHW = out[1] * out[2], OW = out[2], sw = stride[2];
    const int64_t c = u / (kern[0] * kern[1]), kz = u / kern[1] % kern[0], ky = u % kern[1];
    int64_t kx, t;
    for (kx = 0; kx < kern[2]; kx++) {
        T *dst = cols + (u * kern[2] + kx) * np;
        const int64_t ixk = kx * dil[2] - pad[2];
        int64_t oz = p0 / OHW, oy = (p0 % OHW) / OW, ox = p0 % OW;
        int64_t q = 0, lo_row, hi_row;
        /* the span of a whole output row, the common run */
        im2col_span_T(ixk, sw, in[2], OW, &lo_row, &hi_row);
        while (q < np) {
            /* one run of output positions along the last axis */
            int64_t run = OW - ox, lo, hi;
            const int64_t iz = oz * stride[0] + kz * dil[0] - pad[0];
            const int64_t iy = oy * stride[1] + ky * dil[1] - pad[1];
            const int64_t ix0 = ox * sw + ixk;
            T *d = dst + q;
            if (run > np - q)
                run = np - q;
            if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1])
                lo = hi = run;
            else if (run == OW)
                lo = lo_row, hi = hi_row;
            else
                im2col_span_T(ix0, sw, in[2], run, &lo, &hi);
            for (t = 0; t < lo; t++)
                d[t] = (T)0;
            if (lo < hi) {
                const T *src = x + ((c * in[0] + iz) * in[1] + iy) * in[2] + ix0 + lo * sw;
                T *dl = d + lo;
                const int64_t n = hi - lo;
                if (sw == 1)
                    for (t = 0; t < n; t++)
                        dl[t] = src[t];
                else if (sw == 2)
                    for (t = 0; t < n; t++)
                        dl[t] = src[2 * t];
                else
                    for (t = 0; t < n; t++)
                        dl[t] = src[t * sw];
            }
            for (t = hi; t < run; t++)
                d[t] = (T)0;
            q += run;
            ox += run;
            if (ox == OW) {
                ox = 0;
                if (++oy == out[1]) {
                    oy = 0;
                    oz++;
                }
            }
        }
    }
}

/* Built with OpenMP, a tile of at least 2^15 elements shares its units out among threads
 * (o2c_par). */
static void im2col_T(const T *x, int64_t C, const int64_t *in, const int64_t *out,
                     const int64_t *kern, const int64_t *stride, const int64_t *dil,
                     const int64_t *pad, int64_t p0, int64_t np, T *cols) {
    const int64_t units = C * kern[0] * kern[1];
    int64_t u;
    if (np <= 0)
        return;
#ifdef _OPENMP
    if (o2c_par(units * kern[2] * np >= 32768 && units > 1)) {
#pragma omp parallel for schedule(static)
        for (u = 0; u < units; u++)
            im2col_unit_T(x, u, in, out, kern, stride, dil, pad, p0, np, cols);
        return;
    }
#endif
    for (u = 0; u < units; u++)
        im2col_unit_T(x, u, in, out, kern, stride, dil, pad, p0, np, cols);
}
