/* quant_i8_dw.c - a depthwise convolution by the int8 engine (templates/quant_i8.c), direct:
 * each output sums its taps in a register, a padded tap holding zx as in qi8_conv.
 * With a plane (the scratch of a 1-D or 2-D convolution whose weight has no zero point), each
 * channel is first copied into it with its padding (rows (out1 - 1) stride1 + (k1 - 1) dil1
 * + 1 by the same for the last axis), so no tap is checked; a 3x3 kernel with dilation 1
 * keeps its 9 weights in registers; with OpenMP up to nslot threads take channels, each with a
 * plane of its own (planes: nslot of them, each rounded up to 64 bytes).  Otherwise outputs whose window lies inside the image
 * (and a weight without zero points) take the loop without bounds checks.  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* The padded plane's bytes: x as int8 (sign bit flipped for uint8 data), or with AVX-512 VBMI
 * (whose 3x3 kernel multiplies by VPDPBUSD, uint8 x int8) x + 128, the int8 value biased. */
#if QI8_VNNI && defined(__AVX512VBMI__)
#define QI8_DW_BIAS 0x80
#else
#define QI8_DW_BIAS 0
#endif
/* a plane byte as the int8 value */
#define QI8_PV(b) ((int32_t)(int8_t)((uint8_t)(b) ^ QI8_DW_BIAS))

/* Outputs of one channel from its padded plane pl (W columns): taps k1 x k2. */
O2C_INLINE static void qi8_dw_plane(const int8_t *pl, ptrdiff_t W, const int8_t *wc, ptrdiff_t K1,
                                    ptrdiff_t K2, ptrdiff_t D1, ptrdiff_t D2, ptrdiff_t S1,
                                    ptrdiff_t S2, ptrdiff_t O1, ptrdiff_t O2, ptrdiff_t ch,
                                    const int32_t *cb, const int32_t *mant, const int32_t *sh,
                                    int32_t zy, int32_t lo, int32_t hi, int ymode, void *y,
                                    ptrdiff_t at) {
    for (ptrdiff_t o1 = 0; o1 < O1; o1++) {
        const int8_t *xr = pl + o1 * S1 * W;
        for (ptrdiff_t o2 = 0; o2 < O2; o2++, at++, xr += S2) {
            uint32_t s = 0;
            for (ptrdiff_t a = 0; a < K1; a++)
                for (ptrdiff_t b = 0; b < K2; b++)
                    s += (uint32_t)(QI8_PV(xr[a * D1 * W + b * D2]) * wc[a * K2 + b]);
            qi8_put(s, ch, 0, cb, 0, 0, mant, sh, zy, lo, hi, ymode, y, at);
        }
    }
}

#if QI8_VNNI && defined(__AVX512VBMI__)
/* Rows of a 3x3 plane four at a time (S1 a constant where inlined: the loops unroll, the four
 * sums stay in registers): each input row loaded and permuted once for the (up to three)
 * output rows that read it.  Returns the output rows done. */
