/* quant_i8_conv.c - a convolution by the int8 engine (templates/quant_i8.c): the columns of
 * QI8_P output positions unfolded at a time as raw bytes (a padded tap holds the zero point),
 * finished (qi8_finish), then qi8_tile.  A position whose window lies inside the image copies
 * without checks; a 1x1 kernel with stride 1 and no padding reads its columns straight
 * across the channels.
 * Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8_gemm.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* One image x[C][in0][in1][in2] (C = group cg, 8-bit, sign bit flipped when x_u8) convolved
 * into y + yoff (M = group mg channels of out0 x out1 x out2), everything 3-D normalised as in
 * templates/quant_conv.c; zx the (flipped) zero point of x; wp the packed weight of all
 * groups in blocks of mb outputs (group g's from g * mgp * Kp, mgp = mg rounded up to mb); cb,
 * cbu, zw, mant, sh indexed by output channel.  Scratch: nslot slots of slot bytes, each a
 * tile's column sums (QI8_P) then its columns (QI8_P * Kp); with OpenMP the tiles are shared
 * among up to nslot threads, each in its own slot. */
QI8_UNUSED static void qi8_conv(const void *x, int x_u8, int32_t zx, int64_t group, int64_t cg,
                     int64_t mg, const int64_t *in, const int64_t *out, const int64_t *k,
                     const int64_t *stride, const int64_t *dil, const int64_t *pad, int64_t Kp,
                     int64_t mb, const int8_t *wp, const int32_t *cb, const int32_t *cbu,
                     const int32_t *zw, const int32_t *mant,
                     const int32_t *sh, int32_t zy, int32_t lo, int32_t hi, int ymode, void *y,
                     int64_t yoff, void *scratch, int64_t nslot, int64_t slot) {
    const ptrdiff_t I0 = (ptrdiff_t)in[0], I1 = (ptrdiff_t)in[1], I2 = (ptrdiff_t)in[2];
    const ptrdiff_t O1 = (ptrdiff_t)out[1], O2 = (ptrdiff_t)out[2];
    const ptrdiff_t K0 = (ptrdiff_t)k[0], K1 = (ptrdiff_t)k[1], K2 = (ptrdiff_t)k[2];
    const ptrdiff_t S0 = (ptrdiff_t)stride[0], S1 = (ptrdiff_t)stride[1], S2 = (ptrdiff_t)stride[2];
    const ptrdiff_t D0 = (ptrdiff_t)dil[0], D1 = (ptrdiff_t)dil[1], D2 = (ptrdiff_t)dil[2];
    const ptrdiff_t P0 = (ptrdiff_t)pad[0], P1 = (ptrdiff_t)pad[1], P2 = (ptrdiff_t)pad[2];
    const ptrdiff_t CG = (ptrdiff_t)cg, MG = (ptrdiff_t)mg, KP = (ptrdiff_t)Kp;
    const ptrdiff_t isp = I0 * I1 * I2, osp = (ptrdiff_t)out[0] * O1 * O2;
    const ptrdiff_t MB = (ptrdiff_t)mb, K = CG * K0 * K1 * K2, mgp = (MG + MB - 1) / MB * MB;
    const uint8_t flip = x_u8 ? 0x80 : 0, zc = (uint8_t)((uint8_t)zx ^ flip); /* raw bytes */
    const int pointwise = K0 * K1 * K2 == 1 && S0 == 1 && S1 == 1 && S2 == 1 && P0 == 0 &&
                          P1 == 0 && P2 == 0 && isp == osp;
    const ptrdiff_t ntile = (osp + QI8_P - 1) / QI8_P;
    int nthr = 1;
#ifdef _OPENMP
    nthr = omp_get_max_threads();
    nthr = nthr < (int)nslot ? nthr : (int)nslot;
    if ((double)ntile * (double)K * (double)MG < 1e6) /* not worth a team */
        nthr = 1;
#else
    (void)nslot, (void)nthr;
#endif
    for (ptrdiff_t g = 0; g < (ptrdiff_t)group; g++) {
        const uint8_t *xg = (const uint8_t *)x + g * CG * isp;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthr) if (nthr > 1)
#endif
        for (ptrdiff_t t = 0; t < ntile; t++) {
            int me = 0;
#ifdef _OPENMP
            me = omp_get_thread_num();
#endif
            int32_t *const colsum = (int32_t *)(void *)((char *)scratch + me * slot);
            qi8_col *const col = (qi8_col *)(void *)(colsum + 8);
            const ptrdiff_t p0 = t * QI8_P, np = osp - p0 < QI8_P ? osp - p0 : QI8_P;
            /* the coordinates of position p0 */
            ptrdiff_t o2 = p0 % O2, o1 = p0 / O2 % O1, o0 = p0 / (O2 * O1);
            uint8_t *const st = qi8_stage(col, np, KP);
            if (pointwise) {
                const uint8_t *xp = xg + p0;
                ptrdiff_t ci = 0;
#if QI8_VNNI
                /* 8 positions x 4 channels at a time: four 8-byte rows interleaved into the
                 * positions' dwords */
                if (np == 8)
                    for (; ci + 4 <= CG; ci += 4, xp += 4 * isp) {
                        const __m128i r0 = _mm_loadl_epi64((const __m128i *)(const void *)xp);
                        const __m128i r1 = _mm_loadl_epi64((const __m128i *)(const void *)(xp + isp));
                        const __m128i r2 =
                            _mm_loadl_epi64((const __m128i *)(const void *)(xp + 2 * isp));
                        const __m128i r3 =
                            _mm_loadl_epi64((const __m128i *)(const void *)(xp + 3 * isp));
                        const __m128i t01 = _mm_unpacklo_epi8(r0, r1), t23 = _mm_unpacklo_epi8(r2, r3);
                        const __m128i lo = _mm_unpacklo_epi16(t01, t23), hi = _mm_unpackhi_epi16(t01, t23);
                        uint32_t d[8];
                        _mm_storeu_si128((__m128i *)(void *)d, lo);
                        _mm_storeu_si128((__m128i *)(void *)(d + 4), hi);
                        for (int pp = 0; pp < 8; pp++)
                            memcpy(st + pp * KP + ci, d + pp, 4);
                    }
#endif
                for (; ci < CG; ci++, xp += isp)
                    for (ptrdiff_t pp = 0; pp < np; pp++)
                        st[pp * KP + ci] = xp[pp];
            } else {
#if QI8_VNNI && defined(__AVX512VBMI__)
                /* 8 positions of one row whose 3x3 windows (stride 1) lie inside: per channel the
                 * three rows' 10 bytes, two byte permutations into the positions' 9 bytes (16-byte
                 * lanes), 8 masked stores */
                const ptrdiff_t c0 = o0 * S0 - P0, c1 = o1 * S1 - P1, c2 = o2 - P2;
                if (np == 8 && K0 == 1 && K1 == 3 && K2 == 3 && D1 == 1 && D2 == 1 && S2 == 1 &&
                    o2 + 8 <= O2 && c0 >= 0 && c0 < I0 && c1 >= 0 && c1 + 2 < I1 && c2 >= 0 &&
                    c2 + 9 < I2) {
                    static const int8_t ia[64] = {
                        0, 1, 2, 16, 17, 18, 32, 33, 34, 0, 0, 0, 0, 0, 0, 0,
                        1, 2, 3, 17, 18, 19, 33, 34, 35, 0, 0, 0, 0, 0, 0, 0,
                        2, 3, 4, 18, 19, 20, 34, 35, 36, 0, 0, 0, 0, 0, 0, 0,
                        3, 4, 5, 19, 20, 21, 35, 36, 37, 0, 0, 0, 0, 0, 0, 0};
                    const __m512i pa = _mm512_loadu_si512((const void *)ia);
                    const __m512i pb = _mm512_add_epi8(pa, _mm512_set1_epi8(4));
                    const uint8_t *xw = xg + (c0 * I1 + c1) * I2 + c2;
                    for (ptrdiff_t ci = 0; ci < CG; ci++, xw += isp) {
                        __m512i v = _mm512_castsi128_si512(_mm_maskz_loadu_epi8(0x3ff, xw));
                        v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(0x3ff, xw + I2), 1);
                        v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(0x3ff, xw + 2 * I2), 2);
                        const __m512i lo = _mm512_permutexvar_epi8(pa, v);
                        const __m512i hi = _mm512_permutexvar_epi8(pb, v);
                        uint8_t *d = st + ci * 9;
                        _mm_mask_storeu_epi8(d, 0x1ff, _mm512_extracti32x4_epi32(lo, 0));
                        _mm_mask_storeu_epi8(d + KP, 0x1ff, _mm512_extracti32x4_epi32(lo, 1));
                        _mm_mask_storeu_epi8(d + 2 * KP, 0x1ff, _mm512_extracti32x4_epi32(lo, 2));
                        _mm_mask_storeu_epi8(d + 3 * KP, 0x1ff, _mm512_extracti32x4_epi32(lo, 3));
                        _mm_mask_storeu_epi8(d + 4 * KP, 0x1ff, _mm512_extracti32x4_epi32(hi, 0));
                        _mm_mask_storeu_epi8(d + 5 * KP, 0x1ff, _mm512_extracti32x4_epi32(hi, 1));
                        _mm_mask_storeu_epi8(d + 6 * KP, 0x1ff, _mm512_extracti32x4_epi32(hi, 2));
                        _mm_mask_storeu_epi8(d + 7 * KP, 0x1ff, _mm512_extracti32x4_epi32(hi, 3));
                    }
                } else
#endif
                for (ptrdiff_t pp = 0; pp < np; pp++) {
                    uint8_t *cp = st + pp * KP;
                    ptrdiff_t kk = 0;
                    const ptrdiff_t b0 = o0 * S0 - P0, b1 = o1 * S1 - P1, b2 = o2 * S2 - P2;
                    if (b0 >= 0 && b0 + (K0 - 1) * D0 < I0 && b1 >= 0 && b1 + (K1 - 1) * D1 < I1 &&
                        b2 >= 0 && b2 + (K2 - 1) * D2 < I2) { /* the window inside: no checks */
                        const uint8_t *xw = xg + (b0 * I1 + b1) * I2 + b2;
                        if (K0 == 1 && K1 == 3 && K2 == 3 && D1 == 1 && D2 == 1) {
                            /* a window not in the last column: 4-byte copies, each one's
                             * extra byte overwritten by the next (the last channel's exact) */
                            ptrdiff_t ci = 0;
                            if (b2 + 3 < I2)
                                for (; ci + 1 < CG; ci++, xw += isp, cp += 9) {
                                    memcpy(cp, xw, 4);
                                    memcpy(cp + 3, xw + I2, 4);
                                    memcpy(cp + 6, xw + 2 * I2, 4);
                                }
                            for (; ci < CG; ci++, xw += isp, cp += 9) {
                                const uint8_t *r0 = xw, *r1 = r0 + I2, *r2 = r1 + I2;
                                cp[0] = r0[0], cp[1] = r0[1], cp[2] = r0[2];
                                cp[3] = r1[0], cp[4] = r1[1], cp[5] = r1[2];
                                cp[6] = r2[0], cp[7] = r2[1], cp[8] = r2[2];
                            }
                        }
                        else
                        for (ptrdiff_t ci = 0; ci < CG; ci++, xw += isp)
                            for (ptrdiff_t a = 0; a < K0; a++)
                                for (ptrdiff_t b = 0; b < K1; b++) {
                                    const uint8_t *xr = xw + (a * D0 * I1 + b * D1) * I2;
#if QI8_VNNI
                                    if (D2 == 1 && K2 <= 16) { /* a masked 16-byte copy */
                                        const __mmask16 km = (__mmask16)((1u << K2) - 1u);
                                        _mm_mask_storeu_epi8(cp + kk, km, _mm_maskz_loadu_epi8(km, xr));
                                        kk += K2;
                                        continue;
                                    }
#endif
                                    for (ptrdiff_t c = 0; c < K2; c++, kk++, xr += D2)
                                        cp[kk] = *xr;
                                }
                    } else
                    for (ptrdiff_t ci = 0; ci < CG; ci++) {
                        const uint8_t *xc = xg + ci * isp;
                        for (ptrdiff_t a = 0; a < K0; a++) {
                            const ptrdiff_t i0 = o0 * S0 - P0 + a * D0;
                            for (ptrdiff_t b = 0; b < K1; b++) {
                                const ptrdiff_t i1 = o1 * S1 - P1 + b * D1;
#if QI8_VNNI && defined(__AVX512VBMI2__)
                                if (D2 == 1 && K2 <= 16) {
                                    /* the row's taps inside expand-loaded into their lanes, the
                                     * others the zero point: one masked store */
                                    const __m128i z = _mm_set1_epi8((char)zc);
                                    const ptrdiff_t j2 = o2 * S2 - P2;
                                    __m128i v = z;
                                    if (i0 >= 0 && i0 < I0 && i1 >= 0 && i1 < I1) {
                                        const ptrdiff_t lo = j2 < 0 ? -j2 : 0;
                                        const ptrdiff_t hi = I2 - j2 < K2 ? I2 - j2 : K2;
                                        if (lo < hi)
                                            v = _mm_mask_expandloadu_epi8(
                                                z, (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u)),
                                                xc + (i0 * I1 + i1) * I2 + j2 + lo);
                                    }
                                    _mm_mask_storeu_epi8(cp + kk, (__mmask16)((1u << K2) - 1u), v);
                                    kk += K2;
                                    continue;
                                }
#endif
                                if (i0 < 0 || i0 >= I0 || i1 < 0 || i1 >= I1) {
                                    for (ptrdiff_t c = 0; c < K2; c++, kk++)
                                        cp[kk] = zc;
                                    continue;
                                }
                                const uint8_t *xr = xc + (i0 * I1 + i1) * I2;
                                ptrdiff_t i2 = o2 * S2 - P2;
                                for (ptrdiff_t c = 0; c < K2; c++, kk++, i2 += D2)
                                    cp[kk] = i2 >= 0 && i2 < I2 ? xr[i2] : zc;
                            }
                        }
                    }
                    if (++o2 == O2) {
                        o2 = 0;
                        if (++o1 == O1)
                            o1 = 0, o0++;
                    }
                }
            }
            for (ptrdiff_t pp = 0; pp < np; pp++)
                for (ptrdiff_t kk = K; kk < KP; kk++)
                    st[pp * KP + kk] = flip; /* 0 once flipped */
            qi8_finish(np, KP, col, flip);
            if (zw)
                qi8_colsum(np, K, KP, col, colsum);
            char *yt = (char *)y + (ymode == 2 ? 4 : 1) * ((ptrdiff_t)yoff + g * MG * osp + p0);
            qi8_tile(np, MG, KP, MB, wp + g * mgp * KP, col, colsum, cb + g * MG, cbu + g * MG,
                     zw ? zw + g * MG : 0, mant ? mant + g * MG : 0, sh ? sh + g * MG : 0, zy,
                     lo, hi, ymode, yt, osp, 1);
        }
    }
}
