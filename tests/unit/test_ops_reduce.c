/* test_ops_reduce.c — the reduce family (compiler/ops/reduce.c, templates/reduce_arg.c).
 *
 * Shape rules: models over x[N, C, W] (tests/data/reduce/make_reduce.py) are compiled through
 * the library API and JIT-compiled with libtcc; the generated NAME_output_shape shows the rule
 * (keepdims, negative axes, default axes, ArgMax) for several sizes from one C file.
 * Errors: out-of-range and repeated axes, axes that are not known at compile time, an axes
 * attribute where the opset wants an input; each message is one line naming the node.
 * Values: the cases in tests/data/reduce/cases (every reduction, integer and float types,
 * empty reductions, symbolic dims, folding ReduceProd(Shape(x))) run through onnx2c-test with
 * --strict, which compares against the numpy references the script wrote. */
#include "onnx2c.h"
#include "runtime.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RED ONNX2C_SOURCE_DIR "/tests/data/reduce/"

typedef int (*shape_fn)(const int64_t *, int, int64_t *);

/* Compiles and JITs a model; returns its NAME_output_shape. */
static shape_fn open_model(const char *file, Output *o, Jit **j) {
    char err[1024] = "";
    Options opt = {0};
    opt.name = "model";
    opt.out_path = "model.c";
    int st = onnx2c_compile(file, &opt, o, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", file, err);
    *j = jit_compile(o->c_src, "model.h", o->h_src, NULL, err, sizeof err);
    cr_assert_not_null(*j, "%s: %s", file, err);
    shape_fn f = (shape_fn)jit_symbol(*j, "model_output_shape");
    cr_assert_not_null(f);
    return f;
}

/* Asserts the output shape of `file` for dims {N, C, W}. */
static void expect_shape(const char *file, const int64_t *dims, int rank, const int64_t *want) {
    Output o = {0};
    Jit *j;
    shape_fn f = open_model(file, &o, &j);
    int64_t got[8];
    int r = f(dims, 0, got);
    cr_assert_eq(r, rank, "%s: rank %d, want %d", file, r, rank);
    for (int i = 0; i < rank; i++)
        cr_assert_eq(got[i], want[i], "%s axis %d: %lld, want %lld", file, i, (long long)got[i],
                     (long long)want[i]);
    jit_free(j);
    onnx2c_output_free(&o);
}

static void expect_error(const char *file, const char *fragment) {
    char err[1024] = "";
    Options opt = {0};
    Output o = {0};
    int st = onnx2c_compile(file, &opt, &o, err, sizeof err);
    if (st == O2C_OK)
        onnx2c_output_free(&o);
    cr_assert_eq(st, O2C_EMODEL, "%s: status %d, want %d: %s", file, st, O2C_EMODEL, err);
    cr_assert(strstr(err, fragment), "%s: message lacks \"%s\": %s", file, fragment, err);
    cr_assert(!strchr(err, '\n'), "message is not one line: %s", err);
}

/* ---- output shapes: x[N, C, W] */

Test(reduce, keepdims_negative_axis) {
    /* ReduceMean axes=[-1], keepdims=1: [N, C, 1] */
    expect_shape(RED "shape_keep_neg.onnx", (int64_t[]){2, 3, 5}, 3, (int64_t[]){2, 3, 1});
    expect_shape(RED "shape_keep_neg.onnx", (int64_t[]){7, 1, 4}, 3, (int64_t[]){7, 1, 1});
}

Test(reduce, drop_two_axes) {
    /* ReduceMax axes=[0, -1], keepdims=0: [C] */
    expect_shape(RED "shape_drop_two.onnx", (int64_t[]){2, 3, 5}, 1, (int64_t[]){3});
    expect_shape(RED "shape_drop_two.onnx", (int64_t[]){4, 9, 1}, 1, (int64_t[]){9});
}

Test(reduce, default_axes) {
    /* no axes: every axis; keepdims=0 gives a scalar, keepdims=1 [1, 1, 1] */
    expect_shape(RED "shape_all_drop.onnx", (int64_t[]){2, 3, 5}, 0, NULL);
    expect_shape(RED "shape_all_keep.onnx", (int64_t[]){2, 3, 5}, 3, (int64_t[]){1, 1, 1});
}

Test(reduce, argmax_shape) {
    /* ArgMax axis=-2, keepdims=0: [N, W] */
    expect_shape(RED "shape_argmax.onnx", (int64_t[]){2, 3, 5}, 2, (int64_t[]){2, 5});
    expect_shape(RED "shape_argmax.onnx", (int64_t[]){6, 1, 1}, 2, (int64_t[]){6, 1});
}

/* ---- errors */

Test(reduce, axis_out_of_range) {
    expect_error(RED "err_axis_range.onnx", "(ReduceSumSquare): axis 3 is out of range for rank 3");
    expect_error(RED "err_arg_axis.onnx", "(ArgMin): axis -4 is out of range for rank 3");
}

Test(reduce, axis_twice) {
    expect_error(RED "err_axis_twice.onnx", "(ReduceMin): axis -2 appears more than once");
}

Test(reduce, axes_not_constant) {
    expect_error(RED "err_axes_runtime.onnx",
                 "(ReduceSum): axes input 'axes' must be known at compile time");
}

Test(reduce, axes_wrong_type) {
    expect_error(RED "err_axes_float.onnx", "(ReduceSum): axes input 'axes' has type float");
}

Test(reduce, axes_attribute_in_opset18) {
    expect_error(RED "err_opset18_attr.onnx",
                 "(ReduceMax): opset 18 takes axes as an input, not an attribute");
}

/* ---- values: the generated cases under the strict C99 flags */

Test(reduce, cases, .timeout = 600) {
    const char *names[] = {
        "argmax_i32_last", "argmax_u8_first", "argmin_sym", "fold_prod_shape", "l1_i64",
        "l2_sym_mid", "logsum_empty", "logsum_sym", "lse_large", "max_empty_i32", "max_i8",
        "max_op18", "max_sym_all", "mean_i32", "mean_sym_neg", "min_empty", "min_u8", "noop_sym",
        "prod_empty", "prod_i64", "sum_empty", "sum_i32", "sum_sym_axes02", "sumsq_f64",
        "sumsq_u8",
    };
    Buf cmd;
    buf_init(&cmd);
    buf_printf(&cmd, "%s/onnx2c-test -q --strict --root %s/cases", ONNX2C_BINARY_DIR, RED);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        buf_printf(&cmd, " %s", names[i]);
    buf_puts(&cmd, " 2>&1");
    FILE *p = popen(cmd.data, "r");
    cr_assert_not_null(p);
    char line[4096], fails[8192] = "";
    while (fgets(line, sizeof line, p))
        if (!strncmp(line, "FAIL", 4) && strlen(fails) + strlen(line) < sizeof fails)
            strcat(fails, line);
    int st = pclose(p);
    buf_free(&cmd);
    cr_assert_eq(st, 0, "onnx2c-test failed:\n%s", fails);
}
