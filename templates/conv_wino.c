/* conv_wino.c - 3x3, stride 1 convolution by Winograd's minimal filtering F(2x2, 3x3), on the
 * GEMM engine (templates/gemm.c).
 *
 * The output is cut into 2x2 tiles (TH x TW of them, row-major, TH = ceil(OH / 2)); tile
 * (ty, tx) reads the 4x4 input patch at (2 ty - pad_top, 2 tx - pad_left), zeros outside the
 * image.  With the 4x4 transforms
 *   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]   (input)
 *   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]   (weight: U = G g G^T, done by the compiler)
 *   A^T = [1 1 1 0; 0 1 -1 -1]                      (output)
 * the convolution is Y = A^T [ sum_c U[m, c] .* (B^T d[c] B) ] A: for each of the 16 points
 * xi of the transformed tile, one GEMM  M[xi] (out ch x tiles) = U[xi] (out ch x in ch) x
 * V[xi] (in ch x tiles): 16 multiply-adds per tile and channel pair instead of 36.
 *
 * A call handles nt tiles starting at t0 (a chunk, so scratch is bounded by the chunk):
 *   wino_in_T:  V[xi] = B^T d B for every input channel and tile of the chunk, written as the
 *               engine's packed B operand (C rows, nt columns in NR-wide panels, zero-padded);
 *   gemm_T:     16 products with U pre-packed (GEMM_PACKED) by the compiler;
 *   wino_out_T: Y = A^T M A, plus bias, residual and activation, clipped at the image edge.
 * With few tiles (a deep layer: 7x7 outputs are 16 tiles) the products are taken transposed,
 * M[xi]^T (tiles x out ch) = V[xi]^T (tiles x in ch) x U[xi]^T, so that the tiles fill the
 * engine's 8-row panels instead of a fraction of its 32-column ones: V is then written as the
 * packed A operand and U^T is pre-packed as B.
 * Transforms work on one engine panel of tiles at a time, so their arithmetic runs along the
 * panel's contiguous lanes (vectorised by the C compiler).
 * The 16 operands of V (and the 16 products) lie vs (ms) elements apart, a stride the caller
 * chooses: C x Np (M x Np, transposed nt x M) plus a skew of one cache line.  Without it, a
 * stride of a multiple of 4 KiB (64 channels x 32 tiles of floats, a common chunk) put the 16
 * rows the transforms read and write together in one set of the L1 cache, which holds 12:
 * the face detector's 64 -> 32 at 10x10 took 37 us on one thread, 24 with the skew. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm.c"
#endif

/* Offset of element (k, j) of an operand packed for the engine (gemm.c) with panels of P
 * lanes: the B layout of a K x N matrix (P = NR, j a column) or the A layout of an N x K one
 * (P = MR, j a row): per K block of KC, per panel of P lanes, kc x P k-major; Np = N rounded
 * up to P. */
static int64_t wino_off_T(int64_t k, int64_t j, int64_t K, int64_t Np, int64_t P) {
    const int64_t pc = k / GEMM_KC * GEMM_KC;
    const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
    return pc * Np + j / P * P * kc + (k - pc) * P + j % P;
}

/* Input transform of tiles t0 .. t0 + nt - 1 of all C channels of x (C x H x W) into V:
 * 16 operands of C x Np elements, vs apart (Np = nt rounded up to P), packed with
 * panels of P lanes over the tiles: the engine's B operand (C x tiles, P = NR) or, transposed,
 * its A operand (tiles x C, P = MR).  Works on blocks of tiles that share a tile row and a
 * panel: first the row transform B^T d of
 * the block's four input rows (padding as zeros), then the column transform, which for the
 * tile at k of the block reads columns 2 k .. 2 k + 3 of it.  Channels [c0, c1), and of the 16
 * points xi only [x0, x1): threads that each multiply their own points transform the input
 * for those alone, so that no thread reads a transformed operand from another core. */