static O2C_INLINE ptrdiff_t qi8_dw_rows4(const ptrdiff_t S1, const int8_t *pl, ptrdiff_t W,
                                         ptrdiff_t S2, ptrdiff_t O1, ptrdiff_t O2, __m512i ix,
                                         const __m512i *wr, __m512i cv, const qi8_rq16_t *rq,
                                         uint8_t *y) {
    ptrdiff_t o1 = 0;
    for (; o1 + 4 <= O1; o1 += 4)
        for (ptrdiff_t o2 = 0; o2 < O2; o2 += 16) {
            const ptrdiff_t n = O2 - o2 < 16 ? O2 - o2 : 16;
            const __mmask16 m1 = (__mmask16)((1u << n) - 1u);
            const __mmask64 lm = S2 == 1 ? (((__mmask64)1 << (n + 2)) - 1)
                                         : (((__mmask64)1 << (2 * n + 1)) - 1);
            const int8_t *r0 = pl + o1 * S1 * W + o2 * S2;
            __m512i a0 = cv, a1 = cv, a2 = cv, a3 = cv;
            for (ptrdiff_t ir = 0; ir < 3 * S1 + 3; ir++) { /* the input rows read */
                const __m512i v =
                    _mm512_permutexvar_epi8(ix, _mm512_maskz_loadu_epi8(lm, r0 + ir * W));
                if (ir < 3)
                    a0 = _mm512_dpbusd_epi32(a0, v, wr[ir]);
                if (ir >= S1 && ir - S1 < 3)
                    a1 = _mm512_dpbusd_epi32(a1, v, wr[ir - S1]);
                if (ir >= 2 * S1 && ir - 2 * S1 < 3)
                    a2 = _mm512_dpbusd_epi32(a2, v, wr[ir - 2 * S1]);
                if (ir >= 3 * S1)
                    a3 = _mm512_dpbusd_epi32(a3, v, wr[ir - 3 * S1]);
            }
            uint8_t *yo = y + o1 * O2 + o2;
            const __m512i q = qi8_narrow64(qi8_rq16w(a0, rq), qi8_rq16w(a1, rq),
                                           qi8_rq16w(a2, rq), qi8_rq16w(a3, rq), rq);
            _mm_mask_storeu_epi8(yo, m1, _mm512_castsi512_si128(q));
            _mm_mask_storeu_epi8(yo + O2, m1, _mm512_extracti32x4_epi32(q, 1));
            _mm_mask_storeu_epi8(yo + 2 * O2, m1, _mm512_extracti32x4_epi32(q, 2));
            _mm_mask_storeu_epi8(yo + 3 * O2, m1, _mm512_extracti32x4_epi32(q, 3));
        }
    return o1;
}
#endif

