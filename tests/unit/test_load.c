/* test_load.c — the loader: .pb tensors, and the error message of every kind of bad model.
 *
 * Tensors come from Debian's libonnx-testdata (raw_data) and from tests/data/bad (typed
 * fields, external data), which tests/data/bad/make_bad.py writes.  Models are compiled
 * through the library API, onnx2c_compile, and each error is checked for its exit status and
 * a fragment of its one-line message.  Some errors are raised by later stages (toposort,
 * infer, op rules): they are here because they are what a user feeding a broken file sees. */
#include "modelgen.h"
#include "onnx2c.h" /* white-box: looks inside the compiler */
#include "testutil.h"

#include <criterion/criterion.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TESTDATA TU_NODE_DATA
#define BAD TU_DATA("bad")

/* ------------------------------------------------------------------ onnx2c_load_tensor */

static void expect_dims(const Tensor *t, DType dt, int rank, const int64_t *dims) {
    cr_assert_eq(t->dtype, dt, "dtype %d, want %d", t->dtype, dt);
    cr_assert_eq(t->rank, rank);
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        cr_assert_eq(t->dims[i], dims[i], "dim %d is %lld, want %lld", i, (long long)t->dims[i],
                     (long long)dims[i]);
        n *= dims[i];
    }
    cr_assert_eq(t->nelem, n);
}

Test(load, tensor_raw_float) {
    Tensor *t = tu_load_tensor(TESTDATA "test_add/test_data_set_0/input_0.pb");
    expect_dims(t, DT_FLOAT, 3, (int64_t[]){3, 4, 5});
    cr_assert_str_eq(t->name, "x");
    const float *f = t->data;
    cr_assert_float_eq(f[0], 1.764052391052246f, 1e-7);
    cr_assert_float_eq(f[3], 2.2408931255340576f, 1e-7);
    cr_assert_float_eq(f[59], -0.36274117f, 1e-7);
    onnx2c_tensor_free(t);
}

Test(load, tensor_raw_int64) {
    Tensor *t =
        tu_load_tensor(TESTDATA "test_reshape_reordered_all_dims/test_data_set_0/input_1.pb");
    expect_dims(t, DT_INT64, 1, (int64_t[]){3});
    const int64_t *v = t->data;
    cr_assert(v[0] == 4 && v[1] == 2 && v[2] == 3);
    onnx2c_tensor_free(t);
}

Test(load, tensor_raw_float16_and_bool) {
    Tensor *t = tu_load_tensor(TESTDATA "test_cast_FLOAT_to_FLOAT16/test_data_set_0/output_0.pb");
    expect_dims(t, DT_FLOAT16, 2, (int64_t[]){3, 4});
    cr_assert_eq(((const uint16_t *)t->data)[0], 14436);
    cr_assert_eq(((const uint16_t *)t->data)[1], 14777);
    onnx2c_tensor_free(t);
    t = tu_load_tensor(TESTDATA "test_and2d/test_data_set_0/input_0.pb");
    expect_dims(t, DT_BOOL, 2, (int64_t[]){3, 4});
    for (int i = 0; i < 12; i++)
        cr_assert(((const uint8_t *)t->data)[i] <= 1);
    onnx2c_tensor_free(t);
}

Test(load, tensor_float_data) {
    Tensor *t = tu_load_tensor(BAD "typed_float.pb");
    expect_dims(t, DT_FLOAT, 2, (int64_t[]){2, 3});
    const float want[] = {1.5f, -2, 3, 4, 5, 6.25f};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(((const float *)t->data)[i], want[i]);
    onnx2c_tensor_free(t);
}

Test(load, tensor_int64_data) {
    Tensor *t = tu_load_tensor(BAD "typed_int64.pb");
    expect_dims(t, DT_INT64, 1, (int64_t[]){3});
    const int64_t *v = t->data;
    cr_assert(v[0] == -1 && v[1] == (int64_t)1 << 40 && v[2] == 7);
    onnx2c_tensor_free(t);
    t = tu_load_tensor(BAD "typed_scalar.pb"); /* rank 0: one element */
    expect_dims(t, DT_INT64, 0, NULL);
    cr_assert_eq(*(const int64_t *)t->data, 42);
    onnx2c_tensor_free(t);
}

