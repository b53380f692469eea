/* test_ops_quant_ms.c — the com.microsoft QOperator ops (compiler/ops/quant_ms.c,
 * templates/qms_*.c).
 *
 * tests/data/quant_ms/make_quant_ms.py writes backend-style cases (models importing the opset
 * domain com.microsoft version 1) whose expected outputs numpy computes with the float32
 * formulas quant_ms.c documents (int8 and uint8, broadcasting, omitted and 1-element 1-D
 * parameters, symbolic batch sizes, pads, ceil_mode, count_include_pad), run here through
 * onnx2c-test under tcc, under the strict C99 flags and with --memory-first; and the err_*.onnx
 * models whose one-line errors name the node. */
#include "testutil.h"

#include <criterion/criterion.h>

#define QMS TU_DATA("quant_ms")

static const char *const cases[] = {
    "qlinearadd_int8_bcast",        "qlinearadd_uint8_1d_params",  "qlinearavgpool_int8_pad",
    "qlinearavgpool_uint8_ceil_cip", "qlinearconcat_int8_axis1",   "qlinearconcat_uint8_axis_last",
    "qlinearglobalavgpool_int8",    "qlinearglobalavgpool_uint8",  "qlinearleakyrelu_int8",
    "qlinearleakyrelu_uint8",       "qlinearmul_int8_nozp",        "qlinearmul_uint8_bcast",
    "qlinearsigmoid_int8",          "qlinearsigmoid_uint8",
};

Test(quant_ms, cases_tcc, .timeout = 600) {
    tu_run_cases(QMS "cases", cases, sizeof cases / sizeof *cases, "");
}

Test(quant_ms, cases_strict, .timeout = 600) {
    tu_run_cases(QMS "cases", cases, sizeof cases / sizeof *cases, "--strict");
}

Test(quant_ms, cases_memory_first, .timeout = 600) {
    tu_run_cases(QMS "cases", cases, sizeof cases / sizeof *cases, "--memory-first");
}

Test(quant_ms, channels_last_refused) {
    tu_expect_error(QMS "err_channels_last.onnx", O2C_EMODEL,
                    "(QLinearGlobalAveragePool): channels_last = 1 (NHWC) is not supported");
}

Test(quant_ms, per_axis_scale_refused) {
    tu_expect_error(QMS "err_per_axis_scale.onnx", O2C_EMODEL,
                    "(QLinearAdd): A_scale must be a scalar");
}
