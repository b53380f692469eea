/* onnx2c.h — the internal header of the compiler: its map.  The library API (Options, Output,
 * onnx2c_compile, Tensor, the status codes) is compiler/libonnx2c.h, which this file includes;
 * the command line, runtime/ and the black-box tests include only that one.
 *
 * One section per file, in pipeline order (chibicc style):
 *   arena.c  hashmap.c  error.c  sym.c  ir.c  onnx_load.c  infer.c  fold (inside infer)
 *   lower.c  plan.c  emit.c
 *   ops/<family>.c  driver.c
 * Name tiers: `onnx2c_` (functions) and `O2C_` (macros) are the library API, libonnx2c.h;
 * each module has its own short prefix (arena_, sym_, ir_, load_, plan_, emit_); static helpers
 * have none.  IR types are CamelCase typedefs.
 */
#ifndef ONNX2C_H
#define ONNX2C_H

#include "libonnx2c.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct Graph Graph;
typedef struct Node Node;
typedef struct Value Value;
typedef struct Attr Attr;
typedef struct Sym Sym;
typedef struct SymCtx SymCtx;
typedef struct Emit Emit;
typedef struct OpDef OpDef;
typedef struct Plan Plan;

/* How emit.c makes a constant that is computed only when it is written out (Value.fill): its
 * elements come in nparts consecutive parts of at most max elements; part(arg, k, dst) writes
 * part k into dst (zeroed) and returns its element count.  One part is in memory at a time. */
typedef struct ValueFill {
    int64_t (*part)(const void *arg, int64_t k, void *dst);
    const void *arg;
    int64_t nparts, max;
} ValueFill;

/* ------------------------------------------------------------------ arena.c
 * One arena owns the IR.  Allocation is zeroed, 16-byte aligned and never returns NULL: out of
 * memory (arena or Buf) calls the handler onnx2c_compile installs for its thread, which unwinds
 * like any error ("FILE: out of memory", status 1); without one the process aborts with a
 * message.  Everything is freed at once by arena_free. */
typedef struct OomHandler {
    void (*fn)(void *user); /* must not return (it longjmps); NULL: abort */
    void *user;
} OomHandler;
/* Installs h for this thread and returns the previous handler (to restore it). */
OomHandler arena_on_oom(OomHandler h);
/* Out of memory: calls the thread's handler, else prints the message and aborts.  Any
 * allocation made during a compile (malloc in sym.c too) should fail through it. */
_Noreturn void arena_oom(void);
typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);
void *arena_dup(Arena *a, const void *p, size_t n);
/* A big block the arena owns that may be resized or freed before the compile ends (the one
 * exception to "freed at once", for memory that would otherwise stay: the model file's bytes,
 * a weight materialized while it is written out).  arena_block(a, NULL, n) makes one of n
 * bytes, not zeroed, 16-byte aligned; arena_block(a, p, n) resizes p (contents kept, p may
 * move); arena_block_free(a, p) frees it (NULL: nothing).  Out of memory unwinds as usual. */
void *arena_block(Arena *a, void *p, size_t n);
void arena_block_free(Arena *a, void *p);
/* The one growth helper of arrays (Lua's luaM_growvector).  p is an array of elem-byte
 * elements with capacity *cap, of which the first n are in use.  arena_reserve makes room for
 * need elements: when *cap is smaller, the capacity doubles (from first when 0) until it holds
 * them, *cap is updated and the array to use returned, its first n elements copied.  The array
 * lives in the arena a (the old one is left to it; the new elements are zero), or when a is
 * NULL on the heap (realloc; the new elements are undefined; the caller frees it).
 * arena_grow makes room for one more (n + 1). */
void *arena_regrow(Arena *a, void *p, int n, int need, int *cap, int first, size_t elem);
static inline void *arena_reserve(Arena *a, void *p, int n, int need, int *cap, int first,
                                  size_t elem) {
    return need <= *cap ? p : arena_regrow(a, p, n, need, cap, first, elem); /* the slow path */
}
static inline void *arena_grow(Arena *a, void *p, int n, int *cap, int first, size_t elem) {
    return arena_reserve(a, p, n, n + 1, cap, first, elem);
}
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);

/* Growable byte buffer, for output text and file contents.  buf_init makes one backed by
 * malloc (the caller frees it); buf_init_in one whose memory the arena owns, so an error that
 * unwinds the compile frees it with the arena (buf_free may still free it early). */
