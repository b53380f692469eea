/* testutil.h — helpers shared by the unit tests (every tests/unit/ file, one unit_tests binary).
 *
 * Every helper asserts with Criterion (cr_assert*), so it may only be called from inside a
 * Test(); a failed check ends the test with a message naming the file.  Nothing here keeps
 * state between calls.
 *
 *   compiling      tu_compile, tu_compile_ok          onnx2c_compile with the prefix "model"
 *   errors         tu_expect_error(_parts)            status + fragment(s) + one line
 *   JIT            tu_open / tu_close (TuModel)       compile + libtcc or CC + the 4 symbols
 *   running        tu_run(_data), tu_expect_shape     workspace allocation, NAME_output_shape
 *   data           tu_load_tensor, tu_load_set        .pb files, test_data_set_K/PREFIX_I.pb
 *                  tu_run_data_sets                   every data set of a case folder
 *                  tu_random_floats, tu_expect_close
 *   harness        tu_run_cases, tu_expect_case_fails onnx2c-test on case folders
 *   files          tu_write_file, tu_read_text */
#ifndef ONNX2C_TESTUTIL_H
#define ONNX2C_TESTUTIL_H

#include "libonnx2c.h"
#include "runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Folders of test inputs: TU_DATA("pool") is ".../tests/data/pool/" in the source tree. */
#define TU_DATA(family) ONNX2C_SOURCE_DIR "/tests/data/" family "/"
/* Debian's libonnx-testdata backend node cases. */
#define TU_NODE_DATA "/usr/share/libonnx-testdata/data/node/"
/* gcc under the contract's strict C99 flags, for tu_open's cc. */
#define TU_STRICT_CC "gcc -std=c99 -Wall -Wextra -pedantic -Werror -O0"

/* ---- compiling */

/* onnx2c_compile(path) with the C prefix "model" (out_path "model.c"); *out and err are
 * cleared first.  Returns the status; err holds the one-line message on failure. */
int tu_compile(const char *path, Output *out, char *err, size_t errlen);
/* tu_compile, asserting O2C_OK.  Free *out with onnx2c_output_free. */
void tu_compile_ok(const char *path, Output *out);

/* Compiling path fails with `status`, a one-line message that contains `fragment`. */
void tu_expect_error(const char *path, int status, const char *fragment);
/* The same with every string of the NULL-terminated `parts` in the message. */
void tu_expect_error_parts(const char *path, int status, const char *const *parts);

/* ---- JIT-compiled models */

typedef int (*tu_check_fn)(const int64_t *dims);
typedef size_t (*tu_wsize_fn)(const int64_t *dims);
typedef int (*tu_shape_fn)(const int64_t *dims, int out, int64_t *shape);
typedef int (*tu_run_fn)(const int64_t *dims, const void *const *ins, void *const *outs, void *ws);

typedef struct TuModel {
    const char *path; /* for messages */
    Output o;
    Jit *j;
    tu_check_fn check;  /* model_check */
    tu_wsize_fn wsize;  /* model_workspace_size */
    tu_shape_fn oshape; /* model_output_shape */
    tu_run_fn run;      /* model_run */
} TuModel;

/* Compiles path (tu_compile_ok) and its C (cc NULL: libtcc, else e.g. TU_STRICT_CC); asserts
 * the four functions are there. */
void tu_open(TuModel *m, const char *path, const char *cc);
/* The same with options (--memory-first, inspect, report...); the prefix is "model". */
void tu_open_opts(TuModel *m, const char *path, const Options *opt, const char *cc);
void tu_close(TuModel *m);

/* model_run with a 64-byte aligned workspace of model_workspace_size(dims) bytes (NULL when 0);
 * returns model_run's result. */
int tu_run(TuModel *m, const int64_t *dims, const void *const *ins, void *const *outs);

/* tu_run for a model with data dims (CONTRACT.md §2b): model_run takes writable dims and, on
 * success, writes the data dims' entries. */
int tu_run_data(TuModel *m, int64_t *dims, const void *const *ins, void *const *outs);

/* model_output_shape(dims, out) is `rank` (0: a scalar, want may be NULL) and `want`. */
void tu_expect_shape(TuModel *m, const int64_t *dims, int out, int rank, const int64_t *want);
/* The same for output 0 of a model compiled and JIT-compiled (libtcc) just for this. */
void tu_expect_file_shape(const char *path, const int64_t *dims, int rank, const int64_t *want);

/* ---- data */

/* onnx2c_load_tensor, asserting success. */
Tensor *tu_load_tensor(const char *path);
/* Loads DIR/test_data_set_K/PREFIX_I.pb for I = 0.. until absent or max; returns the count. */
int tu_load_set(const char *dir, int k, const char *prefix, Tensor **t, int max);
/* Runs m on data sets 0..nsets-1 of the case folder dir: the dims bound from the input shapes
 * (Output.bind, every dim must be bound), model_check passes, each output's shape from
 * model_output_shape and its type and values match output_I.pb (check_output: CONTRACT.md §3,
 * or what random ops guarantee). */
void tu_run_data_sets(TuModel *m, const char *dir, int nsets);

/* n floats in [-10, 10] in steps of 0.01, from srand(seed); malloc'd (at least one). */
float *tu_random_floats(int64_t n, unsigned seed);
/* |got - want| <= 1e-4 + 1e-4 |want| for each of the n elements. */
void tu_expect_close(const float *got, const float *want, int64_t n);

/* ---- the onnx2c-test harness */

/* Runs ONNX2C_BINARY_DIR/onnx2c-test -q FLAGS --root ROOT NAMES... (flags may be NULL or "")
 * and asserts it exits 0; the message lists the FAIL lines. */
void tu_run_cases(const char *root, const char *const *names, size_t n, const char *flags);

/* Runs ONNX2C_BINARY_DIR/onnx2c-test -q DIR and asserts the case fails, its FAIL line
 * containing `fragment`. */
void tu_expect_case_fails(const char *dir, const char *fragment);

/* ---- files */

/* Writes n bytes to path, asserting every byte was written. */
void tu_write_file(const char *path, const void *data, size_t n);
/* Reads at most cap - 1 bytes of a text file into buf (NUL-terminated), asserting it opens;
 * returns the length. */
size_t tu_read_text(const char *path, char *buf, size_t cap);

#endif
