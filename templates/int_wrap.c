/* int_wrap.c - a + b (op '+') or a * b (op '*') for kernels generic over T, wrapping modulo
 * 2^n on integer types as every integer op of the generated code does (numpy's behaviour): a
 * signed overflow is undefined in C, so integers are added and multiplied in uint64_t (whose
 * low n bits are the two's complement result) and converted back (implementation-defined, a
 * wrap on every target).  Float types compute as written.  `(T)0.5 == (T)0` (an integer type)
 * and op are constants: each call keeps one branch. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static inline T o2c_wrap_T(int op, T a, T b) {
    if ((T)0.5 == (T)0)
        return (T)(op == '*' ? (uint64_t)a * (uint64_t)b : (uint64_t)a + (uint64_t)b);
    return (T)(op == '*' ? a * b : a + b);
}