O2C_KERNEL
static void wino_in_part_T(const T *x, int64_t C, int64_t H, int64_t W, int64_t pt, int64_t pl,
                           int64_t TW, int64_t t0, int64_t nt, int64_t P, T *V, int64_t vs,
                           int64_t c0, int64_t c1, int64_t x0, int64_t x1) {
    const int64_t Np = (nt + P - 1) / P * P;
    int64_t c;
    for (c = c0; c < c1; c++) {
        const T *xc = x + c * H * W;
        T rr[4][2 * GEMM_NR_T + 2]; /* row i of B^T d at the block's column q (P <= NR) */
        T zr[2 * GEMM_NR_T + 2];    /* stands for a row of the top or bottom padding */
        int64_t j, k, i, q, xi, b;
        T z; /* 0, but not a constant: the short fills below stay loops, not memset calls */
        for (q = 0; q < 2 * GEMM_NR_T + 2; q++)
            zr[q] = rr[0][q] = rr[1][q] = rr[2][q] = rr[3][q] = (T)0;
        z = zr[c % 2];
        for (j = 0; j < nt;) {
            const int64_t t = t0 + j, tx0 = t % TW, iy = t / TW * 2 - pt, ix = tx0 * 2 - pl;
            int64_t n = TW - tx0, nq, qlo, qhi;
            const T *s0, *s1, *s2, *s3;
            T *v = V + wino_off_T(c, j, C, Np, P);
            if (n > P - j % P)
                n = P - j % P;
            if (n > nt - j)
                n = nt - j;
            /* the block reads columns ix + q, q in [0, 2 n + 2), of rows iy .. iy + 3; those
             * in [qlo, qhi) are inside the image */
            nq = 2 * n + 2;
            qlo = ix < 0 ? (-ix < nq ? -ix : nq) : 0;
            qhi = W - ix < nq ? W - ix : nq;
            if (qhi < qlo)
                qhi = qlo;
            s0 = iy >= 0 && iy < H ? xc + iy * W + ix + qlo : zr;
            s1 = iy + 1 >= 0 && iy + 1 < H ? xc + (iy + 1) * W + ix + qlo : zr;
            s2 = iy + 2 >= 0 && iy + 2 < H ? xc + (iy + 2) * W + ix + qlo : zr;
            s3 = iy + 3 >= 0 && iy + 3 < H ? xc + (iy + 3) * W + ix + qlo : zr;
            for (q = 0; q < qlo; q++)
                rr[0][q] = rr[1][q] = rr[2][q] = rr[3][q] = z;
            for (q = 0; q < qhi - qlo; q++) {
                const T d0 = s0[q], d1 = s1[q], d2 = s2[q], d3 = s3[q];
                rr[0][qlo + q] = d0 - d2;
                rr[1][qlo + q] = d1 + d2;
                rr[2][qlo + q] = d2 - d1;
                rr[3][qlo + q] = d1 - d3;
            }
            for (q = qhi; q < nq; q++)
                rr[0][q] = rr[1][q] = rr[2][q] = rr[3][q] = z;
            /* columns: (B^T d) B, point xi = 4 i + b at lane k of the panel.  The loop runs
             * to the end of the panel (lanes past the block hold garbage until the blocks
             * after it, or the padding below, overwrite them): long vector loops even when
             * tile rows are short. */
            for (i = x0 / 4; i * 4 < x1; i++) {
                const T *r = rr[i];
                const int64_t kmax = P - j % P;
                T *v0 = v + 4 * i * vs, *v1 = v0 + vs, *v2 = v1 + vs, *v3 = v2 + vs;
                if (4 * i >= x0 && 4 * i + 4 <= x1)
                    for (k = 0; k < kmax; k++) {
                        v0[k] = r[2 * k] - r[2 * k + 2];
                        v1[k] = r[2 * k + 1] + r[2 * k + 2];
                        v2[k] = r[2 * k + 2] - r[2 * k + 1];
                        v3[k] = r[2 * k + 1] - r[2 * k + 3];
                    }
                else /* a share of the points that splits this row */
                    for (b = 0; b < 4; b++) {
                        T *vb = v0 + b * vs;
                        if (4 * i + b < x0 || 4 * i + b >= x1)
                            continue;
                        for (k = 0; k < kmax; k++)
                            vb[k] = b == 0   ? r[2 * k] - r[2 * k + 2]
                                    : b == 1 ? r[2 * k + 1] + r[2 * k + 2]
                                    : b == 2 ? r[2 * k + 2] - r[2 * k + 1]
                                             : r[2 * k + 1] - r[2 * k + 3];
                    }
            }
            j += n;
        }
        if (nt < Np) { /* the last panel's padding */
            const int64_t base = wino_off_T(c, Np - P, C, Np, P);
            for (xi = x0; xi < x1; xi++)
                for (j = nt - (Np - P); j < P; j++)
                    V[xi * vs + base + j] = z;
        }
    }
}

