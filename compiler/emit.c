/* emit.c — writes OUT.h and OUT.c (with --weights also the weights blob and FILE.S).
 *
 * Layout of OUT.c (CONTRACT.md §2): includes; the kernels used (templates/NAME.c instantiated per
 * element type); the weights (static const; with --weights none: they are in the blob); dim
 * names and error texts; then NAME_check, NAME_workspace_size, NAME_input_shape,
 * NAME_output_shape, NAME_run (NAME_run_w) and NAME_strerror; with --weights last the blob's
 * header and NAME_weights_check.
 *
 * Every function is written in two parts.  Its body is emitted first, and while it is, the
 * Syms, dims and value buffers it mentions are recorded; then the prologue declares exactly
 * those: dims (d_NAME = dims[i]), each symbolic expression once (s<ID>), and each buffer
 * pointer.  So shape arithmetic is computed once per call, never per element, and a static
 * model's code holds only constants.
 *
 * Text from the model (value, node, dim and file names, constraint texts) reaches OUT.c and
 * OUT.h only through put_comment_text (inside comments) and put_c_string (string literals), both
 * bounded in length.  Identifiers made from model names (model_ident) have the form KIND__NAME:
 * d__ dims, in__/out__/t__/w__/k__ buffers of inputs, outputs, temporaries, weights and folded
 * constants, Ww__ the static weight arrays; NAME holds only [A-Za-z0-9_] and is shortened, and
 * a uniqueness suffix separates names that agree.  Every identifier the compiler makes itself
 * (s<N> shape expressions, emit_tmp's STEM_<N>, the kernels' and op emitters' locals, the API)
 * is free of "__" after its first character, so the two sets can never meet
 * (tests/unit/test_names.c checks the sources for it).  Op emitters use short local names (i, j,
 * n, acc...) inside the block each node gets. */
#include "onnx2c.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct O2cTemplate {
    const char *name;
    const char *text;
} O2cTemplate;
extern const O2cTemplate o2c_templates[];

struct Emit {
    Compiler *c;
    Arena *a;
    Buf kernels, body;
    int indent;
    /* per function */
    unsigned char *sym_used; /* by Sym id */
    int sym_cap;
    Sym **syms;
    int nsyms, syms_cap;
    Sym **stack; /* mark_sym's work list */
    int nstack, stack_cap;
    bool *stack_in_poly;
    /* every Sym some function computes (NAME_check verifies them all first, overflow-free) */
    unsigned char *all_used;
    int all_cap;
    Sym **all;
    int nall, all_capn;
    int ck_used; /* CK_* helpers NAME_check calls */
    unsigned char *dim_used;
    const char **dim_local;  /* d__NAME: the local of each dim */
    const char **dim_names;  /* the dims' names, for comments */
    unsigned char *val_used; /* by Value id */
    Value **vals;
    int nvals;
    bool in_run;
    /* NAME_run with data dims: where data dim seg_dim[k] is set (emit_set_data_dim), the body's
     * byte seg_pos[k] at indentation seg_ind[k]: the Syms whose last data dim it is get their
     * values there (declared at the top, assigned there: later nodes see them) */
    int *seg_pos, *seg_dim, *seg_ind;
    int nseg, seg_cap, seg_dcap, seg_icap;
    bool force_ws; /* declare `ws` even when no temporary lives there (node scratch does) */
    int tmp_counter;
    /* whole file */
    unsigned char *val_static; /* weight array recorded (weight_expr) */
    Value **wlist;             /* the recorded arrays, in order */
    int nw, wcap;
    bool blob;                 /* --weights: the arrays go into the blob */
    uint64_t *woff;            /* blob: each recorded array's byte offset, by Value id */
    uint64_t blob_end;         /* blob: the end of the arrays so far */
    unsigned char *val_flash;  /* weight counted in the Node.flash of its first user */
    Node *node;                /* the node being emitted (NAME_run), or NULL */
    const char **tmpl_done;
    int ntmpl, tmpl_cap;
    int tmpl_depth;            /* emit_template's recursion (its dependencies) */
    Buf node_tmpls;            /* the templates the node being emitted asked for, "a+b" */
};

Arena *emit_arena(Emit *e) { return e->a; }

/* ---- text */

void emit_indent(Emit *e, int delta) { e->indent += delta; }

void emit_line(Emit *e, const char *fmt, ...) {
    for (int i = 0; i < e->indent; i++)
        buf_puts(&e->body, "    ");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&e->body, fmt, ap);
    va_end(ap);
    buf_puts(&e->body, "\n");
}

void emit_raw(Emit *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&e->body, fmt, ap);
    va_end(ap);
}

const char *emit_tmp(Emit *e, const char *stem) {
    size_t n = strlen(stem);
    O2C_ASSERT(e->c, n > 0 && stem[n - 1] != '_' && !strstr(stem, "__"));
    return arena_printf(e->a, "%s_%d", stem, ++e->tmp_counter);
}

/* ---- text from the model */

/* Writes s for use inside a C comment: printable ASCII only (other bytes and '\\' become '.'),
 * never a comment opener or closer, a "??" (a trigraph could splice lines) or a newline; at most
 * max bytes of s, then "...".  The caller puts a space or newline on both sides. */
static void put_comment_text(Buf *b, const char *s, size_t max) {
    char prev = ' ';
    size_t k = 0;
    for (; s[k] && k < max; k++) {
        char ch = s[k];
        if ((unsigned char)ch < 32 || (unsigned char)ch > 126 || ch == '\\' ||
            (ch == '/' && prev == '*') || (ch == '*' && prev == '/') || (ch == '?' && prev == '?'))
            ch = '.';
        buf_putn(b, &ch, 1);
        prev = ch;
    }
    if (s[k])
        buf_puts(b, "...");
}

const char *emit_comment_text(Emit *e, const char *s) {
    Buf b;
    buf_init_in(&b, e->a);
    put_comment_text(&b, s, 160);
    const char *r = arena_strdup(e->a, b.data ? b.data : "");
    buf_free(&b);
    return r;
}

/* An identifier for a name from the model: KIND__NAME with NAME made of [A-Za-z0-9_] (other
 * bytes become '_') and at most 40 bytes of it, unique among all such identifiers (ir_cident adds
 * a suffix).  Compiler-made identifiers never hold "__" after their first character, so none of
 * them can equal one of these. */
static const char *model_ident(Compiler *c, const char *kind, const char *name) {
    char id[64];
    size_t k = (size_t)snprintf(id, sizeof id, "%s__", kind);
    for (const char *p = name; *p && k < strlen(kind) + 2 + 40; p++)
        id[k++] = (isalnum((unsigned char)*p) || *p == '_') ? *p : '_';
    id[k] = 0;
    return ir_cident(c, "", id);
}

/* ---- symbolic expressions */

static const char *dimname_cb(int i, void *user) {
    Emit *e = user;
    e->dim_used[i] = 1;
    return e->dim_local[i];
}

/* dims[i] itself: a data dim's bound, printed where the input dims' locals may not exist */
static const char *raw_dim_cb(int i, void *user) {
    Emit *e = user;
    return arena_printf(e->a, "dims[%d]", i);
}

/* Grows a by-Sym-id flag array to hold id. */
static unsigned char *id_flags(Emit *e, unsigned char *flags, int *cap, int id) {
    return arena_reserve(e->a, flags, *cap, id + 1, cap, 256, 1);
}

/* Pushes s on mark_sym's work list; in_poly: s is a term or factor of a sum or product. */
static void push_sym(Emit *e, Sym *s, bool in_poly) {
    if (e->nstack == e->stack_cap) {
        int cap = e->stack_cap; /* the two arrays grow together */
        e->stack = arena_grow(e->a, e->stack, e->nstack, &cap, 256, sizeof(Sym *));
        e->stack_in_poly =
            arena_grow(e->a, e->stack_in_poly, e->nstack, &e->stack_cap, 256, sizeof(bool));
    }
    e->stack_in_poly[e->nstack] = in_poly;
    e->stack[e->nstack++] = s;
}

static void append_sym(Emit *e, Sym ***list, int *n, int *cap, Sym *s) {
    *list = arena_grow(e->a, *list, *n, cap, 64, sizeof(Sym *));
    (*list)[(*n)++] = s;
}

static const char *subname_cb(const Sym *s, void *user) {
    Emit *e = user;
    if (s->id < e->sym_cap && e->sym_used[s->id])
        return arena_printf(e->a, "s%d", s->id);
    return NULL;
}

/* Marks root as a local of the current function, and with it every sub-expression that is
 * not a term or factor inside a sum or product: min, max, divisions and their operands each
 * become a local of their own, computed once, so the expressions that use them stay short.
 * Sums and products inside sums and products are printed inline (in uint64_t: sym_print_c).
 * Iterative: shape expressions may nest as deep as the graph is long. */
static void mark_sym(Emit *e, Sym *root) {
    push_sym(e, root, false);
    while (e->nstack) {
        e->nstack--;
        Sym *s = e->stack[e->nstack];
        bool in_poly = e->stack_in_poly[e->nstack];
        if (s->kind == SYM_CONST || s->kind == SYM_DIM)
            continue;
        bool poly = s->kind == SYM_ADD || s->kind == SYM_MUL;
        if (!(in_poly && poly)) {
            e->sym_used = id_flags(e, e->sym_used, &e->sym_cap, s->id);
            if (e->sym_used[s->id])
                continue;
            e->sym_used[s->id] = 1;
            append_sym(e, &e->syms, &e->nsyms, &e->syms_cap, s);
        }
        for (int i = 0; i < s->n; i++)
            push_sym(e, s->args[i], poly);
    }
}

const char *emit_int(Emit *e, int64_t v) {
    if (v == INT64_MIN)
        return "(-9223372036854775807LL - 1)";
    if (v < 0)
        return arena_printf(e->a, "(%lld)", (long long)v);
    return arena_printf(e->a, "%lld", (long long)v);
}

const char *emit_sym(Emit *e, Sym *s) {
    int64_t v;
    if (sym_get_const(s, &v))
        return emit_int(e, v);
    if (s->kind == SYM_DIM)
        return dimname_cb(s->dim, e);
    mark_sym(e, s);
    return arena_printf(e->a, "s%d", s->id);
}

void emit_set_data_dim(Emit *e, Sym *dim, const char *value) {
    Graph *g = e->c->g;
    O2C_ASSERT(e->c, e->in_run && dim->kind == SYM_DIM && dim->dim >= g->nin_dims);
    /* data dims are set in the order they were made (a folded node's are never set) */
    O2C_ASSERT(e->c, dim->dim > (e->nseg ? e->seg_dim[e->nseg - 1] : g->nin_dims - 1));
    const char *d = dimname_cb(dim->dim, e);
    emit_line(e, "%s = %s;", d, value);
    if (g->dims[dim->dim].exact) { /* a declared size (ir_data_declared): nothing else */
        emit_line(e, "if (%s != %s) /* the declared size */", d, emit_sym(e, g->dims[dim->dim].bound));
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
    } else {
        emit_line(e, "if (%s > %s) /* its bound */", d, emit_sym(e, g->dims[dim->dim].bound));
        emit_line(e, "    return %d;", O2C_RUN_EBOUND);
    }
    /* the Syms that mention it (and earlier data dims) get their values here (end_function) */
    e->seg_pos = arena_grow(e->a, e->seg_pos, e->nseg, &e->seg_cap, 16, sizeof(int));
    e->seg_dim = arena_grow(e->a, e->seg_dim, e->nseg, &e->seg_dcap, 16, sizeof(int));
    e->seg_ind = arena_grow(e->a, e->seg_ind, e->nseg, &e->seg_icap, 16, sizeof(int));
    e->seg_pos[e->nseg] = (int)e->body.len;
    e->seg_ind[e->nseg] = e->indent;
    e->seg_dim[e->nseg++] = dim->dim;
}

/* Declares `QUAL int64_t STEM_k[n] = {items};` ({0} when n is 0); returns its name. */
static const char *int64_array(Emit *e, const char *qual, const char *stem, int n,
                               const char *const *items) {
    const char *name = emit_tmp(e, stem);
    Buf b;
    buf_init_in(&b, e->a);
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", items[i]);
    emit_line(e, "%sint64_t %s[%d] = {%s};", qual, name, n > 0 ? n : 1, n > 0 ? b.data : "0");
    buf_free(&b);
    return name;
}

