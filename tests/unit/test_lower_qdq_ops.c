/* test_lower_qdq_ops.c — the QDQ patterns of compiler/lower.c (rewrite 0b) around the ops other
 * than Conv / MatMul / Gemm: DequantizeLinear -> Add / Mul / Concat / AveragePool /
 * GlobalAveragePool / Sigmoid / HardSwish / LeakyRelu / Relu / Clip / MaxPool / Reshape / Flatten /
 * Transpose / Resize (nearest) -> [Relu | Clip] -> QuantizeLinear compiled as the com.microsoft integer ops
 * (compiler/ops/quant_ms.c) or as the op on the 8-bit tensor: the lowered op is in the C, no
 * DequantizeLinear, QuantizeLinear or float op is left, and the outputs equal a reference
 * written here with the float32 operations quant_ms.c documents (DQ -> op -> Q in float32, the
 * pools an integer sum of the window).  Also: float ops that stay between DQ and Q (Softmax,
 * ConvTranspose, a linear Resize) are named by --report, and a pattern whose float tensor has a
 * second reader is left as is. */
#include "modelgen.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Q8 {
    float s;
    int z;
} Q8;

static float dq(int q, Q8 p) { return ((float)q - (float)p.z) * p.s; }

/* QuantizeLinear into int8 (u8 false) or uint8, clamped to [lo, hi] within the type. */
static int quant(float v, Q8 p, bool u8, int lo, int hi) {
    float r = nearbyintf(v / p.s) + (float)p.z;
    int tlo = u8 ? 0 : -128, thi = u8 ? 255 : 127;
    int q = r != r ? 0 : r < (float)tlo ? tlo : r > (float)thi ? thi : (int)r;
    return q < lo ? lo : q > hi ? hi : q;
}

static void path_of(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "/tmp/onnx2c-qdqops-%d-%s.onnx", (int)getpid(), name);
}

/* Initializers NAME_s (float) and NAME_z (int8/uint8) holding p. */
static void qinit(MgGraph *g, const char *name, Q8 p, int dt) {
    char s[64], z[64];
    snprintf(s, sizeof s, "%s_s", name);
    snprintf(z, sizeof z, "%s_z", name);
    mg_init(g, s, MG_FLOAT, 0, NULL, &p.s);
    if (dt == MG_INT8)
        mg_init(g, z, dt, 0, NULL, (const int8_t[]){(int8_t)p.z});
    else
        mg_init(g, z, dt, 0, NULL, (const uint8_t[]){(uint8_t)p.z});
}

/* DQ / Q nodes with the parameters of qinit(NAME). */
static void qdqnode(MgGraph *g, const char *op, const char *x, const char *name, const char *y) {
    char s[64], z[64], nn[64];
    snprintf(s, sizeof s, "%s_s", name);
    snprintf(z, sizeof z, "%s_z", name);
    snprintf(nn, sizeof nn, "%s_%s", op, y);
    mg_node(g, op, nn, 3, (const char *[]){x, s, z}, 1, (const char *[]){y});
}

static MgDim *dims_of(int rank, const int64_t *d) {
    static MgDim buf[4][8];
    static int k;
    MgDim *m = buf[k++ % 4];
    for (int i = 0; i < rank; i++)
        m[i] = (MgDim){NULL, d[i]};
    return m;
}

static int64_t numel(int rank, const int64_t *d) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= d[i];
    return n;
}

static void fill(uint8_t *x, int64_t n, unsigned seed) {
    for (int64_t i = 0; i < n; i++)
        x[i] = (uint8_t)((i * 73 + seed * 31 + (i * i) % 17) & 255);
}

/* The C of path: must hold ": WANT " (the lowered op's node comment) and no DequantizeLinear,
 * QuantizeLinear or `banned` node left. */
static void expect_lowered(const TuModel *m, const char *want, const char *banned) {
    const char *src = m->o.c_src;
    char w[80];
    snprintf(w, sizeof w, ": %s ", want);
    cr_assert(strstr(src, w), "no %s in the generated C", want);
    cr_assert(!strstr(src, ": DequantizeLinear ") && !strstr(src, ": QuantizeLinear "),
              "a DequantizeLinear or QuantizeLinear is left");
    if (banned) {
        snprintf(w, sizeof w, ": %s ", banned);
        cr_assert(!strstr(src, w), "the float %s is left", banned);
    }
}

