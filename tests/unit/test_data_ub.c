/* test_data_ub.c — hostile tensor data through the generated C (issue 9): no undefined
 * behaviour for any input of any op, and the defined result docs/ops.md documents.
 *
 * Each model of tests/data/dataub/ (make_dataub.py) has one node whose C arithmetic could be
 * undefined for some data.  The cases feed INT_MIN, INT_MAX, -1, 0, NaN, +-inf, 1e30, -0.0
 * and shifts past the width, and compare with:
 *   - integer +, -, *, negation, |x|, sums and products of reductions, MatMul/Gemm/Einsum,
 *     CumSum, scatter reductions, integer Pow: wrap modulo 2^n (two's complement);
 *   - integer Div / Mod: x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, x % -1 = 0;
 *   - BitShift by the width or more: 0;
 *   - float to integer (Cast, Pow with a float exponent, QuantizeLinear, DynamicQuantizeLinear,
 *     QLinearMatMul's requantization, reductions of integers computed in double): saturate to
 *     the target's range, NaN gives 0.
 * tu_check_cases runs every case with libtcc and as executables built by gcc and clang with
 * -std=c99 -pedantic -Werror, AddressSanitizer and UndefinedBehaviorSanitizer (with
 * float-cast-overflow; every report fatal).  Values known at compile time fold to the same
 * results (folded_as_the_kernel), and attributes C could not convert to the input's integer
 * type are refused (refused_parameters). */
#include "testutil.h"
#include "tu_cases.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define DIR TU_DATA("dataub")
#define I8(...) TU_ARR(int8_t, __VA_ARGS__)
#define U8(...) TU_ARR(uint8_t, __VA_ARGS__)
#define I16(...) TU_ARR(int16_t, __VA_ARGS__)
#define U16(...) TU_ARR(uint16_t, __VA_ARGS__)
#define I32(...) TU_ARR(int32_t, __VA_ARGS__)
#define U32(...) TU_ARR(uint32_t, __VA_ARGS__)
#define I64(...) TU_ARR(int64_t, __VA_ARGS__)
#define U64(...) TU_ARR(uint64_t, __VA_ARGS__)
#define F32(...) TU_ARR(float, __VA_ARGS__)
#define F64(...) TU_ARR(double, __VA_ARGS__)
#define NCASES(a) ((int)(sizeof(a) / sizeof *(a)))
#define CHECK(m, c) tu_check_cases(DIR, &(m), (c), NCASES(c))
#define NONE {{0}}

#define MIN32 INT32_MIN
#define MAX32 INT32_MAX
#define MIN64 INT64_MIN
#define MAX64 INT64_MAX
#define UMAX32 UINT32_MAX
#define UMAX64 UINT64_MAX
#define NAN_F ((float)NAN)
#define INF_F ((float)INFINITY)

/* A one-output model with `nin` inputs and outputs of `es` bytes compared exactly. */
#define EXACT1(file, nin, es) {file, nin, 1, {es}, {TU_EXACT}}

/* ---- integer arithmetic wraps */

