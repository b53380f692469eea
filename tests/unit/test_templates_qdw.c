/* test_templates_qdw.c — the int8 depthwise convolution (templates/quant_i8_dw.c) as C, against
 * a direct loop over the ONNX integer definition requantized by qi8_rq: random 2-D shapes with
 * kernels 1x1 to 5x5 (3x3 the most: its register and VBMI paths), strides and dilations 1 to 3,
 * pads, planes from 1x1 to 40x70 (rows narrower than 16 outputs: the small-plane path, whose
 * windows span rows), int8 and uint8 data and outputs, a fused clamp, a channel whose
 * multiplier saturates (the scalar epilogue), one and two plane slots, and bytes past the
 * output untouched.  Built with AVX-512 VNNI and VBMI flags on x86 (tests/CMakeLists.txt; the
 * vector paths run only on a CPU with them, the plain C otherwise). */
#include "../../templates/o2c_template.h"
#include "../../templates/quant_i8_dw.c"
#include <criterion/criterion.h>
#include <stdlib.h>

static uint32_t rs = 1;
static uint32_t rnd(void) {
    rs = rs * 1664525u + 1013904223u;
    return rs >> 8;
}

static int ok_cpu(void) {
#if QI8_VNNI && defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
#else
    return 1;
#endif
}

/* One random depthwise convolution checked; 0 when the shape had no output (drawn again). */
static int one(int tc) {
    int C = 1 + rnd() % 9, I1 = 1 + rnd() % 16, I2 = 1 + rnd() % 16;
    int K1 = 3, K2 = 3, S1 = 1 + rnd() % 2, S2 = 1 + rnd() % 2, D1 = 1, D2 = 1;
    int P1 = rnd() % 2, P2 = rnd() % 2;
    if (tc % 4 == 1) /* any kernel, stride and dilation */
        K1 = 1 + rnd() % 5, K2 = 1 + rnd() % 5, S1 = 1 + rnd() % 3, S2 = 1 + rnd() % 3,
        D1 = 1 + rnd() % 3, D2 = 1 + rnd() % 3, P1 = rnd() % 3, P2 = rnd() % 3;
    if (tc % 4 == 2) /* wide rows: the row paths */
        I1 = 1 + rnd() % 40, I2 = 16 + rnd() % 55;
    const int u8 = rnd() % 2, yu8 = rnd() % 2, nslot = 1 + (int)(rnd() % 2);
    const int span1 = (K1 - 1) * D1 + 1, span2 = (K2 - 1) * D2 + 1;
    if (I1 + 2 * P1 < span1 || I2 + 2 * P2 < span2)
        return 0;
    const int O1 = (I1 + 2 * P1 - span1) / S1 + 1, O2 = (I2 + 2 * P2 - span2) / S2 + 1;
    const int NT = K1 * K2, osp = O1 * O2, osz = C * osp;
    uint8_t *x = malloc((size_t)(C * I1 * I2));
    int8_t *w = malloc((size_t)(C * NT));
    int32_t *cb = malloc(4 * (size_t)C), *mant = malloc(4 * (size_t)C);
    int32_t *sh = malloc(4 * (size_t)C), *bias = malloc(4 * (size_t)C);
    uint8_t *y = malloc((size_t)osz + 16), *yr = malloc((size_t)osz);
    for (int i = 0; i < C * I1 * I2; i++)
        x[i] = (uint8_t)rnd();
    for (int i = 0; i < C * NT; i++)
        w[i] = (int8_t)rnd();
    const int zxr = (int)(rnd() & 255);
    const int32_t zxv = u8 ? zxr : (int8_t)zxr, zxf = u8 ? zxv - 128 : zxv; /* value, flipped */
    const int32_t zy = yu8 ? (int32_t)(rnd() % 256) : (int32_t)(rnd() % 256) - 128;
    int32_t lo = yu8 ? 0 : -128, hi = yu8 ? 255 : 127;
    if (tc % 3 == 0) /* a fused Relu */
        lo = zy;
    for (int m = 0; m < C; m++) {
        uint32_t sum = 0;
        for (int t = 0; t < NT; t++)
            sum += (uint32_t)(int32_t)w[m * NT + t];
        bias[m] = (int32_t)(rnd() % 20000) - 10000;
        cb[m] = (int32_t)((uint32_t)bias[m] - (uint32_t)zxf * sum);
        float r = 0.0005f + (float)(rnd() % 1000) * 1e-4f;
        if (tc % 7 == 0 && m == 0)
            r = 3e9f; /* saturates: the scalar epilogue */
        qi8_mult(r, &mant[m], &sh[m]);
    }
    for (int m = 0; m < C; m++)
        for (int o1 = 0; o1 < O1; o1++)
            for (int o2 = 0; o2 < O2; o2++) {
                int32_t s = bias[m];
                for (int a = 0; a < K1; a++)
                    for (int b = 0; b < K2; b++) {
                        const int r = o1 * S1 - P1 + a * D1, q = o2 * S2 - P2 + b * D2;
                        const uint8_t raw = r >= 0 && r < I1 && q >= 0 && q < I2
                                                ? x[(m * I1 + r) * I2 + q] : (uint8_t)zxr;
                        const int32_t xv = u8 ? raw : (int8_t)raw;
                        s += (xv - zxv) * w[(m * K1 + a) * K2 + b];
                    }
                yr[(m * O1 + o1) * O2 + o2] = (uint8_t)qi8_rq(s, mant[m], sh[m], zy, lo, hi);
            }
    const int64_t in[3] = {1, I1, I2}, out[3] = {1, O1, O2}, k[3] = {1, K1, K2};
    const int64_t st[3] = {1, S1, S2}, dl[3] = {1, D1, D2}, pd[3] = {0, P1, P2};
    const int R = (O1 - 1) * S1 + (K1 - 1) * D1 + 1, W = (O2 - 1) * S2 + (K2 - 1) * D2 + 1;
    int8_t *planes = malloc((size_t)(nslot * ((R * W + 63) / 64 * 64)));
    memset(y, 0xa5, (size_t)osz + 16);
    qi8_dw(x, u8, zxf, C, in, out, k, st, dl, pd, w, cb, NULL, mant, sh, zy, lo, hi, yu8, y, 0,
           planes, nslot);
    int bad = -1;
    for (int i = 0; i < osz && bad < 0; i++)
        if (y[i] != yr[i])
            bad = i;
    cr_expect(bad < 0, "case %d: C%d %dx%d k%dx%d s%dx%d d%dx%d p%dx%d u8 %d y_u8 %d: output %d "
              "is %d, expected %d", tc, C, I1, I2, K1, K2, S1, S2, D1, D2, P1, P2, u8, yu8, bad,
              bad < 0 ? 0 : y[bad], bad < 0 ? 0 : yr[bad]);
    for (int i = 0; i < 16; i++)
        cr_expect(y[osz + i] == 0xa5, "case %d: a byte past the output written", tc);
    free(x), free(w), free(cb), free(mant), free(sh), free(bias), free(y), free(yr), free(planes);
    return 1;
}

Test(qdw, random_shapes) {
    if (!ok_cpu())
        cr_skip_test("no AVX-512 VNNI and VBMI on this CPU");
    rs = 5;
    for (int tc = 0; tc < 600;)
        tc += one(tc);
}
