/* test_lower_qdq.c — the lowering of QDQ patterns (compiler/lower.c, rewrite 0): DequantizeLinear
 * -> Conv / Gemm -> [Relu | Clip] -> QuantizeLinear compiled as the integer QLinearConv /
 * QLinearMatMul kernels (the weight stays int8, no dequantized copy), checked against an integer
 * reference written here (int32 sums, multiplier x_scale * w_scale / y_scale in float, the
 * product in double, round half to even, the activation as a clamp); a MatMul of two run-time
 * int8/uint8 tensors; a MatMul whose bias is a separate Add (the bias rounded to int32 as the
 * quantizers round it); and patterns left as they are (a float tensor with another reader, a
 * bias that is not along the columns). */
#include "modelgen.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void model_path(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "/tmp/onnx2c-qdq-%d-%s.onnx", (int)getpid(), name);
}

enum { C = 2, M = 4, H = 5, W = 5 }; /* x [1,C,H,W], w [M,C,3,3], pads 1 */
static const float XS = 0.05f, YS = 0.1f;
static const int XZ = 3, YZ = -10;

typedef struct Net {
    int8_t wq[M * C * 9];
    float ws[M], bs[M];
    int32_t bq[M];
} Net;

static void make_net(Net *n) {
    for (int i = 0; i < M * C * 9; i++)
        n->wq[i] = (int8_t)((i * 37 + 11) % 255 - 127);
    for (int o = 0; o < M; o++) {
        n->ws[o] = 0.002f * (float)(o + 1);
        n->bs[o] = XS * n->ws[o];
        n->bq[o] = (o - 2) * 700;
    }
}

/* DQ(x) -> Conv(DQ(w), DQ(b)) -> [Relu] -> Q; with `extra`, the Conv's float output is also a
 * graph output (a second reader). */
static void write_conv(const char *path, const Net *n, bool relu, bool extra) {
    MgGraph *g = mg_new(13);
    MgDim xd[4] = {{NULL, 1}, {NULL, C}, {NULL, H}, {NULL, W}};
    MgDim yd[4] = {{NULL, 1}, {NULL, M}, {NULL, H}, {NULL, W}};
    mg_input(g, "xq", MG_INT8, 4, xd);
    mg_init(g, "xs", MG_FLOAT, 0, NULL, &XS);
    mg_init(g, "xz", MG_INT8, 0, NULL, (const int8_t[]){XZ});
    mg_init(g, "wq", MG_INT8, 4, (const int64_t[]){M, C, 3, 3}, n->wq);
    mg_init(g, "ws", MG_FLOAT, 1, (const int64_t[]){M}, n->ws);
    mg_init(g, "wz", MG_INT8, 1, (const int64_t[]){M}, (const int8_t[M]){0});
    mg_init(g, "bq", MG_INT32, 1, (const int64_t[]){M}, n->bq);
    mg_init(g, "bs", MG_FLOAT, 1, (const int64_t[]){M}, n->bs);
    mg_init(g, "bz", MG_INT32, 1, (const int64_t[]){M}, (const int32_t[M]){0});
    mg_init(g, "ys", MG_FLOAT, 0, NULL, &YS);
    mg_init(g, "yz", MG_INT8, 0, NULL, (const int8_t[]){YZ});
    mg_node(g, "DequantizeLinear", "dqx", 3, (const char *[]){"xq", "xs", "xz"}, 1,
            (const char *[]){"xf"});
    MgNode *d = mg_node(g, "DequantizeLinear", "dqw", 3, (const char *[]){"wq", "ws", "wz"}, 1,
                        (const char *[]){"wf"});
    mg_attr_int(d, "axis", 0);
    d = mg_node(g, "DequantizeLinear", "dqb", 3, (const char *[]){"bq", "bs", "bz"}, 1,
                (const char *[]){"bf"});
    mg_attr_int(d, "axis", 0);
    MgNode *cv = mg_node(g, "Conv", "conv", 3, (const char *[]){"xf", "wf", "bf"}, 1,
                         (const char *[]){"yf"});
    mg_attr_ints(cv, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    mg_attr_ints(cv, "kernel_shape", 2, (const int64_t[]){3, 3});
    if (relu)
        mg_node(g, "Relu", "relu", 1, (const char *[]){"yf"}, 1, (const char *[]){"rf"});
    mg_node(g, "QuantizeLinear", "q", 3, (const char *[]){relu ? "rf" : "yf", "ys", "yz"}, 1,
            (const char *[]){"yq"});
    mg_output(g, "yq", MG_INT8, 4, yd);
    if (extra)
        mg_output(g, "yf", MG_FLOAT, 4, yd);
    mg_write(g, path);
}

/* The QLinearConv definition, with the Relu as max(y, YZ). */
static void conv_ref(const Net *n, const int8_t *x, bool relu, int8_t *y) {
    for (int o = 0; o < M; o++)
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++) {
                int32_t acc = n->bq[o];
                for (int ci = 0; ci < C; ci++)
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++) {
                            int ii = i + a - 1, jj = j + b - 1;
                            if (ii < 0 || ii >= H || jj < 0 || jj >= W)
                                continue;
                            acc += (x[(ci * H + ii) * W + jj] - XZ) *
                                   n->wq[((o * C + ci) * 3 + a) * 3 + b];
                        }
                float mult = XS * n->ws[o] / YS;
                double q = rint((double)acc * (double)mult) + YZ;
                double lo = relu ? YZ : -128;
                y[(o * H + i) * W + j] = (int8_t)(q < lo ? lo : q > 127 ? 127 : q);
            }
}

