/* test_templates_conv_plain.c — the direct convolution's scalar register blocks (Cortex-M4,
 * RV32F, tcc): the tests of test_templates_conv.c, built with O2C_NO_VECTOR. */
#define O2C_NO_VECTOR
#define CONV_SUITE conv_direct_plain
#include "test_templates_conv.c"
