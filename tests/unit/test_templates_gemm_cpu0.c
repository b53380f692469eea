/* test_templates_gemm_cpu0.c — the GEMM engine of a build with GCC vectors on an x86 CPU without
 * AVX2 (O2C_X86_DISPATCH picks the plain C micro-kernels): the tests of test_templates_gemm.c
 * with the kernels capped at plain C (O2C_CPU_LEVEL 0). */
#define O2C_CPU_LEVEL 0
#define GEMM_SUITE gemm_cpu0
#include "test_templates_gemm.c"