static void run_conv(bool relu, bool extra, const char *cc) {
    char path[128];
    model_path(path, sizeof path, extra ? "conv_extra" : relu ? "conv_relu" : "conv");
    Net n;
    make_net(&n);
    write_conv(path, &n, relu, extra);
    TuModel m;
    tu_open(&m, path, cc);
    const char *src = m.o.c_src;
    if (!extra) {
        /* the integer kernel, the int8 weight, no float weight in the workspace */
        /* the int8 engine (templates/quant_i8.c) with the weight packed as int8 */
        cr_assert(strstr(src, "qi8_conv(") && strstr(src, "qi8_rq("), "no QLinearConv kernel");
        cr_assert(strstr(src, ".packed") && strstr(src, ": int8["), "weight not stored as int8");
        /* (": OP " is the comment of an emitted node; the profile build's table names every
         * node of the graph, folded ones too) */
        cr_assert(!strstr(src, "t__wf") && !strstr(src, ": DequantizeLinear "),
                  "a DequantizeLinear is left");
    } else {
        cr_assert(!strstr(src, "qi8_conv(") && !strstr(src, "quant_conv("), "rewritten despite a second reader of the float output");
        cr_assert(strstr(src, "t__wf") && strstr(src, ": DequantizeLinear "));
    }
    int8_t x[C * H * W], y[M * H * W], want[M * H * W];
    float yf[M * H * W];
    for (int i = 0; i < C * H * W; i++)
        x[i] = (int8_t)((i * 53 + 7) % 256 - 128);
    conv_ref(&n, x, relu, want);
    void *outs[2] = {y, yf};
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, outs), 0);
    for (int i = 0; i < M * H * W; i++)
        cr_assert_eq(y[i], want[i], "y[%d] = %d, want %d", i, y[i], want[i]);
    tu_close(&m);
    unlink(path);
}

Test(quant_qdq, conv_relu_tcc) { run_conv(true, false, NULL); }
Test(quant_qdq, conv_relu_strict, .timeout = 120) { run_conv(true, false, TU_STRICT_CC); }
Test(quant_qdq, conv_no_act) { run_conv(false, false, NULL); }
Test(quant_qdq, conv_extra_reader_kept) { run_conv(true, true, NULL); }

/* The parts of the Gemm / MatMul graphs below: the input aq [ad] behind DequantizeLinear (XS,
 * XZ) -> af, the constant int8 bq [bd] behind DequantizeLinear with the scales bsc [nb] along
 * axis -> bf, and the Clip to lo..hi -> QuantizeLinear (YS, YZ) of y -> yq (mm_tail). */
static MgGraph *mm_graph(int ar, const MgDim *ad, const int64_t *bd, const int8_t *bq,
                         const float *bsc, int64_t nb, int axis, const float *lo, const float *hi) {
    MgGraph *g = mg_new(13);
    mg_input(g, "aq", MG_INT8, ar, ad);
    mg_init(g, "as", MG_FLOAT, 0, NULL, &XS);
    mg_init(g, "az", MG_INT8, 0, NULL, (const int8_t[]){XZ});
    mg_init(g, "bq", MG_INT8, 2, bd, bq);
    mg_init(g, "bs", MG_FLOAT, 1, &nb, bsc);
    mg_init(g, "lo", MG_FLOAT, 0, NULL, lo);
    mg_init(g, "hi", MG_FLOAT, 0, NULL, hi);
    mg_init(g, "ys", MG_FLOAT, 0, NULL, &YS);
    mg_init(g, "yz", MG_INT8, 0, NULL, (const int8_t[]){YZ});
    mg_node(g, "DequantizeLinear", "dqa", 3, (const char *[]){"aq", "as", "az"}, 1,
            (const char *[]){"af"});
    MgNode *d = mg_node(g, "DequantizeLinear", "dqb", 2, (const char *[]){"bq", "bs"}, 1,
                        (const char *[]){"bf"});
    mg_attr_int(d, "axis", axis);
    return g;
}

