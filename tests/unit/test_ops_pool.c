/* test_ops_pool.c — the pool family (compiler/ops/pool.c, templates/pool_*.c).
 *
 * Models with symbolic N, C, H, W (tests/data/pool/make_pool.py) are compiled through the
 * library API and JIT-compiled with libtcc; the generated NAME_output_shape and NAME_check
 * show the output-shape rules as they hold at run time, for several sizes from one C file, and
 * NAME_run is compared with a direct reference written here.  The bad_*.onnx models check the
 * attribute errors (one line, naming the node). */
#include "onnx2c.h"
#include "runtime.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POOL ONNX2C_SOURCE_DIR "/tests/data/pool/"

typedef int (*check_fn)(const int64_t *);
typedef size_t (*ws_fn)(const int64_t *);
typedef int (*shape_fn)(const int64_t *, int, int64_t *);
typedef int (*run_fn)(const int64_t *, const void *const *, void *const *, void *);

typedef struct Model {
    Output o;
    Jit *j;
    check_fn check;
    ws_fn wsize;
    shape_fn oshape;
    run_fn run;
} Model;

static void model_open(Model *m, const char *file, const char *cc) {
    char err[1024] = "";
    Options opt = {0};
    opt.name = "model";
    opt.out_path = "model.c";
    int st = onnx2c_compile(file, &opt, &m->o, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", file, err);
    m->j = jit_compile(m->o.c_src, "model.h", m->o.h_src, cc, err, sizeof err);
    cr_assert_not_null(m->j, "%s: %s", file, err);
    m->check = (check_fn)jit_symbol(m->j, "model_check");
    m->wsize = (ws_fn)jit_symbol(m->j, "model_workspace_size");
    m->oshape = (shape_fn)jit_symbol(m->j, "model_output_shape");
    m->run = (run_fn)jit_symbol(m->j, "model_run");
    cr_assert(m->check && m->wsize && m->oshape && m->run);
}

static void model_close(Model *m) {
    jit_free(m->j);
    onnx2c_output_free(&m->o);
}

/* Asserts output `out`'s shape for these dims. */
static void expect_shape(Model *m, const int64_t *dims, int out, int rank, const int64_t *want) {
    int64_t got[8];
    int r = m->oshape(dims, out, got);
    cr_assert_eq(r, rank, "output %d: rank %d, want %d", out, r, rank);
    for (int i = 0; i < rank; i++)
        cr_assert_eq(got[i], want[i], "output %d axis %d: %lld, want %lld", out, i,
                     (long long)got[i], (long long)want[i]);
}

static float *random_floats(int64_t n, unsigned seed) {
    float *x = malloc(sizeof(float) * (size_t)(n ? n : 1));
    srand(seed);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(rand() % 2001 - 1000) / 100.0f;
    return x;
}

/* ---- reference: a 2-D pool by its definition (ONNX MaxPool / AveragePool / LpPool) */

typedef struct Ref {
    char kind; /* 'M', 'A', 'L' */
    int64_t n, c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oh, ow;
    int cip;       /* count_include_pad */
    double p;      /* LpPool */
    int col_major; /* MaxPool storage_order */
} Ref;

static void ref_pool(const Ref *r, const float *x, float *y, int64_t *ind) {
    for (int64_t nc = 0; nc < r->n * r->c; nc++)
        for (int64_t oy = 0; oy < r->oh; oy++)
            for (int64_t ox = 0; ox < r->ow; ox++) {
                double acc = 0, best = -INFINITY;
                int64_t cnt = 0, padcnt = 0, bi = -1;
                for (int64_t a = 0; a < r->kh; a++)
                    for (int64_t b = 0; b < r->kw; b++) {
                        int64_t iy = oy * r->sh - r->pt + a * r->dh;
                        int64_t ix = ox * r->sw - r->pl + b * r->dw;
                        if (iy >= -r->pt && iy < r->h + r->pb && ix >= -r->pl && ix < r->w + r->pr)
                            padcnt++;
                        if (iy < 0 || iy >= r->h || ix < 0 || ix >= r->w)
                            continue;
                        double v = x[(nc * r->h + iy) * r->w + ix];
                        cnt++;
                        acc += r->kind == 'L' ? pow(fabs(v), r->p) : v;
                        if (v > best) {
                            best = v;
                            bi = nc * r->h * r->w + (r->col_major ? iy + ix * r->h : iy * r->w + ix);
                        }
                    }
                int64_t o = (nc * r->oh + oy) * r->ow + ox;
                if (r->kind == 'M') {
                    y[o] = (float)best;
                    if (ind)
                        ind[o] = bi;
                } else if (r->kind == 'A')
                    y[o] = (float)(acc / (double)(r->cip ? padcnt : cnt));
                else
                    y[o] = (float)pow(acc, 1.0 / r->p);
            }
}

static void expect_close(const float *got, const float *want, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        cr_assert(fabsf(got[i] - want[i]) <= 1e-4f + 1e-4f * fabsf(want[i]),
                  "element %lld: %g, want %g", (long long)i, got[i], want[i]);
}

/* Runs a one-input model on x with these dims and compares output 0 (and int64 output 1 when
 * want_ind) with the reference. */
static void run_and_compare(Model *m, const int64_t *dims, const Ref *r, const float *x,
                            bool with_ind) {
    int64_t ny = r->n * r->c * r->oh * r->ow;
    float *y = calloc((size_t)ny + 1, sizeof(float)), *want = calloc((size_t)ny + 1, sizeof(float));
    int64_t *ind = calloc((size_t)ny + 1, sizeof(int64_t));
    int64_t *want_ind = calloc((size_t)ny + 1, sizeof(int64_t));
    size_t wsz = m->wsize(dims);
    void *ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
    const void *ins[1] = {x};
    void *outs[2] = {y, ind};
    cr_assert_eq(m->run(dims, ins, outs, ws), 0);
    ref_pool(r, x, want, want_ind);
    expect_close(y, want, ny);
    for (int64_t i = 0; with_ind && i < ny; i++)
        cr_assert_eq(ind[i], want_ind[i], "index %lld: %lld, want %lld", (long long)i,
                     (long long)ind[i], (long long)want_ind[i]);
    free(ws);
    free(y);
    free(want);
    free(ind);
    free(want_ind);
}

/* ---- output-shape rules with symbolic dims */

/* MaxPool k 3x3, strides 2, pads 1, dilations [1, 2], ceil_mode:
 *   H: ceil((H + 2 - 3) / 2) + 1,  W: ceil((W + 2 - 5) / 2) + 1 with 5 <= W + 2. */
Test(pool, maxpool_symbolic_shape_and_indices) {
    Model m;
    model_open(&m, POOL "maxpool_sym.onnx", NULL);
    cr_assert(strstr(m.o.h_src, "MODEL_DIM_H") && strstr(m.o.h_src, "MODEL_DIM_W"), "%s",
              m.o.h_src);
    static const int64_t sizes[][4] = {{2, 3, 7, 8}, {1, 2, 6, 3}, {1, 1, 1, 9}};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        const int64_t *d = sizes[t];
        Ref r = {'M', d[0], d[1], d[2], d[3], 3, 3, 2, 2, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1};
        r.oh = (d[2] + 2 - 3 + 1) / 2 + 1;
        r.ow = (d[3] + 2 - 5 + 1) / 2 + 1;
        const int64_t want[4] = {d[0], d[1], r.oh, r.ow};
        expect_shape(&m, d, 0, 4, want);
        expect_shape(&m, d, 1, 4, want);
        float *x = random_floats(d[0] * d[1] * d[2] * d[3], (unsigned)t + 1);
        run_and_compare(&m, d, &r, x, true);
        free(x);
    }
    /* the window does not fit: W + 2 < 5 */
    const int64_t small[4] = {1, 1, 4, 2};
    cr_assert_lt(m.check(small), 0);
    int64_t shape[4];
    cr_assert_lt(m.oshape(small, 0, shape), 0);
    model_close(&m);
}