const char *emit_sym_array(Emit *e, const char *stem, int n, Sym *const *v) {
    const char **items = arena_alloc(e->a, sizeof(char *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        items[i] = emit_sym(e, v[i]);
    return int64_array(e, "const ", stem, n, items);
}

const char *emit_batch_offset(Emit *e, int rb, Sym *const *batch, Sym *const *dims, Sym *mat) {
    SymCtx *s = e->c->sym;
    Sym *one = sym_const(s, 1), *stride = mat;
    Buf b;
    buf_init_in(&b, e->a);
    for (int d = rb - 1; d >= 0; d--) {
        if (!ir_bcast_dim(dims[d], batch[d])) {
            if (stride == one)
                buf_printf(&b, "%si%d", b.len ? " + " : "", d);
            else
                buf_printf(&b, "%si%d * %s", b.len ? " + " : "", d, emit_sym(e, stride));
        }
        stride = sym_mul(s, stride, dims[d]);
    }
    const char *r = arena_strdup(e->a, b.len ? b.data : "0");
    buf_free(&b);
    return r;
}

const char *emit_int_array(Emit *e, const char *stem, int n, const int64_t *v) {
    const char **items = arena_alloc(e->a, sizeof(char *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        items[i] = emit_int(e, v[i]);
    return int64_array(e, "static const ", stem, n, items);
}

void emit_axes_marks(Emit *e, const char *axes, const char *count, int r) {
    emit_line(e, "int mk[%d] = {0};", r > 0 ? r : 1);
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", count);
    emit_line(e, "    int64_t a = (int64_t)%s[i];", axes);
    emit_line(e, "    if (a < 0)");
    emit_line(e, "        a += %d;", r);
    emit_line(e, "    if (a < 0 || a >= %d || mk[a])", r);
    emit_line(e, "        return %d;", O2C_RUN_EDATA);
    emit_line(e, "    mk[a] = 1;");
    emit_line(e, "}");
}

/* ---- literals */

static const char *float_literal(Arena *a, double v, bool is_double) {
    if (isnan(v))
        return is_double ? "(double)NAN" : "NAN";
    if (isinf(v))
        /* tcc 0.9.27 rejects a negated INFINITY (or HUGE_VAL) in a static initializer as "not
         * constant"; an overflowing product is a constant expression for every compiler (a
         * float one for float: gcc does not fold it, and a double product would be a library
         * call on a single-precision FPU) */
        return v > 0 ? (is_double ? "(double)INFINITY" : "INFINITY")
                     : (is_double ? "(-1e300 * 1e300)" : "(-1e30f * 1e30f)");
    char tmp[64];
    snprintf(tmp, sizeof tmp, is_double ? "%.17g" : "%.9g", v);
    if (!strpbrk(tmp, ".e"))
        strcat(tmp, ".0");
    else if (strchr(tmp, 'e') && !strchr(tmp, '.')) {
        /* 1e+20 is valid C, keep it */
    }
    return arena_printf(a, "%s%s", tmp, is_double ? "" : "f");
}

const char *emit_literal(Emit *e, DType t, double v) {
    switch (t) {
    case DT_FLOAT: return float_literal(e->a, (float)v, false);
    case DT_DOUBLE: return float_literal(e->a, v, true);
    case DT_BOOL: return v != 0 ? "1" : "0";
    case DT_UINT64: return arena_printf(e->a, "%lluULL", (unsigned long long)v);
    case DT_UINT32: return arena_printf(e->a, "%luUL", (unsigned long)v);
    case DT_INT64: {
        int64_t i = (int64_t)v;
        if (i == INT64_MIN)
            return "(-9223372036854775807LL - 1)";
        return arena_printf(e->a, i < 0 ? "(%lldLL)" : "%lldLL", (long long)i);
    }
    default: {
        int64_t i = (int64_t)v;
        if (t == DT_INT32 && i == INT32_MIN)
            return "(-2147483647 - 1)";
        return arena_printf(e->a, i < 0 ? "(%lld)" : "%lld", (long long)i);
    }
    }
}

/* ---- weights
 *
 * weight_expr records a constant the first time NAME_run's prologue declares its pointer and
 * returns the expression of its base address; write_weights_c (static arrays of OUT.c) or, with
 * --weights, write_blob writes the recorded arrays at the end, in that order, one at a time, to
 * a Sink: the FILE the onnx2c command streams to, or a Buf.  A constant packed for a kernel
 * (Value.fill, gp_lazy) is made there a part at a time (WeightReader), so neither the C text of the
 * weights nor every packed copy is ever in memory (issue 15: the compiler's peak memory stays
 * within twice the model file). */

typedef struct Sink {
    Compiler *c;
    FILE *f;          /* NULL: into b */
    Buf *b;
    const char *what; /* the file's name, for a write error */
    bool hash;        /* fnv is updated by what is written */
    uint64_t fnv;     /* FNV-1a 64 */
    uint64_t n;       /* bytes written */
} Sink;

enum { SINK_FLUSH = 1 << 16 }; /* text is handed to a FILE in pieces of about this size */

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static void sink_putn(Sink *s, const void *p, size_t n) {
    const unsigned char *q = p;
    if (s->hash) {
        uint64_t h = s->fnv;
        for (size_t i = 0; i < n; i++)
            h = (h ^ q[i]) * FNV_PRIME;
        s->fnv = h;
    }
    s->n += n;
    if (!s->f)
        buf_putn(s->b, p, n);
    else if (n && (errno = 0, fwrite(p, 1, n, s->f) != n))
        o2c_ioerror(s->c, "cannot write '%s': %s", s->what, strerror(errno ? errno : EIO));
}

static void sink_puts(Sink *s, const char *t) { sink_putn(s, t, strlen(t)); }

/* Hands the text gathered in tx to the sink and empties tx (its memory is kept). */
static void sink_flush(Sink *s, Buf *tx) {
    if (tx->len)
        sink_putn(s, tx->data, tx->len);
    tx->len = 0;
    if (tx->data)
        tx->data[0] = 0;
}

/* Writes the elements of a small tensor as literals of its type. */
static void write_literals(Emit *e, Buf *b, DType t, const void *data, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (i)
            buf_puts(b, (i % 8) ? ", " : ",\n    ");
        switch (t) {
        case DT_FLOAT: buf_puts(b, float_literal(e->a, ((const float *)data)[i], false)); break;
        case DT_DOUBLE: buf_puts(b, float_literal(e->a, ((const double *)data)[i], true)); break;
        case DT_INT8: buf_printf(b, "%d", ((const int8_t *)data)[i]); break;
        case DT_INT16: buf_printf(b, "%d", ((const int16_t *)data)[i]); break;
        case DT_INT32: {
            int32_t x = ((const int32_t *)data)[i];
            if (x == INT32_MIN)
                buf_puts(b, "(-2147483647 - 1)");
            else
                buf_printf(b, "%ld", (long)x);
            break;
        }
        case DT_INT64: {
            int64_t x = ((const int64_t *)data)[i];
            if (x == INT64_MIN)
                buf_puts(b, "(-9223372036854775807LL - 1)");
            else
                buf_printf(b, "%lldLL", (long long)x);
            break;
        }
        case DT_UINT8: case DT_BOOL: buf_printf(b, "%u", ((const uint8_t *)data)[i]); break;
        case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16:
            buf_printf(b, "%u", ((const uint16_t *)data)[i]);
            break;
        case DT_UINT32: buf_printf(b, "%luUL", (unsigned long)((const uint32_t *)data)[i]); break;
        case DT_UINT64: buf_printf(b, "%lluULL", (unsigned long long)((const uint64_t *)data)[i]); break;
        default: buf_puts(b, "0"); break;
        }
    }
}

/* Large tensors are written as rows of string literals (exact bytes, compact, and cheap for
 * compilers to parse: a ResNet-18 compiles in seconds where a 12-million-element initializer
 * takes gcc minutes and gigabytes).  Each literal stays under C99's 4095-character minimum
 * limit; octal escapes are always three digits and '?' is escaped (no trigraphs).
 *
 * The array is as long as the tensor, not rounded up to whole rows: a struct of the full rows
 * `b[rows][ROW_BYTES]` and the short rest `t[rest]` (each only when not empty: C99 has no
 * zero-length arrays), inside a union with a double so the data is aligned for any element
 * type.  Both members are arrays of unsigned char, whose alignment is 1, so no padding goes
 * between them (the ABIs onnx2c targets pad a member only up to its alignment): t follows the
 * last row and the bytes are contiguous from the union's address.  sizeof is the byte count
 * rounded up to 8 (the double); tests/unit/test_weights.c checks it. */
#define ROW_BYTES 1024
static void write_literal_row(Buf *b, const unsigned char *p, size_t n) {
    char line[ROW_BYTES * 4 + 8];
    size_t k = 0;
    line[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = p[i];
        if (ch >= 32 && ch < 127 && ch != '"' && ch != '\\' && ch != '?')
            line[k++] = (char)ch;
        else {
            line[k++] = '\\';
            line[k++] = (char)('0' + (ch >> 6));
            line[k++] = (char)('0' + ((ch >> 3) & 7));
            line[k++] = (char)('0' + (ch & 7));
        }
    }
    line[k++] = '"';
    buf_putn(b, line, k);
}

typedef struct WeightReader WeightReader;
static void wr_read(WeightReader *r, unsigned char *dst, size_t n);

/* The union of one big array of nbytes bytes read from r, its text gathered in tx and handed to
 * s row by row. */
static void write_bytes_union(Sink *s, Buf *tx, const char *name, WeightReader *r,
                              size_t nbytes) {
    unsigned char row[ROW_BYTES];
    size_t rows = nbytes / ROW_BYTES, rest = nbytes % ROW_BYTES;
    buf_puts(tx, "static const union { struct {");
    if (rows)
        buf_printf(tx, " unsigned char b[%zu][%d];", rows, ROW_BYTES);
    if (rest)
        buf_printf(tx, " unsigned char t[%zu];", rest);
    buf_printf(tx, " } s; double align_; } %s = {{", name);
    if (rows) {
        buf_puts(tx, "{\n");
        for (size_t k = 0; k < rows; k++) {
            wr_read(r, row, ROW_BYTES);
            write_literal_row(tx, row, ROW_BYTES);
            buf_puts(tx, k + 1 < rows ? ",\n" : "\n}");
            if (tx->len >= SINK_FLUSH)
                sink_flush(s, tx);
        }
    }
    if (rest) {
        buf_puts(tx, rows ? ",\n" : "\n");
        wr_read(r, row, rest);
        write_literal_row(tx, row, rest);
    }
    buf_puts(tx, "}};\n");
}

static const char *value_cname(Emit *e, Value *v, const char *kind) {
    if (!v->cname)
        v->cname = model_ident(e->c, kind, v->name);
    return v->cname;
}

static bool is_weight(const Value *v) { return v->data || v->fill; }

static size_t weight_bytes(const Value *v) {
    int64_t n = ir_known_len(v);
    return (size_t)(n > 0 ? n : 0) * dtype_size(v->dtype);
}

/* The static array of v ("W" + its pointer's name: `const float *const w__x = w__x;` would read
 * itself; no other identifier starts with "Ww__"). */
static const char *weight_array(Emit *e, Value *v) {
    return arena_printf(e->a, "W%s", value_cname(e, v, "w"));
}

/* Records v's array (once) and returns the expression of its base pointer. */
static const char *weight_expr(Emit *e, Value *v) {
    if (!e->val_static[v->id]) {
        e->val_static[v->id] = 1;
        e->wlist = arena_grow(e->a, e->wlist, e->nw, &e->wcap, 64, sizeof *e->wlist);
        e->wlist[e->nw++] = v;
        if (e->blob) { /* arrays at multiples of 64 bytes after the 64-byte header */
            e->woff[v->id] = (e->blob_end + 63) / 64 * 64;
            e->blob_end = e->woff[v->id] + weight_bytes(v);
        }
    }
    const char *ct = dtype_ctype(v->dtype);
    if (e->blob)
        return arena_printf(e->a, "(const %s *)(const void *)(o2c_wb + %llu)", ct,
                            (unsigned long long)e->woff[v->id]);
    if (ir_known_len(v) > 64)
        return arena_printf(e->a, "(const %s *)(const void *)&%s", ct, weight_array(e, v));
    return weight_array(e, v);
}

/* Reads a weight's bytes in order: from its data, or part by part as its fill makes them, one
 * part in memory at a time. */
typedef struct WeightReader {
    Emit *e;
    const Value *v;
    const unsigned char *p; /* the bytes at hand */
    size_t n;               /* their count */
    int64_t next;           /* the next part to make */
    unsigned char *block;   /* the parts' memory (arena_block), or NULL */
    size_t es, cap;
} WeightReader;

static void wr_open(WeightReader *r, Emit *e, const Value *v) {
    memset(r, 0, sizeof *r);
    r->e = e;
    r->v = v;
    r->es = dtype_size(v->dtype);
    if (v->data) {
        r->p = v->data;
        r->n = weight_bytes(v);
        return;
    }
    r->cap = (size_t)v->fill->max * r->es;
    r->block = arena_block(e->a, NULL, r->cap);
}

/* The next bytes (at most max of them), or NULL at the end; *n receives their count. */
static const unsigned char *wr_next(WeightReader *r, size_t max, size_t *n) {
    while (!r->n && r->block && r->next < r->v->fill->nparts) {
        memset(r->block, 0, r->cap);
        int64_t k = r->v->fill->part(r->v->fill->arg, r->next++, r->block);
        O2C_ASSERT(r->e->c, k >= 0 && (size_t)k * r->es <= r->cap);
        r->p = r->block;
        r->n = (size_t)k * r->es;
    }
    if (!r->n)
        return NULL;
    const unsigned char *p = r->p;
    *n = r->n < max ? r->n : max;
    r->p += *n;
    r->n -= *n;
    return p;
}

/* Copies the next n bytes into dst (the weight has them). */
static void wr_read(WeightReader *r, unsigned char *dst, size_t n) {
    while (n) {
        size_t k = 0;
        const unsigned char *p = wr_next(r, n, &k);
        O2C_ASSERT(r->e->c, p != NULL);
        memcpy(dst, p, k);
        dst += k;
        n -= k;
    }
}

static void wr_close(WeightReader *r) { arena_block_free(r->e->a, r->block); }

/* The recorded arrays as static const data of OUT.c. */
static void write_weights_c(Emit *e, Sink *s) {
    Buf tx;
    buf_init_in(&tx, e->a);
    for (int i = 0; i < e->nw; i++) {
        Value *v = e->wlist[i];
        int64_t n = ir_known_len(v);
        buf_puts(&tx, "/* ");
        put_comment_text(&tx, v->name, 160);
        buf_printf(&tx, ": %s[", dtype_name(v->dtype));
        for (int d = 0; d < v->rank; d++) {
            int64_t k = 0;
            sym_get_const(v->shape[d], &k);
            buf_printf(&tx, "%s%lld", d ? "," : "", (long long)k);
        }
        buf_puts(&tx, "] */\n");
        if (v->pp_if)
            buf_printf(&tx, "#if %s\n", v->pp_if);
        WeightReader r;
        wr_open(&r, e, v);
        if (n > 64)
            write_bytes_union(s, &tx, weight_array(e, v), &r, weight_bytes(v));
        else {
            unsigned char small[64 * 8];
            wr_read(&r, small, weight_bytes(v));
            buf_printf(&tx, "static const %s %s[%lld] = {", dtype_ctype(v->dtype),
                       weight_array(e, v), (long long)(n > 0 ? n : 1));
            if (n > 0)
                write_literals(e, &tx, v->dtype, small, n);
            else
                buf_puts(&tx, "0");
            buf_puts(&tx, "};\n");
        }
        wr_close(&r);
        if (v->pp_if)
            buf_puts(&tx, "#endif\n");
        if (tx.len >= SINK_FLUSH)
            sink_flush(s, &tx);
    }
    sink_flush(s, &tx);
    buf_free(&tx);
}

/* ---- buffers */

const char *emit_ptr(Emit *e, Value *v) {
    O2C_ASSERT(e->c, e->in_run);
    if (!e->val_used[v->id]) {
        e->val_used[v->id] = 1;
        e->vals[e->nvals++] = v;
    }
    /* --report: flash by node; of two alternative arrays (#if X / #if !X: Value.pp_if) only the
     * first, as a target compiles one of them */
    if (is_weight(v) && e->node && !e->val_flash[v->id] && !(v->pp_if && v->pp_if[0] == '!')) {
        e->val_flash[v->id] = 1;
        e->node->flash += ir_known_len(v) * (int64_t)dtype_size(v->dtype);
    }
    if (is_weight(v) || v->kv)
        return value_cname(e, v, is_weight(v) ? "w" : "k");
    if (v->kind == VAL_INPUT)
        return value_cname(e, v, "in");
    if (v->is_output)
        return value_cname(e, v, "out");
    return value_cname(e, v, "t");
}

/* Declares the pointer of one buffer in the run prologue. */
static void declare_value(Emit *e, Buf *b, Value *v) {
    const char *ct = dtype_ctype(v->dtype);
    if (is_weight(v)) {
        if (v->pp_if)
            buf_printf(b, "#if %s\n", v->pp_if);
        buf_printf(b, "    const %s *const %s = %s;\n", ct, v->cname, weight_expr(e, v));
        if (v->pp_if)
            buf_puts(b, "#endif\n");
    } else if (v->kv) {
        int64_t n = ir_known_len(v);
        buf_printf(b, "    const %s %s[%lld] = {", ct, v->cname, (long long)(n > 0 ? n : 1));
        for (int64_t i = 0; i < n; i++)
            buf_printf(b, "%s(%s)%s", i ? ", " : "", ct, emit_sym(e, v->kv[i]));
        if (n == 0)
            buf_puts(b, "0");
        buf_puts(b, "};\n");
    } else if (v->kind == VAL_INPUT) {
        buf_printf(b, "    const %s *const %s = (const %s *)inputs[%d];\n", ct, v->cname, ct,
                   v->input_index);
    } else if (v->is_output) {
        buf_printf(b, "    %s *const %s = (%s *)outputs[%d];\n", ct, v->cname, ct, v->output_index);
    } else {
        O2C_ASSERT(e->c, v->offset != NULL);
        buf_printf(b, "    %s *const %s = (%s *)(void *)(ws + %s);\n", ct, v->cname, ct,
                   emit_sym(e, v->offset));
    }
}

/* ---- templates */

static bool is_ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* The type placeholders of templates/NAME.c, which compile alone and so name them as plain C
 * identifiers (expand.c's EXPAND_IDENT): the identifier T is the C type of *user (a DType),
 * the suffix _T of an identifier the type's suffix; nothing for DT_UNDEFINED. */
static bool type_key(Buf *out, const char *id, size_t len, void *user) {
    DType t = *(const DType *)user;
    if (t == DT_UNDEFINED)
        return false;
    if (expand_key_is(id, len, "T")) {
        buf_puts(out, dtype_ctype(t));
        return true;
    }
    if (len > 2 && id[len - 2] == '_' && id[len - 1] == 'T') {
        buf_putn(out, id, len - 1);
        buf_puts(out, dtype_suffix(t));
        return true;
    }
    return false;
}

/* Instantiates a template: drops the `#ifndef O2C_TEMPLATE ... #endif` block that lets the file
 * compile on its own (and the newlines after it) and replaces the type placeholders. */
static void instantiate(Emit *e, const char *text, DType t) {
    const char *skip = strstr(text, "#ifndef O2C_TEMPLATE\n");
    const char *skip_end = skip ? strstr(skip, "#endif") : NULL;
    expand(&e->kernels, text, skip_end ? skip : NULL, EXPAND_IDENT, type_key, &t);
    if (skip_end) {
        const char *p = skip_end + 6;
        while (*p == '\n')
            p++;
        expand(&e->kernels, p, NULL, EXPAND_IDENT, type_key, &t);
    }
    buf_puts(&e->kernels, "\n");
}

const char *emit_template(Emit *e, const char *name, DType t) {
    if (e->node && e->tmpl_depth == 0) { /* what the node asked for, for its --report kernel */
        const char *p = e->node_tmpls.data;
        size_t n = strlen(name);
        bool seen = false;
        for (; p && *p && !seen; p = strchr(p, '+') ? strchr(p, '+') + 1 : "")
            seen = strncmp(p, name, n) == 0 && (p[n] == '+' || p[n] == 0);
        if (!seen)
            buf_printf(&e->node_tmpls, "%s%s", e->node_tmpls.len ? "+" : "", name);
    }
    const char *key = arena_printf(e->a, "%s/%d", name, (int)t);
    const char *sfx = t == DT_UNDEFINED ? "" : dtype_suffix(t);
    for (int i = 0; i < e->ntmpl; i++)
        if (strcmp(e->tmpl_done[i], key) == 0)
            return sfx;
    const O2cTemplate *tp = o2c_templates;
    while (tp->name && strcmp(tp->name, name) != 0)
        tp++;
    O2C_ASSERT(e->c, tp->name != NULL);
    e->tmpl_done = arena_grow(e->a, (void *)e->tmpl_done, e->ntmpl, &e->tmpl_cap, 16,
                              sizeof(char *));
    e->tmpl_done[e->ntmpl++] = key;
    /* dependencies (same element type): the templates the file includes to compile on its
     * own, the lines `#include "NAME.c"` of its `#ifndef O2C_TEMPLATE` block (which
     * instantiate drops), in their order */
    const char *blk = strstr(tp->text, "#ifndef O2C_TEMPLATE\n");
    const char *end = blk ? strstr(blk, "#endif") : NULL;
    for (const char *p = blk ? strstr(blk, "#include \"") : NULL; p && p < end;
         p = strstr(p + 1, "#include \"")) {
        char dep[64];
        size_t k = 0;
        const char *q = p + 10;
        for (; is_ident_char(*q) && k + 1 < sizeof dep; q++)
            dep[k++] = *q;
        dep[k] = 0;
        if (strncmp(q, ".c\"", 3) == 0) { /* (not o2c_template.h) */
            e->tmpl_depth++;
            emit_template(e, dep, t);
            e->tmpl_depth--;
        }
    }
    instantiate(e, tp->text, t);
    return sfx;
}

void emit_kernel(Emit *e, const char *fmt, ...) {
    if (!e->node)
        return;
    va_list ap;
    va_start(ap, fmt);
    e->node->kernel = arena_vprintf(e->a, fmt, ap);
    va_end(ap);
}

void emit_kernel_fn(Emit *e, const char *name, const char *fmt, ...) {
    va_list ap;
    for (int i = 0; i < e->ntmpl; i++)
        if (strcmp(e->tmpl_done[i], name) == 0)
            return;
    /* (a template's key is NAME/TYPE: no function name is one) */
    e->tmpl_done = arena_grow(e->a, (void *)e->tmpl_done, e->ntmpl, &e->tmpl_cap, 16,
                              sizeof(char *));
    e->tmpl_done[e->ntmpl++] = arena_strdup(e->a, name);
    va_start(ap, fmt);
    buf_vprintf(&e->kernels, fmt, ap);
    va_end(ap);
    buf_puts(&e->kernels, "\n");
}

/* ---- elementwise loops */

/* The placeholders of emit_elementwise's expression (see onnx2c.h): $0..$9 the input
 * elements, $y the output C type, $t0..$t9 the input C types. */
typedef struct EwKeys {
    Compiler *c;
    Value *out;
    int nin;
    Value *const *ins;
    const char *const *idx; /* the input elements */
} EwKeys;

/* The input number of a key "<prefix>K" for one digit K, or -1. */
static int ew_input(const EwKeys *k, const char *key, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    if (len != n + 1 || memcmp(key, prefix, n) != 0 || !isdigit((unsigned char)key[n]))
        return -1;
    int i = key[n] - '0';
    O2C_ASSERT(k->c, i < k->nin);
    return i;
}

static bool ew_key(Buf *out, const char *key, size_t len, void *user) {
    const EwKeys *k = user;
    int i;
    if ((i = ew_input(k, key, len, "")) >= 0)
        buf_puts(out, k->idx[i]);
    else if ((i = ew_input(k, key, len, "t")) >= 0)
        buf_puts(out, dtype_ctype(k->ins[i]->dtype));
    else if (expand_key_is(key, len, "y"))
        buf_puts(out, dtype_ctype(k->out->dtype));
    else
        return false;
    return true;
}

/* Elements from which an elementwise loop runs on the OpenMP threads (a few microseconds of
 * work on one core: a fork and join of warm threads costs about 1 us; and the operands come
 * from a layer that ran on the threads, half of them in the other core's cache: the face
 * detector's residual Add over 64 x 40 x 40 took 6 us on one thread, 9 us on one of two) */
#define EW_PAR_MIN 65536

void emit_elementwise(Emit *e, Node *n, Value *out, int nin, Value *const *ins, const char *expr) {
    Compiler *c = e->c;
    SymCtx *s = c->sym;
    int r = out->rank;
    Sym *one = sym_const(s, 1);
    const char *idx[10];
    bool flat = true;
    for (int k = 0; k < nin; k++) {
        Value *v = ins[k];
        bool same = v->rank == r;
        for (int d = 0; same && d < r; d++)
            same = v->shape[d] == out->shape[d];
        if (!same && ir_numel(c, v) != one)
            flat = false;
    }
    (void)n;
    const char *y = emit_ptr(e, out);
    Buf ix;
    buf_init_in(&ix, c->arena);
    /* Adjacent output dims merge into one loop when every input is read the same way along
     * them (present in it, or broadcast; dims of extent 1 go with any): x * s[c] over N x C x H
     * x W is 2 loops, the inner one over a whole plane the vectoriser can use, not 4 loops
     * with rows of 7 or 14.  gext: a loop's extent; glast: its last dim; gst: how each input
     * is read along it. */
    int ng = 0;
    int *glast = arena_alloc(e->a, sizeof(int) * (size_t)(r + 1));
    Sym **gext = arena_alloc(e->a, sizeof(Sym *) * (size_t)(r + 1));
    signed char *gst = arena_alloc(e->a, (size_t)(r + 1) * (size_t)(nin + 1)); /* -1 unset */
    signed char *rd = arena_alloc(e->a, (size_t)nin + 1); /* how each input is read along a dim */
    if (!flat && r > 0) {
        for (int d = 0; d < r; d++) {
            bool trivial = out->shape[d] == one, fits = ng > 0;
            for (int k = 0; k < nin; k++) {
                int vd = d - (r - ins[k]->rank);
                Sym *id = vd >= 0 ? ins[k]->shape[vd] : one;
                /* 0: broadcast, 1: read along it, 2: decided at run time (a loop of its own) */
                rd[k] = (signed char)(vd < 0 || ir_bcast_dim(id, out->shape[d]) ? 0
                                      : id == out->shape[d] || sym_is_const(id) ? 1
                                                                                  : 2);
                if (fits && !trivial &&
                    (rd[k] == 2 || gst[(ng - 1) * nin + k] == 2 ||
                     (gst[(ng - 1) * nin + k] >= 0 && gst[(ng - 1) * nin + k] != rd[k])))
                    fits = false;
            }
            if (!fits) {
                gext[ng] = one;
                for (int k = 0; k < nin; k++)
                    gst[ng * nin + k] = -1;
                ng++;
            }
            glast[ng - 1] = d;
            gext[ng - 1] = sym_mul(s, gext[ng - 1], out->shape[d]);
            if (!trivial)
                for (int k = 0; k < nin; k++)
                    gst[(ng - 1) * nin + k] = rd[k];
        }
    }
    /* built with OpenMP, a large output is shared among the threads (the outer loops collapsed,
     * the innermost one left whole for the vectoriser).  A static size decides here: no region
     * at all below EW_PAR_MIN (one that ran on a single thread would still cost a system call).
     * A symbolic one decides at run time (o2c_par): the loops are written twice, the parallel
     * copy first; the size is the loops' own extents (a local made only for the test would be
     * unused without OpenMP). */
    const char *pragma = NULL, *par_cond = NULL;
    size_t loops_at = 0;
    if (r > 0 && (flat || ng > 1)) {
        int64_t nv;
        pragma = flat || ng == 2
                     ? "#pragma omp parallel for schedule(static)"
                     : arena_printf(e->a, "#pragma omp parallel for collapse(%d) schedule(static)",
                                    ng - 1);
        if (sym_get_const(ir_numel(c, out), &nv)) {
            if (nv >= EW_PAR_MIN) {
                emit_line(e, "#ifdef _OPENMP");
                emit_line(e, "%s", pragma);
                emit_line(e, "#endif");
            }
        } else {
            Buf size;
            buf_init_in(&size, c->arena);
            if (flat)
                buf_puts(&size, emit_sym(e, ir_numel(c, out)));
            else
                for (int g = 0; g < ng; g++)
                    buf_printf(&size, "%s(%s)", g ? " * " : "", emit_sym(e, gext[g]));
            par_cond = arena_printf(e->a, "o2c_par(%s >= %d)", size.data, EW_PAR_MIN);
            buf_free(&size);
            emit_template(e, "o2c_target", out->dtype);
            loops_at = e->body.len;
        }
    }
    if (flat || r == 0) {
        emit_line(e, "for (int64_t i = 0; i < %s; i++) {", emit_sym(e, ir_numel(c, out)));
        for (int k = 0; k < nin; k++)
            idx[k] = arena_printf(e->a, "%s[%s]", emit_ptr(e, ins[k]),
                                  ir_numel(c, ins[k]) == one && r > 0 ? "0"
                                  : r == 0                          ? "0"
                                                                    : "i");
        buf_printf(&ix, "%s[i]", y);
        if (r == 0) {
            buf_free(&ix);
            buf_init_in(&ix, c->arena);
            buf_printf(&ix, "%s[0]", y);
        }
        emit_indent(e, 1);
    } else {
        for (int g = 0; g < ng; g++) {
            emit_line(e, "for (int64_t i%d = 0; i%d < %s; i%d++) {", g, g, emit_sym(e, gext[g]), g);
            emit_indent(e, 1);
        }
        /* output index: row-major, a loop's stride that of its last dim */
        Sym **ostride = arena_alloc(e->a, sizeof(Sym *) * (size_t)r);
        Sym *stride = one;
        for (int d = r - 1; d >= 0; d--) {
            ostride[d] = stride;
            stride = sym_mul(s, stride, out->shape[d]);
        }
        Buf terms;
        buf_init_in(&terms, c->arena);
        for (int g = 0; g < ng; g++) {
            Sym *os = ostride[glast[g]];
            if (os == one)
                buf_printf(&terms, "%si%d", terms.len ? " + " : "", g);
            else
                buf_printf(&terms, "%si%d * %s", terms.len ? " + " : "", g, emit_sym(e, os));
        }
        buf_printf(&ix, "%s[%s]", y, terms.data);
        buf_free(&terms);
        for (int k = 0; k < nin; k++) {
            Value *v = ins[k];
            Buf t;
            buf_init_in(&t, c->arena);
            Sym **ist = arena_alloc(e->a, sizeof(Sym *) * (size_t)(v->rank + 1));
            Sym *st = one;
            for (int d = v->rank - 1; d >= 0; d--) {
                ist[d] = st;
                st = sym_mul(s, st, v->shape[d]);
            }
            for (int g = 0; g < ng; g++) {
                int vd = glast[g] - (r - v->rank);
                if (gst[g * nin + k] < 1 || vd < 0)
                    continue; /* broadcast along this loop (or all its dims are 1) */
                /* decided at run time: the stride times min(dim - 1, 1), 0 for a dim of 1 */
                Sym *gs = gst[g * nin + k] == 2
                              ? sym_mul(s, ist[vd], sym_min(s, sym_sub(s, v->shape[vd], one), one))
                              : ist[vd];
                if (gs == one)
                    buf_printf(&t, "%si%d", t.len ? " + " : "", g);
                else
                    buf_printf(&t, "%si%d * %s", t.len ? " + " : "", g, emit_sym(e, gs));
            }
            idx[k] = arena_printf(e->a, "%s[%s]", emit_ptr(e, v), t.len ? t.data : "0");
            buf_free(&t);
        }
    }
    Buf ex;
    buf_init_in(&ex, c->arena);
    EwKeys keys = {c, out, nin, ins, idx};
    expand(&ex, expr, NULL, EXPAND_DOLLAR, ew_key, &keys);
    emit_line(e, "%s = %s;", ix.data, ex.data);
    int depth = (flat || r == 0) ? 1 : ng;
    for (int d = 0; d < depth; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    if (par_cond) {
        /* the loops (one statement) as written, then: if (o2c_par) { pragma; loops } else
         * loops, the parallel copy indented one more level */
        const char *loops = arena_printf(e->a, "%s", e->body.data + loops_at);
        e->body.len = loops_at;
        e->body.data[loops_at] = 0;
        emit_line(e, "#ifdef _OPENMP");
        emit_line(e, "if (%s) {", par_cond);
        emit_line(e, "%s", pragma);
        for (const char *l = loops; *l;) {
            const char *nl = strchr(l, '\n');
            size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);
            emit_raw(e, "    %.*s", (int)len, l);
            l += len;
        }
        emit_line(e, "} else");
        emit_line(e, "#endif");
        buf_puts(&e->body, loops);
    }
    buf_free(&ex);
    buf_free(&ix);
}

/* A loop of one statement that runs on the OpenMP threads when o2c_par(cond) (templates/
 * o2c_target.c: enough work, more than one thread, no enclosing region) and as a plain loop
 * otherwise: written twice, the parallel copy first, so that serial work enters no region. */
void emit_par_for(Emit *e, const char *cond, const char *head, const char *stmt) {
    emit_line(e, "#ifdef _OPENMP");
    emit_line(e, "if (o2c_par(%s)) {", cond);
    emit_line(e, "#pragma omp parallel for schedule(static)");
    emit_line(e, "    %s", head);
    emit_line(e, "        %s", stmt);
    emit_line(e, "} else");
    emit_line(e, "#endif");
    emit_line(e, "%s", head);
    emit_line(e, "    %s", stmt);
}

/* ---- functions */

static void begin_function(Emit *e) {
    Graph *g = e->c->g;
    buf_free(&e->body);
    buf_init_in(&e->body, e->a);
    e->indent = 1;
    e->nsyms = 0;
    if (e->sym_cap)
        memset(e->sym_used, 0, (size_t)e->sym_cap);
    e->dim_used = arena_alloc(e->a, (size_t)g->ndims + 1);
    e->val_used = arena_alloc(e->a, (size_t)g->nvalues + 1);
    e->vals = arena_alloc(e->a, sizeof(Value *) * (size_t)(g->nvalues + 1));
    e->nvals = 0;
    e->tmp_counter = 0;
    e->force_ws = false;
}

static int cmp_sym_id(const void *a, const void *b) {
    const Sym *x = *(Sym *const *)a, *y = *(Sym *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Records s (not a constant or a dim) among the Syms NAME_check verifies. */
static void note_checked(Emit *e, Sym *s) {
    s = ir_data_bounded(e->c, s); /* a data dim is at most its bound (sizes grow with dims) */
    if (s->kind == SYM_CONST || s->kind == SYM_DIM)
        return;
    e->all_used = id_flags(e, e->all_used, &e->all_cap, s->id);
    if (e->all_used[s->id])
        return;
    e->all_used[s->id] = 1;
    append_sym(e, &e->all, &e->nall, &e->all_capn, s);
}

/* Writes "signature {" prologue body "}" to out. */
/* guard: statements before anything reads dims (argument checks); pre: statements after the
 * dims are read but before the Syms and buffers are computed. */
static void end_function(Emit *e, Buf *out, const char *signature, const char *guard, const char *pre) {
    Graph *g = e->c->g;
    Buf decl;
    buf_init_in(&decl, e->a);
    /* buffer pointers first: they may mention more Syms (offsets, known values) */
    Buf ptrs;
    buf_init_in(&ptrs, e->a);
    bool uses_ws = false;
    for (int i = 0; i < e->nvals; i++) {
        Value *v = e->vals[i];
        uses_ws |= !is_weight(v) && !v->kv && v->kind == VAL_TEMP && !v->is_output;
        declare_value(e, &ptrs, v);
    }
    /* Sym locals, children before parents (ids grow with construction) */
    Buf syms;
    buf_init_in(&syms, e->a);
    if (e->nsyms > 1)
        qsort(e->syms, (size_t)e->nsyms, sizeof(Sym *), cmp_sym_id);
    /* in NAME_run, a Sym that mentions data dims is declared after the node computing them */
    Buf *seg = e->in_run && e->nseg ? arena_alloc(e->a, sizeof(Buf) * (size_t)e->nseg) : NULL;
    for (int k = 0; seg && k < e->nseg; k++)
        buf_init_in(&seg[k], e->a);
    for (int i = 0; i < e->nsyms; i++) {
        Buf *to = &syms;
        /* (outside NAME_run a data dim's local is its entry or its bound, from the start) */
        int dd = e->in_run ? ir_last_data_dim(e->c, e->syms[i]) : -1;
        if (dd >= 0) {
            int k = 0;
            while (seg && k < e->nseg && e->seg_dim[k] != dd)
                k++;
            O2C_ASSERT(e->c, seg && k < e->nseg);
            to = &seg[k];
            buf_printf(&syms, "    int64_t s%d = 0;\n", e->syms[i]->id);
            buf_printf(to, "%*ss%d = ", 4 * e->seg_ind[k], "", e->syms[i]->id);
        } else
            buf_printf(to, "    const int64_t s%d = ", e->syms[i]->id);
        sym_print_c_named(to, e->syms[i], dimname_cb, subname_cb, e);
        buf_puts(to, ";\n");
        note_checked(e, e->syms[i]);
    }
    for (int i = 0; i < g->ndims; i++) {
        if (!e->dim_used[i])
            continue;
        if (i < g->nin_dims)
            buf_printf(&decl, "    const int64_t %s = dims[%d];\n", e->dim_local[i], i);
        else if (e->in_run) /* set by its node (emit_set_data_dim) */
            buf_printf(&decl, "    int64_t %s = 0;\n", e->dim_local[i]);
        else { /* after the run its value, before it its bound (CONTRACT §2b) */
            buf_printf(&decl, "    const int64_t %s = dims[%d] >= 0 ? dims[%d] : ", e->dim_local[i], i, i);
            sym_print_c(&decl, g->dims[i].bound, raw_dim_cb, e);
            buf_puts(&decl, ";\n");
            note_checked(e, g->dims[i].bound);
        }
    }
    buf_printf(out, "%s {\n", signature);
    if (guard)
        buf_puts(out, guard);
    buf_puts(out, decl.data ? decl.data : "");
    if (pre)
        buf_puts(out, pre);
    buf_puts(out, syms.data ? syms.data : "");
    /* a workspace of 0 bytes may be NULL, and even NULL + 0 is undefined in C: ws points
     * to a local then (every offset is 0, nothing is read or written there) */
    if (uses_ws || e->force_ws)
        buf_puts(out, "    double ws_none[1];\n"
                      "    unsigned char *const ws = workspace ? (unsigned char *)workspace "
                      ": (unsigned char *)ws_none;\n");
    if (!uses_ws && e->force_ws)
        buf_puts(out, "    (void)ws;\n");
    buf_puts(out, ptrs.data ? ptrs.data : "");
    size_t at = 0;
    for (int k = 0; seg && k < e->nseg; k++) {
        buf_putn(out, e->body.data + at, (size_t)e->seg_pos[k] - at);
        at = (size_t)e->seg_pos[k];
        buf_puts(out, seg[k].data ? seg[k].data : "");
        buf_free(&seg[k]);
    }
    buf_puts(out, e->body.data ? e->body.data + at : "");
    buf_puts(out, "}\n\n");
    buf_free(&decl);
    buf_free(&ptrs);
    buf_free(&syms);
}

/* ---- the generated API */

static void upper(char *dst, const char *src, size_t n) {
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)toupper((unsigned char)src[i]);
    dst[i] = 0;
}

/* The human form of one dim for comments: bounded in length, whatever the nesting. */
static const char *dim_text(Emit *e, Sym *d) {
    return sym_str_max(e->a, d, e->dim_names, 80);
}

static const char *shape_str(Emit *e, const Value *v) {
    Buf b;
    buf_init_in(&b, e->a);
    buf_puts(&b, "[");
    for (int i = 0; i < v->rank && b.len < 400; i++)
        buf_printf(&b, "%s%s", i ? "," : "", dim_text(e, v->shape[i]));
    buf_puts(&b, "]");
    const char *s = arena_strdup(e->a, b.data);
    buf_free(&b);
    return s;
}

/* The model file's base name, for the first comment of OUT.c and OUT.h. */
static const char *model_base(Compiler *c) {
    const char *base = strrchr(c->path, '/');
    return base ? base + 1 : c->path;
}

/* --weights: the blob's file name as FILE.S includes it (its last path component). */
static const char *weights_file_name(Compiler *c) {
    const char *n = c->opt->weights_name ? c->opt->weights_name : "weights.bin";
    const char *b = strrchr(n, '/');
    return b ? b + 1 : n;
}

/* blob: 0, or with --weights the blob's size in bytes */
static void write_header(Compiler *c, Buf *h, uint64_t blob) {
    Graph *g = c->g;
    const char *P = c->prefix;
    char U[256];
    upper(U, P, sizeof U);
    buf_printf(h, "/* %s.h - generated by onnx2c %s from ", P, O2C_VERSION);
    put_comment_text(h, model_base(c), 160);
    buf_puts(h, ". Do not edit. */\n");
    buf_printf(h, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n", U, U);
    buf_puts(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    buf_printf(h, "#define %s_NUM_DIMS    %d\n", U, g->nin_dims);
    buf_printf(h, "#define %s_NUM_DATA_DIMS %d /* sizes decided by tensor data: dims[%s_NUM_DIMS..] */\n",
               U, g->ndims - g->nin_dims, U);
    buf_printf(h, "#define %s_NUM_INPUTS  %d\n", U, g->ninputs);
    buf_printf(h, "#define %s_NUM_OUTPUTS %d\n", U, g->noutputs);
    if (g->ndims) {
        buf_puts(h, "enum {");
        for (int i = 0; i < g->ndims; i++) {
            char du[256];
            upper(du, g->dims[i].cname, sizeof du);
            buf_printf(h, "%s %s_DIM_%s = %d", i ? "," : "", U, du, i);
        }
        buf_puts(h, " };\n");
    }
    if (g->workspace_max >= 0)
        buf_printf(h, "#define %s_WORKSPACE_MAX %lldu /* bytes: bounds %s_workspace_size for dims within --max */\n",
                   U, (long long)g->workspace_max, c->prefix);
    buf_puts(h, "\n/* Dim names, in enum order (\"batch\", ...). */\n");
    buf_printf(h, "extern const char *const %s_dim_names[];\n", P);
    buf_printf(h, "/* Names of the runtime inputs and of the outputs, in graph order. */\n");
    buf_printf(h, "extern const char *const %s_input_names[];\n", P);
    buf_printf(h, "extern const char *const %s_output_names[];\n\n", P);
    buf_printf(h,
               "/* 0 when dims satisfy every constraint the graph implies and every size fits;\n"
               "   else a negative code. dims may be NULL when %s_NUM_DIMS == 0%s. */\n"
               "int %s_check(const int64_t *dims);\n",
               U, g->ndims > g->nin_dims ? " and there are no data dims" : "", P);
    buf_printf(h, "/* Bytes of scratch memory %s_run needs for these dims (may be 0). */\n", P);
    buf_printf(h, "size_t %s_workspace_size(const int64_t *dims);\n", P);
    buf_printf(h, "/* Shape of input / output i for these dims: writes rank entries, returns the rank\n"
                  "   (<0 on error). */\n");
    buf_printf(h, "int %s_input_shape(const int64_t *dims, int i, int64_t *shape);\n", P);
    buf_printf(h, "int %s_output_shape(const int64_t *dims, int i, int64_t *shape);\n", P);
    buf_printf(h, "/* Runs the model. inputs[i] and outputs[i] are dense row-major buffers in graph\n"
                  "   order. workspace: %s_workspace_size(dims) bytes, aligned to 64; may be NULL when\n"
                  "   that size is 0. Returns 0, or a negative code. */\n",
               P);
    bool exact = false; /* a data dim whose bound is a declared size (ir_data_declared) */
    for (int i = g->nin_dims; i < g->ndims; i++)
        exact |= g->dims[i].exact;
    if (g->ndims > g->nin_dims)
        buf_printf(h, "/* dims: %s_NUM_DIMS + %s_NUM_DATA_DIMS entries, the data dims' set to -1 by\n"
                      "   the caller; on success %s_run writes their values there, and\n"
                      "   %s_output_shape then gives the outputs' actual shapes (before the run,\n"
                      "   with -1 there, their bounds: the sizes to allocate).  -5: a data dim\n"
                      "   passed its bound.%s */\n", U, U, P, P,
                   exact ? "  -4: one the model declares differs from that\n"
                           "   size." : "");
    if (!blob)
        buf_printf(h, "int %s_run(%sint64_t *dims, const void *const *inputs, void *const *outputs,\n"
                      "        void *workspace);\n",
                   P, g->ndims > g->nin_dims ? "" : "const ");
    else {
        const char *file = weights_file_name(c);
        buf_printf(h, "/* With the weights blob of onnx2c --weights, weights: see below.  Besides the codes\n"
                      "   above, -8: weights is not this model's blob or not aligned to 64 (its header\n"
                      "   is checked on every call; its checksum only by %s_weights_check). */\n", P);
        buf_printf(h, "int %s_run_w(%sint64_t *dims, const void *const *inputs, void *const *outputs,\n"
                      "        void *workspace, const void *weights);\n",
                   P, g->ndims > g->nin_dims ? "" : "const ");
        buf_printf(h, "\n/* The weights blob (onnx2c --weights): the file %s, %s_WEIGHTS_SIZE bytes.  Load\n"
                      "   it into memory aligned to 64 bytes and check it once with %s_weights_check, or\n"
                      "   link it in: assemble %s.S with the program (cc -c %s.S -I DIR, DIR its\n"
                      "   folder), which defines %s_weights.  Layout: README, \"Big models\". */\n",
                   file, U, P, file, file, P);
        buf_printf(h, "#define %s_WEIGHTS_SIZE %lluu\n", U, (unsigned long long)blob);
        buf_printf(h, "extern const unsigned char %s_weights[]; /* in %s.S */\n", P, file);
        buf_printf(h, "/* 0 when weights holds this model's blob: size bytes, aligned to 64, header and\n"
                      "   checksum as written (it reads every byte: once, after loading); else -8 (-3:\n"
                      "   NULL). */\n");
        buf_printf(h, "int %s_weights_check(const void *weights, size_t size);\n", P);
    }
    buf_printf(h, "const char *%s_strerror(int code);\n\n", P);
    buf_printf(h, "#ifdef %s_PROFILE\n"
                  "/* The profile build (this file and OUT.c compiled with -D%s_PROFILE): %s_run adds\n"
                  "   each node's time to a table of every node of the graph, in topological order.\n"
                  "   The clock: %s_PROFILE_CLOCK() (seconds, a double) if defined, else\n"
                  "   clock_gettime(CLOCK_MONOTONIC) on Unix, else clock().  The table is a static of\n"
                  "   OUT.c: do not run the model from two threads at once in a profile build. */\n"
                  "typedef struct {\n"
                  "    const char *op;    /* ONNX op_type */\n"
                  "    const char *node;  /* ONNX node name */\n"
                  "    const char *shape; /* its first output's shape, e.g. \"[N,64,H,W]\" */\n"
                  "    const char *note;  /* \"\" when it runs, else why not (\"fused into NODE\",\n"
                  "                          \"computed at compile time\") */\n"
                  "    double seconds;    /* its total time since the last reset */\n"
                  "    uint64_t calls;    /* its runs since the last reset */\n"
                  "} %s_profile_entry;\n"
                  "/* The table; *count (when count is not NULL) receives its length. */\n"
                  "const %s_profile_entry *%s_profile(int *count);\n"
                  "void %s_profile_reset(void);\n"
                  "#endif\n\n",
               U, U, P, U, P, P, P, P);
    buf_puts(h, "/* Inputs and outputs:\n");
    const char **dn = arena_alloc(c->arena, sizeof(char *) * (size_t)(g->ndims + 1));
    for (int k = 0; k < g->ndims; k++)
        dn[k] = g->dims[k].name;
    for (int pass = 0; pass < 2; pass++) {
        int nv = pass ? g->noutputs : g->ninputs;
        for (int i = 0; i < nv; i++) {
            Value *v = pass ? g->outputs[i] : g->inputs[i];
            Buf line;
            buf_init_in(&line, c->arena);
            buf_printf(&line, "%s %d '%s': %s[", pass ? "output" : "input ", i, v->name,
                       dtype_name(v->dtype));
            for (int d = 0; d < v->rank && line.len < 600; d++)
                buf_printf(&line, "%s%s", d ? ", " : "", sym_str_max(c->arena, v->shape[d], dn, 80));
            buf_puts(&line, "]");
            buf_puts(h, " *   ");
            put_comment_text(h, line.data, 700);
            buf_puts(h, "\n");
            buf_free(&line);
        }
    }
    buf_puts(h, " */\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

/* Writes s as a C string literal: quotes and backslashes escaped, non-printable bytes and '?'
 * (trigraphs) as three-digit octal escapes; at most 255 bytes of s (then "..."), so the literal
 * stays far below C99's 4095 characters. */
static void put_c_string(Buf *b, const char *s) {
    buf_puts(b, "\"");
    size_t k = 0;
    for (const char *p = s; *p && k < 255; p++, k++) {
        if (*p == '"' || *p == '\\')
            buf_printf(b, "\\%c", *p);
        else if ((unsigned char)*p < 32 || (unsigned char)*p > 126 || *p == '?')
            buf_printf(b, "\\%03o", (unsigned char)*p);
        else
            buf_putn(b, p, 1);
    }
    buf_puts(b, s[k] ? "...\"" : "\"");
}

static void write_strings(Buf *src, const char *P, const char *what, int n, const char *const *s) {
    buf_printf(src, "const char *const %s_%s[] = {", P, what);
    for (int i = 0; i < n; i++) {
        buf_puts(src, i ? ", " : "");
        put_c_string(src, s[i]);
    }
    buf_puts(src, n ? "};\n" : "0};\n");
}

static void emit_node(Compiler *c, Emit *e, Node *n, int k_prof) {
    Buf cm;
    buf_init_in(&cm, c->arena);
    buf_printf(&cm, "%s: %s ", n->name, n->op_type);
    bool first = true;
    for (int k = 0; k < n->nin && cm.len < 600; k++)
        if (n->in[k]) {
            buf_printf(&cm, "%s%s%s", first ? "" : ", ", n->in[k]->name, shape_str(e, n->in[k]));
            first = false;
        }
    buf_puts(&cm, " -> ");
    for (int k = 0; k < n->nout && cm.len < 900; k++)
        if (n->out[k] && n->out[k]->rank >= 0)
            buf_printf(&cm, "%s%s%s", k ? ", " : "", n->out[k]->name, shape_str(e, n->out[k]));
    emit_line(e, "/* %s */", emit_comment_text(e, cm.data));
    buf_free(&cm);
    emit_line(e, "{");
    emit_indent(e, 1);
    emit_line(e, "O2C_PROF_BEGIN");
    e->node = n;
    buf_init_in(&e->node_tmpls, c->arena);
    n->op->emit(c, e, n);
    if (!n->kernel) /* the emitter did not name it: its family, and the templates it used */
        n->kernel = e->node_tmpls.len ? arena_printf(c->arena, "%s (%s)", n->op->family,
                                                     e->node_tmpls.data)
                                      : arena_printf(c->arena, "%s loops", n->op->family);
    buf_free(&e->node_tmpls);
    e->node = NULL;
    emit_line(e, "O2C_PROF_END(%d)", k_prof);
    emit_indent(e, -1);
    emit_line(e, "}");
}

/* ---- the profile build (-DNAME_PROFILE): NAME_run adds each node's time to a table of every
 * node of the graph, which NAME_profile returns.  Without the macro, O2C_PROF_* are empty. */
static void write_profile(Compiler *c, Emit *e, Buf *fns) {
    Graph *g = c->g;
    const char *P = c->prefix;
    char U[256];
    upper(U, P, sizeof U);
    buf_printf(fns, "#ifdef %s_PROFILE\n", U);
    buf_printf(fns, "#ifndef %s_PROFILE_CLOCK\n"
                    "#if defined(CLOCK_MONOTONIC) && (defined(__unix__) || defined(__APPLE__))\n"
                    "static double %s_profile_clock(void) {\n"
                    "    struct timespec t;\n"
                    "    clock_gettime(CLOCK_MONOTONIC, &t);\n"
                    "    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;\n"
                    "}\n"
                    "#define %s_PROFILE_CLOCK() %s_profile_clock()\n"
                    "#else\n"
                    "#define %s_PROFILE_CLOCK() ((double)clock() / CLOCKS_PER_SEC)\n"
                    "#endif\n"
                    "#endif\n",
               U, P, U, P, U);
    buf_printf(fns, "static %s_profile_entry %s_prof[%d] = {\n", P, P, g->nnodes > 0 ? g->nnodes : 1);
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        buf_puts(fns, "    {");
        put_c_string(fns, n->op_type);
        buf_puts(fns, ", ");
        put_c_string(fns, n->name);
        buf_puts(fns, ", ");
        put_c_string(fns, n->nout > 0 && n->out[0] && n->out[0]->rank >= 0 ? shape_str(e, n->out[0]) : "");
        buf_puts(fns, ", ");
        const char *note = "";
        if (n->dead && n->merged_into)
            note = arena_printf(c->arena, "fused into %s", n->merged_into->name);
        else if (n->dead)
            note = "computed at compile time";
        put_c_string(fns, note);
        buf_puts(fns, ", 0.0, 0},\n");
    }
    if (!g->nnodes)
        buf_puts(fns, "    {\"\", \"\", \"\", \"\", 0.0, 0},\n");
    buf_puts(fns, "};\n");
    buf_printf(fns, "#define O2C_PROF_BEGIN double o2c_prof_t0 = %s_PROFILE_CLOCK();\n", U);
    buf_printf(fns, "#define O2C_PROF_END(k) %s_prof[k].seconds += %s_PROFILE_CLOCK() - o2c_prof_t0; "
                    "%s_prof[k].calls++;\n", P, U, P);
    buf_printf(fns, "const %s_profile_entry *%s_profile(int *count) {\n"
                    "    if (count)\n"
                    "        *count = %d;\n"
                    "    return %s_prof;\n"
                    "}\n", P, P, g->nnodes, P);
    buf_printf(fns, "void %s_profile_reset(void) {\n"
                    "    for (int i = 0; i < %d; i++) {\n"
                    "        %s_prof[i].seconds = 0.0;\n"
                    "        %s_prof[i].calls = 0;\n"
                    "    }\n"
                    "}\n", P, g->nnodes, P, P);
    buf_puts(fns, "#else\n#define O2C_PROF_BEGIN\n#define O2C_PROF_END(k)\n#endif\n\n");
}

/* ---- NAME_check: every size the generated code computes, verified once
 *
 * The other functions compute sums and products in uint64_t (sym_print_c), which is exact
 * whenever the exact value fits in int64, and divisions, mods, mins and maxes on those int64
 * values.  So NAME_check evaluates, exactly, every Sym whose value the generated code takes as
 * an int64: those some function names as a local (recorded as they are emitted), the operands
 * of every division, mod, min and max, the factors of products, the constraints' sides and the
 * byte sizes, children first.  Sums of products are accumulated in 128 bits (o2c_term: a term
 * reaching 2^125 in magnitude is refused as too large to tell); a value outside
 * [-INT64_MAX, INT64_MAX], or a zero divisor, makes NAME_check return -6 before any other
 * arithmetic runs; then the constraints; then the byte sizes of the inputs, outputs and the
 * workspace must fit in size_t (32-bit targets).  So nothing after NAME_check can overflow for
 * dims it accepts, and it accepts exactly the dims at which every such value fits. */

enum { CK_POLY = 1, CK_TERM1 = 2, CK_DIV = 4 }; /* the helpers NAME_check calls (only those are written) */
static const char checked_poly[] =
    "/* Exact sums of products k * f1 * ... * fn of int64 values: a 128-bit two's complement\n"
    "   accumulator (hi:lo); a term reaching 2^125 in magnitude, or a sum 2^126, sets huge. */\n"
    "typedef struct {\n"
    "    uint64_t hi, lo;\n"
    "    int huge;\n"
    "} o2c_acc;\n"
    "static uint64_t o2c_abs64(int64_t a) { return a < 0 ? 0 - (uint64_t)a : (uint64_t)a; }\n"
    "/* (hi:lo) = a * b, from 32-bit halves */\n"
    "static void o2c_mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {\n"
    "    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;\n"
    "    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;\n"
    "    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);\n"
    "    *lo = (mid << 32) | (ll & 0xffffffffu);\n"
    "    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);\n"
    "}\n"
    "static void o2c_term(o2c_acc *s, int64_t k, int n, const int64_t *f) {\n"
    "    uint64_t hi = 0, lo = o2c_abs64(k), h1, l1, h2, l2;\n"
    "    int neg = k < 0;\n"
    "    for (int i = 0; i < n && !s->huge; i++) {\n"
    "        uint64_t m = o2c_abs64(f[i]);\n"
    "        neg ^= f[i] < 0;\n"
    "        o2c_mul64(lo, m, &h1, &l1);\n"
    "        o2c_mul64(hi, m, &h2, &l2);\n"
    "        if (h2 != 0 || l2 >= ((uint64_t)1 << 61) || h1 >= ((uint64_t)1 << 61) - l2)\n"
    "            s->huge = 1; /* the magnitude would reach 2^125 */\n"
    "        hi = l2 + h1;\n"
    "        lo = l1;\n"
    "    }\n"
    "    if (s->huge)\n"
    "        return;\n"
    "    if (neg) { /* two's complement of (hi:lo) */\n"
    "        hi = ~hi + (lo == 0);\n"
    "        lo = 0 - lo;\n"
    "    }\n"
    "    uint64_t sl = s->lo + lo;\n"
    "    s->hi = s->hi + hi + (sl < lo);\n"
    "    s->lo = sl;\n"
    "    uint64_t top = s->hi >> 62; /* bits 127 and 126: equal while |sum| < 2^126 */\n"
    "    if (top == 1 || top == 2)\n"
    "        s->huge = 1;\n"
    "}\n"
    "static void o2c_zero(o2c_acc *s) {\n"
    "    s->hi = s->lo = 0;\n"
    "    s->huge = 0;\n"
    "}\n"
    "/* The sum, when it fits in [-INT64_MAX, INT64_MAX]; else *ok = 0 and 0. */\n"
    "static int64_t o2c_sum(const o2c_acc *s, int *ok) {\n"
    "    if (!s->huge && s->hi == 0 && s->lo <= (uint64_t)INT64_MAX)\n"
    "        return (int64_t)s->lo;\n"
    "    if (!s->huge && s->hi == ~(uint64_t)0 && s->lo > (uint64_t)INT64_MAX + 1)\n"
    "        return -(int64_t)(0 - s->lo);\n"
    "    *ok = 0;\n"
    "    return 0;\n"
    "}\n";
static const char checked_term1[] =
    "static void o2c_term1(o2c_acc *s, int64_t k, int64_t f) { o2c_term(s, k, 1, &f); }\n";
static const char checked_div[] =
    "/* kind 0 floor(a / b), 1 ceil(a / b), 2 a mod b (the sign of b); a zero divisor (and\n"
    "   INT64_MIN / -1) sets *ok to 0 */\n"
    "static int64_t o2c_cdiv(int64_t a, int64_t b, int kind, int *ok) {\n"
    "    if (b == 0 || (a == INT64_MIN && b == -1)) {\n"
    "        *ok = 0;\n"
    "        return 0;\n"
    "    }\n"
    "    int64_t q = a / b, r = a % b;\n"
    "    if (kind == 2)\n"
    "        return r != 0 && (r < 0) != (b < 0) ? r + b : r;\n"
    "    if (kind == 0)\n"
    "        return r != 0 && (r < 0) != (b < 0) ? q - 1 : q;\n"
    "    return r != 0 && (r < 0) == (b < 0) ? q + 1 : q;\n"
    "}\n";

/* The C operand for s inside NAME_check: a literal, a dim's local or s<ID>. */
static const char *checked_operand(Emit *e, Sym *s) {
    int64_t v;
    if (sym_get_const(s, &v)) {
        if (v == INT64_MIN)
            return "(-9223372036854775807 - 1)";
        return arena_printf(e->a, v < 0 ? "(%lld)" : "%lld", (long long)v);
    }
    if (s->kind == SYM_DIM)
        return dimname_cb(s->dim, e);
    return arena_printf(e->a, "s%d", s->id);
}

static bool is_poly(const Sym *s) { return s->kind == SYM_ADD || s->kind == SYM_MUL; }

/* The call accumulating one term t (a constant, an atom or a product k * f1 * ...) of a sum. */
static const char *checked_term(Emit *e, Sym *t) {
    int64_t k = 1;
    Sym *const *f = &t;
    int nf = 1;
    if (t->kind == SYM_CONST) {
        k = t->c;
        nf = 0;
    } else if (t->kind == SYM_MUL) {
        bool coef = t->args[0]->kind == SYM_CONST;
        k = coef ? t->args[0]->c : 1;
        f = t->args + coef;
        nf = t->n - coef;
    }
    const char *ks = k == INT64_MIN ? "(-9223372036854775807 - 1)" : emit_int(e, k);
    if (nf <= 1) {
        e->ck_used |= CK_TERM1;
        return arena_printf(e->a, "o2c_term1(&acc, %s, %s)", ks, nf ? checked_operand(e, f[0]) : "1");
    }
    Buf b;
    buf_init_in(&b, e->a);
    for (int i = 0; i < nf; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", checked_operand(e, f[i]));
    const char *r = arena_printf(e->a, "o2c_term(&acc, %s, %d, (const int64_t[]){%s})", ks, nf, b.data);
    buf_free(&b);
    return r;
}

/* The Syms the generated code takes as int64 values: what some function names, and within them
 * the operands of divisions, mods, mins and maxes and the factors of products; a term of a sum
 * is only accumulated.  Adds them to e->all. */
static void close_checked(Emit *e) {
    for (int i = 0; i < e->nall; i++) { /* e->all grows while this runs */
        Sym *s = e->all[i];
        for (int k = 0; k < s->n; k++) {
            Sym *a = s->args[k];
            if (s->kind == SYM_ADD && a->kind == SYM_MUL) /* a term: its factors */
                for (int j = 0; j < a->n; j++)
                    note_checked(e, a->args[j]);
            else
                note_checked(e, a);
        }
    }
}

/* `if (!(constraint k between C operands a and b)) return -100 - i;` */
static void emit_constraint_test(Emit *e, const Constraint *k, int i, const char *a, const char *b) {
    Arena *ar = e->a;
    const char *cond =
        k->kind == CK_EQ      ? arena_printf(ar, "%s == %s", a, b)
        : k->kind == CK_LE    ? arena_printf(ar, "%s <= %s", a, b)
        : k->kind == CK_BCAST ? arena_printf(ar, "%s == %s || %s == 1 || %s == 1", a, b, a, b)
                              : arena_printf(ar, "%s != 0 && %s %% %s == 0", a, b, a);
    emit_line(e, "if (!(%s)) /* %s */", cond, emit_comment_text(e, k->what));
    emit_line(e, "    return %d;", O2C_RUN_ECONSTRAINT - i);
}

/* The data dim of largest index a constraint mentions, or -1. */
static int constraint_data_dim(Compiler *c, const Constraint *k) {
    int a = ir_last_data_dim(c, k->a), b = ir_last_data_dim(c, k->b);
    return a > b ? a : b;
}

/* NAME_run, after the node that computes data dims up to index upto (from index from): the
 * constraints that mention them (the last of them in that range), as NAME_check tests the
 * others. */
static void emit_data_constraints(Compiler *c, Emit *e, int from, int upto) {
    Graph *g = c->g;
    for (int i = 0; i < g->nconstraints; i++) {
        Constraint *k = &g->constraints[i];
        int d = constraint_data_dim(c, k);
        if (d < from || d > upto || k->at)
            continue;
        const char *a = emit_sym(e, k->a), *b = emit_sym(e, k->b);
        emit_constraint_test(e, k, i, a, b);
    }
}

/* NAME_run, where node n runs inside an If branch or a Loop/Scan body: the constraints its
 * infer recorded (Constraint.at), which hold only when that code runs. */
static void emit_region_constraints(Compiler *c, Emit *e, const Node *n) {
    Graph *g = c->g;
    for (int i = 0; i < g->nconstraints; i++) {
        Constraint *k = &g->constraints[i];
        if (k->at != n)
            continue;
        const char *a = emit_sym(e, k->a), *b = emit_sym(e, k->b);
        emit_constraint_test(e, k, i, a, b);
    }
}

static void write_check(Compiler *c, Emit *e, Buf *out, Sym *const *sizes, int nsizes) {
    Graph *g = c->g;
    const char *P = c->prefix;
    begin_function(e);
    for (int i = 0; i < g->nconstraints; i++) {
        if (constraint_data_dim(c, &g->constraints[i]) >= 0 || g->constraints[i].at)
            continue; /* NAME_run checks it (emit_data_constraints, emit_region_constraints) */
        note_checked(e, g->constraints[i].a);
        note_checked(e, g->constraints[i].b);
    }
    Sym **bsizes = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(nsizes + 1));
    for (int i = 0; i < nsizes; i++) /* an output of data dims: its size at their bounds */
        bsizes[i] = ir_data_bounded(c, sizes[i]);
    sizes = bsizes;
    for (int i = 0; i < nsizes; i++)
        note_checked(e, sizes[i]);
    close_checked(e);
    if (e->nall > 1)
        qsort(e->all, (size_t)e->nall, sizeof(Sym *), cmp_sym_id);
    if (e->nall) {
        emit_line(e, "int ok = 1;");
        for (int i = 0; i < e->nall; i++) {
            Sym *s = e->all[i];
            if (is_poly(s)) {
                if (!(e->ck_used & CK_POLY))
                    emit_line(e, "o2c_acc acc;");
                e->ck_used |= CK_POLY;
                Buf t;
                buf_init_in(&t, c->arena);
                buf_puts(&t, "o2c_zero(&acc)");
                for (int k = 0; k < (s->kind == SYM_ADD ? s->n : 1); k++)
                    buf_printf(&t, ", %s", checked_term(e, s->kind == SYM_ADD ? s->args[k] : s));
                emit_line(e, "%s;", t.data);
                buf_free(&t);
                emit_line(e, "const int64_t s%d = o2c_sum(&acc, &ok);", s->id);
                continue;
            }
            const char *acc = checked_operand(e, s->args[0]);
            for (int k = 1; k < s->n; k++) {
                const char *x = checked_operand(e, s->args[k]);
                if (s->kind == SYM_MIN || s->kind == SYM_MAX)
                    acc = arena_printf(e->a, "(%s %s %s ? %s : %s)", acc,
                                       s->kind == SYM_MIN ? "<" : ">", x, acc, x);
                else {
                    acc = arena_printf(e->a, "o2c_cdiv(%s, %s, %d, &ok)", acc, x,
                                       s->kind == SYM_FLOORDIV ? 0 : s->kind == SYM_CEILDIV ? 1 : 2);
                    e->ck_used |= CK_DIV;
                }
            }
            emit_line(e, "const int64_t s%d = %s;", s->id, acc);
        }
        emit_line(e, "if (!ok)");
        emit_line(e, "    return %d;", O2C_RUN_ETOOBIG);
    }
    for (int i = 0; i < g->nconstraints; i++) {
        Constraint *k = &g->constraints[i];
        if (constraint_data_dim(c, k) >= 0 || k->at)
            continue;
        const char *a = checked_operand(e, k->a), *b = checked_operand(e, k->b);
        emit_constraint_test(e, k, i, a, b);
    }
    /* byte sizes on a target whose size_t is narrower than int64 (always false otherwise) */
    Buf cmp;
    buf_init_in(&cmp, c->arena);
    for (int i = 0; i < nsizes; i++) {
        int64_t v;
        if (sym_get_const(sizes[i], &v) && v <= (int64_t)UINT32_MAX)
            continue;
        buf_printf(&cmp, "%s(uint64_t)%s > (uint64_t)SIZE_MAX", cmp.len ? " ||\n        " : "",
                   checked_operand(e, sizes[i]));
    }
    if (cmp.len) {
        emit_line(e, "if (%s)", cmp.data);
        emit_line(e, "    return %d;", O2C_RUN_ETOOBIG);
    }
    buf_free(&cmp);
    /* a local only some other local reads is still read; one nothing reads is marked used */
    unsigned char *read = arena_alloc(e->a, (size_t)e->all_cap + 1);
    for (int i = 0; i < e->nall; i++)
        for (int k = 0; k < e->all[i]->n; k++) {
            Sym *a = e->all[i]->args[k];
            bool term = e->all[i]->kind == SYM_ADD && a->kind == SYM_MUL; /* read as factors */
            if (!term && a->id < e->all_cap)
                read[a->id] = 1;
            for (int j = 0; term && j < a->n; j++)
                if (a->args[j]->id < e->all_cap)
                    read[a->args[j]->id] = 1;
        }
    for (int i = 0; i < g->nconstraints; i++) {
        if (g->constraints[i].a->id < e->all_cap)
            read[g->constraints[i].a->id] = 1;
        if (g->constraints[i].b->id < e->all_cap)
            read[g->constraints[i].b->id] = 1;
    }
    for (int i = 0; i < nsizes; i++)
        if (sizes[i]->id < e->all_cap)
            read[sizes[i]->id] = 1;
    for (int i = 0; i < e->nall; i++)
        if (!read[e->all[i]->id])
            emit_line(e, "(void)s%d;", e->all[i]->id);
    emit_line(e, "(void)dims;");
    emit_line(e, "return 0;");
    Buf guard;
    buf_init_in(&guard, c->arena);
    if (g->ndims) /* data dims too: NAME_run writes them, NAME_output_shape reads them */
        buf_printf(&guard, "    if (!dims)\n        return %d;\n", O2C_RUN_ENULL);
    if (g->nin_dims) {
        buf_printf(&guard, "    for (int i = 0; i < %d; i++)\n", g->nin_dims);
        buf_printf(&guard, "        if (dims[i] < 0)\n            return %d;\n", O2C_RUN_EDIMS);
        for (int i = 0; i < g->nin_dims; i++)
            if (g->dims[i].max >= 0) {
                buf_printf(&guard, "    if (dims[%d] > %lld) /* --max ", i, (long long)g->dims[i].max);
                put_comment_text(&guard, g->dims[i].name, 160);
                buf_printf(&guard, " */\n        return %d;\n", O2C_RUN_EDIMS);
            }
        /* the compiler reasons about dims in [0, INT64_MAX - 1] (SYM_DIM_MAX) */
        buf_printf(&guard, "    for (int i = 0; i < %d; i++)\n", g->nin_dims);
        buf_printf(&guard, "        if (dims[i] == INT64_MAX)\n            return %d;\n", O2C_RUN_ETOOBIG);
    }
    g->checked = e->all;
    g->nchecked = e->nall;
    if (e->ck_used) {
        buf_puts(out, e->ck_used & CK_POLY ? checked_poly : "");
        buf_puts(out, e->ck_used & CK_TERM1 ? checked_term1 : "");
        buf_puts(out, e->ck_used & CK_DIV ? checked_div : "");
        buf_puts(out, "\n");
    }
    end_function(e, out, arena_printf(c->arena, "int %s_check(const int64_t *dims)", P), guard.data, NULL);
    buf_free(&guard);
}

static void put_le(unsigned char *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The blob (README "Big models"): a 64-byte header; the recorded arrays at their offsets
 * (multiples of 64, zero bytes between); then a table of one {offset, bytes} pair (u64, u64) per
 * array, at a multiple of 64.  Little-endian.  The header: the magic "ONNX2CWB", u32 version 1,
 * u32 the array count, u64 the blob's size, u64 the FNV-1a 64 checksum of every byte after the
 * header, u64 the table's offset, 24 zero bytes.  Writes it to s and the header into hdr. */
static void write_blob(Emit *e, Sink *s, unsigned char hdr[64]) {
    static const unsigned char zeros[64];
    sink_putn(s, zeros, 64); /* the header, written again at the end */
    s->hash = true;
    s->fnv = FNV_OFFSET;
    for (int i = 0; i < e->nw; i++) {
        Value *v = e->wlist[i];
        while (s->n < e->woff[v->id])
            sink_putn(s, zeros, (size_t)(e->woff[v->id] - s->n < 64 ? e->woff[v->id] - s->n : 64));
        WeightReader r;
        wr_open(&r, e, v);
        const unsigned char *p;
        size_t n;
        while ((p = wr_next(&r, SIZE_MAX, &n)))
            sink_putn(s, p, n);
        wr_close(&r);
    }
    uint64_t table = (s->n + 63) / 64 * 64;
    sink_putn(s, zeros, (size_t)(table - s->n));
    for (int i = 0; i < e->nw; i++) {
        unsigned char ent[16];
        put_le(ent, e->woff[e->wlist[i]->id], 8);
        put_le(ent + 8, weight_bytes(e->wlist[i]), 8);
        sink_putn(s, ent, 16);
    }
    memset(hdr, 0, 64);
    memcpy(hdr, "ONNX2CWB", 8);
    put_le(hdr + 8, 1, 4);
    put_le(hdr + 12, (uint64_t)e->nw, 4);
    put_le(hdr + 16, s->n, 8);
    put_le(hdr + 24, s->fnv, 8);
    put_le(hdr + 32, table, 8);
    if (!s->f) {
        memcpy(s->b->data, hdr, 64);
        return;
    }
    errno = 0;
    if (fflush(s->f) != 0 || fseek(s->f, 0, SEEK_SET) != 0 || fwrite(hdr, 1, 64, s->f) != 64 ||
        fflush(s->f) != 0)
        o2c_ioerror(s->c, "cannot write '%s': %s", s->what, strerror(errno ? errno : EIO));
}

/* OUT.c's end with --weights: the blob's expected header, the check NAME_run_w makes on every
 * call, and NAME_weights_check, which also verifies the checksum. */
static void write_blob_api(Compiler *c, Buf *out, const unsigned char hdr[64], uint64_t size,
                           uint64_t fnv) {
    const char *P = c->prefix;
    buf_printf(out, "/* ---- the weights blob (%s, see %s) */\n\n", weights_file_name(c), c->header);
    buf_puts(out, "static const unsigned char o2c_blob_header[64] = {");
    for (int i = 0; i < 64; i++)
        buf_printf(out, "%s0x%02x", i % 16 ? ", " : i ? ",\n    " : "\n    ", hdr[i]);
    buf_puts(out, "};\n\n");
    buf_puts(out, "/* 1 when weights begins with this model's blob header, aligned to 64, on a\n"
                  "   little-endian target (the blob's byte order) */\n"
                  "static int o2c_blob_ok(const void *weights) {\n"
                  "    const uint16_t one = 1;\n"
                  "    if (*(const unsigned char *)&one != 1 || ((uintptr_t)weights & 63u) != 0)\n"
                  "        return 0;\n"
                  "    return memcmp(weights, o2c_blob_header, 64) == 0;\n"
                  "}\n\n");
    buf_printf(out, "int %s_weights_check(const void *weights, size_t size) {\n", P);
    buf_printf(out, "    const unsigned char *p = (const unsigned char *)weights;\n"
                    "    uint64_t h = 0x%016llxULL; /* FNV-1a 64 of the bytes after the header */\n"
                    "    size_t i;\n"
                    "    if (!weights)\n"
                    "        return %d;\n"
                    "    if ((uint64_t)size != %lluULL || !o2c_blob_ok(weights))\n"
                    "        return %d;\n"
                    "    for (i = 64; i < size; i++)\n"
                    "        h = (h ^ p[i]) * 0x%016llxULL;\n"
                    "    return h == 0x%016llxULL ? 0 : %d;\n"
                    "}\n",
               (unsigned long long)FNV_OFFSET, O2C_RUN_ENULL, (unsigned long long)size,
               O2C_RUN_EWEIGHTS, (unsigned long long)FNV_PRIME, (unsigned long long)fnv,
               O2C_RUN_EWEIGHTS);
}

/* FILE.S: the blob linked into a program as NAME_weights (GNU assembler syntax, through the C
 * preprocessor: gcc, clang, arm-none-eabi-gcc). */
static void write_blob_asm(Compiler *c, Buf *out) {
    const char *P = c->prefix, *file = weights_file_name(c);
    buf_printf(out, "/* %s.S - generated by onnx2c %s from ", file, O2C_VERSION);
    put_comment_text(out, model_base(c), 160);
    buf_printf(out, ". Do not edit.\n"
                    " * The weights blob %s as the symbol %s_weights (64-byte aligned, read-only data),\n"
                    " * for %s_run_w.  Assemble it with the program, the blob's folder on the include\n"
                    " * path: cc -c %s.S -I DIR.  ELF and Mach-O targets. */\n", file, P, P, file);
    buf_printf(out, "#if defined(__APPLE__)\n"
                    "    .const_data\n"
                    "    .globl _%s_weights\n"
                    "    .p2align 6\n"
                    "_%s_weights:\n"
                    "    .incbin \"%s\"\n"
                    "#elif defined(__ELF__)\n"
                    "    .section .rodata\n"
                    "    .globl %s_weights\n"
                    "    .type %s_weights, %%object\n"
                    "    .balign 64\n"
                    "%s_weights:\n"
                    "    .incbin \"%s\"\n"
                    "    .size %s_weights, . - %s_weights\n"
                    "    .section .note.GNU-stack, \"\", %%progbits\n"
                    "#else\n"
                    "#error \"%s.S: for ELF and Mach-O targets; elsewhere load the blob at run time\"\n"
                    "#endif\n",
               P, P, file, P, P, P, file, P, P, file);
}

uint64_t emit_graph(Compiler *c, Buf *h, Buf *src, Buf *blob, Buf *asm_src) {
    Graph *g = c->g;
    const char *P = c->prefix;
    /* in the arena, and their buffers tracked: an error while emitting (an op's emit may
     * still refuse an attribute) frees them (onnx2c_compile) */
    Emit *e = arena_alloc(c->arena, sizeof *e);
    memset(e, 0, sizeof *e);
    e->c = c;
    e->a = c->arena;
    e->val_static = arena_alloc(c->arena, (size_t)g->nvalues + 1);
    e->val_flash = arena_alloc(c->arena, (size_t)g->nvalues + 1);
    e->dim_names = arena_alloc(c->arena, sizeof(char *) * (size_t)(g->ndims + 1));
    e->dim_local = arena_alloc(c->arena, sizeof(char *) * (size_t)(g->ndims + 1));
    for (int i = 0; i < g->ndims; i++) {
        e->dim_names[i] = g->dims[i].name;
        e->dim_local[i] = model_ident(c, "d", g->dims[i].cname);
    }
    e->blob = c->opt->weights_blob;
    if (e->blob) {
        e->woff = arena_alloc(c->arena, sizeof(uint64_t) * (size_t)(g->nvalues + 1));
        e->blob_end = 64;
    }
    buf_init_in(&e->kernels, c->arena);
    buf_init_in(&e->body, c->arena);

    Buf *fns = buf_new(c->arena);
    Buf *api = buf_new(c->arena);

    /* names */
    const char **names = arena_alloc(c->arena, sizeof(char *) * (size_t)(g->ndims + g->ninputs + g->noutputs + 1));
    for (int i = 0; i < g->ndims; i++)
        names[i] = g->dims[i].name;
    write_strings(fns, P, "dim_names", g->ndims, names);
    for (int i = 0; i < g->ninputs; i++)
        names[i] = g->inputs[i]->name;
    write_strings(fns, P, "input_names", g->ninputs, names);
    for (int i = 0; i < g->noutputs; i++)
        names[i] = g->outputs[i]->name;
    write_strings(fns, P, "output_names", g->noutputs, names);
    buf_puts(fns, "\n");
    write_profile(c, e, fns);

    /* strerror */
    buf_printf(fns, "const char *%s_strerror(int code) {\n    switch (code) {\n", P);
    buf_puts(fns, "    case 0: return \"success\";\n");
    buf_printf(fns, "    case %d: return \"a dim is negative or above its bound\";\n", O2C_RUN_EDIMS);
    buf_printf(fns, "    case %d: return \"input or output index out of range\";\n", O2C_RUN_EARG);
    buf_printf(fns, "    case %d: return \"a required pointer argument is NULL\";\n", O2C_RUN_ENULL);
    buf_printf(fns, "    case %d: return \"runtime data contradicts the declared output shape\";\n",
               O2C_RUN_EDATA);
    if (g->ndims > g->nin_dims)
        buf_printf(fns, "    case %d: return \"a size decided by the data exceeds its bound (a data dim)\";\n",
                   O2C_RUN_EBOUND);
    buf_printf(fns, "    case %d: return \"the dims are too large: a size would not fit in size_t or int64\";\n",
               O2C_RUN_ETOOBIG);
    buf_printf(fns, "    case %d: return \"an index in the input data is out of range\";\n", O2C_RUN_EINDEX);
    if (e->blob)
        buf_printf(fns, "    case %d: return \"the weights are not this model's blob (header, size or "
                        "checksum) or not aligned to 64 bytes\";\n", O2C_RUN_EWEIGHTS);
    for (int i = 0; i < g->nconstraints; i++) {
        const char *what = g->constraints[i].what;
        buf_printf(fns, "    case %d: return ", O2C_RUN_ECONSTRAINT - i);
        put_c_string(fns, what);
        buf_puts(fns, ";\n");
    }
    buf_puts(fns, "    default: return \"unknown error\";\n    }\n}\n\n");

    const char *check_guard = arena_printf(c->arena, "    int rc = %s_check(dims);\n    if (rc != 0)\n        return rc;\n", P);

    /* workspace_size */
    begin_function(e);
    emit_line(e, "return (size_t)%s;", emit_sym(e, g->workspace));
    end_function(e, api, arena_printf(c->arena, "size_t %s_workspace_size(const int64_t *dims)", P),
                 arena_printf(c->arena, "    if (%s_check(dims) != 0)\n        return 0;\n", P), NULL);

    /* input_shape / output_shape */
    for (int pass = 0; pass < 2; pass++) {
        begin_function(e);
        int nv = pass ? g->noutputs : g->ninputs;
        emit_line(e, "if (!shape)");
        emit_line(e, "    return %d;", O2C_RUN_ENULL);
        emit_line(e, "switch (i) {");
        for (int i = 0; i < nv; i++) {
            Value *v = pass ? g->outputs[i] : g->inputs[i];
            Buf l;
            buf_init_in(&l, c->arena);
            for (int d = 0; d < v->rank; d++)
                buf_printf(&l, "shape[%d] = %s; ", d, emit_sym(e, v->shape[d]));
            emit_line(e, "case %d: %sreturn %d;", i, l.data ? l.data : "", v->rank);
            buf_free(&l);
        }
        emit_line(e, "default: return %d;", O2C_RUN_EARG);
        emit_line(e, "}");
        end_function(e, api,
                     arena_printf(c->arena, "int %s_%s_shape(const int64_t *dims, int i, int64_t *shape)",
                                  P, pass ? "output" : "input"),
                     check_guard, NULL);
    }

    /* run: argument checks come before any declaration that reads the arguments */
    begin_function(e);
    e->in_run = true;
    Buf *pre = buf_new(c->arena);
    if (g->ninputs || g->noutputs) {
        buf_puts(pre, "    if (");
        buf_puts(pre, g->ninputs ? "!inputs" : "0");
        for (int i = 0; i < g->ninputs; i++)
            buf_printf(pre, " || !inputs[%d]", i);
        buf_puts(pre, g->noutputs ? " || !outputs" : "");
        for (int i = 0; i < g->noutputs; i++)
            buf_printf(pre, " || !outputs[%d]", i);
        buf_printf(pre, ")\n        return %d;\n", O2C_RUN_ENULL);
    }
    int64_t wsc;
    e->force_ws = !(sym_get_const(g->workspace, &wsc) && wsc == 0);
    for (int i = 0; i < g->nnodes; i++)
        e->force_ws |= g->nodes[i]->scratch != NULL; /* kernels address their scratch by ws */
    if (e->force_ws)
        buf_printf(pre, "    if (!workspace && %s_workspace_size(dims) > 0)\n        return %d;\n", P, O2C_RUN_ENULL);
    if (e->blob) /* the arrays are read at their offsets from o2c_wb (weight_expr) */
        buf_printf(pre, "    if (!weights)\n        return %d;\n"
                        "    if (!o2c_blob_ok(weights))\n        return %d;\n"
                        "    const unsigned char *const o2c_wb = (const unsigned char *)weights;\n"
                        "    (void)o2c_wb;\n", O2C_RUN_ENULL, O2C_RUN_EWEIGHTS);
    emit_line(e, "(void)inputs;");
    emit_line(e, "(void)outputs;");
    emit_line(e, "(void)workspace;");
    e->nseg = 0;
    int data_done = g->nin_dims; /* data dims below it are computed by the nodes so far */
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        o2c_progress(c, "writing", i, g->nnodes);
        if (n->region)
            emit_region_constraints(c, e, n);
        if (n->dead)
            continue;
        if (n->nsub || n->ctl) { /* control flow: opens or closes a C block (ops/control.c) */
            emit_line(e, "/* %s: %s */", emit_comment_text(e, n->name), n->op_type);
            e->node = n;
            n->op->emit(c, e, n);
            n->kernel = "control flow";
            e->node = NULL;
        } else
            emit_node(c, e, n, i);
        int upto = data_done - 1;
        for (int d = data_done; d < g->ndims; d++)
            if (g->dims[d].producer == i)
                upto = d;
        if (upto < data_done)
            continue;
        /* every data dim of the node was set (emit_set_data_dim), in order: then the checks */
        O2C_ASSERT(c, e->nseg > 0 && e->seg_dim[e->nseg - 1] == upto);
        emit_data_constraints(c, e, data_done, upto);
        data_done = upto + 1;
    }
    o2c_progress(c, "writing", g->nnodes, g->nnodes);
    /* outputs that no live node writes: folded values, inputs, constants, repeated outputs */
    for (int i = 0; i < g->noutputs; i++) {
        Value *v = g->outputs[i];
        bool written = v->producer && !v->producer->dead && v->output_index == i && !v->data && !v->kv;
        if (written)
            continue;
        const char *from;
        if (v->output_index != i && !v->data && !v->kv && v->kind != VAL_INPUT)
            from = arena_printf(c->arena, "outputs[%d]", v->output_index);
        else
            from = emit_ptr(e, v);
        emit_line(e, "/* output %d '%s' */", i, emit_comment_text(e, v->name));
        emit_line(e, "memcpy(outputs[%d], %s, (size_t)%s * sizeof(%s));", i, from,
                  emit_sym(e, ir_numel(c, v)), dtype_ctype(v->dtype));
    }
    for (int d = g->nin_dims; d < g->ndims; d++) /* CONTRACT §2b: the data dims' values */
        emit_line(e, "dims[%d] = %s;", d, dimname_cb(d, e));
    emit_line(e, "return 0;");
    end_function(e, api,
                 arena_printf(c->arena, "int %s_run%s(%sint64_t *dims, const void *const *inputs, "
                                        "void *const *outputs,\n        void *workspace%s)",
                              P, e->blob ? "_w" : "", g->ndims > g->nin_dims ? "" : "const ",
                              e->blob ? ", const void *weights" : ""),
                 check_guard, pre->data);
    e->nseg = 0;
    e->in_run = false;
    e->force_ws = false;

    /* check, last: it verifies every Sym the functions above compute */
    SymCtx *s = c->sym;
    Sym **sizes = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(g->ninputs + g->noutputs + 1));
    int nsizes = 0;
    sizes[nsizes++] = g->workspace;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < (pass ? g->noutputs : g->ninputs); i++) {
            Value *v = pass ? g->outputs[i] : g->inputs[i];
            sizes[nsizes++] = sym_mul(s, ir_numel(c, v), sym_const(s, (int64_t)dtype_size(v->dtype)));
        }
    write_check(c, e, fns, sizes, nsizes);
    buf_puts(fns, api->data ? api->data : "");

    /* assemble OUT.c, into Options.c_file as it is made when set; with --weights the blob and
     * FILE.S; then OUT.h, which gives the blob's size */
    Sink cs = {.c = c, .f = c->opt->c_file, .b = src,
               .what = c->opt->out_path ? c->opt->out_path : "OUT.c"};
    Buf *tx = buf_new(c->arena);
    buf_printf(tx, "/* %s.c - generated by onnx2c %s from ", P, O2C_VERSION);
    put_comment_text(tx, model_base(c), 160);
    buf_puts(tx, ". Do not edit.\n");
    buf_printf(tx, " * API: see %s.h.  Standalone C99: needs only the C library and libm. */\n", P);
    char U[256];
    upper(U, P, sizeof U);
    /* clock_gettime, for the profile build only */
    buf_printf(tx, "#if defined(%s_PROFILE) && !defined(%s_PROFILE_CLOCK) && !defined(_POSIX_C_SOURCE)\n"
                   "#define _POSIX_C_SOURCE 199309L\n#endif\n", U, U);
    buf_printf(tx, "#include \"%s\"\n\n#include <float.h>\n#include <limits.h>\n#include <math.h>\n"
                   "#include <stdint.h>\n#include <string.h>\n\n",
               c->header);
    buf_printf(tx, "#ifdef %s_PROFILE\n#include <time.h>\n#endif\n\n", U);
    sink_flush(&cs, tx);
    if (e->kernels.len) {
        sink_puts(&cs, "/* ---- kernels */\n\n");
        sink_putn(&cs, e->kernels.data, e->kernels.len);
    }
    buf_free(&e->kernels);
    uint64_t blob_size = 0;
    if (e->blob) {
        buf_puts(tx, "static int o2c_blob_ok(const void *weights); /* at the end */\n\n");
        sink_flush(&cs, tx);
    } else if (e->nw) {
        sink_puts(&cs, "/* ---- weights */\n\n");
        write_weights_c(e, &cs);
        sink_puts(&cs, "\n");
    }
    buf_puts(tx, "/* ---- API */\n\n");
    sink_flush(&cs, tx);
    sink_putn(&cs, fns->data, fns->len);
    if (e->blob) {
        Sink bs = {.c = c, .f = c->opt->weights_file, .b = blob, .what = weights_file_name(c)};
        unsigned char hdr[64];
        write_blob(e, &bs, hdr);
        blob_size = bs.n;
        write_blob_api(c, tx, hdr, bs.n, bs.fnv);
        sink_flush(&cs, tx);
        write_blob_asm(c, asm_src);
    }
    errno = 0;
    if (cs.f && fflush(cs.f) != 0)
        o2c_ioerror(c, "cannot write '%s': %s", cs.what, strerror(errno ? errno : EIO));
    write_header(c, h, blob_size);
    buf_free(tx);
    buf_free(&e->body);
    return blob_size;
}
