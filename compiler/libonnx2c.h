/* libonnx2c.h — the public header of the onnx2c compiler library (libonnx2c_core.a): what a
 * program that compiles ONNX models in-process needs, and nothing of the compiler's insides.
 * Its users are the onnx2c command (compiler/main.c), runtime/ (the onnx2c-test harness, the
 * JIT, the output comparison), embedded/host.c, the fuzzer and the black-box unit tests.
 *
 * The name follows TinyCC, which runtime/ links: libtcc.h is tcc's library API, tcc.h the
 * compiler's own map.  Here compiler/onnx2c.h is the map (the IR, the stages, the op table, the
 * Compiler context); it includes this file.  Code that includes only libonnx2c.h cannot come
 * to depend on the IR (Lua's lua.h and lstate.h are split the same way).
 *
 * One spelling: functions are onnx2c_*, macros and constants O2C_*; types are CamelCase like
 * the compiler's (Options, Output, Tensor; DType's DT_* are ONNX's TensorProto numbers).
 * The API of the generated code (NAME_check, NAME_run... CONTRACT.md §2) is declared in each
 * generated OUT.h; only its return codes are here (O2C_RUN_*). */
#ifndef LIBONNX2C_H
#define LIBONNX2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define O2C_VERSION "0.1.0"

/* The status of onnx2c_compile and onnx2c_load_tensor, and the exit status of the onnx2c
 * command (CONTRACT.md §1). */
enum {
    O2C_OK = 0,
    O2C_EMODEL = 1, /* the model is invalid or unsupported */
    O2C_EUSAGE = 2, /* bad command line (or options) */
    O2C_EIO = 3,    /* a file could not be read or written */
};

/* What the generated NAME_check, NAME_output_shape and NAME_run return besides 0 (CONTRACT.md
 * §2); NAME_strerror says it in words.  A node returns O2C_RUN_EDATA or O2C_RUN_EINDEX before
 * it writes anything. */
#define O2C_RUN_EDIMS (-1)   /* a dim is negative or above its --max bound */
#define O2C_RUN_EARG (-2)    /* input or output index out of range */
#define O2C_RUN_ENULL (-3)   /* a required pointer argument is NULL */
#define O2C_RUN_EDATA (-4)   /* runtime data contradicts a declared output shape */
#define O2C_RUN_EBOUND (-5)  /* a data dim exceeds its bound (CONTRACT §2b; NAME_run only) */
#define O2C_RUN_ETOOBIG (-6) /* some size would not fit in size_t or int64 (NAME_check only) */
#define O2C_RUN_EINDEX (-7)  /* an index in the data is out of range where ONNX calls that an
                              * error (Gather, GatherElements, ScatterND...) */
#define O2C_RUN_EWEIGHTS (-8) /* --weights builds: the blob is not this model's (magic, version,
                               * size or checksum differ) or not aligned to 64 bytes */
/* NAME_check: constraint k of the model (the dims it implies) fails: O2C_RUN_ECONSTRAINT - k. */
#define O2C_RUN_ECONSTRAINT (-100)

/* ------------------------------------------------------------------ tensors
 * Element types: ONNX's TensorProto numbers. */
typedef enum {
    DT_UNDEFINED = 0,
    DT_FLOAT = 1,
    DT_UINT8 = 2,
    DT_INT8 = 3,
    DT_UINT16 = 4,
    DT_INT16 = 5,
    DT_INT32 = 6,
    DT_INT64 = 7,
    DT_STRING = 8,
    DT_BOOL = 9,
    DT_FLOAT16 = 10,
    DT_DOUBLE = 11,
    DT_UINT32 = 12,
    DT_UINT64 = 13,
    DT_COMPLEX64 = 14,
    DT_COMPLEX128 = 15,
    DT_BFLOAT16 = 16,
} DType;

/* A dense tensor (a .pb file; inside the compiler also an initializer or a Constant). */
typedef struct Tensor {
    const char *name;
    DType dtype;
    int rank;
    int64_t *dims;
    int64_t nelem;
    void *data; /* nelem * onnx2c_dtype_size bytes, row-major, little-endian */
} Tensor;

size_t onnx2c_dtype_size(DType t);       /* bytes per element; 0 for undefined/string/complex */
const char *onnx2c_dtype_name(DType t);  /* "float", "int64", "bool", ... as in ONNX */

