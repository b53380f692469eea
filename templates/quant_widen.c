/* quant_widen.c - widens an 8-bit matrix (rows x cols, row-major, int8 when x_s8 else uint8)
 * to int32 with its zero point subtracted: out[r][c] = x[r][c] - zp[r * zrs + c * zcs] (zp is
 * int8 when z_s8 else uint8; NULL means 0; strides 0 broadcast it).  Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void quant_widen(int64_t rows, int64_t cols, const void *x, int x_s8, const void *zp,
                        int z_s8, int64_t zrs, int64_t zcs, int32_t *out) {
    const int8_t *xs = (const int8_t *)x;
    const uint8_t *xu = (const uint8_t *)x;
    const int8_t *zs = (const int8_t *)zp;
    const uint8_t *zu = (const uint8_t *)zp;
    for (int64_t r = 0; r < rows; r++) {
        int32_t *o = out + r * cols;
        const int64_t base = r * cols;
        if (zp == 0 || zcs == 0) {
            int32_t z = 0;
            if (zp != 0)
                z = z_s8 ? (int32_t)zs[r * zrs] : (int32_t)zu[r * zrs];
            if (x_s8)
                for (int64_t c = 0; c < cols; c++)
                    o[c] = (int32_t)xs[base + c] - z;
            else
                for (int64_t c = 0; c < cols; c++)
                    o[c] = (int32_t)xu[base + c] - z;
        } else {
            for (int64_t c = 0; c < cols; c++) {
                int32_t z = z_s8 ? (int32_t)zs[r * zrs + c * zcs] : (int32_t)zu[r * zrs + c * zcs];
                o[c] = (x_s8 ? (int32_t)xs[base + c] : (int32_t)xu[base + c]) - z;
            }
        }
    }
}
