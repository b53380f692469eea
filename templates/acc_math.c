/* acc_math.c - libm on the accumulator O2C_ACC_T of element type T (templates/o2c_target.c) and
 * on T itself: the float functions (sqrtf, expf, powf...) where the type is float, the double
 * ones where it is double.  On a single-precision FPU (Cortex-M4F, RV32F) a double call, or a
 * conversion to double, is a library routine 50-100x slower than the float instruction.  The
 * sizeof tests fold at compile time: no double call or conversion remains for float.
 *   o2c_accfn_T(sqrt, v)    sqrt of v in the accumulator type
 *   o2c_accpow_T(a, b)      pow in the accumulator type
 * (libm on T itself: templates/math_t.c) */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif
#define o2c_accfn_T(fn, v)                                                                     \
    (sizeof(O2C_ACC_T) == sizeof(float) ? (O2C_ACC_T)fn##f((float)(v)) : (O2C_ACC_T)fn((double)(v)))
#define o2c_accpow_T(a, b)                                                                      \
    (sizeof(O2C_ACC_T) == sizeof(float) ? (O2C_ACC_T)powf((float)(a), (float)(b))              \
                                        : (O2C_ACC_T)pow((double)(a), (double)(b)))