/* ... channels [c0, c1) of it (above); all of them, on the OpenMP threads when large enough
 * (o2c_par). */
static void wino_in_T(const T *x, int64_t C, int64_t H, int64_t W, int64_t pt, int64_t pl,
                      int64_t TW, int64_t t0, int64_t nt, int64_t P, T *V, int64_t vs) {
#ifdef _OPENMP
    if (o2c_par(C * nt >= 8192)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(C, &lo, &hi);
            wino_in_part_T(x, C, H, W, pt, pl, TW, t0, nt, P, V, vs, lo, hi, 0, 16);
        }
        return;
    }
#endif
    wino_in_part_T(x, C, H, W, pt, pl, TW, t0, nt, P, V, vs, 0, C, 0, 16);
}

/* Output transform: Mo holds the 16 products, ms apart, each M x Np (row stride Np, Np = nt
 * rounded up to NR); writes the tiles t0 .. t0 + nt - 1 of y (M x OH x OW), adding bias[m]
 * and res (like y) when not NULL, then the activation (gemm_act.c).  Blocks of tiles as in
 * wino_in_T. */
O2C_KERNEL
static void wino_out_n_T(const T *Mo, int64_t ms, int64_t OH, int64_t OW, int64_t TW,
                         int64_t t0, int64_t nt, const T *bias, const T *res, int act, T p0,
                         T p1, T *y, int64_t m0, int64_t m1) {
    const int64_t NR = GEMM_NR_T, Np = (nt + NR - 1) / NR * NR;
    int64_t m;
    for (m = m0; m < m1; m++) {
        T s[8][GEMM_NR_T], o[4][GEMM_NR_T];
        const T bm = bias ? bias[m] : (T)0;
        T *ym = y + m * OH * OW;
        const T *rm = res ? res + m * OH * OW : 0;
        int64_t j, k, b;
        for (j = 0; j < nt;) {
            const int64_t t = t0 + j, tx0 = t % TW, oy = t / TW * 2, ox = tx0 * 2;
            const T *mp = Mo + m * Np + j;
            int64_t n = TW - tx0;
            if (n > NR - j % NR)
                n = NR - j % NR;
            if (n > nt - j)
                n = nt - j;
            const int64_t kmax = NR - j % NR; /* to the end of the panel, as in wino_in_T */
            /* rows: A^T m (2 x 4) */
            for (b = 0; b < 4; b++) {
                const T *m0 = mp + b * ms, *m1 = m0 + 4 * ms, *m2 = m1 + 4 * ms, *m3 = m2 + 4 * ms;
                for (k = 0; k < kmax; k++) {
                    s[b][k] = m0[k] + m1[k] + m2[k];
                    s[4 + b][k] = m1[k] - m2[k] - m3[k];
                }
            }
            /* columns: (A^T m) A (2 x 2), plus bias: o[2 r + c] is output (oy + r, ox + 2 k + c) */
            for (b = 0; b < 2; b++)
                for (k = 0; k < kmax; k++) {
                    o[2 * b][k] = s[4 * b][k] + s[4 * b + 1][k] + s[4 * b + 2][k] + bm;
                    o[2 * b + 1][k] = s[4 * b + 1][k] - s[4 * b + 2][k] - s[4 * b + 3][k] + bm;
                }
            if (oy + 2 <= OH && ox + 2 * n <= OW) {
                T *y0 = ym + oy * OW + ox, *y1 = y0 + OW;
                if (rm) {
                    const T *r0 = rm + oy * OW + ox, *r1 = r0 + OW;
                    for (k = 0; k < n; k++) {
                        o[0][k] += r0[2 * k];
                        o[1][k] += r0[2 * k + 1];
                        o[2][k] += r1[2 * k];
                        o[3][k] += r1[2 * k + 1];
                    }
                }
                for (b = 0; b < 4; b++)
                    gemm_act_T(o[b], n, act, p0, p1);
                for (k = 0; k < n; k++) {
                    y0[2 * k] = o[0][k];
                    y0[2 * k + 1] = o[1][k];
                    y1[2 * k] = o[2][k];
                    y1[2 * k + 1] = o[3][k];
                }
            } else {
                /* the last tile row or column: clipped at the image edge */
                for (k = 0; k < n; k++)
                    for (b = 0; b < 4; b++) {
                        const int64_t r = oy + b / 2, cc = ox + 2 * k + b % 2;
                        if (r < OH && cc < OW) {
                            T v = o[b][k] + (rm ? rm[r * OW + cc] : (T)0);
                            gemm_act_T(&v, 1, act, p0, p1);
                            ym[r * OW + cc] = v;
                        }
                    }
            }
            j += n;
        }
    }
}