Test(dataub, add_sub_mul_wrap) {
    static const TuCaseModel add = EXACT1("add_i32.onnx", 2, 4);
    const TuCase ca[] = {{"limits", {0}, {I32(MAX32, MIN32, -1, 0), I32(1, -1, MIN32, MIN32)}, 0,
                          {I32(MIN32, MAX32, MAX32, MIN32)}}};
    CHECK(add, ca);
    static const TuCaseModel sub = EXACT1("sub_i64.onnx", 2, 8);
    const TuCase cs[] = {{"limits", {0}, {I64(MIN64, MAX64, 0, -1), I64(1, -1, MIN64, MAX64)}, 0,
                          {I64(MAX64, MIN64, MIN64, MIN64)}}};
    CHECK(sub, cs);
    static const TuCaseModel mul32 = EXACT1("mul_i32.onnx", 2, 4);
    const TuCase cm32[] = {{"limits", {0},
                            {I32(MAX32, MIN32, MIN32, 65536), I32(2, -1, MIN32, 65536)}, 0,
                            {I32(-2, MIN32, 0, 0)}}};
    CHECK(mul32, cm32);
    static const TuCaseModel mul64 = EXACT1("mul_i64.onnx", 2, 8);
    const int64_t big = 3037000500; /* its square passes 2^63 */
    const TuCase cm64[] = {{"limits", {0},
                            {I64(MAX64, MIN64, INT64_C(1) << 32, big),
                             I64(MAX64, -1, INT64_C(1) << 32, big)},
                            0, {I64(1, MIN64, 0, INT64_C(-9223372036709301616))}}};
    CHECK(mul64, cm64);
    /* uint16 * uint16 promotes to int: 65535 * 65535 would overflow it */
    static const TuCaseModel mulu16 = EXACT1("mul_u16.onnx", 2, 2);
    const TuCase cu16[] = {{"65535^2", {0}, {U16(65535, 65535, 256, 2), U16(65535, 2, 256, 3)}, 0,
                            {U16(1, 65534, 0, 6)}}};
    CHECK(mulu16, cu16);
    static const TuCaseModel sum = EXACT1("sum_i64.onnx", 3, 8);
    const TuCase csum[] = {{"limits", {0}, {I64(MAX64, MIN64), I64(MAX64, MIN64), I64(2, -1)}, 0,
                            {I64(0, -1)}}};
    CHECK(sum, csum);
}

Test(dataub, neg_abs_wrap) {
    static const TuCaseModel n32 = EXACT1("neg_i32.onnx", 1, 4);
    const TuCase c32[] = {
        {"limits", {0}, {I32(MIN32, MAX32, 0, -1)}, 0, {I32(MIN32, -MAX32, 0, 1)}}};
    CHECK(n32, c32);
    static const TuCaseModel n64 = EXACT1("neg_i64.onnx", 1, 8);
    const TuCase c64[] = {
        {"limits", {0}, {I64(MIN64, MAX64, 0, -1)}, 0, {I64(MIN64, -MAX64, 0, 1)}}};
    CHECK(n64, c64);
    static const TuCaseModel a8 = EXACT1("abs_i8.onnx", 1, 1);
    const TuCase ca8[] = {{"limits", {0}, {I8(-128, 127, -1, 0)}, 0, {I8(-128, 127, 1, 0)}}};
    CHECK(a8, ca8);
    static const TuCaseModel a32 = EXACT1("abs_i32.onnx", 1, 4);
    const TuCase ca32[] = {
        {"limits", {0}, {I32(MIN32, -MAX32, -1, 0)}, 0, {I32(MIN32, MAX32, 1, 0)}}};
    CHECK(a32, ca32);
    static const TuCaseModel a64 = EXACT1("abs_i64.onnx", 1, 8);
    const TuCase ca64[] = {
        {"limits", {0}, {I64(MIN64, -MAX64, -1, 0)}, 0, {I64(MIN64, MAX64, 1, 0)}}};
    CHECK(a64, ca64);
}

Test(dataub, prelu_shrink_pow_wrap) {
    static const TuCaseModel prelu = EXACT1("prelu_i32.onnx", 2, 4);
    const TuCase cp[] = {{"limits", {0}, {I32(MIN32, -2, 5, -1), I32(2, MAX32, -7, MIN32)}, 0,
                          {I32(0, 2, 5, MIN32)}}};
    CHECK(prelu, cp);
    /* bias -5, lambd 1: x < -1 gives x - 5, x > 1 gives x + 5 */
    static const TuCaseModel shrink = EXACT1("shrink_i64.onnx", 1, 8);
    const TuCase cs[] = {{"limits", {0}, {I64(MIN64, MAX64, 1, -2)}, 0,
                          {I64(MAX64 - 4, MIN64 + 4, 0, -7)}}};
    CHECK(shrink, cs);
    /* integer exponents: exact modulo 2^64; a negative one truncates 1 / b^-e */
    static const TuCaseModel pw = EXACT1("pow_i64.onnx", 2, 8);
    const TuCase cpw[] = {{"limits", {0}, {I64(2, 3, -1, 0), I64(63, 41, MAX64, -1)}, 0,
                           {I64(MIN64, INT64_C(-420491770248316829), -1, 0)}}};
    CHECK(pw, cpw);
    /* a float exponent: pow in double, saturated (NaN gives 0) */
    static const TuCaseModel pwf = EXACT1("pow_i32_f.onnx", 2, 4);
    const TuCase cpwf[] = {{"saturated", {0},
                            {I32(2, 2, -8, 0, 10, 4), F32(31, 0.5f, 1 / 3.0f, -1, NAN_F, 1e30f)},
                            0, {I32(MAX32, 1, 0, MAX32, 0, MAX32)}}};
    CHECK(pwf, cpwf);
}

