/* test_ops_quant.c — the quantization family (compiler/ops/quant.c, templates/quant_*.c).
 *
 * tests/data/quant/make_quant.py writes backend-style cases whose expected outputs numpy
 * computes by the ONNX definitions (int8, per-row / per-column / per-channel parameters,
 * batched zero points, groups, strides, dilations, auto_pad, bias, int32 inputs, opset 10), run
 * here through onnx2c-test under the strict C99 flags and with every input axis symbolic, and
 * the err_*.onnx models whose one-line errors name the node. */
#include "testutil.h"

#include <criterion/criterion.h>

#define QDATA TU_DATA("quant")

static const char *const cases[] = {
    "convinteger_1d_same_lower", "convinteger_3d_same_upper", "convinteger_group_stride",
    "dequantize_int32",          "dequantize_int8_axis0",     "matmulinteger_bcast",
    "matmulinteger_rows_cols",   "qlinearconv_bias_perchannel", "qlinearmatmul_rows_cols",
    "quantize_int32_axis",       "quantize_v10_nozp",
};

Test(quant, cases, .timeout = 600) {
    tu_run_cases(QDATA "cases", cases, sizeof cases / sizeof *cases, "--strict");
}

Test(quant, cases_dynamic, .timeout = 600) {
    tu_run_cases(QDATA "cases", cases, sizeof cases / sizeof *cases, "--dynamic");
}

Test(quant, axis_out_of_range) {
    tu_expect_error(QDATA "err_axis.onnx", O2C_EMODEL,
                    "(QuantizeLinear): axis 3 is out of range for input rank 3");
}

Test(quant, float_input_rejected) {
    tu_expect_error(QDATA "err_dtype.onnx", O2C_EMODEL,
                    "(MatMulInteger): inputs have types float and uint8; they must be uint8 or int8");
}

Test(quant, zero_point_length) {
    tu_expect_error(QDATA "err_zp_len.onnx", O2C_EMODEL,
                    "(ConvInteger): zero point of w has 3 elements; expected 1 or 2");
}

Test(quant, bias_type) {
    tu_expect_error(QDATA "err_bias_type.onnx", O2C_EMODEL,
                    "(QLinearConv): bias has type float; it must be int32");
}
