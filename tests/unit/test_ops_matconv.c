/* test_ops_matconv.c — the matmul and conv families (compiler/ops/matmul.c, conv.c) and their
 * kernels (templates/gemm.c, conv_im2col.c, conv_col2im.c).
 *
 * - infer rules seen through onnx2c_compile: symbolic output shapes in the generated header,
 *   the generated NAME_output_shape / NAME_check for concrete dims, one-line errors;
 * - models with symbolic dims (tests/data/matconv/make_matconv.py) JIT-compiled with libtcc,
 *   run at several sizes with one compiled C file, and compared with direct loops written here
 *   (Conv with asymmetric pads, strides, dilations; SAME_LOWER with groups; a correlation whose
 *   weight is a runtime input with symbolic kernel dims; ConvTranspose; batched MatMul);
 * - the GEMM template included as C (T = float) against a naive triple loop. */
#include "libonnx2c.h"
#include "runtime.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T float
#include "../../templates/gemm.c"
#undef T

#define MC ONNX2C_SOURCE_DIR "/tests/data/matconv/"

/* ------------------------------------------------------------------ compiling and running */

static int compile(const char *path, Output *out, char *err, size_t errlen) {
    Options opt = {0};
    opt.name = "model";
    memset(out, 0, sizeof *out);
    err[0] = 0;
    return onnx2c_compile(path, &opt, out, err, errlen);
}

static void expect_error(const char *path, const char *fragment) {
    char err[1024];
    Output out;
    int st = compile(path, &out, err, sizeof err);
    if (st == O2C_OK)
        onnx2c_output_free(&out);
    cr_assert_eq(st, O2C_EMODEL, "%s: status %d, want %d: %s", path, st, O2C_EMODEL, err);
    cr_assert(strstr(err, fragment), "%s: message lacks \"%s\": %s", path, fragment, err);
    cr_assert(!strchr(err, '\n'), "message is not one line: %s", err);
}

static void expect_header(const char *path, const char *fragment) {
    char err[1024];
    Output out;
    int st = compile(path, &out, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", path, err);
    cr_assert(strstr(out.h_src, fragment), "%s: header lacks \"%s\":\n%s", path, fragment,
              out.h_src);
    onnx2c_output_free(&out);
}

typedef int (*check_fn)(const int64_t *);
typedef size_t (*ws_fn)(const int64_t *);
typedef int (*shape_fn)(const int64_t *, int, int64_t *);
typedef int (*run_fn)(const int64_t *, const void *const *, void *const *, void *);

typedef struct Model {
    Output out;
    Jit *j;
    check_fn check;
    ws_fn wsize;
    shape_fn oshape;
    run_fn run;
} Model;

static void build(Model *m, const char *path) {
    char err[1024];
    int st = compile(path, &m->out, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", path, err);
    m->j = jit_compile(m->out.c_src, "model.h", m->out.h_src, NULL, err, sizeof err);
    cr_assert_not_null(m->j, "%s: %s", path, err);
    m->check = (check_fn)jit_symbol(m->j, "model_check");
    m->wsize = (ws_fn)jit_symbol(m->j, "model_workspace_size");
    m->oshape = (shape_fn)jit_symbol(m->j, "model_output_shape");
    m->run = (run_fn)jit_symbol(m->j, "model_run");
    cr_assert(m->check && m->wsize && m->oshape && m->run);
}

static void release(Model *m) {
    jit_free(m->j);
    onnx2c_output_free(&m->out);
}

/* Runs the model; checks that output 0 has the expected shape first. */
static void run(Model *m, const int64_t *dims, const void *const *in, float *y, int rank,
                const int64_t *want) {
    int64_t shape[8];
    cr_assert_eq(m->check(dims), 0);
    cr_assert_eq(m->oshape(dims, 0, shape), rank);
    for (int i = 0; i < rank; i++)
        cr_assert_eq(shape[i], want[i], "output dim %d is %lld, want %lld", i,
                     (long long)shape[i], (long long)want[i]);
    size_t wsz = m->wsize(dims);
    void *ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
    void *outs[1] = {y};
    cr_assert_eq(m->run(dims, in, outs, ws), 0);
    free(ws);
}

static void expect_close(const float *got, const float *want, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        cr_assert(fabsf(got[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i])),
                  "element %lld is %g, want %g", (long long)i, got[i], want[i]);
}

/* The weights make_matconv.py writes: scale * ((i * 7) % 11 - 5). */
static float wval(int64_t i, double scale) { return (float)(scale * (double)((i * 7) % 11 - 5)); }

static float *fill(int64_t n, double scale, int seed) {
    float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)sin(0.37 * (double)i + seed) * scale;
    return v;
}

