/* test_lower_qdq.c — the lowering of QDQ patterns (compiler/lower.c, rewrite 0): DequantizeLinear
 * -> Conv / Gemm -> [Relu | Clip] -> QuantizeLinear compiled as the integer QLinearConv /
 * QLinearMatMul kernels (the weight stays int8, no dequantized copy), checked against an integer
 * reference written here (int32 sums, multiplier x_scale * w_scale / y_scale in float, the
 * product in double, round half to even, the activation as a clamp); and a pattern whose float
 * tensor has another reader, left as it is. */
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
        cr_assert(!strstr(src, "t__wf") && !strstr(src, "DequantizeLinear"),
                  "a DequantizeLinear is left");
    } else {
        cr_assert(!strstr(src, "qi8_conv(") && !strstr(src, "quant_conv("), "rewritten despite a second reader of the float output");
        cr_assert(strstr(src, "t__wf") && strstr(src, "DequantizeLinear"));
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
    MgGraph *g = mg_new(13);
    mg_input(g, "aq", MG_INT8, 2, (const MgDim[]){{NULL, R}, {NULL, K}});
    mg_init(g, "as", MG_FLOAT, 0, NULL, &XS);
    mg_init(g, "az", MG_INT8, 0, NULL, (const int8_t[]){XZ});
    mg_init(g, "bq", MG_INT8, 2, (const int64_t[]){N, K}, bq);
    mg_init(g, "bs", MG_FLOAT, 1, (const int64_t[]){N}, bsc);
    mg_init(g, "cb", MG_FLOAT, 1, (const int64_t[]){N}, cb);
    mg_init(g, "lo", MG_FLOAT, 0, NULL, &lo);
    mg_init(g, "hi", MG_FLOAT, 0, NULL, &hi);
    mg_init(g, "ys", MG_FLOAT, 0, NULL, &YS);
    mg_init(g, "yz", MG_INT8, 0, NULL, (const int8_t[]){YZ});
    mg_node(g, "DequantizeLinear", "dqa", 3, (const char *[]){"aq", "as", "az"}, 1,
            (const char *[]){"af"});
    MgNode *d = mg_node(g, "DequantizeLinear", "dqb", 2, (const char *[]){"bq", "bs"}, 1,
                        (const char *[]){"bf"});
    mg_attr_int(d, "axis", 0);
    MgNode *gm = mg_node(g, "Gemm", "gemm", 3, (const char *[]){"af", "bf", "cb"}, 1,
                         (const char *[]){"yf"});
    mg_attr_int(gm, "transB", 1);
    mg_node(g, "Clip", "clip", 3, (const char *[]){"yf", "lo", "hi"}, 1, (const char *[]){"cf"});
    mg_node(g, "QuantizeLinear", "q", 3, (const char *[]){"cf", "ys", "yz"}, 1,
            (const char *[]){"yq"});
    mg_output(g, "yq", MG_INT8, 2, (const MgDim[]){{NULL, R}, {NULL, N}});
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, NULL);
    cr_assert(strstr(m.o.c_src, "qi8_rows(") && !strstr(m.o.c_src, "DequantizeLinear") &&
              !strstr(m.o.c_src, "t__bf"), "not lowered to QLinearMatMul");
    int8_t a[R * K], y[R * N];
    for (int i = 0; i < R * K; i++)
        a[i] = (int8_t)((i * 29 + 3) % 256 - 128);
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){a}, (void *[]){y}), 0);
    double qlo = nearbyintf(lo / YS) + YZ, qhi = nearbyintf(hi / YS) + YZ;
    for (int r = 0; r < R; r++)
        for (int o = 0; o < N; o++) {
            float s = XS * bsc[o];
            int32_t acc = (int32_t)nearbyintf(cb[o] / s);
            for (int k = 0; k < K; k++)
                acc += (a[r * K + k] - XZ) * bq[o * K + k];
            double q = rint((double)acc * (double)(s / YS)) + YZ;
            q = q < qlo ? qlo : q > qhi ? qhi : q;
            cr_assert_eq(y[r * N + o], (int8_t)q, "y[%d,%d] = %d, want %d", r, o, y[r * N + o],
                         (int)q);
        }
    tu_close(&m);
    unlink(path);
}
