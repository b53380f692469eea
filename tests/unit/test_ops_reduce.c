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
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define RED TU_DATA("reduce")

/* ---- output shapes: x[N, C, W] */

Test(reduce, keepdims_negative_axis) {
    /* ReduceMean axes=[-1], keepdims=1: [N, C, 1] */
    tu_expect_file_shape(RED "shape_keep_neg.onnx", (int64_t[]){2, 3, 5}, 3, (int64_t[]){2, 3, 1});
    tu_expect_file_shape(RED "shape_keep_neg.onnx", (int64_t[]){7, 1, 4}, 3, (int64_t[]){7, 1, 1});
}

Test(reduce, drop_two_axes) {
    /* ReduceMax axes=[0, -1], keepdims=0: [C] */
    tu_expect_file_shape(RED "shape_drop_two.onnx", (int64_t[]){2, 3, 5}, 1, (int64_t[]){3});
    tu_expect_file_shape(RED "shape_drop_two.onnx", (int64_t[]){4, 9, 1}, 1, (int64_t[]){9});
}

Test(reduce, default_axes) {
    /* no axes: every axis; keepdims=0 gives a scalar, keepdims=1 [1, 1, 1] */
    tu_expect_file_shape(RED "shape_all_drop.onnx", (int64_t[]){2, 3, 5}, 0, NULL);
    tu_expect_file_shape(RED "shape_all_keep.onnx", (int64_t[]){2, 3, 5}, 3, (int64_t[]){1, 1, 1});
}

Test(reduce, argmax_shape) {
    /* ArgMax axis=-2, keepdims=0: [N, W] */
    tu_expect_file_shape(RED "shape_argmax.onnx", (int64_t[]){2, 3, 5}, 2, (int64_t[]){2, 5});
    tu_expect_file_shape(RED "shape_argmax.onnx", (int64_t[]){6, 1, 1}, 2, (int64_t[]){6, 1});
}

/* ---- errors */

Test(reduce, axis_out_of_range) {
    tu_expect_error(RED "err_axis_range.onnx", O2C_EMODEL,
                    "(ReduceSumSquare): axis 3 is out of range for rank 3");
    tu_expect_error(RED "err_arg_axis.onnx", O2C_EMODEL,
                    "(ArgMin): axis -4 is out of range for rank 3");
}

Test(reduce, axis_twice) {
    tu_expect_error(RED "err_axis_twice.onnx", O2C_EMODEL,
                    "(ReduceMin): axis -2 appears more than once");
}

/* ReduceSum of x[N, C, W] over a runtime axis, keepdims, no declared shape: the output's dims
 * are data dims (each at most the input's), set by the run (CONTRACT §2b). */
typedef int (*data_run_fn)(int64_t *, const void *const *, void *const *, void *);

Test(reduce, axes_not_constant) {
    TuModel m;
    tu_open(&m, RED "axes_runtime_data.onnx", NULL);
    cr_assert_eq(m.o.ndims, 3);
    cr_assert_eq(m.o.ndata_dims, 3);
    int64_t dims[6] = {2, 3, 4, -1, -1, -1}, want_bound[3] = {2, 3, 4};
    tu_expect_shape(&m, dims, 0, 3, want_bound);
    float x[24], y[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i;
    const int64_t axes[1] = {-2};
    const void *ins[2] = {x, axes};
    void *outs[1] = {y};
    size_t wsz = m.wsize(dims);
    void *ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
    cr_assert_eq(((data_run_fn)(void *)m.run)(dims, ins, outs, ws), 0);
    free(ws);
    const int64_t want[3] = {2, 1, 4};
    tu_expect_shape(&m, dims, 0, 3, want);
    for (int n = 0; n < 2; n++)
        for (int w = 0; w < 4; w++) {
            float s = 0;
            for (int c = 0; c < 3; c++)
                s += x[(n * 3 + c) * 4 + w];
            cr_assert_eq(y[n * 4 + w], s, "y[%d, 0, %d] = %g, want %g", n, w, y[n * 4 + w], s);
        }
    tu_close(&m);
}

Test(reduce, axes_wrong_type) {
    tu_expect_error(RED "err_axes_float.onnx", O2C_EMODEL,
                    "(ReduceSum): axes 'axes' must be an integer tensor, got float");
}

Test(reduce, axes_attribute_in_opset18) {
    tu_expect_error(RED "err_opset18_attr.onnx", O2C_EMODEL,
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
    tu_run_cases(RED "cases", names, sizeof names / sizeof *names, "--strict");
}
