/* quant_i8_gemm.c - the products of the int8 engine (templates/quant_i8.c, whose header
 * describes the packed weight and the columns): the staging and finishing of a tile of
 * columns, the 2 x 2 dot products (SMLAD on Arm DSP, VMLADAVA on Helium, plain C elsewhere)
 * and the tile loop with its requantization.  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8.c"
#endif


/* s[0..3] = the sums of outputs m, m + 1 (their weights from w: quad q of output m at
 * w + q ws, of m + 1 four bytes later) x columns (x0, x1) over kc runs of 16. */
O2C_HOT static inline void qi8_dot22(ptrdiff_t kc, const int8_t *w, ptrdiff_t ws,
                                     const qi8_col *x0, const qi8_col *x1, uint32_t *s) {
#if QI8_MVE
    int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
    const uint8x16_t iota = vidupq_n_u8(0, 1);
    const uint8x16_t off = vaddq_u8(vmulq_n_u8(vshrq_n_u8(iota, 2), (uint8_t)ws),
                                    vandq_u8(iota, vdupq_n_u8(3)));
    for (ptrdiff_t c = 0; c < kc; c++) {
        const int8x16_t a0 = vldrbq_gather_offset_s8(w, off), a1 = vldrbq_gather_offset_s8(w + 4, off);
        const int8x16_t b0 = vld1q_s8(x0), b1 = vld1q_s8(x1);
        s00 = vmladavaq_s8(s00, a0, b0);
        s01 = vmladavaq_s8(s01, a0, b1);
        s10 = vmladavaq_s8(s10, a1, b0);
        s11 = vmladavaq_s8(s11, a1, b1);
        w += 4 * ws, x0 += 16, x1 += 16;
    }
#elif QI8_DSP
    /* one quad per step, the two weights' halves and one column word live at a time: with
     * the 4 sums and 3 pointers that fits the 13 registers */
    int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
    const qi8_col *const end = x0 + 16 * kc;
    w = (const int8_t *)__builtin_assume_aligned(w, 4);
#define QI8_QUAD(o)                                                                           \
    do {                                                                                    \
        uint32_t wa, wb, xv;                                                                \
        memcpy(&wa, w + (o) * ws, 4);                                                       \
        memcpy(&wb, w + (o) * ws + 4, 4);                                                   \
        const int16x2_t wa0 = __sxtb16(wa), wa1 = qi8_sxtb16_r8(wa);                        \
        const int16x2_t wb0 = __sxtb16(wb), wb1 = qi8_sxtb16_r8(wb);                        \
        memcpy(&xv, x0 + 4 * (o), 4);                                                       \
        s00 = __smlad(wa0, (int16x2_t)xv, s00);                                             \
        s10 = __smlad(wb0, (int16x2_t)xv, s10);                                             \
        memcpy(&xv, x0 + 4 * (o) + 2, 4);                                                   \
        s00 = __smlad(wa1, (int16x2_t)xv, s00);                                             \
        s10 = __smlad(wb1, (int16x2_t)xv, s10);                                             \
        memcpy(&xv, x1 + 4 * (o), 4);                                                       \
        s01 = __smlad(wa0, (int16x2_t)xv, s01);                                             \
        s11 = __smlad(wb0, (int16x2_t)xv, s11);                                             \
        memcpy(&xv, x1 + 4 * (o) + 2, 4);                                                   \
        s01 = __smlad(wa1, (int16x2_t)xv, s01);                                             \
        s11 = __smlad(wb1, (int16x2_t)xv, s11);                                             \
    } while (0)
    while (x0 < end) {
        QI8_QUAD(0);
        QI8_QUAD(1);
        w += 2 * ws, x0 += 8, x1 += 8;
    }
#undef QI8_QUAD
#elif QI8_AVX2
    /* AVX2: a run of 16 bytes widened to int16 (the weight's four quads gathered), VPMADDWD
     * pairs into 8 int32 sums per output and column, reduced at the end (exact: each pair
     * sum is below 2^15, the sums wrap in 32 bits as the plain loop's) */
    __m256i a00 = _mm256_setzero_si256(), a01 = a00, a10 = a00, a11 = a00;
    for (ptrdiff_t c = 0; c < kc; c++) {
        int32_t q0, q1, q2, q3, r0, r1, r2, r3;
        memcpy(&q0, w, 4), memcpy(&q1, w + ws, 4), memcpy(&q2, w + 2 * ws, 4), memcpy(&q3, w + 3 * ws, 4);
        memcpy(&r0, w + 4, 4), memcpy(&r1, w + ws + 4, 4), memcpy(&r2, w + 2 * ws + 4, 4);
        memcpy(&r3, w + 3 * ws + 4, 4);
        const __m256i wa = _mm256_cvtepi8_epi16(_mm_setr_epi32(q0, q1, q2, q3));
        const __m256i wb = _mm256_cvtepi8_epi16(_mm_setr_epi32(r0, r1, r2, r3));
        const __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)x0));
        const __m256i b1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)x1));
        a00 = _mm256_add_epi32(a00, _mm256_madd_epi16(wa, b0));
        a01 = _mm256_add_epi32(a01, _mm256_madd_epi16(wa, b1));
        a10 = _mm256_add_epi32(a10, _mm256_madd_epi16(wb, b0));
        a11 = _mm256_add_epi32(a11, _mm256_madd_epi16(wb, b1));
        w += 4 * ws, x0 += 16, x1 += 16;
    }
    /* horizontal sums: the four vectors' 8 lanes each */
    const __m256i h01 = _mm256_hadd_epi32(a00, a01), h23 = _mm256_hadd_epi32(a10, a11);
    const __m256i h = _mm256_hadd_epi32(h01, h23); /* per 128-bit half: s00 s01 s10 s11 */
    const __m128i t = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    const uint32_t s00 = (uint32_t)_mm_cvtsi128_si32(t), s01 = (uint32_t)_mm_extract_epi32(t, 1);
    const uint32_t s10 = (uint32_t)_mm_extract_epi32(t, 2), s11 = (uint32_t)_mm_extract_epi32(t, 3);
