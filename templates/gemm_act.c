/* gemm_act.c - the activations fused into epilogues: of the GEMM engine (templates/gemm.c)
 * and of the direct depthwise convolution (templates/conv_dw.c).  The codes are the compiler's
 * (gp_epi_attrs in compiler/ops/gemm_plan.h); p0, p1 are their parameters. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

/* Activations the epilogue applies (p0, p1 are their parameters). */
#define GEMM_ACT_NONE 0
#define GEMM_ACT_RELU 1
#define GEMM_ACT_CLIP 2        /* min p0, max p1 */
#define GEMM_ACT_LEAKY 3       /* alpha p0 */
#define GEMM_ACT_HARDSIGMOID 4 /* max(0, min(1, p0 * x + p1)) */
#define GEMM_ACT_HARDSWISH 5   /* x * max(0, min(1, p0 * x + p1)) (ONNX: p0 = 1/6, p1 = 1/2) */

/* The activation `act` on n consecutive elements, in place.  zero is a variable, not the
 * constant (T)0: the engine is instantiated for unsigned types too (integer products, which
 * never take an activation), where gcc's -Wtype-limits rejects `x < 0` as always false. */
static inline void gemm_act_T(T *x, int64_t n, int act, T p0, T p1) {
    const T zero = (T)0;
    int64_t j;
    switch (act) {
    case GEMM_ACT_RELU:
        for (j = 0; j < n; j++)
            x[j] = x[j] < zero ? zero : x[j];
        break;
    case GEMM_ACT_CLIP:
        for (j = 0; j < n; j++) {
            T v = x[j] < p0 ? p0 : x[j];
            x[j] = v > p1 ? p1 : v;
        }
        break;
    case GEMM_ACT_LEAKY:
        for (j = 0; j < n; j++)
            x[j] = x[j] < zero ? x[j] * p0 : x[j];
        break;
    case GEMM_ACT_HARDSIGMOID:
        for (j = 0; j < n; j++) {
            T v = p0 * x[j] + p1;
            v = v > (T)1 ? (T)1 : v;
            x[j] = v < zero ? zero : v;
        }
        break;
    case GEMM_ACT_HARDSWISH:
        for (j = 0; j < n; j++) {
            T v = p0 * x[j] + p1;
            v = v > (T)1 ? (T)1 : v;
            v = v < zero ? zero : v;
            x[j] = x[j] * v;
        }
        break;
    default:
        break;
    }
}

