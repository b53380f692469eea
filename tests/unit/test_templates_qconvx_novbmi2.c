/* test_templates_qconvx_novbmi2.c — test_templates_qconvx.c built without AVX-512 VBMI and VBMI2
 * (tests/CMakeLists.txt): the stores that squeeze out padding columns, and the channel lanes'
 * stores, one byte at a time. */
#define QX_SUITE qconvx_novbmi2
#include "test_templates_qconvx.c"