/* Direct 2-D convolution (ONNX Conv, NCHW, W[M, C/G, KH, KW]). */
typedef struct Geo {
    int64_t n, c, h, w, m, g, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow;
} Geo;

static void ref_conv(const Geo *q, const float *x, const float *w, const float *b, float *y) {
    int64_t cg = q->c / q->g, mg = q->m / q->g;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t m = 0; m < q->m; m++)
            for (int64_t oh = 0; oh < q->oh; oh++)
                for (int64_t ow = 0; ow < q->ow; ow++) {
                    double acc = b ? b[m] : 0;
                    int64_t g = m / mg;
                    for (int64_t c = 0; c < cg; c++)
                        for (int64_t kh = 0; kh < q->kh; kh++)
                            for (int64_t kw = 0; kw < q->kw; kw++) {
                                int64_t ih = oh * q->sh + kh * q->dh - q->pt;
                                int64_t iw = ow * q->sw + kw * q->dw - q->pl;
                                if (ih < 0 || ih >= q->h || iw < 0 || iw >= q->w)
                                    continue;
                                acc += (double)x[((n * q->c + g * cg + c) * q->h + ih) * q->w + iw] *
                                       w[((m * cg + c) * q->kh + kh) * q->kw + kw];
                            }
                    y[((n * q->m + m) * q->oh + oh) * q->ow + ow] = (float)acc;
                }
}

/* Direct 2-D transposed convolution (ONNX ConvTranspose, W[C, M/G, KH, KW]). */
static void ref_convt(const Geo *q, const float *x, const float *w, const float *b, float *y) {
    int64_t cg = q->c / q->g, mg = q->m / q->g;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t m = 0; m < q->m; m++)
            for (int64_t i = 0; i < q->oh * q->ow; i++)
                y[(n * q->m + m) * q->oh * q->ow + i] = b ? b[m] : 0;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t c = 0; c < q->c; c++)
            for (int64_t ih = 0; ih < q->h; ih++)
                for (int64_t iw = 0; iw < q->w; iw++) {
                    float v = x[((n * q->c + c) * q->h + ih) * q->w + iw];
                    int64_t g = c / cg;
                    for (int64_t mo = 0; mo < mg; mo++)
                        for (int64_t kh = 0; kh < q->kh; kh++)
                            for (int64_t kw = 0; kw < q->kw; kw++) {
                                int64_t oh = ih * q->sh + kh * q->dh - q->pt;
                                int64_t ow = iw * q->sw + kw * q->dw - q->pl;
                                if (oh < 0 || oh >= q->oh || ow < 0 || ow >= q->ow)
                                    continue;
                                y[((n * q->m + g * mg + mo) * q->oh + oh) * q->ow + ow] +=
                                    v * w[((c * mg + mo) * q->kh + kh) * q->kw + kw];
                            }
                }
}

/* ------------------------------------------------------------------ output-shape rules */

Test(matconv, conv_shape_symbolic) {
    /* pads (1, 0, 2, 1), strides (2, 1), dilations (1, 2), kernel 3x2:
     * OH = floor((H + 1 + 2 - 1*(3-1) - 1) / 2) + 1 = H/2 + 1,
     * OW = floor((W + 0 + 1 - 2*(2-1) - 1) / 1) + 1 = W - 1 */
    expect_header(MC "conv_sym.onnx", "output 0 'y': float[N, 4, H / 2 + 1, W - 1]");
    /* SAME_LOWER, stride 2: ceil(H / 2) */
    expect_header(MC "conv_same_sym.onnx", "output 0 'y': float[N, 6, (H + 1) / 2, (W + 1) / 2]");
    /* a runtime weight: the kernel dims are dims too */
    expect_header(MC "corr_sym.onnx", "output 0 'y': float[1, M, H - KH + 1, W - KW + 1]");
    /* ConvTranspose: 2*(H-1) + 1 + 1*(3-1) + 1 - 2 = 2H; 2*(W-1) + 0 + 2*(2-1) + 1 - 1 = 2W */
    expect_header(MC "convt_sym.onnx", "output 0 'y': float[N, 6, H*2, W*2]");
    expect_header(MC "matmul_bcast_sym.onnx", "output 0 'y': float[B, S, M, N]");
}

