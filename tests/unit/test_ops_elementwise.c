/* test_ops_elementwise.c — the elementwise family (compiler/ops/elementwise.c): broadcast shape
 * inference with symbolic dims and its errors seen through onnx2c_compile, folding of integer
 * shape arithmetic (Shape -> Mul -> Div -> Cast -> Max -> Reshape, constant Div/Mod/Where), and
 * kernels JIT-compiled with libtcc and compared with values computed here.  The models come
 * from tests/data/elementwise/make_elementwise.py. */
#include "modelgen.h"
#include "testutil.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <unistd.h>
#include <math.h>
#include <string.h>

#define EW TU_DATA("elementwise")

Test(elementwise, broadcast_symbolic_shapes) {
    Output out;
    tu_compile_ok(EW "bcast_sym.onnx", &out);
    cr_assert(strstr(out.h_src, "output 0 's': float[N, 3, 4]"), "%s", out.h_src);
    cr_assert(strstr(out.h_src, "output 1 'mx': float[N, 3, 4]"), "%s", out.h_src);
    cr_assert(strstr(out.h_src, "output 3 'w': float[N, 3, 4]"), "%s", out.h_src);
    onnx2c_output_free(&out);
}

Test(elementwise, broadcast_incompatible) {
    tu_expect_error(EW "bcast_bad.onnx", O2C_EMODEL,
                    "node 'add' (Add): shapes cannot be broadcast: dimension 0 is 2 vs 4");
}

Test(elementwise, prelu_slope_must_broadcast_to_x) {
    tu_expect_error(EW "prelu_bad.onnx", O2C_EMODEL,
                    "node 'prelu' (PRelu): slope of rank 2 does not broadcast");
}

Test(elementwise, cast_to_string_unsupported) {
    tu_expect_error(EW "cast_string.onnx", O2C_EMODEL,
                    "node 'cast' (Cast): cast to string is not supported (strings have no C form");
}

/* a[N,1,4] + b[3,1]; Max and Mean of a, b, c[4]; Where(a > b, a, b); N = 2. */
Test(elementwise, broadcast_run) {
    enum { N = 2 };
    float a[N * 4], b[3], c[4], s[N * 12], mx[N * 12], mean[N * 12], w[N * 12];
    for (int i = 0; i < N * 4; i++)
        a[i] = (float)i - 3.5f;
    for (int i = 0; i < 3; i++)
        b[i] = (float)i - 1.0f;
    for (int i = 0; i < 4; i++)
        c[i] = 0.5f * (float)i;
    TuModel m;
    tu_open(&m, EW "bcast_sym.onnx", NULL);
    int64_t dims[1] = {N};
    const void *in[3] = {a, b, c};
    void *outs[4] = {s, mx, mean, w};
    cr_assert_eq(tu_run(&m, dims, in, outs), 0);
    for (int n = 0; n < N; n++)
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 4; k++) {
                int i = (n * 3 + r) * 4 + k;
                float x = a[n * 4 + k], y = b[r], z = c[k];
                cr_assert_float_eq(s[i], x + y, 1e-6, "s[%d]", i);
                cr_assert_float_eq(mx[i], fmaxf(fmaxf(x, y), z), 1e-6, "mx[%d]", i);
                cr_assert_float_eq(mean[i], (x + y + z) / 3, 1e-5, "mean[%d]", i);
                cr_assert_float_eq(w[i], x > y ? x : y, 1e-6, "w[%d]", i);
            }
    tu_close(&m);
}

/* Shape arithmetic folds: Reshape's target is known as [N, 2C, 4], so the output shape is
 * symbolic and no kernel computes it; constant Div/Mod/Where fold to their ONNX values. */
