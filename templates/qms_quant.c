/* qms_quant.c - QuantizeLinear of one float value into the 8-bit type T, as the QuantizeLinear
 * emitter computes it: saturate(nearbyintf(v / s) + z) in float (round half to even in the
 * default rounding mode; NaN gives 0, templates/int_satf.c).  Used by the com.microsoft QLinear
 * ops (compiler/ops/quant_ms.c), which are DequantizeLinear -> float op -> QuantizeLinear in
 * float32. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "int_satf.c"
#endif

static inline T qms_quant_T(float v, float s, float z) {
    return o2c_satf_T(nearbyintf(v / s) + z);
}

/* q clamped to [lo, hi] (the range of a folded Relu or Clip, within T's).  Emitted with
 * qms_quant_T whether or not a node folds a range: marked unused for clang's -Wunused-function
 * (it warns on an unused static inline function of the main file; gcc does not). */
#if defined(__GNUC__)
__attribute__((unused))
#endif
static inline T qms_clamp_T(T q, int lo, int hi) {
    return (T)((int)q < lo ? lo : (int)q > hi ? hi : (int)q);
}