/* ---- integer Div and Mod */

Test(dataub, div_mod_defined) {
    static const TuCaseModel d32 = EXACT1("div_i32.onnx", 2, 4);
    const TuCase c32[] = {{"limits", {0},
                           {I32(MIN32, MIN32, 7, -7, 5, MAX32), I32(-1, 0, -2, 2, 0, -1)}, 0,
                           {I32(MIN32, 0, -3, -3, 0, -MAX32)}}};
    CHECK(d32, c32);
    static const TuCaseModel d64 = EXACT1("div_i64.onnx", 2, 8);
    const TuCase c64[] = {{"limits", {0},
                           {I64(MIN64, MIN64, 7, -7, 5, MAX64), I64(-1, 0, -2, 2, 0, -1)}, 0,
                           {I64(MIN64, 0, -3, -3, 0, -MAX64)}}};
    CHECK(d64, c64);
    static const TuCaseModel du = EXACT1("div_u32.onnx", 2, 4);
    const TuCase cu[] = {{"zero", {0}, {U32(UMAX32, 5, 0), U32(0, 2, 0)}, 0, {U32(0, 2, 0)}}};
    CHECK(du, cu);
    /* fmod 0: the sign of the divisor */
    static const TuCaseModel m32 = EXACT1("mod_i32.onnx", 2, 4);
    const TuCase cm[] = {{"limits", {0},
                          {I32(MIN32, 7, -7, 7, 5, MIN32), I32(-1, -2, 2, 0, 3, MAX32)}, 0,
                          {I32(0, -1, 1, 0, 2, 2147483646)}}};
    CHECK(m32, cm);
    /* fmod 1: the sign of the dividend */
    static const TuCaseModel m64 = EXACT1("mod_i64_fmod.onnx", 2, 8);
    const TuCase cf[] = {{"limits", {0},
                          {I64(MIN64, 7, -7, 7, MIN64, MAX64), I64(-1, -2, 2, 0, MAX64, MIN64)},
                          0, {I64(0, 1, -1, 0, -1, MAX64)}}};
    CHECK(m64, cf);
}

/* ---- BitShift */

Test(dataub, bitshift_past_width) {
    static const TuCaseModel l8 = EXACT1("shl_u8.onnx", 2, 1);
    const TuCase c8[] = {{"shifts", {0}, {U8(1, 255, 128, 7), U8(8, 255, 1, 0)}, 0,
                          {U8(0, 0, 0, 7)}}};
    CHECK(l8, c8);
    static const TuCaseModel l64 = EXACT1("shl_u64.onnx", 2, 8);
    const TuCase c64[] = {{"shifts", {0}, {U64(1, 1, 3, 1), U64(63, 64, 200, UMAX64)}, 0,
                           {U64(UINT64_C(1) << 63, 0, 0, 0)}}};
    CHECK(l64, c64);
    static const TuCaseModel r32 = EXACT1("shr_u32.onnx", 2, 4);
    const TuCase c32[] = {{"shifts", {0}, {U32(UMAX32, UMAX32, 8, 1), U32(31, 32, 1, UMAX32)}, 0,
                           {U32(1, 0, 4, 0)}}};
    CHECK(r32, c32);
}