static void expect_bytes(const uint8_t *got, const int *want, int64_t n, bool u8) {
    for (int64_t i = 0; i < n; i++) {
        int g = u8 ? got[i] : (int8_t)got[i];
        cr_assert_eq(g, want[i], "y[%lld] = %d, want %d", (long long)i, g, want[i]);
    }
}

/* ---- Add / Mul with broadcasting, [Relu] */

static void run_binary(const char *op, bool u8, bool relu, const char *cc) {
    enum { R = 3 };
    const int64_t ad[R] = {2, 3, 4}, bd[2] = {3, 1};
    int dt = u8 ? MG_UINT8 : MG_INT8;
    Q8 pa = {0.05f, u8 ? 130 : 3}, pb = {0.11f, u8 ? 120 : -7}, py = {0.09f, u8 ? 128 : -2};
    char path[128];
    path_of(path, sizeof path, op);
    MgGraph *g = mg_new(13);
    mg_input(g, "a", dt, R, dims_of(R, ad));
    mg_input(g, "b", dt, 2, dims_of(2, bd));
    qinit(g, "pa", pa, dt);
    qinit(g, "pb", pb, dt);
    qinit(g, "py", py, dt);
    qdqnode(g, "DequantizeLinear", "a", "pa", "af");
    qdqnode(g, "DequantizeLinear", "b", "pb", "bf");
    mg_node(g, op, "op", 2, (const char *[]){"af", "bf"}, 1, (const char *[]){"yf"});
    if (relu)
        mg_node(g, "Relu", "relu", 1, (const char *[]){"yf"}, 1, (const char *[]){"rf"});
    qdqnode(g, "QuantizeLinear", relu ? "rf" : "yf", "py", "y");
    mg_output(g, "y", dt, R, dims_of(R, ad));
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, cc);
    expect_lowered(&m, strcmp(op, "Add") ? "QLinearMul" : "QLinearAdd", op);
    uint8_t a[24], b[3], y[24];
    int want[24];
    fill(a, 24, 1);
    fill(b, 3, 2);
    for (int i = 0; i < 24; i++) {
        int ai = u8 ? a[i] : (int8_t)a[i], bi = u8 ? b[i / 4 % 3] : (int8_t)b[i / 4 % 3];
        float va = dq(ai, pa), vb = dq(bi, pb);
        float v = strcmp(op, "Add") ? va * vb : va + vb;
        if (relu)
            v = v < 0 ? 0.0f : v;
        want[i] = quant(v, py, u8, -128, 255);
    }
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){a, b}, (void *[]){y}), 0);
    expect_bytes(y, want, 24, u8);
    tu_close(&m);
    unlink(path);
}

Test(quant_qdq_ops, add_bcast_int8) { run_binary("Add", false, false, NULL); }
Test(quant_qdq_ops, add_bcast_int8_strict, .timeout = 120) {
    run_binary("Add", false, false, TU_STRICT_CC);
}
Test(quant_qdq_ops, mul_relu_uint8) { run_binary("Mul", true, true, NULL); }

/* ---- unary: Sigmoid, LeakyRelu, Relu, Clip over all 256 values */

