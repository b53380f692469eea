/* conv_wino.c - 3x3, stride 1 convolution by Winograd's minimal filtering F(2x2, 3x3), or
 * F(4x4, 3x3) (wino4_in_part_T, wino4_out_n_T: the same steps over 4x4 output tiles and 36
 * points; the compiler picks it for large constant images), on the GEMM engine
 * (templates/gemm.c).
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

/* F(4x4, 3x3): the same over 4x4 output tiles, each reading the 6x6 patch at (4 ty - pt,
 * 4 tx - pl), into 36 operands (point xi = 6 i + b), with
 *   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0;
 *          0 4 0 -5 0 1]
 * (G and A^T at wino4_out_n_T): 36 multiply-adds per tile of 16 outputs and channel pair, a
 * quarter of the direct 144 (F(2x2, 3x3): 16 per 4 outputs, four ninths). */
O2C_KERNEL
static void wino4_in_part_T(const T *x, int64_t C, int64_t H, int64_t W, int64_t pt, int64_t pl,
                            int64_t TW, int64_t t0, int64_t nt, int64_t P, T *V, int64_t vs,
                            int64_t c0, int64_t c1, int64_t x0, int64_t x1) {
    const int64_t Np = (nt + P - 1) / P * P;
    int64_t c;
    for (c = c0; c < c1; c++) {
        const T *xc = x + c * H * W;
        T rr[6][4 * GEMM_NR_T + 2]; /* row i of B^T d at the block's column q (P <= NR) */
        T zr[4 * GEMM_NR_T + 2];    /* stands for a row of the top or bottom padding */
        const T *sr[6];
        int64_t j, k, i, q, xi, b, r;
        T z; /* 0, but not a constant (as in wino_in_part_T) */
        for (q = 0; q < 4 * GEMM_NR_T + 2; q++)
            zr[q] = rr[0][q] = rr[1][q] = rr[2][q] = rr[3][q] = rr[4][q] = rr[5][q] = (T)0;
        z = zr[c % 2];
        for (j = 0; j < nt;) {
            const int64_t t = t0 + j, tx0 = t % TW, iy = t / TW * 4 - pt, ix = tx0 * 4 - pl;
            int64_t n = TW - tx0, nq, qlo, qhi, kn;
            T *v = V + wino_off_T(c, j, C, Np, P);
            if (n > P - j % P)
                n = P - j % P;
            if (n > nt - j)
                n = nt - j;
            /* lanes computed: whole vectors of 16 from the block on, at most to the panel's
             * end (lanes past the block hold garbage until the blocks after it, or the
             * padding below, overwrite them) */
            kn = (n + 15) / 16 * 16 < P - j % P ? (n + 15) / 16 * 16 : P - j % P;
            /* the block reads columns ix + q, q in [0, 4 n + 2), of rows iy .. iy + 5; those
             * in [qlo, qhi) are inside the image */
            nq = 4 * n + 2;
            qlo = ix < 0 ? (-ix < nq ? -ix : nq) : 0;
            qhi = W - ix < nq ? W - ix : nq;
            if (qhi < qlo)
                qhi = qlo;
            for (r = 0; r < 6; r++)
                sr[r] = iy + r >= 0 && iy + r < H ? xc + (iy + r) * W + ix + qlo : zr;
            for (q = 0; q < qlo; q++)
                rr[0][q] = rr[1][q] = rr[2][q] = rr[3][q] = rr[4][q] = rr[5][q] = z;
            for (q = 0; q < qhi - qlo; q++) {
                const T d0 = sr[0][q], d1 = sr[1][q], d2 = sr[2][q], d3 = sr[3][q],
                        d4 = sr[4][q], d5 = sr[5][q];
                rr[0][qlo + q] = (T)4 * d0 - (T)5 * d2 + d4;
                rr[1][qlo + q] = d3 + d4 - (T)4 * (d1 + d2);
                rr[2][qlo + q] = d4 - d3 + (T)4 * (d1 - d2);
                rr[3][qlo + q] = d4 - d2 + (T)2 * (d3 - d1);
                rr[4][qlo + q] = d4 - d2 + (T)2 * (d1 - d3);
                rr[5][qlo + q] = (T)4 * d1 - (T)5 * d3 + d5;
            }
            for (q = qhi; q < nq; q++)
                rr[0][q] = rr[1][q] = rr[2][q] = rr[3][q] = rr[4][q] = rr[5][q] = z;
            /* columns: (B^T d) B, point xi = 6 i + b at lane k of the panel; columns 4 k ..
             * 4 k + 5 of row i of B^T d */
            for (i = x0 / 6; i * 6 < x1; i++) {
                const T *e = rr[i];
                T *v0 = v + 6 * i * vs;
                for (b = 0; b < 6; b++) {
                    T *vb = v0 + b * vs;
                    if (6 * i + b < x0 || 6 * i + b >= x1)
                        continue;
                    switch (b) {
                    case 0:
                        for (k = 0; k < kn; k++)
                            vb[k] = (T)4 * e[4 * k] - (T)5 * e[4 * k + 2] + e[4 * k + 4];
                        break;
                    case 1:
                        for (k = 0; k < kn; k++)
                            vb[k] = e[4 * k + 3] + e[4 * k + 4] -
                                    (T)4 * (e[4 * k + 1] + e[4 * k + 2]);
                        break;
                    case 2:
                        for (k = 0; k < kn; k++)
                            vb[k] = e[4 * k + 4] - e[4 * k + 3] +
                                    (T)4 * (e[4 * k + 1] - e[4 * k + 2]);
                        break;
                    case 3:
                        for (k = 0; k < kn; k++)
                            vb[k] = e[4 * k + 4] - e[4 * k + 2] +
                                    (T)2 * (e[4 * k + 3] - e[4 * k + 1]);
                        break;
                    case 4:
                        for (k = 0; k < kn; k++)
                            vb[k] = e[4 * k + 4] - e[4 * k + 2] +
                                    (T)2 * (e[4 * k + 1] - e[4 * k + 3]);
                        break;
                    default:
                        for (k = 0; k < kn; k++)
                            vb[k] = (T)4 * e[4 * k + 1] - (T)5 * e[4 * k + 3] + e[4 * k + 5];
                        break;
                    }
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
static void wino_in_T(int f4, const T *x, int64_t C, int64_t H, int64_t W, int64_t pt,
                      int64_t pl, int64_t TW, int64_t t0, int64_t nt, int64_t P, T *V,
                      int64_t vs) {
#ifdef _OPENMP
    if (o2c_par(C * nt >= 8192)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(C, &lo, &hi);
            if (f4)
                wino4_in_part_T(x, C, H, W, pt, pl, TW, t0, nt, P, V, vs, lo, hi, 0, 36);
            else
                wino_in_part_T(x, C, H, W, pt, pl, TW, t0, nt, P, V, vs, lo, hi, 0, 16);
        }
        return;
    }
#endif
    if (f4)
        wino4_in_part_T(x, C, H, W, pt, pl, TW, t0, nt, P, V, vs, 0, C, 0, 36);
    else
        wino_in_part_T(x, C, H, W, pt, pl, TW, t0, nt, P, V, vs, 0, C, 0, 16);
}

/* The n tiles of side ts (2 or 4) from output (oy, ox) of one channel's y (OH x OW), each
 * clipped at the image's edge: o holds output (oy + r, ox + ts k + c) at [(ts r + c) * NR + k];
 * plus the residual rm (like y, may be NULL), then the activation. */
static void wino_edge_T(const T *o, int ts, int64_t n, int64_t oy, int64_t ox, int64_t OH,
                        int64_t OW, const T *rm, int act, T p0, T p1, T *ym) {
    int64_t k, b;
    for (k = 0; k < n; k++)
        for (b = 0; b < ts * ts; b++) {
            const int64_t yy = oy + b / ts, xx = ox + ts * k + b % ts;
            if (yy < OH && xx < OW) {
                T v = o[b * GEMM_NR_T + k] + (rm ? rm[yy * OW + xx] : (T)0);
                gemm_act_T(&v, 1, act, p0, p1);
                ym[yy * OW + xx] = v;
            }
        }
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
            } else /* the last tile row or column: clipped at the image edge */
                wino_edge_T(o[0], 2, n, oy, ox, OH, OW, rm, act, p0, p1, ym);
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

/* F(4x4, 3x3)'s output transform: Mo holds the 36 products (point 6 i + b), ms apart;
 * Y = A^T m A with A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1] (the weight
 * was G g G^T, G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6;
 * 0 0 1], by the compiler), otherwise as wino_out_n_T, over 4x4 output tiles. */
#define WINO4_AT_T(o0, o1, o2, o3, e0, e1, e2, e3, e4, e5)                                       \
    do {                                                                                         \
        const T a_ = (e1) + (e2), b_ = (e1) - (e2), c_ = (e3) + (e4), d_ = (e3) - (e4);          \
        o0 = (e0) + a_ + c_;                                                                     \
        o1 = b_ + (T)2 * d_;                                                                     \
        o2 = a_ + (T)4 * c_;                                                                     \
        o3 = b_ + (T)8 * d_ + (e5);                                                              \
    } while (0)
O2C_KERNEL
static void wino4_out_n_T(const T *Mo, int64_t ms, int64_t OH, int64_t OW, int64_t TW,
                          int64_t t0, int64_t nt, const T *bias, const T *res, int act, T p0,
                          T p1, T *y, int64_t m0, int64_t m1) {
    const int64_t NR = GEMM_NR_T, Np = (nt + NR - 1) / NR * NR;
    int64_t m;
    for (m = m0; m < m1; m++) {
        T s[24][GEMM_NR_T], o[16][GEMM_NR_T];
        const T bm = bias ? bias[m] : (T)0;
        T *ym = y + m * OH * OW;
        const T *rm = res ? res + m * OH * OW : 0;
        int64_t j, k, b, r, cc;
        for (j = 0; j < nt;) {
            const int64_t t = t0 + j, tx0 = t % TW, oy = t / TW * 4, ox = tx0 * 4;
            const T *mp = Mo + m * Np + j;
            int64_t n = TW - tx0;
            if (n > NR - j % NR)
                n = NR - j % NR;
            if (n > nt - j)
                n = nt - j;
            const int64_t kmax = (n + 15) / 16 * 16 < NR - j % NR ? (n + 15) / 16 * 16 : NR - j % NR;
            /* rows: A^T m (4 x 6): s[6 r + b] */
            for (b = 0; b < 6; b++) {
                const T *q0 = mp + b * ms, *q1 = q0 + 6 * ms, *q2 = q1 + 6 * ms,
                        *q3 = q2 + 6 * ms, *q4 = q3 + 6 * ms, *q5 = q4 + 6 * ms;
                for (k = 0; k < kmax; k++)
                    WINO4_AT_T(s[b][k], s[6 + b][k], s[12 + b][k], s[18 + b][k], q0[k], q1[k],
                               q2[k], q3[k], q4[k], q5[k]);
            }
            /* columns: (A^T m) A (4 x 4), plus bias: o[4 r + c] is output (oy + r, ox + 4 k +
             * c) */
            for (r = 0; r < 4; r++) {
                const T *e0 = s[6 * r], *e1 = s[6 * r + 1], *e2 = s[6 * r + 2],
                        *e3 = s[6 * r + 3], *e4 = s[6 * r + 4], *e5 = s[6 * r + 5];
                for (k = 0; k < kmax; k++) {
                    WINO4_AT_T(o[4 * r][k], o[4 * r + 1][k], o[4 * r + 2][k], o[4 * r + 3][k],
                               e0[k], e1[k], e2[k], e3[k], e4[k], e5[k]);
                    o[4 * r][k] += bm, o[4 * r + 1][k] += bm;
                    o[4 * r + 2][k] += bm, o[4 * r + 3][k] += bm;
                }
            }
            if (oy + 4 <= OH && ox + 4 * n <= OW) {
                for (r = 0; r < 4; r++) {
                    T *yr = ym + (oy + r) * OW + ox;
                    if (rm) {
                        const T *rr = rm + (oy + r) * OW + ox;
                        for (k = 0; k < n; k++)
                            for (cc = 0; cc < 4; cc++)
                                o[4 * r + cc][k] += rr[4 * k + cc];
                    }
                    for (cc = 0; cc < 4; cc++)
                        gemm_act_T(o[4 * r + cc], n, act, p0, p1);
                    for (k = 0; k < n; k++)
                        for (cc = 0; cc < 4; cc++)
                            yr[4 * k + cc] = o[4 * r + cc][k];
                }
            } else /* the last tile row or column: clipped at the image edge */
                wino_edge_T(o[0], 4, n, oy, ox, OH, OW, rm, act, p0, p1, ym);
            j += n;
        }
    }
}

/* The output transform (above): of the products as they are (output channels [lo, hi)), or
 * transposed (tiles [lo, hi)). */
static void wino_out_part_T(int f4, const T *Mo, int64_t ms, int transposed, int64_t M,
                            int64_t OH, int64_t OW, int64_t TW, int64_t t0, int64_t nt,
                            const T *bias, const T *res, int act, T p0, T p1, T *y, int64_t lo,
                            int64_t hi) {
    if (f4) /* (never transposed: compiler/ops/conv.c) */
        wino4_out_n_T(Mo, ms, OH, OW, TW, t0, nt, bias, res, act, p0, p1, y, lo, hi);
    else if (transposed)
        wino_out_t_T(Mo, ms, M, OH, OW, TW, t0, bias, res, act, p0, p1, y, lo, hi);
    else
        wino_out_n_T(Mo, ms, OH, OW, TW, t0, nt, bias, res, act, p0, p1, y, lo, hi);
}

/* ... all of it, on the OpenMP threads when large enough (o2c_par). */
static void wino_out_T(int f4, const T *Mo, int64_t ms, int transposed, int64_t M, int64_t OH,
                       int64_t OW, int64_t TW, int64_t t0, int64_t nt, const T *bias,
                       const T *res, int act, T p0, T p1, T *y) {
    const int64_t n = transposed ? nt : M;
#ifdef _OPENMP
    if (o2c_par(M * nt >= 8192)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(n, &lo, &hi);
            wino_out_part_T(f4, Mo, ms, transposed, M, OH, OW, TW, t0, nt, bias, res, act, p0,
                            p1, y, lo, hi);
        }
        return;
    }
#endif
    wino_out_part_T(f4, Mo, ms, transposed, M, OH, OW, TW, t0, nt, bias, res, act, p0, p1, y, 0,
                    n);
}
