/* quant_i8_rowsrt.c - a product whose right operand is a run-time tensor (a Transformer's
 * attention: Q K^T, P V) by the int8 engine (templates/quant_i8.c): B packed 16 columns at a
 * time, with their constants computed at run time, then qi8_rows.  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8_rows.c"
#endif

/* Rows a[R][K] times a run-time right operand b[K][N] (8-bit, flipped when b_u8), 16 columns at a
 * time: each block packed into wblk (16 Kp bytes) with its constants (tab: cb, cbu, zw, mant,
 * sh, 16 each) computed here: zb per column (stride zbs, raw, NULL: 0), the multipliers
 * sa * sb[n] / sy (sb stride sbs; ymode 2: no scales), za the flipped zero point of A. */
static void qi8_rows_rt(int64_t R, int64_t K, const void *a, int a_u8, int32_t za, int64_t N,
                        const void *b, int b_u8, const void *zb, int64_t zbs, float sa,
                        const float *sb, int64_t sbs, float sy, int32_t zy, int32_t lo,
                        int32_t hi, int ymode, void *y, int8_t *wblk, int32_t *tab,
                        qi8_col *col, int32_t *colsum) {
    const ptrdiff_t KK = (ptrdiff_t)K, NN = (ptrdiff_t)N, KP = (KK + 15) / 16 * 16;
    const uint8_t bf = b_u8 ? 0x80 : 0;
    int32_t *cb = tab, *cbu = tab + 16, *zw = tab + 32, *mant = tab + 48, *sh = tab + 64;
    for (ptrdiff_t n0 = 0; n0 < NN; n0 += 16) {
        const ptrdiff_t nb = NN - n0 < 16 ? NN - n0 : 16;
        int anyz = 0;
        memset(wblk, 0, (size_t)(16 * KP));
        for (ptrdiff_t j = 0; j < nb; j++) {
            const uint8_t *bc = (const uint8_t *)b + n0 + j;
            uint32_t sum = 0;
            for (ptrdiff_t k = 0; k < KK; k++) {
                const int8_t v = (int8_t)(bc[k * NN] ^ bf);
                wblk[(k / 4) * 64 + j * 4 + k % 4] = v;
                sum += (uint32_t)(int32_t)v;
            }
            const int32_t z = !zb ? (b_u8 ? -128 : 0)
                                  : b_u8 ? (int32_t)((const uint8_t *)zb)[(n0 + j) * zbs] - 128
                                         : (int32_t)((const int8_t *)zb)[(n0 + j) * zbs];
            zw[j] = z;
            anyz |= z != 0;
            cb[j] = (int32_t)((uint32_t)K * (uint32_t)za * (uint32_t)z - (uint32_t)za * sum);
            cbu[j] = (int32_t)((uint32_t)cb[j] - 128u * sum);
            if (ymode != 2)
                qi8_mult(sa * sb[(n0 + j) * sbs] / sy, &mant[j], &sh[j]);
        }
        qi8_rows(R, K, a, a_u8, nb, KP, 16, wblk, cb, cbu, anyz ? zw : 0, mant, sh, zy, lo, hi,
                 ymode, (char *)y + (ymode == 2 ? 4 : 1) * n0, N, col, colsum);
    }
}
