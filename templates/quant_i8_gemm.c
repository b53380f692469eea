/* quant_i8_gemm.c - the products of the int8 engine (templates/quant_i8.c, whose header
 * describes the packed weight and the columns): the staging and finishing of a tile of
 * columns, the 2 x 2 dot products (SMLAD on Arm DSP, VMLADAVA on Helium, plain C elsewhere)
 * and the tile loop with its requantization.  Untyped template.
 * @requires quant_i8 */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8.c"
#endif

#if QI8_DSP
/* bytes 1 and 3 of x sign-extended to a 16-bit pair (SXTB16 with its rotation) */
static inline int16x2_t qi8_sxtb16_r8(uint32_t x) {
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}
#endif

/* s[0..3] = the sums of outputs (w, w + 16) x columns (x0, x1) over kc runs of 16. */
O2C_HOT static inline void qi8_dot22(ptrdiff_t kc, const int8_t *w, const qi8_col *x0,
                                     const qi8_col *x1, uint32_t *s) {
#if QI8_MVE
    int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
    for (ptrdiff_t c = 0; c < kc; c++) {
        const int8x16_t a0 = vld1q_s8(w), a1 = vld1q_s8(w + 16);
        const int8x16_t b0 = vld1q_s8(x0), b1 = vld1q_s8(x1);
        s00 = vmladavaq_s8(s00, a0, b0);
        s01 = vmladavaq_s8(s01, a0, b1);
        s10 = vmladavaq_s8(s10, a1, b0);
        s11 = vmladavaq_s8(s11, a1, b1);
        w += 32, x0 += 16, x1 += 16;
    }
#elif QI8_DSP
    int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
#define QI8_STEP(o)                                                                           \
    do {                                                                                    \
        uint32_t wa, wb, xa0, xa1, xb0, xb1;                                                \
        memcpy(&wa, w + (o), 4);                                                            \
        memcpy(&wb, w + 16 + (o), 4);                                                       \
        memcpy(&xa0, x0 + (o), 4);                                                          \
        memcpy(&xa1, x0 + (o) + 2, 4);                                                      \
        memcpy(&xb0, x1 + (o), 4);                                                          \
        memcpy(&xb1, x1 + (o) + 2, 4);                                                      \
        const int16x2_t wa0 = __sxtb16(wa), wa1 = qi8_sxtb16_r8(wa);                        \
        const int16x2_t wb0 = __sxtb16(wb), wb1 = qi8_sxtb16_r8(wb);                        \
        s00 = __smlad(wa0, (int16x2_t)xa0, __smlad(wa1, (int16x2_t)xa1, s00));              \
        s01 = __smlad(wa0, (int16x2_t)xb0, __smlad(wa1, (int16x2_t)xb1, s01));              \
        s10 = __smlad(wb0, (int16x2_t)xa0, __smlad(wb1, (int16x2_t)xa1, s10));              \
        s11 = __smlad(wb0, (int16x2_t)xb0, __smlad(wb1, (int16x2_t)xb1, s11));              \
    } while (0)
    for (ptrdiff_t c = 0; c < kc; c++) {
        QI8_STEP(0);
        QI8_STEP(4);
        QI8_STEP(8);
        QI8_STEP(12);
        w += 32, x0 += 16, x1 += 16;
    }
#undef QI8_STEP
#else
    uint32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
    for (ptrdiff_t c = 0; c < kc; c++) {
        for (int j = 0; j < 16; j++) {
            const int32_t a0 = w[j], a1 = w[16 + j], b0 = x0[j], b1 = x1[j];
            s00 += (uint32_t)(a0 * b0);
            s01 += (uint32_t)(a0 * b1);
            s10 += (uint32_t)(a1 * b0);
            s11 += (uint32_t)(a1 * b1);
        }
        w += 32, x0 += 16, x1 += 16;
    }
#endif
    s[0] = (uint32_t)s00, s[1] = (uint32_t)s01, s[2] = (uint32_t)s10, s[3] = (uint32_t)s11;
}

/* Outputs m < M of columns p < np (np <= QI8_P): y[m ym + p yp]. */
static inline void qi8_tile(ptrdiff_t np, ptrdiff_t M, ptrdiff_t Kp, const int8_t *wp,
                            const qi8_col *col, const int32_t *colsum, const int32_t *cb,
                            const int32_t *zw, const int32_t *mant, const int32_t *sh,
                            int32_t zy, int32_t lo, int32_t hi, int ymode, void *y,
                            ptrdiff_t ym, ptrdiff_t yp) {
    uint32_t s[4];
    for (ptrdiff_t m = 0; m < M; m += 2) {
        const int8_t *w = wp + m * Kp;
        for (ptrdiff_t p = 0; p < np; p += 2) {
            const qi8_col *x0 = col + p * Kp, *x1 = p + 1 < np ? x0 + Kp : x0;
            qi8_dot22(Kp / 16, w, x0, x1, s);
            for (int i = 0; i < 2 && m + i < M; i++)
                for (int j = 0; j < 2 && p + j < np; j++)
                    qi8_put(s[i * 2 + j], m + i, p + j, cb, zw, colsum, mant, sh, zy, lo, hi,
                            ymode, y, (m + i) * ym + (p + j) * yp);
        }
    }
}

/* The staging area of a tile's columns (np x Kp raw bytes): on DSP the second half of the
 * int16 columns (qi8_finish converts it in place, each word read before its two are written,
 * which never overtakes the reading), else the columns themselves. */
static inline uint8_t *qi8_stage(qi8_col *col, ptrdiff_t Kp) {
#if QI8_DSP
    return (uint8_t *)(void *)col + QI8_P * Kp;
#else
    (void)Kp;
    return (uint8_t *)(void *)col;
#endif
}

/* Turns the staged raw bytes of np columns into the columns: the sign bits flipped (flip:
 * 0x80 for uint8 data), and on DSP widened and reordered. */
static inline void qi8_finish(ptrdiff_t np, ptrdiff_t Kp, qi8_col *col, uint8_t flip) {
    const ptrdiff_t words = np * Kp / 4;
    const uint32_t fw = flip ? 0x80808080u : 0u;
    uint8_t *st = qi8_stage(col, Kp);
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
    if (fw)
        for (ptrdiff_t i = 0; i < words; i++) {
            uint32_t v;
            memcpy(&v, st + 4 * i, 4);
            v ^= fw;
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
        colsum[p] = (int32_t)t;
    }
    (void)K;
}
