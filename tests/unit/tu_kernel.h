/* tu_kernel.h — helpers of the kernel tests (test_templates_*.c): deterministic operands and
 * the activations of templates/gemm_act.c in double. */
#ifndef TU_KERNEL_H
#define TU_KERNEL_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* n floats in [-1, 1], the same for the same seed */
static inline float *tu_rnd(int64_t n, unsigned seed) {
    float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
    }
    return p;
}

/* activation code act (GEMM_ACT_*: 1 ReLU, 2 Clip, 3 LeakyRelu, 4 HardSigmoid, 5 HardSwish,
 * both with alpha p0 and beta p1) */
static inline double tu_act(int act, double v, double p0, double p1) {
    switch (act) {
    case 1: return v < 0 ? 0 : v;
    case 2: return v < p0 ? p0 : v > p1 ? p1 : v;
    case 3: return v < 0 ? v * p0 : v;
    case 4: return fmax(0, fmin(1, p0 * v + p1));
    case 5: return v * fmax(0, fmin(1, p0 * v + p1)); /* ONNX HardSwish: p0 = 1/6, p1 = 1/2 */
    default: return v;
    }
}
#endif