Test(matconv, conv_shape_concrete_and_check) {
    Model m;
    build(&m, MC "conv_sym.onnx");
    for (int64_t h = 1; h < 9; h++)
        for (int64_t w = 2; w < 9; w++) {
            int64_t dims[3] = {2, h, w}, shape[4];
            cr_assert_eq(m.check(dims), 0);
            cr_assert_eq(m.oshape(dims, 0, shape), 4);
            cr_assert_eq(shape[2], (h + 1 + 2 - 2 - 1) / 2 + 1);
            cr_assert_eq(shape[3], (w + 0 + 1 - 2 - 1) / 1 + 1);
        }
    /* the dilated kernel (span 3 along W) no longer fits W + 1 = 2 */
    int64_t small[3] = {1, 4, 1};
    cr_assert_neq(m.check(small), 0);
    release(&m);

    build(&m, MC "corr_sym.onnx");
    /* dims: C, H, W, M, KH, KW; the template must fit the search image */
    int64_t ok[6] = {3, 5, 6, 2, 5, 2}, bad[6] = {3, 5, 6, 2, 6, 2};
    cr_assert_eq(m.check(ok), 0);
    cr_assert_neq(m.check(bad), 0);
    release(&m);
}

/* ------------------------------------------------------------------ errors */

Test(matconv, conv_weight_rank_error) {
    expect_error(MC "bad_weight_rank.onnx",
                 "node 'conv' (Conv): weight rank 3 does not match input rank 4");
}

Test(matconv, errors) {
    expect_error(MC "bad_channels.onnx", "input channels must equal weight channels");
    expect_error(MC "bad_kernel_fits.onnx", "must fit in the padded input");
    expect_error(MC "bad_strides.onnx", "attribute 'strides' has 3 values, expected 2");
    expect_error(MC "bad_matmul_k.onnx", "A has K = 3, B has K = 4");
    expect_error(MC "bad_gemm_c.onnx", "to broadcast to [M, N]");
}

/* A 3x3 stride-1 Conv of 32 input channels takes Winograd by default (the 16 transformed
 * weights packed, the transforms called), the unfold + GEMM path with Options.no_winograd; one
 * of 16 input channels takes unfold + GEMM either way (measured faster). */
Test(matconv, winograd_default_and_optional) {
    for (int off = 0; off < 3; off++) {
        const char *path = off < 2 ? MC "wino/c32_p2/model.onnx" : MC "wino/c16_p2/model.onnx";
        Options opt = {0};
        Output out;
        char err[1024];
        opt.name = "model";
        opt.no_winograd = off == 1;
        memset(&out, 0, sizeof out);
        int st = onnx2c_compile(path, &opt, &out, err, sizeof err);
        cr_assert_eq(st, O2C_OK, "%s: %s", path, err);
        bool wino = strstr(out.c_src, "wino_in_f32(") != NULL;
        bool unfold = strstr(out.c_src, "im2col_f32(") != NULL;
        cr_assert(wino == !off && unfold == (bool)off, "%s, no_winograd=%d: wino %d, im2col %d",
                  path, off == 1, wino, unfold);
        onnx2c_output_free(&out);
    }
}

/* ------------------------------------------------------------------ runs */

Test(matconv, conv_run) {
    Model m;
    build(&m, MC "conv_sym.onnx");
    float w[4 * 3 * 3 * 2], b[4];
    for (int i = 0; i < 72; i++)
        w[i] = wval(i, 0.1);
    for (int i = 0; i < 4; i++)
        b[i] = wval(i, 1.0);
    static const int64_t sizes[][3] = {{1, 5, 4}, {2, 8, 11}, {1, 1, 2}, {3, 40, 37}};
    for (int s = 0; s < 4; s++) {
        Geo q = {sizes[s][0], 3, sizes[s][1], sizes[s][2], 4, 1, 3, 2, 2, 1, 1, 2, 1, 0, 0, 0};
        q.oh = q.h / 2 + 1;
        q.ow = q.w - 1;
        float *x = fill(q.n * q.c * q.h * q.w, 1.0, s);
        int64_t ny = q.n * q.m * q.oh * q.ow;
        float *y = fill(ny, 1.0, 9), *want = fill(ny, 1.0, 9);
        ref_conv(&q, x, w, b, want);
        const void *in[1] = {x};
        run(&m, sizes[s], in, y, 4, (int64_t[]){q.n, q.m, q.oh, q.ow});
        expect_close(y, want, ny);
        free(x), free(y), free(want);
    }
    release(&m);
}

