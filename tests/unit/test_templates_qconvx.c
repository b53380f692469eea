/* test_templates_qconvx.c — the x86 implicit int8 convolution (templates/quant_i8_convx.c) as
 * C, against a direct loop over the ONNX integer definition requantized by qi8_rq: random
 * shapes (channels that leave a partial quad, outputs a partial block of 8, strides and
 * dilations of 1 to 3 per axis, pads, kernels up to 4x5, images narrower than the window's
 * reach, rows up to 209 wide, images of a few positions by up to 165 outputs: the lanes as
 * output channels), int8 and uint8 data and outputs, fused Relu and Clip ranges (the byte
 * clamps after the saturating packs), a channel whose multiplier saturates (the scalar
 * epilogue), weights above the L2 share (the output-block-major order), and bytes past the
 * output untouched; the 16-lane requantization lane by lane against the scalar one (clamps at
 * the type's bounds, a raised bottom, both inside); and qi8_rq16_1's tie-free path.  The
 * weight is packed as compiler/ops/quant.c's qconvx_build packs it.
 * Compiled with AVX-512 VNNI flags (tests/CMakeLists.txt) and skipped on a CPU without them;
 * test_templates_qconvx_novbmi2.c builds it again without VBMI and VBMI2 (the byte-wise stores,
 * the channel lanes' stores one byte at a time). */
#include "../../templates/o2c_template.h"
#include "../../templates/quant_i8_convx.c"
#include <criterion/criterion.h>
#include <stdlib.h>

#ifndef QX_SUITE
#define QX_SUITE qconvx
#endif

#if QI8_CONVX
static uint32_t rs = 1;
static uint32_t rnd(void) {
    rs = rs * 1664525u + 1013904223u;
    return rs >> 8;
}

static int ok_cpu(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw")
#if defined(__AVX512VBMI__)
           && __builtin_cpu_supports("avx512vbmi")
#endif
#if defined(__AVX512VBMI2__)
           && __builtin_cpu_supports("avx512vbmi2")
#endif
        ;
}

/* One random convolution (big: a weight above the L2 share) checked; returns 0 when the shape
 * had no output (drawn again). */