static void run_unary(const char *op, bool u8, const char *cc) {
    int dt = u8 ? MG_UINT8 : MG_INT8;
    Q8 px = {0.04f, u8 ? 140 : 9}, py = {0.013f, u8 ? 100 : -20};
    if (!strcmp(op, "Sigmoid"))
        py = (Q8){1.0f / 256.0f, u8 ? 0 : -128};
    const float lo = -0.3f, hi = 0.9f;
    const int64_t d[2] = {16, 16};
    char path[128];
    path_of(path, sizeof path, op);
    MgGraph *g = mg_new(strcmp(op, "HardSwish") ? 13 : 14);
    mg_input(g, "x", dt, 2, dims_of(2, d));
    qinit(g, "px", px, dt);
    qinit(g, "py", py, dt);
    qdqnode(g, "DequantizeLinear", "x", "px", "xf");
    MgNode *n;
    if (!strcmp(op, "Clip")) {
        mg_init(g, "lo", MG_FLOAT, 0, NULL, &lo);
        mg_init(g, "hi", MG_FLOAT, 0, NULL, &hi);
        n = mg_node(g, op, "op", 3, (const char *[]){"xf", "lo", "hi"}, 1, (const char *[]){"yf"});
    } else {
        n = mg_node(g, op, "op", 1, (const char *[]){"xf"}, 1, (const char *[]){"yf"});
    }
    if (!strcmp(op, "LeakyRelu"))
        mg_attr_float(n, "alpha", 0.2f);
    qdqnode(g, "QuantizeLinear", "yf", "py", "y");
    mg_output(g, "y", dt, 2, dims_of(2, d));
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, cc);
    expect_lowered(&m, !strcmp(op, "Sigmoid")     ? "QLinearSigmoid"
                       : !strcmp(op, "HardSwish") ? "QLinearHardSwish"
                                                  : "QLinearLeakyRelu",
                   op);
    uint8_t x[256], y[256];
    int want[256];
    for (int i = 0; i < 256; i++) {
        x[i] = (uint8_t)i;
        float v = dq(u8 ? i : (int8_t)i, px), f;
        if (!strcmp(op, "Sigmoid"))
            f = 1.0f / (1.0f + expf(-v));
        else if (!strcmp(op, "LeakyRelu"))
            f = v < 0 ? 0.2f * v : v;
        else if (!strcmp(op, "HardSwish"))
            f = v * fmaxf(0.0f, fminf(1.0f, (float)(1.0 / 6.0) * v + 0.5f));
        else if (!strcmp(op, "Relu"))
            f = v < 0 ? 0.0f : v;
        else
            f = v < lo ? lo : v > hi ? hi : v;
        want[i] = quant(f, py, u8, -128, 255);
    }
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
    expect_bytes(y, want, 256, u8);
    tu_close(&m);
    unlink(path);
}

Test(quant_qdq_ops, sigmoid_int8) { run_unary("Sigmoid", false, NULL); }
Test(quant_qdq_ops, sigmoid_uint8_strict, .timeout = 120) { run_unary("Sigmoid", true, TU_STRICT_CC); }
Test(quant_qdq_ops, leakyrelu_int8) { run_unary("LeakyRelu", false, NULL); }
Test(quant_qdq_ops, hardswish_int8) { run_unary("HardSwish", false, NULL); }
Test(quant_qdq_ops, hardswish_uint8_strict, .timeout = 120) {
    run_unary("HardSwish", true, TU_STRICT_CC);
}
Test(quant_qdq_ops, relu_uint8) { run_unary("Relu", true, NULL); }
Test(quant_qdq_ops, clip_int8) { run_unary("Clip", false, NULL); }

/* ---- Concat of two tensors with their own parameters */

Test(quant_qdq_ops, concat_axis1_int8) {
    const int64_t d0[3] = {2, 2, 3}, d1[3] = {2, 1, 3}, dy[3] = {2, 3, 3};
    Q8 p0 = {0.02f, 5}, p1 = {0.07f, -9}, py = {0.05f, 1};
    char path[128];
    path_of(path, sizeof path, "concat");
    MgGraph *g = mg_new(13);
    mg_input(g, "x0", MG_INT8, 3, dims_of(3, d0));
    mg_input(g, "x1", MG_INT8, 3, dims_of(3, d1));
    qinit(g, "p0", p0, MG_INT8);
    qinit(g, "p1", p1, MG_INT8);
    qinit(g, "py", py, MG_INT8);
    qdqnode(g, "DequantizeLinear", "x0", "p0", "f0");
    qdqnode(g, "DequantizeLinear", "x1", "p1", "f1");
    MgNode *n = mg_node(g, "Concat", "op", 2, (const char *[]){"f0", "f1"}, 1,
                        (const char *[]){"yf"});
    mg_attr_int(n, "axis", 1);
    qdqnode(g, "QuantizeLinear", "yf", "py", "y");
    mg_output(g, "y", MG_INT8, 3, dims_of(3, dy));
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, NULL);
    expect_lowered(&m, "QLinearConcat", "Concat");
    uint8_t x0[12], x1[6], y[18];
    int want[18];
    fill(x0, 12, 3);
    fill(x1, 6, 4);
    for (int b = 0; b < 2; b++)
        for (int r = 0; r < 3; r++)
            for (int j = 0; j < 3; j++) {
                float v = r < 2 ? dq((int8_t)x0[(b * 2 + r) * 3 + j], p0)
                                : dq((int8_t)x1[b * 3 + j], p1);
                want[(b * 3 + r) * 3 + j] = quant(v, py, false, -128, 127);
            }
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x0, x1}, (void *[]){y}), 0);
    expect_bytes(y, want, 18, false);
    tu_close(&m);
    unlink(path);
}

