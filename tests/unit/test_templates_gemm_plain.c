/* test_templates_gemm_plain.c — the GEMM engine's plain C path (the one tcc and compilers
 * without GCC vector extensions get): the tests of test_templates_gemm.c, built with
 * O2C_NO_VECTOR. */
#define O2C_NO_VECTOR
#define GEMM_SUITE gemm_plain
#include "test_templates_gemm.c"
