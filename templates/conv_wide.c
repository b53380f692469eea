/* conv_wide.c - 2-D Conv, stride 1, with few output channels per group: the correlation of a
 * Siamese tracker (search x template, one output channel), a narrow head.
 *
 * With one to eight output channels the unfold + GEMM of templates/conv_im2col.c is all
 * unfolding: every element of the unfolded matrix is written, read back and used once or a few
 * times.  Instead this kernel accumulates in "wide" rows: with stride 1, output (oy, ox) meets
 * input (oy + ky * dh, ox + kx * dw) under tap (ky, kx), so if the output is kept with the
 * input's row pitch Wp (columns OW .. Wp-1 of each row are computed and thrown away), each tap
 * of each input channel is one contiguous multiply-add over the whole band of output rows:
 *     acc[m][q] += w[m][c][ky][kx] * xin[q + ky * dh * Wp + kx * dw]     q < (rows-1) * Wp + OW
 * a loop without tests that compilers vectorize.  A padded input is first copied, one band of
 * rows of one channel at a time, into a zero-bordered plane of pitch Wp = OW + (KW-1) * dw.
 * Bands of output rows keep the accumulators and that copy inside `cap` elements of scratch
 * (the compiler gives max(2^15, what one output row needs)).  Then the bias, the residual and
 * the activation (templates/gemm_act.c) as the band is stored.
 *
 * x: C x H x W (one group's channels), w: M x C x KH x KW, bias: M or NULL, y and res:
 * M x OH x OW (res may be NULL).
 *
 * convwide_in_T is inlined where it is called: the compiler writes, per node, an O2C_KERNEL
 * function that calls it with the node's sizes as constants when they are (compiler/ops/conv.c),
 * so that a build which picks its kernels at run time specialises the loops for the taps as a
 * -march=native build does inside NAME_run (SiamFC's 6x6 correlation at plain -O2: 0.13 ->
 * 0.095 ms, native 0.095), else with them as parameters. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm_act.c"
#include "o2c_target.c"
#endif

static O2C_INLINE void convwide_in_T(const T *x, const T *w, const T *bias, const T *res, T *y,
                                     int64_t C, int64_t M, int64_t H, int64_t W, int64_t OH,
                                     int64_t OW, int64_t KH, int64_t KW, int64_t dh, int64_t dw,
                                     int64_t ph, int64_t pw, int act, T p0, T p1, T *scratch,
                                     int64_t cap) {
    const int64_t Wp = OW + (KW - 1) * dw, span = (KH - 1) * dh;
    if (OH <= 0 || OW <= 0 || M <= 0) /* an empty output: nothing to compute (and Wp may be 0) */
        return;
    const int copy = ph != 0 || pw != 0 || Wp != W || OH + span != H;
    /* band rows: acc M x rows x Wp, plus the padded copy (rows + span) x Wp */
    int64_t rows = (cap - (copy ? span * Wp : 0)) / ((M + (copy ? 1 : 0)) * Wp);
    int64_t oy0, c, ky, kx, m, q, oy, ox;
    if (rows < 1)
        rows = 1;
    if (rows > OH)
        rows = OH;
    for (oy0 = 0; oy0 < OH; oy0 += rows) {
        const int64_t nr = OH - oy0 < rows ? OH - oy0 : rows;
        const int64_t L = (nr - 1) * Wp + OW, inrows = nr + span;
        T *acc = scratch, *xp = scratch + M * rows * Wp;
        for (q = 0; q < M * nr * Wp; q++)
            acc[q] = (T)0;
        for (c = 0; c < C; c++) {
            const T *xc = x + c * H * W, *src = xc + oy0 * W;
            if (copy) {
                /* rows oy0 - ph .. of channel c, columns -pw .., zero outside the image */
                int64_t r, lo = pw, hi = pw + W;
                if (hi > Wp)
                    hi = Wp;
                for (r = 0; r < inrows; r++) {
                    const int64_t iy = oy0 + r - ph;
                    T *d = xp + r * Wp;
                    if (iy < 0 || iy >= H) {
                        for (q = 0; q < Wp; q++)
                            d[q] = (T)0;
                        continue;
                    }
                    for (q = 0; q < lo && q < Wp; q++)
                        d[q] = (T)0;
                    for (q = lo; q < hi; q++)
                        d[q] = xc[iy * W + q - pw];
                    for (q = hi > lo ? hi : lo; q < Wp; q++)
                        d[q] = (T)0;
                }
                src = xp;
            }
            /* the taps of a kernel row four at a time, then two, then one: one pass over the
             * accumulators adds up to four products (a quarter of their loads and stores) */
            for (ky = 0; ky < KH; ky++)
                for (m = 0; m < M; m++) {
                    const T *wk = w + ((m * C + c) * KH + ky) * KW;
                    const T *xs = src + ky * dh * Wp;
                    T *am = acc + m * nr * Wp;
                    for (kx = 0; kx + 4 <= KW; kx += 4) {
                        const T w0 = wk[kx], w1 = wk[kx + 1], w2 = wk[kx + 2], w3 = wk[kx + 3];
                        const T *x0 = xs + kx * dw, *x1 = x0 + dw, *x2 = x1 + dw, *x3 = x2 + dw;
                        for (q = 0; q < L; q++)
                            am[q] += w0 * x0[q] + w1 * x1[q] + w2 * x2[q] + w3 * x3[q];
                    }
                    if (kx + 2 <= KW) {
                        const T w0 = wk[kx], w1 = wk[kx + 1];
                        const T *x0 = xs + kx * dw, *x1 = x0 + dw;
                        for (q = 0; q < L; q++)
                            am[q] += w0 * x0[q] + w1 * x1[q];
                        kx += 2;
                    }
                    if (kx < KW) {
                        const T wv = wk[kx], *x0 = xs + kx * dw;
                        for (q = 0; q < L; q++)
                            am[q] += wv * x0[q];
                    }
                }
        }
        for (m = 0; m < M; m++)
            for (oy = 0; oy < nr; oy++) {
                const T *ar = acc + (m * nr + oy) * Wp;
                T *yr = y + (m * OH + oy0 + oy) * OW;
                const T b = bias ? bias[m] : (T)0;
                if (res) {
                    const T *rr = res + (m * OH + oy0 + oy) * OW;
                    for (ox = 0; ox < OW; ox++)
                        yr[ox] = ar[ox] + b + rr[ox];
                } else {
                    for (ox = 0; ox < OW; ox++)
                        yr[ox] = ar[ox] + b;
                }
                gemm_act_T(yr, OW, act, p0, p1);
            }
    }
}
