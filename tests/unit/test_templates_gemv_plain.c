/* test_templates_gemv_plain.c — the fully connected kernel's scalar blocks (Cortex-M4, RV32F,
 * tcc): the tests of test_templates_gemv.c, built with O2C_NO_VECTOR. */
#define O2C_NO_VECTOR
#define GEMV_SUITE gemv_plain
#include "test_templates_gemv.c"
