/* test_load.c — the loader: .pb tensors, and the error message of every kind of bad model.
 *
 * Tensors come from Debian's libonnx-testdata (raw_data) and from tests/data/bad (typed
 * fields, external data), which tests/data/bad/make_bad.py writes.  Models are compiled
 * through the library API, onnx2c_compile, and each error is checked for its exit status and
 * a fragment of its one-line message.  Some errors are raised by later stages (toposort,
 * infer, op rules): they are here because they are what a user feeding a broken file sees. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TESTDATA TU_NODE_DATA
#define BAD TU_DATA("bad")

/* ------------------------------------------------------------------ load_tensor_file */

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
    tensor_free(t);
}

Test(load, tensor_raw_int64) {
    Tensor *t =
        tu_load_tensor(TESTDATA "test_reshape_reordered_all_dims/test_data_set_0/input_1.pb");
    expect_dims(t, DT_INT64, 1, (int64_t[]){3});
    const int64_t *v = t->data;
    cr_assert(v[0] == 4 && v[1] == 2 && v[2] == 3);
    tensor_free(t);
}

Test(load, tensor_raw_float16_and_bool) {
    Tensor *t = tu_load_tensor(TESTDATA "test_cast_FLOAT_to_FLOAT16/test_data_set_0/output_0.pb");
    expect_dims(t, DT_FLOAT16, 2, (int64_t[]){3, 4});
    cr_assert_eq(((const uint16_t *)t->data)[0], 14436);
    cr_assert_eq(((const uint16_t *)t->data)[1], 14777);
    tensor_free(t);
    t = tu_load_tensor(TESTDATA "test_and2d/test_data_set_0/input_0.pb");
    expect_dims(t, DT_BOOL, 2, (int64_t[]){3, 4});
    for (int i = 0; i < 12; i++)
        cr_assert(((const uint8_t *)t->data)[i] <= 1);
    tensor_free(t);
}

Test(load, tensor_float_data) {
    Tensor *t = tu_load_tensor(BAD "typed_float.pb");
    expect_dims(t, DT_FLOAT, 2, (int64_t[]){2, 3});
    const float want[] = {1.5f, -2, 3, 4, 5, 6.25f};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(((const float *)t->data)[i], want[i]);
    tensor_free(t);
}

Test(load, tensor_int64_data) {
    Tensor *t = tu_load_tensor(BAD "typed_int64.pb");
    expect_dims(t, DT_INT64, 1, (int64_t[]){3});
    const int64_t *v = t->data;
    cr_assert(v[0] == -1 && v[1] == (int64_t)1 << 40 && v[2] == 7);
    tensor_free(t);
    t = tu_load_tensor(BAD "typed_scalar.pb"); /* rank 0: one element */
    expect_dims(t, DT_INT64, 0, NULL);
    cr_assert_eq(*(const int64_t *)t->data, 42);
    tensor_free(t);
}

Test(load, tensor_int32_data_narrow_types) {
    Tensor *t = tu_load_tensor(BAD "typed_int8.pb");
    expect_dims(t, DT_INT8, 1, (int64_t[]){4});
    const int8_t *i8 = t->data;
    cr_assert(i8[0] == -128 && i8[1] == -1 && i8[2] == 0 && i8[3] == 127);
    tensor_free(t);
    t = tu_load_tensor(BAD "typed_bool.pb");
    expect_dims(t, DT_BOOL, 1, (int64_t[]){3});
    const uint8_t *b = t->data;
    cr_assert(b[0] == 1 && b[1] == 0 && b[2] == 1);
    tensor_free(t);
    t = tu_load_tensor(BAD "typed_float16.pb"); /* bit patterns of 1.0 and -2.0 */
    expect_dims(t, DT_FLOAT16, 1, (int64_t[]){2});
    cr_assert(((const uint16_t *)t->data)[0] == 0x3c00 && ((const uint16_t *)t->data)[1] == 0xc000);
    tensor_free(t);
}

Test(load, tensor_double_and_uint64_data) {
    Tensor *t = tu_load_tensor(BAD "typed_double.pb");
    expect_dims(t, DT_DOUBLE, 1, (int64_t[]){2});
    cr_assert(((const double *)t->data)[0] == 0.25 && ((const double *)t->data)[1] == -1e300);
    tensor_free(t);
    t = tu_load_tensor(BAD "typed_uint32.pb");
    expect_dims(t, DT_UINT32, 1, (int64_t[]){2});
    cr_assert(((const uint32_t *)t->data)[0] == 1 && ((const uint32_t *)t->data)[1] == 4294967295u);
    tensor_free(t);
}

Test(load, tensor_external_data) {
    Tensor *t = tu_load_tensor(BAD "external_tensor.pb"); /* weights.bin, offset 8 */
    expect_dims(t, DT_FLOAT, 2, (int64_t[]){2, 3});
    for (int i = 0; i < 6; i++)
        cr_assert_eq(((const float *)t->data)[i], (float)(i + 1));
    tensor_free(t);
}

Test(load, tensor_errors) {
    Tensor *t = (Tensor *)1;
    char err[1024] = "";
    int st = load_tensor_file(BAD "bad_count.pb", &t, err, sizeof err);
    cr_assert_eq(st, O2C_EMODEL, "%s", err);
    cr_assert_null(t);
    cr_assert(strstr(err, "has 2 values in int64_data but its shape [4] needs 4"), "%s", err);
    st = load_tensor_file(BAD "no_such_tensor.pb", &t, err, sizeof err);
    cr_assert_eq(st, O2C_EIO, "%s", err);
    cr_assert(strstr(err, "cannot open"), "%s", err);
    tensor_free(NULL);
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
