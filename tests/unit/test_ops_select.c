/* test_ops_select.c — the select family (compiler/ops/select.c, templates/select_nms.c) and
 * data dims (CONTRACT.md §2b): sizes decided by tensor data.
 *
 * nonzero_sym.onnx (tests/data/select/make_select.py) is NonZero of x [N]: y [1, K] with the
 * data dim K = nonzero_y_1 after N.  The tests read the generated API as a caller would: the
 * header's counts, the bound before the run, the value the run writes into dims, the actual
 * shape after it, -5 past a --max bound, and the errors.  The runnable cases of
 * tests/data/select/cases run through onnx2c-test (ctest's op_cases_* run them too). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <string.h>

#define SELECT TU_DATA("select")

typedef int (*run_data_fn)(int64_t *dims, const void *const *ins, void *const *outs, void *ws);

Test(select, header_counts_input_and_data_dims) {
    Output o;
    tu_compile_ok(SELECT "nonzero_sym.onnx", &o);
    cr_assert_eq(o.ndims, 1);
    cr_assert_eq(o.ndata_dims, 1);
    cr_assert(strstr(o.h_src, "#define MODEL_NUM_DIMS    1\n"), "%s", o.h_src);
    cr_assert(strstr(o.h_src, "#define MODEL_NUM_DATA_DIMS 1 "), "%s", o.h_src);
    cr_assert(strstr(o.h_src, "MODEL_DIM_N = 0, MODEL_DIM_NONZERO_Y_1 = 1 }"), "%s", o.h_src);
    cr_assert(strstr(o.h_src, "int model_run(int64_t *dims,"), "run takes writable dims: %s", o.h_src);
    cr_assert(strstr(o.c_src, "\"N\", \"nonzero_y_1\""), "dim_names lists the data dim");
    onnx2c_output_free(&o);
}

/* A model without data dims keeps the const dims of its run. */
Test(select, no_data_dims_no_change) {
    Output o;
    tu_compile_ok(TU_DATA("misc") "topk_sym.onnx", &o);
    cr_assert_eq(o.ndata_dims, 0);
    cr_assert(strstr(o.h_src, "#define MODEL_NUM_DATA_DIMS 0 "), "%s", o.h_src);
    cr_assert(strstr(o.h_src, "int model_run(const int64_t *dims,"), "%s", o.h_src);
    onnx2c_output_free(&o);
}

Test(select, bound_before_value_after) {
    TuModel m;
    tu_open(&m, SELECT "nonzero_sym.onnx", NULL);
    const float x[6] = {0, 1.5f, 0, -2, 0, 3};
    for (int64_t n = 6; n >= 1; n -= 5) { /* N = 6: 3 nonzero; N = 1: none */
        int64_t dims[2] = {n, -1}, want_bound[2] = {1, n};
        tu_expect_shape(&m, dims, 0, 2, want_bound);
        int64_t y[6] = {-9, -9, -9, -9, -9, -9};
        const void *ins[1] = {x};
        void *outs[1] = {y};
        cr_assert_eq(tu_run_data(&m, dims, ins, outs), 0);
        int64_t k = n == 6 ? 3 : 0;
        cr_assert_eq(dims[1], k, "the run writes the data dim: %lld", (long long)dims[1]);
        const int64_t want[2] = {1, k};
        tu_expect_shape(&m, dims, 0, 2, want);
        if (k) {
            cr_assert(y[0] == 1 && y[1] == 3 && y[2] == 5, "y = %lld %lld %lld", (long long)y[0],
                      (long long)y[1], (long long)y[2]);
            cr_assert_eq(y[3], -9, "nothing written past the actual size");
        }
    }
    tu_close(&m);
}

/* --max on the data dim's name bounds it: the output buffer is that small, and a run whose
 * data pass it returns -5 without writing past it. */
/* Options with one --max NAME=V (opt->max malloc'd). */
static void one_max(Options *opt, const char *name, int64_t v) {
    memset(opt, 0, sizeof *opt);
    opt->nmax = 1;
    opt->max = calloc(1, sizeof(DimSetting));
    snprintf(opt->max[0].name, sizeof opt->max[0].name, "%s", name);
    opt->max[0].value = v;
}

Test(select, max_bound_gives_minus_5) {
    Options opt;
    one_max(&opt, "nonzero_y_1", 2);
    TuModel m;
    tu_open_opts(&m, SELECT "nonzero_sym.onnx", &opt, NULL);
    int64_t dims[2] = {5, -1}, want_bound[2] = {1, 2};
    tu_expect_shape(&m, dims, 0, 2, want_bound);
    const float two[5] = {0, 1, 0, 1, 0}, three[5] = {1, 1, 0, 1, 0};
    int64_t y[3] = {-9, -9, -9};
    const void *ins[1] = {two};
    void *outs[1] = {y};
    cr_assert_eq(tu_run_data(&m, dims, ins, outs), 0);
    cr_assert_eq(dims[1], 2);
    dims[1] = -1;
    ins[0] = three;
    y[2] = -9;
    cr_assert_eq(tu_run_data(&m, dims, ins, outs), -5);
    cr_assert_eq(y[2], -9, "nothing written past the bound");
    typedef const char *(*strerror_fn)(int);
    strerror_fn se = (strerror_fn)jit_symbol(m.j, "model_strerror");
    cr_assert(se && strstr(se(-5), "exceeds its bound"), "strerror(-5): %s", se ? se(-5) : "none");
    tu_close(&m);
    free(opt.max);
}

Test(select, max_on_unknown_name_is_an_error) {
    Options opt;
    one_max(&opt, "nonzero_q_1", 2);
    Output o;
    char err[600];
    int st = onnx2c_compile(SELECT "nonzero_sym.onnx", &opt, &o, err, sizeof err);
    cr_assert_eq(st, O2C_EUSAGE, "status %d: %s", st, err);
    cr_assert(strstr(err, "--max nonzero_q_1: the model has no dim named 'nonzero_q_1'"), "%s", err);
    free(opt.max);
}

Test(select, cases_tcc_and_strict_gcc) {
    static const char *const names[] = {"compress_axis1_sym", "compress_flat_sym", "masked_select_sym",
                                        "nms_detector_sym", "nonzero_3d_sym", "unique_rows_unsorted_sym",
                                        "unique_sorted_sym"};
    size_t n = sizeof names / sizeof names[0];
    tu_run_cases(SELECT "cases", names, n, NULL);
    tu_run_cases(SELECT "cases", names, n, "--dynamic --strict");
}

/* No input dims but a data dim: NAME_run writes dims, so NULL is refused (-3) everywhere. */
Test(select, data_dims_need_dims_array) {
    TuModel m;
    tu_open(&m, SELECT "nonzero_static.onnx", NULL);
    cr_assert_eq(m.o.ndims, 0);
    cr_assert_eq(m.o.ndata_dims, 1);
    cr_assert_eq(m.check(NULL), -3);
    int64_t shape[2];
    cr_assert_eq(m.oshape(NULL, 0, shape), -3);
    const float x[4] = {0, 2, 0, 3};
    int64_t y[8], dims[1] = {-1};
    const void *ins[1] = {x};
    void *outs[1] = {y};
    cr_assert_eq(((run_data_fn)(void *)m.run)(NULL, ins, outs, NULL), -3);
    cr_assert_eq(tu_run_data(&m, dims, ins, outs), 0);
    cr_assert_eq(dims[0], 2);
    cr_assert(y[0] == 1 && y[1] == 3, "y = %lld %lld", (long long)y[0], (long long)y[1]);
    tu_close(&m);
}