static void mm_tail(MgGraph *g, const char *y) {
    mg_node(g, "Clip", "clip", 3, (const char *[]){y, "lo", "hi"}, 1, (const char *[]){"clf"});
    mg_node(g, "QuantizeLinear", "q", 3, (const char *[]){"clf", "ys", "yz"}, 1,
            (const char *[]){"yq"});
}

/* y [R, N] against QLinearMatMul of a [R, K] and bq (element (k, o) at k * sk + o * sn, column
 * scales bsc) with the int32 bias bi [N], the Clip to lo..hi a clamp of the output. */
static void mm_check(const int8_t *y, const int8_t *a, const int8_t *bq, int sk, int sn,
                     const float *bsc, const int32_t *bi, int R, int K, int N, float lo, float hi) {
    double qlo = nearbyintf(lo / YS) + YZ, qhi = nearbyintf(hi / YS) + YZ;
    for (int r = 0; r < R; r++)
        for (int o = 0; o < N; o++) {
            int32_t acc = bi[o];
            for (int k = 0; k < K; k++)
                acc += (a[r * K + k] - XZ) * bq[k * sk + o * sn];
            double q = rint((double)acc * (double)(XS * bsc[o] / YS)) + YZ;
            q = q < qlo ? qlo : q > qhi ? qhi : q;
            cr_assert_eq(y[r * N + o], (int8_t)q, "y[%d,%d] = %d, want %d", r, o, y[r * N + o],
                         (int)q);
        }
}

/* DQ(a) -> Gemm(DQ(b) with transB, per-column scales; a float bias) -> Clip -> Q, as
 * QLinearMatMul: b transposed, the bias quantized as rint(c / (a_scale * b_scale)) in float, the
 * Clip as the clamp to Q(lo)..Q(hi). */
Test(quant_qdq, gemm_transb_clip_float_bias) {
    enum { R = 2, K = 6, N = 3 };
    char path[128];
    model_path(path, sizeof path, "gemm");
    int8_t bq[N * K];
    float bsc[N], cb[N] = {0.3f, -0.45f, 0.01f};
    for (int i = 0; i < N * K; i++)
        bq[i] = (int8_t)((i * 41 + 5) % 255 - 127);
    for (int o = 0; o < N; o++)
        bsc[o] = 0.003f * (float)(o + 2);
    const float lo = -0.2f, hi = 0.5f;
    MgGraph *g = mm_graph(2, (const MgDim[]){{NULL, R}, {NULL, K}}, (const int64_t[]){N, K}, bq,
                          bsc, N, 0, &lo, &hi);
    mg_init(g, "cb", MG_FLOAT, 1, (const int64_t[]){N}, cb);
    MgNode *gm = mg_node(g, "Gemm", "gemm", 3, (const char *[]){"af", "bf", "cb"}, 1,
                         (const char *[]){"yf"});
    mg_attr_int(gm, "transB", 1);
    mm_tail(g, "yf");
    mg_output(g, "yq", MG_INT8, 2, (const MgDim[]){{NULL, R}, {NULL, N}});
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, NULL);
    cr_assert(strstr(m.o.c_src, "qi8_rows(") && !strstr(m.o.c_src, ": DequantizeLinear ") &&
              !strstr(m.o.c_src, "t__bf"), "not lowered to QLinearMatMul");
    int8_t a[R * K], y[R * N];
    for (int i = 0; i < R * K; i++)
        a[i] = (int8_t)((i * 29 + 3) % 256 - 128);
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){a}, (void *[]){y}), 0);
    int32_t bi[N];
    for (int o = 0; o < N; o++)
        bi[o] = (int32_t)nearbyintf(cb[o] / (XS * bsc[o]));
    mm_check(y, a, bq, 1, K, bsc, bi, R, K, N, lo, hi);
    tu_close(&m);
    unlink(path);
}