/* The same for a 3x3 kernel, dilation 1: the weights in registers. */
static void qi8_dw_plane3(const int8_t *pl, ptrdiff_t W, const int8_t *wc, ptrdiff_t S1,
                          ptrdiff_t S2, ptrdiff_t O1, ptrdiff_t O2, ptrdiff_t ch,
                          const int32_t *cb, const int32_t *mant, const int32_t *sh, int32_t zy,
                          int32_t lo, int32_t hi, int ymode, void *y, ptrdiff_t at) {
    const int32_t w0 = wc[0], w1 = wc[1], w2 = wc[2], w3 = wc[3], w4 = wc[4], w5 = wc[5];
    const int32_t w6 = wc[6], w7 = wc[7], w8 = wc[8];
    const uint32_t cbc = (uint32_t)cb[ch];
    const int32_t mc = mant ? mant[ch] : 0, shc = sh ? sh[ch] : 0;
#if QI8_VNNI
    /* AVX-512: 16 outputs of a row at a time (stride 1 or 2), requantized as a vector; with
     * VBMI a kernel row is one byte permutation and one VPDPBUSD, else 3 multiplies */
    if (ymode != 2 && shc >= 1 && shc <= 62 && (S2 == 1 || S2 == 2)) {
        /* |sum| <= the taps' products (biased uint8 or int8, by int8), 128 sum w and cb */
        const int64_t vmax = 9 * 255 * 128 + 9 * 128 * 128 + (cb[ch] < 0 ? -(int64_t)cb[ch] : cb[ch]);
        const qi8_rq16_t rq = qi8_rq16_prep1(mc, shc, zy, lo, hi, vmax);
#ifdef __AVX512VBMI__
        const __m512i cv = _mm512_set1_epi32(
            (int32_t)(cbc - 128u * (uint32_t)(w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7 + w8)));
        /* byte indices: lane j takes (j, j + 1, j + 2, j + 2) (stride 1) or (2j, 2j + 1, 2j + 2,
         * 2j + 2); the 4th byte meets a zero weight */
        static const int8_t i1[64] = {
            0, 1, 2, 2, 1, 2, 3, 3, 2, 3, 4, 4, 3, 4, 5, 5, 4, 5, 6, 6, 5, 6, 7, 7,
            6, 7, 8, 8, 7, 8, 9, 9, 8, 9, 10, 10, 9, 10, 11, 11, 10, 11, 12, 12, 11, 12, 13, 13,
            12, 13, 14, 14, 13, 14, 15, 15, 14, 15, 16, 16, 15, 16, 17, 17};
        static const int8_t i2[64] = {
            0, 1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 6, 6, 7, 8, 8, 8, 9, 10, 10, 10, 11, 12, 12,
            12, 13, 14, 14, 14, 15, 16, 16, 16, 17, 18, 18, 18, 19, 20, 20, 20, 21, 22, 22,
            22, 23, 24, 24, 24, 25, 26, 26, 26, 27, 28, 28, 28, 29, 30, 30, 30, 31, 32, 32};
        const __m512i ix1 = _mm512_loadu_si512((const void *)i1), ix2 = _mm512_loadu_si512((const void *)i2);
        const __m512i wr[3] = {
            _mm512_set1_epi32((int32_t)((uint32_t)(uint8_t)w0 | (uint32_t)(uint8_t)w1 << 8 | (uint32_t)(uint8_t)w2 << 16)),
            _mm512_set1_epi32((int32_t)((uint32_t)(uint8_t)w3 | (uint32_t)(uint8_t)w4 << 8 | (uint32_t)(uint8_t)w5 << 16)),
            _mm512_set1_epi32((int32_t)((uint32_t)(uint8_t)w6 | (uint32_t)(uint8_t)w7 << 8 | (uint32_t)(uint8_t)w8 << 16))};
#else
        const __m512i cv = _mm512_set1_epi32((int32_t)cbc);
#endif
#ifndef __AVX512VBMI__
        const __m512i wv[9] = {_mm512_set1_epi32(w0), _mm512_set1_epi32(w1), _mm512_set1_epi32(w2),
                               _mm512_set1_epi32(w3), _mm512_set1_epi32(w4), _mm512_set1_epi32(w5),
                               _mm512_set1_epi32(w6), _mm512_set1_epi32(w7), _mm512_set1_epi32(w8)};
#endif
        ptrdiff_t o1 = 0;
#ifdef __AVX512VBMI__
        /* four output rows at a time: each input row loaded and permuted once for the (up to
         * three) outputs rows that read it, four independent sums (the loop is latency-bound
         * one row at a time) */
        if (S1 == 1)
            o1 = qi8_dw_rows4(1, pl, W, S2, O1, O2, S2 == 1 ? ix1 : ix2, wr, cv, &rq,
                              (uint8_t *)y + at);
        else if (S1 == 2)
            o1 = qi8_dw_rows4(2, pl, W, S2, O1, O2, S2 == 1 ? ix1 : ix2, wr, cv, &rq,
                              (uint8_t *)y + at);
#endif
        for (; o1 < O1; o1++) {
            const int8_t *row = pl + o1 * S1 * W;
            for (ptrdiff_t o2 = 0; o2 < O2; o2 += 16) {
                const ptrdiff_t n = O2 - o2 < 16 ? O2 - o2 : 16;
                const __mmask16 m1 = (__mmask16)((1u << n) - 1u);        /* stride 1: n bytes */
                __m512i acc = cv;
#ifdef __AVX512VBMI__
                /* per kernel row one VPDPBUSD: lane j's dword holds the row's 3 taps of output
                 * j (a byte permutation of the row, which the plane holds biased to uint8;
                 * cv less 128 sum w) */
                const __mmask64 lm = S2 == 1 ? (((__mmask64)1 << (n + 2)) - 1)
                                             : (((__mmask64)1 << (2 * n + 1)) - 1);
                for (int a = 0; a < 3; a++) {
                    const __m512i v = _mm512_maskz_loadu_epi8(lm, row + a * W + o2 * S2);
                    acc = _mm512_dpbusd_epi32(acc, _mm512_permutexvar_epi8(S2 == 1 ? ix1 : ix2, v),
                                              wr[a]);
                }
#else
                const __mmask32 m2 = (__mmask32)((1u << (2 * n - 1)) - 1u); /* stride 2 */
                for (int a = 0; a < 3; a++)
                    for (int c = 0; c < 3; c++) {
                        const int8_t *r = row + a * W + o2 * S2 + c;
                        __m512i v;
                        if (S2 == 1) {
                            v = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m1, r));
                        } else { /* the even bytes of 2 n - 1 */
                            const __m512i h = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m2, r));
                            v = _mm512_srai_epi32(_mm512_slli_epi32(h, 16), 16);
                        }
                        acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(v, wv[3 * a + c]));
                    }
