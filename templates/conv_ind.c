/* conv_ind.c - a stride-1 2-D convolution (one group, constant weight) as an indirect GEMM:
 * no unfolded matrix.  The image is copied once with its zero padding (C x Hp x Wp), and the
 * micro-kernel reads row r = (c * KH + ky) * KW + kx of the unfolded matrix where it lies: for
 * output row oy, the positions ox .. ox + 31 of that row are the 32 consecutive elements at
 *   xp + off[r] + oy * Wp + ox,      off[r] = c * Hp * Wp + ky * dh * Wp + kx * dw.
 * The weight is the engine's packed A (templates/gemm.c: 8-row panels per K block), so a tile of
 * 8 output channels x 32 positions is the GEMM micro-kernel's, with its loads of B replaced by
 * these.  The unfold path (conv_im2col.c) writes every input element KH * KW times and the
 * engine copies it again into panels; with few input channels (K = C * KH * KW small) those
 * copies cost up to a third of the time (3x3, 16 -> 16 channels at 40x40: 0.083 -> 0.053 ms).
 *
 * For cores with 64-byte vectors (AVX-512; with O2C_X86_DISPATCH, when the CPU has it:
 * conv_ind_ok_T()); elsewhere the generated code keeps the unfold path.
 * Scratch: C * Hp * Wp + CONV_IND_SLACK elements for the padded image (a last tile reads up to
 * 31 elements past a row, the last row's into the slack), then K offsets (int32, K <= 2^31). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "gemm.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#define CONV_IND_SLACK 64

#if GEMM_VECTOR && !GEMM_V32 && O2C_F32_T
#define CONV_IND_VEC_T 1
#else
#define CONV_IND_VEC_T 0
#endif

/* 1 when conv_ind_T runs here (else the caller takes the unfold path). */
static int conv_ind_ok_T(void) {
#if CONV_IND_VEC_T && O2C_X86_DISPATCH
    return o2c_cpu_avx512();
#else
    return CONV_IND_VEC_T;
#endif
}

#if CONV_IND_VEC_T
/* The 8 x 32 tile of output channels [i0, i0 + mr) at positions [j0, j0 + nr) of the plane
 * (row oy: b = xp + oy * Wp + ox); a: the packed weight; then bias, residual, activation. */
GEMM_TARGET_V64 GEMM_FMA
static void conv_ind_tile_T(int64_t K, int64_t Mp, const T *A, int64_t i0, const T *b,
                            const int32_t *off, T *y, int64_t osp, int64_t mr, int64_t nr,
                            const gemm_epi_T *ep, int64_t j0) {
    const int VL = GEMM_VL_T;
    GEMM_ACC_DECL_T;
    T t[GEMM_MR * 2 * (64 / sizeof(T))];
    gemm_vu_T *tv = (gemm_vu_T *)(void *)t;
    int64_t pc, k;
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
        gemm_store_tile_T(t, y + i0 * osp + j0, osp, mr, nr, 1, ep, i0, j0);
        return;
    }
    for (pc = 0; pc < K; pc += GEMM_KC) {
        const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
        const T *a = A + pc * Mp + i0 * kc;
        const int32_t *o = off + pc;
        for (k = 0; k < kc; k++) {
            const T *bk = b + o[k];
            const gemm_v_T b0 = *(const gemm_vu_T *)(const void *)bk;
            const gemm_v_T b1 = *(const gemm_vu_T *)(const void *)(bk + VL);
            GEMM_ACC_STEP_T(a, b0, b1);
            if (k & 1)
                __builtin_prefetch(a + GEMM_PF_A);
            a += GEMM_MR;
        }
    }
    if (mr == GEMM_MR && nr == 2 * VL) {
        gemm_v_T acc[16];
        GEMM_ACC_OUT_T(acc);
        gemm_store_full_T(acc, y + i0 * osp + j0, osp, 1, ep, i0, j0);
        return;
    }
    GEMM_ACC_OUT_T(tv);
    gemm_store_tile_T(t, y + i0 * osp + j0, osp, mr, nr, 1, ep, i0, j0);
}
#endif