/* ---- Cast from floats saturates, NaN gives 0 */

Test(dataub, cast_saturates) {
    static const TuCaseModel cf = {"cast_float.onnx", 1, 8, {1, 1, 2, 2, 4, 4, 8, 8},
                                   {TU_EXACT, TU_EXACT, TU_EXACT, TU_EXACT, TU_EXACT, TU_EXACT,
                                    TU_EXACT, TU_EXACT}};
    const TuCase c[] = {
        {"hostile",
         {0},
         {F32(NAN_F, INF_F, -INF_F, 1e30f, -1e30f, -0.0f, -1.5f, 300.7f, 70000.2f, 3e9f)},
         0,
         {I8(0, 127, -128, 127, -128, 0, -1, 127, 127, 127),
          U8(0, 255, 0, 255, 0, 0, 0, 255, 255, 255),
          I16(0, 32767, -32768, 32767, -32768, 0, -1, 300, 32767, 32767),
          U16(0, 65535, 0, 65535, 0, 0, 0, 300, 65535, 65535),
          I32(0, MAX32, MIN32, MAX32, MIN32, 0, -1, 300, 70000, MAX32),
          U32(0, UMAX32, 0, UMAX32, 0, 0, 0, 300, 70000, 3000000000u),
          I64(0, MAX64, MIN64, MAX64, MIN64, 0, -1, 300, 70000, 3000000000),
          U64(0, UMAX64, 0, UMAX64, 0, 0, 0, 300, 70000, 3000000000u)}},
    };
    CHECK(cf, c);
    static const TuCaseModel cd = {"cast_double.onnx", 1, 3, {8, 8, 4},
                                   {TU_EXACT, TU_EXACT, TU_EXACT}};
    const double two62 = 4611686018427387904.0;
    const TuCase d[] = {
        {"hostile",
         {0},
         {F64(NAN, 9.3e18, -9.3e18, 1.8e19, 2e19, -1.0, two62, -9223372036854775808.0)},
         0,
         {I64(0, MAX64, MIN64, MAX64, MAX64, -1, INT64_C(1) << 62, MIN64),
          U64(0, UINT64_C(9300000000000000000), 0, UINT64_C(18000000000000000000), UMAX64, 0,
              UINT64_C(1) << 62, 0),
          I32(0, MAX32, MIN32, MAX32, MAX32, -1, MAX32, MIN32)}},
    };
    CHECK(cd, d);
    /* float16 bits: NaN, +-inf, +-65504, -0, 1.5, -2.5 */
    static const TuCaseModel ch = {"cast_half.onnx", 1, 3, {1, 2, 8},
                                   {TU_EXACT, TU_EXACT, TU_EXACT}};
    const TuCase h[] = {
        {"hostile",
         {0},
         {U16(0x7E00, 0x7C00, 0xFC00, 0x7BFF, 0xFBFF, 0x8000, 0x3E00, 0xC100)},
         0,
         {I8(0, 127, -128, 127, -128, 0, 1, -2), U16(0, 65535, 0, 65504, 0, 0, 1, 0),
          I64(0, MAX64, MIN64, 65504, -65504, 0, 1, -2)}},
    };
    CHECK(ch, h);
    /* bfloat16 bits: NaN, +-inf, about 1e30 and -3e9, 255, 256, -0.5 */
    static const TuCaseModel cb = {"cast_bf16.onnx", 1, 2, {4, 1}, {TU_EXACT, TU_EXACT}};
    const TuCase b[] = {
        {"hostile",
         {0},
         {U16(0x7FC0, 0x7F80, 0xFF80, 0x714A, 0xCF33, 0x437F, 0x4380, 0xBF00)},
         0,
         {I32(0, MAX32, MIN32, MAX32, MIN32, 255, 256, 0), U8(0, 255, 0, 255, 0, 255, 255, 0)}},
    };
    CHECK(cb, b);
}

/* ---- reductions of integers over rows of 2 */