/* ---- AveragePool (pads, count_include_pad 0), GlobalAveragePool: the integer window sum */

static void run_avgpool(bool global, const char *cc) {
    enum { C = 3, H = 5, W = 6 };
    const int64_t xd[4] = {1, C, H, W};
    const int64_t yd[4] = {1, C, global ? 1 : 3, global ? 1 : 3};
    Q8 px = {0.03f, -4}, py = {0.021f, 6};
    char path[128];
    path_of(path, sizeof path, global ? "gap" : "avgpool");
    MgGraph *g = mg_new(13);
    mg_input(g, "x", MG_INT8, 4, dims_of(4, xd));
    qinit(g, "px", px, MG_INT8);
    qinit(g, "py", py, MG_INT8);
    qdqnode(g, "DequantizeLinear", "x", "px", "xf");
    MgNode *n = mg_node(g, global ? "GlobalAveragePool" : "AveragePool", "op", 1,
                        (const char *[]){"xf"}, 1, (const char *[]){"yf"});
    if (!global) {
        mg_attr_ints(n, "kernel_shape", 2, (const int64_t[]){3, 3});
        mg_attr_ints(n, "strides", 2, (const int64_t[]){2, 2});
        mg_attr_ints(n, "pads", 4, (const int64_t[]){1, 1, 1, 0});
    }
    qdqnode(g, "QuantizeLinear", "yf", "py", "y");
    mg_output(g, "y", MG_INT8, 4, dims_of(4, yd));
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, cc);
    expect_lowered(&m, global ? "QLinearGlobalAveragePool" : "QLinearAveragePool",
                   global ? "GlobalAveragePool" : "AveragePool");
    uint8_t x[C * H * W], y[C * 9];
    int want[C * 9];
    fill(x, C * H * W, 5);
    int oh = (int)yd[2], ow = (int)yd[3];
    for (int ch = 0; ch < C; ch++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                int h0 = global ? 0 : i * 2 - 1, w0 = global ? 0 : j * 2 - 1;
                int kh = global ? H : 3, kw = global ? W : 3, acc = 0, cnt = 0;
                for (int a = h0; a < h0 + kh; a++)
                    for (int b = w0; b < w0 + kw; b++)
                        if (a >= 0 && a < H && b >= 0 && b < W) {
                            acc += (int8_t)x[(ch * H + a) * W + b] - px.z;
                            cnt++;
                        }
                float v = ((float)acc * px.s) / (float)cnt;
                want[(ch * oh + i) * ow + j] = quant(v, py, false, -128, 127);
            }
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
    expect_bytes(y, want, C * oh * ow, false);
    tu_close(&m);
    unlink(path);
}

Test(quant_qdq_ops, avgpool_pads) { run_avgpool(false, NULL); }
Test(quant_qdq_ops, avgpool_pads_strict, .timeout = 120) { run_avgpool(false, TU_STRICT_CC); }
Test(quant_qdq_ops, global_avgpool) { run_avgpool(true, NULL); }

/* ---- MaxPool / Transpose / Reshape / Flatten on the 8-bit tensor: with the same parameters
 * the op alone, with others the op then a requantization (QLinearLeakyRelu, alpha 1) */

