/* conv_ind.c - a 2-D convolution (one group, constant weight) as an indirect GEMM: no
 * unfolded matrix.  The image is copied once with its zero padding (C x Hp x Wp), and the
 * micro-kernel reads row r = (c * KH + ky) * KW + kx of the unfolded matrix where it lies: for
 * output row oy (stride 1), the positions ox .. ox + 31 of that row are the 32 consecutive
 * elements at
 *   xp + off[r] + oy * Wp + ox,      off[r] = c * Hp * Wp + ky * dh * Wp + kx * dw.
 * With strides SH x SW the copy is split into SH * SW phase planes (every SH-th row from row
 * a, every SW-th column from column b), in which a tap's positions are consecutive again.
 * The weight is the engine's packed A (templates/gemm.c: 8-row panels per K block), so a tile of
 * 8 output channels x 32 positions is the GEMM micro-kernel's, with its loads of B replaced by
 * these.  The unfold path (conv_im2col.c) writes every input element KH * KW times and the
 * engine copies it again into panels; with few input channels (K = C * KH * KW small) those
 * copies cost up to a third of the time (3x3, 16 -> 16 channels at 40x40: 0.083 -> 0.053 ms).
 *
 * For cores with 64-byte vectors (AVX-512; with O2C_X86_DISPATCH, when the CPU has it:
 * conv_ind_ok_T()); elsewhere the generated code keeps the unfold path.
 * Scratch: the phase planes, then CONV_IND_SLACK elements (a last tile reads up to 31 elements
 * past a row, the last row's into the slack), then K offsets (int32, K <= 2^31). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#define CONV_IND_SLACK 64
/* Rows of B a block when K is split (conv_ind_units_T). */
#ifndef CONV_IND_KB
#define CONV_IND_KB 256
#endif
/* A full tile first prefetches, for writing, the lines of its 8 output rows CONV_IND_PFW
 * positions (two panels) on: the output of a layer is most often in the cache of the core that
 * last used that part of the workspace, and a tile's 16 stores to 8 rows, each line read for
 * ownership before it is written, had stalled the kernel.  Measured in the models (2026-12-08,
 * Intel Xeon, 3x3 stride 2 3 -> 64 at 111x111, SqueezeNet's first layer): 2 threads 0.378 ->
 * 0.302 ms, 1 thread 0.488 -> 0.466; ResNet-18's 7x7 stem on 2 threads 1.00 -> 0.96 (alone,
 * with the output hot in the same core's cache, it made no difference).  0: none. */
#ifndef CONV_IND_PFW
#define CONV_IND_PFW 64
#endif

#if GEMM_VECTOR && !GEMM_V32 && O2C_F32_T
#define CONV_IND_VEC_T 1
#else
#define CONV_IND_VEC_T 0
#endif
/* x86 with AVX-512 (by the flags, or the dispatch's target attribute): a tile that is not
 * whole, or spans rows, goes out by lane permutes and masked stores */
#if CONV_IND_VEC_T && defined(__x86_64__) && (defined(__AVX512F__) || O2C_X86_DISPATCH)
#define CONV_IND_MASK_T 1
#include <immintrin.h>
#else
#define CONV_IND_MASK_T 0
#endif

/* 1 when conv_ind_T runs here (else the caller takes the unfold path). */
static int conv_ind_ok_T(void) {
#if CONV_IND_VEC_T && O2C_X86_DISPATCH
    return o2c_cpu_avx512();
#else
    return CONV_IND_VEC_T;
#endif
}

#if CONV_IND_MASK_T
/* Rows [0, mr) of the tile acc (two vectors a row: positions 0-15, 16-31, the second one
 * unread when nr <= 16; nr positions; in a T array, so read as unaligned vectors: clang had
 * loaded it with aligned moves from a misaligned stack slot, a crash) that
 * starts at (oy, ox) of the grid, to y: each run of positions inside an output row shifted to
 * lane 0 (a permute of the row's two vectors), bias, residual (masked loads) and activation
 * (as gemm_act_T: a NaN stays), then masked stores. */
