/* test_ops_training.c — the training family (compiler/ops/training.c): Adagrad, Adam and
 * Momentum of domain ai.onnx.preview.training.
 *
 * The cases of tests/data/training/cases (make_training.py, numpy references) run under
 * libtcc and under gcc's strict C99 flags, at every size of their symbolic dims from one C
 * file; ctest's op_cases_* run them too.  The bad_*.onnx models check the errors: one line,
 * naming the node and what is wrong. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <string.h>

#define TRAINING TU_DATA("training")

static void run_case(const char *name, int nsets, const char *cc) {
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%scases/%s", TRAINING, name);
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    TuModel m;
    tu_open(&m, path, cc);
    tu_run_data_sets(&m, dir, nsets);
    tu_close(&m);
}

Test(training, adagrad_double_symbolic) {
    run_case("adagrad_f64_sym", 2, NULL);
}

Test(training, adam_bias_correction_and_post_regularization) {
    run_case("adam_bias_post", 1, TU_STRICT_CC);
}

Test(training, adam_defaults_symbolic) {
    run_case("adam_t0_sym", 2, NULL);
}

Test(training, momentum_standard_and_nesterov) {
    run_case("momentum_std_t4", 1, NULL);
    run_case("nesterov_t1_f64", 1, TU_STRICT_CC);
}

/* Each step of NAME_run names its node; each tensor's loop says which tensor it updates. */
Test(training, generated_comments) {
    Output o;
    tu_compile_ok(TRAINING "cases/momentum_std_t4/model.onnx", &o);
    cr_assert_not_null(strstr(o.c_src, "/* momentum_std_t4: Momentum R[], T[], X1[4]"), "%s",
                       o.c_src);
    cr_assert_not_null(strstr(o.c_src, "/* tensor 2: X2 */"), "%s", o.c_src);
    onnx2c_output_free(&o);
}

Test(training, errors) {
    tu_expect_error(TRAINING "bad_count.onnx", O2C_EMODEL,
                    "node 'opt' (Adagrad): 6 inputs: expected R, T, then N tensors X");
    tu_expect_error(TRAINING "bad_outputs.onnx", O2C_EMODEL,
                    "node 'opt' (Adam): 2 outputs: expected 3 (for N = 1 tensor: N new X, N new V, "
                    "N new H)");
    tu_expect_error(TRAINING "bad_shape.onnx", O2C_EMODEL,
                    "node 'opt' (Momentum): input 3 dimension 0 must equal that of its tensor X");
    tu_expect_error(TRAINING "bad_type.onnx", O2C_EMODEL,
                    "input 2 has type int32: the optimized tensors are float or double");
    tu_expect_error(TRAINING "bad_mixed.onnx", O2C_EMODEL,
                    "input 4 has type double but input 2 has type float");
    tu_expect_error(TRAINING "bad_r_type.onnx", O2C_EMODEL,
                    "R (the learning rate) has type int64: expected float or double");
    tu_expect_error(TRAINING "bad_mode.onnx", O2C_EMODEL,
                    "mode 'heavy' is not supported (standard or nesterov)");
    tu_expect_error(TRAINING "bad_no_alpha.onnx", O2C_EMODEL, "attribute 'alpha' is required");
}