Test(load, tensor_int32_data_narrow_types) {
    Tensor *t = tu_load_tensor(BAD "typed_int8.pb");
    expect_dims(t, DT_INT8, 1, (int64_t[]){4});
    const int8_t *i8 = t->data;
    cr_assert(i8[0] == -128 && i8[1] == -1 && i8[2] == 0 && i8[3] == 127);
    onnx2c_tensor_free(t);
    t = tu_load_tensor(BAD "typed_bool.pb");
    expect_dims(t, DT_BOOL, 1, (int64_t[]){3});
    const uint8_t *b = t->data;
    cr_assert(b[0] == 1 && b[1] == 0 && b[2] == 1);
    onnx2c_tensor_free(t);
    t = tu_load_tensor(BAD "typed_float16.pb"); /* bit patterns of 1.0 and -2.0 */
    expect_dims(t, DT_FLOAT16, 1, (int64_t[]){2});
    cr_assert(((const uint16_t *)t->data)[0] == 0x3c00 && ((const uint16_t *)t->data)[1] == 0xc000);
    onnx2c_tensor_free(t);
}

Test(load, tensor_double_and_uint64_data) {
    Tensor *t = tu_load_tensor(BAD "typed_double.pb");
    expect_dims(t, DT_DOUBLE, 1, (int64_t[]){2});
    cr_assert(((const double *)t->data)[0] == 0.25 && ((const double *)t->data)[1] == -1e300);
    onnx2c_tensor_free(t);
    t = tu_load_tensor(BAD "typed_uint32.pb");
    expect_dims(t, DT_UINT32, 1, (int64_t[]){2});
    cr_assert(((const uint32_t *)t->data)[0] == 1 && ((const uint32_t *)t->data)[1] == 4294967295u);
    onnx2c_tensor_free(t);
}

Test(load, tensor_external_data) {
    Tensor *t = tu_load_tensor(BAD "external_tensor.pb"); /* weights.bin, offset 8 */
    expect_dims(t, DT_FLOAT, 2, (int64_t[]){2, 3});
    for (int i = 0; i < 6; i++)
        cr_assert_eq(((const float *)t->data)[i], (float)(i + 1));
    onnx2c_tensor_free(t);
}

Test(load, tensor_errors) {
    Tensor *t = (Tensor *)1;
    char err[1024] = "";
    int st = onnx2c_load_tensor(BAD "bad_count.pb", &t, err, sizeof err);
    cr_assert_eq(st, O2C_EMODEL, "%s", err);
    cr_assert_null(t);
    cr_assert(strstr(err, "has 2 values in int64_data but its shape [4] needs 4"), "%s", err);
    st = onnx2c_load_tensor(BAD "no_such_tensor.pb", &t, err, sizeof err);
    cr_assert_eq(st, O2C_EIO, "%s", err);
    cr_assert(strstr(err, "cannot open"), "%s", err);
    onnx2c_tensor_free(NULL);
}

/* ------------------------------------------------------------------ models */

