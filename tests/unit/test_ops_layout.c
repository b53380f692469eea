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
#include "modelgen.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LAY TU_DATA("layout")

/* ---- shapes */

/* x[N, W][1:INT64_MAX, -3:INT64_MAX] -> [max(0, N - min(N, 1)), W - max(0, W - 3)] */
Test(layout, slice_symbolic_dims) {
    tu_expect_file_shape(LAY "shape_slice_sym.onnx", (int64_t[]){5, 10}, 2, (int64_t[]){4, 3});
    tu_expect_file_shape(LAY "shape_slice_sym.onnx", (int64_t[]){1, 2}, 2, (int64_t[]){0, 2});
    tu_expect_file_shape(LAY "shape_slice_sym.onnx", (int64_t[]){0, 0}, 2, (int64_t[]){0, 0});
}

/* Concat(x[N, W], z[N, 2], axis=1) -> [N, W + 2] */
Test(layout, concat_symbolic_axis) {
    tu_expect_file_shape(LAY "shape_concat_sym.onnx", (int64_t[]){3, 4}, 2, (int64_t[]){3, 6});
    tu_expect_file_shape(LAY "shape_concat_sym.onnx", (int64_t[]){1, 0}, 2, (int64_t[]){1, 2});
}

/* ---- folding */

Test(layout, fold_shape_gather_concat) {
    const char *file = LAY "cases/fold_shape_concat/model.onnx";
    Output o;
    tu_compile_ok(file, &o);
    /* the driver comments every emitted node as "NAME: OP ..." */
    cr_assert_null(strstr(o.c_src, ": Gather "), "Gather was not folded:\n%s", o.c_src);
    cr_assert_null(strstr(o.c_src, ": Slice "), "Slice was not folded:\n%s", o.c_src);
    cr_assert_null(strstr(o.c_src, ": Concat "), "Concat was not folded:\n%s", o.c_src);
    cr_assert_not_null(strstr(o.c_src, ": Transpose "));
    onnx2c_output_free(&o);
    /* the Reshape target [N, 3, H, -1] is known, so y = Transpose(r) is [N, H, W, 3] */
    tu_expect_file_shape(file, (int64_t[]){2, 4, 5}, 4, (int64_t[]){2, 4, 5, 3});
}

Test(layout, fold_dense_constants) {
    Output o;
    tu_compile_ok(LAY "cases/fold_dense/model.onnx", &o);
    cr_assert_null(strstr(o.c_src, ": Transpose "), "Transpose of a weight was not folded");
    cr_assert_null(strstr(o.c_src, ": Concat "), "Concat of weights was not folded");
    onnx2c_output_free(&o);
}

/* ---- errors */

Test(layout, concat_dim_mismatch) {
    tu_expect_error(LAY "err_concat_dim.onnx", O2C_EMODEL,
                    "(Concat): input 1 has dimension 1 = 4 but input 0 has 3 (axis is 0)");
}

/* Slice of x[4] with runtime starts and ends and no declared shape: the output's dim is a
 * data dim (at most 4), set by the run (CONTRACT §2b). */
typedef int (*data_run_fn)(int64_t *, const void *const *, void *const *, void *);

Test(layout, slice_runtime_starts) {
    TuModel m;
    tu_open(&m, LAY "slice_runtime_data.onnx", NULL);
    cr_assert_eq(m.o.ndims, 0);
    cr_assert_eq(m.o.ndata_dims, 1);
    int64_t dims[1] = {-1}, want_bound[1] = {4};
    tu_expect_shape(&m, dims, 0, 1, want_bound);
    const float x[4] = {1, 2, 3, 4};
    const int64_t s[1] = {-3}, en[1] = {100};
    float y[4] = {0, 0, 0, -9};
    const void *ins[3] = {x, s, en};
    void *outs[1] = {y};
    cr_assert_eq(((data_run_fn)(void *)m.run)(dims, ins, outs, NULL), 0);
    const int64_t want[1] = {3};
    tu_expect_shape(&m, dims, 0, 1, want);
    cr_assert(y[0] == 2 && y[1] == 3 && y[2] == 4 && y[3] == -9, "y = %g %g %g %g", y[0], y[1],
              y[2], y[3]);
    tu_close(&m);
}