static void run_layout(const char *op, bool same, const char *cc) {
    const int64_t xd[4] = {1, 2, 4, 4};
    int64_t yd[4] = {1, 2, 2, 2};
    int yr = 4;
    Q8 px = {0.03f, -4}, py = same ? px : (Q8){0.05f, 10};
    char path[128];
    path_of(path, sizeof path, op);
    MgGraph *g = mg_new(13);
    mg_input(g, "x", MG_INT8, 4, dims_of(4, xd));
    qinit(g, "px", px, MG_INT8);
    qinit(g, "py", py, MG_INT8);
    qdqnode(g, "DequantizeLinear", "x", "px", "xf");
    int nin = 1;
    if (!strcmp(op, "Reshape")) {
        mg_init(g, "shape", MG_INT64, 1, (const int64_t[]){2}, (const int64_t[]){4, 8});
        nin = 2;
        yr = 2, yd[0] = 4, yd[1] = 8;
    }
    if (!strcmp(op, "Resize")) { /* nearest, x2: y[c, i, j] = x[c, i / 2, j / 2] */
        mg_init(g, "scales", MG_FLOAT, 1, (const int64_t[]){4}, (const float[]){1, 1, 2, 2});
        nin = 3;
        yd[2] = 8, yd[3] = 8;
    }
    MgNode *n = mg_node(g, op, "op", nin,
                        (const char *[]){"xf", nin == 3 ? "" : "shape", "scales"}, 1,
                        (const char *[]){"yf"});
    if (!strcmp(op, "MaxPool")) {
        mg_attr_ints(n, "kernel_shape", 2, (const int64_t[]){2, 2});
        mg_attr_ints(n, "strides", 2, (const int64_t[]){2, 2});
    } else if (!strcmp(op, "Transpose")) {
        mg_attr_ints(n, "perm", 4, (const int64_t[]){0, 2, 3, 1});
        yd[1] = 4, yd[2] = 4, yd[3] = 2;
    } else if (!strcmp(op, "Flatten")) {
        yr = 2, yd[0] = 1, yd[1] = 32;
    }
    qdqnode(g, "QuantizeLinear", "yf", "py", "y");
    mg_output(g, "y", MG_INT8, yr, dims_of(yr, yd));
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, cc);
    expect_lowered(&m, same ? op : "QLinearLeakyRelu", NULL);
    char w[64];
    snprintf(w, sizeof w, ": %s ", op);
    cr_assert(strstr(m.o.c_src, w), "the %s on int8 is missing", op);
    uint8_t x[32], y[128];
    int want[128];
    fill(x, 32, 6);
    int64_t ny = numel(yr, yd);
    for (int64_t i = 0; i < ny; i++) {
        int q;
        if (!strcmp(op, "MaxPool")) {
            int ch = (int)(i / 4), oi = (int)(i / 2 % 2), oj = (int)(i % 2);
            q = -128;
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++) {
                    int v = (int8_t)x[(ch * 4 + oi * 2 + a) * 4 + oj * 2 + b];
                    q = v > q ? v : q;
                }
        } else if (!strcmp(op, "Resize")) {
            int ch = (int)(i / 64), oi = (int)(i / 8 % 8), oj = (int)(i % 8);
            q = (int8_t)x[(ch * 4 + oi / 2) * 4 + oj / 2];
        } else if (!strcmp(op, "Transpose")) { /* y[0,h,w,c] = x[0,c,h,w] */
            int h = (int)(i / 8), ww = (int)(i / 2 % 4), ch = (int)(i % 2);
            q = (int8_t)x[(ch * 4 + h) * 4 + ww];
        } else {
            q = (int8_t)x[i];
        }
        want[i] = quant(dq(q, px), py, false, -128, 127);
    }
    cr_assert_eq(tu_run(&m, NULL, (const void *[]){x}, (void *[]){y}), 0);
    expect_bytes(y, want, ny, false);
    tu_close(&m);
    unlink(path);
}

Test(quant_qdq_ops, maxpool_same_params) { run_layout("MaxPool", true, NULL); }
Test(quant_qdq_ops, maxpool_requant_strict, .timeout = 120) {
    run_layout("MaxPool", false, TU_STRICT_CC);
}
Test(quant_qdq_ops, transpose_requant) { run_layout("Transpose", false, NULL); }
Test(quant_qdq_ops, reshape_same_params) { run_layout("Reshape", true, NULL); }
Test(quant_qdq_ops, flatten_same_params) { run_layout("Flatten", true, NULL); }
Test(quant_qdq_ops, resize_nearest_same_params) { run_layout("Resize", true, NULL); }
Test(quant_qdq_ops, resize_nearest_requant_strict, .timeout = 120) {
    run_layout("Resize", false, TU_STRICT_CC);
}

/* ---- what stays on the float path: a Softmax between DQ and Q (named by --report), and an
 * Add whose float output has a second reader (left as it is) */

/* Compiles path with --report into text (size n): the generated C in *o. */
static void compile_report(const char *path, Output *o, char *text, size_t n) {
    char rep[160];
    snprintf(rep, sizeof rep, "%s.report", path);
    FILE *f = fopen(rep, "w+");
    cr_assert(f);
    Options opt = {0};
    opt.report = true;
    opt.report_out = f;
    char err[512];
    cr_assert_eq(onnx2c_compile(path, &opt, o, err, sizeof err), 0, "%s", err);
    rewind(f);
    size_t len = fread(text, 1, n - 1, f);
    fclose(f);
    text[len] = 0;
    unlink(rep);
}