#endif
                const __m128i q = qi8_rq16(acc, &rq);
                _mm_mask_storeu_epi8((char *)y + at + o1 * O2 + o2, m1, q);
            }
        }
        return;
    }
#endif
#if QI8_DSP
    /* stride 1: two outputs per step, a kernel row per word: SXTB16 splits bytes o2..o2 + 3
     * into (x0, x2), (x1, x3); out0 = SMLAD((x0, x2), (w0, w2)) + x1 w1 and out1 =
     * SMLAD((x1, x3), (w0, w2)) + x2 w1 */
    if (S2 == 1 && O2 >= 2) {
        const int16x2_t p0 = (int16x2_t)((uint32_t)(uint16_t)w0 | (uint32_t)w2 << 16);
        const int16x2_t p1 = (int16x2_t)((uint32_t)(uint16_t)w3 | (uint32_t)w5 << 16);
        const int16x2_t p2 = (int16x2_t)((uint32_t)(uint16_t)w6 | (uint32_t)w8 << 16);
        for (ptrdiff_t o1 = 0; o1 < O1; o1++) {
            const int8_t *r0 = pl + o1 * S1 * W, *r1 = r0 + W, *r2 = r1 + W;
            ptrdiff_t o2 = 0;
            for (; o2 + 1 < O2; o2 += 2, r0 += 2, r1 += 2, r2 += 2) {
                uint32_t x;
                int32_t s0 = 0, s1 = 0;
#define QI8_DWROW(r, pw, wm)                                                                  \
    do {                                                                                    \
        memcpy(&x, r, 4);                                                                   \
        const int16x2_t xe = __sxtb16(x), xo = qi8_sxtb16_r8(x);                            \
        s0 = __smlabb(xo, wm, __smlad(xe, pw, s0));                                         \
        s1 = __smlatb(xe, wm, __smlad(xo, pw, s1));                                         \
    } while (0)
                QI8_DWROW(r0, p0, w1);
                QI8_DWROW(r1, p1, w4);
                QI8_DWROW(r2, p2, w7);
#undef QI8_DWROW
                qi8_out((uint32_t)s0 + cbc, mc, shc, zy, lo, hi, ymode, y, at + o1 * O2 + o2);
                qi8_out((uint32_t)s1 + cbc, mc, shc, zy, lo, hi, ymode, y, at + o1 * O2 + o2 + 1);
            }
            if (o2 < O2) {
                const int32_t s0 = r0[0] * w0 + r0[1] * w1 + r0[2] * w2 + r1[0] * w3 +
                                   r1[1] * w4 + r1[2] * w5 + r2[0] * w6 + r2[1] * w7 +
                                   r2[2] * w8;
                qi8_out((uint32_t)s0 + cbc, mc, shc, zy, lo, hi, ymode, y, at + o1 * O2 + o2);
            }
        }
        return;
    }
#endif
    for (ptrdiff_t o1 = 0; o1 < O1; o1++) {
        const int8_t *r0 = pl + o1 * S1 * W, *r1 = r0 + W, *r2 = r1 + W;
        for (ptrdiff_t o2 = 0; o2 < O2; o2++, at++, r0 += S2, r1 += S2, r2 += S2) {
            const int32_t s = QI8_PV(r0[0]) * w0 + QI8_PV(r0[1]) * w1 + QI8_PV(r0[2]) * w2 +
                              QI8_PV(r1[0]) * w3 + QI8_PV(r1[1]) * w4 + QI8_PV(r1[2]) * w5 +
                              QI8_PV(r2[0]) * w6 + QI8_PV(r2[1]) * w7 + QI8_PV(r2[2]) * w8;
            qi8_out((uint32_t)s + cbc, mc, shc, zy, lo, hi, ymode, y, at);
        }
    }
}