#else
    uint32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
    for (ptrdiff_t q = 0; q < 4 * kc; q++) {
        for (int j = 0; j < 4; j++) {
            const int32_t a0 = w[j], a1 = w[4 + j], b0 = x0[j], b1 = x1[j];
            s00 += (uint32_t)(a0 * b0);
            s01 += (uint32_t)(a0 * b1);
            s10 += (uint32_t)(a1 * b0);
            s11 += (uint32_t)(a1 * b1);
        }
        w += ws, x0 += 4, x1 += 4;
    }
#endif
    s[0] = (uint32_t)s00, s[1] = (uint32_t)s01, s[2] = (uint32_t)s10, s[3] = (uint32_t)s11;
}

#if QI8_VNNI
/* AVX-512 VNNI: nb (1 or 2) blocks of 16 outputs (wb, and wb + 16 Kp) x columns p < np
 * (np <= QI8_P): per quad one 64-byte load of each block's weight and, per column, one dword
 * broadcast multiplied-accumulated by VPDPBUSD (the columns are uint8 here: x + 128, which
 * cbu[] corrects).  Two blocks keep 16 sums in flight.  Sums into acc[b][p][16]. */
static inline void qi8_vnni(int nb, ptrdiff_t np, ptrdiff_t Kp, const int8_t *wb,
                            const qi8_col *col, int32_t *acc) {
    const ptrdiff_t kq = Kp / 4;
    const int8_t *wb2 = wb + 16 * Kp;
    if (np == 8) { /* the full tile: 8 (or 16) sums in named registers */
        const int32_t *x = (const int32_t *)(const void *)col; /* aligned by qi8_finish's words */
        const ptrdiff_t kd = Kp / 4;
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0,
                a6 = a0, a7 = a0, c0 = a0, c1 = a0, c2 = a0, c3 = a0, c4 = a0, c5 = a0, c6 = a0,
                c7 = a0;
#define QI8_V(p, a, c)                                                                        \
    do {                                                                                    \
        const __m512i xb = _mm512_set1_epi32(x[(p) * kd + q]);                              \
        a = _mm512_dpbusd_epi32(a, xb, w0);                                                 \
        if (nb == 2)                                                                        \
            c = _mm512_dpbusd_epi32(c, xb, w1);                                             \
    } while (0)
        if (nb == 2)
            for (ptrdiff_t q = 0; q < kq; q++) {
                const __m512i w0 = _mm512_loadu_si512((const void *)(wb + 64 * q));
                const __m512i w1 = _mm512_loadu_si512((const void *)(wb2 + 64 * q));
                QI8_V(0, a0, c0); QI8_V(1, a1, c1); QI8_V(2, a2, c2); QI8_V(3, a3, c3);
                QI8_V(4, a4, c4); QI8_V(5, a5, c5); QI8_V(6, a6, c6); QI8_V(7, a7, c7);
            }
        else
            for (ptrdiff_t q = 0; q < kq; q++) {
                const __m512i w0 = _mm512_loadu_si512((const void *)(wb + 64 * q)), w1 = w0;
                (void)w1;
                QI8_V(0, a0, c0); QI8_V(1, a1, c1); QI8_V(2, a2, c2); QI8_V(3, a3, c3);
                QI8_V(4, a4, c4); QI8_V(5, a5, c5); QI8_V(6, a6, c6); QI8_V(7, a7, c7);
            }
#undef QI8_V
        _mm512_storeu_si512((void *)(acc + 0), a0);
        _mm512_storeu_si512((void *)(acc + 16), a1);
        _mm512_storeu_si512((void *)(acc + 32), a2);
        _mm512_storeu_si512((void *)(acc + 48), a3);
        _mm512_storeu_si512((void *)(acc + 64), a4);
        _mm512_storeu_si512((void *)(acc + 80), a5);
        _mm512_storeu_si512((void *)(acc + 96), a6);
        _mm512_storeu_si512((void *)(acc + 112), a7);
        if (nb == 2) {
            _mm512_storeu_si512((void *)(acc + 128), c0);
            _mm512_storeu_si512((void *)(acc + 144), c1);
            _mm512_storeu_si512((void *)(acc + 160), c2);
            _mm512_storeu_si512((void *)(acc + 176), c3);
            _mm512_storeu_si512((void *)(acc + 192), c4);
            _mm512_storeu_si512((void *)(acc + 208), c5);
            _mm512_storeu_si512((void *)(acc + 224), c6);
            _mm512_storeu_si512((void *)(acc + 240), c7);
        }
        return;
    }
    for (int b = 0; b < nb; b++) /* a short tile: one column at a time */
        for (ptrdiff_t p = 0; p < np; p++) {
            const int8_t *w = b ? wb2 : wb;
            __m512i a = _mm512_setzero_si512();
            for (ptrdiff_t q = 0; q < kq; q++) {
                int32_t xv;
                memcpy(&xv, col + p * Kp + 4 * q, 4);
                a = _mm512_dpbusd_epi32(a, _mm512_set1_epi32(xv),
                                        _mm512_loadu_si512((const void *)(w + 64 * q)));
            }
            _mm512_storeu_si512((void *)(acc + 16 * (b * QI8_P + p)), a);
        }
}
#endif

