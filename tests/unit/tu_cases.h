/* tu_cases.h — small models run on hostile data, shared by test_index_errors.c and
 * test_data_ub.c (issue 9).
 *
 * A case gives the dims, the input bytes, the code NAME_run must return and, for 0, the
 * expected output bytes.  tu_check_cases runs every case of one model twice over:
 *   - JIT-compiled by libtcc in this process, the outputs filled with a sentinel first (on a
 *     nonzero code they must still hold it: nothing written before the error);
 *   - as an executable (tests/data/index/san_main.c, reading the same cases from files) built
 *     from the generated C by gcc and by clang under the contract's strict C99 flags (-std=c99
 *     -Wall -Wextra -pedantic -Werror) plus AddressSanitizer and UndefinedBehaviorSanitizer with float-cast-overflow, every
 *     report fatal: any read or write outside a buffer, any signed overflow, any out-of-range
 *     conversion or shift fails the test with the sanitizer's message.  An ASan-instrumented
 *     shared object cannot be dlopen'ed into this uninstrumented process (the ASan runtime must
 *     come first), so this is not a jit_compile. */
#ifndef ONNX2C_TU_CASES_H
#define ONNX2C_TU_CASES_H

#include "testutil.h"

#include <stddef.h>
#include <stdint.h>

/* How an output is compared: its bytes, as float32 within 1e-5 + 1e-4 |want| (NaN matching
 * NaN), or not at all. */
enum { TU_EXACT, TU_FLOAT, TU_ANY };

typedef struct TuBytes {
    const void *p;
    size_t n;
} TuBytes;

#define TU_ARR(type, ...)                                                                          \
    ((TuBytes){(const type[]){__VA_ARGS__}, sizeof((const type[]){__VA_ARGS__})})
#define TU_EMPTY ((TuBytes){"", 0}) /* a tensor with no elements (a non-NULL pointer) */

#define TU_MAX_IN 8
#define TU_MAX_OUT 8

/* One run: dims (in the order of the model's dims), inputs, the expected code and, for 0, the
 * expected outputs (p NULL: not compared). */
typedef struct TuCase {
    const char *what;
    int64_t dims[4];
    TuBytes in[TU_MAX_IN];
    int rc;
    TuBytes want[TU_MAX_OUT];
} TuCase;

/* The model: a file in `dir`, its input and output counts, each output's element size and
 * comparison. */
typedef struct TuCaseModel {
    const char *file;
    int nin, nout;
    int esize[TU_MAX_OUT];
    int kind[TU_MAX_OUT];
} TuCaseModel;

/* Runs the n cases on dir/m->file (dir ends with '/'): libtcc, then the gcc and clang builds. */
void tu_check_cases(const char *dir, const TuCaseModel *m, const TuCase *cases, int n);

#endif