#if QI8_VNNI && defined(__AVX512VBMI__)
/* Small planes (fewer than 16 outputs a row; a 3x3 kernel, any stride and dilation), read from
 * the input itself: the outputs of a channel in groups of 16 consecutive ones (across rows),
 * each group's taps inside a window of 128 input bytes; per kernel row one two-source byte
 * permutation (VPERMI2B) whose masked-off bytes, the padded taps, take the zero point from the
 * index vector, and one VPDPBUSD.  The plan is the same for every channel. */
#define QI8_DWS_MAX 16
typedef struct {
    __m512i ix[3];      /* lane j's dword: its 3 taps of kernel row a (the 4th meets w 0);
                           a padded tap: the zero point's biased byte */
    __mmask64 in[3];    /* the taps inside the image */
    ptrdiff_t base;     /* the input offset of the window */
    __mmask64 mlo, mhi; /* the window's bytes inside the channel */
    __mmask16 mo;       /* the group's outputs */
} qi8_dws_t;

/* Fills t for O1 x O2 outputs of an I1 x I2 channel (pads P1, P2); 0 when a window would not
 * fit.  zb: the zero point's byte.  No division: each group's lanes walk the rows. */
static int qi8_dws_plan(qi8_dws_t *t, ptrdiff_t I1, ptrdiff_t I2, ptrdiff_t S1, ptrdiff_t S2,
                        ptrdiff_t D1, ptrdiff_t D2, ptrdiff_t P1, ptrdiff_t P2, ptrdiff_t O1,
                        ptrdiff_t O2, uint8_t zb) {
    const ptrdiff_t n = O1 * O2, ng = (n + 15) / 16;
    if (ng > QI8_DWS_MAX)
        return 0;
    ptrdiff_t r0 = 0, c0 = 0; /* the group's first output */
    for (ptrdiff_t g = 0; g < ng; g++) {
        const int nl = n - 16 * g < 16 ? (int)(n - 16 * g) : 16;
        /* each lane's dword bytes: the input offset of the tap, -1 when padded; the window
         * from the lowest to the highest inside tap */
        ptrdiff_t off[3][64], lo = PTRDIFF_MAX, hi = PTRDIFF_MIN, r = r0, c = c0;
        for (int j = 0; j < 16; j++) {
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 4; b++) {
                    const ptrdiff_t ir = r * S1 - P1 + a * D1;
                    const ptrdiff_t ic = c * S2 - P2 + (b < 3 ? b : 2) * D2, o = ir * I2 + ic;
                    const int inside = j < nl && ir >= 0 && ir < I1 && ic >= 0 && ic < I2;
                    off[a][4 * j + b] = inside ? o : -1;
                    if (inside)
                        lo = o < lo ? o : lo, hi = o > hi ? o : hi;
                }
            if (j < nl && ++c == O2)
                c = 0, r++;
        }
        if (lo > hi) /* every tap padded */
            lo = hi = 0;
        if (hi - lo >= 128)
            return 0;
        uint8_t ix[3][64];
        __mmask64 in[3] = {0, 0, 0};
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 64; k++) {
                ix[a][k] = off[a][k] < 0 ? zb : (uint8_t)(off[a][k] - lo);
                in[a] |= (__mmask64)(off[a][k] >= 0) << k;
            }
        r0 = r, c0 = c;
        for (int a = 0; a < 3; a++)
            t[g].ix[a] = _mm512_loadu_si512((const void *)ix[a]), t[g].in[a] = in[a];
        t[g].mo = (__mmask16)((1u << nl) - 1u);
        t[g].base = lo;
        const ptrdiff_t left = I1 * I2 - lo; /* > 0 */
        t[g].mlo = left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
        t[g].mhi = left >= 128  ? ~(__mmask64)0
                   : left <= 64 ? 0
                                : ((__mmask64)1 << (left - 64)) - 1;
    }
    return (int)ng;
}