#if CONV_IND_VEC_T
/* Channels [c0, c1) of the padded copy. */
static void conv_ind_pad_T(const T *x, int64_t c0, int64_t c1, int64_t H, int64_t W, int64_t pt,
                           int64_t pl, int64_t Hp, int64_t Wp, T *s) {
    int64_t c;
    for (c = c0; c < c1; c++) {
        T *d = s + c * Hp * Wp;
        int64_t iy, ix;
        for (iy = 0; iy < Hp; iy++) {
            T *dr = d + iy * Wp;
            const int64_t sy = iy - pt;
            if (sy < 0 || sy >= H) {
                for (ix = 0; ix < Wp; ix++)
                    dr[ix] = (T)0;
                continue;
            }
            for (ix = 0; ix < pl; ix++)
                dr[ix] = (T)0;
            memcpy(dr + pl, x + (c * H + sy) * W, (size_t)W * sizeof(T));
            for (ix = pl + W; ix < Wp; ix++)
                dr[ix] = (T)0;
        }
    }
}

/* Units [u0, u1) of the tiles: (output row, panel of 32 positions, 8 output channels). */
static void conv_ind_units_T(int64_t u0, int64_t u1, int64_t K, int64_t M, const T *A,
                             const T *s, int64_t Wp, const int32_t *off, T *y, int64_t OW,
                             int64_t osp, const gemm_epi_T *ep) {
    const int64_t Mp = (M + GEMM_MR - 1) / GEMM_MR * GEMM_MR, NR = GEMM_NR_T;
    const int64_t npan = (OW + NR - 1) / NR, nmp = Mp / GEMM_MR;
    int64_t u;
    for (u = u0; u < u1; u++) {
        const int64_t oy = u / (npan * nmp), pn = u / nmp % npan, ip = u % nmp;
        const int64_t ox = pn * NR, nr = OW - ox < NR ? OW - ox : NR;
        const int64_t i0 = ip * GEMM_MR, mr = M - i0 < GEMM_MR ? M - i0 : GEMM_MR;
        conv_ind_tile_T(K, Mp, A, i0, s + oy * Wp + ox, off, y, osp, mr, nr, ep, oy * OW + ox);
    }
}
#endif

/* One image: x C x H x W (pads pt, pl at the start, Hp x Wp padded), weight A (M x K packed,
 * K = C * KH * KW), y M x OH x OW (res like y, may be NULL), scratch s (above).  Both steps
 * run on the OpenMP threads when large enough (o2c_par). */
static void conv_ind_T(const T *x, int64_t C, int64_t H, int64_t W, int64_t pt, int64_t pl,
                       int64_t Hp, int64_t Wp, int64_t KH, int64_t KW, int64_t dh, int64_t dw,
                       const T *A, int64_t M, const T *bias, const T *res, int act, T p0, T p1,
                       T *y, int64_t OH, int64_t OW, T *s) {
#if CONV_IND_VEC_T
    const int64_t K = C * KH * KW, Mp = (M + GEMM_MR - 1) / GEMM_MR * GEMM_MR, NR = GEMM_NR_T;
    const int64_t osp = OH * OW, units = OH * ((OW + NR - 1) / NR) * (Mp / GEMM_MR);
    const int64_t plane = Hp * Wp;
    int32_t *off = (int32_t *)(void *)(s + C * plane + CONV_IND_SLACK);
    gemm_epi_T ep;
    const gemm_epi_T *epp = bias || res || act ? &ep : NULL;
    int64_t r, u;
    ep.bias = bias, ep.bias_sm = 1, ep.bias_sn = 0, ep.res = res, ep.ldr = osp;
    ep.act = act, ep.p0 = p0, ep.p1 = p1;
    for (r = 0; r < K; r++) {
        const int64_t cc = r / (KH * KW), ky = r / KW % KH, kx = r % KW;
        off[r] = (int32_t)(cc * plane + ky * dh * Wp + kx * dw);
    }
#ifdef _OPENMP
    if (o2c_par(C * plane >= 65536)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(C, &lo, &hi);
            conv_ind_pad_T(x, lo, hi, H, W, pt, pl, Hp, Wp, s);
        }
    } else
#endif
        conv_ind_pad_T(x, 0, C, H, W, pt, pl, Hp, Wp, s);
    for (u = 0; u < CONV_IND_SLACK; u++)
        s[C * plane + u] = (T)0;
#ifdef _OPENMP
    if (o2c_par(M * K * osp >= 262144)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(units, &lo, &hi);
            conv_ind_units_T(lo, hi, K, M, A, s, Wp, off, y, OW, osp, epp);
        }
    } else
#endif
        conv_ind_units_T(0, units, K, M, A, s, Wp, off, y, OW, osp, epp);
#else
    (void)x, (void)C, (void)H, (void)W, (void)pt, (void)pl, (void)Hp, (void)Wp, (void)KH;
    (void)KW, (void)dh, (void)dw, (void)A, (void)M, (void)bias, (void)res, (void)act, (void)p0;
    (void)p1, (void)y, (void)OH, (void)OW, (void)s;
#endif
}