Test(dataub, reductions_wrap) {
    static const TuCaseModel s = EXACT1("reducesum_i64.onnx", 1, 8);
    const TuCase cs[] = {{"limits", {0}, {I64(MAX64, 1, MIN64, -1)}, 0, {I64(MIN64, MAX64)}}};
    CHECK(s, cs);
    static const TuCaseModel p = EXACT1("reduceprod_i32.onnx", 1, 4);
    const TuCase cp[] = {{"limits", {0}, {I32(MAX32, 2, MIN32, -1)}, 0, {I32(-2, MIN32)}}};
    CHECK(p, cp);
    static const TuCaseModel sq = EXACT1("reducesumsquare_i64.onnx", 1, 8);
    const TuCase csq[] = {{"limits", {0}, {I64(INT64_C(1) << 32, 0, 3037000500, 0)}, 0,
                           {I64(0, INT64_C(-9223372036709301616))}}};
    CHECK(sq, csq);
    static const TuCaseModel l1 = EXACT1("reducel1_i64.onnx", 1, 8);
    const TuCase cl1[] = {
        {"limits", {0}, {I64(MIN64, 0, MIN64, MIN64, -1, MAX64)}, 0, {I64(MIN64, 0, MIN64)}}};
    CHECK(l1, cl1);
    static const TuCaseModel m32 = EXACT1("reducemean_i32.onnx", 1, 4);
    const TuCase cm32[] = {
        {"limits", {0}, {I32(MAX32, MAX32, MIN32, -1)}, 0, {I32(MAX32, -1073741824)}}};
    CHECK(m32, cm32);
    /* the int64 sums wrap, then divide (truncating) */
    static const TuCaseModel m64 = EXACT1("reducemean_i64.onnx", 1, 8);
    const TuCase cm64[] = {{"limits", {0}, {I64(MAX64, 1, MIN64, -2)}, 0,
                            {I64(INT64_C(-4611686018427387904), INT64_C(4611686018427387903))}}};
    CHECK(m64, cm64);
    /* reductions computed in double: saturated to the type, NaN to 0 */
    static const TuCaseModel l2 = EXACT1("reducel2_i32.onnx", 1, 4);
    const TuCase cl2[] = {{"limits", {0}, {I32(MAX32, MAX32, 3, 4)}, 0, {I32(MAX32, 5)}}};
    CHECK(l2, cl2);
    static const TuCaseModel ls = EXACT1("reducelogsum_i32.onnx", 1, 4);
    const TuCase cls[] = {
        {"log 0, log -1, log 7", {0}, {I32(0, 0, -1, 0, 3, 4)}, 0, {I32(MIN32, 0, 1)}}};
    CHECK(ls, cls);
    static const TuCaseModel lse = EXACT1("reducelogsumexp_i64.onnx", 1, 8);
    const TuCase clse[] = {{"limits", {0}, {I64(MAX64, MAX64, 0, 0)}, 0, {I64(MAX64, 0)}},
                           {"lowest", {0}, {I64(MIN64, MIN64, -1, 1)}, 0, {I64(MIN64, 1)}}};
    CHECK(lse, clse);
    /* runtime axes, output declared [2] */
    static const TuCaseModel rt = EXACT1("reducesum_rt_i64.onnx", 2, 8);
    const TuBytes x = I64(MAX64, 1, MIN64, -1);
    const TuCase crt[] = {
        {"axis 1", {0}, {x, I64(1)}, 0, {I64(MIN64, MAX64)}},
        {"axis -2", {0}, {x, I64(-2)}, 0, {I64(-1, 0)}},
        {"axis 2", {0}, {x, I64(2)}, -4, NONE},
        {"axis INT64_MIN", {0}, {x, I64(MIN64)}, -4, NONE},
        {"axis INT64_MAX", {0}, {x, I64(MAX64)}, -4, NONE},
    };
    CHECK(rt, crt);
}

/* ---- products of integers */

