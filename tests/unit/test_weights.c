/* test_weights.c — the weight writer of compiler/emit.c: each constant's static array is as
 * long as the tensor (issue 10, "flash at the weights' size").  Arrays of more than 64
 * elements are rows of string literals in a union with a double: their sizeof is the byte count
 * rounded up to 8, never up to the 1 KB row; smaller ones are typed arrays of the exact size.
 * The generated C is compiled with an accessor appended (libtcc and strict gcc), and each
 * array's sizeof and bytes are checked against the initializer, then the model is run. */
#include "modelgen.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct WCase {
    const char *name; /* initializer c_NAME, input x_NAME, output y_NAME */
    int mg;           /* MG_ type */
    size_t es;        /* element size */
    int64_t n;        /* elements */
} WCase;

/* Odd sizes: one byte over a KB, exactly a KB, a row and 8 bytes, under the 64-element
 * threshold of typed literals, just over it, several rows plus a rest, several whole rows. */
static const WCase cases[] = {
    {"i8_1025", MG_INT8, 1, 1025},    {"f_256", MG_FLOAT, 4, 256},
    {"d_129", MG_DOUBLE, 8, 129},     {"f_40", MG_FLOAT, 4, 40},
    {"f_65", MG_FLOAT, 4, 65},        {"b_3000", MG_BOOL, 1, 3000},
    {"u8_4096", MG_UINT8, 1, 4096},   {"i8_63", MG_INT8, 1, 63},
    {"f_2311", MG_FLOAT, 4, 2311},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Every byte value (quotes, backslashes, '?', NUL, bytes over 127) in an order that is not a
 * repetition of the row length; bools are 0 or 1. */
static unsigned char *case_data(const WCase *k) {
    size_t nb = (size_t)k->n * k->es;
    unsigned char *d = malloc(nb);
    cr_assert_not_null(d);
    for (size_t i = 0; i < nb; i++)
        d[i] = k->mg == MG_BOOL ? (unsigned char)(i * 7 % 3 == 1) : (unsigned char)(i * 37 + i / 251);
    if (k->mg == MG_DOUBLE || k->mg == MG_FLOAT) /* finite values: no NaN payloads to compare */
        for (size_t i = k->es - 1; i < nb; i += k->es)
            d[i] &= 0x3f;
    return d;
}

static void write_model(const char *path) {
    MgGraph *g = mg_new(14);
    for (size_t i = 0; i < NCASES; i++) {
        const WCase *k = &cases[i];
        char x[32], c[32], y[32];
        snprintf(x, sizeof x, "x_%s", k->name);
        snprintf(c, sizeof c, "c_%s", k->name);
        snprintf(y, sizeof y, "y_%s", k->name);
        MgDim d = {NULL, k->n};
        mg_input(g, x, k->mg, 1, &d);
        unsigned char *data = case_data(k);
        mg_init(g, c, k->mg, 1, &k->n, data);
        free(data);
        mg_node(g, k->mg == MG_BOOL ? "Or" : "Add", NULL, 2, (const char *[]){x, c}, 1,
                (const char *[]){y});
        mg_output(g, y, k->mg, 1, &d);
    }
    mg_write(g, path);
}

/* The generated C with `weight_at(i, &size)` appended: the address and sizeof of case i's
 * static array (named Ww__c_NAME: the W of the weight's w__ identifier). */
static char *with_accessor(const char *c_src) {
    size_t cap = strlen(c_src) + 4096;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    size_t k = (size_t)snprintf(s, cap, "%s\nconst void *weight_at(int i, size_t *size);\n"
                                        "const void *weight_at(int i, size_t *size) {\n"
                                        "    switch (i) {\n", c_src);
    for (size_t i = 0; i < NCASES; i++)
        k += (size_t)snprintf(s + k, cap - k,
                              "    case %zu: *size = sizeof Ww__c_%s; return &Ww__c_%s;\n", i,
                              cases[i].name, cases[i].name);
    snprintf(s + k, cap - k, "    }\n    *size = 0;\n    return 0;\n}\n");
    return s;
}

static void check_arrays(const Output *o, const char *cc) {
    char err[1024];
    char *src = with_accessor(o->c_src);
    Jit *j = jit_compile(src, "model.h", o->h_src, cc, err, sizeof err);
    cr_assert_not_null(j, "%s: %s", cc ? cc : "libtcc", err);
    typedef const void *(*at_fn)(int, size_t *);
    at_fn at = (at_fn)jit_symbol(j, "weight_at");
    tu_run_fn run = (tu_run_fn)jit_symbol(j, "model_run");
    cr_assert(at && run);
    size_t total = 0, params = 0;
    const void *ins[NCASES];
    void *outs[NCASES];
    for (size_t i = 0; i < NCASES; i++) {
        const WCase *k = &cases[i];
        size_t nb = (size_t)k->n * k->es, size = 0;
        const void *p = at((int)i, &size);
        size_t want = k->n > 64 ? (nb + 7) / 8 * 8 : nb;
        cr_assert_eq(size, want, "%s: c_%s (%zu bytes) is %zu bytes in the C file, want %zu",
                     cc ? cc : "libtcc", k->name, nb, size, want);
        cr_assert_eq((uintptr_t)p % k->es, 0, "c_%s is misaligned", k->name);
        unsigned char *data = case_data(k);
        cr_assert(memcmp(p, data, nb) == 0, "c_%s: the bytes differ from the initializer",
                  k->name);
        /* x = 0 (false): y is the constant itself, read through the run's pointer */
        ins[i] = calloc((size_t)k->n, k->es);
        outs[i] = malloc(nb);
        cr_assert(ins[i] && outs[i]);
        free(data);
        total += size;
        params += nb;
    }
    cr_assert_eq(run(NULL, ins, outs, NULL), 0);
    for (size_t i = 0; i < NCASES; i++) {
        unsigned char *data = case_data(&cases[i]);
        cr_assert(memcmp(outs[i], data, (size_t)cases[i].n * cases[i].es) == 0,
                  "y_%s differs from c_%s", cases[i].name, cases[i].name);
        free(data);
        free((void *)ins[i]);
        free(outs[i]);
    }
    /* rounding to 8 only: at most 7 bytes per array over the parameters */
    cr_assert(total >= params && total - params <= 7 * NCASES, "arrays %zu bytes, params %zu",
              total, params);
    jit_free(j);
    free(src);
}

Test(weights, arrays_at_the_tensor_size) {
    char path[] = "/tmp/onnx2c-weights-XXXXXX.onnx";
    int fd = mkstemps(path, 5);
    cr_assert(fd >= 0);
    close(fd);
    write_model(path);
    Output o;
    tu_compile_ok(path, &o);
    /* no 1 KB row padding left: whole rows only where the bytes fill them */
    cr_assert(strstr(o.c_src, "unsigned char b[9][1024]; unsigned char t[28]; }"),
              "f_2311: 9 rows and 28 bytes expected");
    cr_assert(strstr(o.c_src, "struct { unsigned char t[260]; }"), "f_65: one short row");
    cr_assert(strstr(o.c_src, "struct { unsigned char b[4][1024]; }"), "u8_4096: 4 rows");
    check_arrays(&o, NULL);
    check_arrays(&o, TU_STRICT_CC);
    onnx2c_output_free(&o);
    remove(path);
}

/* A Conv with fewer output channels than the engine's MR rows (5 < 8), stride 2 (neither the
 * wide nor the 1x1 path): the engine reads its weight in place, so the C file holds the weight
 * at its own size (packed, it was padded to 8 rows: 864 bytes for 540), and the result is the
 * convolution's.  Also with 12 channels (packed, the padding to 16 rows is read by the kernel). */
static void conv_case(int64_t M, bool packed) {
    enum { C = 3, H = 9, KS = 3, OH = 5 };
    char path[] = "/tmp/onnx2c-weights-XXXXXX.onnx";
    int fd = mkstemps(path, 5);
    cr_assert(fd >= 0);
    close(fd);
    float *w = tu_random_floats(M * C * KS * KS, 7), *b = tu_random_floats(M, 8);
    float *x = tu_random_floats(C * H * H, 9);
    MgGraph *g = mg_new(13);
    MgDim xd[4] = {{NULL, 1}, {NULL, C}, {NULL, H}, {NULL, H}};
    mg_input(g, "x", MG_FLOAT, 4, xd);
    mg_init(g, "w", MG_FLOAT, 4, (const int64_t[]){M, C, KS, KS}, w);
    mg_init(g, "b", MG_FLOAT, 1, &M, b);
    MgNode *n = mg_node(g, "Conv", "conv", 3, (const char *[]){"x", "w", "b"}, 1,
                        (const char *[]){"y"});
    mg_attr_ints(n, "strides", 2, (const int64_t[]){2, 2});
    mg_attr_ints(n, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_write(g, path);

    char *rep = NULL;
    size_t replen = 0;
    FILE *f = open_memstream(&rep, &replen);
    cr_assert_not_null(f);
    Options opt = {0};
    opt.report = true;
    opt.report_out = f;
    TuModel m;
    tu_open_opts(&m, path, &opt, NULL);
    fclose(f);
    long long arrays = -1, params = -1;
    const char *at = strstr(rep, "weights: ");
    cr_assert(at && sscanf(at, "weights: %lld bytes of arrays in the C file; parameters: %lld",
                           &arrays, &params) == 2, "%s", rep);
    long long own = (long long)(M * C * KS * KS + M) * 4;
    cr_assert_eq(params, own);
    long long want = packed ? (long long)(((M + 7) / 8 * 8) * C * KS * KS + M) * 4 : own;
    cr_assert_eq(arrays, want, "M = %lld: %lld bytes of arrays, want %lld", (long long)M, arrays,
                 want);
    cr_assert_eq(strstr(m.o.c_src, "Ww__w_packed") != NULL, packed);

    float y[12 * OH * OH], ref[12 * OH * OH];
    for (int64_t o = 0; o < M; o++)
        for (int i = 0; i < OH; i++)
            for (int j = 0; j < OH; j++) {
                double s = b[o];
                for (int c = 0; c < C; c++)
                    for (int u = 0; u < KS; u++)
                        for (int v = 0; v < KS; v++) {
                            int r = 2 * i - 1 + u, q = 2 * j - 1 + v;
                            if (r >= 0 && r < H && q >= 0 && q < H)
                                s += (double)w[((o * C + c) * KS + u) * KS + v] * x[(c * H + r) * H + q];
                        }
                ref[(o * OH + i) * OH + j] = (float)s;
            }
    cr_assert_eq(tu_run(&m, NULL, (const void *const[]){x}, (void *const[]){y}), 0);
    tu_expect_close(y, ref, M * OH * OH);
    tu_close(&m);
    free(rep);
    free(w);
    free(b);
    free(x);
    remove(path);
}

Test(weights, conv_below_mr_rows_unpacked) { conv_case(5, false); }
Test(weights, conv_packed_rows) { conv_case(12, true); }
