/* onnx_load.c — the first stage: an ONNX file into the IR.
 *
 * protobuf-c unpacks the ModelProto (compiler/onnx_subset.proto declares the fields we read).
 * Loading then runs in two phases so that no error can leak the unpacked message:
 *
 *   parse   ModelProto -> plain arena records (Tensors, Attrs, LdNode, LdInput).  Never throws:
 *           the first problem is written into Ld.msg and parsing stops.
 *   (the protobuf message is freed here, on every path)
 *   build   records -> Values, Nodes and dims through the ir_ functions; may throw freely.
 *
 * Before unpacking, the raw bytes are walked once against the message descriptors to bound
 * the nesting depth: protobuf-c recurses without a limit, and a crafted file of nested
 * subgraphs would otherwise overflow the stack.
 *
 * onnx2c_load_tensor shares the tensor decoding, with malloc instead of the arena. */
#include "onnx2c.h"
#include "onnx_subset.pb-c.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    MAX_NESTING = 100,     /* protobuf message depth, as protobuf's own default limit */
    MAX_RANK = 1024,       /* sanity bound for a tensor's rank */
    MAX_OWNED = 8,         /* malloc'd blocks of one standalone tensor */
};
#define MAX_FILE_BYTES ((size_t)INT_MAX) /* protobuf's 2 GB limit on one message */

/* ------------------------------------------------------------------ the loader's context */

typedef struct Ld {
    Compiler *c;         /* NULL for onnx2c_load_tensor: allocations are then malloc'd */
    const char *dir;     /* folder that external data paths are relative to */
    int status;          /* 0, or the exit status of the first error */
    char msg[768];       /* the first error (without the file/node prefix) */
    const char *node_op; /* the node the error is about (NULL: none) */
    const char *node_name;
    void *owned[MAX_OWNED]; /* standalone mode: blocks to free if decoding fails */
    int nowned;
    char realdir[PATH_MAX]; /* realpath of dir, once external data needs it ("" before) */
    const struct Payloads *pl; /* the raw_data moved out of the message (strip_payloads), or NULL */
} Ld;

/* Records the first error; returns false so callers can `return fail(...)`. */
__attribute__((format(printf, 3, 4))) static bool fail(Ld *L, int status, const char *fmt, ...) {
    if (L->status)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->msg, sizeof L->msg, fmt, ap);
    va_end(ap);
    L->status = status;
    return false;
}

/* Zeroed memory from the arena, or from malloc in standalone mode (NULL when out of memory). */
static void *ld_alloc(Ld *L, size_t n) {
    if (L->c)
        return arena_alloc(L->c->arena, n ? n : 1);
    if (L->nowned == MAX_OWNED)
        return NULL;
    void *p = calloc(1, n ? n : 1);
    if (p)
        L->owned[L->nowned++] = p;
    return p;
}

static char *ld_strdup(Ld *L, const char *s) {
    if (!s)
        s = "";
    size_t n = strlen(s);
    char *p = ld_alloc(L, n + 1);
    if (p)
        memcpy(p, s, n);
    return p;
}

_Noreturn __attribute__((format(printf, 4, 5))) static void
throw_status(Compiler *c, int status, const Node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    o2c_verror(c, status, n, fmt, ap);
}

/* ------------------------------------------------------------------ files */

/* Opens a file for reading without ever blocking: a FIFO or a terminal named as a model or as
 * external data would otherwise hang the compiler.  Anything but a regular file is refused.
 * Returns the descriptor, or -1 with *why set ("No such file or directory", "a directory"...). */
static int open_regular(const char *path, struct stat *st, const char **why) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    if (fstat(fd, st) != 0) {
        *why = strerror(errno);
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        *why = S_ISDIR(st->st_mode) ? "it is a directory"
             : S_ISFIFO(st->st_mode) ? "it is a FIFO, not a regular file"
             : S_ISSOCK(st->st_mode) ? "it is a socket, not a regular file"
             : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "it is a device, not a regular file"
             : "it is not a regular file";
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads `n` bytes at `offset`; false with errno set (0: the file ended early). */
static bool read_at(int fd, void *buf, size_t n, off_t offset) {
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t k = pread(fd, p, n > (1u << 30) ? (1u << 30) : n, offset);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = 0;
            return false;
        }
        p += k;
        n -= (size_t)k;
        offset += k;
    }
    return true;
}

enum { READ_OK, READ_OPEN, READ_TOO_BIG, READ_NOMEM, READ_IO };

/* Out of memory while a file is open: it is closed before unwinding. */
typedef struct FdOom {
    int fd;
    OomHandler prev;
} FdOom;

static void fd_oom(void *user) {
    FdOom *f = user;
    close(f->fd);
    arena_on_oom(f->prev);
    arena_oom();
}

/* Reads a whole regular file into a malloc'd buffer, or with a not NULL into an arena block
 * (arena_block; out of memory then unwinds).  Returns READ_OK, or the kind of failure with
 * *why set (READ_OPEN, READ_IO). */
static int read_file(const char *path, uint8_t **out, size_t *len, const char **why, Arena *a) {
    struct stat st;
    int fd = open_regular(path, &st, why);
    if (fd < 0)
        return READ_OPEN;
    if ((uint64_t)st.st_size > MAX_FILE_BYTES) {
        close(fd);
        return READ_TOO_BIG;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf;
    if (a) {
        FdOom fo = {fd, {NULL, NULL}};
        fo.prev = arena_on_oom((OomHandler){fd_oom, &fo});
        buf = arena_block(a, NULL, n ? n : 1);
        arena_on_oom(fo.prev);
    } else
        buf = malloc(n ? n : 1);
    if (!buf) {
        close(fd);
        return READ_NOMEM;
    }
    bool ok = read_at(fd, buf, n, 0);
    int err = errno;
    close(fd);
    if (!ok) {
        if (a)
            arena_block_free(a, buf);
        else
            free(buf);
        *why = err ? strerror(err) : "the file shrank while it was read";
        return READ_IO;
    }
    *out = buf;
    *len = n;
    return READ_OK;
}

/* ------------------------------------------------------------------ protobuf wire walk
 * Checks the nesting depth of the messages protobuf-c would recurse into.  Returns 0 when
 * fine, 1 when nested too deep, 2 when the bytes are not well-formed protobuf (*where: the
 * offset of the problem).  Only fields the descriptors declare as messages are entered, which
 * is exactly where protobuf-c recurses. */
static bool read_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 70 && *pos < len; shift += 7) {
        uint8_t b = p[(*pos)++];
        x |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 63);
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