GEMM_TARGET_V64
static void conv_ind_store_T(const gemm_vu_T *acc, T *y, int64_t osp, int64_t mr, int64_t nr,
                             const gemm_epi_T *ep, int64_t i0, int64_t oy, int64_t ox,
                             int64_t Wq, int64_t OW) {
    const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    int64_t p, i;
    for (p = 0; p < nr;) {
        int64_t len, j;
        __m512i x0, x1;
        __mmask16 m0, m1;
        if (ox >= OW) {
            p += Wq - ox, oy++, ox = 0;
            continue;
        }
        len = OW - ox < nr - p ? OW - ox : nr - p;
        j = oy * OW + ox;
        x0 = _mm512_add_epi32(iota, _mm512_set1_epi32((int)p));
        x1 = _mm512_add_epi32(x0, _mm512_set1_epi32(16));
        m0 = (__mmask16)(len >= 16 ? 0xffff : (1u << len) - 1);
        m1 = (__mmask16)(len >= 32 ? 0xffff : len <= 16 ? 0 : (1u << (len - 16)) - 1);
        for (i = 0; i < mr; i++) {
            /* a half tile (nr <= 16) has only its first vectors */
            const __m512 a = (__m512)acc[2 * i], b = nr > 16 ? (__m512)acc[2 * i + 1] : a;
            __m512 w0 = _mm512_permutex2var_ps(a, x0, b), w1 = _mm512_permutex2var_ps(a, x1, b);
            float *yi = y + (i0 + i) * osp + j;
            if (ep) {
                if (ep->bias) {
                    const __m512 bv = _mm512_set1_ps(ep->bias[(i0 + i) * ep->bias_sm]);
                    w0 = _mm512_add_ps(w0, bv), w1 = _mm512_add_ps(w1, bv);
                }
                if (ep->res) {
                    const float *ri = ep->res + (i0 + i) * ep->ldr + j;
                    w0 = _mm512_add_ps(w0, _mm512_maskz_loadu_ps(m0, ri));
                    w1 = _mm512_add_ps(w1, _mm512_maskz_loadu_ps(m1, ri + 16));
                }
                if (ep->act == GEMM_ACT_RELU || ep->act == GEMM_ACT_CLIP) {
                    /* max(lo, x): x when x is a NaN (the second operand) or equal */
                    const __m512 lo = _mm512_set1_ps(ep->act == GEMM_ACT_CLIP ? ep->p0 : 0.0f);
                    w0 = _mm512_max_ps(lo, w0), w1 = _mm512_max_ps(lo, w1);
                    if (ep->act == GEMM_ACT_CLIP) {
                        const __m512 hi = _mm512_set1_ps(ep->p1);
                        w0 = _mm512_min_ps(hi, w0), w1 = _mm512_min_ps(hi, w1);
                    }
                } else if (ep->act != GEMM_ACT_NONE) {
                    float t[32];
                    _mm512_storeu_ps(t, w0), _mm512_storeu_ps(t + 16, w1);
                    gemm_act_T(t, 32, ep->act, ep->p0, ep->p1);
                    w0 = _mm512_loadu_ps(t), w1 = _mm512_loadu_ps(t + 16);
                }
            }
            _mm512_mask_storeu_ps(yi, m0, w0);
            if (len > 16)
                _mm512_mask_storeu_ps(yi + 16, m1, w1);
        }
        p += len, ox += len;
    }
}
#endif

#if CONV_IND_VEC_T
/* the tile's 16 accumulators from 16 vectors (the reverse of GEMM_ACC_OUT_T) */
#define GEMM_ACC_IN_T(tv)                                                                        \
    (c00 = tv[0], c01 = tv[1], c10 = tv[2], c11 = tv[3], c20 = tv[4], c21 = tv[5], c30 = tv[6], \
     c31 = tv[7], c40 = tv[8], c41 = tv[9], c50 = tv[10], c51 = tv[11], c60 = tv[12],          \
     c61 = tv[13], c70 = tv[14], c71 = tv[15])
/* The tile of output channels [i0, i0 + mr) (mr <= 8) at nr <= 32 consecutive positions of the
 * phase grid from (oy, ox) on (b = xp + oy * Wq + ox): a: the packed weight.  Stored with bias,
 * residual and activation; positions past an output row (ox >= OW: the grid's columns that only
 * feed the taps) are left out, so a tile may span rows. */