Test(matconv, conv_same_lower_group_run) {
    Model m;
    build(&m, MC "conv_same_sym.onnx");
    float w[6 * 2 * 3 * 3];
    for (int i = 0; i < 108; i++)
        w[i] = wval(i, 0.1);
    static const int64_t sizes[][3] = {{1, 5, 4}, {2, 6, 9}, {1, 1, 1}};
    for (int s = 0; s < 3; s++) {
        Geo q = {sizes[s][0], 4, sizes[s][1], sizes[s][2], 6, 2, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0};
        q.oh = (q.h + 1) / 2;
        q.ow = (q.w + 1) / 2;
        /* total padding (OH-1)*2 + 3 - H, the odd one at the beginning (SAME_LOWER) */
        int64_t th = (q.oh - 1) * 2 + 3 - q.h, tw = (q.ow - 1) * 2 + 3 - q.w;
        q.pt = th - th / 2;
        q.pl = tw - tw / 2;
        float *x = fill(q.n * q.c * q.h * q.w, 1.0, s);
        int64_t ny = q.n * q.m * q.oh * q.ow;
        float *y = fill(ny, 1.0, 9), *want = fill(ny, 1.0, 9);
        ref_conv(&q, x, w, NULL, want);
        const void *in[1] = {x};
        run(&m, sizes[s], in, y, 4, (int64_t[]){q.n, q.m, q.oh, q.ow});
        expect_close(y, want, ny);
        free(x), free(y), free(want);
    }
    release(&m);
}

/* Correlation: both operands at run time, every dim but the batch symbolic; one compiled C
 * file serves kernels of different sizes, and a large search image spans several tiles. */
Test(matconv, correlation_runtime_weight_run) {
    Model m;
    build(&m, MC "corr_sym.onnx");
    static const int64_t sizes[][6] = {
        {3, 7, 9, 2, 3, 3}, {1, 5, 5, 1, 5, 5}, {4, 12, 10, 3, 1, 4}, {16, 80, 72, 2, 7, 7}};
    for (int s = 0; s < 4; s++) {
        const int64_t *d = sizes[s];
        Geo q = {1, d[0], d[1], d[2], d[3], 1, d[4], d[5], 1, 1, 1, 1, 0, 0, 0, 0};
        q.oh = q.h - q.kh + 1;
        q.ow = q.w - q.kw + 1;
        float *x = fill(q.c * q.h * q.w, 1.0, s), *z = fill(q.m * q.c * q.kh * q.kw, 0.5, s + 3);
        int64_t ny = q.m * q.oh * q.ow;
        float *y = fill(ny, 1.0, 9), *want = fill(ny, 1.0, 9);
        ref_conv(&q, x, z, NULL, want);
        const void *in[2] = {x, z};
        run(&m, d, in, y, 4, (int64_t[]){1, q.m, q.oh, q.ow});
        expect_close(y, want, ny);
        free(x), free(z), free(y), free(want);
    }
    release(&m);
}

Test(matconv, conv_transpose_run) {
    Model m;
    build(&m, MC "convt_sym.onnx");
    float w[4 * 3 * 3 * 2], b[6];
    for (int i = 0; i < 72; i++)
        w[i] = wval(i, 0.1);
    for (int i = 0; i < 6; i++)
        b[i] = wval(i, 1.0);
    static const int64_t sizes[][3] = {{1, 3, 4}, {2, 5, 1}, {1, 90, 100}};
    for (int s = 0; s < 3; s++) {
        /* strides 2, dilations (1, 2), pads top 1 left 0 */
        Geo q = {sizes[s][0], 4, sizes[s][1], sizes[s][2], 6, 2, 3, 2, 2, 2, 1, 2, 1, 0, 0, 0};
        q.oh = 2 * q.h;
        q.ow = 2 * q.w;
        float *x = fill(q.n * q.c * q.h * q.w, 1.0, s);
        int64_t ny = q.n * q.m * q.oh * q.ow;
        float *y = fill(ny, 1.0, 9), *want = fill(ny, 1.0, 9);
        ref_convt(&q, x, w, b, want);
        const void *in[1] = {x};
        run(&m, sizes[s], in, y, 4, (int64_t[]){q.n, q.m, q.oh, q.ow});
        expect_close(y, want, ny);
        free(x), free(y), free(want);
    }
    release(&m);
}