Test(dataub, matmul_gemm_einsum_wrap) {
    const TuBytes a = I32(MAX32, MAX32, MIN32, 1), b = I32(2, 0, 1, 1);
    const TuBytes want = I32(2147483645, MAX32, 1, 1);
    static const TuCaseModel mm = EXACT1("matmul_i32.onnx", 2, 4);
    const TuCase cmm[] = {{"limits", {0}, {a, b}, 0, {want}}};
    CHECK(mm, cmm);
    static const TuCaseModel es = EXACT1("einsum_i32.onnx", 2, 4);
    CHECK(es, cmm);
    /* 9 rows (the blocked engine and its edge tile) by a constant [[2, -1, 3], [-2^62, 2^62, 7]] */
    static const TuCaseModel mc = EXACT1("matmul_i64_constb.onnx", 1, 8);
    const TuCase cmc[] = {
        {"limits",
         {0},
         {I64(MAX64, 1, MIN64, -1, 1, 2, 2, 4, -1, 0, 0, -3, MAX64, MAX64, MIN64, MIN64, 3, 5)},
         0,
         {I64(INT64_C(-4611686018427387906), INT64_C(-4611686018427387903),
              INT64_C(-9223372036854775804), INT64_C(4611686018427387904),
              INT64_C(4611686018427387904), INT64_C(9223372036854775801),
              INT64_C(-9223372036854775806), MAX64, 17, 4, -2, 34, -2, 1, -3,
              INT64_C(-4611686018427387904), INT64_C(4611686018427387904), -21,
              INT64_C(4611686018427387902), INT64_C(4611686018427387905), -10, 0, MIN64, 0,
              INT64_C(-4611686018427387898), INT64_C(4611686018427387901), 44)}},
    };
    CHECK(mc, cmc);
    /* Y = 3 A B - C */
    static const TuCaseModel g = EXACT1("gemm_i32.onnx", 3, 4);
    const TuCase cg[] = {{"limits", {0},
                          {I32(MAX32, 1, MIN32, 0), I32(1, 2, 3, 4), I32(MIN32, 0, 1, -1)}, 0,
                          {I32(6, 6, MAX32, 1)}}};
    CHECK(g, cg);
    /* Y = A B^T + c, c a row added in the epilogue */
    static const TuCaseModel gb = EXACT1("gemm_i64_bias.onnx", 3, 8);
    const TuCase cgb[] = {{"limits", {0},
                           {I64(MAX64, 1, MIN64, 2), I64(1, 1, 2, -1), I64(1, MAX64)}, 0,
                           {I64(MIN64 + 1, MAX64 - 3, MIN64 + 3, MAX64 - 2)}}};
    CHECK(gb, cgb);
    /* uint16 products promote to int: 65535^2 would overflow it */
    static const TuCaseModel eu = EXACT1("einsum_u16.onnx", 2, 2);
    const TuCase ceu[] = {{"65535^2", {0}, {U16(65535, 2), U16(65535, 3)}, 0, {U16(7)}}};
    CHECK(eu, ceu);
}

/* ---- CumSum and the scatter reductions */

Test(dataub, cumsum_scatter_wrap) {
    static const TuCaseModel cs = EXACT1("cumsum_i32.onnx", 1, 4);
    const TuCase ccs[] = {
        {"limits", {0}, {I32(MAX32, 1, MIN32, -1)}, 0, {I32(MAX32, MIN32, 0, -1)}}};
    CHECK(cs, ccs);
    static const TuCaseModel sa = EXACT1("scatter_add_i64.onnx", 3, 8);
    const TuCase csa[] = {{"limits", {0}, {I64(MAX64, MIN64), I64(0, 1, 0), I64(1, -1, 1)}, 0,
                           {I64(MIN64 + 1, MAX64)}}};
    CHECK(sa, csa);
    static const TuCaseModel sm = EXACT1("scatter_mul_i32.onnx", 3, 4);
    const TuCase csm[] = {{"limits", {0}, {I32(MAX32, MIN32), I64(0, 1, 0), I32(2, -1, 3)}, 0,
                           {I32(-6, MIN32)}}};
    CHECK(sm, csm);
    static const TuCaseModel snd = EXACT1("scatternd_mul_i64.onnx", 3, 8);
    const TuCase csnd[] = {
        {"limits", {0}, {I64(MAX64, MIN64), I64(0, 1), I64(MAX64, -1)}, 0, {I64(1, MIN64)}}};
    CHECK(snd, csnd);
}