/* ---- MatMul of two run-time 8-bit tensors (attention's Q K^T, P V): DQ(a) -> MatMul <- DQ(b)
 * -> [Relu] -> Q as a QLinearMatMul whose B is a run-time input (the engine's qi8_rows_rt), int8
 * A and uint8 B with nonzero zero points, batched [2, R, K] x [2, K, N]. */

static void run_mm_rt(bool relu, const char *cc) {
    enum { BT = 2, R = 3, K = 5, N = 4 };
    const float as = 0.04f, bs = 0.07f, ys = 1.0f;
    const int az = -5, bz = 131;
    char path[128];
    model_path(path, sizeof path, relu ? "mm_rt_relu" : "mm_rt");
    MgGraph *g = mg_new(13);
    mg_input(g, "aq", MG_INT8, 3, (const MgDim[]){{NULL, BT}, {NULL, R}, {NULL, K}});
    mg_input(g, "bq", MG_UINT8, 3, (const MgDim[]){{NULL, BT}, {NULL, K}, {NULL, N}});
    mg_init(g, "as", MG_FLOAT, 0, NULL, &as);
    mg_init(g, "az", MG_INT8, 0, NULL, (const int8_t[]){az});
    mg_init(g, "bs", MG_FLOAT, 0, NULL, &bs);
    mg_init(g, "bz", MG_UINT8, 0, NULL, (const uint8_t[]){bz});
    mg_init(g, "ys", MG_FLOAT, 0, NULL, &ys);
    mg_init(g, "yz", MG_INT8, 0, NULL, (const int8_t[]){YZ});
    mg_node(g, "DequantizeLinear", "dqa", 3, (const char *[]){"aq", "as", "az"}, 1,
            (const char *[]){"af"});
    mg_node(g, "DequantizeLinear", "dqb", 3, (const char *[]){"bq", "bs", "bz"}, 1,
            (const char *[]){"bf"});
    mg_node(g, "MatMul", "mm", 2, (const char *[]){"af", "bf"}, 1, (const char *[]){"yf"});
    if (relu)
        mg_node(g, "Relu", "relu", 1, (const char *[]){"yf"}, 1, (const char *[]){"rf"});
    mg_node(g, "QuantizeLinear", "q", 3, (const char *[]){relu ? "rf" : "yf", "ys", "yz"}, 1,
            (const char *[]){"yq"});
    mg_output(g, "yq", MG_INT8, 3, (const MgDim[]){{NULL, BT}, {NULL, R}, {NULL, N}});
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, cc);
    const char *src = m.o.c_src;
    cr_assert(strstr(src, "mm: QLinearMatMul ") && strstr(src, "qi8_rows_rt("),
              "not lowered to QLinearMatMul with a run-time B");
    cr_assert(!strstr(src, ": DequantizeLinear ") && !strstr(src, ": QuantizeLinear "),
              "a DequantizeLinear or QuantizeLinear is left");
    int8_t a[BT * R * K], y[BT * R * N];
    uint8_t b[BT * K * N];
    for (int i = 0; i < BT * R * K; i++)
        a[i] = (int8_t)((i * 89 + 17) % 256 - 128);
    for (int i = 0; i < BT * K * N; i++)
        b[i] = (uint8_t)((i * 61 + 40) % 256);
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){a, b}, (void *[]){y}), 0);
    float mult = as * bs / ys;
    for (int t = 0; t < BT; t++)
        for (int r = 0; r < R; r++)
            for (int o = 0; o < N; o++) {
                int32_t acc = 0;
                for (int k = 0; k < K; k++)
                    acc += (a[(t * R + r) * K + k] - az) * (b[(t * K + k) * N + o] - bz);
                double q = rint((double)acc * (double)mult) + YZ, lo = relu ? YZ : -128;
                q = q < lo ? lo : q > 127 ? 127 : q;
                int i = (t * R + r) * N + o;
                cr_assert_eq(y[i], (int8_t)q, "y[%d] = %d, want %d", i, y[i], (int)q);
            }
    tu_close(&m);
    unlink(path);
}

Test(quant_qdq, matmul_runtime_b) { run_mm_rt(false, NULL); }
Test(quant_qdq, matmul_runtime_b_relu_strict, .timeout = 120) { run_mm_rt(true, TU_STRICT_CC); }

/* ---- MatMul then its bias as a separate Add (torch's Linear): DQ(a) -> MatMul(DQ(b constant,
 * per column)) -> Add(bias) -> [Clip] -> Q as QLinearMatMul with the int32 bias: a float bias
 * [N] rounded as the quantizers round it, rint(bias / (a_scale * b_scale)) in float, or the
 * DequantizeLinear of an int32 [1, N] bias (the Add's first input); with a bias of shape [R, N]
 * (not along the columns) the float MatMul and Add stay. */