Test(elementwise, shape_arithmetic_folds) {
    TuModel m;
    tu_open(&m, EW "shape_fold.onnx", NULL);
    cr_assert(strstr(m.o.h_src, "output 0 'y': float[N, C*2, 4]"), "%s", m.o.h_src);
    cr_assert(strstr(m.o.c_src, "const int64_t k__q[5] = {"), "Div was not folded:\n%s", m.o.c_src);
    enum { N = 2, C = 3 };
    float x[N * C * 8], y[N * C * 8];
    int64_t target[3], q[5], r0[5], r1[5], sel[5];
    for (int i = 0; i < N * C * 8; i++)
        x[i] = (float)i;
    int64_t dims[2] = {N, C};
    const void *in[1] = {x};
    void *outs[6] = {y, target, q, r0, r1, sel};
    cr_assert_eq(tu_run(&m, dims, in, outs), 0);
    static const int64_t want_target[3] = {N, 2 * C, 4};
    /* num = {-7, 7, -7, 7, 3}, den = {2, 2, -2, -2, 3} */
    static const int64_t want_q[5] = {-3, 3, 3, -3, 1};   /* truncation toward zero */
    static const int64_t want_r0[5] = {1, 1, -1, -1, 0};  /* fmod=0: sign of the divisor */
    static const int64_t want_r1[5] = {-1, 1, -1, 1, 0};  /* fmod=1: sign of the dividend */
    static const int64_t want_sel[5] = {-7, 7, -7, 7, 3}; /* Where(Not(Equal)) */
    for (int i = 0; i < 3; i++)
        cr_assert_eq(target[i], want_target[i], "target[%d] = %lld", i, (long long)target[i]);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(q[i], want_q[i], "q[%d] = %lld", i, (long long)q[i]);
        cr_assert_eq(r0[i], want_r0[i], "r0[%d] = %lld", i, (long long)r0[i]);
        cr_assert_eq(r1[i], want_r1[i], "r1[%d] = %lld", i, (long long)r1[i]);
        cr_assert_eq(sel[i], want_sel[i], "sel[%d] = %lld", i, (long long)sel[i]);
    }
    for (int i = 0; i < N * C * 8; i++)
        cr_assert_eq(y[i], x[i]);
    tu_close(&m);
}

/* Comparisons of symbolic shape values fold when they differ for every size: torch's
 * x.expand(N, -1, -1) pattern Where(Equal([N, 4], -1), 1, [N, 4]) and Greater/Less(N + 1, 0)
 * leave both Expand targets known (no data-dependent shape). */
Test(elementwise, symbolic_comparisons_fold) {
    TuModel m;
    tu_open(&m, EW "cmp_fold.onnx", NULL);
    cr_assert(strstr(m.o.h_src, "output 0 'e': float[N, 4]"), "%s", m.o.h_src);
    cr_assert(strstr(m.o.h_src, "output 1 'y': float[N + 1, 4, 4]"), "%s", m.o.h_src);
    enum { N = 3 };
    float x[N], e[N * 4], y[(N + 1) * 16];
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    int64_t dims[1] = {N};
    const void *in[1] = {x};
    void *outs[2] = {e, y};
    cr_assert_eq(tu_run(&m, dims, in, outs), 0);
    for (int i = 0; i < N * 4; i++)
        cr_assert_eq(e[i], (float)(i / 4));
    for (int i = 0; i < (N + 1) * 16; i++)
        cr_assert_eq(y[i], 1.5f);
    tu_close(&m);
}

/* Run-time kernels on other element types: int32 Mod (fmod=0) with mixed signs, Round half to
 * even, Cast float -> float16 (round to nearest even) -> float, Pow with an int64 exponent. */
Test(elementwise, types_run) {
    int32_t i[4] = {-7, 7, -7, 8}, jv[4] = {3, -3, -3, 3}, mod[4];
    float f[4] = {2.5f, -0.5f, 1.5f, 65519.0f}, rnd[4], back[4], pw[4];
    int64_t e[4] = {2, 3, 0, 1};
    uint16_t h[4];
    TuModel m;
    tu_open(&m, EW "types.onnx", NULL);
    const void *in[4] = {i, jv, f, e};
    void *outs[5] = {mod, rnd, h, back, pw};
    cr_assert_eq(tu_run(&m, NULL, in, outs), 0);
    static const int32_t want_mod[4] = {2, -2, -1, 2};
    static const float want_round[4] = {2.0f, -0.0f, 2.0f, 65519.0f};
    /* 2.5, -0.5, 1.5 are exact in float16; 65519 rounds to 65504 (the largest float16) */
    static const uint16_t want_h[4] = {0x4100, 0xb800, 0x3e00, 0x7bff};
    for (int k = 0; k < 4; k++) {
        cr_assert_eq(mod[k], want_mod[k], "mod[%d] = %d", k, mod[k]);
        cr_assert_eq(rnd[k], want_round[k], "round[%d] = %g", k, rnd[k]);
        cr_assert_eq(h[k], want_h[k], "h[%d] = 0x%04x", k, h[k]);
        cr_assert_float_eq(pw[k], powf(f[k], (float)e[k]), 1e-3, "pow[%d] = %g", k, pw[k]);
    }
    cr_assert_float_eq(back[0], 2.5f, 0);
    cr_assert_float_eq(back[3], 65504.0f, 0);
    tu_close(&m);
}