static int wire_check(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t len,
                      int depth, size_t base, size_t *where) {
    size_t pos = 0;
    while (pos < len) {
        size_t start = pos;
        uint64_t tag, v;
        if (!read_varint(p, len, &pos, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) {
            *where = base + start;
            return 2;
        }
        switch (tag & 7) {
        case 0:
            if (!read_varint(p, len, &pos, &v)) {
                *where = base + start;
                return 2;
            }
            break;
        case 1:
        case 5: {
            size_t w = (tag & 7) == 1 ? 8 : 4;
            if (len - pos < w) {
                *where = base + start;
                return 2;
            }
            pos += w;
            break;
        }
        case 2: {
            if (!read_varint(p, len, &pos, &v) || v > len - pos) {
                *where = base + start;
                return 2;
            }
            const ProtobufCFieldDescriptor *fd =
                d ? protobuf_c_message_descriptor_get_field(d, (unsigned)(tag >> 3)) : NULL;
            if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (depth + 1 > MAX_NESTING) {
                    *where = base + start;
                    return 1;
                }
                int r = wire_check(fd->descriptor, p + pos, (size_t)v, depth + 1, base + pos, where);
                if (r)
                    return r;
            }
            pos += (size_t)v;
            break;
        }
        default: /* groups (3, 4) are not used by ONNX; 6, 7 do not exist */
            *where = base + start;
            return 2;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the weights' bytes
 * A model of hundreds of MB is almost all raw_data of its initializers, and protobuf-c copies
 * every bytes field out of the buffer it unpacks: the file would be in memory twice, and once
 * more if the loader then copied the tensors.  So the file's bytes, once wire_check found them
 * well-formed, are rewritten first (strip_payloads): the payload of every TensorProto raw_data
 * field moves to the front of the same buffer (16-byte aligned, in file order) and the message
 * without them, each raw_data replaced by the field o2c_payload = its index, goes to a small new
 * buffer that protobuf-c unpacks.  The file's buffer then shrinks to the payloads, and the
 * tensors point into it: the weights are in memory once, from the file to the end of the compile.
 * The walk enters only the fields on the way to a TensorProto (ModelProto.graph; GraphProto.node
 * and initializer; NodeProto.attribute; AttributeProto t, g, tensors and graphs; wire_check
 * bounds its depth); a sub-message's length is written as a 5-byte varint, patched when its end
 * is known (protobuf accepts padded varints).  A file's own field 2047 in a TensorProto is
 * dropped, so every o2c_payload is the loader's. */

typedef struct Payload {
    size_t off, len; /* len bytes at off in the file's buffer ... */
    uint8_t *own;    /* ... or, when not NULL, here (see move_payload) */
} Payload;

typedef struct Payloads {
    int n, cap;
    Payload *p;
    uint8_t **data; /* once the buffer has its final place: where payload k is */
    size_t *len;
} Payloads;

typedef enum { PB_MODEL, PB_GRAPH, PB_NODE, PB_ATTR, PB_TENSOR, PB_OTHER } PbKind;
enum { F_PAYLOAD = 2047 }; /* TensorProto.o2c_payload */

/* The kind of message field f of a k message holds, where the walk enters it. */
static PbKind pb_sub(PbKind k, uint64_t f) {
    switch (k) {
    case PB_MODEL: return f == 7 ? PB_GRAPH : PB_OTHER;
    case PB_GRAPH: return f == 1 ? PB_NODE : f == 5 ? PB_TENSOR : PB_OTHER;
    case PB_NODE: return f == 5 ? PB_ATTR : PB_OTHER;
    case PB_ATTR: return f == 5 || f == 10 ? PB_TENSOR : f == 6 || f == 11 ? PB_GRAPH : PB_OTHER;
    default: return PB_OTHER;
    }
}

typedef struct Strip {
    Compiler *c;
    uint8_t *buf;  /* the file's bytes */
    size_t len;
    size_t front;  /* the payloads moved so far end here */
    Buf *msg;      /* the message without them */
    Payloads *pl;
} Strip;

static void put_varint(Buf *b, uint64_t v) {
    char t[10];
    size_t n = 0;
    do {
        t[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    buf_putn(b, t, n);
}

/* Moves payload [p, p + n) of the buffer to its front, 16-byte aligned, and records it; returns
 * its index.  Everything below p + n has been read by then, so the move may overwrite it; when
 * the alignment would take it past p (a payload after a few bytes of message), it is copied to
 * a block of its own instead. */
static uint64_t move_payload(Strip *S, size_t p, size_t n) {
    Payloads *pl = S->pl;
    Arena *a = S->c->arena;
    pl->p = arena_grow(a, pl->p, pl->n, &pl->cap, 256, sizeof *pl->p);
    Payload *e = &pl->p[pl->n];
    size_t at = (S->front + 15) & ~(size_t)15;
    e->len = n;
    if (n && at <= p) {
        memmove(S->buf + at, S->buf + p, n);
        e->off = at;
        S->front = at + n;
    } else /* (an empty one too: a tensor's data is never NULL) */
        e->own = arena_dup(a, S->buf + p, n);
    return (uint64_t)pl->n++;
}

/* Writes the message [pos, end) of kind k without its payloads into S->msg. */
static void strip_msg(Strip *S, PbKind k, size_t pos, size_t end) {
    while (pos < end) { /* wire_check passed: every read below succeeds */
        size_t start = pos;
        uint64_t tag = 0, v = 0;
        read_varint(S->buf, end, &pos, &tag);
        uint64_t f = tag >> 3;
        if ((tag & 7) != 2) {
            if ((tag & 7) == 0)
                read_varint(S->buf, end, &pos, &v);
            else
                pos += (tag & 7) == 1 ? 8 : 4;
            if (!(k == PB_TENSOR && f == F_PAYLOAD))
                buf_putn(S->msg, (const char *)S->buf + start, pos - start);
            continue;
        }
        read_varint(S->buf, end, &pos, &v);
        size_t p = pos;
        pos += (size_t)v;
        PbKind sub = pb_sub(k, f);
        if (k == PB_TENSOR && f == 9) { /* raw_data */
            put_varint(S->msg, (uint64_t)F_PAYLOAD << 3);
            put_varint(S->msg, move_payload(S, p, (size_t)v));
        } else if (k == PB_TENSOR && f == F_PAYLOAD) {
            /* not ONNX's: dropped */
        } else if (sub == PB_OTHER)
            buf_putn(S->msg, (const char *)S->buf + start, pos - start);
        else {
            put_varint(S->msg, tag);
            size_t at = S->msg->len;
            buf_putn(S->msg, "\0\0\0\0\0", 5);
            strip_msg(S, sub, p, pos);
            size_t n = S->msg->len - at - 5;
            for (int i = 0; i < 5; i++) /* a padded varint: 4 bytes with continuation bits */
                S->msg->data[at + (size_t)i] = (char)(((n >> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0));
        }
    }
}

/* strip_payloads on buf (len bytes, an arena block): the message without its payloads goes to
 * msg, the payloads to pl, and the buffer shrinks to them (freed when there are none). */
static void strip_payloads(Compiler *c, uint8_t *buf, size_t len, Buf *msg, Payloads *pl) {
    Strip S = {c, buf, len, 0, msg, pl};
    strip_msg(&S, PB_MODEL, 0, len);
    uint8_t *kept = NULL;
    if (S.front)
        kept = arena_block(c->arena, buf, S.front);
    else
        arena_block_free(c->arena, buf);
    pl->data = arena_alloc(c->arena, sizeof(uint8_t *) * (size_t)(pl->n + 1));
    pl->len = arena_alloc(c->arena, sizeof(size_t) * (size_t)(pl->n + 1));
    for (int k = 0; k < pl->n; k++) {
        pl->data[k] = pl->p[k].own ? pl->p[k].own : kept + pl->p[k].off;
        pl->len[k] = pl->p[k].len;
    }
}

/* ------------------------------------------------------------------ tensors */

static bool host_is_little_endian(void) {
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static void to_host_order(void *data, int64_t nelem, size_t esize) {
    if (host_is_little_endian() || esize == 1)
        return;
    uint8_t *p = data;
    for (int64_t i = 0; i < nelem; i++, p += esize)
        for (size_t a = 0, b = esize - 1; a < b; a++, b--) {
            uint8_t t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* "[2, 3, 4]" into buf, for messages. */
static const char *shape_str(char *buf, size_t cap, int rank, const int64_t *dims) {
    size_t n = 0;
    buf[0] = 0;
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (int i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
    return buf;
}

/* A data type we can hold as dense bytes; otherwise records why not. */
static bool check_dtype(Ld *L, const char *what, bool has, int32_t t) {
    if (!has || t == DT_UNDEFINED)
        return fail(L, O2C_EMODEL, "%s has no data type", what);
    if (t == DT_STRING)
        return fail(L, O2C_EMODEL, "%s: string tensors are not supported", what);
    if (t == DT_COMPLEX64 || t == DT_COMPLEX128)
        return fail(L, O2C_EMODEL, "%s: %s tensors are not supported", what,
                    dtype_name((DType)t));
    if (t < 0 || t > DT_BFLOAT16 || dtype_size((DType)t) == 0)
        return fail(L, O2C_EMODEL, "%s has unknown data type %d", what, (int)t);
    return true;
}

static bool parse_i64(const char *s, int64_t *out) {
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < 0)
        return false;
    *out = v;
    return true;
}

/* Reads `bytes` bytes of external data (keys location/offset/length) into *out. */
static bool read_external(Ld *L, const Onnx__TensorProto *tp, const char *what, size_t bytes,
                          void **out) {
    const char *location = NULL, *offset_s = NULL, *length_s = NULL;
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        if (!e->key)
            continue;
        if (strcmp(e->key, "location") == 0)
            location = e->value;
        else if (strcmp(e->key, "offset") == 0)
            offset_s = e->value;
        else if (strcmp(e->key, "length") == 0)
            length_s = e->value;
    }
    if (!location || !*location)
        return fail(L, O2C_EMODEL, "%s: external data has no location", what);
    /* The file must lie inside the model's folder: no absolute path, no '..' component. */
    if (location[0] == '/' || location[0] == '\\')
        return fail(L, O2C_EMODEL,
                    "%s: external data location '%s' is an absolute path (it must be relative "
                    "to the model's folder)", what, location);
    for (const char *p = location; *p;) {
        size_t k = strcspn(p, "/\\");
        if (k == 2 && p[0] == '.' && p[1] == '.')
            return fail(L, O2C_EMODEL,
                        "%s: external data location '%s' escapes the model's folder", what,
                        location);
        p += k;
        if (*p)
            p++;
    }
    int64_t offset = 0, length = -1;
    if (offset_s && !parse_i64(offset_s, &offset))
        return fail(L, O2C_EMODEL, "%s: external data offset '%s' is not a valid number", what,
                    offset_s);
    if (length_s && !parse_i64(length_s, &length))
        return fail(L, O2C_EMODEL, "%s: external data length '%s' is not a valid number", what,
                    length_s);
    if (length >= 0 && (uint64_t)length != bytes)
        return fail(L, O2C_EMODEL,
                    "%s: external data length %lld does not match its shape (%zu bytes)", what,
                    (long long)length, bytes);

    char path[4096];
    const char *dir = L->dir && *L->dir ? L->dir : ".";
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, location) >= sizeof path)
        return fail(L, O2C_EMODEL, "%s: external data path '%s' is too long", what, location);
    /* Symlinks (of the file or of a sub-folder) may point anywhere: the real path of the file
     * must lie inside the real path of the model's folder. */
    if (!L->realdir[0] && !realpath(dir, L->realdir))
        return fail(L, O2C_EIO, "%s: cannot resolve the model's folder '%s': %s", what, dir,
                    strerror(errno));
    char real[PATH_MAX];
    if (!realpath(path, real))
        return fail(L, O2C_EIO, "%s: cannot open external data file '%s': %s", what, path,
                    strerror(errno));
    size_t dl = strlen(L->realdir);
    bool inside = strncmp(real, L->realdir, dl) == 0 &&
                  (real[dl] == '/' || (dl == 1 && L->realdir[0] == '/'));
    if (!inside)
        return fail(L, O2C_EMODEL,
                    "%s: external data location '%s' escapes the model's folder (through a "
                    "symbolic link, to '%s')", what, location, real);
    struct stat st;
    const char *why = NULL;
    int fd = open_regular(real, &st, &why);
    if (fd < 0)
        return fail(L, O2C_EIO, "%s: cannot open external data file '%s': %s", what, path, why);
    if ((uint64_t)offset > (uint64_t)st.st_size || bytes > (uint64_t)st.st_size - (uint64_t)offset) {
        close(fd);
        return fail(L, O2C_EMODEL,
                    "%s: external data file '%s' is too short: needs %zu bytes at offset %lld, "
                    "the file has %lld", what, path, bytes, (long long)offset,
                    (long long)st.st_size);
    }
    void *data = ld_alloc(L, bytes);
    if (!data) {
        close(fd);
        return fail(L, O2C_EMODEL, "%s: out of memory", what);
    }
    bool ok = read_at(fd, data, bytes, (off_t)offset);
    int err = errno;
    close(fd);
    if (!ok)
        return fail(L, O2C_EIO, "%s: cannot read external data file '%s': %s", what, path,
                    err ? strerror(err) : "short read");
    *out = data;
    return true;
}

/* Decodes a TensorProto into *t: dims, dense little-endian data, name.  `what` names the
 * tensor in messages ("initializer 'W'"). */
static bool convert_tensor(Ld *L, const Onnx__TensorProto *tp, const char *what, Tensor *t) {
    if (!check_dtype(L, what, tp->has_data_type, tp->data_type))
        return false;
    DType dt = (DType)tp->data_type;
    size_t esize = dtype_size(dt);
    if (tp->n_dims > MAX_RANK)
        return fail(L, O2C_EMODEL, "%s has rank %zu, more than %d", what, tp->n_dims, MAX_RANK);
    int rank = (int)tp->n_dims;
    /* element count, refusing overflow: the byte size must fit comfortably in size_t */
    uint64_t nelem = 1, limit = (uint64_t)(PTRDIFF_MAX / 2) / esize;
    bool zero = false;
    for (int i = 0; i < rank; i++) {
        if (tp->dims[i] < 0)
            return fail(L, O2C_EMODEL, "%s: dimension %d is negative (%lld)", what, i,
                        (long long)tp->dims[i]);
        if (tp->dims[i] == 0)
            zero = true;
    }
    if (zero)
        nelem = 0;
    else
        for (int i = 0; i < rank; i++) {
            if ((uint64_t)tp->dims[i] > limit / nelem)
                return fail(L, O2C_EMODEL, "%s is too large", what);
            nelem *= (uint64_t)tp->dims[i];
        }
    size_t bytes = (size_t)nelem * esize;
    char sh[256];

    t->dtype = dt;
    t->rank = rank;
    t->nelem = (int64_t)nelem;
    t->dims = ld_alloc(L, sizeof(int64_t) * (size_t)(rank ? rank : 1));
    t->name = ld_strdup(L, tp->name);
    if (!t->dims || !t->name)
        return fail(L, O2C_EMODEL, "%s: out of memory", what);
    if (rank)
        memcpy(t->dims, tp->dims, sizeof(int64_t) * (size_t)rank);

    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        if (!read_external(L, tp, what, bytes, &t->data))
            return false;
        to_host_order(t->data, t->nelem, esize);
        return true;
    }
    ProtobufCBinaryData raw = tp->raw_data;
    bool has_raw = tp->has_raw_data, moved = false;
    if (L->pl && tp->has_o2c_payload && tp->o2c_payload < (uint64_t)L->pl->n) {
        raw.data = L->pl->data[tp->o2c_payload];
        raw.len = L->pl->len[tp->o2c_payload];
        has_raw = moved = true;
    }
    if (moved && raw.len == bytes) { /* the bytes stay where strip_payloads put them */
        t->data = raw.data;
        to_host_order(t->data, t->nelem, esize);
        return true;
    }
    if (has_raw) {
        if (raw.len != bytes)
            return fail(L, O2C_EMODEL,
                        "%s has %zu bytes of raw_data but its shape %s of %s needs %zu", what,
                        raw.len, shape_str(sh, sizeof sh, rank, t->dims),
                        dtype_name(dt), bytes);
        t->data = ld_alloc(L, bytes);
        if (!t->data)
            return fail(L, O2C_EMODEL, "%s: out of memory", what);
        if (bytes)
            memcpy(t->data, raw.data, bytes);
        to_host_order(t->data, t->nelem, esize);
        return true;
    }

    /* the typed field that holds this data type (ONNX's TensorProto comments) */
    size_t have;
    const char *field;
    switch (dt) {
    case DT_FLOAT: have = tp->n_float_data, field = "float_data"; break;
    case DT_INT64: have = tp->n_int64_data, field = "int64_data"; break;
    case DT_DOUBLE: have = tp->n_double_data, field = "double_data"; break;
    case DT_UINT32: case DT_UINT64: have = tp->n_uint64_data, field = "uint64_data"; break;
    default: have = tp->n_int32_data, field = "int32_data"; break;
    }
    if (have != nelem) {
        if (have == 0 && !tp->n_float_data && !tp->n_int32_data && !tp->n_int64_data &&
            !tp->n_double_data && !tp->n_uint64_data)
            return fail(L, O2C_EMODEL, "%s has no data (its shape %s needs %llu elements)", what,
                        shape_str(sh, sizeof sh, rank, t->dims), (unsigned long long)nelem);
        return fail(L, O2C_EMODEL, "%s has %zu values in %s but its shape %s needs %llu", what,
                    have, field, shape_str(sh, sizeof sh, rank, t->dims),
                    (unsigned long long)nelem);
    }
    t->data = ld_alloc(L, bytes);
    if (!t->data)
        return fail(L, O2C_EMODEL, "%s: out of memory", what);
    for (size_t i = 0; i < nelem; i++) {
        switch (dt) {
        case DT_FLOAT: ((float *)t->data)[i] = tp->float_data[i]; break;
        case DT_INT64: ((int64_t *)t->data)[i] = tp->int64_data[i]; break;
        case DT_DOUBLE: ((double *)t->data)[i] = tp->double_data[i]; break;
        case DT_UINT32: ((uint32_t *)t->data)[i] = (uint32_t)tp->uint64_data[i]; break;
        case DT_UINT64: ((uint64_t *)t->data)[i] = tp->uint64_data[i]; break;
        case DT_INT32: ((int32_t *)t->data)[i] = tp->int32_data[i]; break;
        case DT_INT16: ((int16_t *)t->data)[i] = (int16_t)tp->int32_data[i]; break;
        case DT_INT8: ((int8_t *)t->data)[i] = (int8_t)tp->int32_data[i]; break;
        case DT_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)tp->int32_data[i]; break;
        case DT_BOOL: ((uint8_t *)t->data)[i] = tp->int32_data[i] != 0; break;
        /* uint16, float16 and bfloat16 are stored as their 16-bit patterns */
        default: ((uint16_t *)t->data)[i] = (uint16_t)tp->int32_data[i]; break;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ parse: protobuf -> records */

typedef struct LdInput {
    const char *name;
    DType dtype;
    int rank;
    int64_t *size;      /* dim_value, when param[i] is NULL */
    const char **param; /* dim name (dim_param or INPUT_AXIS), or NULL for a fixed size */
    bool seq;           /* a subgraph's formal input of sequence type (its elements' dtype) */
} LdInput;

typedef struct LdNode {
    const char *op_type, *name, *domain;
    int opset;
    int nin, nout;
    const char **in, **out; /* "" for omitted optional ones */
    int nattr;
    Attr *attrs;
} LdNode;

typedef struct LdModel {
    int64_t ir_version;
    int opset; /* default domain, 0 when not imported */
    const char *name;
    int ninit, ninputs, noutputs, nnodes;
    Tensor *inits;
    LdInput *inputs;
    const char **outputs;
    LdNode *nodes;
    int ndecls;
    LdInput *decls; /* declared types of outputs and value_info (param NULL and size -1: unknown) */
} LdModel;

typedef struct Opsets {
    int n;
    const char **domain;
    int *version;
    bool has_default;
    int default_version;
} Opsets;

static bool is_default_domain(const char *d) {
    return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

static bool parse_opsets(Ld *L, const Onnx__ModelProto *m, Opsets *o) {
    Arena *a = L->c->arena;
    o->domain = arena_alloc(a, sizeof(char *) * (m->n_opset_import + 1));
    o->version = arena_alloc(a, sizeof(int) * (m->n_opset_import + 1));
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *op = m->opset_import[i];
        const char *d = is_default_domain(op->domain) ? "" : op->domain;
        if (!op->has_version || op->version < 1 || op->version > INT_MAX)
            return fail(L, O2C_EMODEL, "opset_import for domain '%s' has an invalid version (%lld)",
                        op->domain ? op->domain : "", (long long)op->version);
        int k;
        for (k = 0; k < o->n; k++)
            if (strcmp(o->domain[k], d) == 0)
                break;
        if (k < o->n) {
            if (o->version[k] != (int)op->version)
                return fail(L, O2C_EMODEL, "opset_import lists domain '%s' twice, with versions %d "
                            "and %lld", d, o->version[k], (long long)op->version);
            continue;
        }
        o->domain[o->n] = arena_strdup(a, d);
        o->version[o->n++] = (int)op->version;
        if (!*d) {
            o->has_default = true;
            o->default_version = (int)op->version;
        }
    }
    /* IR versions 1 and 2 predate opset_import: they mean opset 1 */
    if (m->n_opset_import == 0 && m->has_ir_version && m->ir_version < 3) {
        o->has_default = true;
        o->default_version = 1;
    }
    return true;
}

static bool parse_body(Ld *L, const Onnx__GraphProto *g, const Opsets *o, LdModel *M, bool top);

static bool parse_attr(Ld *L, const Onnx__AttributeProto *ap, Attr *a, const Opsets *o) {
    Arena *ar = L->c->arena;
    if (!ap->name || !*ap->name)
        return fail(L, O2C_EMODEL, "an attribute has no name");
    a->name = arena_strdup(ar, ap->name);
    if (strncmp(ap->name, "o2c_", 4) == 0) /* the lowering's own (lower.c: fused epilogues) */
        return fail(L, O2C_EMODEL, "attribute '%s': names beginning with 'o2c_' are reserved "
                    "for onnx2c", ap->name);
    if (ap->ref_attr_name && *ap->ref_attr_name)
        return fail(L, O2C_EMODEL, "attribute '%s' refers to the function attribute '%s': "
                    "function bodies are not supported", ap->name, ap->ref_attr_name);
    int type = ap->has_type ? (int)ap->type : ATTR_UNDEFINED;
    if (type == ATTR_UNDEFINED) {
        /* files from before IR version 2 may leave `type` out: tell it from the field set */
        type = ap->has_f ? ATTR_FLOAT : ap->has_i ? ATTR_INT : ap->has_s ? ATTR_STRING
             : ap->t ? ATTR_TENSOR : ap->g ? ATTR_GRAPH : ap->n_floats ? ATTR_FLOATS
             : ap->n_ints ? ATTR_INTS : ap->n_strings ? ATTR_STRINGS
             : ap->n_tensors ? ATTR_TENSORS : ap->n_graphs ? ATTR_GRAPHS : ATTR_UNDEFINED;
        if (type == ATTR_UNDEFINED)
            return fail(L, O2C_EMODEL, "attribute '%s' has no type and no value", ap->name);
    }
    if (type < ATTR_FLOAT || type > ATTR_TYPE_PROTOS)
        return fail(L, O2C_EMODEL, "attribute '%s' has unknown type %d", ap->name, type);
    a->type = (AttrType)type;
    if (ap->n_floats > INT_MAX || ap->n_ints > INT_MAX || ap->n_strings > INT_MAX)
        return fail(L, O2C_EMODEL, "attribute '%s' is too long", ap->name);
    switch (a->type) {
    case ATTR_FLOAT: a->f = ap->f; break;
    case ATTR_INT: a->i = ap->i; break;
    case ATTR_STRING:
        a->slen = ap->s.len;
        a->s = arena_strndup(ar, ap->s.len ? (const char *)ap->s.data : "", ap->s.len);
        break;
    case ATTR_TENSOR: {
        if (!ap->t)
            return fail(L, O2C_EMODEL, "attribute '%s' has type TENSOR but no tensor", ap->name);
        char what[300];
        snprintf(what, sizeof what, "attribute '%s'", ap->name);
        a->t = arena_alloc(ar, sizeof(Tensor));
        if (!convert_tensor(L, ap->t, what, a->t))
            return false;
        break;
    }
    case ATTR_FLOATS:
        a->n = (int)ap->n_floats;
        a->floats = arena_alloc(ar, sizeof(float) * (ap->n_floats + 1));
        if (ap->n_floats)
            memcpy(a->floats, ap->floats, sizeof(float) * ap->n_floats);
        break;
    case ATTR_INTS:
        a->n = (int)ap->n_ints;
        a->ints = arena_alloc(ar, sizeof(int64_t) * (ap->n_ints + 1));
        if (ap->n_ints)
            memcpy(a->ints, ap->ints, sizeof(int64_t) * ap->n_ints);
        break;
    case ATTR_STRINGS:
        a->n = (int)ap->n_strings;
        a->strings = arena_alloc(ar, sizeof(char *) * (ap->n_strings + 1));
        for (size_t i = 0; i < ap->n_strings; i++)
            a->strings[i] = arena_strndup(ar, ap->strings[i].len ? (const char *)ap->strings[i].data : "",
                                          ap->strings[i].len);
        break;
    case ATTR_GRAPH: {
        /* a subgraph (If's branches, Loop's and Scan's bodies): its records, built into a
         * region of the control node (build_region) */
        if (!ap->g)
            return fail(L, O2C_EMODEL, "attribute '%s' has type GRAPH but no graph", ap->name);
        LdModel *sub = arena_alloc(ar, sizeof(LdModel));
        const char *op = L->node_op, *name = L->node_name;
        if (!parse_body(L, ap->g, o, sub, false))
            return false;
        L->node_op = op; /* errors below are about the control node again */
        L->node_name = name;
        a->sub = sub;
        break;
    }
    default:
        /* GRAPHS, TENSORS, SPARSE_TENSOR(S), TYPE_PROTO(S): the type alone; ops that take
         * them are rejected by later stages */
        break;
    }
    return true;
}

static bool parse_node(Ld *L, const Onnx__NodeProto *np, const Opsets *o, LdNode *ln) {
    Arena *a = L->c->arena;
    ln->op_type = arena_strdup(a, np->op_type ? np->op_type : "");
    ln->name = arena_strdup(a, np->name ? np->name : "");
    ln->domain = arena_strdup(a, np->domain ? np->domain : "");
    if (!*ln->op_type)
        return fail(L, O2C_EMODEL, "a node (named '%s') has no op_type", ln->name);
    L->node_op = ln->op_type; /* errors below are about this node */
    L->node_name = ln->name;
    if (is_default_domain(ln->domain)) {
        if (!o->has_default)
            return fail(L, O2C_EMODEL, "the model imports no opset for the default ONNX domain "
                        "(opset_import is missing it)");
        ln->opset = o->default_version;
    } else {
        int k;
        for (k = 0; k < o->n; k++)
            if (strcmp(o->domain[k], ln->domain) == 0)
                break;
        if (k == o->n)
            return fail(L, O2C_EMODEL, "domain '%s' is not listed in the model's opset_import",
                        ln->domain);
        ln->opset = o->version[k];
    }
    if (np->n_input > INT_MAX || np->n_output > INT_MAX || np->n_attribute > INT_MAX)
        return fail(L, O2C_EMODEL, "too many inputs, outputs or attributes");
    ln->nin = (int)np->n_input;
    ln->in = arena_alloc(a, sizeof(char *) * (np->n_input + 1));
    for (size_t i = 0; i < np->n_input; i++)
        ln->in[i] = arena_strdup(a, np->input[i] ? np->input[i] : "");
    /* omitted trailing outputs are dropped; interior ones become NULL Values in build */
    size_t nout = np->n_output;
    while (nout > 0 && (!np->output[nout - 1] || !*np->output[nout - 1]))
        nout--;
    ln->nout = (int)nout;
    ln->out = arena_alloc(a, sizeof(char *) * (nout + 1));
    for (size_t i = 0; i < nout; i++)
        ln->out[i] = arena_strdup(a, np->output[i] ? np->output[i] : "");
    ln->nattr = (int)np->n_attribute;
    ln->attrs = arena_alloc(a, sizeof(Attr) * (np->n_attribute + 1));
    for (size_t i = 0; i < np->n_attribute; i++) {
        if (!parse_attr(L, np->attribute[i], &ln->attrs[i], o))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(ln->attrs[j].name, ln->attrs[i].name) == 0)
                return fail(L, O2C_EMODEL, "attribute '%s' is given twice", ln->attrs[i].name);
    }
    L->node_op = L->node_name = NULL;
    return true;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool parse_input(Ld *L, const Onnx__ValueInfoProto *vi, LdInput *in) {
    Arena *a = L->c->arena;
    const char *name = in->name;
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)
        return fail(L, O2C_EMODEL, "input '%s' has no type", name);
    switch (tp->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
        return fail(L, O2C_EMODEL, "input '%s' is a sequence: the generated API takes dense tensors only "
                    "(CONTRACT.md); sequences are supported inside the graph", name);
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
        return fail(L, O2C_EMODEL, "input '%s' is a map: only tensor inputs are supported", name);
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
        return fail(L, O2C_EMODEL, "input '%s' is an optional: the generated API takes dense tensors only "
                    "(CONTRACT.md)", name);
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        return fail(L, O2C_EMODEL, "input '%s' is a sparse tensor: only dense tensor inputs are "
                    "supported", name);
    default:
        return fail(L, O2C_EMODEL, "input '%s' has an unknown kind of type", name);
    }
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    char what[300];
    snprintf(what, sizeof what, "input '%s'", name);
    if (tt->has_elem_type && tt->elem_type == DT_STRING)
        return fail(L, O2C_EMODEL, "input '%s' is a string tensor: strings are not supported (CONTRACT.md: "
                    "the generated API carries numeric tensors; no C form of strings is defined)",
                    name);
    if (!check_dtype(L, what, tt->has_elem_type, tt->elem_type))
        return false;
    in->dtype = (DType)tt->elem_type;
    if (!tt->shape)
        return fail(L, O2C_EMODEL, "input '%s' has no shape", name);
    if (tt->shape->n_dim > MAX_RANK)
        return fail(L, O2C_EMODEL, "input '%s' has rank %zu, more than %d", name,
                    tt->shape->n_dim, MAX_RANK);
    in->rank = (int)tt->shape->n_dim;
    in->size = arena_alloc(a, sizeof(int64_t) * (size_t)(in->rank + 1));
    in->param = arena_alloc(a, sizeof(char *) * (size_t)(in->rank + 1));
    for (int i = 0; i < in->rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (d->dim_value < 0)
                return fail(L, O2C_EMODEL, "input '%s': dimension %d is negative (%lld)", name, i,
                            (long long)d->dim_value);
            in->size[i] = d->dim_value;
        } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                   d->dim_param && *d->dim_param) {
            in->param[i] = arena_strdup(a, d->dim_param);
        } else {
            /* a dynamic axis without a name: INPUT_AXIS (CONTRACT.md §2) */
            in->param[i] = arena_printf(a, "%s_%d", name, i);
        }
    }
    return true;
}

/* A declared tensor type (graph output, value_info): never an error, anything unusable is
 * just not recorded.  Returns false when there is nothing to record. */
static bool parse_decl(Ld *L, const Onnx__ValueInfoProto *vi, LdInput *d) {
    Arena *a = L->c->arena;
    const Onnx__TypeProto *tp = vi->type;
    if (!vi->name || !*vi->name || !tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        return false;
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (!tt || !tt->shape || tt->shape->n_dim > MAX_RANK)
        return false;
    d->name = arena_strdup(a, vi->name);
    d->dtype = tt->has_elem_type && tt->elem_type > 0 && tt->elem_type <= DT_BFLOAT16
                   ? (DType)tt->elem_type : DT_UNDEFINED;
    d->rank = (int)tt->shape->n_dim;
    d->size = arena_alloc(a, sizeof(int64_t) * (size_t)(d->rank + 1));
    d->param = arena_alloc(a, sizeof(char *) * (size_t)(d->rank + 1));
    for (int i = 0; i < d->rank; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[i];
        d->size[i] = -1;
        if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dm->dim_value >= 0)
            d->size[i] = dm->dim_value;
        else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                 dm->dim_param && *dm->dim_param)
            d->param[i] = arena_strdup(a, dm->dim_param);
    }
    return true;
}

/* A subgraph's formal input: its name, and its declared type when it has one (rank -1: none). */
static bool parse_formal(Ld *L, const Onnx__ValueInfoProto *vi, LdInput *in) {
    const Onnx__TypeProto *tp = vi->type;
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
        /* a sequence of tensors (a Loop's carried list): its elements' type when given */
        const Onnx__TypeProto *et = tp->sequence_type ? tp->sequence_type->elem_type : NULL;
        if (et && et->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET &&
            et->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
            return fail(L, O2C_EMODEL, "subgraph input '%s' is a sequence of non-tensors",
                        in->name);
        in->seq = true;
        in->rank = -1;
        in->dtype = et && et->tensor_type && et->tensor_type->has_elem_type &&
                            et->tensor_type->elem_type > 0 && et->tensor_type->elem_type <= DT_BFLOAT16
                        ? (DType)et->tensor_type->elem_type : DT_UNDEFINED;
        return true;
    }
    if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET &&
        tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        return fail(L, O2C_EMODEL, "subgraph input '%s' is not a tensor or a sequence (maps and "
                    "optionals are not supported)", in->name);
    if (tp && tp->tensor_type && tp->tensor_type->has_elem_type &&
        tp->tensor_type->elem_type == DT_STRING)
        return fail(L, O2C_EMODEL, "subgraph input '%s' is a string tensor: strings are not "
                    "supported", in->name);
    const char *name = in->name;
    if (!parse_decl(L, vi, in)) {
        in->rank = -1;
        in->dtype = DT_UNDEFINED;
    }
    in->name = name;
    return true;
}

static bool parse_graph(Ld *L, const Onnx__ModelProto *m, LdModel *M) {
    const Onnx__GraphProto *g = m->graph;
    if (!g)
        return fail(L, O2C_EMODEL, "not a valid ONNX model: it has no graph");
    Opsets *o = arena_alloc(L->c->arena, sizeof(Opsets));
    if (!parse_opsets(L, m, o))
        return false;
    M->ir_version = m->has_ir_version ? m->ir_version : 0;
    M->opset = o->has_default ? o->default_version : 0;
    return parse_body(L, g, o, M, true);
}

/* A graph's records: the model's (top) or a subgraph's, whose inputs are formal parameters
 * (a name, and a type that may leave the shape out). */
static bool parse_body(Ld *L, const Onnx__GraphProto *g, const Opsets *o, LdModel *M, bool top) {
    Arena *a = L->c->arena;
    M->name = arena_strdup(a, g->name ? g->name : "");
    if (g->n_node > INT_MAX || g->n_initializer > INT_MAX || g->n_input > INT_MAX ||
        g->n_output > INT_MAX)
        return fail(L, O2C_EMODEL, "the graph is too large");
    if (g->n_sparse_initializer)
        return fail(L, O2C_EMODEL, "sparse initializers are not supported ('%s')",
                    g->sparse_initializer[0]->values && g->sparse_initializer[0]->values->name
                        ? g->sparse_initializer[0]->values->name : "?");

    /* initializers, and their sorted names to tell old-IR inputs that repeat them */
    M->ninit = (int)g->n_initializer;
    M->inits = arena_alloc(a, sizeof(Tensor) * (g->n_initializer + 1));
    const char **names = arena_alloc(a, sizeof(char *) * (g->n_initializer + 1));
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        if (!tp->name || !*tp->name)
            return fail(L, O2C_EMODEL, "initializer %zu has no name", i);
        char what[300];
        snprintf(what, sizeof what, "initializer '%s'", tp->name);
        if (!convert_tensor(L, tp, what, &M->inits[i]))
            return false;
        names[i] = M->inits[i].name;
    }
    qsort(names, g->n_initializer, sizeof *names, cmp_str);
    for (size_t i = 1; i < g->n_initializer; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            return fail(L, O2C_EMODEL, "initializer '%s' is defined twice", names[i]);

    /* runtime inputs: graph inputs that are not initializers */
    M->inputs = arena_alloc(a, sizeof(LdInput) * (g->n_input + 1));
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        if (!vi->name || !*vi->name)
            return fail(L, O2C_EMODEL, "graph input %zu has no name", i);
        if (top && bsearch(&vi->name, names, g->n_initializer, sizeof *names, cmp_str))
            continue;
        LdInput *in = &M->inputs[M->ninputs];
        in->name = arena_strdup(a, vi->name);
        if (top ? !parse_input(L, vi, in) : !parse_formal(L, vi, in))
            return false;
        M->ninputs++;
    }
    /* an input listed twice (sorted: n log n, models may have tens of thousands of inputs) */
    const char **inames = arena_alloc(a, sizeof(char *) * (size_t)(M->ninputs + 1));
    for (int i = 0; i < M->ninputs; i++)
        inames[i] = M->inputs[i].name;
    qsort(inames, (size_t)M->ninputs, sizeof *inames, cmp_str);
    for (int i = 1; i < M->ninputs; i++)
        if (strcmp(inames[i - 1], inames[i]) == 0)
            return fail(L, O2C_EMODEL, "input '%s' is listed twice", inames[i]);

    M->noutputs = (int)g->n_output;
    M->outputs = arena_alloc(a, sizeof(char *) * (g->n_output + 1));
    for (size_t i = 0; i < g->n_output; i++) {
        if (!g->output[i]->name || !*g->output[i]->name)
            return fail(L, O2C_EMODEL, "graph output %zu has no name", i);
        M->outputs[i] = arena_strdup(a, g->output[i]->name);
    }
    M->decls = arena_alloc(a, sizeof(LdInput) * (g->n_output + g->n_value_info + 1));
    for (size_t i = 0; i < g->n_output + g->n_value_info; i++)
        if (parse_decl(L, i < g->n_output ? g->output[i] : g->value_info[i - g->n_output],
                       &M->decls[M->ndecls]))
            M->ndecls++;

    M->nnodes = (int)g->n_node;
    M->nodes = arena_alloc(a, sizeof(LdNode) * (g->n_node + 1));
    for (size_t i = 0; i < g->n_node; i++)
        if (!parse_node(L, g->node[i], o, &M->nodes[i]))
            return false;
    return true;
}

/* ------------------------------------------------------------------ build: records -> IR */

/* The key a name defined in region r has in the value map: the name itself at top level, else
 * the name and the region (a subgraph's names may repeat those of a sibling subgraph). */
static const char *scoped_key(Compiler *c, const char *name, int r) {
    return r ? arena_printf(c->arena, "%s\x1f%d", name, r) : name;
}

/* The value a name means inside region r: its own, else an enclosing region's, else the top
 * level's (created when absent: ir_toposort names it if nothing defines it). */
static Value *scoped_value(Compiler *c, const char *name, int r) {
    for (; r; r = c->g->regions[r - 1]->owner->region) {
        Value *v = ir_find_value(c, scoped_key(c, name, r));
        if (v)
            return v;
    }
    return ir_value(c, name);
}

/* A value that region r defines (a formal input, an initializer, a node's output). */
static Value *region_def(Compiler *c, const char *name, int r) {
    const char *key = scoped_key(c, name, r);
    if (r && ir_find_value(c, key))
        o2c_error(c, NULL, "'%s' is defined twice in one subgraph", name);
    Value *v = ir_value(c, key);
    v->name = r ? arena_strdup(c->arena, name) : v->name;
    return v;
}

static void build_regions(Compiler *c, Node *n);

/* The nodes of a graph's records into region r (0: the top level); returns them. */
static Node **build_nodes(Compiler *c, const LdModel *M, int r) {
    Node **nodes = arena_alloc(c->arena, sizeof(Node *) * (size_t)(M->nnodes + 1));
    if (r) /* a subgraph's outputs first, so that its nodes' inputs resolve to them */
        for (int i = 0; i < M->nnodes; i++)
            for (int k = 0; k < M->nodes[i].nout; k++)
                if (*M->nodes[i].out[k])
                    region_def(c, M->nodes[i].out[k], r);
    for (int i = 0; i < M->nnodes; i++) {
        const LdNode *ln = &M->nodes[i];
        Node *n = ir_add_node(c, ln->op_type, *ln->name ? ln->name : NULL);
        nodes[i] = n;
        n->region = r;
        n->domain = ln->domain;
        n->opset = ln->opset;
        n->nin = ln->nin;
        n->in = arena_alloc(c->arena, sizeof(Value *) * (size_t)(ln->nin + 1));
        for (int k = 0; k < ln->nin; k++) {
            if (!*ln->in[k])
                continue; /* omitted optional input */
            Value *v = r ? scoped_value(c, ln->in[k], r) : ir_value(c, ln->in[k]);
            n->in[k] = v;
            bool seen = false; /* nuses counts consuming nodes, not input slots */
            for (int j = 0; j < k && !seen; j++)
                seen = n->in[j] == v;
            if (!seen)
                v->nuses++;
        }
        n->nout = ln->nout;
        n->out = arena_alloc(c->arena, sizeof(Value *) * (size_t)(ln->nout + 1));
        for (int k = 0; k < ln->nout; k++)
            n->out[k] = !*ln->out[k] ? NULL
                        : r ? ir_find_value(c, scoped_key(c, ln->out[k], r)) : ir_value(c, ln->out[k]);
        n->nattr = ln->nattr;
        n->attrs = ln->attrs;
    }
    return nodes;
}

/* Declared shapes: dim_params name dims of the inputs (no new dims are made). */
static void build_decls(Compiler *c, const LdModel *M, int r) {
    for (int i = 0; i < M->ndecls; i++) {
        const LdInput *d = &M->decls[i];
        Value *v = ir_find_value(c, scoped_key(c, d->name, r));
        if (!v || v->has_decl || v->kind == VAL_INPUT || v->kind == VAL_CONST)
            continue;
        v->has_decl = true;
        v->decl_dtype = d->dtype;
        v->decl_rank = d->rank;
        v->decl_shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(d->rank + 1));
        for (int k = 0; k < d->rank; k++) {
            if (d->param[k]) {
                int j = ir_find_dim(c, d->param[k]);
                if (j >= 0)
                    v->decl_shape[k] = sym_dim(c->sym, j);
            } else if (d->size[k] >= 0)
                v->decl_shape[k] = sym_const(c->sym, d->size[k]);
        }
    }
}

/* The subgraphs of control node n (If, Loop, Scan) into regions, then theirs. */
static void build_regions(Compiler *c, Node *n) {
    Graph *g = c->g;
    int nsub = 0;
    for (int a = 0; a < n->nattr; a++)
        nsub += n->attrs[a].type == ATTR_GRAPH && n->attrs[a].sub;
    if (!nsub)
        return;
    n->sub = arena_alloc(c->arena, sizeof(Region *) * (size_t)nsub);
    for (int a = 0; a < n->nattr; a++) {
        const Attr *at = &n->attrs[a];
        if (at->type != ATTR_GRAPH || !at->sub)
            continue;
        const LdModel *M = at->sub;
        Region *rg = arena_alloc(c->arena, sizeof(Region));
        g->regions = arena_grow(c->arena, g->regions, g->nregions, &g->capregions, 8,
                                sizeof(Region *));
        g->regions[g->nregions++] = rg;
        rg->id = g->nregions;
        rg->owner = n;
        rg->name = at->name;
        n->sub[n->nsub++] = rg;
        int r = rg->id;
        for (int i = 0; i < M->ninit; i++)
            ir_set_const(c, region_def(c, M->inits[i].name, r), &M->inits[i]);
        rg->nin = M->ninputs;
        rg->in = arena_alloc(c->arena, sizeof(Value *) * (size_t)(M->ninputs + 1));
        for (int i = 0; i < M->ninputs; i++) {
            rg->in[i] = region_def(c, M->inputs[i].name, r);
            rg->in[i]->seq = M->inputs[i].seq;
        }
        rg->nnodes = M->nnodes;
        rg->nodes = build_nodes(c, M, r);
        rg->nout = M->noutputs;
        rg->out = arena_alloc(c->arena, sizeof(Value *) * (size_t)(M->noutputs + 1));
        for (int i = 0; i < M->noutputs; i++) {
            rg->out[i] = scoped_value(c, M->outputs[i], r);
            rg->out[i]->nuses++;
        }
        build_decls(c, M, r);
        for (int i = 0; i < M->nnodes; i++)
            build_regions(c, rg->nodes[i]);
    }
}

static void build(Compiler *c, const LdModel *M) {
    Graph *g = c->g;
    g->name = M->name;
    g->ir_version = M->ir_version;
    g->opset = M->opset;

    for (int i = 0; i < M->ninit; i++)
        ir_set_const(c, ir_value(c, M->inits[i].name), &M->inits[i]);

    g->ninputs = M->ninputs;
    g->inputs = arena_alloc(c->arena, sizeof(Value *) * (size_t)(M->ninputs + 1));
    for (int i = 0; i < M->ninputs; i++) {
        const LdInput *in = &M->inputs[i];
        Value *v = ir_value(c, in->name);
        v->kind = VAL_INPUT;
        v->input_index = i;
        Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(in->rank + 1));
        for (int k = 0; k < in->rank; k++)
            shape[k] = in->param[k] ? sym_dim(c->sym, ir_add_dim(c, in->param[k]))
                                    : sym_const(c->sym, in->size[k]);
        ir_set_shape(c, v, in->dtype, in->rank, shape);
        g->inputs[i] = v;
    }

    g->noutputs = M->noutputs;
    g->outputs = arena_alloc(c->arena, sizeof(Value *) * (size_t)(M->noutputs + 1));
    for (int i = 0; i < M->noutputs; i++) {
        Value *v = ir_value(c, M->outputs[i]);
        v->is_output = true;
        v->output_index = i;
        if (v->kind == VAL_TEMP)
            v->kind = VAL_OUTPUT;
        g->outputs[i] = v;
    }

    Node **top = build_nodes(c, M, 0);
    build_decls(c, M, 0);
    for (int i = 0; i < M->nnodes; i++) /* after the top level's names exist */
        build_regions(c, top[i]);
}