enum { BIAS_FLOAT, BIAS_INT32_ROW, BIAS_MATRIX };

static void run_mm_bias(int form, const char *cc) {
    enum { R = 3, K = 6, N = 4 };
    char path[128];
    model_path(path, sizeof path, form == BIAS_FLOAT ? "mm_fbias" : form == BIAS_INT32_ROW ? "mm_ibias" : "mm_mbias");
    int8_t bq[K * N];
    float bsc[N], fb[R * N];
    int32_t ib[N] = {-900, 35, 1200, 7};
    for (int i = 0; i < K * N; i++)
        bq[i] = (int8_t)((i * 43 + 9) % 255 - 127);
    for (int o = 0; o < N; o++)
        bsc[o] = 0.0005f * (float)(o + 1);
    for (int i = 0; i < R * N; i++)
        fb[i] = 0.37f * (float)(i % 5) - 0.71f;
    const float lo = -1.5f, hi = 2.0f;
    MgGraph *g = mm_graph(3, (const MgDim[]){{NULL, 1}, {NULL, R}, {NULL, K}},
                          (const int64_t[]){K, N}, bq, bsc, N, 1, &lo, &hi);
    MgNode *d;
    mg_node(g, "MatMul", "mm", 2, (const char *[]){"af", "bf"}, 1, (const char *[]){"mf"});
    float ibs[N];
    for (int o = 0; o < N; o++)
        ibs[o] = XS * bsc[o];
    if (form == BIAS_INT32_ROW) {
        mg_init(g, "ib", MG_INT32, 2, (const int64_t[]){1, N}, ib);
        mg_init(g, "ibs", MG_FLOAT, 1, (const int64_t[]){N}, ibs);
        d = mg_node(g, "DequantizeLinear", "dqbias", 2, (const char *[]){"ib", "ibs"}, 1,
                    (const char *[]){"cf"});
        mg_attr_int(d, "axis", 1);
        mg_node(g, "Add", "add", 2, (const char *[]){"cf", "mf"}, 1, (const char *[]){"yf"});
    } else {
        mg_init(g, "fb", MG_FLOAT, form == BIAS_FLOAT ? 1 : 2,
                form == BIAS_FLOAT ? (const int64_t[]){N} : (const int64_t[]){R, N}, fb);
        mg_node(g, "Add", "add", 2, (const char *[]){"mf", "fb"}, 1, (const char *[]){"yf"});
    }
    mm_tail(g, "yf");
    mg_output(g, "yq", MG_INT8, 3, (const MgDim[]){{NULL, 1}, {NULL, R}, {NULL, N}});
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, cc);
    const char *src = m.o.c_src;
    if (form == BIAS_MATRIX) {
        cr_assert(strstr(src, "mm: MatMul ") && strstr(src, ": DequantizeLinear "),
                  "a bias that is not along the columns was folded");
        tu_close(&m);
        unlink(path);
        return;
    }
    cr_assert(strstr(src, "mm: QLinearMatMul ") && strstr(src, "qi8_rows("),
              "not lowered to QLinearMatMul");
    cr_assert(!strstr(src, ": DequantizeLinear ") && !strstr(src, ": Add ") &&
              !strstr(src, ": QuantizeLinear "), "a float node of the pattern is left");
    int8_t a[R * K], y[R * N];
    for (int i = 0; i < R * K; i++)
        a[i] = (int8_t)((i * 71 + 13) % 256 - 128);
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){a}, (void *[]){y}), 0);
    int32_t bi[N];
    for (int o = 0; o < N; o++)
        bi[o] = form == BIAS_FLOAT ? (int32_t)nearbyintf(fb[o] / (XS * bsc[o])) : ib[o];
    mm_check(y, a, bq, N, 1, bsc, bi, R, K, N, lo, hi);
    tu_close(&m);
    unlink(path);
}

Test(quant_qdq, matmul_add_float_bias) { run_mm_bias(BIAS_FLOAT, NULL); }
Test(quant_qdq, matmul_add_float_bias_strict, .timeout = 120) {
    run_mm_bias(BIAS_FLOAT, TU_STRICT_CC);
}
Test(quant_qdq, matmul_add_int32_bias_row) { run_mm_bias(BIAS_INT32_ROW, NULL); }
Test(quant_qdq, matmul_add_matrix_kept) { run_mm_bias(BIAS_MATRIX, NULL); }