/* ---- quantization saturates, NaN gives 0 */

Test(dataub, quantize_saturates) {
    static const TuCaseModel q = EXACT1("quantize_i8.onnx", 3, 1);
    const TuBytes x = F32(NAN_F, INF_F, -INF_F, 1e30f, -1e30f, 1.5f, -200, 2.5f);
    const TuCase cq[] = {
        {"scale 1", {0}, {x, F32(1), I8(0)}, 0, {I8(0, 127, -128, 127, -128, 2, -128, 2)}},
        {"scale 1, zero point 10", {0}, {x, F32(1), I8(10)}, 0,
         {I8(0, 127, -128, 127, -128, 12, -128, 12)}},
        {"scale 0", {0}, {x, F32(0), I8(0)}, 0, {I8(0, 127, -128, 127, -128, 127, -128, 127)}},
        {"scale NaN", {0}, {x, F32(NAN_F), I8(0)}, 0, {I8(0, 0, 0, 0, 0, 0, 0, 0)}},
    };
    CHECK(q, cq);
    /* int32 input: divided in double */
    static const TuCaseModel qi = EXACT1("quantize_i32.onnx", 3, 1);
    const TuBytes xi = I32(MAX32, MIN32, 100, -5);
    const TuCase cqi[] = {
        {"scale 2, zero point 3", {0}, {xi, F32(2), U8(3)}, 0, {U8(255, 0, 53, 1)}},
        {"scale 0", {0}, {xi, F32(0), U8(3)}, 0, {U8(255, 0, 255, 0)}},
        {"scale -0", {0}, {xi, F32(-0.0f), U8(3)}, 0, {U8(0, 255, 0, 255)}},
    };
    CHECK(qi, cqi);
    static const TuCaseModel dq = {"dynquant.onnx", 1, 3, {1, 4, 1}, {TU_EXACT, TU_EXACT, TU_EXACT}};
    const TuCase cdq[] = {
        {"NaN", {0}, {F32(NAN_F, 1, -1, 2)}, 0, {U8(0, 170, 0, 255), F32(3.0f / 255.0f), U8(85)}},
        {"inf", {0}, {F32(INF_F, 1, -1, 0)}, 0, {U8(0, 0, 0, 0), F32(INF_F), U8(0)}},
        {"-inf and inf", {0}, {F32(-INF_F, INF_F, 0, 0)}, 0, {U8(0, 0, 0, 0), F32(INF_F), U8(0)}},
    };
    CHECK(dq, cdq);
    /* [1, 2] x [2, 1] = 11, requantized by sa sb / sy */
    static const TuCaseModel qm = EXACT1("qlinearmatmul.onnx", 8, 1);
    const TuBytes qa = U8(1, 2), qb = U8(3, 4), one = F32(1), z0 = U8(0);
    const TuCase cqm[] = {
        {"sy 1", {0}, {qa, one, z0, qb, one, z0, one, U8(5)}, 0, {U8(16)}},
        {"saturated", {0}, {qa, one, z0, qb, one, z0, one, U8(250)}, 0, {U8(255)}},
        {"sy 0", {0}, {qa, one, z0, qb, one, z0, F32(0), z0}, 0, {U8(255)}},
        {"sy 0, a sum of 0 (NaN)", {0}, {U8(0, 0), one, z0, qb, one, z0, F32(0), z0}, 0, {U8(0)}},
        {"sy NaN", {0}, {qa, one, z0, qb, one, z0, F32(NAN_F), z0}, 0, {U8(0)}},
        {"sy -1", {0}, {qa, one, z0, qb, one, z0, F32(-1), U8(5)}, 0, {U8(0)}},
    };
    CHECK(qm, cqm);
}

