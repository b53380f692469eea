/* test_blob.c — the weights blob of onnx2c --weights (Options.weights_blob; README "Big
 * models"): its layout (header fields, 64-byte aligned arrays, the table, zero padding) and
 * FNV-1a 64 checksum, recomputed here; the generated API on good and corrupted blobs (JIT):
 * model_weights_check and model_run_w return -8 (or -3 for NULL) and never crash; and the
 * outputs of model_run_w are the inline build's, byte for byte, on models whose weights are
 * packed for the GEMM engine, transformed for Winograd, and packed twice under #if (the int8
 * engine's QI8_CONVX arrays). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

typedef int (*run_w_fn)(const int64_t *, const void *const *, void *const *, void *, const void *);
typedef int (*wcheck_fn)(const void *, size_t);

static uint64_t le(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static void compile(const char *path, bool blob, Output *o) {
    Options opt = {0};
    opt.name = "model";
    opt.out_path = "model.c";
    opt.weights_blob = blob;
    opt.weights_name = "dir/model.bin";
    char err[1024] = "";
    int st = onnx2c_compile(path, &opt, o, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", path, err);
}

/* The header and table of a blob, checked against the layout; returns the array count. */
static uint64_t check_layout(const unsigned char *b, size_t size) {
    cr_assert_geq(size, 64);
    cr_assert_eq(memcmp(b, "ONNX2CWB", 8), 0, "magic");
    cr_assert_eq(le(b + 8, 4), 1, "version");
    uint64_t count = le(b + 12, 4), total = le(b + 16, 8), sum = le(b + 24, 8), table = le(b + 32, 8);
    cr_assert_eq(total, size, "the size field is %llu, the blob %zu bytes", (unsigned long long)total, size);
    cr_assert_eq(sum, fnv1a(b + 64, size - 64), "checksum");
    for (int i = 40; i < 64; i++)
        cr_assert_eq(b[i], 0, "header byte %d", i);
    cr_assert_eq(table % 64, 0);
    cr_assert_eq(table + 16 * count, size, "the table ends the blob");
    uint64_t end = 64;
    for (uint64_t k = 0; k < count; k++) {
        uint64_t off = le(b + table + 16 * k, 8), n = le(b + table + 16 * k + 8, 8);
        cr_assert_eq(off % 64, 0, "array %llu at %llu", (unsigned long long)k, (unsigned long long)off);
        cr_assert_geq(off, end, "arrays in order, apart");
        for (uint64_t i = end; i < off; i++)
            cr_assert_eq(b[i], 0, "padding byte %llu", (unsigned long long)i);
        end = off + n;
    }
    cr_assert_leq(end, table);
    for (uint64_t i = end; i < table; i++)
        cr_assert_eq(b[i], 0, "padding byte %llu", (unsigned long long)i);
    return count;
}

/* Data set 0 of a case: dims, inputs, output buffers for two runs, a workspace. */
typedef struct Set {
    int nin, nout;
    Tensor *in[16], *want[16];
    int64_t dims[64];
    const void *ins[16];
    void *a[16], *b[16];
    size_t bytes[16];
    void *ws;
} Set;

static void load_set(Set *s, const char *dir, const Output *o, Jit *j) {
    memset(s, 0, sizeof *s);
    s->nin = tu_load_set(dir, 0, "input", s->in, 16);
    s->nout = tu_load_set(dir, 0, "output", s->want, 16);
    for (int b = 0; b < o->nbind; b++)
        s->dims[o->bind[b].dim] = s->in[o->bind[b].input]->dims[o->bind[b].axis];
    tu_wsize_fn wsize = (tu_wsize_fn)jit_symbol(j, "model_workspace_size");
    size_t wsz = wsize(s->dims);
    s->ws = aligned_alloc(64, (wsz + 64) / 64 * 64);
    for (int i = 0; i < s->nin; i++)
        s->ins[i] = s->in[i]->data;
    for (int i = 0; i < s->nout; i++) {
        s->bytes[i] = (size_t)s->want[i]->nelem * onnx2c_dtype_size(s->want[i]->dtype);
        s->a[i] = calloc(1, s->bytes[i] + 1);
        s->b[i] = calloc(1, s->bytes[i] + 1);
    }
}