/* ------------------------------------------------------------------ entry points */

/* protobuf-c's allocator: malloc, remembering a failure (unpack then returns NULL and frees
 * what it built, so "out of memory" can be told from a corrupt file). */
static void *pb_alloc(void *data, size_t n) {
    void *p = malloc(n);
    if (!p)
        *(bool *)data = true;
    return p;
}

static void pb_free(void *data, void *p) {
    (void)data;
    free(p);
}

/* While the unpacked message is alive, out of memory frees it before unwinding. */
typedef struct ParseOom {
    Onnx__ModelProto *m;
    OomHandler prev;
} ParseOom;

static void parse_oom(void *user) {
    ParseOom *po = user;
    onnx__model_proto__free_unpacked(po->m, NULL);
    arena_on_oom(po->prev);
    arena_oom();
}

/* Reads the file at path into an arena block, or throws. */
static uint8_t *load_bytes(Compiler *c, const char *path, size_t *len, const char **why) {
    uint8_t *buf = NULL;
    switch (read_file(path, &buf, len, why, c->arena)) {
    case READ_OK: return buf;
    case READ_TOO_BIG:
        o2c_error(c, NULL, "not a valid ONNX model: the file is larger than 2 GB (the "
                  "protobuf limit; large weights belong in external data)");
    case READ_NOMEM: o2c_error(c, NULL, "out of memory");
    case READ_IO: o2c_ioerror(c, "cannot read '%s': %s", path, *why);
    default: o2c_ioerror(c, "cannot open '%s': %s", path, *why);
    }
}