GEMM_TARGET_V64 GEMM_FMA
static void conv_ind_tile_T(int64_t K, int64_t Mp, const T *A, int64_t i0, const T *b,
                            const int32_t *off, T *y, int64_t osp, int64_t mr, int64_t nr,
                            const gemm_epi_T *ep, int64_t oy, int64_t ox, int64_t Wq,
                            int64_t OW, int64_t k0, int64_t k1, gemm_v_T *part) {
    const int VL = GEMM_VL_T;
    GEMM_ACC_DECL_T;
    T t[GEMM_MR * 2 * (64 / sizeof(T))];
    gemm_vu_T *tv = (gemm_vu_T *)(void *)t;
    int64_t pc, k, p;
    if (nr <= VL) { /* at most 16 positions: the engine's half tile (gemm.c) */
        GEMM_HALF_DECL_T;
        for (pc = 0; pc < K; pc += GEMM_KC) {
            const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
            const T *a = A + pc * Mp + i0 * kc;
            const int32_t *o = off + pc;
            for (k = 0; k + 1 < kc; k += 2) {
                GEMM_HALF_STEP_T(a, *(const gemm_vu_T *)(const void *)(b + o[k]),
                                 *(const gemm_vu_T *)(const void *)(b + o[k + 1]));
                __builtin_prefetch(a + GEMM_PF_A);
                a += 2 * GEMM_MR;
            }
            if (k < kc)
                GEMM_HALF_LAST_T(a, *(const gemm_vu_T *)(const void *)(b + o[k]));
        }
        GEMM_HALF_OUT_T(tv);
#if CONV_IND_MASK_T
        conv_ind_store_T(tv, y, osp, mr, nr, ep, i0, oy, ox, Wq, OW);
        return;
#endif
    } else {
        if (k0 > 0) /* the sums of rows [0, k0), from part */
            GEMM_ACC_IN_T(part);
        if (CONV_IND_PFW > 0 && k0 == 0) {
            /* the tile's rows CONV_IND_PFW positions on, to write (see CONV_IND_PFW) */
            int64_t i;
            for (i = 0; i < mr; i++) {
                T *d = y + (i0 + i) * osp + oy * OW + ox + CONV_IND_PFW;
                __builtin_prefetch(d, 1, 3);
                __builtin_prefetch(d + VL, 1, 3);
                __builtin_prefetch(d + 2 * VL - 1, 1, 3);
            }
        }
        for (pc = k0; pc < k1;) {
            /* rows [pc, ke) of the packed block from pb */
            const int64_t pb = pc / GEMM_KC * GEMM_KC, kc = K - pb < GEMM_KC ? K - pb : GEMM_KC;
            const int64_t ke = pb + kc < k1 ? pb + kc : k1;
            const T *a = A + pb * Mp + i0 * kc + (pc - pb) * GEMM_MR;
            const int32_t *o = off + pc;
            const int64_t n = ke - pc;
            pc = ke;
            for (k = 0; k < n; k++) {
                const T *bk = b + o[k];
                const gemm_v_T b0 = *(const gemm_vu_T *)(const void *)bk;
                const gemm_v_T b1 = *(const gemm_vu_T *)(const void *)(bk + VL);
                GEMM_ACC_STEP_T(a, b0, b1);
                if (k & 1)
                    __builtin_prefetch(a + GEMM_PF_A);
                a += GEMM_MR;
            }
        }
        if (k1 < K) { /* more rows to come: the sums to part */
            GEMM_ACC_OUT_T(part);
            return;
        }
        if (mr == GEMM_MR && nr == 2 * VL && ox + nr <= OW && GEMM_EPI_PLAIN_T(ep)) {
            GEMM_ACC_STORE_T(y + i0 * osp + oy * OW + ox, osp, ep, i0);
            return;
        }
        if (mr == GEMM_MR && nr == 2 * VL && ox + nr <= OW) {
            gemm_v_T acc[16];
            GEMM_ACC_OUT_T(acc);
            gemm_store_full_T(acc, y + i0 * osp + oy * OW + ox, osp, 1, ep, i0, oy * OW + ox);
            return;
        }
        GEMM_ACC_OUT_T(tv);
#if CONV_IND_MASK_T
        conv_ind_store_T(tv, y, osp, mr, nr, ep, i0, oy, ox, Wq, OW);
        return;
#endif
    }
    /* the runs of positions inside output rows */
    for (p = 0; p < nr;) {
        int64_t len;
        if (ox >= OW) {
            p += Wq - ox, oy++, ox = 0;
            continue;
        }
        len = OW - ox < nr - p ? OW - ox : nr - p;
        gemm_store_tile_T(t + p, y + i0 * osp + oy * OW + ox, osp, mr, len, 1, ep, i0,
                          oy * OW + ox);
        p += len, ox += len;
    }
}
#endif

