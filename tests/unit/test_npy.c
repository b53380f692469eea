/* test_npy.c — runtime/npy.c, the .npy files of onnx2c-run: NumPy's own files of every element
 * type read back (tests/data/run/dtypes, written by make_run.py), the files to refuse with a
 * one-line message, and what npy_write writes: read back, and byte for byte what NumPy wrote
 * for the same array. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DTYPES TU_DATA("run") "dtypes/"

static Tensor *read_ok(const char *path) {
    Tensor *t = NULL;
    char err[600] = "";
    int st = npy_read(path, &t, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %d: %s", path, st, err);
    return t;
}

/* The 2 x 3 array arange(6) - 2 of NumPy type `name` is read as `dtype`. */
static void expect_arange(const char *name, DType dtype) {
    char path[600];
    snprintf(path, sizeof path, DTYPES "%s.npy", name);
    Tensor *t = read_ok(path);
    cr_assert_eq(t->dtype, dtype, "%s: type %d", name, t->dtype);
    cr_assert_eq(t->rank, 2);
    cr_assert(t->dims[0] == 2 && t->dims[1] == 3 && t->nelem == 6, "%s: shape", name);
    for (int i = 0; i < 6; i++) {
        double want = i - 2;
        if (dtype == DT_UINT8 || dtype == DT_UINT16 || dtype == DT_UINT32) /* wrapped */
            want = i >= 2 ? i - 2 : (double)((1ull << (8 * onnx2c_dtype_size(dtype))) - 2 + (unsigned)i);
        if (dtype == DT_UINT64 && i < 2)
            continue; /* 2^64 - 2 and 2^64 - 1: beyond a double's integers */
        cr_assert_eq(tensor_value(dtype, t->data, i), want, "%s element %d: %g, want %g", name, i,
                     tensor_value(dtype, t->data, i), want);
    }
    onnx2c_tensor_free(t);
}

Test(npy, reads_every_type) {
    expect_arange("float32", DT_FLOAT);
    expect_arange("float64", DT_DOUBLE);
    expect_arange("float16", DT_FLOAT16);
    expect_arange("int8", DT_INT8);
    expect_arange("uint8", DT_UINT8);
    expect_arange("int16", DT_INT16);
    expect_arange("uint16", DT_UINT16);
    expect_arange("int32", DT_INT32);
    expect_arange("uint32", DT_UINT32);
    expect_arange("int64", DT_INT64);
    expect_arange("uint64", DT_UINT64);
    expect_arange("v2", DT_FLOAT); /* format version 2.0 */
    Tensor *t = read_ok(DTYPES "bool.npy");
    static const uint8_t want[6] = {1, 0, 1, 0, 0, 1};
    cr_assert_eq(t->dtype, DT_BOOL);
    cr_assert_arr_eq(t->data, want, 6);
    onnx2c_tensor_free(t);
}

Test(npy, scalar_vector_empty) {
    Tensor *t = read_ok(DTYPES "scalar.npy");
    cr_assert(t->rank == 0 && t->nelem == 1 && ((float *)t->data)[0] == 2.5f);
    onnx2c_tensor_free(t);
    t = read_ok(DTYPES "vector.npy");
    cr_assert(t->rank == 1 && t->dims[0] == 5 && ((int64_t *)t->data)[4] == 4);
    onnx2c_tensor_free(t);
    t = read_ok(DTYPES "empty.npy");
    cr_assert(t->rank == 2 && t->dims[0] == 0 && t->dims[1] == 4 && t->nelem == 0);
    onnx2c_tensor_free(t);
}

static void expect_refused(const char *file, int status, const char *fragment) {
    char path[600], err[600] = "";
    snprintf(path, sizeof path, DTYPES "%s", file);
    Tensor *t = (Tensor *)&t;
    int st = npy_read(path, &t, err, sizeof err);
    cr_assert_eq(st, status, "%s: %d: %s", file, st, err);
    cr_assert_null(t, "%s: a tensor on failure", file);
    cr_assert(strstr(err, fragment), "%s: message lacks '%s': %s", file, fragment, err);
    cr_assert(strstr(err, file) && !strchr(err, '\n'), "%s: %s", file, err);
}

Test(npy, refuses_what_it_cannot_read) {
    expect_refused("bad_bigendian.npy", O2C_EMODEL, "element type '>f4'");
    expect_refused("bad_fortran.npy", O2C_EMODEL, "Fortran order");
    expect_refused("bad_object.npy", O2C_EMODEL, "element type '|O'");
    expect_refused("bad_truncated.npy", O2C_EMODEL, "data size does not match");
    expect_refused("missing.npy", O2C_EIO, "cannot open");
    expect_refused("../make_run.py", O2C_EMODEL, "not a .npy file");
}

/* npy_write(t) is read back as t, and its bytes are NumPy's file of the same array. */
static void expect_written(const char *numpy_file) {
    char path[600];
    snprintf(path, sizeof path, DTYPES "%s", numpy_file);
    Tensor *t = read_ok(path);
    char out[] = "/tmp/onnx2c-npy-XXXXXX";
    int fd = mkstemp(out);
    cr_assert(fd >= 0);
    close(fd);
    char err[600] = "";
    cr_assert_eq(npy_write(out, t->dtype, t->rank, t->dims, t->data, err, sizeof err), O2C_OK, "%s",
                 err);
    Tensor *back = read_ok(out);
    cr_assert(back->dtype == t->dtype && back->rank == t->rank && back->nelem == t->nelem);
    cr_assert_arr_eq(back->dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
    cr_assert_arr_eq(back->data, t->data, (size_t)t->nelem * onnx2c_dtype_size(t->dtype));
    static char a[1 << 16], b[1 << 16];
    size_t na = tu_read_text(path, a, sizeof a), nb = tu_read_text(out, b, sizeof b);
    cr_assert(na == nb && !memcmp(a, b, na), "%s: npy_write's bytes differ from NumPy's",
              numpy_file);
    remove(out);
    onnx2c_tensor_free(back);
    onnx2c_tensor_free(t);
}

Test(npy, writes_what_numpy_writes) {
    expect_written("float32.npy");
    expect_written("int64.npy");
    expect_written("bool.npy");
    expect_written("uint8.npy");
    expect_written("scalar.npy");
    expect_written("vector.npy");
    expect_written("empty.npy");
}
