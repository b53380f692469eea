/* test_profile.c — the profile build (-DMODEL_PROFILE, CONTRACT.md §2): model_profile lists
 * every node of the graph in topological order, with the time and the runs of those that run
 * and the reason for those that do not; model_profile_reset clears it; the outputs are the
 * same bytes as the build without the macro. */
#define _POSIX_C_SOURCE 200809L
#include "modelgen.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the header's struct, for prefix "model" */
typedef struct {
    const char *op, *node, *shape, *note;
    double seconds;
    uint64_t calls;
} Entry;
typedef const Entry *(*profile_fn)(int *count);
typedef void (*reset_fn)(void);

enum { C = 8, HW = 24 };

/* Relu fuses into the Conv; Sigmoid runs; Reshape's shape = Add(s1, s2) is known at compile
 * time. */
static void write_model(const char *path) {
    MgGraph *g = mg_new(13);
    MgDim xd[4] = {{"N", 0}, {NULL, C}, {NULL, HW}, {NULL, HW}};
    mg_input(g, "x", MG_FLOAT, 4, xd);
    static float w[C * C * 9], b[C];
    for (int i = 0; i < C * C * 9; i++)
        w[i] = (float)((i * 37) % 19 - 9) / 16.0f;
    for (int i = 0; i < C; i++)
        b[i] = 0.25f * (float)i - 0.5f;
    mg_init(g, "w", MG_FLOAT, 4, (const int64_t[]){C, C, 3, 3}, w);
    mg_init(g, "b", MG_FLOAT, 1, (const int64_t[]){C}, b);
    mg_init(g, "s1", MG_INT64, 1, (const int64_t[]){4}, (const int64_t[]){0, C / 2, 0, 0});
    mg_init(g, "s2", MG_INT64, 1, (const int64_t[]){4}, (const int64_t[]){0, C / 2, 0, 0});
    mg_node(g, "Add", "fold", 2, (const char *[]){"s1", "s2"}, 1, (const char *[]){"shape"});
    MgNode *cv = mg_node(g, "Conv", "conv", 3, (const char *[]){"x", "w", "b"}, 1,
                         (const char *[]){"c"});
    mg_attr_ints(cv, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    mg_node(g, "Relu", "relu", 1, (const char *[]){"c"}, 1, (const char *[]){"r"});
    mg_node(g, "Sigmoid", "sig", 1, (const char *[]){"r"}, 1, (const char *[]){"s"});
    mg_node(g, "Reshape", "reshape", 2, (const char *[]){"s", "shape"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, 4, xd);
    mg_write(g, path);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

Test(profile, every_node_time_and_note) {
    char path[256];
    snprintf(path, sizeof path, "/tmp/onnx2c-profile-%ld.onnx", (long)getpid());
    write_model(path);
    enum { N = 2, RUNS = 3 };
    const int64_t dims[1] = {N};
    const int64_t n = (int64_t)N * C * HW * HW;
    float *x = tu_random_floats(n, 7);
    float *y0 = calloc((size_t)n, sizeof *y0), *y1 = calloc((size_t)n, sizeof *y1);
    cr_assert(y0 && y1);

    TuModel plain;
    tu_open(&plain, path, TU_STRICT_CC);
    cr_assert_null(jit_symbol(plain.j, "model_profile"), "model_profile without MODEL_PROFILE");
    cr_assert_eq(tu_run(&plain, dims, (const void *[]){x}, (void *[]){y0}), 0);
    tu_close(&plain);

    /* strict C99 flags and -Werror: the profile build compiles warning-free too */
    TuModel m;
    tu_open(&m, path, TU_STRICT_CC " -DMODEL_PROFILE");
    profile_fn prof = (profile_fn)(uintptr_t)jit_symbol(m.j, "model_profile");
    reset_fn reset = (reset_fn)(uintptr_t)jit_symbol(m.j, "model_profile_reset");
    cr_assert(prof && reset, "model_profile / model_profile_reset missing in the profile build");
    cr_assert_eq(tu_run(&m, dims, (const void *[]){x}, (void *[]){y1}), 0);
    cr_assert(memcmp(y0, y1, (size_t)n * sizeof *y0) == 0, "the profile build computes other bytes");
    int count = -1;
    const Entry *e = prof(&count);
    cr_assert_eq(count, 5, "%d entries, want one per graph node (5)", count);
    cr_assert_eq(e[1].calls, 1, "the warm-up run was not counted");
    reset();
    for (int i = 0; i < count; i++)
        cr_assert(e[i].calls == 0 && e[i].seconds == 0.0, "entry %d not cleared by reset", i);
    double t0 = now_s();
    for (int r = 0; r < RUNS; r++)
        cr_assert_eq(tu_run(&m, dims, (const void *[]){x}, (void *[]){y1}), 0);
    double wall = now_s() - t0;

    static const char *const op[5] = {"Add", "Conv", "Relu", "Sigmoid", "Reshape"};
    static const char *const name[5] = {"fold", "conv", "relu", "sig", "reshape"};
    static const char *const note[5] = {"computed at compile time", "", "fused into conv", "", ""};
    double sum = 0;
    for (int i = 0; i < 5; i++) {
        cr_assert_str_eq(e[i].op, op[i]);
        cr_assert_str_eq(e[i].node, name[i]);
        cr_assert_str_eq(e[i].note, note[i], "entry %d '%s': note '%s', want '%s'", i, name[i],
                         e[i].note, note[i]);
        cr_assert_eq(e[i].calls, note[i][0] ? 0u : (uint64_t)RUNS, "entry %d '%s': %llu calls", i,
                     name[i], (unsigned long long)e[i].calls);
        cr_assert(e[i].seconds >= 0.0 && (note[i][0] == 0 || e[i].seconds == 0.0));
        sum += e[i].seconds;
    }
    cr_assert_str_eq(e[1].shape, "[N,8,24,24]");
    /* the node times lie inside the runs the test timed */
    cr_assert(sum > 0.0 && sum <= wall, "node times sum to %g s, the runs took %g s", sum, wall);
    /* prof(NULL) is allowed */
    cr_assert_eq(prof(NULL), e);
    tu_close(&m);
    free(x);
    free(y0);
    free(y1);
    remove(path);
}

/* The notes name the fusions of the lower pass: HardSwish as HardSigmoid + Mul fuses into the
 * Conv (tests/data/matconv/epi); with the Conv's output read by a Relu too, nothing fuses. */
static void expect_notes(const char *name, int n, const char *const *want) {
    char path[512];
    snprintf(path, sizeof path, "%s%s/model.onnx", TU_DATA("matconv/epi"), name);
    TuModel m;
    tu_open(&m, path, "gcc -O1 -DMODEL_PROFILE");
    profile_fn prof = (profile_fn)(uintptr_t)jit_symbol(m.j, "model_profile");
    cr_assert_not_null(prof);
    int count = 0;
    const Entry *e = prof(&count);
    cr_assert_eq(count, n, "%s: %d entries, want %d", name, count, n);
    for (int i = 0; i < n; i++)
        cr_assert_str_eq(e[i].note, want[i], "%s: node '%s' note '%s', want '%s'", name, e[i].node,
                         e[i].note, want[i]);
    tu_close(&m);
}

Test(profile, notes_of_fusions) {
    expect_notes("k1_m24_hswish", 3, (const char *[]){"", "fused into conv", "fused into conv"});
    expect_notes("dw_k5_hswish", 3, (const char *[]){"", "fused into conv", "fused into conv"});
    expect_notes("dw_k3_hswish_shared", 4, (const char *[]){"", "", "", ""});
}