/* The output transform of the transposed products: Mo holds 16 matrices of nt x M (row stride
 * M); the arithmetic runs along the output channels, NR at a time. */
O2C_KERNEL
static void wino_out_t_T(const T *Mo, int64_t ms, int64_t M, int64_t OH, int64_t OW, int64_t TW,
                         int64_t t0, const T *bias, const T *res, int act, T p0, T p1, T *y,
                         int64_t j0, int64_t j1) {
    const int64_t NR = GEMM_NR_T, OHW = OH * OW;
    int64_t j;
    for (j = j0; j < j1; j++) {
        T s[8][GEMM_NR_T], o[4][GEMM_NR_T];
        const int64_t t = t0 + j, oy = t / TW * 2, ox = t % TW * 2;
        int64_t m0, k, b, r;
        for (m0 = 0; m0 < M; m0 += NR) {
            const int64_t n = M - m0 < NR ? M - m0 : NR;
            const T *mp = Mo + j * M + m0;
            for (b = 0; b < 4; b++) {
                const T *q0 = mp + b * ms, *q1 = q0 + 4 * ms, *q2 = q1 + 4 * ms, *q3 = q2 + 4 * ms;
                for (k = 0; k < n; k++) {
                    s[b][k] = q0[k] + q1[k] + q2[k];
                    s[4 + b][k] = q1[k] - q2[k] - q3[k];
                }
            }
            for (b = 0; b < 2; b++)
                for (k = 0; k < n; k++) {
                    const T bk = bias ? bias[m0 + k] : (T)0;
                    o[2 * b][k] = s[4 * b][k] + s[4 * b + 1][k] + s[4 * b + 2][k] + bk;
                    o[2 * b + 1][k] = s[4 * b + 1][k] - s[4 * b + 2][k] - s[4 * b + 3][k] + bk;
                }
            for (r = 0; r < 4; r++) {
                const int64_t at = (oy + r / 2) * OW + ox + r % 2;
                if (oy + r / 2 >= OH || ox + r % 2 >= OW)
                    continue;
                if (res)
                    for (k = 0; k < n; k++)
                        o[r][k] += res[(m0 + k) * OHW + at];
                gemm_act_T(o[r], n, act, p0, p1);
                for (k = 0; k < n; k++)
                    y[(m0 + k) * OHW + at] = o[r][k];
            }
        }
    }
}

/* The output transform (above): of the products as they are (output channels [lo, hi)), or
 * transposed (tiles [lo, hi)). */
static void wino_out_part_T(const T *Mo, int64_t ms, int transposed, int64_t M, int64_t OH,
                            int64_t OW, int64_t TW, int64_t t0, int64_t nt, const T *bias,
                            const T *res, int act, T p0, T p1, T *y, int64_t lo, int64_t hi) {
    if (transposed)
        wino_out_t_T(Mo, ms, M, OH, OW, TW, t0, bias, res, act, p0, p1, y, lo, hi);
    else
        wino_out_n_T(Mo, ms, OH, OW, TW, t0, nt, bias, res, act, p0, p1, y, lo, hi);
}

/* ... all of it, on the OpenMP threads when large enough (o2c_par). */
static void wino_out_T(const T *Mo, int64_t ms, int transposed, int64_t M, int64_t OH, int64_t OW,
                       int64_t TW, int64_t t0, int64_t nt, const T *bias, const T *res, int act,
                       T p0, T p1, T *y) {
    const int64_t n = transposed ? nt : M;
#ifdef _OPENMP
    if (o2c_par(M * nt >= 8192)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(n, &lo, &hi);
            wino_out_part_T(Mo, ms, transposed, M, OH, OW, TW, t0, nt, bias, res, act, p0, p1, y,
                            lo, hi);
        }
        return;
    }
#endif
    wino_out_part_T(Mo, ms, transposed, M, OH, OW, TW, t0, nt, bias, res, act, p0, p1, y, 0, n);
}