/* One channel's outputs (xc: its input, each byte xor f the biased value) by the plan t (ng
 * groups); 0 when its requantization needs the scalar path. */
static int qi8_dw_small(const uint8_t *xc, uint8_t f, const qi8_dws_t *t, int ng,
                        const int8_t *wc, ptrdiff_t ch, const int32_t *cb, const int32_t *mant,
                        const int32_t *sh, int32_t zy, int32_t lo, int32_t hi, uint8_t *y) {
    const int32_t shc = sh ? sh[ch] : 0;
    if (shc < 1 || shc > 62)
        return 0;
    const int64_t vmax = 9 * 255 * 128 + 9 * 128 * 128 + (cb[ch] < 0 ? -(int64_t)cb[ch] : cb[ch]);
    const qi8_rq16_t rq = qi8_rq16_prep1(mant[ch], shc, zy, lo, hi, vmax); /* as qi8_dw_plane3 */
    int32_t ws = 0;
    uint32_t wr3[3];
    for (int a = 0; a < 3; a++) {
        wr3[a] = (uint32_t)(uint8_t)wc[3 * a] | (uint32_t)(uint8_t)wc[3 * a + 1] << 8 |
                 (uint32_t)(uint8_t)wc[3 * a + 2] << 16;
        ws += wc[3 * a] + wc[3 * a + 1] + wc[3 * a + 2];
    }
    const __m512i w0 = _mm512_set1_epi32((int32_t)wr3[0]), w1 = _mm512_set1_epi32((int32_t)wr3[1]),
                  w2 = _mm512_set1_epi32((int32_t)wr3[2]);
    const __m512i cv = _mm512_set1_epi32((int32_t)((uint32_t)cb[ch] - 128u * (uint32_t)ws));
    const __m512i fv = _mm512_set1_epi8((char)f);
    for (int g0 = 0; g0 < ng; g0 += 4, y += 64) { /* four groups: 64 bytes narrowed at once */
        __m512i q[4];
        __mmask64 mo = 0;
        for (int k = 0; k < 4; k++) {
            const int g = g0 + k;
            if (g >= ng) {
                q[k] = _mm512_setzero_si512();
                continue;
            }
            const uint8_t *b = xc + t[g].base;
            const __m512i xl = _mm512_xor_si512(_mm512_maskz_loadu_epi8(t[g].mlo, b), fv);
            const __m512i xh = _mm512_xor_si512(_mm512_maskz_loadu_epi8(t[g].mhi, b + 64), fv);
            __m512i acc = _mm512_dpbusd_epi32(
                cv, _mm512_mask2_permutex2var_epi8(xl, t[g].ix[0], t[g].in[0], xh), w0);
            acc = _mm512_dpbusd_epi32(
                acc, _mm512_mask2_permutex2var_epi8(xl, t[g].ix[1], t[g].in[1], xh), w1);
            acc = _mm512_dpbusd_epi32(
                acc, _mm512_mask2_permutex2var_epi8(xl, t[g].ix[2], t[g].in[2], xh), w2);
            q[k] = qi8_rq16w(acc, &rq);
            mo |= (__mmask64)t[g].mo << (16 * k);
        }
        _mm512_mask_storeu_epi8((void *)y, mo, qi8_narrow64(q[0], q[1], q[2], q[3], &rq));
    }
    return 1;
}
#endif

/* One image x[C][in0][in1][in2] (8-bit, flipped when x_u8; zx flipped) into y + yoff, one
 * input and one output channel per group; w[C][kvol] (int8, flipped when the weight is
 * uint8); cb, zw, mant, sh per channel. */