static void free_set(Set *s) {
    for (int i = 0; i < s->nout; i++) {
        free(s->a[i]);
        free(s->b[i]);
        onnx2c_tensor_free(s->want[i]);
    }
    for (int i = 0; i < s->nin; i++)
        onnx2c_tensor_free(s->in[i]);
    free(s->ws);
}

/* model_run_w (blob) and the inline build's model_run give the same bytes, and they match the
 * reference outputs. */
static void same_outputs(const char *dir, Set *s, Jit *jw, Jit *ji, const void *blob) {
    run_w_fn run_w = (run_w_fn)jit_symbol(jw, "model_run_w");
    tu_run_fn run = (tu_run_fn)jit_symbol(ji, "model_run");
    cr_assert(run_w && run);
    cr_assert_null(jit_symbol(jw, "model_run"), "a --weights build has no model_run");
    cr_assert_null(jit_symbol(ji, "model_run_w"), "an inline build has no model_run_w");
    cr_assert_eq(run_w(s->dims, s->ins, s->a, s->ws, blob), 0);
    cr_assert_eq(run(s->dims, s->ins, s->b, s->ws), 0);
    for (int i = 0; i < s->nout; i++) {
        cr_assert_eq(memcmp(s->a[i], s->b[i], s->bytes[i]), 0,
                     "%s: output %d differs from the inline build's", dir, i);
        char msg[300];
        cr_assert(compare_tensor(s->want[i], s->a[i], msg, sizeof msg), "%s: output %d: %s", dir,
                  i, msg);
    }
}

/* A model's blob: layout, checksum, the checks of the generated code on good and corrupted
 * copies, and outputs equal to the inline build's. */
static void check_model(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    Output o, oi;
    compile(path, true, &o);
    compile(path, false, &oi);
    cr_assert_not_null(o.weights);
    cr_assert_null(oi.weights);
    uint64_t count = check_layout(o.weights, o.weights_size);
    cr_assert_gt(count, 0, "%s: no arrays in the blob", dir);
    cr_assert(strstr(o.h_src, "#define MODEL_WEIGHTS_SIZE"), "%s", o.h_src);
    cr_assert(strstr(o.s_src, ".incbin \"model.bin\""), "FILE.S names the blob by its last component");
    cr_assert(!strstr(o.c_src, "Ww__"), "a weight array stayed in the C of a --weights build");

    char err[1024];
    Jit *jw = jit_compile(o.c_src, "model.h", o.h_src, NULL, err, sizeof err);
    cr_assert_not_null(jw, "%s", err);
    Jit *ji = jit_compile(oi.c_src, "model.h", oi.h_src, NULL, err, sizeof err);
    cr_assert_not_null(ji, "%s", err);
    wcheck_fn wcheck = (wcheck_fn)jit_symbol(jw, "model_weights_check");
    run_w_fn run_w = (run_w_fn)jit_symbol(jw, "model_run_w");
    cr_assert(wcheck && run_w);
    size_t size = o.weights_size;
    unsigned char *blob = aligned_alloc(64, (size + 1 + 64) / 64 * 64 + 64);
    memcpy(blob, o.weights, size);
    cr_assert_eq(wcheck(blob, size), 0);
    Set set;
    load_set(&set, dir, &o, jw);
    same_outputs(dir, &set, jw, ji, blob);

    /* corrupted copies: every one refused, none read past its end or crashes */
    cr_assert_eq(wcheck(NULL, size), -3);
    cr_assert_eq(run_w(set.dims, set.ins, set.a, set.ws, NULL), -3);
    cr_assert_eq(wcheck(blob, size - 1), -8, "a short blob");
    cr_assert_eq(wcheck(blob, size + 1), -8, "a long blob");
    static const size_t at[] = {0, 7, 8, 12, 16, 24, 32, 40, 63}; /* every header field */
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
        blob[at[k]] ^= 0x20;
        cr_assert_eq(wcheck(blob, size), -8, "header byte %zu changed", at[k]);
        cr_assert_eq(run_w(set.dims, set.ins, set.a, set.ws, blob), -8, "header byte %zu", at[k]);
        blob[at[k]] ^= 0x20;
    }
    for (size_t i = 64; i < size; i += size / 97 + 1) { /* data, padding and table bytes */
        blob[i] ^= 0x01;
        cr_assert_eq(wcheck(blob, size), -8, "byte %zu changed", i);
        blob[i] ^= 0x01;
    }
    cr_assert_eq(wcheck(blob, size), 0);
    memmove(blob + 1, blob, size); /* not aligned to 64 */
    cr_assert_eq(wcheck(blob + 1, size), -8);
    cr_assert_eq(run_w(set.dims, set.ins, set.a, set.ws, blob + 1), -8);
    memmove(blob, blob + 1, size);
    cr_assert_eq(wcheck(blob, size), 0);
    free_set(&set);

    const char *(*strerr)(int) = (const char *(*)(int))jit_symbol(jw, "model_strerror");
    cr_assert(strerr && strstr(strerr(-8), "blob"), "%s", strerr ? strerr(-8) : "");
    free(blob);
    jit_free(jw);
    jit_free(ji);
    onnx2c_output_free(&o);
    onnx2c_output_free(&oi);
}