static int one(int tc, int big) {
    int C = 1 + rnd() % 37, M = 1 + rnd() % 41, I1 = 1 + rnd() % 20, I2 = 1 + rnd() % 30;
    int K1 = 1 + rnd() % 4, K2 = 1 + rnd() % 5, S1 = 1 + rnd() % 3, S2 = 1 + rnd() % 3;
    int D1 = 1 + rnd() % 2, D2 = 1 + rnd() % 2, P1 = rnd() % 3, P2 = rnd() % 3;
    const int u8 = rnd() % 2, yu8 = rnd() % 2;
    if (tc % 3 == 0)
        S1 = S2 = D1 = D2 = 1;
    if (tc % 5 == 2) /* few positions, many outputs (the lanes as output channels) */
        I1 = 1 + (int)(rnd() % 8), I2 = 1 + (int)(rnd() % 8), M = 16 + (int)(rnd() % 150),
        C = 8 + (int)(rnd() % 40);
    if (tc % 4 == 1) /* rows of 64 positions and more (the packing's wide path) */
        I2 = 60 + (int)(rnd() % 150), I1 = 1 + (int)(rnd() % 4), C = 1 + (int)(rnd() % 9);
    if (big)
        C = 300, M = 120, K1 = K2 = 3, I1 = 8, I2 = 30; /* 8 x 9 x 75 x 64 > 256 KB */
    const int span1 = (K1 - 1) * D1 + 1, span2 = (K2 - 1) * D2 + 1;
    if (I1 + 2 * P1 < span1 || I2 + 2 * P2 < span2)
        return 0;
    const int O1 = (I1 + 2 * P1 - span1) / S1 + 1, O2 = (I2 + 2 * P2 - span2) / S2 + 1;
    const int CQ = (C + 3) / 4, NT = K1 * K2, nb = (M + 15) / 16, osz = M * O1 * O2;
    uint8_t *x = malloc((size_t)(C * I1 * I2));
    int8_t *w = malloc((size_t)(M * C * NT)), *wx = calloc((size_t)(nb * NT * CQ * 64), 1);
    int32_t *cbu = malloc(4 * (size_t)M), *mant = malloc(4 * (size_t)M);
    int32_t *sh = malloc(4 * (size_t)M), *bias = malloc(4 * (size_t)M);
    uint8_t *y = malloc((size_t)osz + 16), *yr = malloc((size_t)osz);
    for (int i = 0; i < C * I1 * I2; i++)
        x[i] = (uint8_t)rnd();
    for (int i = 0; i < M * C * NT; i++)
        w[i] = (int8_t)rnd();
    const int zxr = (int)(rnd() & 255);
    const int32_t zxv = u8 ? zxr : (int8_t)zxr, zxf = u8 ? zxv - 128 : zxv; /* value, flipped */
    const int32_t zy = yu8 ? (int32_t)(rnd() % 256) : (int32_t)(rnd() % 256) - 128;
    int32_t lo = yu8 ? 0 : -128, hi = yu8 ? 255 : 127;
    if (tc % 3 == 1) /* a fused Relu */
        lo = zy;
    if (tc % 6 == 4) /* a fused Clip inside the type */
        hi = (lo + hi) / 2 + 10 < hi ? (lo + hi) / 2 + 10 : hi;
    for (int m = 0; m < M; m++) {
        uint32_t sum = 0;
        for (int c = 0; c < C; c++)
            for (int t = 0; t < NT; t++) {
                const int8_t v = w[(m * C + c) * NT + t];
                sum += (uint32_t)(int32_t)v;
                wx[((m / 16 * NT + t) * CQ + c / 4) * 64 + m % 16 * 4 + c % 4] = v;
            }
        bias[m] = (int32_t)(rnd() % 20000) - 10000;
        cbu[m] = (int32_t)((uint32_t)bias[m] - (uint32_t)zxf * sum - 128u * sum);
        float r = 0.0005f + (float)(rnd() % 1000) * 1e-5f;
        if (tc % 7 == 0 && m == 0)
            r = 3e9f; /* saturates: the scalar epilogue */
        qi8_mult(r, &mant[m], &sh[m]);
    }
    for (int m = 0; m < M; m++)
        for (int o1 = 0; o1 < O1; o1++)
            for (int o2 = 0; o2 < O2; o2++) {
                int32_t s = bias[m];
                for (int c = 0; c < C; c++)
                    for (int a = 0; a < K1; a++)
                        for (int b = 0; b < K2; b++) {
                            const int r = o1 * S1 - P1 + a * D1, q = o2 * S2 - P2 + b * D2;
                            const uint8_t raw = r >= 0 && r < I1 && q >= 0 && q < I2
                                                    ? x[(c * I1 + r) * I2 + q] : (uint8_t)zxr;
                            const int32_t xv = u8 ? raw : (int8_t)raw;
                            s += (xv - zxv) * w[((m * C + c) * K1 + a) * K2 + b];
                        }
                yr[(m * O1 + o1) * O2 + o2] = (uint8_t)qi8_rq(s, mant[m], sh[m], zy, lo, hi);
            }
    const int64_t in[3] = {1, I1, I2}, out[3] = {1, O1, O2}, k[3] = {1, K1, K2};
    const int64_t st[3] = {1, S1, S2}, dl[3] = {1, D1, D2}, pd[3] = {0, P1, P2};
    const int H = O1 + (K1 - 1) * D1 / S1, W = O2 + (K2 - 1) * D2 / S2;
    void *buf = malloc((size_t)qi8_xbuf(CQ, S1, S2, H, W));
    memset(y, 0xa5, (size_t)osz + 16);
    qi8_convx(x, u8, zxf, C, M, in, out, k, st, dl, pd, wx, cbu, mant, sh, zy, lo, hi, yu8, y, 0,
              buf, 1);
    int bad = -1;
    for (int i = 0; i < osz && bad < 0; i++)
        if (y[i] != yr[i])
            bad = i;
    cr_expect(bad < 0, "case %d: C%d M%d %dx%d k%dx%d s%dx%d d%dx%d p%dx%d u8 %d y_u8 %d: output %d "
              "is %d, expected %d", tc, C, M, I1, I2, K1, K2, S1, S2, D1, D2, P1, P2, u8, yu8, bad,
              bad < 0 ? 0 : y[bad], bad < 0 ? 0 : yr[bad]);
    for (int i = 0; i < 16; i++)
        cr_expect(y[osz + i] == 0xa5, "case %d: a byte past the output written", tc);
    free(x), free(w), free(wx), free(cbu), free(mant), free(sh), free(bias), free(y), free(yr);
    free(buf);
    return 1;
}