void load_model(Compiler *c, const char *path) {
    O2C_ASSERT(c, c->g && c->sym && c->arena);
    size_t len = 0;
    const char *why = NULL;
    o2c_progress(c, "loading", 0, 4); /* steps: read, decode, parse, build the IR */
    uint8_t *buf = load_bytes(c, path, &len, &why);
    o2c_progress(c, "loading", 1, 4);
    if (len == 0) {
        arena_block_free(c->arena, buf);
        o2c_error(c, NULL, "not a valid ONNX model: the file is empty");
    }
    size_t where = 0;
    int wire = wire_check(&onnx__model_proto__descriptor, buf, len, 0, 0, &where);
    if (wire == 1) {
        arena_block_free(c->arena, buf);
        o2c_error(c, NULL, "not a valid ONNX model: messages are nested more than %d deep "
                  "(at byte %zu)", MAX_NESTING, where);
    }
    /* well-formed: the weights' bytes stay in buf, and protobuf-c unpacks the rest (a file that
     * is not is unpacked as it is, to fail with the position wire_check found) */
    Payloads *pl = NULL;
    Buf *msg = buf_new(c->arena);
    if (wire == 0) {
        pl = arena_alloc(c->arena, sizeof *pl);
        strip_payloads(c, buf, len, msg, pl);
        buf = NULL;
    }
    bool nomem = false;
    ProtobufCAllocator pa = {pb_alloc, pb_free, &nomem};
    Onnx__ModelProto *m = onnx__model_proto__unpack(&pa, pl ? msg->len : len,
                                                    pl ? (const uint8_t *)msg->data : buf);
    arena_block_free(c->arena, buf);
    buf_free(msg);
    o2c_progress(c, "loading", 2, 4);
    if (!m) {
        if (nomem)
            o2c_error(c, NULL, "out of memory");
        if (wire == 2)
            o2c_error(c, NULL, "not a valid ONNX model: the protobuf data is truncated or "
                      "corrupt (at byte %zu of %zu)", where, len);
        o2c_error(c, NULL, "not a valid ONNX model: the protobuf data does not decode as an "
                  "onnx.ModelProto");
    }

    const char *dir = c->model_dir;
    if (!dir) { /* the driver normally sets it; else the folder of path */
        const char *slash = strrchr(path, '/');
        dir = slash ? arena_strndup(c->arena, path, slash == path ? 1 : (size_t)(slash - path)) : ".";
    }
    Ld L = {.c = c, .dir = dir, .pl = pl};
    LdModel M = {0};
    ParseOom po = {.m = m};
    po.prev = arena_on_oom((OomHandler){parse_oom, &po});
    parse_graph(&L, m, &M);
    arena_on_oom(po.prev);
    onnx__model_proto__free_unpacked(m, NULL);
    if (L.status) {
        const Node *n = NULL;
        if (L.node_op) /* name the node as every later stage would */
            n = ir_add_node(c, L.node_op, *L.node_name ? L.node_name : NULL);
        throw_status(c, L.status, n, "%s", L.msg);
    }
    o2c_progress(c, "loading", 3, 4);
    build(c, &M);
    o2c_progress(c, "loading", 4, 4);
}

