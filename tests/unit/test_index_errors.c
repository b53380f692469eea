/* test_index_errors.c — hostile index data (issue 9; CONTRACT.md §2, return code -7).
 *
 * Every op whose runtime data is an index, a count or a coordinate into a buffer, run on the
 * small models of tests/data/index/ (make_index.py) with valid data (compared with references
 * written here) and hostile data: indices just out of range (n, -n - 1), INT64_MIN, INT64_MAX,
 * an empty indexed axis, NaN and infinite floats.  Where ONNX calls it an error NAME_run
 * returns -7 (O2C_RUN_EINDEX; -4 where the data contradicts a declared output shape) and the
 * outputs, filled with a sentinel first, are untouched; otherwise the defined result.
 *
 * Each model runs JIT-compiled with libtcc in this process, and built with gcc and with clang
 * under the contract's strict C99 flags plus AddressSanitizer and UndefinedBehaviorSanitizer
 * (with float-cast-overflow) as a small executable (tests/data/index/san_main.c) that reads
 * the same cases from files: tu_cases.h. */
#include "testutil.h"
#include "tu_cases.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#define IDX TU_DATA("index")

enum { EXACT = TU_EXACT, FLOAT = TU_FLOAT, ANY = TU_ANY };
typedef TuBytes Bytes;
typedef TuCase Case;
typedef TuCaseModel Spec;

#define ARR TU_ARR
#define I64(...) ARR(int64_t, __VA_ARGS__)
#define I32(...) ARR(int32_t, __VA_ARGS__)
#define F32(...) ARR(float, __VA_ARGS__)
#define EMPTY TU_EMPTY
#define NCASES(a) ((int)(sizeof(a) / sizeof *(a)))

static const int64_t MIN64 = INT64_MIN, MAX64 = INT64_MAX;
#define NAN_F ((float)NAN)
#define INF_F ((float)INFINITY)

static void check(const Spec *s, const Case *cases, int n) { tu_check_cases(IDX, s, cases, n); }

/* ---- Gather: an embedding lookup (rows of [N, 3]) */
Test(index, gather_rows) {
    static const Spec s = {"gather_rows.onnx", 2, 1, {4}, {EXACT}};
    const Bytes d = F32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    const Case c[] = {
        {"valid, negative too", {4, 4}, {d, I64(0, 3, -1, -4)}, 0,
         {F32(0, 1, 2, 9, 10, 11, 9, 10, 11, 0, 1, 2)}},
        {"n", {4, 1}, {d, I64(4)}, -7, {{0}}},
        {"-n - 1", {4, 1}, {d, I64(-5)}, -7, {{0}}},
        {"INT64_MAX", {4, 1}, {d, I64(MAX64)}, -7, {{0}}},
        {"INT64_MIN", {4, 1}, {d, I64(MIN64)}, -7, {{0}}},
        {"the last of four bad", {4, 4}, {d, I64(0, 1, 2, 4)}, -7, {{0}}},
        {"empty axis", {0, 1}, {EMPTY, I64(0)}, -7, {{0}}},
        {"empty axis, no index", {0, 0}, {EMPTY, EMPTY}, 0, {EMPTY}},
    };
    check(&s, c, NCASES(c));
}