#if CONV_IND_VEC_T
/* Plane rows [q0, q1) of every channel of the padded image (Hp x Wp, pads pt, pl; rows and
 * columns past the image zero) split into its SH x SW phase planes of Hq x Wq: element (iy, ix)
 * to plane (c, iy % SH, ix % SW) at (iy / SH, ix / SW); the grid's cells past Hp x Wp zero. */
O2C_KERNEL
static void conv_ind_pad_T(const T *x, int64_t C, int64_t q0, int64_t q1, int64_t H, int64_t W,
                           int64_t pt, int64_t pl, int64_t Hp, int64_t Wp,
                           int64_t SH, int64_t SW, int64_t Hq, int64_t Wq, T *s) {
    int64_t c, ph, pw, iq, jq;
    for (c = 0; c < C; c++)
        for (ph = 0; ph < SH; ph++)
            for (pw = 0; pw < SW; pw++) {
                T *d = s + ((c * SH + ph) * SW + pw) * Hq * Wq;
                for (iq = q0; iq < q1; iq++) {
                    T *dr = d + iq * Wq;
                    const int64_t iy = iq * SH + ph, sy = iy - pt;
                    const T *xr = x + (c * H + sy) * W;
                    if (iy >= Hp || sy < 0 || sy >= H) {
                        for (jq = 0; jq < Wq; jq++)
                            dr[jq] = (T)0;
                        continue;
                    }
                    if (SW == 1) { /* Wq == Wp: zeros, the row's part inside Wp, zeros */
                        const int64_t lo = pl < Wp ? pl : Wp;
                        const int64_t n = Wp - lo < W ? Wp - lo : W;
                        for (jq = 0; jq < lo; jq++)
                            dr[jq] = (T)0;
                        memcpy(dr + lo, xr, (size_t)n * sizeof(T));
                        for (jq = lo + n; jq < Wq; jq++)
                            dr[jq] = (T)0;
                        continue;
                    }
                    { /* columns [jl, jh) read the image (sx = jq * SW + pw - pl in [0, W),
                       * inside Wp); a strided copy without tests, zeros around it */
                        const int64_t jl0 = pl > pw ? (pl - pw + SW - 1) / SW : 0;
                        const int64_t jl = jl0 < Wq ? jl0 : Wq;
                        int64_t jh = (W + pl - pw + SW - 1) / SW;
                        const int64_t jw = (Wp - pw + SW - 1) / SW;
                        const T *xs;
                        jh = jh < jw ? jh : jw;
                        jh = jh < Wq ? jh : Wq;
                        jh = jh > jl ? jh : jl;
                        xs = xr + jl * SW + pw - pl;
                        for (jq = 0; jq < jl; jq++)
                            dr[jq] = (T)0;
                        if (SW == 2) /* a constant stride: vector loads and shuffles */
                            for (jq = jl; jq < jh; jq++)
                                dr[jq] = xs[(jq - jl) * 2];
                        else
                            for (jq = jl; jq < jh; jq++)
                                dr[jq] = xs[(jq - jl) * SW];
                        for (jq = jh; jq < Wq; jq++)
                            dr[jq] = (T)0;
                    }
                }
            }
}

/* Units [u0, u1) of the tiles: (panel of 32 positions, 8 output channels).  By rows (flat 0):
 * the panels of each output row, the last one short; flat: the panels of the whole grid of
 * OH rows of Wq, the columns past OW computed and dropped (fewer tiles when OW is not near a
 * multiple of 32: 55 wide, 64 x 55 -> 57 x 55 positions).  With K > CONV_IND_KB (split) a unit
 * is a panel with all its output channels, and a panel's rows of B go in blocks of KB: each
 * block times up to 16 blocks of 8 output channels, their sums kept in part between blocks,
 * so that the block's KB x 32 positions of B (32 KB) are read from L1 (a whole panel of K =
 * 576 rows is 72 KB, and was read again from L2 for every 8 output channels; 3x3 stride 2
 * 64 -> 128 at 56x56, ResNet-18's layer2.0.conv1, on the Intel Xeon: 1 thread 1.02 -> 0.91 ms,
 * 2 threads 0.61 -> 0.53; blocks of 128 or 384 rows 2-7% slower than 256; outputs
 * bit-identical, the sums taken in the same order). */