Test(layout, transpose_bad_perm) {
    tu_expect_error(LAY "err_transpose_perm.onnx", O2C_EMODEL,
                    "(Transpose): perm is not a permutation of 0..1");
}

Test(layout, split_sizes_sum) {
    tu_expect_error(LAY "err_split_sum.onnx", O2C_EMODEL,
                    "(Split): split sizes add up to 2 but dimension 0 is 3");
}

Test(layout, pad_reflect_too_wide) {
    tu_expect_error(LAY "err_pad_reflect.onnx", O2C_EMODEL,
                    "(Pad): reflect pad 3 is larger than dimension 0 - 1");
}

Test(layout, gather_index_out_of_range) {
    tu_expect_error(LAY "err_gather_range.onnx", O2C_EMODEL,
                    "(Gather): index 2 is out of range for dimension 0");
}

/* ---- values: the generated cases under the strict C99 flags */

Test(layout, cases, .timeout = 600) {
    const char *names[] = {
        "concat_const_sym", "depthtospace_crd_sym", "depthtospace_dcr_sym", "fold_dense",
        "fold_shape_concat", "gather_axis1_sym", "gather_elements_sym", "gather_scalar_i32",
        "pad_axes_op18", "pad_constant_sym", "pad_edge_sym", "pad_op2", "pad_reflect_sym", "pad_shape_pads",
        "slice_neg_steps_sym", "slice_op1", "slice_sym", "spacetodepth_sym", "split_equal_sym",
        "split_num_outputs_op18", "split_op11", "split_sizes_sym", "split_zero",
        "transpose_default_sym", "concat_inplace_fire_sym", "concat_inplace_mixed",
        "concat_inplace_nested_sym", "concat_inplace_strided_sym",
    };
    tu_run_cases(LAY "cases", names, sizeof names / sizeof *names, "--strict");
}

/* Concat of many inputs of symbolic sizes: the destination offset runs in the generated code
 * (n prefix sums as Syms would be quadratic); 12 inputs x_k[2, d_k] along axis 1. */
Test(layout, concat_many_symbolic) {
    enum { NIN = 12 };
    char path[] = "/tmp/onnx2c-concat-XXXXXX.onnx";
    int fd = mkstemps(path, 5);
    cr_assert(fd >= 0);
    close(fd);
    MgGraph *g = mg_new(13);
    char names[NIN][8], dn[NIN][8];
    const char *ins[NIN];
    for (int k = 0; k < NIN; k++) {
        snprintf(names[k], sizeof names[k], "x%d", k);
        snprintf(dn[k], sizeof dn[k], "d%d", k);
        MgDim d[2] = {{NULL, 2}, {dn[k], 0}};
        mg_input(g, names[k], MG_FLOAT, 2, d);
        ins[k] = names[k];
    }
    MgNode *cat = mg_node(g, "Concat", "cat", NIN, ins, 1, (const char *[]){"y"});
    mg_attr_int(cat, "axis", 1);
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_write(g, path);
    TuModel m;
    tu_open(&m, path, NULL);
    cr_assert(strstr(m.o.c_src, "off += "), "no running offset:\n%s", m.o.c_src);
    int64_t dims[NIN], total = 0;
    float x[NIN][2][8], y[2 * NIN * 8];
    const void *in[NIN];
    for (int k = 0; k < NIN; k++) {
        dims[k] = (k * 5) % 8; /* 0..7, zeros included */
        total += dims[k];
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < 8; j++)
                x[k][r][j] = (float)(100 * k + 10 * r + j);
    }
    float packed[NIN][16];
    for (int k = 0; k < NIN; k++) {
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < dims[k]; j++)
                packed[k][r * dims[k] + j] = x[k][r][j];
        in[k] = packed[k];
    }
    void *out[1] = {y};
    cr_assert_eq(tu_run(&m, dims, in, out), 0);
    for (int r = 0; r < 2; r++) {
        int64_t col = 0;
        for (int k = 0; k < NIN; k++)
            for (int j = 0; j < dims[k]; j++, col++)
                cr_assert_float_eq(y[r * total + col], x[k][r][j], 0, "y[%d][%lld]", r, (long long)col);
    }
    tu_close(&m);
    remove(path);
}
