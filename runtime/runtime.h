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
/* Element i of a dense buffer of type t as a double: any number type or bool (16-bit floats
 * decoded); NaN for other types. */
double tensor_value(DType t, const void *p, int64_t i);

/* Checks output i of a run: got[0..nout) the outputs, want[0..nout) the reference tensors (their
 * shapes already compared), in[0..nin) the inputs.  First the element type (o->checks[i]),
 * then the values with compare_tensor or, for an output that depends on random draws, the
 * property its ops guarantee (libonnx2c.h, OutputCheck; runtime/draws.c), which may read the
 * inputs and the other outputs.  Returns true when it holds; else a short message in msg. */
bool check_output(const Output *o, int i, Tensor *const *in, int nin, Tensor *const *want,
                  void *const *got, int nout, char *msg, size_t msglen);

#endif