static void conv_ind_units_T(int64_t u0, int64_t u1, int64_t K, int64_t M, const T *A,
                             const T *s, int64_t Wq, const int32_t *off, T *y, int64_t OH,
                             int64_t OW, int flat, int split, const gemm_epi_T *ep) {
    const int64_t Mp = (M + GEMM_MR - 1) / GEMM_MR * GEMM_MR, NR = GEMM_NR_T;
    const int64_t npan = (OW + NR - 1) / NR, nmp = Mp / GEMM_MR, osp = OH * OW;
    const int64_t F = (OH - 1) * Wq + OW;
    gemm_v_T part[16 * 16];
    int64_t u;
    for (u = u0; u < u1; u++) {
        const int64_t g = split ? u : u / nmp;
        int64_t oy, ox, nr, ip0, ip1, ipg, ip, k0;
        if (flat) {
            const int64_t q = g * NR;
            oy = q / Wq, ox = q % Wq, nr = F - q < NR ? F - q : NR;
        } else {
            oy = g / npan, ox = g % npan * NR;
            nr = OW - ox < NR ? OW - ox : NR;
        }
        ip0 = split ? 0 : u % nmp, ip1 = split ? nmp : ip0 + 1;
        for (ipg = ip0; ipg < ip1; ipg += 16) {
            const int64_t ipe = ip1 - ipg < 16 ? ip1 : ipg + 16;
            /* (a half tile, nr <= 16, takes all of K at once) */
            const int64_t kb = split && nr > NR / 2 ? CONV_IND_KB : K;
            for (k0 = 0; k0 < K; k0 += kb) {
                const int64_t k1 = K - k0 < kb ? K : k0 + kb;
                for (ip = ipg; ip < ipe; ip++) {
                    const int64_t i0 = ip * GEMM_MR, mr = M - i0 < GEMM_MR ? M - i0 : GEMM_MR;
                    conv_ind_tile_T(K, Mp, A, i0, s + oy * Wq + ox, off, y, osp, mr, nr, ep, oy,
                                    ox, Wq, OW, k0, k1, part + (ip - ipg) * 16);
                }
            }
        }
    }
}

#ifdef _OPENMP
/* The output row (and plane row) where unit u of conv_ind_units_T starts. */
static int64_t conv_ind_row_T(int64_t u, int flat, int split, int64_t Wq, int64_t OW,
                              int64_t Mp) {
    const int64_t NR = GEMM_NR_T, nmp = Mp / GEMM_MR, npan = (OW + NR - 1) / NR;
    const int64_t g = split ? u : u / nmp;
    return flat ? g * NR / Wq : g / npan;
}
#endif

/* Half-tiles (16 positions) of the tiling: a tile of up to 16 positions costs one, else two. */
static int64_t conv_ind_cost_T(int64_t n) {
    const int64_t NR = GEMM_NR_T;
    return n / NR * 2 + (n % NR == 0 ? 0 : n % NR <= NR / 2 ? 1 : 2);
}
#endif

/* One image: x C x H x W (pads pt, pl at the start; Hp x Wp padded, Hp = (OH - 1) * SH +
 * (KH - 1) * dh + 1, Wp alike), strides SH, SW, weight A (M x K packed, K = C * KH * KW),
 * y M x OH x OW (res like y, may be NULL), scratch s (above: C * SH * SW * Hq * Wq +
 * CONV_IND_SLACK elements, Hq = ceil(Hp / SH), Wq = ceil(Wp / SW), then K int32).  A stride
 * reads the phase planes: tap (ky, kx) of output (oy, ox) is element (oy + ky * dh / SH,
 * ox + kx * dw / SW) of plane (ky * dh % SH, kx * dw % SW), so a tile's 32 positions are again
 * consecutive.  Both steps run on the OpenMP threads when large enough (o2c_par). */