/* Outputs m < M of columns p < np (np <= QI8_P): y[m ym + p yp]; the weight in blocks of mb
 * outputs.  cbu: cb less 128 sum_k W[m][k], for columns biased by 128 (x86 VNNI). */
static inline void qi8_tile(ptrdiff_t np, ptrdiff_t M, ptrdiff_t Kp, ptrdiff_t mb,
                            const int8_t *wp, const qi8_col *col, const int32_t *colsum,
                            const int32_t *cb, const int32_t *cbu, const int32_t *zw,
                            const int32_t *mant, const int32_t *sh, int32_t zy, int32_t lo,
                            int32_t hi, int ymode, void *y, ptrdiff_t ym, ptrdiff_t yp) {
#if QI8_VNNI
    if (mb == 16) {
        int32_t accs[2 * QI8_P * 16];
        for (ptrdiff_t m0 = 0; m0 < M; m0 += 16) {
            const ptrdiff_t nm = M - m0 < 16 ? M - m0 : 16;
            const __mmask16 mk = (__mmask16)((1u << nm) - 1u);
            int32_t *acc = accs + ((m0 / 16) & 1) * QI8_P * 16;
            if (!((m0 / 16) & 1)) /* two blocks at once, then their outputs one at a time */
                qi8_vnni(M - m0 > 16 ? 2 : 1, np, Kp, wp + m0 * Kp, col, accs);
            __m512i shv = _mm512_setzero_si512();
            if (ymode != 2)
                shv = _mm512_maskz_loadu_epi32(mk, sh + m0);
            if (ymode == 2 || zw || _mm512_mask_cmplt_epi32_mask(mk, shv, _mm512_set1_epi32(1)) ||
                _mm512_mask_cmpgt_epi32_mask(mk, shv, _mm512_set1_epi32(62))) {
                for (ptrdiff_t i = 0; i < nm; i++)
                    for (ptrdiff_t p = 0; p < np; p++)
                        qi8_put((uint32_t)acc[16 * p + i], m0 + i, p, cbu, zw, colsum, mant, sh,
                                zy, lo, hi, ymode, y, (m0 + i) * ym + p * yp);
                continue;
            }
            /* 16 outputs a vector: bias, requantization, bytes */
            const qi8_rq16_t rq =
                qi8_rq16_prep(_mm512_maskz_loadu_epi32(mk, mant + m0), shv, zy, lo, hi);
            const __m512i cv = _mm512_maskz_loadu_epi32(mk, cbu + m0);
            __m128i q[QI8_P];
            for (ptrdiff_t p = 0; p < QI8_P; p++)
                q[p] = p < np ? qi8_rq16(_mm512_add_epi32(
                                             _mm512_loadu_si512((const void *)(acc + 16 * p)), cv),
                                         &rq)
                              : _mm_setzero_si128();
            uint8_t *yo = (uint8_t *)y + m0 * ym;
            if (ym == 1) { /* the outputs of a column contiguous (a product's row) */
                for (ptrdiff_t p = 0; p < np; p++)
                    _mm_mask_storeu_epi8(yo + p * yp, mk, q[p]);
            } else if (yp == 1) { /* a column per position: 16 x 8 bytes transposed */
                const __m128i a0 = _mm_unpacklo_epi8(q[0], q[1]), a1 = _mm_unpackhi_epi8(q[0], q[1]);
                const __m128i a2 = _mm_unpacklo_epi8(q[2], q[3]), a3 = _mm_unpackhi_epi8(q[2], q[3]);
                const __m128i a4 = _mm_unpacklo_epi8(q[4], q[5]), a5 = _mm_unpackhi_epi8(q[4], q[5]);
                const __m128i a6 = _mm_unpacklo_epi8(q[6], q[7]), a7 = _mm_unpackhi_epi8(q[6], q[7]);
                /* b: 4 channels x positions 0-3 (from a0, a2...) or 4-7 */
                const __m128i b0 = _mm_unpacklo_epi16(a0, a2), b1 = _mm_unpackhi_epi16(a0, a2);
                const __m128i b2 = _mm_unpacklo_epi16(a1, a3), b3 = _mm_unpackhi_epi16(a1, a3);
                const __m128i b4 = _mm_unpacklo_epi16(a4, a6), b5 = _mm_unpackhi_epi16(a4, a6);
                const __m128i b6 = _mm_unpacklo_epi16(a5, a7), b7 = _mm_unpackhi_epi16(a5, a7);
                __m128i r[8]; /* channels 2i, 2i + 1: 8 bytes each */
                r[0] = _mm_unpacklo_epi32(b0, b4), r[1] = _mm_unpackhi_epi32(b0, b4);
                r[2] = _mm_unpacklo_epi32(b1, b5), r[3] = _mm_unpackhi_epi32(b1, b5);
                r[4] = _mm_unpacklo_epi32(b2, b6), r[5] = _mm_unpackhi_epi32(b2, b6);
                r[6] = _mm_unpacklo_epi32(b3, b7), r[7] = _mm_unpackhi_epi32(b3, b7);
                uint8_t t[16];
                for (ptrdiff_t i = 0; i < nm; i++) {
                    uint8_t *d = yo + i * ym;
                    if (np == 8 && !(i & 1))
                        _mm_storel_epi64((__m128i *)(void *)d, r[i >> 1]);
                    else if (np == 8)
                        _mm_storel_epi64((__m128i *)(void *)d, _mm_unpackhi_epi64(r[i >> 1], r[i >> 1]));
                    else {
                        _mm_storeu_si128((__m128i *)(void *)t, r[i >> 1]);
                        memcpy(d, t + 8 * (i & 1), (size_t)np);
                    }
                }
            } else {
                for (ptrdiff_t p = 0; p < np; p++) {
                    uint8_t b[16];
                    _mm_storeu_si128((__m128i *)(void *)b, q[p]);
                    for (ptrdiff_t i = 0; i < nm; i++)
                        yo[i * ym + p * yp] = b[i];
                }
            }
        }
        return;
    }
    cb = cbu; /* the columns are biased by 128 on this path too */
#else
    (void)cbu;
#endif
    uint32_t s[4];
    for (ptrdiff_t m = 0; m < M; m += 2) {
        const int8_t *w = wp + (m / mb) * mb * Kp + (m % mb) * 4;
        const int two = m + 1 < M;
        const uint32_t c0 = (uint32_t)cb[m], c1 = two ? (uint32_t)cb[m + 1] : 0;
        const int32_t m0 = mant ? mant[m] : 0, m1 = mant && two ? mant[m + 1] : 0;
        const int32_t h0 = sh ? sh[m] : 0, h1 = sh && two ? sh[m + 1] : 0;
        for (ptrdiff_t p = 0; p < np; p += 2) {
            const qi8_col *x0 = col + p * Kp, *x1 = p + 1 < np ? x0 + Kp : x0;
            qi8_dot22(Kp / 16, w, 4 * mb, x0, x1, s);
            if (zw)
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 2 && p + j < np; j++)
                        s[i * 2 + j] -= (uint32_t)zw[m + i < M ? m + i : m] * (uint32_t)colsum[p + j];
            char *yr = (char *)y + (ymode == 2 ? 4 : 1) * (m * ym + p * yp);
            const ptrdiff_t yq = ymode == 2 ? 4 * yp : yp, yn = ymode == 2 ? 4 * ym : ym;
            qi8_out(s[0] + c0, m0, h0, zy, lo, hi, ymode, yr, 0);
            if (p + 1 < np)
                qi8_out(s[1] + c0, m0, h0, zy, lo, hi, ymode, yr + yq, 0);
            if (two) {
                qi8_out(s[2] + c1, m1, h1, zy, lo, hi, ymode, yr + yn, 0);
                if (p + 1 < np)
                    qi8_out(s[3] + c1, m1, h1, zy, lo, hi, ymode, yr + yn + yq, 0);
            }
        }
    }
}