/* Loops of a broadcast: adjacent dims every input reads the same way merge into one loop.
 * x[N,5,3,7] - s[N,5,1,1] runs over N*5 channels and a plane of 21; x + b[7] over N*5*3 rows of
 * 7; x + c[5,1,1] over N, 5 and 21 (N is not merged: c does not vary along it).  The Mul
 * s[N,5,1,1] * x (squeeze-excitation's scale) is a call of templates/ew_scale.c over N*5 rows of
 * 21.  Values checked at N = 2, strict C99 gcc. */
Test(elementwise, broadcast_loops_merge) {
    enum { N = 2, C = 5, H = 3, W = 7 };
    char path[128];
    snprintf(path, sizeof path, "/tmp/onnx2c-ew-%d-merge.onnx", (int)getpid());
    MgGraph *g = mg_new(13);
    MgDim xd[] = {{"N", 0}, {NULL, C}, {NULL, H}, {NULL, W}}, sd[] = {{"N", 0}, {NULL, C},
                                                                      {NULL, 1}, {NULL, 1}};
    mg_input(g, "x", MG_FLOAT, 4, xd);
    mg_input(g, "s", MG_FLOAT, 4, sd);
    float b[W], cc[C];
    for (int i = 0; i < W; i++)
        b[i] = 0.25f * (float)i;
    for (int i = 0; i < C; i++)
        cc[i] = -1.0f - (float)i;
    mg_init(g, "b", MG_FLOAT, 1, (const int64_t[]){W}, b);
    mg_init(g, "c", MG_FLOAT, 3, (const int64_t[]){C, 1, 1}, cc);
    mg_node(g, "Sub", "scale", 2, (const char *[]){"x", "s"}, 1, (const char *[]){"y"});
    mg_node(g, "Mul", "excite", 2, (const char *[]){"s", "x"}, 1, (const char *[]){"v"});
    mg_node(g, "Add", "row", 2, (const char *[]){"x", "b"}, 1, (const char *[]){"z"});
    mg_node(g, "Add", "chan", 2, (const char *[]){"x", "c"}, 1, (const char *[]){"u"});
    mg_output(g, "y", MG_FLOAT, 4, xd);
    mg_output(g, "z", MG_FLOAT, 4, xd);
    mg_output(g, "u", MG_FLOAT, 4, xd);
    mg_output(g, "v", MG_FLOAT, 4, xd);
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, TU_STRICT_CC);
    const char *src = m.o.c_src, *mul = strstr(src, "/* scale: Sub");
    const char *row = strstr(src, "/* row: Add");
    const char *chan = strstr(src, "/* chan: Add");
    const char *ex = strstr(src, "/* excite: Mul");
    cr_assert(mul && row && chan && ex, "%s", src);
    ex = strstr(ex, "ew_scale_f32(");
    cr_assert(ex && strstr(ex, ", 21);") && strstr(ex, ", 21);") < strchr(ex, ';') + 1,
              "excite: no ew_scale_f32 call over rows of 21 in\n%s", src);
    /* each node's loops: the text up to the next node's comment */
    const char *ends[3] = {strstr(mul + 1, "/* "), strstr(row + 1, "/* "), strstr(chan + 1, "/* ")};
    const char *starts[3] = {mul, row, chan};
    const char *want[3][3] = {{"i1 < 21;", "in__s[i0]", NULL},
                              {"i1 < 7;", "w__b[i1]", NULL},
                              {"i0 < d__N;", "i1 < 5;", "i2 < 21;"}};
    for (int k = 0; k < 3; k++) {
        size_t len = ends[k] ? (size_t)(ends[k] - starts[k]) : strlen(starts[k]);
        char *part = strndup(starts[k], len);
        for (int j = 0; j < 3; j++)
            if (want[k][j])
                cr_assert(strstr(part, want[k][j]), "node %d: no '%s' in\n%s", k, want[k][j], part);
        cr_assert(!strstr(part, k == 2 ? "i3 <" : "i2 <"), "node %d: a loop too many:\n%s", k,
                  part);
        free(part);
    }
    float x[N * C * H * W], sv[N * C], y[N * C * H * W], z[N * C * H * W], u[N * C * H * W];
    float v[N * C * H * W];
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = 0.5f * (float)(i % 17) - 3.0f;
    for (int i = 0; i < N * C; i++)
        sv[i] = 0.1f * (float)i + 0.5f;
    int64_t dims[1] = {N};
    const void *in[2] = {x, sv};
    void *outs[4] = {y, z, u, v};
    cr_assert_eq(tu_run(&m, dims, in, outs), 0);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int p = 0; p < H * W; p++) {
                int i = (n * C + c) * H * W + p;
                cr_assert_float_eq(y[i], x[i] - sv[n * C + c], 1e-6, "y[%d]", i);
                cr_assert_float_eq(v[i], sv[n * C + c] * x[i], 1e-6, "v[%d]", i);
                cr_assert_float_eq(z[i], x[i] + b[p % W], 1e-6, "z[%d]", i);
                cr_assert_float_eq(u[i], x[i] + cc[c], 1e-6, "u[%d]", i);
            }
    tu_close(&m);
    unlink(path);
}

