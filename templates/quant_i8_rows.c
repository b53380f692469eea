/* quant_i8_rows.c - a product with a constant right operand by the int8 engine
 * (templates/quant_i8.c): QI8_P rows of A copied into columns at a time (qi8_finish), then qi8_tile.
 * Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8_gemm.c"
#endif

/* Rows a[R][K] (8-bit, flipped when a_u8; A's zero point is folded into cb) times the packed
 * weight (N outputs) into y[r ldy + n].  Scratch: col (QI8_P * Kp columns), colsum (QI8_P). */
static void qi8_rows(int64_t R, int64_t K, const void *a, int a_u8, int64_t N, int64_t Kp,
                     int64_t mb, const int8_t *wp, const int32_t *cb, const int32_t *cbu,
                     const int32_t *zw, const int32_t *mant,
                     const int32_t *sh, int32_t zy, int32_t lo, int32_t hi, int ymode, void *y,
                     int64_t ldy, qi8_col *col, int32_t *colsum) {
    const ptrdiff_t KK = (ptrdiff_t)K, KP = (ptrdiff_t)Kp, NN = (ptrdiff_t)N, LD = (ptrdiff_t)ldy;
    const uint8_t flip = a_u8 ? 0x80 : 0;
    for (ptrdiff_t r0 = 0; r0 < (ptrdiff_t)R; r0 += QI8_P) {
        const ptrdiff_t np = (ptrdiff_t)R - r0 < QI8_P ? (ptrdiff_t)R - r0 : QI8_P;
        uint8_t *const st = qi8_stage(col, np, KP);
        for (ptrdiff_t pp = 0; pp < np; pp++) {
            memcpy(st + pp * KP, (const uint8_t *)a + (r0 + pp) * KK, (size_t)KK);
            for (ptrdiff_t kk = KK; kk < KP; kk++)
                st[pp * KP + kk] = flip; /* 0 once flipped */
        }
        qi8_finish(np, KP, col, flip);
        if (zw)
            qi8_colsum(np, KK, KP, col, colsum);
        qi8_tile(np, NN, KP, (ptrdiff_t)mb, wp, col, colsum, cb, cbu, zw, mant, sh, zy, lo, hi, ymode,
                 (char *)y + (ymode == 2 ? 4 : 1) * r0 * LD, 1, LD);
    }
}