/* The staging area of a tile's np columns (np x Kp raw bytes): on DSP the second half of the
 * int16 columns (qi8_finish converts it in place, each word read before its two are written,
 * which never overtakes the reading), else the columns themselves.  So a tile of np columns
 * needs np Kp bytes of scratch, twice that on DSP. */
static inline uint8_t *qi8_stage(qi8_col *col, ptrdiff_t np, ptrdiff_t Kp) {
#if QI8_DSP
    return (uint8_t *)(void *)col + np * Kp;
#else
    (void)np, (void)Kp;
    return (uint8_t *)(void *)col;
#endif
}

/* Turns the staged raw bytes of np columns into the columns: the sign bits flipped (flip:
 * 0x80 for uint8 data), and on DSP widened and reordered. */
static inline void qi8_finish(ptrdiff_t np, ptrdiff_t Kp, qi8_col *col, uint8_t flip) {
    const ptrdiff_t words = np * Kp / 4;
    const uint32_t fw = flip ? 0x80808080u : 0u;
    uint8_t *st = qi8_stage(col, np, Kp);
#if QI8_DSP
    for (ptrdiff_t i = 0; i < words; i++) {
        uint32_t v;
        memcpy(&v, st + 4 * i, 4);
        v ^= fw;
        const int16x2_t a = __sxtb16(v), b = qi8_sxtb16_r8(v);
        memcpy(col + 4 * i, &a, 4);
        memcpy(col + 4 * i + 2, &b, 4);
    }
#else
#if QI8_VNNI
    const uint32_t f = fw ^ 0x80808080u; /* VPDPBUSD takes the columns as uint8: x + 128 */
#else
    const uint32_t f = fw;
#endif
    if (f)
        for (ptrdiff_t i = 0; i < words; i++) {
            uint32_t v;
            memcpy(&v, st + 4 * i, 4);
            v ^= f;
            memcpy(st + 4 * i, &v, 4);
        }
    (void)col;
#endif
}

/* Sums of the columns col[p][0..K) for p < np into colsum (when the weight has zero points;
 * the order of a column does not matter). */
static inline void qi8_colsum(ptrdiff_t np, ptrdiff_t K, ptrdiff_t Kp, const qi8_col *col,
                              int32_t *colsum) {
    for (ptrdiff_t p = 0; p < np; p++) {
        uint32_t t = 0;
        for (ptrdiff_t k = 0; k < Kp; k++)
            t += (uint32_t)(int32_t)col[p * Kp + k];
        colsum[p] = (int32_t)(t - (QI8_VNNI ? 128u * (uint32_t)Kp : 0u)); /* of x, not x + 128 */
    }
    (void)K;
}
