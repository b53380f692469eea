/* math_t.c - libm for the element type T: the float function (sqrtf, expf, powf...) where T is
 * float, the double one where it is double.  The sizeof test folds at compile time, so a float
 * kernel calls no double function (a library routine 50-100x slower on a single-precision FPU,
 * Cortex-M4F or RV32F; tools/sp-check.sh checks the objects).  One spelling for the templates:
 *   o2c_fn_T(sqrt, v)        sqrt of v, in T
 *   o2c_fn2_T(pow, a, b)     pow of a and b, in T */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif
#define o2c_fn_T(fn, v)                                                                         \
    (sizeof(T) == sizeof(float) ? (T)fn##f((float)(v)) : (T)fn((double)(v)))
#define o2c_fn2_T(fn, a, b)                                                                     \
    (sizeof(T) == sizeof(float) ? (T)fn##f((float)(a), (float)(b))                             \
                                : (T)fn((double)(a), (double)(b)))