typedef struct Buf {
    char *data;
    size_t len, cap;
    Arena *arena; /* NULL: malloc'd */
} Buf;
void buf_init(Buf *b);
void buf_init_in(Buf *b, Arena *a);
Buf *buf_new(Arena *a); /* a Buf in the arena, as buf_init_in */
void buf_free(Buf *b);
void buf_putn(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
char *buf_steal(Buf *b); /* NUL-terminated malloc'd string; b is reset */

/* ------------------------------------------------------------------ hashmap.c
 * The one hash table (probing and growth described in hashmap.c): entries found by a 64-bit
 * hash the caller computes and the map's equality callback eq(stored key, key) (NULL: the same
 * pointer).  A key is never NULL; entries are never removed.  The tables live in the arena a,
 * or when a is NULL on the heap (hashmap_free frees them).  Iteration order is never used. */
typedef struct HashEntry {
    uint64_t hash;
    const void *key; /* NULL: a free slot */
    void *val;
} HashEntry;
typedef struct HashMap {
    HashEntry *slots;
    int cap, len, first; /* first: the capacity of the first table, a power of two */
    Arena *arena;
    bool (*eq)(const void *stored, const void *key);
} HashMap;
/* An empty map (first 0: 64 slots); allocates nothing until the first put. */
void hashmap_init(HashMap *m, Arena *a, int first, bool (*eq)(const void *, const void *));
/* The entry of key, or NULL when it is absent. */
HashEntry *hashmap_get(const HashMap *m, uint64_t hash, const void *key);
/* The entry of key, added with val NULL when absent; valid until the next put.  The map keeps
 * the pointer key, not a copy: when e->key == key the entry is new, and a caller whose key is
 * temporary puts an equal lasting copy in e->key. */
HashEntry *hashmap_put(HashMap *m, uint64_t hash, const void *key);
void hashmap_free(HashMap *m);

/* ------------------------------------------------------------------ expand.c
 * The one placeholder syntax of text templates for generated C (described in expand.c):
 * `$KEY`, KEY one digit or a letter and the letters and digits after it.  EXPAND_IDENT is
 * templates/NAME.c's syntax, where every C identifier is a key (the files compile alone). */
typedef enum { EXPAND_DOLLAR, EXPAND_IDENT } ExpandSyntax;
/* Appends the replacement of the placeholder whose key is key[0..len) to out and returns
 * true; false keeps the placeholder as written. */
typedef bool (*ExpandFn)(Buf *out, const char *key, size_t len, void *user);
/* Appends the text [s, end) (end NULL: up to the NUL) to out, placeholders replaced by fn. */
void expand(Buf *out, const char *s, const char *end, ExpandSyntax syn, ExpandFn fn,
            void *user);
/* The first placeholder in [s, end) (end NULL: up to the NUL): where it starts (NULL when
 * there is none); sets *key and *len to its key. */
const char *expand_find(const char *s, const char *end, ExpandSyntax syn, const char **key,
                        size_t *len);
/* Whether the key key[0..len) is name. */
bool expand_key_is(const char *key, size_t len, const char *name);
/* A fixed replacement; expand_table is the ExpandFn of a user array of them ended by key NULL. */
typedef struct ExpandKey {
    const char *key, *text;
} ExpandKey;
bool expand_table(Buf *out, const char *key, size_t len, void *user);

/* ------------------------------------------------------------------ error.c
 * Errors unwind by longjmp to the driver (onnx2c_compile), which returns a status (O2C_OK...,
 * libonnx2c.h).  The message is one line: "FILE: node 'NAME' (OP): what is wrong" (made one line
 * by onnx2c_oneline, also in error.c).  Exit statuses follow CONTRACT.md §1. */

/* Throws a model error located at node n (n may be NULL). Never returns. */
_Noreturn void o2c_error(Compiler *c, const Node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
_Noreturn void o2c_verror(Compiler *c, int status, const Node *n, const char *fmt, va_list ap);
/* Throws an I/O error (exit status 3). */
_Noreturn void o2c_ioerror(Compiler *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records a warning, one line in the errors' form ("FILE: node 'N' (Op): ..."; n may be NULL):
 * something a user would want to know, e.g. a node that takes a slow path.  The compile goes
 * on.  After O2C_MAX_WARNINGS only a count is kept (Output.warnings ends with it). */
void o2c_warn(Compiler *c, const Node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum { O2C_MAX_WARNINGS = 20 };
/* Reports progress to Options.progress (when set): stage a short word ("loading",
 * "inferring", "writing"), done out of total units of it.  The library never prints. */
void o2c_progress(Compiler *c, const char *stage, int64_t done, int64_t total);
/* Internal invariant: an error message naming the compiler source line, exit status 1. */
#define O2C_ASSERT(c, cond)                                                                        \
    do {                                                                                           \
        if (!(cond))                                                                               \
            o2c_error((c), NULL, "internal error: %s:%d: assertion '%s' failed", __FILE__,         \
                      __LINE__, #cond);                                                            \
    } while (0)

/* ------------------------------------------------------------------ sym.c
 * Symbolic integer expressions over the model's dims.  Interned and canonical: two Syms are
 * equal exactly when their pointers are equal.  Sums and products are kept as a sorted
 * polynomial (constant folded, like terms combined), so N*64+3 and 3+64*N are one Sym.
 * Constants and coefficients are int64 (one that would not fit is an error, see
 * sym_ctx_set_error); division operators assume a positive divisor. */
typedef enum {
    SYM_CONST,    /* c */
    SYM_DIM,      /* the dim with index `dim` (runtime parameter dims[dim]) */
    SYM_ADD,      /* sum of args[0..n) (n >= 2, at most one constant, which is last) */
    SYM_MUL,      /* product of args[0..n) (n >= 2, at most one constant, which is first) */
    SYM_FLOORDIV, /* floor(a / b) */
    SYM_CEILDIV,  /* ceil(a / b) */
    SYM_MOD,      /* a mod b, result has the sign of b (Python semantics) */
    SYM_MIN,      /* min(a, b) */
    SYM_MAX,      /* max(a, b) */
} SymKind;

struct Sym {
    SymKind kind;
    int n;          /* number of args */
    int64_t c;      /* SYM_CONST: the value */
    int dim;        /* SYM_DIM: the dim index */
    Sym **args;     /* operands */
    int id;         /* creation order: children always have smaller ids */
    uint64_t hash;
    /* Facts, computed once at interning (sym.c): the interval holding the value for every
     * choice of dims in [0, SYM_DIM_MAX], as two 128-bit bounds (read it with sym_range); the
     * dims it mentions (bit d % 64 of dmask; the largest index maxdim, -1 for none). */
    uint64_t range[4];
    uint64_t dmask;
    int maxdim;
};

/* The largest value of a dim that the facts below assume (at INT64_MAX, dim + 1 already
 * overflows; NAME_check must refuse it).  With it, a Slice end of -INT64_MAX is before the
 * start of every dim: torch.flip's length is the dim itself. */
#define SYM_DIM_MAX (INT64_MAX - 1)

SymCtx *sym_ctx_new(Arena *a);
/* The hook for errors: a constructor whose exact result would need a constant or coefficient
 * beyond int64 calls fn(user, message) just before it returns.  The compiler's hook does not
 * return (o2c_error naming the node being inferred); without one, results wrap. */
void sym_ctx_set_error(SymCtx *s, void (*fn)(void *user, const char *msg), void *user);
/* How many Syms exist: every Sym's id is below it. */
int sym_count(const SymCtx *s);
Sym *sym_const(SymCtx *s, int64_t c);
Sym *sym_dim(SymCtx *s, int dim);
Sym *sym_add(SymCtx *s, Sym *a, Sym *b);
/* terms[0] + ... + terms[n-1] in one step (n sym_adds would copy the growing sum n times). */
Sym *sym_sum(SymCtx *s, int n, Sym *const *terms);
Sym *sym_sub(SymCtx *s, Sym *a, Sym *b);
Sym *sym_neg(SymCtx *s, Sym *a);
Sym *sym_mul(SymCtx *s, Sym *a, Sym *b);
Sym *sym_floordiv(SymCtx *s, Sym *a, Sym *b);
Sym *sym_ceildiv(SymCtx *s, Sym *a, Sym *b);
Sym *sym_mod(SymCtx *s, Sym *a, Sym *b);
Sym *sym_min(SymCtx *s, Sym *a, Sym *b);
Sym *sym_max(SymCtx *s, Sym *a, Sym *b);
/* The product of v[from..to) (1 when empty): a shape's elements from one axis to another. */
Sym *sym_prod(SymCtx *s, Sym *const *v, int from, int to);
/* Substitutes dims: dims[i] non-NULL replaces SYM_DIM i (used by --fix and unification). */
Sym *sym_subst(SymCtx *s, Sym *e, Sym *const *dims);
bool sym_is_const(const Sym *e);
/* True when e >= 0 for every choice of dims in [0, SYM_DIM_MAX] (from the facts: O(1)). */
bool sym_nonneg(const Sym *e);
/* Bounds of e over every choice of dims in [0, SYM_DIM_MAX] (O(1)): INT64_MIN / INT64_MAX
 * when it is unbounded that way or passes int64. */
void sym_range(const Sym *e, int64_t *lo, int64_t *hi);
/* True and *out set when e is a constant. */
bool sym_get_const(const Sym *e, int64_t *out);
/* Interval bounds of e for dims in [dlo[i], dhi[i]] (sound, not tight); false if unknown
 * (a divisor that may be <= 0) or when a bound on the way does not fit in int64. */
bool sym_bounds(const Sym *e, const int64_t *dlo, const int64_t *dhi, int64_t *lo, int64_t *hi);
/* Evaluates with concrete dims; returns false on division by zero and when a value on the
 * way does not fit in int64. */
bool sym_eval(const Sym *e, const int64_t *dims, int64_t *out);
/* Prints e as a C99 int64_t expression; dim i is printed by dimname(i, user).  Sums and
 * products are computed in uint64_t and converted back, (int64_t)((uint64_t)64 * N * H - ...):
 * no partial result can overflow, and the value is exact whenever the exact value of every
 * sum or product that is not itself a term of a sum fits in int64 (NAME_check makes sure). */
void sym_print_c(Buf *b, const Sym *e, const char *(*dimname)(int, void *), void *user);
/* The same, where subname(sub, user) may name a sub-expression (a local computed earlier):
 * the named sub-expression is printed as that name. */
void sym_print_c_named(Buf *b, const Sym *e, const char *(*dimname)(int, void *),
                       const char *(*subname)(const Sym *, void *), void *user);
/* Human-readable form using the given dim names, e.g. "(H - 3) / 2 + 1". */
char *sym_str(Arena *a, const Sym *e, const char *const *dim_names);
/* The same cut to a prefix of at most maxlen bytes, then "...": work and memory bounded by
 * maxlen, not by e's depth or size. */
char *sym_str_max(Arena *a, const Sym *e, const char *const *dim_names, size_t maxlen);

/* ------------------------------------------------------------------ ir.c
 * The IR: a Graph of Nodes connected by Values.  Data types (DType) and the dense Tensor are in
 * libonnx2c.h; onnx2c_dtype_size and onnx2c_dtype_name are dtype_size and dtype_name. */
size_t dtype_size(DType t);        /* bytes per element; 0 for undefined/string/complex */
const char *dtype_ctype(DType t);  /* "float", "int64_t", "uint8_t" (bool), "uint16_t" (f16) */
const char *dtype_name(DType t);   /* "float", "int64", "bool", ... as in ONNX */
const char *dtype_suffix(DType t); /* "f32", "i64", "b8", ... for kernel names */
bool dtype_is_float(DType t);      /* float, double (float16/bfloat16 are stored as bits) */
bool dtype_is_int(DType t);        /* signed or unsigned integer (not bool) */
bool dtype_is_signed(DType t);

typedef enum {
    ATTR_UNDEFINED = 0,
    ATTR_FLOAT = 1,
    ATTR_INT = 2,
    ATTR_STRING = 3,
    ATTR_TENSOR = 4,
    ATTR_GRAPH = 5,
    ATTR_FLOATS = 6,
    ATTR_INTS = 7,
    ATTR_STRINGS = 8,
    ATTR_TENSORS = 9,
    ATTR_GRAPHS = 10,
    ATTR_SPARSE_TENSOR = 11,
    ATTR_SPARSE_TENSORS = 12,
    ATTR_TYPE_PROTO = 13,
    ATTR_TYPE_PROTOS = 14,
} AttrType;

struct Attr {
    const char *name;
    AttrType type;
    int64_t i;
    float f;
    const char *s; /* STRING: bytes, NUL-terminated copy */
    size_t slen;
    int n;          /* INTS/FLOATS/STRINGS count */
    int64_t *ints;
    float *floats;
    const char **strings;
    Tensor *t;      /* TENSOR */
    void *sub;      /* GRAPH: the loader's record of the subgraph (onnx_load.c), until build */
};

typedef enum {
    VAL_TEMP,   /* produced by a node, lives in the workspace */
    VAL_INPUT,  /* runtime graph input: inputs[input_index] */
    VAL_CONST,  /* initializer or folded constant: static const data */
    VAL_OUTPUT, /* graph output: outputs[output_index] */
} ValueKind;

struct Value {
    const char *name;  /* ONNX name */
    int id;            /* index in Graph.values */
    const char *cname; /* unique C identifier for its buffer pointer */
    ValueKind kind;
    int input_index;   /* VAL_INPUT */
    int output_index;  /* VAL_OUTPUT (a value may be both an output and something else: see is_output) */
    bool is_output;
    DType dtype;
    int rank;          /* -1 while unknown */
    Sym **shape;       /* rank entries */
    /* Known contents at compile time.  `data` holds dense bytes when every element is a
     * constant (initializers, Constant, folded shape math).  `kv` holds the elements as Syms
     * when they are known but may be symbolic (Shape(x) gives the dims of x): integer and bool
     * tensors, and float tensors holding integers (a Cast of a known integer value, as in
     * torch.arange(S, dtype=float)).  Check the dtype before folding on kv.  Either may be NULL. */
    void *data;
    Sym **kv;
    /* A constant made only when it is written out (emit.c), from other constants: a weight
     * packed or transformed for a kernel (gp_lazy in ops/gemm_plan.h); data is NULL then.
     * Only emit_ptr reads such a value. */
    const ValueFill *fill;
    Node *producer;
    int nuses;         /* consumers (nodes) */
    /* The shape the model file declares (graph outputs, value_info), used when the shape
     * depends on runtime tensor data (see infer_declared_shape).  decl_shape[i] is a constant,
     * a dim of the graph, or NULL when the file leaves it unknown or names no graph dim. */
    bool has_decl;
    DType decl_dtype;  /* DT_UNDEFINED when not declared */
    int decl_rank;
    Sym **decl_shape;
    /* plan.c */
    int first_def, last_use; /* node indices */
    Sym *offset;             /* byte offset in the workspace (VAL_TEMP) */
    Sym *bytes;              /* size in bytes */
    int buf;                 /* 1 + the workspace buffer it lives in (values that alias or run
                              * in place share one), 0 outside the workspace */
    Value *within;           /* the Concat output this input was placed inside (its producer
                              * writes its block there; the Concat copies nothing of it), or NULL */
    bool param;              /* an initializer of the model (ir_set_const): --report's parameters */
    /* A sequence (ops/sequence.c) of seq_len tensors of one shape E: stored as the tensor
     * [seq_len, E...] (rank 1 + rank of E; -1 while E is unknown: SequenceEmpty). */
    bool seq;
    Sym *seq_len;
    /* An optional (Optional, ops/sequence.c): whether it holds a value is known at compile
     * time; opt_none: it holds none (then its type and shape are placeholders). */
    bool opt, opt_none;
    const char *pp_if;       /* a constant only some targets use: its array and pointer are
                              * emitted under `#if pp_if` (a macro of the kernels) */
};

struct Node {
    const char *name;    /* ONNX node name, or a generated "OP_k" when empty */
    const char *op_type;
    const char *domain;  /* "" for the default domain */
    int opset;           /* opset version of its domain */
    int index;           /* position in topological order */
    int nin, nout;
    Value **in;          /* NULL entries for omitted optional inputs */
    Value **out;
    int nattr;
    Attr *attrs;
    const OpDef *op;
    Sym *scratch;        /* bytes of node-local scratch the kernel needs (plan.c places it) */
    Sym *scratch_offset;
    int64_t flash;       /* emit.c: bytes of the weight arrays first written for it (--report) */
    const char *kernel;  /* emit: the kernel it got, for --report ("conv im2col+gemm", "copy
                          * (alias: nothing)"); set by the op's emitter (emit_kernel), else
                          * emit_node names its family and the templates it used */
    bool dead;           /* folded away: every output is known at compile time */
    Node *merged_into;   /* a dead node the lower pass fused into another: that node (the
                          * profile build's note) */
    void *priv;          /* op-private data computed by infer for emit */
    /* attributes infer has read and checked, for emit to trust (ggml's op_params): emitters
     * read no attribute (they cannot fail on a malformed one) */
    int64_t op_i[4];
    float op_f[4];
    /* the activation the lower pass fused into a Conv / MatMul / Gemm (compiler/lower.c's
     * ACT_*, 0: none) and its parameters */
    int epi_act;
    float epi_p0, epi_p1;
    /* control flow (ops/control.c): the region (an If branch, a Loop or Scan body) the node
     * runs in, 0 at top level; an If, Loop or Scan's regions (its graph attributes); a region
     * marker's (o2c_Else, o2c_End) control node */
    int region;
    int nsub;
    struct Region **sub;
    Node *ctl;
};

/* A subgraph of an If, Loop or Scan: ir_toposort puts its nodes right after the control node,
 * closed by a marker node (o2c_Else after an If's then branch, o2c_End after the last). */
typedef struct Region {
    int id;          /* Node.region of its nodes (1, 2, ...) */
    Node *owner;     /* the If / Loop / Scan */
    const char *name;/* its attribute: then_branch, else_branch, body */
    bool loop;       /* a Loop or Scan body: its nodes run many times */
    int nin, nout;
    Value **in;      /* the subgraph's formal inputs (the owner defines them) */
    Value **out;     /* its outputs, in order */
    int nnodes;
    Node **nodes;    /* its own nodes (not those of regions inside it) */
    Node *close;     /* the marker node that closes it (o2c_Else, o2c_End: control_prepare) */
    int begin, end;  /* after ir_toposort: indices of the owner (or o2c_Else) and its marker */
} Region;

typedef struct Dim {
    const char *name;  /* dim_param, or INPUT_AXIS */
    const char *cname; /* C identifier */
    int64_t fixed;     /* --fix value, or -1 */
    int64_t max;       /* --max value, or -1 */
    /* a data dim (CONTRACT §2b: a size decided by tensor data, after every input dim): its
     * upper bound, an expression of the input dims, and the node that computes it; NULL and
     * -1 for an input dim.  While inferring, a data dim's bound may be NULL: pending, until a
     * declared shape gives it (ir_data_declared; exact) or inference ends (ir_data_unbounded) */
    Sym *bound;
    int producer;
    bool exact;       /* the bound is a declared size: the value must equal it (-4 otherwise) */
    const char *of;   /* the value whose axis `axis` it sizes (the error when no bound came) */
    int axis;
} Dim;

/* What a Constraint requires of its two Syms a and b: NAME_check tests it at run time. */
typedef enum {
    CK_EQ,      /* a == b (and the dims are unified: see ir_unified) */
    CK_LE,      /* a <= b */
    CK_DIVIDES, /* a != 0 and a divides b */
    CK_BCAST,   /* a == b or a == 1 or b == 1: dims that broadcast (numpy) */
} ConstraintKind;

typedef struct Constraint {
    Sym *a, *b;
    ConstraintKind kind;
    const char *what;  /* human text naming the node */
    const Node *at;    /* a node inside an If branch or a Loop/Scan body: NAME_run tests it
                        * there (it holds only when that code runs); NULL: NAME_check tests it */
} Constraint;

struct Graph {
    const char *name;
    int64_t ir_version;
    int opset;               /* default-domain opset version */
    int nnodes, capnodes;
    Node **nodes;
    int nvalues, capvalues;
    Value **values;
    int ninputs, noutputs;
    Value **inputs;          /* runtime inputs, graph order (initializers excluded) */
    Value **outputs;
    int ndims;
    Dim *dims;
    int nin_dims;            /* the input dims: dims[0..nin_dims); data dims follow (ir_data_dim) */
    Sym **bounds;            /* ir.c: per data dim its bound (ir_data_bounded's substitution) */
    int nbounds;             /* dims when it was made */
    int nconstraints, capconstraints;
    Constraint *constraints;
    Sym *workspace;          /* plan.c: total workspace bytes */
    Sym *scratch_slot;       /* plan.c, default mode: bytes of the slot at which every node's
                              * scratch starts (no value lives there), or NULL.  A kernel whose
                              * threads each take a part of its scratch puts thread t's at t x
                              * (this / threads): the same bytes, in the same core's cache, from
                              * node to node: scratch_part in ops/conv.c) */
    int64_t workspace_max;   /* plan.c: its bound for dims within --max, or -1 */
    Plan *plan;              /* plan.c: the buffers and their lifetimes, for plan_report */
    Sym **checked;           /* emit.c: the Syms NAME_check evaluates, children first */
    int nchecked;
    int nregions, capregions;
    Region **regions;        /* control flow: regions[id - 1] (onnx_load.c, ir_toposort) */
    Sym **unified;           /* per dim: what an equality constraint replaced it by, or NULL */
    int nunified;            /* its entries (data dims made later have none: never unified) */
    bool any_unified;
};

Value *ir_value(Compiler *c, const char *name);      /* find or create by name */
Value *ir_find_value(Compiler *c, const char *name); /* NULL if absent */
Node *ir_add_node(Compiler *c, const char *op_type, const char *name);
void ir_set_shape(Compiler *c, Value *v, DType t, int rank, Sym *const *shape);
void ir_set_shape_ints(Compiler *c, Value *v, DType t, int rank, const int64_t *shape);
Sym *ir_numel(Compiler *c, const Value *v); /* product of the shape */
/* out takes in's type, shape and kind (a sequence, an optional: what Identity, Optional and
 * control flow pass on). */
void ir_same_kind(Compiler *c, Value *out, const Value *in);
Sym **ir_strides(Compiler *c, int rank, Sym *const *shape); /* row-major, in the arena */
bool ir_numel_const(const Value *v, int64_t *n);
/* Same element type, rank and dims (the same Syms). */
bool ir_same_shape(const Value *a, const Value *b);
int ir_add_dim(Compiler *c, const char *name);        /* find or add; returns its index */
int ir_find_dim(Compiler *c, const char *name);       /* its index, or -1 */
/* A data dim (CONTRACT §2b) computed by node n: named "OP_OUTPUT_AXIS" (NonZero's output y,
 * axis 1: nonzero_y_1), bounded by bound (an expression of the input dims, or of earlier data
 * dims: their bounds are put in) and by a --max on its name.  With neither (bound NULL, or one
 * that mentions a pending data dim) it is pending: a declared shape met later may bound it
 * (ir_data_declared), else ir_data_unbounded refuses the model.  Returns the dim as a Sym. */
Sym *ir_data_dim(Compiler *c, Node *n, int output, int axis, Sym *bound);
/* After node n's rule: an axis of an output of n that is a pending data dim and that the model
 * declares (graph output or value_info: a constant or an expression of the input dims) takes
 * that size as its bound, exact: NAME_run returns -4 where the value differs.  A data dim
 * already exact and declared again must be equal to that too (a constraint). */
void ir_data_declared(Compiler *c, Node *n);
/* At the end of inference: the first data dim still pending is an error naming its node and
 * axis and suggesting --max. */
void ir_data_unbounded(Compiler *c);
/* True when e mentions a data dim. */
bool ir_has_data_dim(const Compiler *c, const Sym *e);
/* e with every data dim replaced by its bound: what the plan sizes buffers by (sizes grow with
 * the dims they mention). */
Sym *ir_data_bounded(Compiler *c, Sym *e);
/* The data dim of largest index e mentions (they are made in node order: the last one the
 * run computes), or -1. */
int ir_last_data_dim(const Compiler *c, const Sym *e);
/* Requires the relation `kind` (CK_*) of a and b, fmt saying what (after "node 'N' (OP): "):
 * an error now when it is false for every size (two constants, or a - b a constant that breaks
 * it), otherwise a check of NAME_check (once per kind, a and b).  CK_EQ also unifies the dims. */
void ir_constrain(Compiler *c, const Node *n, ConstraintKind kind, Sym *a, Sym *b, const char *fmt,
                  ...) __attribute__((format(printf, 6, 7)));
const char *ir_cident(Compiler *c, const char *prefix, const char *name); /* unique C identifier */
/* Turns a string into a C identifier ("my-net" -> "my_net"). */
void ir_to_cident(const char *s, char *out, size_t outlen);
/* True when an operand's dim `in` is read with stride 0 against the broadcast dim `out`: it is
 * 1, or it differs from `out` and is 0 or 1 for every size (min(T, 1) of x[:, :1]: when it is
 * 0 so is `out`, and nothing is read). */
bool ir_bcast_dim(const Sym *in, const Sym *out);
/* Applies the dim unifications recorded so far to a Sym (identity when there are none). */
Sym *ir_unified(Compiler *c, Sym *e);
void ir_toposort(Compiler *c); /* orders g->nodes; errors on cycles and dangling inputs */
/* Makes v a constant from a tensor: its data (shared: t must live as long as the arena; data
 * is never written once set) and its shape. */
void ir_set_const(Compiler *c, Value *v, const Tensor *t);
/* Known integer contents: fills kv from data if needed. Returns NULL when not known. */
Sym **ir_known_ints(Compiler *c, Value *v);
/* Element count of a known-int vector, or -1 if the shape is not constant. */
int64_t ir_known_len(const Value *v);

/* Attribute access (NULL / default when absent).  Type mismatches are errors naming the node. */
const Attr *node_attr(const Node *n, const char *name);
int64_t attr_int(Compiler *c, const Node *n, const char *name, int64_t def);
float attr_float(Compiler *c, const Node *n, const char *name, float def);
const char *attr_str(Compiler *c, const Node *n, const char *name, const char *def);
/* INTS: returns count (or -1 if absent) and sets *out. */
int attr_ints(Compiler *c, const Node *n, const char *name, const int64_t **out);
int attr_floats(Compiler *c, const Node *n, const char *name, const float **out);
/* An INTS attribute of exactly `len` entries, each in [lo, ATTR_SIZE_MAX], into out[]; def
 * fills it when absent (the convolution and pooling attributes: kernel_shape, strides,
 * dilations, pads; sums and products of two of them fit in int64). */
#define ATTR_SIZE_MAX INT64_C(2147483647)
void attr_ints_n(Compiler *c, const Node *n, const char *name, int len, int64_t def, int64_t lo,
                 int64_t *out);
/* The auto_pad attribute of Conv, ConvTranspose, pools: one of AUTO_PAD_*. */
enum { AUTO_PAD_NOTSET, AUTO_PAD_VALID, AUTO_PAD_SAME_UPPER, AUTO_PAD_SAME_LOWER };
int attr_auto_pad(Compiler *c, const Node *n);
/* The attributes of Conv-like ops for sp spatial axes: strides and dilations (>= 1, default
 * 1), pads (>= 0, zeroed under auto_pad), group (>= 1); returns auto_pad (AUTO_PAD_*). */
int attr_conv(Compiler *c, const Node *n, int sp, int64_t *stride, int64_t *dil, int64_t *pads,
              int64_t *group);
/* Optional input i (NULL when omitted or out of range). */
Value *node_in(const Node *n, int i);

/* ------------------------------------------------------------------ onnx_load.c
 * protobuf-c unpack of ModelProto into the Graph.  Every malformed field is a clear error.
 * Also the library's onnx2c_load_tensor and onnx2c_tensor_free (a .pb file, malloc'd). */
void load_model(Compiler *c, const char *path);

/* ------------------------------------------------------------------ infer.c
 * Runs each node's infer rule in topological order.  A rule sets the outputs' dtype and
 * shape, records constraints, and computes known values (kv/data) when its inputs are known:
 * that is constant folding.  Nodes whose outputs are all known are marked dead. */
void infer_graph(Compiler *c);
/* The SymCtx error hook of a compile (user is the Compiler): an error naming the node being
 * inferred, if any. */
void infer_sym_error(void *user, const char *msg);
/* Helpers for rules. */
void infer_require_inputs(Compiler *c, Node *n, int min, int max);
/* min..max outputs, the first min of them present. */
void infer_require_outputs(Compiler *c, Node *n, int min, int max);
Value *infer_in(Compiler *c, Node *n, int i); /* required input i with known rank */
/* Numpy broadcast of two shapes; records equality constraints for symbolic dims. */
int infer_broadcast(Compiler *c, Node *n, int ra, Sym *const *a, int rb, Sym *const *b, Sym **out);
int infer_axis(Compiler *c, Node *n, int64_t axis, int rank); /* normalizes negative axes */
/* When out's shape depends on runtime tensor data: sets out's dtype t and the shape the model
 * declares for it (graph output or value_info) when every declared dim is known; returns
 * false otherwise.  The op's emit must then read the data at run time and return
 * O2C_RUN_EDATA from NAME_run, before writing anything, when it contradicts the shape. */
bool infer_declared_shape(Compiler *c, Node *n, Value *out, DType t);
/* A declared dim d of out that the compiler also knows as `want`: they must agree (an error
 * when both are constants, a run-time constraint otherwise). */
void infer_declared_agree(Compiler *c, Node *n, Value *out, int d, Sym *want);
/* v's element count with the dims unified so far (what NAME_check guarantees), -1 when it is
 * symbolic.  Use it, not ir_known_len, for a runtime-data input whose length the op implies. */
int64_t infer_len(Compiler *c, const Value *v);
/* A runtime-data input v (shape, axes, pads, scales...) whose length is symbolic but implied
 * by the op and the declared output shape (want >= 0): records the constraint
 * numel(v) == want, so NAME_check refuses other lengths, and returns want.  With a constant
 * length returns it (the caller compares); with want < 0, -1. */
int64_t infer_implied_len(Compiler *c, Node *n, Value *v, int64_t want, const char *what);

/* Attribute-like inputs: integer tensors (axes, pads, starts, a target shape, sizes...) that
 * decide shapes, so must be known at compile time, or else are runtime data the generated
 * code reads, checked against the output shape the model declares.  `what` names the input
 * in messages ("axes", "pads").  One set of rules and error texts for every op. */
/* The error for v not known at compile time; declarable: a declared output shape would do. */
_Noreturn void infer_not_known(Compiler *c, Node *n, const Value *v, const char *what,
                               bool declarable);
/* v (an integer tensor of rank <= 1, else an error) as Syms when known at compile time, with
 * *len their count; NULL (*len -1) when it is runtime data. */
Sym **infer_ints(Compiler *c, Node *n, Value *v, const char *what, int64_t *len);
/* The same, but v must be known (infer_not_known otherwise). */
Sym **infer_need_ints(Compiler *c, Node *n, Value *v, const char *what, int64_t *len,
                      bool declarable);
/* The same, and every element a constant. */
int64_t *infer_need_const_ints(Compiler *c, Node *n, Value *v, const char *what, int64_t *len,
                               bool declarable);
/* True when v is an integer tensor whose values are runtime data. */
bool infer_runtime_ints(Compiler *c, Value *v);
/* Output k's shape is decided by runtime data: its declared shape (as infer_declared_out; the
 * emitter checks it, -4) and true, or else a shape of data dims bounded by bounds[0..rank)
 * (ir_data_dim; the emitter sets them) and false. */
bool infer_declared_or_data(Compiler *c, Node *n, int k, DType t, int rank, Sym *const *bounds);
/* v is runtime data that decides out's shape: sets out's declared shape (dtype t, as
 * infer_declared_shape), which must have rank `rank`; infer_not_known when there is none. */
void infer_declared_out(Compiler *c, Node *n, const Value *v, const char *what, Value *out,
                        DType t, int rank);
/* v is runtime data: sets out's declared shape (dtype t, as infer_declared_shape) and returns
 * v's element count: a constant one, else want(n, out), the count the op implies for out's
 * declared shape (see infer_implied_len); infer_not_known when the model declares no shape for
 * out or v's count cannot be known. */
int64_t infer_declared_ints(Compiler *c, Node *n, Value *v, const char *what, Value *out,
                            DType t, int64_t (*want)(const Node *n, const Value *out));
/* The codes NAME_check / NAME_run return (CONTRACT.md §2) are libonnx2c.h's O2C_RUN_*: op
 * emitters use O2C_RUN_EDATA, O2C_RUN_ETOOBIG and O2C_RUN_EINDEX. */

/* ------------------------------------------------------------------ ops (ops/FAMILY.c)
 * One table of ops.  Each family file defines a NULL-terminated array of OpDefs; ops.c lists
 * the families.  infer: shapes and folding.  emit: the C for one node (may be NULL for ops that
 * are always folded). */
/* One row of the op table, compiler/ops/optable.h, which says what each field means. */
struct OpDef {
    const char *name;   /* ONNX op_type */
    const char *domain; /* "" for the default domain */
    const char *family; /* its file in compiler/ops/ */
    int since;          /* the first opset of the domain that has it */
    int in_min, in_max; /* inputs (in_max -1: any number) */
    void (*infer)(Compiler *c, Node *n);
    void (*emit)(Compiler *c, Emit *e, Node *n); /* NULL: only when its result is known */
    int variant;        /* an OPV_ constant, or 0 */
};
/* Variants of the rows that share their infer and emit (OpDef.variant). */
enum {
    OPV_CASTLIKE = 1,
    OPV_D2S = 1, OPV_S2D,
    OPV_POOL_MAX = 1, OPV_POOL_AVG, OPV_POOL_LP, OPV_GPOOL_MAX, OPV_GPOOL_AVG, OPV_GPOOL_LP,
    OPV_QADD = 1, OPV_QMUL, OPV_QSIGMOID, OPV_QLEAKYRELU, OPV_QHARDSWISH, OPV_QPOOL,
    OPV_QGLOBALPOOL,
    OPV_ARGMAX = 1, OPV_ARGMIN,
    OPV_RESIZE = 1, OPV_UPSAMPLE,
    OPV_LSTM = 1, OPV_GRU, OPV_RNN,
    OPV_SQUEEZE = 1, OPV_UNSQUEEZE,
    OPV_HANN = 1, OPV_HAMMING, OPV_BLACKMAN,
    OPV_SOFTMAX = 1, OPV_LOGSOFTMAX, OPV_HARDMAX,
    OPV_UNIFORM = 1, OPV_NORMAL, OPV_UNIFORM_LIKE, OPV_NORMAL_LIKE,
};

const OpDef *ops_find(const char *domain, const char *op_type);
/* (ops.c also defines the library's onnx2c_each_op: every op with its family.) */
/* Slice (ops/layout.c) along one axis of size dim with a nonzero step: the length, and in
 * *begin the clamped start (ONNX: start and end count from the end when negative, then are
 * clamped to [0, dim] for step > 0, to [0, dim - 1] and [-1, dim - 1] for step < 0; length
 * max(0, ceil((end - start) / step))).  Exact for every dim >= 0, 0 included. */
Sym *slice_axis(SymCtx *s, Sym *dim, Sym *start, Sym *end, int64_t step, Sym **begin);

/* ops/control.c, for ir_toposort: control node p (If, Loop, Scan) defines its regions' formal
 * inputs and gets its marker nodes (o2c_Else, o2c_End: Node.ctl p, Region.close of the region
 * they close), which take over its outputs. */
void control_prepare(Compiler *c, Node *p);

/* ------------------------------------------------------------------ lower.c
 * Graph rewrites for the GEMM engine and the plan: a zero Pad folded into the pads of the Conv
 * that reads it; BatchNormalization folded into a constant-weight Conv or Gemm; a residual Add
 * and an activation that are the only consumer of a Conv/MatMul/Gemm output fused into its
 * epilogue (the consumer is marked dead). */
void lower_graph(Compiler *c);
/* --report: in a graph with QuantizeLinear / DequantizeLinear nodes, one line per live node that
 * computes in float ("float path: node 'X' (Softmax) between DequantizeLinear and
 * QuantizeLinear"), then the count of DequantizeLinear and QuantizeLinear nodes left. */
void lower_report(Compiler *c, FILE *f);

/* ------------------------------------------------------------------ plan.c
 * Liveness-based placement of temporaries and kernel scratch in the one caller-provided
 * workspace.  Offsets and the total are Syms.  Buffers are 64-byte aligned.  Reshape-family
 * outputs alias their input; elementwise ops run in place on an input that dies there; a
 * Concat's inputs are written by their producers inside its output when contiguous there. */
void plan_graph(Compiler *c);
/* True when a and b live at the same bytes of the workspace (an alias, or an op run in place):
 * a copy from one to the other is nothing. */
bool plan_same_buffer(const Value *a, const Value *b);
/* shape.c, for the plan: Dropout n copies its input (inference; not training mode, which may
 * drop at run time). */
bool dropout_is_copy(const Node *n);
/* conv.c, for the lowering: Conv n is depthwise (its kernels take a GlobalAveragePool of its
 * output as a second output, fused by lower.c). */
bool conv_is_depthwise(const Node *n);
/* random.c, for onnx2c_compile: Output.checks, one per graph output (libonnx2c.h): its type
 * and, for an output that depends on random draws, the property its ops guarantee. */
void random_checks(Compiler *c, OutputCheck *ck);
/* layout.c, for the plan: the element of Concat n's output at which input k's block starts,
 * when that block is contiguous there (every dim before the axis is 1), else NULL. */
Sym *concat_block_at(Compiler *c, const Node *n, int k);
/* The bytes of scratch (Node.scratch) the kernel of node n may use under the current options,
 * for kernels that choose a tile or a variant by memory: -1 when there is no limit (the
 * default mode).  Under --memory-first: the headroom under the largest sum of live tensors at
 * the nodes up to n (scratch there does not raise the peak), and at least 1/16 of the live
 * tensors at n; 0 when those are symbolic.  A multiple of 64.  Call it from n's infer rule
 * after setting n's output shapes. */
int64_t plan_scratch_budget(Compiler *c, const Node *n);
/* --report: per node its outputs (shape, offset, bytes), the arena bytes in use there (live
 * buffers + its scratch), its scratch and the flash bytes of the weight arrays written for it
 * (emit.c's Node.flash); then the totals.  Call after emit_graph. */
void plan_report(Compiler *c, FILE *f);

/* ------------------------------------------------------------------ emit.c
 * Writes OUT.h and OUT.c.  Op emitters print code through these helpers; every Sym they print
 * becomes a local computed once at the top of the function. */
/* OUT.h into h; OUT.c into Options.c_file when set, else src; with Options.weights_blob the
 * blob into Options.weights_file when set, else blob, and FILE.S into asm_src. */
uint64_t emit_graph(Compiler *c, Buf *h, Buf *src, Buf *blob, Buf *asm_src); /* the blob's size */
/* Appends text at the current indentation (fmt is printf; a trailing newline is added). */
void emit_line(Emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends raw text (no indentation, no newline). */
void emit_raw(Emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_indent(Emit *e, int delta);
/* `head stmt` (a for loop's head, its one statement), run on the OpenMP threads when
 * o2c_par(cond) holds (templates/o2c_target.c, which a template the caller emitted must
 * include), else as a plain loop: no OpenMP region for serial work. */
void emit_par_for(Emit *e, const char *cond, const char *head, const char *stmt);
/* C expression (int64_t) for a Sym; valid inside the current function. */
const char *emit_sym(Emit *e, Sym *s);
/* In NAME_run, at the node that computes data dim `dim` (ir_data_dim): sets its local to the
 * C expression `value` and returns O2C_RUN_EBOUND when that passes the dim's bound
 * (O2C_RUN_EDATA when it differs from an exact bound: a declared size).  The
 * node may use the dim's local (emit_sym(dim)) after this; expressions of it only in later
 * nodes. */
void emit_set_data_dim(Emit *e, Sym *dim, const char *value);
const char *emit_int(Emit *e, int64_t v);
/* The C pointer expression for a value's buffer, typed as dtype_ctype(v->dtype) *. */
const char *emit_ptr(Emit *e, Value *v);
/* Includes template templates/NAME.c instantiated for element type t (DT_UNDEFINED for an
 * untyped template) once; returns the suffix to append to its function names (e.g. "f32"). */
const char *emit_template(Emit *e, const char *name, DType t);
/* Names the kernel the node being emitted got, for --report (Node.kernel): the family's word
 * and the variant, e.g. "conv winograd F(2x2,3x3)"; the last call wins. */
void emit_kernel(Emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a function of file scope named `name` (its whole text: fmt is printf, after the
 * templates it calls) to the kernels of OUT.c, once per name: an op's own instance of a
 * template's kernel (e.g. with its sizes as constants). */
void emit_kernel_fn(Emit *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fresh local identifier with the given stem, unique in the current function.  The stem must
 * not end in '_' or hold "__" (identifiers made from model names have the form KIND__NAME). */
const char *emit_tmp(Emit *e, const char *stem);
/* s (text from the model: a name) made safe and short for use inside a C comment; the one way
 * such text reaches a comment in OUT.c or OUT.h. */
const char *emit_comment_text(Emit *e, const char *s);
/* C literal for a scalar of type t from a double (handles inf/nan, integer types). */
const char *emit_literal(Emit *e, DType t, double v);
/* Emits `static const int64_t NAME[] = {...}` style arrays: an int64 array of Syms as a local
 * array initialised at run time (symbolic) or a static const (constant); returns its name. */
const char *emit_sym_array(Emit *e, const char *stem, int n, Sym *const *v);
const char *emit_int_array(Emit *e, const char *stem, int n, const int64_t *v);
/* Runtime axes (an integer tensor of count elements at C expression axes, for a rank-r
 * tensor): marks them in a local `int mk[r]`, returning O2C_RUN_EDATA from NAME_run on an
 * out-of-range or repeated axis. */
void emit_axes_marks(Emit *e, const char *axes, const char *count, int r);
/* The C expression of the element offset of batch element (i0, i1, ..., i<rb-1>) (loop
 * variables of those names) in an operand with batch dims `dims` against the broadcast batch
 * `batch` (a dim of 1 against a larger one is skipped), `mat` elements per batch element. */
const char *emit_batch_offset(Emit *e, int rb, Sym *const *batch, Sym *const *dims, Sym *mat);
Arena *emit_arena(Emit *e);

/* Elementwise helper: emits a loop nest over `rank`/`shape` (the output shape) in which
 * `expr` computes the output element.  In expr, $0..$9 stand for the elements of inputs
 * ins[0..nin) read with numpy broadcasting against the output shape; $y for the output
 * element type's C name; $t0..$t9 for the input element C types.  The result is assigned to the
 * output element. */
void emit_elementwise(Emit *e, Node *n, Value *out, int nin, Value *const *ins, const char *expr);

/* ------------------------------------------------------------------ driver.c
 * The library API (libonnx2c.h: onnx2c_compile, onnx2c_output_free); the Compiler context. */

/* The compiler context: everything one compile owns. */
struct Compiler {
    Arena *arena;
    SymCtx *sym;
    Graph *g;
    const Options *opt;
    const char *path;     /* model path for messages */
    const char *model_dir;/* for external data */
    const char *prefix;   /* C prefix */
    const char *header;   /* file name of the header OUT.c includes */
    jmp_buf jmp;
    int status;
    char err[1024];
    /* value lookup */
    void *valmap;
    int cident_counter;
    const Node *cur; /* the node being inferred (for errors from ir_set_shape), or NULL */
    /* warnings so far (o2c_warn: one line each, in the arena) and how many were dropped */
    char **warn;
    int nwarn, warn_cap, warn_dropped;
};

#endif
