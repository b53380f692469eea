/* pool_avg.c - average pooling over up to three spatial axes (ONNX AveragePool,
 * GlobalAveragePool).
 *
 * Shapes and windows as in pool_max.c; pad holds the begin pads of the three axes, then the end
 * pads.  The sum (in O2C_ACC_T: double, float on single-precision FPUs) is divided by the number of taps inside the input, or, when
 * count_include_pad, by the number of taps inside the padded input [-pad_begin, in + pad_end).
 * A window with nothing to count gives 0. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#include "pool_count.c"
#endif

/* The sum of n contiguous elements: in order on scalar cores and Helium; on the other cores
 * with vectors in 16 interleaved partial sums (lane l takes p[l], p[l + 16], ...): for float,
 * written with vectors of 8 sums (the compiler's choice to vectorise the loop form varied with
 * the caller: a global average inlined into its own loop took 3x longer), else a loop of 16
 * the compiler keeps in vector registers (a global average over 16x16 positions: 16 vector
 * adds, not 256 dependent scalar ones). */
#if O2C_V4 && !defined(O2C_MVE) && O2C_F32_T && defined(__GNUC__)
__extension__ typedef O2C_ACC_T pool_sv_T __attribute__((vector_size(8 * sizeof(O2C_ACC_T))));
__extension__ typedef T pool_fv_T __attribute__((vector_size(8 * sizeof(T)), aligned(sizeof(T)),
                                                  may_alias));
#define POOL_SUMV_T 1
#else
#define POOL_SUMV_T 0
#endif
static O2C_INLINE O2C_ACC_T pool_rowsum_T(const T *p, int64_t n) {
    O2C_ACC_T acc = 0;
    int64_t j = 0;
#if POOL_SUMV_T
    if (n >= 32) {
        pool_sv_T s0 = {0}, s1 = {0};
        int l;
        for (; j + 16 <= n; j += 16) {
            s0 += __builtin_convertvector(*(const pool_fv_T *)(const void *)(p + j), pool_sv_T);
            s1 += __builtin_convertvector(*(const pool_fv_T *)(const void *)(p + j + 8), pool_sv_T);
        }
        for (l = 0; l < 8; l++)
            acc += s0[l] + s1[l];
    }
#elif O2C_V4 && !defined(O2C_MVE)
    if (n >= 32) {
        O2C_ACC_T part[16];
        int l;
        for (l = 0; l < 16; l++)
            part[l] = 0;
        for (; j + 16 <= n; j += 16)
            for (l = 0; l < 16; l++)
                part[l] += (O2C_ACC_T)p[j + l];
        for (l = 0; l < 16; l++)
            acc += part[l];
    }
#endif
    for (; j < n; j++)
        acc += (O2C_ACC_T)p[j];
    return acc;
}

O2C_KERNEL
static void avgpool_T(const T *x, T *y, int64_t nc, const int64_t *in, const int64_t *out,
                      const int64_t *k, const int64_t *st, const int64_t *dl, const int64_t *pad,
                      int64_t count_include_pad) {
    int64_t plane = in[0] * in[1] * in[2];
    /* one window over the whole plane (a global average; the emitter's 1 x 1 x H*W form): the
     * plane summed as one row, no windows (MobileNetV3's 576 x 7 x 7: 8 us -> 4 us) */
    if (out[0] == 1 && out[1] == 1 && out[2] == 1 && k[0] == in[0] && k[1] == in[1] &&
        k[2] == in[2] && dl[0] == 1 && dl[1] == 1 && dl[2] == 1 && pad[0] == 0 && pad[1] == 0 &&
        pad[2] == 0 && pad[3] == 0 && pad[4] == 0 && pad[5] == 0 && plane > 0) {
        for (int64_t c = 0; c < nc; c++)
            y[c] = (T)(pool_rowsum_T(x + c * plane, plane) / (O2C_ACC_T)plane);
        return;
    }
    for (int64_t c = 0; c < nc; c++) {
        const T *xc = x + c * plane;
        for (int64_t o0 = 0; o0 < out[0]; o0++) {
            const pool_win_T w0 = pool_window_T(o0, 0, in, k, st, dl, pad, count_include_pad);
            for (int64_t o1 = 0; o1 < out[1]; o1++) {
                const pool_win_T w1 = pool_window_T(o1, 1, in, k, st, dl, pad, count_include_pad);
                for (int64_t o2 = 0; o2 < out[2]; o2++) {
                    const pool_win_T w2 =
                        pool_window_T(o2, 2, in, k, st, dl, pad, count_include_pad);
                    O2C_ACC_T acc = 0;
                    for (int64_t a = w0.j0; a < w0.j1; a++) {
                        int64_t i0 = w0.s + a * dl[0];
                        for (int64_t b = w1.j0; b < w1.j1; b++) {
                            const T *row = xc + (i0 * in[1] + w1.s + b * dl[1]) * in[2];
                            if (dl[2] == 1)
                                acc += pool_rowsum_T(row + w2.s + w2.j0, w2.j1 - w2.j0);
                            else
                                for (int64_t j = w2.j0; j < w2.j1; j++)
                                    acc += (O2C_ACC_T)row[w2.s + j * dl[2]];
                        }
                    }
                    int64_t cnt = pool_count_T(&w0, &w1, &w2, count_include_pad);
                    *y++ = cnt > 0 ? (T)(acc / (O2C_ACC_T)cnt) : (T)0;
                }
            }
        }
    }
}
