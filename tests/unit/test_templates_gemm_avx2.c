/* test_templates_gemm_avx2.c — the GEMM engine's AVX2 + FMA micro-kernel, which a build without
 * AVX-512 flags runs on a CPU without AVX-512 (O2C_X86_DISPATCH): the tests of
 * test_templates_gemm.c with the kernels capped at AVX2 (O2C_CPU_LEVEL 1).  Elsewhere (other
 * CPUs, other targets) it checks whatever the engine picks. */
#define O2C_CPU_LEVEL 1
#define GEMM_SUITE gemm_avx2
#include "test_templates_gemm.c"
