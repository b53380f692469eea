/* test_templates_conv.c — the direct convolution of --memory-first (templates/conv_direct.c)
 * as C, against a naive loop in double: kernel sizes 1x1 to 7x7 and 10x4, strides 1 to 3,
 * dilations, symmetric and asymmetric pads wider than the kernel reach, images narrower than
 * the kernel, channel counts that leave a partial block of 4 and positions past the blocks of
 * 6, bias, residual and every activation; the weight reordered by the compiler's own
 * gp_row_blocks (compiler/ops/gemm_plan.h).  Built twice: here with the target's vectors
 * (SSE on x86), and by test_templates_conv_plain.c with O2C_NO_VECTOR (the scalar register
 * blocks of Cortex-M4 and tcc). */
#include "onnx2c.h"
#include "../../compiler/ops/gemm_plan.h"
#include "tu_kernel.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#ifndef CONV_SUITE
#define CONV_SUITE conv_direct_vector
#endif
#define T float
#include "../../templates/conv_direct.c"

typedef struct Geo {
    int64_t C, H, W, M, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
} Geo;

/* One convolution checked; epi: 0 none, 1 bias, 2 bias + residual. */
static void check(Geo g, int epi, int act) {
    const int64_t OH = (g.H + g.pt + g.pb - g.dh * (g.KH - 1) - 1) / g.sh + 1;
    const int64_t OW = (g.W + g.pl + g.pr - g.dw * (g.KW - 1) - 1) / g.sw + 1;
    const int64_t K = g.C * g.KH * g.KW, osp = OH * OW;
    float *x = tu_rnd(g.C * g.H * g.W, 1), *w = tu_rnd(g.M * K, 2), *b = tu_rnd(g.M, 3);
    float *r = tu_rnd(g.M * osp, 4), *y = tu_rnd(g.M * osp + 1, 5);
    float *wr = malloc(sizeof(float) * (size_t)(g.M * K + 1));
    const float p0 = act == GEMM_ACT_CLIP ? -0.5f : 0.1f, p1 = act == GEMM_ACT_CLIP ? 0.75f : 0.5f;
    y[g.M * osp] = 12345.0f; /* a sentinel past the output */
    gp_row_blocks((const unsigned char *)w, sizeof(float), g.M, K, (unsigned char *)wr);
    convd_T(x, wr, epi ? b : NULL, epi == 2 ? r : NULL, y, g.C, g.H, g.W, g.M, OH, OW, g.KH, g.KW,
            g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, act, p0, p1);
    for (int64_t m = 0; m < g.M; m++)
        for (int64_t oy = 0; oy < OH; oy++)
            for (int64_t ox = 0; ox < OW; ox++) {
                double acc = epi ? b[m] : 0;
                for (int64_t c = 0; c < g.C; c++)
                    for (int64_t ky = 0; ky < g.KH; ky++)
                        for (int64_t kx = 0; kx < g.KW; kx++) {
                            int64_t iy = oy * g.sh + ky * g.dh - g.pt, ix = ox * g.sw + kx * g.dw - g.pl;
                            if (iy >= 0 && iy < g.H && ix >= 0 && ix < g.W)
                                acc += (double)w[((m * g.C + c) * g.KH + ky) * g.KW + kx] *
                                       x[(c * g.H + iy) * g.W + ix];
                        }
                if (epi == 2)
                    acc += r[(m * OH + oy) * OW + ox];
                acc = tu_act(act, acc, p0, p1);
                float got = y[(m * OH + oy) * OW + ox];
                cr_assert(fabs(got - acc) <= 1e-5 * (1 + fabs(acc)) * (1 + sqrt((double)K)),
                          "C=%lld H=%lld W=%lld M=%lld k=%lldx%lld s=%lld,%lld d=%lld,%lld "
                          "pads=%lld,%lld,%lld,%lld epi=%d act=%d: y[%lld][%lld][%lld] = %g, want %g",
                          (long long)g.C, (long long)g.H, (long long)g.W, (long long)g.M,
                          (long long)g.KH, (long long)g.KW, (long long)g.sh, (long long)g.sw,
                          (long long)g.dh, (long long)g.dw, (long long)g.pt, (long long)g.pl,
                          (long long)g.pb, (long long)g.pr, epi, act, (long long)m,
                          (long long)oy, (long long)ox, got, acc);
            }
    cr_assert(y[g.M * osp] == 12345.0f, "wrote past the output");
    free(x), free(w), free(b), free(r), free(y), free(wr);
}

static const Geo geos[] = {
    /* C  H   W   M  KH KW sh sw dh dw pt pl pb pr */
    {3, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    {16, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {5, 17, 13, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   {4, 7, 20, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    {8, 5, 25, 12, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},   {7, 9, 9, 9, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},
    {1, 49, 10, 8, 10, 4, 2, 2, 1, 1, 5, 1, 5, 1},  {3, 12, 15, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1},
    {2, 11, 14, 7, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},   {3, 2, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 1, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     {3, 6, 5, 3, 5, 5, 1, 2, 1, 1, 4, 0, 4, 3},
    {4, 16, 19, 4, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},   {6, 9, 30, 10, 2, 3, 1, 2, 1, 1, 0, 2, 1, 0},
    {2, 4, 40, 1, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1},    {3, 3, 3, 4, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3},
    {5, 10, 12, 4, 3, 1, 2, 1, 1, 1, 1, 0, 1, 0},   {32, 4, 4, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    {3, 10, 10, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},   {2, 6, 13, 5, 3, 3, 1, 3, 2, 1, 2, 0, 1, 2},
    /* narrow images whose interior rows go down the columns (< 6 interior columns, >= 6 rows) */
    {3, 20, 4, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    {2, 30, 7, 5, 5, 3, 1, 1, 2, 1, 2, 1, 2, 1},
    {4, 8, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     {1, 13, 9, 4, 2, 5, 2, 1, 1, 1, 0, 0, 1, 2},
};

Test(CONV_SUITE, geometries) {
    for (size_t i = 0; i < sizeof geos / sizeof geos[0]; i++)
        check(geos[i], 1, 0);
}

Test(CONV_SUITE, epilogues) {
    for (size_t i = 0; i < sizeof geos / sizeof geos[0]; i++)
        for (int act = 0; act <= GEMM_ACT_HARDSWISH; act++)
            check(geos[i], (int)(i + act) % 3, act);
}