/* int32 indices [2, 2] along the middle axis of int64 [2, N, 2] */
Test(index, gather_mid_int32) {
    static const Spec s = {"gather_mid_i32.onnx", 2, 1, {8}, {EXACT}};
    const Bytes d = I64(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    const Case c[] = {
        {"valid", {3}, {d, I32(0, 2, -1, -3)}, 0,
         {I64(0, 1, 4, 5, 4, 5, 0, 1, 6, 7, 10, 11, 10, 11, 6, 7)}},
        {"n", {3}, {d, I32(0, 3, 0, 0)}, -7, {{0}}},
        {"-n - 1", {3}, {d, I32(0, 0, 0, -4)}, -7, {{0}}},
        {"INT32_MIN", {3}, {d, I32(INT32_MIN, 0, 0, 0)}, -7, {{0}}},
        {"INT32_MAX", {3}, {d, I32(0, 0, INT32_MAX, 0)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* the last axis of [2, N]: one element per index */
Test(index, gather_last_axis) {
    static const Spec s = {"gather_last.onnx", 2, 1, {4}, {EXACT}};
    const Bytes d = F32(1, 2, 3, 4, 5, 6);
    const Case c[] = {
        {"valid", {3, 2}, {d, I64(2, -3)}, 0, {F32(3, 1, 6, 4)}},
        {"n", {3, 2}, {d, I64(3, 0)}, -7, {{0}}},
        {"-n - 1", {3, 2}, {d, I64(0, -4)}, -7, {{0}}},
        {"INT64_MIN", {3, 2}, {d, I64(0, MIN64)}, -7, {{0}}},
        {"empty axis", {0, 2}, {EMPTY, I64(0, 0)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* GatherElements axis 1 of [2, 3] */
Test(index, gather_elements) {
    static const Spec s = {"gatherelements.onnx", 2, 1, {4}, {EXACT}};
    const Bytes d = F32(1, 2, 3, 4, 5, 6);
    const Case c[] = {
        {"valid", {0}, {d, I64(2, -3, 0, 1)}, 0, {F32(3, 1, 4, 5)}},
        {"n", {0}, {d, I64(3, 0, 0, 0)}, -7, {{0}}},
        {"-n - 1", {0}, {d, I64(0, 0, 0, -4)}, -7, {{0}}},
        {"INT64_MAX", {0}, {d, I64(0, MAX64, 0, 0)}, -7, {{0}}},
        {"INT64_MIN", {0}, {d, I64(0, 0, MIN64, 0)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* GatherND: tuples of 2 into [2, 3]; with batch_dims 1, one index per row */
Test(index, gather_nd) {
    static const Spec s = {"gathernd.onnx", 2, 1, {4}, {EXACT}};
    const Bytes d = F32(1, 2, 3, 4, 5, 6);
    const Case c[] = {
        {"valid", {0}, {d, I64(0, 0, 1, -1, -2, 2)}, 0, {F32(1, 6, 3)}},
        {"first entry n", {0}, {d, I64(0, 0, 2, 0, 0, 0)}, -7, {{0}}},
        {"second entry n", {0}, {d, I64(0, 3, 0, 0, 0, 0)}, -7, {{0}}},
        {"-n - 1", {0}, {d, I64(0, 0, 0, 0, -3, 0)}, -7, {{0}}},
        {"INT64_MIN", {0}, {d, I64(0, 0, 0, MIN64, 0, 0)}, -7, {{0}}},
        {"INT64_MAX", {0}, {d, I64(0, 0, 0, 0, MAX64, 0)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
    static const Spec sb = {"gathernd_batch.onnx", 2, 1, {4}, {EXACT}};
    const Case cb[] = {
        {"valid", {0}, {d, I64(2, -3)}, 0, {F32(3, 4)}},
        {"n", {0}, {d, I64(3, 0)}, -7, {{0}}},
        {"-n - 1", {0}, {d, I64(0, -4)}, -7, {{0}}},
    };
    check(&sb, cb, NCASES(cb));
}

/* ScatterElements axis 0, reduction add, on [3, 2]; Scatter (opset 10) with int32 indices */
Test(index, scatter_elements) {
    static const Spec s = {"scatterelements.onnx", 3, 1, {4}, {EXACT}};
    const Bytes d = F32(1, 2, 3, 4, 5, 6), u = F32(10, 20, 30, 40);
    const Case c[] = {
        {"valid", {0}, {d, I64(0, 2, -1, 0), u}, 0, {F32(11, 42, 3, 4, 35, 26)}},
        {"n", {0}, {d, I64(3, 0, 0, 0), u}, -7, {{0}}},
        {"-n - 1", {0}, {d, I64(0, 0, 0, -4), u}, -7, {{0}}},
        {"INT64_MIN", {0}, {d, I64(0, MIN64, 0, 0), u}, -7, {{0}}},
        {"INT64_MAX", {0}, {d, I64(0, 0, MAX64, 0), u}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
    static const Spec s10 = {"scatter10.onnx", 3, 1, {4}, {EXACT}};
    const Bytes u10 = F32(10, 20);
    const Case c10[] = {
        {"valid", {0}, {d, I32(2, -3), u10}, 0, {F32(1, 2, 10, 20, 5, 6)}},
        {"n", {0}, {d, I32(3, 0), u10}, -7, {{0}}},
        {"INT32_MIN", {0}, {d, I32(0, INT32_MIN), u10}, -7, {{0}}},
        {"INT32_MAX", {0}, {d, I32(INT32_MAX, 0), u10}, -7, {{0}}},
    };
    check(&s10, c10, NCASES(c10));
}

/* ScatterND: rows of [4, 2] */
Test(index, scatter_nd) {
    static const Spec s = {"scatternd.onnx", 3, 1, {4}, {EXACT}};
    const Bytes d = F32(1, 2, 3, 4, 5, 6, 7, 8), u = F32(10, 11, 12, 13);
    const Case c[] = {
        {"valid", {0}, {d, I64(-1, 1), u}, 0, {F32(1, 2, 12, 13, 5, 6, 10, 11)}},
        {"n", {0}, {d, I64(0, 4), u}, -7, {{0}}},
        {"-n - 1", {0}, {d, I64(-5, 0), u}, -7, {{0}}},
        {"INT64_MIN", {0}, {d, I64(MIN64, 0), u}, -7, {{0}}},
        {"INT64_MAX", {0}, {d, I64(0, MAX64), u}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* OneHot: out-of-range indices give rows of off (ONNX defines it); the runtime depth (a float)
 * must truncate to the declared 3 */
Test(index, onehot) {
    static const Spec s = {"onehot_rt.onnx", 3, 1, {4}, {EXACT}};
    const Bytes v = F32(0, 1), three = F32(3.0f);
    const Bytes hostile = I64(MIN64, MAX64, -3, 2), edge = I64(-4, 3, 0, -1);
    const Bytes off = F32(0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    const Case c[] = {
        {"INT64_MIN, INT64_MAX", {0}, {hostile, three, v}, 0, {off}},
        {"-depth - 1, depth", {0}, {edge, three, v}, 0, {off}},
        {"depth 3.9", {0}, {edge, F32(3.9f), v}, 0, {off}},
        {"depth NaN", {0}, {edge, F32(NAN_F), v}, -4, {{0}}},
        {"depth inf", {0}, {edge, F32(INF_F), v}, -4, {{0}}},
        {"depth -inf", {0}, {edge, F32(-INF_F), v}, -4, {{0}}},
        {"depth 1e30", {0}, {edge, F32(1e30f), v}, -4, {{0}}},
        {"depth -3", {0}, {edge, F32(-3.0f), v}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* TopK with a runtime K: anything but the declared 2 is -4 */
Test(index, topk_k) {
    static const Spec s = {"topk_rt.onnx", 2, 2, {4, 8}, {EXACT, EXACT}};
    const Bytes x = F32(3, 1, 4, 1, 5);
    const Case c[] = {
        {"valid", {0}, {x, I64(2)}, 0, {F32(5, 4), I64(4, 2)}},
        {"INT64_MAX", {0}, {x, I64(MAX64)}, -4, {{0}}},
        {"INT64_MIN", {0}, {x, I64(MIN64)}, -4, {{0}}},
        {"-1", {0}, {x, I64(-1)}, -4, {{0}}},
        {"the axis + 1", {0}, {x, I64(6)}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* MaxUnpool 2x2 stride 2 on [1, 1, 2, 2]: indices into the unpooled [1, 1, 4, 4] */
Test(index, maxunpool) {
    static const Spec s = {"maxunpool.onnx", 2, 1, {4}, {EXACT}};
    const Bytes x = F32(1, 2, 3, 4);
    const Case c[] = {
        {"valid", {0}, {x, I64(0, 3, 9, 15)}, 0,
         {F32(1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4)}},
        {"the size", {0}, {x, I64(0, 3, 9, 16)}, -7, {{0}}},
        {"-1", {0}, {x, I64(-1, 3, 9, 15)}, -7, {{0}}},
        {"INT64_MIN", {0}, {x, I64(0, MIN64, 9, 15)}, -7, {{0}}},
        {"INT64_MAX", {0}, {x, I64(0, 3, MAX64, 15)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* RoiAlign on [2, 1, 4, 4] (image 0 all 5, image 1 all 7): the batch index picks the image */
Test(index, roialign_batch_index) {
    static const Spec s = {"roialign.onnx", 3, 1, {4}, {FLOAT}};
    float x[32];
    for (int i = 0; i < 32; i++)
        x[i] = i < 16 ? 5.0f : 7.0f;
    const Bytes xb = {x, sizeof x}, roi = F32(0, 0, 3, 3);
    const Case c[] = {
        {"valid", {0}, {xb, roi, I64(1)}, 0, {F32(7, 7, 7, 7)}},
        {"valid, NaN and infinite roi", {0}, {xb, F32(NAN_F, -INF_F, INF_F, 1e30f), I64(0)}, 0,
         {{NULL, 0}}},
        {"n", {0}, {xb, roi, I64(2)}, -7, {{0}}},
        {"-1", {0}, {xb, roi, I64(-1)}, -7, {{0}}},
        {"INT64_MIN", {0}, {xb, roi, I64(MIN64)}, -7, {{0}}},
        {"INT64_MAX", {0}, {xb, roi, I64(MAX64)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* GridSample on x = 0..8 [1, 1, 3, 3]: grid points with known values, then NaN, infinite and
 * huge coordinates (any result, but no wild read and no undefined conversion) */
Test(index, gridsample_coordinates) {
    const Bytes x = F32(0, 1, 2, 3, 4, 5, 6, 7, 8);
    const Bytes hostile = F32(NAN_F, 0, INF_F, -INF_F, 1e30f, -1e30f, -3.4e38f, 3.4e38f, 0,
                              NAN_F, 1e-45f, -INF_F);
    /* bilinear, zeros padding, align_corners 0 */
    static const Spec sb = {"gridsample_bilinear.onnx", 2, 1, {4}, {FLOAT}};
    const Bytes g = F32(0, 0, 1, 1, -1, -1, 0.5f, 0, 2, 0, 0, -2);
    const Case cb[] = {
        {"valid", {0}, {x, g}, 0, {F32(4, 2, 0, 4.75f, 0, 0)}},
        {"hostile", {0}, {x, hostile}, 0, {{NULL, 0}}},
    };
    check(&sb, cb, NCASES(cb));
    /* nearest, border padding */
    static const Spec sn = {"gridsample_nearest.onnx", 2, 1, {4}, {FLOAT}};
    const Case cn[] = {
        {"valid", {0}, {x, g}, 0, {F32(4, 8, 0, 5, 5, 1)}},
        {"hostile", {0}, {x, hostile}, 0, {{NULL, 0}}},
    };
    check(&sn, cn, NCASES(cn));
    /* bicubic, reflection padding, align_corners 1: pixel centres give the pixels */
    static const Spec sc = {"gridsample_bicubic.onnx", 2, 1, {4}, {FLOAT}};
    const Case cc[] = {
        {"valid", {0}, {x, F32(0, 0, -1, -1, 1, 1, 1, -1, -1, 1, 0, 1)}, 0,
         {F32(4, 0, 8, 2, 6, 7)}},
        {"hostile", {0}, {x, hostile}, 0, {{NULL, 0}}},
    };
    check(&sc, cc, NCASES(cc));
}

/* DequantizeLinear along axis 1 of uint8 [2, C] with a scale [S] and zero point [Z] of
 * symbolic lengths: each must hold 1 or C elements at run time (-4 otherwise) */
Test(index, dequantize_parameter_lengths) {
    static const Spec s = {"dequant_axis.onnx", 3, 1, {4}, {FLOAT}};
    const Bytes x = ARR(uint8_t, 10, 20, 30, 40, 50, 60), sc = F32(1, 2, 0.5f);
    const Case c[] = {
        {"per axis", {3, 3, 3}, {x, sc, ARR(uint8_t, 10, 0, 20)}, 0, {F32(0, 40, 5, 30, 100, 20)}},
        {"per tensor", {3, 1, 1}, {x, F32(2), ARR(uint8_t, 10)}, 0, {F32(0, 20, 40, 60, 80, 100)}},
        {"scale too short", {3, 2, 3}, {x, F32(1, 2), ARR(uint8_t, 10, 0, 20)}, -4, {{0}}},
        {"zero point too long", {3, 3, 5}, {x, sc, ARR(uint8_t, 1, 2, 3, 4, 5)}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* CumSum on [2, 3]: a runtime axis outside [-2, 2) is -7 */
Test(index, cumsum_axis) {
    static const Spec s = {"cumsum.onnx", 2, 1, {4}, {EXACT}};
    const Bytes x = F32(1, 2, 3, 4, 5, 6);
    const Case c[] = {
        {"axis 1", {0}, {x, I64(1)}, 0, {F32(1, 3, 6, 4, 9, 15)}},
        {"axis -2", {0}, {x, I64(-2)}, 0, {F32(1, 2, 3, 5, 7, 9)}},
        {"rank", {0}, {x, I64(2)}, -7, {{0}}},
        {"-rank - 1", {0}, {x, I64(-3)}, -7, {{0}}},
        {"INT64_MIN", {0}, {x, I64(MIN64)}, -7, {{0}}},
        {"INT64_MAX", {0}, {x, I64(MAX64)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* ReverseSequence on [4 steps, 2 batch] (x = 10 t + b): lengths in [0, 4] */
Test(index, reverse_sequence_lengths) {
    static const Spec s = {"revseq.onnx", 2, 1, {4}, {EXACT}};
    const Bytes x = F32(0, 1, 10, 11, 20, 21, 30, 31);
    const Case c[] = {
        {"4 and 1", {0}, {x, I64(4, 1)}, 0, {F32(30, 1, 20, 11, 10, 21, 0, 31)}},
        {"0 and 2", {0}, {x, I64(0, 2)}, 0, {F32(0, 11, 10, 1, 20, 21, 30, 31)}},
        {"steps + 1", {0}, {x, I64(5, 1)}, -7, {{0}}},
        {"-1", {0}, {x, I64(0, -1)}, -7, {{0}}},
        {"INT64_MIN", {0}, {x, I64(MIN64, 0)}, -7, {{0}}},
        {"INT64_MAX", {0}, {x, I64(0, MAX64)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* Trilu: any int64 k is valid (j - i is compared, never k shifted) */
Test(index, trilu_extreme_k) {
    const Bytes x = F32(1, 2, 3, 4, 5, 6, 7, 8, 9), zero = F32(0, 0, 0, 0, 0, 0, 0, 0, 0);
    static const Spec su = {"trilu_upper.onnx", 2, 1, {4}, {EXACT}};
    const Case cu[] = {
        {"INT64_MIN", {0}, {x, I64(MIN64)}, 0, {x}},
        {"INT64_MAX", {0}, {x, I64(MAX64)}, 0, {zero}},
        {"1", {0}, {x, I64(1)}, 0, {F32(0, 2, 3, 0, 0, 6, 0, 0, 0)}},
    };
    check(&su, cu, NCASES(cu));
    static const Spec sl = {"trilu_lower.onnx", 2, 1, {4}, {EXACT}};
    const Case cl[] = {
        {"INT64_MIN", {0}, {x, I64(MIN64)}, 0, {zero}},
        {"INT64_MAX", {0}, {x, I64(MAX64)}, 0, {x}},
        {"0", {0}, {x, I64(0)}, 0, {F32(1, 0, 0, 4, 5, 0, 7, 8, 9)}},
    };
    check(&sl, cl, NCASES(cl));
}

/* NegativeLogLikelihoodLoss (none, ignore_index -100) and SoftmaxCrossEntropyLoss (sum, with
 * the log_prob output): a target outside [0, C) that is not ignored is -7 */
Test(index, loss_targets) {
    const Bytes x = F32(1, 2, 3, 4, 5, 6);
    static const Spec s = {"nll.onnx", 2, 1, {4}, {FLOAT}};
    const Case c[] = {
        {"valid", {0}, {x, I64(0, 2)}, 0, {F32(-1, -6)}},
        {"ignored", {0}, {x, I64(-100, 1)}, 0, {F32(0, -5)}},
        {"C", {0}, {x, I64(3, 0)}, -7, {{0}}},
        {"-1", {0}, {x, I64(0, -1)}, -7, {{0}}},
        {"INT64_MIN", {0}, {x, I64(MIN64, 0)}, -7, {{0}}},
        {"INT64_MAX", {0}, {x, I64(0, MAX64)}, -7, {{0}}},
    };
    check(&s, c, NCASES(c));
    /* rows 1 2 3 and 4 5 6 have the same log-probabilities */
    double lse = log(exp(1.0) + exp(2.0) + exp(3.0));
    float lp[6];
    for (int i = 0; i < 6; i++)
        lp[i] = (float)((double)(i % 3 + 1) - lse);
    float loss = -(lp[0] + lp[5]);
    static const Spec ss = {"sce.onnx", 2, 2, {4, 4}, {FLOAT, FLOAT}};
    const Case cs[] = {
        {"valid", {0}, {x, I32(0, 2)}, 0, {{&loss, sizeof loss}, {lp, sizeof lp}}},
        {"C", {0}, {x, I32(3, 0)}, -7, {{0}}},
        {"INT32_MIN", {0}, {x, I32(INT32_MIN, 0)}, -7, {{0}}},
        {"INT32_MAX", {0}, {x, I32(0, INT32_MAX)}, -7, {{0}}},
    };
    check(&ss, cs, NCASES(cs));
}

/* Range with runtime int64 operands and a declared length of 4: the length and the values are
 * exact for operands at the int64 limits */
Test(index, range_int64_limits) {
    static const Spec s = {"range_rt.onnx", 3, 1, {8}, {EXACT}};
    const int64_t q = (int64_t)1 << 62;
    const Case c[] = {
        {"0..4", {0}, {I64(0), I64(4), I64(1)}, 0, {I64(0, 1, 2, 3)}},
        {"10 down to 2", {0}, {I64(10), I64(2), I64(-2)}, 0, {I64(10, 8, 6, 4)}},
        {"MIN..MAX by 2^62", {0}, {I64(MIN64), I64(MAX64), I64(q)}, 0,
         {I64(MIN64, MIN64 + q, 0, q)}},
        {"MAX..MIN by -2^62", {0}, {I64(MAX64), I64(MIN64), I64(-q)}, 0,
         {I64(MAX64, MAX64 - q, -1, -1 - q)}},
        {"MAX..MIN by MIN", {0}, {I64(MAX64), I64(MIN64), I64(MIN64)}, -4, {{0}}},
        {"MIN..MAX by 1", {0}, {I64(MIN64), I64(MAX64), I64(1)}, -4, {{0}}},
        {"0..MAX by 1", {0}, {I64(0), I64(MAX64), I64(1)}, -4, {{0}}},
        {"delta 0", {0}, {I64(0), I64(4), I64(0)}, -4, {{0}}},
        {"empty, delta MIN", {0}, {I64(-3), I64(1), I64(MIN64)}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* Slice of [5] with runtime starts, ends, axes, steps and a declared length of 2 */
Test(index, slice_int64_limits) {
    static const Spec s = {"slice_rt.onnx", 5, 1, {4}, {EXACT}};
    const Bytes x = F32(0, 1, 2, 3, 4), z = I64(0);
    const Case c[] = {
        {"0:5:3", {0}, {x, z, I64(5), z, I64(3)}, 0, {F32(0, 3)}},
        {"1:3", {0}, {x, I64(1), I64(3), z, I64(1)}, 0, {F32(1, 2)}},
        {"MAX:MIN:-3", {0}, {x, I64(MAX64), I64(MIN64), z, I64(-3)}, 0, {F32(4, 1)}},
        {"MAX:-3:-1", {0}, {x, I64(MAX64), I64(-3), z, I64(-1)}, 0, {F32(4, 3)}},
        {"MIN:MAX:3 on axis -1", {0}, {x, I64(MIN64), I64(MAX64), I64(-1), I64(3)}, 0,
         {F32(0, 3)}},
        {"step MAX", {0}, {x, z, I64(MAX64), z, I64(MAX64)}, -4, {{0}}},
        {"step MIN", {0}, {x, I64(MAX64), I64(MIN64), z, I64(MIN64)}, -4, {{0}}},
        {"axis MIN", {0}, {x, z, I64(5), I64(MIN64), I64(3)}, -4, {{0}}},
        {"axis MAX", {0}, {x, z, I64(5), I64(MAX64), I64(3)}, -4, {{0}}},
        {"step 0", {0}, {x, z, I64(5), z, z}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* Pad of [3] to a declared [5] with runtime pads: begin + end must be 2 (as integers, never
 * overflowing); pads near the int64 limits that satisfy it pad everything */
Test(index, pad_int64_limits) {
    const Bytes x = F32(1, 2, 3);
    static const Spec s = {"pad_constant_rt.onnx", 2, 1, {4}, {EXACT}};
    const Case c[] = {
        {"1, 1", {0}, {x, I64(1, 1)}, 0, {F32(9, 1, 2, 3, 9)}},
        {"-1, 3", {0}, {x, I64(-1, 3)}, 0, {F32(2, 3, 9, 9, 9)}},
        {"MAX, 2 - MAX", {0}, {x, I64(MAX64, 2 - MAX64)}, 0, {F32(9, 9, 9, 9, 9)}},
        {"MIN + 3, MAX", {0}, {x, I64(MIN64 + 3, MAX64)}, 0, {F32(9, 9, 9, 9, 9)}},
        {"MAX, MIN", {0}, {x, I64(MAX64, MIN64)}, -4, {{0}}},
        {"MIN, MIN", {0}, {x, I64(MIN64, MIN64)}, -4, {{0}}},
        {"MAX, MAX", {0}, {x, I64(MAX64, MAX64)}, -4, {{0}}},
        {"3, 0", {0}, {x, I64(3, 0)}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
    static const Spec se = {"pad_edge_rt.onnx", 2, 1, {4}, {EXACT}};
    const Case ce[] = {
        {"1, 1", {0}, {x, I64(1, 1)}, 0, {F32(1, 1, 2, 3, 3)}},
        {"-1, 3", {0}, {x, I64(-1, 3)}, 0, {F32(2, 3, 3, 3, 3)}},
        {"MAX, 2 - MAX", {0}, {x, I64(MAX64, 2 - MAX64)}, 0, {F32(1, 1, 1, 1, 1)}},
        {"MIN + 3, MAX", {0}, {x, I64(MIN64 + 3, MAX64)}, 0, {F32(3, 3, 3, 3, 3)}},
        {"MAX, MIN", {0}, {x, I64(MAX64, MIN64)}, -4, {{0}}},
    };
    check(&se, ce, NCASES(ce));
}

/* Tile of [2] to a declared [6]: repeats * 2 == 6 without computing an overflowing product */
Test(index, tile_int64_limits) {
    static const Spec s = {"tile_rt.onnx", 2, 1, {4}, {EXACT}};
    const Bytes x = F32(1, 2);
    const Case c[] = {
        {"3", {0}, {x, I64(3)}, 0, {F32(1, 2, 1, 2, 1, 2)}},
        {"INT64_MAX", {0}, {x, I64(MAX64)}, -4, {{0}}},
        {"2^62 (the product wraps)", {0}, {x, I64((int64_t)1 << 62)}, -4, {{0}}},
        {"INT64_MIN", {0}, {x, I64(MIN64)}, -4, {{0}}},
        {"-3", {0}, {x, I64(-3)}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
}

/* Resize with runtime scales (nearest, x2) and with a runtime crop roi (tf_crop_and_resize,
 * extrapolation -1): NaN, infinite and huge values are -4 or extrapolated, never converted */
Test(index, resize_hostile_floats) {
    static const Spec s = {"resize_scales_rt.onnx", 2, 1, {4}, {EXACT}};
    const Bytes x = F32(1, 2, 3, 4);
    const Case c[] = {
        {"x2", {0}, {x, F32(1, 1, 2, 2)}, 0,
         {F32(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4)}},
        {"inf", {0}, {x, F32(1, 1, INF_F, 2)}, -4, {{0}}},
        {"NaN", {0}, {x, F32(1, 1, 2, NAN_F)}, -4, {{0}}},
        {"3.4e38", {0}, {x, F32(1, 1, 3.4e38f, 2)}, -4, {{0}}},
        {"inf on a batch axis", {0}, {x, F32(INF_F, 1, 2, 2)}, -4, {{0}}},
        {"-2", {0}, {x, F32(1, 1, -2, 2)}, -4, {{0}}},
    };
    check(&s, c, NCASES(c));
    static const Spec sc = {"resize_crop_rt.onnx", 2, 1, {4}, {EXACT}};
    float x16[16];
    for (int i = 0; i < 16; i++)
        x16[i] = (float)i;
    const Bytes xb = {x16, sizeof x16}, out = F32(-1, -1, -1, -1);
    const Case cc[] = {
        {"the corners", {0}, {xb, F32(0, 0, 0, 0, 1, 1, 1, 1)}, 0, {F32(0, 3, 12, 15)}},
        {"NaN", {0}, {xb, F32(0, 0, NAN_F, 0, 1, 1, 1, 1)}, 0, {out}},
        {"inf", {0}, {xb, F32(0, 0, 0, 0, 1, 1, INF_F, 1)}, 0, {out}},
        {"1e30", {0}, {xb, F32(0, 0, -1e30f, 0, 1, 1, 1e30f, 1)}, 0, {out}},
    };
    check(&sc, cc, NCASES(cc));
}
