/* quant_requant.c - requantizes int32 sums acc[rows][cols] (plus bias[r * br + c * bc] when
 * bias is not NULL) to 8 bits: y = clamp(round_half_to_even(v * r) + zy, lo, hi) with the
 * multiplier r = s1 * s2 / sy in float (s1 = s1p[r * s1r + c * s1c], s2 likewise; strides 0
 * broadcast), as the ONNX reference computes it; y is int8 when y_s8 else uint8.  The product
 * is exact in fixed point (qi8_mult: r as a 31-bit mantissa and a shift; qi8_rq; both in
 * templates/quant_i8.c): no double.  lo..hi is the type's range, or narrower for a Relu or Clip
 * folded in by the lowering (compiler/lower.c: quantize is monotone, so Q(clip(v)) =
 * clamp(Q(v), Q(lo), Q(hi))).  A NaN multiplier (a zero or NaN scale) gives 0 (clamped to
 * lo..hi), as the saturating conversions of templates/int_sat.c do.  The integer products of
 * quant.c with run-time weights or parameters use it; the int8 engine folds the same
 * multipliers at compile time (compiler/ops/quant.c qmult).  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8.c"
#endif

static void quant_requant(int64_t rows, int64_t cols, const int32_t *acc, const int32_t *bias,
                          int64_t br, int64_t bc, const float *s1p, int64_t s1r, int64_t s1c,
                          const float *s2p, int64_t s2r, int64_t s2c, float sy, int32_t zy,
                          int y_s8, int32_t lo, int32_t hi, void *y) {
    int8_t *ys = (int8_t *)y;
    uint8_t *yu = (uint8_t *)y;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            const float mult = s1p[r * s1r + c * s1c] * s2p[r * s2r + c * s2c] / sy;
            int32_t mant, sh;
            qi8_mult(mult, &mant, &sh);
            int32_t v = acc[r * cols + c];
            if (bias != 0)
                v = (int32_t)((uint32_t)v + (uint32_t)bias[r * br + c * bc]);
            const int32_t q = qi8_rq(v, mant, sh, zy, lo, hi);
            if (y_s8)
                ys[r * cols + c] = (int8_t)q;
            else
                yu[r * cols + c] = (uint8_t)q;
        }
}
