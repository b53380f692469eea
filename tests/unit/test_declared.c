/* test_declared.c — declared shapes, checked at run time.
 *
 * A shape-deciding input that is runtime data (here Reshape's target) is accepted when the
 * model declares the output's shape: the generated code reads the data, checks it against the
 * declared shape and returns -4 (O2C_RUN_EDATA) without writing the output when they disagree.
 * Without a usable declaration the compile error is the one of before.  Models:
 * tests/data/declared/make_declared.py. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <string.h>

#define DECL TU_DATA("declared")

Test(declared, reshape_runtime_target_runs) {
    TuModel m;
    tu_open(&m, DECL "reshape_decl.onnx", NULL);
    const int64_t dims[1] = {2};
    const int64_t want[3] = {2, 2, 3};
    tu_expect_shape(&m, dims, 0, 3, want);
    float x[12], y[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i * 0.25f - 1.0f;
    /* 0 copies N, -1 is inferred: every spelling of [N, 2, 3] */
    static const int64_t targets[4][3] = {{2, 2, 3}, {0, 2, 3}, {-1, 2, 3}, {2, -1, 3}};
    for (int t = 0; t < 4; t++) {
        memset(y, 0, sizeof y);
        const void *ins[2] = {x, targets[t]};
        void *outs[1] = {y};
        cr_assert_eq(tu_run(&m, dims, ins, outs), 0, "target %d", t);
        for (int i = 0; i < 12; i++)
            cr_assert_eq(y[i], x[i], "target %d element %d", t, i);
    }
    tu_close(&m);
}

Test(declared, reshape_contradicting_data_writes_nothing) {
    TuModel m;
    tu_open(&m, DECL "reshape_decl.onnx", TU_STRICT_CC);
    const int64_t dims[1] = {2};
    float x[12], y[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    /* [N, 3, 2], [3, 2, 2] (N is 2), two -1, a 0 where the input dim differs */
    static const int64_t targets[4][3] = {{2, 3, 2}, {3, 2, 2}, {-1, -1, 3}, {2, 0, 3}};
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < 12; i++)
            y[i] = -7.0f;
        const void *ins[2] = {x, targets[t]};
        void *outs[1] = {y};
        int rc = tu_run(&m, dims, ins, outs);
        cr_assert_eq(rc, O2C_RUN_EDATA, "target %d: got %d", t, rc);
        for (int i = 0; i < 12; i++)
            cr_assert_eq(y[i], -7.0f, "target %d: output element %d was written", t, i);
    }
    tu_close(&m);
    /* the code has its message */
    Output o;
    tu_compile_ok(DECL "reshape_decl.onnx", &o);
    cr_assert_not_null(strstr(o.c_src, "case -4: return \"runtime data contradicts the declared "
                                       "output shape\""));
    onnx2c_output_free(&o);
}

Test(declared, no_usable_declaration_is_an_error) {
    static const char *const parts[] = {"node 'reshape' (Reshape)", "not known at compile time",
                                        "data-dependent", NULL};
    tu_expect_error_parts(DECL "reshape_nodecl.onnx", O2C_EMODEL, parts);
    /* a declared dim_param that names no dim of the inputs is unknown */
    tu_expect_error_parts(DECL "reshape_unknown_dim.onnx", O2C_EMODEL, parts);
}