/* The OpenMP loops (compiler/emit.c, emit_elementwise): a static size below 2^18 elements gets no
 * region at all (one that ran on a single thread would still cost a system call), a static size
 * above gets one without a test, and a symbolic size is tested at run time (o2c_par) with the
 * loops written twice.  The serial copy is the one a build without OpenMP runs: checked here. */
Test(elementwise, parallel_only_when_large) {
    enum { C = 4, P = 16, BIG = 64 * 64 * 64, N = 3 };
    char path[128];
    snprintf(path, sizeof path, "/tmp/onnx2c-ew-%d-par.onnx", (int)getpid());
    MgGraph *g = mg_new(13);
    MgDim sd[] = {{NULL, 1}, {NULL, C}, {NULL, P}}, bd[] = {{NULL, 64}, {NULL, 64 * 64}};
    MgDim yd[] = {{"N", 0}, {NULL, C}, {NULL, P}};
    mg_input(g, "s", MG_FLOAT, 3, sd);
    mg_input(g, "b", MG_FLOAT, 2, bd);
    mg_input(g, "y", MG_FLOAT, 3, yd);
    float cc[C], two = 2.0f;
    for (int i = 0; i < C; i++)
        cc[i] = 1.5f - (float)i;
    mg_init(g, "c", MG_FLOAT, 2, (const int64_t[]){C, 1}, cc);
    mg_init(g, "two", MG_FLOAT, 0, NULL, &two);
    mg_node(g, "Mul", "small", 2, (const char *[]){"s", "two"}, 1, (const char *[]){"s2"});
    mg_node(g, "Mul", "big", 2, (const char *[]){"b", "two"}, 1, (const char *[]){"b2"});
    mg_node(g, "Add", "sym", 2, (const char *[]){"y", "c"}, 1, (const char *[]){"y2"});
    mg_output(g, "s2", MG_FLOAT, 3, sd);
    mg_output(g, "b2", MG_FLOAT, 2, bd);
    mg_output(g, "y2", MG_FLOAT, 3, yd);
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, TU_STRICT_CC);
    const char *src = m.o.c_src;
    const char *at[3] = {strstr(src, "/* small: Mul"), strstr(src, "/* big: Mul"),
                         strstr(src, "/* sym: Add")};
    cr_assert(at[0] && at[1] && at[2], "%s", src);
    char *part[3];
    for (int k = 0; k < 3; k++) {
        const char *end = strstr(at[k] + 1, "/* ");
        part[k] = strndup(at[k], end ? (size_t)(end - at[k]) : strlen(at[k]));
    }
    cr_assert(!strstr(part[0], "omp"), "a region for 64 elements:\n%s", part[0]);
    cr_assert(strstr(part[1], "#pragma omp parallel for schedule(static)\n"), "%s", part[1]);
    cr_assert(!strstr(part[1], "o2c_par"), "%s", part[1]);
    const char *test = strstr(part[2], "if (o2c_par(");
    cr_assert(test, "%s", part[2]);
    const char *loop1 = strstr(test, "for (int64_t i0 = 0; i0 < d__N;");
    cr_assert(loop1 && strstr(loop1 + 1, "for (int64_t i0 = 0; i0 < d__N;"),
              "two copies of the loops:\n%s", part[2]);
    for (int k = 0; k < 3; k++)
        free(part[k]);
    float *s = malloc(sizeof(float) * C * P), *s2 = malloc(sizeof(float) * C * P);
    float *b = malloc(sizeof(float) * BIG), *b2 = malloc(sizeof(float) * BIG);
    float *y = malloc(sizeof(float) * N * C * P), *y2 = malloc(sizeof(float) * N * C * P);
    cr_assert(s && s2 && b && b2 && y && y2);
    for (int i = 0; i < C * P; i++)
        s[i] = 0.25f * (float)(i % 13) - 1.0f;
    for (int i = 0; i < BIG; i++)
        b[i] = (float)(i % 1000) - 500.0f;
    for (int i = 0; i < N * C * P; i++)
        y[i] = 0.5f * (float)(i % 7);
    int64_t dims[1] = {N};
    const void *in[3] = {s, b, y};
    void *outs[3] = {s2, b2, y2};
    cr_assert_eq(tu_run(&m, dims, in, outs), 0);
    for (int i = 0; i < C * P; i++)
        cr_assert_float_eq(s2[i], 2.0f * s[i], 0.0f, "s2[%d]", i);
    for (int i = 0; i < BIG; i++)
        cr_assert_float_eq(b2[i], 2.0f * b[i], 0.0f, "b2[%d]", i);
    for (int i = 0; i < N * C * P; i++)
        cr_assert_float_eq(y2[i], y[i] + cc[i / P % C], 1e-6, "y2[%d]", i);
    free(s), free(s2), free(b), free(b2), free(y), free(y2);
    tu_close(&m);
    unlink(path);
}