static void conv_ind_T(const T *x, int64_t C, int64_t H, int64_t W, int64_t pt, int64_t pl,
                       int64_t Hp, int64_t Wp, int64_t SH, int64_t SW, int64_t KH, int64_t KW,
                       int64_t dh, int64_t dw, const T *A, int64_t M, const T *bias,
                       const T *res, int act, T p0, T p1, T *y, int64_t OH, int64_t OW, T *s) {
#if CONV_IND_VEC_T
    const int64_t K = C * KH * KW, Mp = (M + GEMM_MR - 1) / GEMM_MR * GEMM_MR, NR = GEMM_NR_T;
    const int64_t Hq = (Hp + SH - 1) / SH, Wq = (Wp + SW - 1) / SW, osp = OH * OW;
    const int64_t plane = Hq * Wq, planes = C * SH * SW;
    /* by rows, or the flat grid when that takes fewer half-tiles */
    const int64_t rows = OH * conv_ind_cost_T(OW), grid = conv_ind_cost_T((OH - 1) * Wq + OW);
    const int flat = grid < rows, split = K > CONV_IND_KB;
    const int64_t units =
        (flat ? ((OH - 1) * Wq + OW + NR - 1) / NR : OH * ((OW + NR - 1) / NR)) *
        (split ? 1 : Mp / GEMM_MR);
    int32_t *off = (int32_t *)(void *)(s + planes * plane + CONV_IND_SLACK);
    gemm_epi_T ep;
    const gemm_epi_T *epp = bias || res || act ? &ep : NULL;
    int64_t r, u;
    ep.bias = bias, ep.bias_sm = 1, ep.bias_sn = 0, ep.res = res, ep.ldr = osp;
    ep.act = act, ep.p0 = p0, ep.p1 = p1;
    for (r = 0; r < K; r++) {
        const int64_t cc = r / (KH * KW), ty = r / KW % KH * dh, tx = r % KW * dw;
        off[r] = (int32_t)(((cc * SH + ty % SH) * SW + tx % SW) * plane + ty / SH * Wq +
                           tx / SW);
    }
#ifdef _OPENMP
    if (o2c_par((double)M * (double)K * (double)osp >= 262144.0)) {
        /* one region: each thread copies the plane rows from its first tile's output row to
         * the next thread's (every channel), then, after a barrier, computes its tiles, which
         * read those rows and the next KH - 1 (the copy by channels had each thread read half
         * of its tiles' rows from the other core, and the previous layer's output by channels;
         * 1x1 128 -> 16 then 3x3 16 -> 64 at 55x55, 2 threads: the 3x3 0.31-0.33 -> 0.25-0.31
         * ms, noisy machine) */
#pragma omp parallel
        {
            const int last = omp_get_thread_num() == omp_get_num_threads() - 1;
            int64_t lo, hi;
            o2c_share(units, &lo, &hi);
            /* (the rows of unit u start at conv_ind_row_T(u), growing with u) */
            const int64_t q0 = conv_ind_row_T(lo, flat, split, Wq, OW, Mp);
            const int64_t q1 = last ? Hq : conv_ind_row_T(hi, flat, split, Wq, OW, Mp);
            conv_ind_pad_T(x, C, q0, q1, H, W, pt, pl, Hp, Wp, SH, SW, Hq, Wq, s);
            int64_t z;
            if (last)
                for (z = 0; z < CONV_IND_SLACK; z++)
                    s[planes * plane + z] = (T)0;
#pragma omp barrier
            conv_ind_units_T(lo, hi, K, M, A, s, Wq, off, y, OH, OW, flat, split, epp);
        }
        return;
    }
#endif
    conv_ind_pad_T(x, C, 0, Hq, H, W, pt, pl, Hp, Wp, SH, SW, Hq, Wq, s);
    for (u = 0; u < CONV_IND_SLACK; u++)
        s[planes * plane + u] = (T)0;
    conv_ind_units_T(0, units, K, M, A, s, Wq, off, y, OH, OW, flat, split, epp);
#else
    (void)x, (void)C, (void)H, (void)W, (void)pt, (void)pl, (void)Hp, (void)Wp, (void)SH;
    (void)SW, (void)KH, (void)KW, (void)dh, (void)dw, (void)A, (void)M, (void)bias, (void)res;
    (void)act, (void)p0, (void)p1, (void)y, (void)OH, (void)OW, (void)s;
#endif
}