Test(quant_qdq_ops, float_path_reported_and_second_reader_kept) {
    const int64_t d[2] = {2, 5};
    Q8 p = {0.1f, 0}, py = {1.0f / 256.0f, -128};
    char path[128];
    path_of(path, sizeof path, "softmax");
    MgGraph *g = mg_new(13);
    mg_input(g, "x", MG_INT8, 2, dims_of(2, d));
    qinit(g, "p", p, MG_INT8);
    qinit(g, "py", py, MG_INT8);
    qdqnode(g, "DequantizeLinear", "x", "p", "xf");
    mg_node(g, "Softmax", "sm", 1, (const char *[]){"xf"}, 1, (const char *[]){"sf"});
    qdqnode(g, "QuantizeLinear", "sf", "py", "y");
    mg_node(g, "Add", "add", 2, (const char *[]){"xf", "xf"}, 1, (const char *[]){"af"});
    qdqnode(g, "QuantizeLinear", "af", "p", "y2");
    mg_output(g, "y", MG_INT8, 2, dims_of(2, d));
    mg_output(g, "y2", MG_INT8, 2, dims_of(2, d));
    mg_output(g, "af", MG_FLOAT, 2, dims_of(2, d));
    mg_write(g, path);
    Output o;
    char text[8192];
    compile_report(path, &o, text, sizeof text);
    cr_assert(strstr(o.c_src, ": Softmax ") && strstr(o.c_src, ": Add "));
    cr_assert(!strstr(o.c_src, "QLinearAdd"), "rewritten despite a second reader");
    onnx2c_output_free(&o);
    cr_assert(strstr(text, "float path: node 'sm' (Softmax) between DequantizeLinear and "
                           "QuantizeLinear"), "report:\n%s", text);
    cr_assert(strstr(text, "float path: node 'add' (Add)"), "report:\n%s", text);
    unlink(path);
}

/* No integer kernel for these: ConvTranspose and a linear Resize between DQ and Q stay float,
 * named by --report. */
Test(quant_qdq_ops, convtranspose_and_linear_resize_reported) {
    const int64_t xd[4] = {1, 2, 3, 3}, yd[4] = {1, 2, 6, 6};
    Q8 p = {0.05f, 2};
    char path[128];
    path_of(path, sizeof path, "convt");
    MgGraph *g = mg_new(13);
    mg_input(g, "x", MG_INT8, 4, dims_of(4, xd));
    qinit(g, "p", p, MG_INT8);
    int8_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (int8_t)(i * 13 % 41 - 20);
    mg_init(g, "w", MG_INT8, 4, (const int64_t[]){2, 2, 2, 2}, w);
    mg_init(g, "ws", MG_FLOAT, 0, NULL, &p.s);
    mg_init(g, "scales", MG_FLOAT, 1, (const int64_t[]){4}, (const float[]){1, 1, 2, 2});
    qdqnode(g, "DequantizeLinear", "x", "p", "xf");
    mg_node(g, "DequantizeLinear", "dqw", 2, (const char *[]){"w", "ws"}, 1,
            (const char *[]){"wf"});
    MgNode *n = mg_node(g, "ConvTranspose", "ct", 2, (const char *[]){"xf", "wf"}, 1,
                        (const char *[]){"cf"});
    mg_attr_ints(n, "strides", 2, (const int64_t[]){2, 2});
    qdqnode(g, "QuantizeLinear", "cf", "p", "y");
    n = mg_node(g, "Resize", "rs", 3, (const char *[]){"xf", "", "scales"}, 1,
                (const char *[]){"rf"});
    mg_attr_str(n, "mode", "linear");
    qdqnode(g, "QuantizeLinear", "rf", "p", "y2");
    mg_output(g, "y", MG_INT8, 4, dims_of(4, yd));
    mg_output(g, "y2", MG_INT8, 4, dims_of(4, yd));
    mg_write(g, path);
    Output o;
    char text[8192];
    compile_report(path, &o, text, sizeof text);
    cr_assert(strstr(o.c_src, "ct: ConvTranspose ") && strstr(o.c_src, "rs: Resize "));
    onnx2c_output_free(&o);
    cr_assert(strstr(text, "float path: node 'ct' (ConvTranspose) between DequantizeLinear and "
                           "QuantizeLinear"), "report:\n%s", text);
    cr_assert(strstr(text, "float path: node 'rs' (Resize) between DequantizeLinear and "
                           "QuantizeLinear"), "report:\n%s", text);
    unlink(path);
}
