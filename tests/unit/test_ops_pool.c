/* test_ops_pool.c — the pool family (compiler/ops/pool.c, templates/pool_*.c).
 *
 * Models with symbolic N, C, H, W (tests/data/pool/make_pool.py) are compiled through the
 * library API and JIT-compiled with libtcc; the generated NAME_output_shape and NAME_check
 * show the output-shape rules as they hold at run time, for several sizes from one C file, and
 * NAME_run is compared with a direct reference written here.  The bad_*.onnx models check the
 * attribute errors (one line, naming the node). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POOL TU_DATA("pool")

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

/* Runs a one-input model on x with these dims and compares output 0 (and int64 output 1 when
 * want_ind) with the reference. */
static void run_and_compare(TuModel *m, const int64_t *dims, const Ref *r, const float *x,
                            bool with_ind) {
    int64_t ny = r->n * r->c * r->oh * r->ow;
    float *y = calloc((size_t)ny + 1, sizeof(float)), *want = calloc((size_t)ny + 1, sizeof(float));
    int64_t *ind = calloc((size_t)ny + 1, sizeof(int64_t));
    int64_t *want_ind = calloc((size_t)ny + 1, sizeof(int64_t));
    const void *ins[1] = {x};
    void *outs[2] = {y, ind};
    cr_assert_eq(tu_run(m, dims, ins, outs), 0);
    ref_pool(r, x, want, want_ind);
    tu_expect_close(y, want, ny);
    for (int64_t i = 0; with_ind && i < ny; i++)
        cr_assert_eq(ind[i], want_ind[i], "index %lld: %lld, want %lld", (long long)i,
                     (long long)ind[i], (long long)want_ind[i]);
    free(y);
    free(want);
    free(ind);
    free(want_ind);
}

/* ---- output-shape rules with symbolic dims */

/* MaxPool k 3x3, strides 2, pads 1, dilations [1, 2], ceil_mode:
 *   H: ceil((H + 2 - 3) / 2) + 1,  W: ceil((W + 2 - 5) / 2) + 1 with 5 <= W + 2. */
Test(pool, maxpool_symbolic_shape_and_indices) {
    TuModel m;
    tu_open(&m, POOL "maxpool_sym.onnx", NULL);
    cr_assert(strstr(m.o.h_src, "MODEL_DIM_H") && strstr(m.o.h_src, "MODEL_DIM_W"), "%s",
              m.o.h_src);
    static const int64_t sizes[][4] = {{2, 3, 7, 8}, {1, 2, 6, 3}, {1, 1, 1, 9}};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        const int64_t *d = sizes[t];
        Ref r = {'M', d[0], d[1], d[2], d[3], 3, 3, 2, 2, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1};
        r.oh = (d[2] + 2 - 3 + 1) / 2 + 1;
        r.ow = (d[3] + 2 - 5 + 1) / 2 + 1;
        const int64_t want[4] = {d[0], d[1], r.oh, r.ow};
        tu_expect_shape(&m, d, 0, 4, want);
        tu_expect_shape(&m, d, 1, 4, want);
        float *x = tu_random_floats(d[0] * d[1] * d[2] * d[3], (unsigned)t + 1);
        run_and_compare(&m, d, &r, x, true);
        free(x);
    }
    /* the window does not fit: W + 2 < 5 */
    const int64_t small[4] = {1, 1, 4, 2};
    cr_assert_lt(m.check(small), 0);
    int64_t shape[4];
    cr_assert_lt(m.oshape(small, 0, shape), 0);
    tu_close(&m);
}

/* The same model is strict C99 for gcc. */
Test(pool, maxpool_symbolic_strict_c99) {
    TuModel m;
    tu_open(&m, POOL "maxpool_sym.onnx", TU_STRICT_CC);
    tu_close(&m);
}

/* AveragePool SAME_UPPER k 3 strides 2, count_include_pad: out = ceil(H / 2); the pad is
 * max(0, (out - 1)*2 + 3 - H), its larger half at the end. */