/* onnx2c_load_tensor's message: one line whatever the path and the tensor's name hold. */
__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen,
                                                          const char *fmt, ...) {
    char raw[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    onnx2c_oneline(err, errlen, raw);
}

int onnx2c_load_tensor(const char *path, Tensor **out, char *err, size_t errlen) {
    *out = NULL;
    size_t len = 0;
    uint8_t *buf = NULL;
    const char *why = NULL;
    switch (read_file(path, &buf, &len, &why, NULL)) {
    case READ_OK: break;
    case READ_TOO_BIG:
        set_err(err, errlen, "%s: not a serialized onnx.TensorProto: larger than 2 GB", path);
        return O2C_EMODEL;
    case READ_NOMEM: set_err(err, errlen, "%s: out of memory", path); return O2C_EMODEL;
    case READ_IO: set_err(err, errlen, "cannot read '%s': %s", path, why); return O2C_EIO;
    default: set_err(err, errlen, "cannot open '%s': %s", path, why); return O2C_EIO;
    }
    size_t where = 0;
    int wire = wire_check(&onnx__tensor_proto__descriptor, buf, len, 0, 0, &where);
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
    free(buf);
    if (!tp) {
        if (wire == 2)
            set_err(err, errlen, "%s: not a serialized onnx.TensorProto: the protobuf data is "
                     "truncated or corrupt (at byte %zu of %zu)", path, where, len);
        else
            set_err(err, errlen, "%s: not a serialized onnx.TensorProto", path);
        return O2C_EMODEL;
    }
    /* external data of a standalone tensor is relative to the tensor file's folder */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = 0;
    else
        strcpy(dir, ".");

    Ld L = {.c = NULL, .dir = dir};
    Tensor *t = ld_alloc(&L, sizeof *t);
    if (!t)
        fail(&L, O2C_EMODEL, "out of memory");
    else {
        char what[300];
        if (tp->name && *tp->name)
            snprintf(what, sizeof what, "tensor '%s'", tp->name);
        else
            snprintf(what, sizeof what, "the tensor");
        convert_tensor(&L, tp, what, t);
    }
    onnx__tensor_proto__free_unpacked(tp, NULL);
    if (L.status) {
        for (int i = 0; i < L.nowned; i++)
            free(L.owned[i]);
        set_err(err, errlen, "%s: %s", path, L.msg);
        return L.status;
    }
    *out = t;
    return O2C_OK;
}

void onnx2c_tensor_free(Tensor *t) {
    if (!t)
        return;
    free((void *)t->name);
    free(t->dims);
    free(t->data);
    free(t);
}