/* a[A0, A1] + b[B0, B1], a * c[C1], Where(a > b, a, c): each pair of symbolic dims may differ
 * when one of them is 1 (the strides are taken at run time; the runnable case
 * tests/data/elementwise/cases/bcast_runtime_sym checks the values); any other pair is refused
 * by model_check, naming the node. */
Test(elementwise, broadcast_decided_at_run_time) {
    TuModel m;
    tu_open(&m, EW "cases/bcast_runtime_sym/model.onnx", NULL);
    const int64_t ok1[5] = {3, 4, 1, 4, 4}, ok2[5] = {1, 4, 5, 1, 1}, bad[5] = {3, 4, 2, 4, 4};
    const int64_t want1[2] = {3, 4}, want2[2] = {5, 4};
    cr_assert_eq(m.check(ok1), 0);
    cr_assert_eq(m.check(ok2), 0);
    tu_expect_shape(&m, ok1, 0, 2, want1);
    tu_expect_shape(&m, ok2, 0, 2, want2);
    int rc = m.check(bad);
    cr_assert(rc <= -100, "3 against 2: %d", rc);
    typedef const char *(*strerror_fn)(int);
    strerror_fn se = (strerror_fn)jit_symbol(m.j, "model_strerror");
    cr_assert(strstr(se(rc), "node 'add' (Add): broadcast dimension 0: sizes must be equal or 1"),
              "%s", se(rc));
    tu_close(&m);
}