static void qi8_dw(const void *x, int x_u8, int32_t zx, int64_t C, const int64_t *in,
                   const int64_t *out, const int64_t *k, const int64_t *stride,
                   const int64_t *dil, const int64_t *pad, const int8_t *w, const int32_t *cb,
                   const int32_t *zw, const int32_t *mant, const int32_t *sh, int32_t zy,
                   int32_t lo, int32_t hi, int ymode, void *y, int64_t yoff, int8_t *planes,
                   int64_t nslot) {
    const ptrdiff_t I0 = (ptrdiff_t)in[0], I1 = (ptrdiff_t)in[1], I2 = (ptrdiff_t)in[2];
    const ptrdiff_t O0 = (ptrdiff_t)out[0], O1 = (ptrdiff_t)out[1], O2 = (ptrdiff_t)out[2];
    const ptrdiff_t K0 = (ptrdiff_t)k[0], K1 = (ptrdiff_t)k[1], K2 = (ptrdiff_t)k[2];
    const ptrdiff_t S0 = (ptrdiff_t)stride[0], S1 = (ptrdiff_t)stride[1], S2 = (ptrdiff_t)stride[2];
    const ptrdiff_t D0 = (ptrdiff_t)dil[0], D1 = (ptrdiff_t)dil[1], D2 = (ptrdiff_t)dil[2];
    const ptrdiff_t P0 = (ptrdiff_t)pad[0], P1 = (ptrdiff_t)pad[1], P2 = (ptrdiff_t)pad[2];
    const ptrdiff_t isp = I0 * I1 * I2, osp = O0 * O1 * O2, kvol = K0 * K1 * K2;
    const uint8_t flip = x_u8 ? 0x80 : 0;
    if (planes && K0 == 1 && I0 == 1 && O0 == 1 && !zw) { /* 1-D or 2-D */
        const ptrdiff_t R = (O1 - 1) * S1 + (K1 - 1) * D1 + 1, W = (O2 - 1) * S2 + (K2 - 1) * D2 + 1;
        const ptrdiff_t nc = I2 < W - P2 ? I2 : W - P2;
        int nthr = 1; /* OpenMP: channels shared among up to nslot threads, a plane each */
#ifdef _OPENMP
        nthr = omp_get_max_threads();
        nthr = nthr < (int)nslot ? nthr : (int)nslot;
        if ((double)C * (double)osp * (double)kvol < 2e5)
            nthr = 1;
#else
        (void)nslot;
#endif
        /* the padding: the same bytes for every channel, written once a plane */
        for (int i = 0; i < nthr; i++)
            memset(planes + i * ((R * W + 63) / 64 * 64), (uint8_t)zx ^ QI8_DW_BIAS,
                   (size_t)(R * W));
#if QI8_VNNI && defined(__AVX512VBMI__)
        int ng = 0;
        qi8_dws_t tbl[QI8_DWS_MAX];
        if (K1 == 3 && K2 == 3 && O2 < 16 && ymode != 2)
            ng = qi8_dws_plan(tbl, I1, I2, S1, S2, D1, D2, P1, P2, O1, O2,
                              (uint8_t)((uint8_t)zx ^ QI8_DW_BIAS));
#endif
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthr) if (nthr > 1)
#endif
        for (ptrdiff_t ch = 0; ch < (ptrdiff_t)C; ch++) {
            const uint8_t *xc = (const uint8_t *)x + ch * isp;
            int me = 0;
#ifdef _OPENMP
            me = omp_get_thread_num();
#endif
            const uint8_t f = (uint8_t)(flip ^ QI8_DW_BIAS);
#if QI8_VNNI && defined(__AVX512VBMI__)
            if (ng && qi8_dw_small(xc, f, tbl, ng, w + ch * kvol, ch, cb, mant, sh, zy, lo, hi,
                                   (uint8_t *)y + (ptrdiff_t)yoff + ch * osp))
                continue;
#endif
            int8_t *const plane = planes + me * ((R * W + 63) / 64 * 64);
            for (ptrdiff_t i1 = 0; i1 < I1 && i1 + P1 < R; i1++) {
                uint8_t *d = (uint8_t *)plane + (i1 + P1) * W + P2;
                const uint8_t *sr = xc + i1 * I2;
#if QI8_VNNI
                if (nc > 0) { /* 64 bytes at a time, the tail masked */
                    const __m512i fv = _mm512_set1_epi8((char)f);
                    for (ptrdiff_t i2 = 0; i2 < nc; i2 += 64) {
                        const __mmask64 mk =
                            nc - i2 >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (nc - i2)) - 1;
                        _mm512_mask_storeu_epi8(
                            (void *)(d + i2), mk,
                            _mm512_xor_si512(_mm512_maskz_loadu_epi8(mk, sr + i2), fv));
                    }
                    continue;
                }
#endif
                if (f)
                    for (ptrdiff_t i2 = 0; i2 < nc; i2++)
                        d[i2] = (uint8_t)(sr[i2] ^ f);
                else if (nc > 0)
                    memcpy(d, sr, (size_t)nc);
            }
            const ptrdiff_t at = (ptrdiff_t)yoff + ch * osp;
            if (K1 == 3 && K2 == 3 && D1 == 1 && D2 == 1)
                qi8_dw_plane3(plane, W, w + ch * kvol, S1, S2, O1, O2, ch, cb, mant, sh, zy, lo,
                              hi, ymode, y, at);
            else
                qi8_dw_plane(plane, W, w + ch * kvol, K1, K2, D1, D2, S1, S2, O1, O2, ch, cb,
                             mant, sh, zy, lo, hi, ymode, y, at);
        }
        return;
    }
    /* outputs o2 in [lo2, hi2) keep taps inside along the last axis */
    ptrdiff_t lo2 = (P2 + S2 - 1) / S2, hi2 = O2;
    while (hi2 > lo2 && (hi2 - 1) * S2 - P2 + (K2 - 1) * D2 >= I2)
        hi2--;
    for (ptrdiff_t ch = 0; ch < (ptrdiff_t)C; ch++) {
        const uint8_t *xc = (const uint8_t *)x + ch * isp;
        const int8_t *wc = w + ch * kvol;
        ptrdiff_t p = 0;
        for (ptrdiff_t o0 = 0; o0 < O0; o0++)
            for (ptrdiff_t o1 = 0; o1 < O1; o1++) {
                const ptrdiff_t b0 = o0 * S0 - P0, b1 = o1 * S1 - P1;
                const int rows = b0 >= 0 && b0 + (K0 - 1) * D0 < I0 && b1 >= 0 &&
                                 b1 + (K1 - 1) * D1 < I1 && !zw;
                for (ptrdiff_t o2 = 0; o2 < O2; o2++, p++) {
                    const ptrdiff_t b2 = o2 * S2 - P2;
                    uint32_t s = 0, t = 0;
                    const int8_t *wt = wc;
                    if (rows && o2 >= lo2 && o2 < hi2) {
                        for (ptrdiff_t a = 0; a < K0; a++)
                            for (ptrdiff_t b = 0; b < K1; b++, wt += K2) {
                                const uint8_t *xr = xc + ((b0 + a * D0) * I1 + b1 + b * D1) * I2 + b2;
                                for (ptrdiff_t c = 0; c < K2; c++, xr += D2)
                                    s += (uint32_t)((int8_t)(*xr ^ flip) * wt[c]);
                            }
                    } else {
                        for (ptrdiff_t a = 0; a < K0; a++)
                            for (ptrdiff_t b = 0; b < K1; b++, wt += K2) {
                                const ptrdiff_t i0 = b0 + a * D0, i1 = b1 + b * D1;
                                const int row = i0 >= 0 && i0 < I0 && i1 >= 0 && i1 < I1;
                                for (ptrdiff_t c = 0; c < K2; c++) {
                                    const ptrdiff_t i2 = b2 + c * D2;
                                    const int32_t v =
                                        row && i2 >= 0 && i2 < I2
                                            ? (int8_t)(xc[(i0 * I1 + i1) * I2 + i2] ^ flip)
                                            : zx;
                                    s += (uint32_t)(v * wt[c]);
                                    t += (uint32_t)v;
                                }
                            }
                    }
                    const int32_t ts = (int32_t)t;
                    qi8_put(s, ch, 0, cb, zw, &ts, mant, sh, zy, lo, hi, ymode, y,
                            (ptrdiff_t)yoff + ch * osp + p);
                }
            }
    }
}