/* qi8_rq16 (both of its paths: every multiplier below 1/4, and any) against qi8_rq, lane by
 * lane: random multipliers, sums near the extremes and multiples of powers of two (ties). */
Test(QX_SUITE, requant16) {
    if (!ok_cpu())
        cr_skip_test("no AVX-512 VNNI on this CPU");
    rs = 3;
    for (int it = 0; it < 20000; it++) {
        int32_t v[16], mant[16], sh[16], lo = -128, hi = 127;
        const int uniform = it % 3 == 0, small = it % 2 == 0; /* small: sh > 32 in every lane */
        const int32_t zy = (int32_t)(rnd() % 256) - 128;
        if (it % 5 == 0)
            lo = 0, hi = 255;
        if (it % 7 == 3) /* a clamp inside the type's range (a fused Clip) */
            lo += 20, hi -= 30;
        else if (it % 11 == 4) /* a raised bottom only (a fused Relu): the saturating narrows */
            lo += 50;
        for (int l = 0; l < 16; l++) {
            const int lr = uniform ? 0 : l;
            if (l == 0 || !uniform) {
                mant[lr] = (int32_t)(((rnd() & 0x7fffffu) | 0x800000u) << 7);
                if (rnd() % 4 == 0)
                    mant[lr] = 1 << 30; /* a power of two: ties */
                if (rnd() % 2)
                    mant[lr] = -mant[lr];
                sh[lr] = small ? 33 + (int32_t)(rnd() % 30) : 1 + (int32_t)(rnd() % 62);
            }
            mant[l] = mant[lr], sh[l] = sh[lr];
            const uint32_t k = rnd() % 4;
            int32_t x = (int32_t)(rnd() ^ (rnd() << 16));
            if (k == 1)
                x = (int32_t)(rnd() % 4096) - 2048;
            else if (k == 2) /* an odd multiple of a power of two */
                x = (int32_t)(((rnd() % 2048) * 2 + 1) << (rnd() % 20)) * (rnd() % 2 ? 1 : -1);
            else if (k == 3)
                x = rnd() % 2 ? INT32_MAX - (int32_t)(rnd() % 4) : INT32_MIN + (int32_t)(rnd() % 4);
            v[l] = x;
        }
        const qi8_rq16_t r = qi8_rq16_prep(_mm512_loadu_si512((const void *)mant),
                                           _mm512_loadu_si512((const void *)sh), zy, lo, hi);
        uint8_t got[16];
        _mm_storeu_si128((__m128i *)(void *)got, qi8_rq16(_mm512_loadu_si512((const void *)v), &r));
        for (int l = 0; l < 16; l++) {
            const uint8_t want = (uint8_t)qi8_rq(v[l], mant[l], sh[l], zy, lo, hi);
            cr_assert(got[l] == want, "it %d lane %d: v %d mant %d sh %d zy %d: %d, expected %d",
                      it, l, v[l], mant[l], sh[l], zy, got[l], want);
        }
    }
}

