/* quant_requant.c - requantizes int32 sums acc[rows][cols] (plus bias[r * br + c * bc] when
 * bias is not NULL) to 8 bits: y = clamp(rint(v * (s1 * s2 / sy)) + zy, lo, hi), s1 =
 * s1p[r * s1r + c * s1c], s2 likewise (strides 0 broadcast), the multiplier in float and the
 * product in double (as the ONNX reference computes it), rounding half to even; y is int8 when
 * y_s8 else uint8.  lo..hi is the type's range, or narrower for a Relu or Clip folded in by
 * the lowering (compiler/lower.c: quantize is monotone, so Q(clip(v)) = clamp(Q(v), Q(lo),
 * Q(hi))).  A NaN (a zero or NaN scale) gives 0, as the saturating conversions of
 * templates/int_sat.c do (clamped to lo..hi).  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void quant_requant(int64_t rows, int64_t cols, const int32_t *acc, const int32_t *bias,
                          int64_t br, int64_t bc, const float *s1p, int64_t s1r, int64_t s1c,
                          const float *s2p, int64_t s2r, int64_t s2c, float sy, int32_t zy,
                          int y_s8, double lo, double hi, void *y) {
    const double nan_q = 0.0 < lo ? lo : (0.0 > hi ? hi : 0.0);
    int8_t *ys = (int8_t *)y;
    uint8_t *yu = (uint8_t *)y;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            const float mult = s1p[r * s1r + c * s1c] * s2p[r * s2r + c * s2c] / sy;
            int32_t v = acc[r * cols + c];
            if (bias != 0)
                v = (int32_t)((uint32_t)v + (uint32_t)bias[r * br + c * bc]);
            double q = rint((double)v * (double)mult) + (double)zy;
            q = q != q ? nan_q : q < lo ? lo : (q > hi ? hi : q); /* NaN (sy = 0): 0 */
            if (y_s8)
                ys[r * cols + c] = (int8_t)q;
            else
                yu[r * cols + c] = (uint8_t)q;
        }
}