/* Reads one serialized onnx.TensorProto (.pb) into a malloc'd *out (free it with
 * onnx2c_tensor_free).  Returns O2C_OK, or a status with a one-line message in err. */
int onnx2c_load_tensor(const char *path, Tensor **out, char *err, size_t errlen);
void onnx2c_tensor_free(Tensor *t); /* NULL is nothing */

/* ------------------------------------------------------------------ compiling */
typedef struct Compiler Compiler; /* one compile's context: complete in onnx2c.h */

/* --fix NAME=V, --max NAME=V */
typedef struct DimSetting {
    char name[128];
    int64_t value;
} DimSetting;

/* Parses "NAME=VALUE" (the last '='; VALUE a decimal >= 0) into out; false when malformed. */
bool onnx2c_parse_setting(const char *arg, DimSetting *out);

typedef struct Options {
    const char *name;  /* C prefix; NULL: derived from the output path or "model" */
    const char *out_path; /* OUT.c: names the header "OUT.h" that OUT.c includes (may be NULL) */
    int nfix, nmax;
    DimSetting *fix, *max;
    bool report;       /* onnx2c --report: print the plan to report_out */
    bool force_dynamic; /* every input axis becomes a dim of its own (testing symbolic paths) */
    bool drop_declared; /* forget the shapes declared for graph outputs and value_info (testing:
                         * what a dynamic export without them gives) */
    bool no_winograd;   /* 3x3 convolutions by unfold + GEMM only (onnx2c --no-winograd) */
    /* onnx2c --memory-first (microcontrollers): the smallest arena and flash rather than the
     * fastest code: kernel scratch bounded, direct kernels where an unfold or packing costs
     * memory, no Winograd, elementwise ops in place, weights at their size (issue 10) */
    bool memory_first;
    FILE *report_out;
    /* onnx2c --weights FILE: every weight goes into a separate blob (README "Big models: the
     * weights blob") and OUT.c reads it through a pointer: OUT.h declares NAME_run_w and
     * NAME_weights_check instead of NAME_run.  weights_name is the blob's file name as FILE.S
     * includes it (.incbin, its last path component; NULL: "weights.bin"). */
    bool weights_blob;
    const char *weights_name;
    /* Streaming (the onnx2c command): when set, OUT.c is written to c_file as it is made and
     * Output.c_src stays NULL; with weights_blob the blob is written to weights_file (which
     * must be seekable: its header is written last) and Output.weights stays NULL.  Neither
     * the C text of the weights nor all packed weights are then ever in memory at once. */
    FILE *c_file;
    FILE *weights_file;
    /* Tests: called with the compiled graph at the end of a successful onnx2c_compile (the
     * callback includes onnx2c.h to look inside). */
    void (*inspect)(Compiler *c, void *user);
    void *inspect_user;
    /* Progress of a long compile, or NULL.  Called from onnx2c_compile's thread as it goes:
     * stage "loading" (done/total: steps of reading and decoding the file), "inferring",
     * "lowering", "planning", "writing" (done/total: nodes); done == total ends a stage.  Often:
     * the callback throttles (the onnx2c command draws one line on a terminal, at most every
     * 100 ms, and only when stderr is one).  The library itself never prints. */
    void (*progress)(void *user, const char *stage, int64_t done, int64_t total);
    void *progress_user;
} Options;

/* An input axis whose size is exactly one dim: lets a caller derive dims from input shapes. */
typedef struct DimBinding {
    int input, axis, dim;
} DimBinding;

/* What a test driver can check of one graph output (Output.checks): its element type and, for
 * an output that depends on random draws, the property the ops guarantee in place of values.
 *
 * The random ops (RandomUniform, RandomNormal, their -Like forms, Bernoulli, Multinomial) and
 * Dropout in training mode draw from onnx2c's own generator (README "Op notes"), so their
 * values cannot match another implementation's.  onnx2c_compile walks back from each graph
 * output that depends on a draw, through the ops that keep the property element by element
 * (Identity, Reshape, Flatten, Squeeze, Unsqueeze; Cast where it keeps the values), to a
 * random op, or to a comparison (Less, Greater, LessOrEqual, GreaterOrEqual) of a uniform
 * draw with a tensor that depends on no draw (Bernoulli's expanded form).  Every other output,
 * deterministic or computed from draws in any other way, is O2C_DRAWS_NONE: its values are
 * compared with the reference (CONTRACT.md §3). */