Test(matconv, matmul_broadcast_run) {
    Model m;
    build(&m, MC "matmul_bcast_sym.onnx");
    /* dims: B, M, S, N */
    static const int64_t sizes[][4] = {{2, 3, 4, 6}, {1, 1, 3, 1}, {3, 7, 1, 2}};
    for (int s = 0; s < 3; s++) {
        int64_t B = sizes[s][0], M = sizes[s][1], S = sizes[s][2], N = sizes[s][3], K = 5;
        float *a = fill(B * M * K, 1.0, s), *b = fill(S * K * N, 1.0, s + 1);
        float *y = fill(B * S * M * N, 1.0, 9), *want = fill(B * S * M * N, 1.0, 9);
        for (int64_t i = 0; i < B; i++)
            for (int64_t j = 0; j < S; j++)
                for (int64_t r = 0; r < M; r++)
                    for (int64_t c = 0; c < N; c++) {
                        double acc = 0;
                        for (int64_t k = 0; k < K; k++)
                            acc += (double)a[(i * M + r) * K + k] * b[(j * K + k) * N + c];
                        want[((i * S + j) * M + r) * N + c] = (float)acc;
                    }
        const void *in[2] = {a, b};
        run(&m, sizes[s], in, y, 4, (int64_t[]){B, S, M, N});
        expect_close(y, want, B * S * M * N);
        free(a), free(b), free(y), free(want);
    }
    release(&m);
}

/* ------------------------------------------------------------------ the GEMM template */

/* C = alpha * op(A) op(B) + beta * C on sub-blocks of larger matrices (ld > width), sizes
 * crossing the kernel's MC/KC/NC blocks, every transpose combination, beta 0 over NaN. */
Test(matconv, gemm_template_vs_naive) {
    static const int64_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {70, 33, 260}, {65, 1030, 9},
                                        {2, 3, 0}};
    static const float ab[][2] = {{1, 0}, {0.5f, 1}, {-2, 0.25f}};
    for (int s = 0; s < 5; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int k = 0; k < 3; k++) {
                    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
                    float alpha = ab[k][0], beta = ab[k][1];
                    int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
                    int64_t lda = ac + 3, ldb = bc + 1, ldc = N + 2;
                    float *A = fill(ar * lda, 1.0, 1), *B = fill(br * ldb, 1.0, 2);
                    float *C = fill(M * ldc, 1.0, 3), *want = fill(M * ldc, 1.0, 3);
                    if (beta == 0)
                        for (int64_t i = 0; i < M; i++)
                            for (int64_t j = 0; j < N; j++)
                                C[i * ldc + j] = NAN;
                    for (int64_t i = 0; i < M; i++)
                        for (int64_t j = 0; j < N; j++) {
                            double acc = 0;
                            for (int64_t p = 0; p < K; p++)
                                acc += (double)(ta ? A[p * lda + i] : A[i * lda + p]) *
                                       (tb ? B[j * ldb + p] : B[p * ldb + j]);
                            double c0 = beta == 0 ? 0 : beta * want[i * ldc + j];
                            want[i * ldc + j] = (float)(alpha * acc + c0);
                        }
                    float *work = malloc(sizeof(float) * (size_t)(128 * 256 + 256 * 1056 + 16));
                    gemm_T(M, N, K, A, lda, ta, B, ldb, tb, C, ldc, alpha, beta, NULL, work);
                    free(work);
                    for (int64_t i = 0; i < M; i++)
                        for (int64_t j = 0; j < ldc; j++) {
                            float g = C[i * ldc + j], w = want[i * ldc + j];
                            cr_assert(fabsf(g - w) <= 1e-4f * (1 + fabsf(w)),
                                      "M=%lld N=%lld K=%lld tA=%d tB=%d alpha=%g beta=%g: "
                                      "C[%lld][%lld] = %g, want %g",
                                      (long long)M, (long long)N, (long long)K, ta, tb, alpha, beta,
                                      (long long)i, (long long)j, g, w);
                        }
                    free(A), free(B), free(C), free(want);
                }
}