/* Convolutions (GEMM-packed and Winograd-transformed weights), a fully connected layer. */
Test(blob, float_model) { check_model(ONNX2C_SOURCE_DIR "/tests/models/tiny_resnet8"); }

/* The int8 engine: packed weights, per-output constants, the two packings under #if. */
Test(blob, int8_model) { check_model(ONNX2C_SOURCE_DIR "/tests/models/q_resnet8_qop"); }

/* A model with no weights at all: a blob of a header and an empty table. */
Test(blob, no_weights) {
    Output o;
    compile(TU_NODE_DATA "test_add/model.onnx", true, &o);
    cr_assert_eq(o.weights_size, 64);
    cr_assert_eq(check_layout(o.weights, o.weights_size), 0);
    char err[1024];
    Jit *j = jit_compile(o.c_src, "model.h", o.h_src, NULL, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    wcheck_fn wcheck = (wcheck_fn)jit_symbol(j, "model_weights_check");
    unsigned char *blob = aligned_alloc(64, 64);
    memcpy(blob, o.weights, 64);
    cr_assert_eq(wcheck(blob, 64), 0);
    free(blob);
    jit_free(j);
    onnx2c_output_free(&o);
}

/* The generated C of a --weights build is strict C99 (gcc) too, and the blob's name must be
 * one FILE.S can name. */
Test(blob, strict_and_names) {
    Output o;
    compile(ONNX2C_SOURCE_DIR "/tests/models/tiny_resnet8/model.onnx", true, &o);
    char err[1024];
    Jit *j = jit_compile(o.c_src, "model.h", o.h_src, TU_STRICT_CC, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    jit_free(j);
    onnx2c_output_free(&o);
    static const char *const bad[] = {"a\"b.bin", "a\\b.bin", "a\x7f.bin", "a??b.bin", "w\n.bin", "d/"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        Options opt = {0};
        opt.weights_blob = true;
        opt.weights_name = bad[i];
        int st = onnx2c_compile(TU_NODE_DATA "test_add/model.onnx", &opt, &o, err, sizeof err);
        cr_assert_eq(st, O2C_EUSAGE, "'%s': %d %s", bad[i], st, err);
    }
}
