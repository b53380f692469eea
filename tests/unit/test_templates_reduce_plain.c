/* test_templates_reduce_plain.c — the row reductions' 8 scalar lanes (Cortex-M4, RV32F, tcc):
 * the tests of test_templates_reduce.c, built with O2C_NO_VECTOR. */
#define O2C_NO_VECTOR
#define REDUCE_SUITE reduce_plain
#include "test_templates_reduce.c"