Test(pool, avgpool_same_upper_symbolic) {
    TuModel m;
    tu_open(&m, POOL "avgpool_same_sym.onnx", NULL);
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
        tu_expect_shape(&m, d, 0, 4, want);
        float *x = tu_random_floats(d[0] * d[1] * d[2] * d[3], (unsigned)t + 7);
        run_and_compare(&m, d, &r, x, false);
        free(x);
    }
    tu_close(&m);
}

/* AveragePool k [3, 2], no pads: [N, C, H - 2, W - 1], with H >= 3 and W >= 2 checked at
 * run time. */
Test(pool, avgpool_window_must_fit) {
    TuModel m;
    tu_open(&m, POOL "avgpool_valid_sym.onnx", NULL);
    const int64_t ok[4] = {2, 3, 3, 2}, want[4] = {2, 3, 1, 1};
    tu_expect_shape(&m, ok, 0, 4, want);
    const int64_t d2[4] = {1, 1, 10, 4}, want2[4] = {1, 1, 8, 3};
    tu_expect_shape(&m, d2, 0, 4, want2);
    const int64_t short_h[4] = {1, 1, 2, 5}, short_w[4] = {1, 1, 5, 1};
    cr_assert_lt(m.check(short_h), 0);
    cr_assert_lt(m.check(short_w), 0);
    cr_assert_eq(m.check(ok), 0);
    tu_close(&m);
}

/* LpPool p = 3, 1-D k 2, pads [1, 0]: L + 1 - 2 + 1 = L outputs. */
Test(pool, lppool_1d_symbolic) {
    TuModel m;
    tu_open(&m, POOL "lppool_sym.onnx", NULL);
    const int64_t d[3] = {2, 3, 5}, want[3] = {2, 3, 5};
    tu_expect_shape(&m, d, 0, 3, want);
    Ref r = {'L', 2, 3, 1, 5, 1, 2, 1, 1, 1, 1, 0, 1, 0, 0, 1, 5, 0, 3.0, 0};
    float *x = tu_random_floats(2 * 3 * 5, 3);
    run_and_compare(&m, d, &r, x, false);
    free(x);
    tu_close(&m);
}

/* GlobalAveragePool: [N, C, H, W] -> [N, C, 1, 1]. */
Test(pool, global_average_symbolic) {
    TuModel m;
    tu_open(&m, POOL "globalavgpool_sym.onnx", NULL);
    const int64_t d[4] = {2, 3, 4, 7}, want[4] = {2, 3, 1, 1};
    tu_expect_shape(&m, d, 0, 4, want);
    Ref r = {'A', 2, 3, 4, 7, 4, 7, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0};
    float *x = tu_random_floats(2 * 3 * 4 * 7, 5);
    run_and_compare(&m, d, &r, x, false);
    free(x);
    tu_close(&m);
}

/* ---- errors */

Test(pool, attribute_errors) {
    tu_expect_error(POOL "bad_auto_pad.onnx", O2C_EMODEL,
                    "node 'mp' (MaxPool): auto_pad 'SAME' is not NOTSET, SAME_UPPER, SAME_LOWER "
                    "or VALID");
    tu_expect_error(POOL "bad_no_kernel.onnx", O2C_EMODEL,
                    "node 'ap' (AveragePool): kernel_shape is required");
    tu_expect_error(POOL "bad_kernel_len.onnx", O2C_EMODEL,
                    "attribute 'kernel_shape' has 1 values, expected 2");
    tu_expect_error(POOL "bad_window.onnx", O2C_EMODEL,
                    "spatial axis 0: the window (7) is larger than the padded input");
    tu_expect_error(POOL "bad_count_include_pad.onnx", O2C_EMODEL,
                    "count_include_pad = 2: must be 0 or 1");
    tu_expect_error(POOL "bad_strides.onnx", O2C_EMODEL, "strides[1] = 0: must be >= 1");
    tu_expect_error(POOL "bad_avg_int.onnx", O2C_EMODEL, "input type int32 is not supported");
}