/* Writes n bytes to a fresh file in a temporary folder; *dir receives the folder. */
static void temp_file(char *dir, char *path, size_t cap, const void *data, size_t n) {
    strcpy(dir, "/tmp/onnx2c_load_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, cap, "%s/model.onnx", dir);
    tu_write_file(path, data, n);
}

static void temp_remove(const char *dir, const char *path) {
    unlink(path);
    rmdir(dir);
}

static void expect_bytes_error(const void *data, size_t n, int status, const char *fragment) {
    char dir[64], path[128];
    temp_file(dir, path, sizeof path, data, n);
    tu_expect_error(path, status, fragment);
    temp_remove(dir, path);
}

Test(load, missing_file) {
    tu_expect_error(BAD "no_such_model.onnx", O2C_EIO, "cannot open");
    tu_expect_error(BAD, O2C_EIO, "cannot open"); /* a directory */
}

Test(load, empty_file) { expect_bytes_error("", 0, O2C_EMODEL, "not a valid ONNX model: the file is empty"); }

Test(load, random_bytes) {
    unsigned char buf[4096];
    uint32_t x = 2463534242u; /* xorshift32: the same bytes every run */
    for (size_t i = 0; i < sizeof buf; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        buf[i] = (unsigned char)x;
    }
    expect_bytes_error(buf, sizeof buf, O2C_EMODEL, "not a valid ONNX model");
}

Test(load, truncated_model) {
    const char *src = TESTDATA "test_conv_with_strides_padding/model.onnx";
    FILE *f = fopen(src, "rb");
    cr_assert_not_null(f);
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert(n > 100 && n < sizeof buf);
    expect_bytes_error(buf, n / 2, O2C_EMODEL, "not a valid ONNX model");
}

/* Subgraphs nested 50000 deep (Graph.node -> Node.attribute -> Attribute.g -> ...): protobuf-c
 * itself recurses without limit and would overflow the stack. */
Test(load, nesting_too_deep) {
    enum { K = 150000 }; /* fields, outermost first: ModelProto.graph, then 1, 5, 6, 1, 5, 6... */
    static size_t size[K + 1]; /* encoded size of field i and everything inside it */
    size[K] = 0;
    for (int i = K - 1; i >= 0; i--) {
        size_t inner = size[i + 1], v = 1;
        while (inner >> (7 * v))
            v++;
        size[i] = 1 + v + inner;
    }
    size_t total = 2 + size[0];
    unsigned char *buf = malloc(total), *p = buf;
    *p++ = 0x08, *p++ = 8; /* ir_version = 8 */
    for (int i = 0; i < K; i++) {
        static const int cycle[3] = {1, 5, 6};
        *p++ = (unsigned char)(((i == 0 ? 7 : cycle[(i - 1) % 3]) << 3) | 2);
        for (size_t len = size[i + 1];; len >>= 7) {
            *p++ = (unsigned char)((len & 0x7f) | (len >> 7 ? 0x80 : 0));
            if (!(len >> 7))
                break;
        }
    }
    cr_assert_eq((size_t)(p - buf), total);
    expect_bytes_error(buf, total, O2C_EMODEL, "nested more than");
    free(buf);
}

/* Found by later stages (ir_toposort, infer, op rules). */
Test(load, cycle) { tu_expect_error(BAD "cycle.onnx", O2C_EMODEL, "cycle"); }
Test(load, dangling_input) {
    tu_expect_error(BAD "dangling.onnx", O2C_EMODEL, "input 'ghost' is not produced");
}
Test(load, unknown_op) {
    tu_expect_error(BAD "unknown_op.onnx", O2C_EMODEL, "operator 'FooBar' is not supported");
}
Test(load, op_before_since) {
    tu_expect_error(BAD "op_before_since.onnx", O2C_EMODEL,
                    "node 'round' (Round): operator 'Round' does not exist before opset 11; the "
                    "model imports opset 9");
}
Test(load, op_too_many_inputs) {
    tu_expect_error(BAD "op_too_many_inputs.onnx", O2C_EMODEL, "expects at most 1 inputs, got 2");
}
Test(load, unknown_domain) {
    tu_expect_error(BAD "unknown_domain.onnx", O2C_EMODEL, "domain 'com.example' is not supported");
}
Test(load, bad_attribute_value) {
    tu_expect_error(BAD "conv_bad_autopad.onnx", O2C_EMODEL, "BOGUS");
}
Test(load, conv_weight_rank) {
    tu_expect_error(BAD "conv_weight_rank.onnx", O2C_EMODEL,
                    "weight rank 3 does not match input rank 4");
}

/* Found by the loader. */
Test(load, message_names_file_and_node) {
    tu_expect_error(BAD "ref_attr.onnx", O2C_EMODEL,
                    "ref_attr.onnx: node 'leaky' (LeakyRelu): attribute 'alpha' refers to the "
                    "function attribute 'a'");
}
Test(load, string_input) {
    tu_expect_error(BAD "string_input.onnx", O2C_EMODEL, "input 'x' is a string tensor");
}
Test(load, sequence_input) {
    tu_expect_error(BAD "sequence_input.onnx", O2C_EMODEL, "input 'x' is a sequence");
}
Test(load, input_without_shape) {
    tu_expect_error(BAD "no_shape.onnx", O2C_EMODEL, "input 'x' has no shape");
}
Test(load, negative_dim) {
    tu_expect_error(BAD "negative_dim.onnx", O2C_EMODEL, "input 'x': dimension 1 is negative (-3)");
}
Test(load, no_default_opset) {
    tu_expect_error(BAD "no_default_opset.onnx", O2C_EMODEL,
                    "imports no opset for the default ONNX domain");
}
Test(load, initializer_element_count) {
    tu_expect_error(BAD "init_count.onnx", O2C_EMODEL,
                    "initializer 'b' has 5 values in float_data but its shape [2, 3] needs 6");
}
Test(load, string_initializer) {
    tu_expect_error(BAD "string_init.onnx", O2C_EMODEL, "string tensors are not supported");
}
Test(load, external_data_escape) {
    tu_expect_error(BAD "external_escape.onnx", O2C_EMODEL, "escapes the model's folder");
    tu_expect_error(BAD "external_absolute.onnx", O2C_EMODEL, "is an absolute path");
}
Test(load, external_data_missing_or_short) {
    tu_expect_error(BAD "external_missing.onnx", O2C_EIO, "cannot open external data file");
    tu_expect_error(BAD "external_short.onnx", O2C_EMODEL, "is too short");
}
/* Needs the whole pipeline (Add): y = x + b with b in weights.bin. */
Test(load, external_data_ok) {
    Output out;
    tu_compile_ok(BAD "external_ok.onnx", &out);
    onnx2c_output_free(&out);
}

/* ------------------------------------------------------------------ hostile files (#9) */

/* A fresh folder for a test's files; removed by rm_tree. */
static void make_dir(char *dir, size_t cap) {
    snprintf(dir, cap, "/tmp/onnx2c_load_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_tree(const char *dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        cr_log_warn("could not remove %s", dir);
}

/* Copies a file of tests/data/bad into dir under the name `as`. */
static void copy_bad(const char *name, const char *dir, const char *as) {
    char src[512], dst[512], buf[65536];
    snprintf(src, sizeof src, "%s%s", BAD, name);
    snprintf(dst, sizeof dst, "%s/%s", dir, as);
    FILE *f = fopen(src, "rb");
    cr_assert_not_null(f, "%s", src);
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    tu_write_file(dst, buf, n);
}

static void in_dir(char *path, size_t cap, const char *dir, const char *name) {
    snprintf(path, cap, "%s/%s", dir, name);
}

/* The model `fixture` names its external data `link` (weights.bin or sub/weights.bin); `link`
 * is made a symlink to a copy of weights.bin outside the model's folder (to that folder when
 * link_dir): refused, not embedded.  Then the same layout kept inside the folder compiles. */
static void expect_symlink_escape(const char *fixture, const char *link, bool link_dir) {
    char dir[64], outside[64], p[256], target[256];
    make_dir(dir, sizeof dir);
    make_dir(outside, sizeof outside);
    copy_bad(fixture, dir, "model.onnx");
    copy_bad("weights.bin", outside, "weights.bin");
    in_dir(target, sizeof target, outside, link_dir ? "" : "weights.bin");
    in_dir(p, sizeof p, dir, link_dir ? "sub" : link);
    cr_assert_eq(symlink(target, p), 0);
    char model[256];
    in_dir(model, sizeof model, dir, "model.onnx");
    tu_expect_error(model, O2C_EMODEL, "escapes the model's folder");
    unlink(p);
    if (link_dir) { /* a real sub-folder */
        cr_assert_eq(mkdir(p, 0755), 0);
        copy_bad("weights.bin", dir, link);
    } else { /* a link that stays inside */
        copy_bad("weights.bin", dir, "real.bin");
        cr_assert_eq(symlink("real.bin", p), 0);
    }
    Output out;
    tu_compile_ok(model, &out);
    onnx2c_output_free(&out);
    rm_tree(dir);
    rm_tree(outside);
}

/* w.bin -> a file outside the model's folder. */
Test(load, external_data_symlink_escape) {
    expect_symlink_escape("external_ok.onnx", "weights.bin", false);
}

/* "sub/w.bin" where sub -> a folder outside: the real path decides, not the spelling. */
Test(load, external_data_symlinked_subfolder) {
    expect_symlink_escape("external_sub.onnx", "sub/weights.bin", true);
}

/* A FIFO as external data or as the model: refused at once (opening one for reading would
 * wait for a writer forever). */
Test(load, fifo_refused, .timeout = 20) {
    char dir[64], p[256];
    make_dir(dir, sizeof dir);
    copy_bad("external_ok.onnx", dir, "model.onnx");
    in_dir(p, sizeof p, dir, "weights.bin");
    cr_assert_eq(mkfifo(p, 0600), 0);
    in_dir(p, sizeof p, dir, "model.onnx");
    tu_expect_error(p, O2C_EIO, "is a FIFO");
    in_dir(p, sizeof p, dir, "fifo.onnx");
    cr_assert_eq(mkfifo(p, 0600), 0);
    tu_expect_error(p, O2C_EIO, "is a FIFO");
    /* and the harness's tensor files */
    Tensor *t = NULL;
    char err[1024];
    cr_assert_eq(onnx2c_load_tensor(p, &t, err, sizeof err), O2C_EIO, "%s", err);
    cr_assert(strstr(err, "is a FIFO"), "%s", err);
    rm_tree(dir);
}

/* Names from the model stay inside one printable line of bounded length. */
Test(load, hostile_names_one_line) {
    char err[1024];
    Output out;
    cr_assert_eq(tu_compile(BAD "hostile_node_name.onnx", &out, err, sizeof err), O2C_EMODEL);
    for (const char *p = err; *p; p++)
        cr_assert((unsigned char)*p >= 0x20 && *p != 0x7f, "control byte 0x%02x in: %s", *p, err);
    cr_assert(strstr(err, "node 'evil\\x0aline two\\x1b[31m*/\\x0d\\x7f"), "%s", err);
    cr_assert(strstr(err, "\\xc2\\x85end' (FooBar)"), "a C1 control passed: %s", err);
    /* a 5000-byte node name is cut; the message still says what is wrong */
    cr_assert_eq(tu_compile(BAD "long_node_name.onnx", &out, err, sizeof err), O2C_EMODEL);
    cr_assert(strlen(err) < 600, "%zu bytes", strlen(err));
    cr_assert(strstr(err, "nnn...' (FooBar): operator 'FooBar' is not supported"), "%s", err);
}

Test(load, oneline_cuts_cleanly) {
    char out[16];
    onnx2c_oneline(out, sizeof out, "abc\ndef");
    cr_assert_str_eq(out, "abc\\x0adef");
    onnx2c_oneline(out, sizeof out, "0123456789abcdefghij");
    cr_assert_str_eq(out, "0123456789ab...");
    /* never inside an escape or a UTF-8 character */
    onnx2c_oneline(out, sizeof out, "0123456789\x01zzzzz");
    cr_assert_str_eq(out, "0123456789...");
    onnx2c_oneline(out, sizeof out, "0123456789a\xc3\xa9zzzzz");
    cr_assert_str_eq(out, "0123456789a...");
    onnx2c_oneline(out, sizeof out, "\xc3\xa9\xff");
    cr_assert_str_eq(out, "\xc3\xa9\\xff");
}

/* Opset newer than implemented: compiled, with a one-line warning the caller prints. */
Test(load, newer_opset_warns) {
    Output out;
    tu_compile_ok(BAD "opset19.onnx", &out);
    cr_assert_eq(out.nwarnings, 1);
    cr_assert(strstr(out.warnings[0], "opset19.onnx: opset 19 of domain 'ai.onnx' is newer than 17"),
              "%s", out.warnings[0]);
    cr_assert(!strchr(out.warnings[0], '\n'));
    onnx2c_output_free(&out);
    tu_compile_ok(TESTDATA "test_add/model.onnx", &out);
    cr_assert_eq(out.nwarnings, 0);
    cr_assert_null(out.warnings);
    onnx2c_output_free(&out);
}

/* ---- a model of N inputs, each with a dim of its own (modelgen.h) */

/* x_i [d_i] -> Relu -> y_i [d_i], for i < n; y_i are the outputs, value_info declares them. */
static void write_many_dims_model(const char *path, int n) {
    MgGraph *g = mg_new(13);
    char x[32], y[32], d[32];
    for (int i = 0; i < n; i++) {
        snprintf(x, sizeof x, "x%d", i);
        snprintf(y, sizeof y, "y%d", i);
        mg_node(g, "Relu", NULL, 1, (const char *[]){x}, 1, (const char *[]){y});
    }
    mg_graph_name(g, "many");
    for (int i = 0; i < n; i++) {
        snprintf(x, sizeof x, "x%d", i);
        snprintf(y, sizeof y, "y%d", i);
        snprintf(d, sizeof d, "d%d", i);
        MgDim dim = {d, 0};
        mg_input(g, x, MG_FLOAT, 1, &dim);
        mg_output(g, y, MG_FLOAT, 1, &dim);
        mg_value_info(g, y, MG_FLOAT, 1, &dim);
    }
    mg_write(g, path);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A Compiler as onnx2c_compile sets one up, to run single stages; the caller does setjmp.
 * Free with arena_free(c->arena) and free(c). */
static Compiler *bare_compiler(const char *path, const char *dir) {
    static const Options none;
    Compiler *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    c->arena = arena_new();
    c->sym = sym_ctx_new(c->arena);
    c->g = arena_alloc(c->arena, sizeof(Graph));
    c->path = path;
    c->model_dir = dir;
    c->opt = &none;
    return c;
}

/* 20,000 inputs with 20,000 dim_params: loading (dims found by name, declared shapes matched to
 * dims, inputs checked for repeats) is linear.  It took 9.9 GB when every dim copied the array. */
Test(load, many_dims_load_linear) {
    enum { N = 20000 };
    char dir[64], p[256];
    make_dir(dir, sizeof dir);
    in_dir(p, sizeof p, dir, "many.onnx");
    write_many_dims_model(p, N);
    Compiler *c = bare_compiler(p, dir);
    if (setjmp(c->jmp))
        cr_assert_fail("%s", c->err);
    double t0 = now_s();
    load_model(c, p);
    ir_toposort(c);
    double dt = now_s() - t0;
    Graph *g = c->g;
    cr_assert_eq(g->ndims, N);
    cr_assert_eq(g->ninputs, N);
    cr_assert_str_eq(g->dims[N - 1].name, "d19999");
    cr_assert_str_eq(g->dims[N - 1].cname, "d19999");
    cr_assert_eq(ir_find_dim(c, "d12345"), 12345);
    cr_assert_eq(ir_find_dim(c, "nope"), -1);
    Value *y = ir_find_value(c, "y777");
    cr_assert(y && y->has_decl && y->decl_shape[0] == sym_dim(c->sym, 777));
    cr_assert(g->inputs[777]->shape[0] == sym_dim(c->sym, 777));
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    cr_log_info("20000 dims: load + toposort %.2f s, peak RSS %ld MB", dt, ru.ru_maxrss / 1024);
    cr_assert(dt < 5, "load + toposort took %.1f s", dt);
    cr_assert(ru.ru_maxrss < 512 * 1024, "peak RSS %ld MB", ru.ru_maxrss / 1024);
    arena_free(c->arena);
    free(c);
    rm_tree(dir);
}

/* The same model compiled all the way (emit included): 20,000 dims stay linear too. */
Test(load, many_dims_compile_linear) {
    enum { N = 20000 };
    char dir[64], p[256];
    make_dir(dir, sizeof dir);
    in_dir(p, sizeof p, dir, "many.onnx");
    write_many_dims_model(p, N);
    Output o;
    char err[1024];
    double t0 = now_s();
    cr_assert_eq(tu_compile(p, &o, err, sizeof err), O2C_OK, "%s", err);
    double dt = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    cr_log_info("20000 dims: compile %.2f s, %zu bytes of C, peak RSS %ld MB", dt, strlen(o.c_src),
                ru.ru_maxrss / 1024);
    cr_assert(strstr(o.h_src, "MODEL_DIM_D19999 = 19999"));
#ifndef __SANITIZE_ADDRESS__
    cr_assert(dt < 20, "compile took %.1f s", dt);
    cr_assert(ru.ru_maxrss < 1024 * 1024, "peak RSS %ld MB", ru.ru_maxrss / 1024);
#endif
    onnx2c_output_free(&o);
    rm_tree(dir);
}

/* Dims that differ only in case get distinct C identifiers (enum names are upper-cased), also
 * when the suffix made for one is taken by another dim. */
Test(load, dim_names_case_distinct) {
    Compiler *c = bare_compiler("none.onnx", ".");
    if (setjmp(c->jmp))
        cr_assert_fail("%s", c->err);
    const char *names[] = {"n", "N", "N_2", "n_2", "batch"};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(ir_add_dim(c, names[i]), i);
    cr_assert_eq(ir_add_dim(c, "N"), 1);
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < i; k++)
            cr_assert(strcasecmp(c->g->dims[i].cname, c->g->dims[k].cname) != 0, "%s and %s",
                      c->g->dims[i].cname, c->g->dims[k].cname);
    /* --dynamic resets the list: the names are free again */
    c->g->ndims = 0;
    cr_assert_eq(ir_add_dim(c, "N"), 0);
    cr_assert_eq(ir_add_dim(c, "x"), 1);
    arena_free(c->arena);
    free(c);
}