typedef enum {
    O2C_DRAWS_NONE = 0, /* no draws: compare the values */
    O2C_DRAWS_BINARY,   /* each element 0 or 1; 0 where ref[i] zero_if zero_at, 1 where
                         * ref[i] one_if one_at (Bernoulli: p <= 0 gives 0, p >= 1 gives 1) */
    O2C_DRAWS_RANGE,    /* each element in [lo, hi) (RandomUniform) */
    O2C_DRAWS_FINITE,   /* each element finite (RandomNormal) */
    O2C_DRAWS_DROPOUT,  /* Dropout's output: each element 0 or ref[i] / (1 - ratio); ref
                         * itself when training is off or ratio is 0 (compare the values) */
    O2C_DRAWS_MASK,     /* Dropout's mask: each element 0 or 1, 1 exactly where the output
                         * (graph output `pair`) kept the element; the reference's when
                         * training is off or ratio is 0 */
    O2C_DRAWS_CLASS,    /* Multinomial: each element a class in [0, classes), never one whose
                         * log-probability in ref (row b of [batch, classes]) is -inf */
} DrawsKind;

/* A comparison of ref[i] with a constant, for O2C_DRAWS_BINARY (NONE: no rule). */
typedef enum { O2C_CMP_NONE, O2C_CMP_LT, O2C_CMP_LE, O2C_CMP_GT, O2C_CMP_GE } CmpKind;

typedef struct OutputCheck {
    DType dtype;     /* the output's element type */
    DrawsKind draws;
    char op[48];     /* the random op the output comes from ("" for NONE), for messages */
    int ref;         /* the runtime input the property reads (BINARY, DROPOUT: element i for
                      * output element i, of the same shape; CLASS: the log-probabilities), or
                      * -1: the property holds without it (BINARY: only 0 or 1) */
    CmpKind zero_if, one_if; /* BINARY */
    double zero_at, one_at;
    double lo, hi;           /* RANGE */
    /* DROPOUT, MASK: ratio and training_mode, each a runtime input (its index) or, when that
     * is -1, the constant beside it */
    int ratio_in, train_in;
    double ratio;
    bool train;
    int pair;        /* DROPOUT: the graph output of its mask; MASK: of its output; or -1 */
    int64_t classes; /* CLASS: the class count when constant, else -1 (ref's dims tell) */
} OutputCheck;

typedef struct Output {
    char *c_src; /* malloc'd */
    char *h_src; /* malloc'd */
    char *name;  /* the C prefix used, malloc'd */
    int ndims, nbind;
    int ndata_dims; /* data dims (CONTRACT §2b): dims[ndims..ndims + ndata_dims) */
    DimBinding *bind; /* malloc'd */
    int ninputs, noutputs;        /* runtime inputs and graph outputs, in graph order */
    DType *in_types, *out_types;  /* their element types, malloc'd */
    OutputCheck *checks;          /* one per graph output (what a driver checks), malloc'd */
    /* Warnings, one line each (no "onnx2c: warning: " prefix), in the errors' form: "FILE:
     * ..." or "FILE: node 'N' (Op): ..." (an opset newer than implemented, a node that takes
     * a slow path); malloc'd, as is each line; NULL when nwarnings is 0. */
    char **warnings;
    int nwarnings;
    /* Options.weights_blob: the blob (malloc'd, NULL when written to Options.weights_file),
     * its size in bytes, and FILE.S, which links it into a program as NAME_weights */
    unsigned char *weights;
    size_t weights_size;
    char *s_src;
} Output;

/* Compiles the model at path. Returns O2C_OK or an exit status; on error writes one line
 * (no trailing newline) into err. */
int onnx2c_compile(const char *path, const Options *opt, Output *out, char *err, size_t errlen);
void onnx2c_output_free(Output *out);

/* Calls f for every op the compiler supports: its domain ("" for ONNX's), op_type and family
 * (the file of compiler/ops/ that implements it). */
void onnx2c_each_op(void (*f)(const char *domain, const char *op_type, const char *family,
                              void *user),
                    void *user);

/* Copies src into dst (cap bytes) as one printable line: control bytes and bytes that are
 * not printable UTF-8 become \xNN; what does not fit is cut at a character and ends in "...".
 * For text from outside (paths, names) in a one-line message. */
void onnx2c_oneline(char *dst, size_t cap, const char *src);

#endif