/* The same model is strict C99 for gcc. */
Test(pool, maxpool_symbolic_strict_c99) {
    Model m;
    model_open(&m, POOL "maxpool_sym.onnx", "gcc -std=c99 -Wall -Wextra -pedantic -Werror -O0");
    model_close(&m);
}

/* AveragePool SAME_UPPER k 3 strides 2, count_include_pad: out = ceil(H / 2); the pad is
 * max(0, (out - 1)*2 + 3 - H), its larger half at the end. */
Test(pool, avgpool_same_upper_symbolic) {
    Model m;
    model_open(&m, POOL "avgpool_same_sym.onnx", NULL);
    static const int64_t sizes[][4] = {{1, 2, 7, 6}, {2, 1, 4, 5}, {1, 1, 1, 1}};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        const int64_t *d = sizes[t];
        Ref r = {'A', d[0], d[1], d[2], d[3], 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0};
        r.oh = (d[2] + 1) / 2;
        r.ow = (d[3] + 1) / 2;
        int64_t th = (r.oh - 1) * 2 + 3 - d[2], tw = (r.ow - 1) * 2 + 3 - d[3];
        th = th > 0 ? th : 0;
        tw = tw > 0 ? tw : 0;
        r.pt = th / 2;
        r.pb = th - th / 2;
        r.pl = tw / 2;
        r.pr = tw - tw / 2;
        const int64_t want[4] = {d[0], d[1], r.oh, r.ow};
        expect_shape(&m, d, 0, 4, want);
        float *x = random_floats(d[0] * d[1] * d[2] * d[3], (unsigned)t + 7);
        run_and_compare(&m, d, &r, x, false);
        free(x);
    }
    model_close(&m);
}

