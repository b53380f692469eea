/* test_ops_layout.c — the layout family (compiler/ops/layout.c).
 *
 * Shape rules: models with symbolic dims (tests/data/layout/make_layout.py) are compiled through
 * the library API and JIT-compiled with libtcc; the generated NAME_output_shape shows the rule
 * (Slice clamping on a symbolic dim, Concat's summed axis) for several sizes from one C file.
 * Folding: Shape -> Gather / Slice -> Unsqueeze -> Concat -> Reshape leaves no Gather, Slice or
 * Concat in the generated code, and constant Transpose/Concat of initializers become weights.
 * Errors: a Concat dim mismatch, runtime Slice starts, a bad perm, Split sizes that do not add
 * up, a reflect pad wider than the dim, a constant Gather index out of range; each message is
 * one line naming the node.
 * Values: the cases in tests/data/layout/cases run through onnx2c-test with --strict, which
 * compares against the numpy references the script wrote. */
#include "onnx2c.h"
#include "runtime.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAY ONNX2C_SOURCE_DIR "/tests/data/layout/"

typedef int (*shape_fn)(const int64_t *, int, int64_t *);

static void compile_ok(const char *file, Output *o) {
    char err[1024] = "";
    Options opt = {0};
    opt.name = "model";
    opt.out_path = "model.c";
    int st = onnx2c_compile(file, &opt, o, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", file, err);
}

/* Asserts output 0's shape of `file` for the given dims. */
static void expect_shape(const char *file, const int64_t *dims, int rank, const int64_t *want) {
    Output o = {0};
    char err[1024] = "";
    compile_ok(file, &o);
    Jit *j = jit_compile(o.c_src, "model.h", o.h_src, NULL, err, sizeof err);
    cr_assert_not_null(j, "%s: %s", file, err);
    shape_fn f = (shape_fn)jit_symbol(j, "model_output_shape");
    cr_assert_not_null(f);
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

/* ---- shapes */

/* x[N, W][1:INT64_MAX, -3:INT64_MAX] -> [max(0, N - min(N, 1)), W - max(0, W - 3)] */
Test(layout, slice_symbolic_dims) {
    expect_shape(LAY "shape_slice_sym.onnx", (int64_t[]){5, 10}, 2, (int64_t[]){4, 3});
    expect_shape(LAY "shape_slice_sym.onnx", (int64_t[]){1, 2}, 2, (int64_t[]){0, 2});
    expect_shape(LAY "shape_slice_sym.onnx", (int64_t[]){0, 0}, 2, (int64_t[]){0, 0});
}

/* Concat(x[N, W], z[N, 2], axis=1) -> [N, W + 2] */
Test(layout, concat_symbolic_axis) {
    expect_shape(LAY "shape_concat_sym.onnx", (int64_t[]){3, 4}, 2, (int64_t[]){3, 6});
    expect_shape(LAY "shape_concat_sym.onnx", (int64_t[]){1, 0}, 2, (int64_t[]){1, 2});
}

/* ---- folding */

Test(layout, fold_shape_gather_concat) {
    const char *file = LAY "cases/fold_shape_concat/model.onnx";
    Output o = {0};
    compile_ok(file, &o);
    /* the driver comments every emitted node as "NAME: OP ..." */
    cr_assert_null(strstr(o.c_src, ": Gather "), "Gather was not folded:\n%s", o.c_src);
    cr_assert_null(strstr(o.c_src, ": Slice "), "Slice was not folded:\n%s", o.c_src);
    cr_assert_null(strstr(o.c_src, ": Concat "), "Concat was not folded:\n%s", o.c_src);
    cr_assert_not_null(strstr(o.c_src, ": Transpose "));
    onnx2c_output_free(&o);
    /* the Reshape target [N, 3, H, -1] is known, so y = Transpose(r) is [N, H, W, 3] */
    expect_shape(file, (int64_t[]){2, 4, 5}, 4, (int64_t[]){2, 4, 5, 3});
}

Test(layout, fold_dense_constants) {
    Output o = {0};
    compile_ok(LAY "cases/fold_dense/model.onnx", &o);
    cr_assert_null(strstr(o.c_src, ": Transpose "), "Transpose of a weight was not folded");
    cr_assert_null(strstr(o.c_src, ": Concat "), "Concat of weights was not folded");
    onnx2c_output_free(&o);
}

/* ---- errors */

Test(layout, concat_dim_mismatch) {
    expect_error(LAY "err_concat_dim.onnx",
                 "(Concat): input 1 has dimension 1 = 4 but input 0 has 3 (axis is 0)");
}

Test(layout, slice_runtime_starts) {
    expect_error(LAY "err_slice_runtime.onnx", "(Slice): starts ('s') must be known at compile time");
}

Test(layout, transpose_bad_perm) {
    expect_error(LAY "err_transpose_perm.onnx", "(Transpose): perm is not a permutation of 0..1");
}

Test(layout, split_sizes_sum) {
    expect_error(LAY "err_split_sum.onnx", "(Split): split sizes add up to 2 but dimension 0 is 3");
}

Test(layout, pad_reflect_too_wide) {
    expect_error(LAY "err_pad_reflect.onnx", "(Pad): reflect pad 3 is larger than dimension 0 - 1");
}

Test(layout, gather_index_out_of_range) {
    expect_error(LAY "err_gather_range.onnx", "(Gather): index 2 is out of range for dimension 0");
}

/* ---- values: the generated cases under the strict C99 flags */

Test(layout, cases, .timeout = 600) {
    const char *names[] = {
        "concat_const_sym", "depthtospace_crd_sym", "depthtospace_dcr_sym", "fold_dense",
        "fold_shape_concat", "gather_axis1_sym", "gather_elements_sym", "gather_scalar_i32",
        "pad_axes_op18", "pad_constant_sym", "pad_edge_sym", "pad_op2", "pad_reflect_sym", "pad_shape_pads",
        "slice_neg_steps_sym", "slice_op1", "slice_sym", "spacetodepth_sym", "split_equal_sym",
        "split_num_outputs_op18", "split_op11", "split_sizes_sym", "split_zero",
        "transpose_default_sym",
    };
    Buf cmd;
    buf_init(&cmd);
    buf_printf(&cmd, "%s/onnx2c-test -q --strict --root %s/cases", ONNX2C_BINARY_DIR, LAY);
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
