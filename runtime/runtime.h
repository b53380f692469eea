/* runtime.h — what runs generated code: the JIT (libtcc, or a system C compiler + dlopen) and
 * the output comparison of CONTRACT.md §3.  Used by the onnx2c-test harness and the tests. */
#ifndef ONNX2C_RUNTIME_H
#define ONNX2C_RUNTIME_H

#include "libonnx2c.h"

typedef struct Jit Jit;

/* Compiles generated C in memory.  cc == NULL: libtcc.  Otherwise a command such as "gcc -O2"
 * that is run as `CC -shared -fPIC -o LIB.so FILE.c -lm` and loaded with dlopen.  header_name
 * is the file name OUT.c includes.  Returns NULL and a one-line message in err on failure. */
Jit *jit_compile(const char *c_src, const char *header_name, const char *h_src, const char *cc,
                 char *err, size_t errlen);
void *jit_symbol(Jit *j, const char *name);
void jit_free(Jit *j);

/* Compares got with want under CONTRACT.md §3.  Returns true when it matches; writes a short
 * description of the largest error into msg otherwise. */
bool compare_tensor(const Tensor *want, const void *got, char *msg, size_t msglen);

#endif
