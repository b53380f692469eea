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

/* Checks output i of a run: got[0..nout) the outputs, want[i] its reference tensor (its shape
 * already compared; the other entries are not read), in[0..nin) the inputs.  First the element
 * type (o->checks[i]; a bfloat16 output may have a uint16 reference of the same bits),
 * then the values with compare_tensor or, for an output that depends on random draws, the
 * property its ops guarantee (libonnx2c.h, OutputCheck; runtime/draws.c), which may read the
 * inputs and the other outputs.  Returns true when it holds; else a short message in msg. */
bool check_output(const Output *o, int i, Tensor *const *in, int nin, Tensor *const *want,
                  void *const *got, int nout, char *msg, size_t msglen);

/* ---- model.c: a model compiled and loaded, run through its generated API (CONTRACT.md §2);
 * shared by onnx2c-test and onnx2c-run.  Messages are "stage: what" (compile, cc, api,
 * outputs, run, shape, compare), one line. */
enum { JM_MAX_RANK = 64, JM_MAX_IO = 64 };
typedef int (*JmCheckFn)(const int64_t *dims);
typedef size_t (*JmSizeFn)(const int64_t *dims);
typedef int (*JmShapeFn)(const int64_t *dims, int i, int64_t *shape);
/* The form of NAME_run with data dims (§2b); without, it takes const dims: the same call. */
typedef int (*JmRunFn)(int64_t *dims, const void *const *inputs, void *const *outputs, void *ws);
typedef const char *(*JmStrerrorFn)(int code);
/* --weights builds (Options.weights_blob): NAME_run_w and NAME_weights_check */
typedef int (*JmRunWFn)(int64_t *dims, const void *const *inputs, void *const *outputs, void *ws,
                        const void *weights);
typedef int (*JmWeightsCheckFn)(const void *weights, size_t size);

typedef struct JitModel {
    Output out; /* onnx2c_compile's result: dims, bindings, input and output types */
    Jit *jit;
    JmCheckFn check;
    JmSizeFn workspace_size;
    JmShapeFn input_shape, output_shape;
    JmRunFn run;
    JmStrerrorFn strerror;
    const char *const *dim_names; /* input dims, then data dims */
    const char *const *input_names;
    const char *const *output_names;
    /* Options.weights_blob: the blob (streamed by jm_compile to a temporary file, mapped by
     * jm_load: 64-byte aligned) and NAME_run_w, which jm_run calls in place of NAME_run */
    bool blob;
    const void *weights;
    size_t weights_size;
    FILE *weights_file;
    JmRunWFn run_w;
    JmWeightsCheckFn weights_check;
    /* jm_twin: the same model with inline weights, run by jm_run after the model, whose
     * outputs must be the same bytes */
    struct JitModel *twin;
} JitModel;

/* onnx2c_compile(path) with the prefix "model" (opt may be NULL); returns its status.  With
 * opt->weights_blob the blob goes to a temporary file (deleted when closed; its name in
 * FILE.S: "model.bin"), never all in memory, as with onnx2c --weights. */
int jm_compile(JitModel *m, const char *path, const Options *opt, char *msg, size_t msglen);
/* Compiles the generated C (cc as jit_compile's) and finds the API; a --weights build: maps
 * the blob and checks it with NAME_weights_check ("weights: ..."); 0 or -1. */
int jm_load(JitModel *m, const char *cc, char *msg, size_t msglen);
/* A --weights build's twin: path compiled again with inline weights (opt without
 * weights_blob) and loaded; from then on jm_run also runs it on the same inputs and requires
 * the same data dims and output bytes ("weights: ...").  0 or -1 ("inline weights: ..."). */
int jm_twin(JitModel *m, const char *path, const Options *opt, const char *cc, char *msg,
            size_t msglen);
void jm_close(JitModel *m);
/* A calloc'd dims array (free it): the input dims 0, the data dims -1. */
int64_t *jm_new_dims(const JitModel *m);
/* Sets the input dims that the tensors' shapes give (in[i] NULL: not given). */
void jm_bind_dims(const JitModel *m, Tensor *const *in, int nin, int64_t *dims);
/* "[2,3,4]" into buf ("[]" for rank 0) */
void jm_shape_text(char *buf, size_t cap, int rank, const int64_t *shape);
/* Output i's shape for dims is want's; else false and "shape: output i is [..], want [..]". */
bool jm_same_shape(int i, int rank, const int64_t *shape, const Tensor *want, char *msg,
                   size_t msglen);
/* Allocates output i at NAME_output_shape(dims) (a data dim at its bound), filled with
 * garbage; *bytes (may be NULL) its size.  Returns the rank or -1. */
int jm_alloc_output(const JitModel *m, const int64_t *dims, int i, void **buf, size_t *bytes,
                    char *msg, size_t msglen);
/* NAME_run (NAME_run_w with the blob) `repeat` times with one workspace of its size (the data
 * dims set to -1 before each), seconds[k] (seconds may be NULL) the time of run k; then every
 * data dim must be set, and with a twin (jm_twin) its outputs must be the same bytes.  0 or -1. */
int jm_run(const JitModel *m, int64_t *dims, const void *const *inputs, void *const *outputs,
           int repeat, double *seconds, char *msg, size_t msglen);
/* Output i (got[i]) after the run against want[i]: its shape, then check_output (its element
 * type, and its values or, for an output made of random draws, what its ops guarantee, which
 * may read the inputs in[0..nin) and the other outputs got[0..nout)).  want[k] for k != i is
 * not read (it may be NULL). */
bool jm_compare(const JitModel *m, const int64_t *dims, int i, Tensor *const *in, int nin,
                Tensor *const *want, void *const *got, int nout, char *msg, size_t msglen);
/* Reads DIR/PREFIX_0.pb, PREFIX_1.pb... up to the first missing one (at most JM_MAX_IO) into a
 * calloc'd array of JM_MAX_IO entries; returns the count, or -1 with the message in err. */
int jm_read_set(const char *dir, const char *prefix, Tensor ***out, char *err, size_t errlen);
void jm_free_set(Tensor **ts, int n);

/* ---- npy.c: NumPy .npy files (versions 1.0 to 3.0 read, 1.0 written; little-endian, C order;
 * the types of CONTRACT.md §2, bfloat16 as its bits '<u2'). */
/* Reads path into a malloc'd *out (onnx2c_tensor_free); O2C_OK, O2C_EIO or O2C_EMODEL with a
 * one-line message in err. */
int npy_read(const char *path, Tensor **out, char *err, size_t errlen);
/* Writes a dense tensor; O2C_OK, O2C_EIO, or O2C_EUSAGE for a type .npy lacks. */
int npy_write(const char *path, DType dtype, int rank, const int64_t *dims, const void *data,
              char *err, size_t errlen);

#endif
