/* test_ops_resize.c — the resize family (compiler/ops/resize.c, templates/resize_*.c).
 *
 * Models with symbolic N, C, H, W (tests/data/resize/make_resize.py) are compiled through the
 * library API and JIT-compiled with libtcc; one generated C runs at several sizes and is
 * compared with a direct 2-D reference of ONNX Resize written here (nearest and bilinear).
 * The bad_*.onnx models check the errors (one line, naming the node). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RESIZE TU_DATA("resize")

/* ---- reference: ONNX Resize on the last two axes of [P, H, W], by its definition */

typedef struct Ref {
    int64_t planes, h, w, oh, ow;
    double sh, sw; /* scales used for the coordinates */
    bool linear;   /* else nearest, round_prefer_floor */
    bool pytorch;  /* pytorch_half_pixel, else half_pixel */
} Ref;

static double src_coord(const Ref *r, int64_t o, double scale, int64_t out) {
    if (r->pytorch && out == 1)
        return -0.5;
    return ((double)o + 0.5) / scale - 0.5;
}

static int64_t clampi(int64_t i, int64_t n) {
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static void ref_resize(const Ref *r, const float *x, float *y) {
    for (int64_t p = 0; p < r->planes; p++)
        for (int64_t oy = 0; oy < r->oh; oy++)
            for (int64_t ox = 0; ox < r->ow; ox++) {
                double fy = src_coord(r, oy, r->sh, r->oh), fx = src_coord(r, ox, r->sw, r->ow);
                const float *xp = x + p * r->h * r->w;
                double v;
                if (r->linear) {
                    double y0 = floor(fy), x0 = floor(fx), ay = fy - y0, ax = fx - x0;
                    int64_t iy0 = clampi((int64_t)y0, r->h), iy1 = clampi((int64_t)y0 + 1, r->h);
                    int64_t ix0 = clampi((int64_t)x0, r->w), ix1 = clampi((int64_t)x0 + 1, r->w);
                    v = (1 - ay) * ((1 - ax) * xp[iy0 * r->w + ix0] + ax * xp[iy0 * r->w + ix1]) +
                        ay * ((1 - ax) * xp[iy1 * r->w + ix0] + ax * xp[iy1 * r->w + ix1]);
                } else {
                    /* round half down */
                    int64_t iy = clampi((int64_t)ceil(fy - 0.5), r->h);
                    int64_t ix = clampi((int64_t)ceil(fx - 0.5), r->w);
                    v = xp[iy * r->w + ix];
                }
                y[(p * r->oh + oy) * r->ow + ox] = (float)v;
            }
}

/* Runs the model (inputs x and, when ref_in, a second input of that shape, unused data) and
 * compares output 0 with the reference. */
static void run_and_compare(TuModel *m, const int64_t *dims, const Ref *r, const float *x,
                            const float *second) {
    int64_t ny = r->planes * r->oh * r->ow;
    float *y = calloc((size_t)ny + 1, sizeof(float)), *want = calloc((size_t)ny + 1, sizeof(float));
    const void *ins[2] = {x, second};
    void *outs[1] = {y};
    cr_assert_eq(tu_run(m, dims, ins, outs), 0);
    ref_resize(r, x, want);
    tu_expect_close(y, want, ny);
    free(y);
    free(want);
}

/* Resize scales [1, 1, 2, 2]: [N, C, 2H, 2W], one C for every size (nearest and linear). */
static void check_x2(const char *file, bool linear, const char *cc) {
    TuModel m;
    tu_open(&m, file, cc);
    cr_assert(strstr(m.o.h_src, "MODEL_DIM_H") && strstr(m.o.h_src, "MODEL_DIM_W"), "%s",
              m.o.h_src);
    static const int64_t sizes[][4] = {{1, 2, 3, 4}, {2, 1, 5, 2}, {1, 1, 1, 1}};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        const int64_t *d = sizes[t];
        const int64_t want[4] = {d[0], d[1], 2 * d[2], 2 * d[3]};
        tu_expect_shape(&m, d, 0, 4, want);
        Ref r = {d[0] * d[1], d[2], d[3], 2 * d[2], 2 * d[3], 2.0, 2.0, linear, false};
        float *x = tu_random_floats(d[0] * d[1] * d[2] * d[3], (unsigned)t + 1);
        run_and_compare(&m, d, &r, x, NULL);
        free(x);
    }
    tu_close(&m);
}