/* qi8_rq16_1 (one output's terms made by qi8_rq1_of: the tie-free path below a bound on the
 * sums, zy folded into the rounding term) against qi8_rq, lane by lane: sums anywhere within
 * the bound, at it, and multiples of the powers of two where ties live. */
Test(QX_SUITE, requant16_1) {
    if (!ok_cpu())
        cr_skip_test("no AVX-512 VNNI on this CPU");
    rs = 13;
    int nt = 0, zf = 0;
    for (int it = 0; it < 20000; it++) {
        int32_t lo = -128, hi = 127;
        if (it % 5 == 0)
            lo = 0, hi = 255;
        if (it % 7 == 3)
            lo += 20, hi -= 30;
        const int32_t zy = lo == 0 ? (int32_t)(rnd() % 256) : (int32_t)(rnd() % 256) - 128;
        int32_t mant = (int32_t)(((rnd() & 0x7fffffu) | 0x800000u) << 7);
        if (rnd() % 4 == 0) /* more trailing zeros */
            mant = (int32_t)((uint32_t)mant & ~((1u << (7 + rnd() % 16)) - 1u)) | (1 << 30);
        const int32_t sh = 33 + (int32_t)(rnd() % 30);
        const int k = 4 + (int)(rnd() % 28);
        const int64_t vmax = rnd() % 8 == 0 ? -1 : ((int64_t)1 << k) - 1 - (int64_t)(rnd() % 3);
        qi8_rq1_t p;
        qi8_rq1_of(mant, sh, zy, vmax, &p);
        nt += p.nt, zf += p.zf;
        const qi8_rq16_t r = qi8_rq16_prep1(mant, sh, zy, lo, hi, -1); /* zy, lo, hi */
        const int64_t lim = vmax < 0 ? INT32_MAX : vmax;
        int32_t v[16];
        for (int l = 0; l < 16; l++) {
            const uint32_t c = rnd() % 4;
            int64_t x = (int64_t)(((uint64_t)rnd() << 24 | rnd()) % (uint64_t)(2 * lim + 1)) - lim;
            if (c == 1) /* a multiple of 2^(sh - 1 - t) or a neighbour power of two */
                x = (int64_t)(rnd() % 5) * ((int64_t)1 << ((sh - 1 - __builtin_ctz((uint32_t)mant) -
                                                            (int)(rnd() % 3)) & 31));
            else if (c == 2)
                x = rnd() % 2 ? lim : -lim;
            if (x > lim || x < -lim)
                x = lim;
            v[l] = (int32_t)(rnd() % 2 ? x : -x);
        }
        uint8_t got[16];
        _mm_storeu_si128((__m128i *)(void *)got,
                         qi8_rq16_1(_mm512_loadu_si512((const void *)v), &p, &r));
        for (int l = 0; l < 16; l++) {
            const uint8_t want = (uint8_t)qi8_rq(v[l], mant, sh, zy, lo, hi);
            cr_assert(got[l] == want,
                      "it %d lane %d: v %d mant %d sh %d zy %d vmax %lld (nt %d zf %d): %d, "
                      "expected %d", it, l, v[l], mant, sh, zy, (long long)vmax, p.nt, p.zf,
                      got[l], want);
        }
    }
    cr_expect(nt > 1000 && nt < 19000 && zf > 1000, "paths: %d tie-free, %d folded", nt, zf);
}

Test(QX_SUITE, random_shapes) {
    if (!ok_cpu())
        cr_skip_test("no AVX-512 VNNI on this CPU");
    rs = 7;
    for (int tc = 0; tc < 400;)
        tc += one(tc, 0);
}

Test(QX_SUITE, weight_above_l2_share) {
    if (!ok_cpu())
        cr_skip_test("no AVX-512 VNNI on this CPU");
    rs = 11;
    for (int tc = 1; tc < 3;)
        tc += one(tc, 1);
}
#endif