/* AveragePool k [3, 2], no pads: [N, C, H - 2, W - 1], with H >= 3 and W >= 2 checked at
 * run time. */
Test(pool, avgpool_window_must_fit) {
    Model m;
    model_open(&m, POOL "avgpool_valid_sym.onnx", NULL);
    const int64_t ok[4] = {2, 3, 3, 2}, want[4] = {2, 3, 1, 1};
    expect_shape(&m, ok, 0, 4, want);
    const int64_t d2[4] = {1, 1, 10, 4}, want2[4] = {1, 1, 8, 3};
    expect_shape(&m, d2, 0, 4, want2);
    const int64_t short_h[4] = {1, 1, 2, 5}, short_w[4] = {1, 1, 5, 1};
    cr_assert_lt(m.check(short_h), 0);
    cr_assert_lt(m.check(short_w), 0);
    cr_assert_eq(m.check(ok), 0);
    model_close(&m);
}

/* LpPool p = 3, 1-D k 2, pads [1, 0]: L + 1 - 2 + 1 = L outputs. */
Test(pool, lppool_1d_symbolic) {
    Model m;
    model_open(&m, POOL "lppool_sym.onnx", NULL);
    const int64_t d[3] = {2, 3, 5}, want[3] = {2, 3, 5};
    expect_shape(&m, d, 0, 3, want);
    Ref r = {'L', 2, 3, 1, 5, 1, 2, 1, 1, 1, 1, 0, 1, 0, 0, 1, 5, 0, 3.0, 0};
    float *x = random_floats(2 * 3 * 5, 3);
    run_and_compare(&m, d, &r, x, false);
    free(x);
    model_close(&m);
}

/* GlobalAveragePool: [N, C, H, W] -> [N, C, 1, 1]. */
Test(pool, global_average_symbolic) {
    Model m;
    model_open(&m, POOL "globalavgpool_sym.onnx", NULL);
    const int64_t d[4] = {2, 3, 4, 7}, want[4] = {2, 3, 1, 1};
    expect_shape(&m, d, 0, 4, want);
    Ref r = {'A', 2, 3, 4, 7, 4, 7, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0};
    float *x = random_floats(2 * 3 * 4 * 7, 5);
    run_and_compare(&m, d, &r, x, false);
    free(x);
    model_close(&m);
}

/* ---- errors */

static void expect_error(const char *file, const char *fragment) {
    char err[1024] = "";
    Options opt = {0};
    Output out = {0};
    int st = onnx2c_compile(file, &opt, &out, err, sizeof err);
    if (st == O2C_OK)
        onnx2c_output_free(&out);
    cr_assert_eq(st, O2C_EMODEL, "%s: status %d: %s", file, st, err);
    cr_assert(strstr(err, fragment), "%s: message lacks \"%s\": %s", file, fragment, err);
    cr_assert(!strchr(err, '\n'), "message is not one line: %s", err);
}

Test(pool, attribute_errors) {
    expect_error(POOL "bad_auto_pad.onnx",
                 "node 'mp' (MaxPool): auto_pad 'SAME' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    expect_error(POOL "bad_no_kernel.onnx", "node 'ap' (AveragePool): kernel_shape is required");
    expect_error(POOL "bad_kernel_len.onnx", "kernel_shape has 1 values, expected 2");
    expect_error(POOL "bad_window.onnx", "spatial axis 0: the window (7) is larger than the padded input");
    expect_error(POOL "bad_count_include_pad.onnx", "count_include_pad = 2: must be 0 or 1");
    expect_error(POOL "bad_strides.onnx", "strides[1] = 0: must be >= 1");
    expect_error(POOL "bad_avg_int.onnx", "input type int32 is not supported");
}