Test(resize, nearest_x2_symbolic) {
    check_x2(RESIZE "nearest_x2_sym.onnx", false, NULL);
}

Test(resize, linear_x2_symbolic) {
    check_x2(RESIZE "linear_x2_sym.onnx", true, NULL);
}

/* Upsample-9 nearest x2 is asymmetric floor: the same as half_pixel round_prefer_floor for an
 * integer scale. */
Test(resize, upsample_x2_symbolic) {
    check_x2(RESIZE "upsample_x2_sym.onnx", false, NULL);
}

/* The same C is strict C99 for gcc (also the cubic kernel). */
Test(resize, symbolic_strict_c99) {
    check_x2(RESIZE "linear_x2_sym.onnx", true, TU_STRICT_CC);
    TuModel m;
    tu_open(&m, RESIZE "cubic_x2_sym.onnx", TU_STRICT_CC);
    const int64_t d[4] = {1, 1, 3, 5}, want[4] = {1, 1, 6, 10};
    tu_expect_shape(&m, d, 0, 4, want);
    tu_close(&m);
}

/* scales 0.5 and 1.5 on symbolic dims: floor(H / 2) and floor(3 W / 2); coordinates use the
 * given scales (pytorch_half_pixel). */
Test(resize, fractional_scales_symbolic) {
    TuModel m;
    tu_open(&m, RESIZE "linear_half_sym.onnx", NULL);
    static const int64_t sizes[][4] = {{1, 2, 5, 3}, {1, 1, 8, 4}, {2, 1, 1, 1}};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        const int64_t *d = sizes[t];
        const int64_t want[4] = {d[0], d[1], d[2] / 2, 3 * d[3] / 2};
        tu_expect_shape(&m, d, 0, 4, want);
        Ref r = {d[0] * d[1], d[2], d[3], d[2] / 2, 3 * d[3] / 2, 0.5, 1.5, true, true};
        float *x = tu_random_floats(d[0] * d[1] * d[2] * d[3], (unsigned)t + 11);
        run_and_compare(&m, d, &r, x, NULL);
        free(x);
    }
    tu_close(&m);
}

/* The segmentation-net pattern: Resize(x, sizes = Shape(ref)) gives ref's symbolic shape, and
 * the coordinates use out / in. */
Test(resize, sizes_from_shape_symbolic) {
    TuModel m;
    tu_open(&m, RESIZE "linear_to_shape_sym.onnx", NULL);
    /* dims: N, C, Hin, Win, H, W */
    static const int64_t sizes[][6] = {{1, 2, 3, 4, 7, 9}, {2, 1, 6, 6, 3, 2}};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        const int64_t *d = sizes[t];
        const int64_t want[4] = {d[0], d[1], d[4], d[5]};
        tu_expect_shape(&m, d, 0, 4, want);
        Ref r = {d[0] * d[1], d[2], d[3], d[4], d[5], (double)d[4] / (double)d[2],
                 (double)d[5] / (double)d[3], true, false};
        float *x = tu_random_floats(d[0] * d[1] * d[2] * d[3], (unsigned)t + 21);
        float *second = tu_random_floats(d[0] * d[1] * d[4] * d[5], 5);
        run_and_compare(&m, d, &r, x, second);
        free(x);
        free(second);
    }
    tu_close(&m);
}

/* ---- errors */

Test(resize, errors) {
    tu_expect_error(RESIZE "bad_runtime_scales.onnx", O2C_EMODEL,
                    "node 'rs' (Resize): scales 'scales' is not known at compile time (it "
                    "depends on runtime tensor data): data-dependent shapes are not supported");
    tu_expect_error(RESIZE "bad_both.onnx", O2C_EMODEL,
                    "node 'rs' (Resize): scales and sizes cannot both be given");
    tu_expect_error(RESIZE "bad_scale_irrational.onnx", O2C_EMODEL,
                    "axis 2: scale 1.23457 of a symbolic dim is not a simple fraction");
    tu_expect_error(RESIZE "bad_mode.onnx", O2C_EMODEL, "mode 'area' is not supported");
    tu_expect_error(RESIZE "bad_scales_len.onnx", O2C_EMODEL,
                    "scales has 2 values, expected 4 (the input rank)");
}
