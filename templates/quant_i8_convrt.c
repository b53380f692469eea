/* quant_i8_convrt.c - a convolution whose weight is a run-time tensor (a correlation's
 * template, a backend test's inputs) by the int8 engine (templates/quant_i8.c): the weight is
 * packed into the engine's layout (blocks of 16 outputs) and the per-output constants computed
 * on every run, then qi8_conv per image.  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8_conv.c"
#endif

/* x: N images of cisp elements (8-bit, flipped when x_u8; zx its flipped zero point); w
 * [M][cg][kvol] (M = group mg, 8-bit, flipped when w_u8), zw its zero points (raw, stride zws,
 * NULL: 0), bias (NULL: 0); the multipliers sx * sw[m * sws] / sy (ymode 2: none).  Scratch:
 * wp (group * mgp * Kp bytes, mgp = mg rounded up to 16), tab (5 M int32), then the slots of
 * qi8_conv. */
static void qi8_conv_rt(const void *x, int x_u8, int32_t zx, int64_t N, int64_t cisp,
                        int64_t group, int64_t cg, int64_t mg, const int64_t *in,
                        const int64_t *out, const int64_t *k, const int64_t *stride,
                        const int64_t *dil, const int64_t *pad, const void *w, int w_u8,
                        const void *zw, int64_t zws, const int32_t *bias, int64_t Kp, float sx,
                        const float *sw, int64_t sws, float sy, int32_t zy, int32_t lo,
                        int32_t hi, int ymode, void *y, int64_t mosp, int8_t *wp, int32_t *tab,
                        void *slots, int64_t nslot, int64_t slot) {
    const ptrdiff_t G = (ptrdiff_t)group, MG = (ptrdiff_t)mg, KP = (ptrdiff_t)Kp;
    const ptrdiff_t K = (ptrdiff_t)(cg * k[0] * k[1] * k[2]), M = G * MG;
    const ptrdiff_t mgp = (MG + 15) / 16 * 16;
    const uint8_t wf = w_u8 ? 0x80 : 0;
    int32_t *cb = tab, *cbu = tab + M, *zt = tab + 2 * M, *mant = tab + 3 * M, *sh = tab + 4 * M;
    int anyz = 0;
    memset(wp, 0, (size_t)(G * mgp * KP));
    for (ptrdiff_t m = 0; m < M; m++) {
        const ptrdiff_t g = m / MG, i = m % MG;
        const uint8_t *wm = (const uint8_t *)w + m * K;
        int8_t *d = wp + g * mgp * KP + (i / 16) * 16 * KP + (i % 16) * 4;
        uint32_t sum = 0;
        for (ptrdiff_t kk = 0; kk < K; kk++) {
            const int8_t v = (int8_t)(wm[kk] ^ wf);
            d[(kk / 4) * 64 + kk % 4] = v;
            sum += (uint32_t)(int32_t)v;
        }
        const int32_t z = !zw ? (w_u8 ? -128 : 0)
                              : w_u8 ? (int32_t)((const uint8_t *)zw)[m * zws] - 128
                                     : (int32_t)((const int8_t *)zw)[m * zws];
        zt[m] = z;
        anyz |= z != 0;
        cb[m] = (int32_t)((bias ? (uint32_t)bias[m] : 0u) - (uint32_t)zx * sum +
                          (uint32_t)K * (uint32_t)zx * (uint32_t)z);
        cbu[m] = (int32_t)((uint32_t)cb[m] - 128u * sum);
        if (ymode != 2)
            qi8_mult(sx * sw[m * sws] / sy, &mant[m], &sh[m]);
    }
    for (ptrdiff_t nb = 0; nb < (ptrdiff_t)N; nb++)
        qi8_conv((const uint8_t *)x + nb * cisp, x_u8, zx, group, cg, mg, in, out, k, stride,
                 dil, pad, Kp, 16, wp, cb, cbu, anyz ? zt : 0, mant, sh, zy, lo, hi, ymode, y,
                 nb * mosp, slots, nslot, slot);
}