/* ---- values known at compile time fold to what the kernel computes */

Test(dataub, folded_as_the_kernel) {
    /* INT64_MIN / -1 would trap in the compiler itself */
    static const TuCaseModel d = {"div_const_i64.onnx", 0, 2, {8, 8}, {TU_EXACT, TU_EXACT}};
    const TuCase cd[] = {{"[MIN, 7, MIN] / [-1, -1, 3]", {0}, {{0}}, 0,
                          {I64(MIN64, -7, INT64_C(-3074457345618258602)), I64(0, 0, 1)}}};
    CHECK(d, cd);
    /* sums and products of constants wrap (Add, Mul, Neg, ReduceProd of [MAX, MIN, 3] and
     * [1, -1, 2^62]) */
    static const TuCaseModel w = {"fold_wrap_i64.onnx", 0, 4, {8, 8, 8, 8},
                                  {TU_EXACT, TU_EXACT, TU_EXACT, TU_EXACT}};
    const TuCase cw[] = {{"limits", {0}, {{0}}, 0,
                          {I64(MIN64, MAX64, INT64_C(4611686018427387907)),
                           I64(MAX64, MIN64, INT64_C(-4611686018427387904)),
                           I64(-MAX64, MIN64, -3), I64(MIN64)}}};
    CHECK(w, cw);
    /* a constant float cast to int8 saturates as the kernel does; 1e19f to uint64 is left to the
     * kernel (above INT64_MAX) */
    static const TuCaseModel c = {"cast_const.onnx", 0, 2, {1, 8}, {TU_EXACT, TU_EXACT}};
    const TuCase cc[] = {{"300.5, -1e30, NaN, 2.5, 1e19", {0}, {{0}}, 0,
                          {I8(127, -128, 0, 2, 127),
                           U64(300, 0, 0, 2, UINT64_C(9999999980506447872))}}};
    CHECK(c, cc);
}

/* ---- parameters C could not convert are refused at compile time, in one line */

Test(dataub, refused_parameters) {
    static const struct {
        const char *file, *what;
    } cases[] = {
        {"refuse_shrink_huge.onnx", "bias = 1e+30 is not supported for input type int32"},
        {"refuse_shrink_negative_u8.onnx", "bias = -1 is not supported for input type uint8"},
        {"refuse_gemm_alpha_fraction.onnx", "alpha = 0.5 is not supported for input type int32"},
        {"refuse_gemm_beta_huge.onnx", "beta = -1e+30 is not supported for input type int64"},
        {"refuse_clip6_int.onnx", "element type int32 is not supported before opset 11"},
        {"refuse_cumsum_axis_max.onnx", "is out of range for rank 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", DIR, cases[i].file);
        tu_expect_error(path, O2C_EMODEL, cases[i].what);
    }
}

/* ---- empty tensors at N = 0: the workspace is 0 bytes and NULL (model_workspace_size) */

Test(dataub, empty_tensors_null_workspace) {
    static const TuCaseModel ch = EXACT1("empty_chain.onnx", 1, 4);
    const TuCase cch[] = {{"N = 0", {0}, {TU_EMPTY}, 0, {TU_EMPTY}},
                          {"N = 2", {2}, {I32(MAX32, 3)}, 0, {I32(2, 18)}}};
    CHECK(ch, cch);
    static const TuCaseModel rs = {"empty_resize.onnx", 1, 1, {4}, {TU_FLOAT}};
    const TuCase crs[] = {{"N = 0", {0}, {TU_EMPTY}, 0, {TU_EMPTY}}};
    CHECK(rs, crs);
    static const TuCaseModel mi = EXACT1("empty_matmulinteger.onnx", 2, 4);
    const TuCase cmi[] = {{"N = 0", {0}, {TU_EMPTY, U8(1, 2, 3, 4)}, 0, {TU_EMPTY}}};
    CHECK(mi, cmi);
}
