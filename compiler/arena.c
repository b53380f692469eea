/* arena.c — the one allocator of the IR, the one growth helper of arrays, and the growable text
 * buffer.
 *
 * The arena is a list of large blocks; allocation bumps a pointer, memory is zeroed, and the
 * whole arena is freed at once when a compile ends.  There is no per-object free.
 *
 * Beside the blocks the arena owns resizable chunks, one per text buffer of the compile (Buf
 * made by buf_init_in) and one per big block that leaves before the compile ends (arena_block:
 * the model file's bytes, a packed weight while it is written out): they grow by realloc, so a
 * buffer of the generated C costs no more than a malloc'd one, and an error that unwinds
 * mid-stage leaves nothing to free by hand.
 *
 * Out of memory is an error like any other during a compile: onnx2c_compile installs a handler
 * for its thread that longjmps to the driver ("FILE: out of memory", exit status 1).  Outside
 * a compile (no handler) the process prints the message and aborts. */
#include "onnx2c.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Block {
    struct Block *next;
    size_t used, cap;
    _Alignas(16) unsigned char mem[];
} Block;

/* A resizable chunk, in a doubly linked list so one can be unlinked when it moves or leaves. */
typedef struct Chunk {
    struct Chunk *prev, *next;
    _Alignas(16) unsigned char mem[];
} Chunk;

struct Arena {
    Block *head;
    Chunk *chunks;
};

/* The handler of the compile running on this thread (fn NULL: none). */
static _Thread_local OomHandler oom_handler;

OomHandler arena_on_oom(OomHandler h) {
    OomHandler prev = oom_handler;
    oom_handler = h;
    return prev;
}

_Noreturn void arena_oom(void) {
    OomHandler h = oom_handler;
    if (h.fn)
        h.fn(h.user); /* does not return: it longjmps */
    fputs("onnx2c: error: out of memory\n", stderr);
    abort();
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p)
        arena_oom();
    return p;
}

Arena *arena_new(void) {
    Arena *a = xmalloc(sizeof *a);
    a->head = NULL;
    a->chunks = NULL;
    return a;
}

void arena_free(Arena *a) {
    if (!a)
        return;
    for (Block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    for (Chunk *ch = a->chunks, *next; ch; ch = next) {
        next = ch->next;
        free(ch);
    }
    free(a);
}

void *arena_alloc(Arena *a, size_t n) {
    if (n > SIZE_MAX / 2) /* a size computed from hostile dims: no block can hold it */
        arena_oom();
    n = (n + 15) & ~(size_t)15;
    Block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > (1u << 20) ? n : (1u << 20);
        b = xmalloc(sizeof(Block) + cap);
        b->cap = cap;
        b->used = 0;
        /* a huge single allocation gets its own block behind the current one */
        if (a->head && n > (1u << 19)) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->mem + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void *arena_dup(Arena *a, const void *p, size_t n) {
    void *q = arena_alloc(a, n);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* The growth policy of arrays and Bufs: cap doubled (first when 0) until it holds need; out of
 * memory past limit. */
static size_t grow_cap(size_t cap, size_t need, size_t first, size_t limit) {
    if (need > limit)
        arena_oom();
    size_t nc = cap ? cap : first ? first : 1;
    while (nc < need)
        nc = nc > limit / 2 ? limit : 2 * nc;
    return nc;
}

void *arena_regrow(Arena *a, void *p, int n, int need, int *cap, int first, size_t elem) {
    int nc = (int)grow_cap((size_t)*cap, (size_t)need, (size_t)first, INT_MAX);
    void *q;
    if (a) {
        q = arena_alloc(a, elem * (size_t)nc);
        if (n)
            memcpy(q, p, elem * (size_t)n);
    } else {
        q = realloc(p, elem * (size_t)nc);
        if (!q)
            arena_oom();
    }
    *cap = nc;
    return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *q = arena_alloc(a, n + 1);
    memcpy(q, s, n);
    q[n] = 0;
    return q;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_vprintf(Arena *a, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) /* an encoding error: nothing sensible to print */
        return arena_strdup(a, "");
    char *s = arena_alloc(a, (size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- chunks */

static Chunk *chunk_of(void *p) { return (Chunk *)((unsigned char *)p - offsetof(Chunk, mem)); }

static void chunk_unlink(Arena *a, Chunk *ch) {
    if (ch->prev)
        ch->prev->next = ch->next;
    else
        a->chunks = ch->next;
    if (ch->next)
        ch->next->prev = ch->prev;
}

static void chunk_link(Arena *a, Chunk *ch) {
    ch->prev = NULL;
    ch->next = a->chunks;
    if (a->chunks)
        a->chunks->prev = ch;
    a->chunks = ch;
}

/* Resizes the chunk at p (NULL: a new one) to n bytes; its contents move with it. */
static void *chunk_resize(Arena *a, void *p, size_t n) {
    Chunk *ch = p ? chunk_of(p) : NULL;
    if (ch)
        chunk_unlink(a, ch);
    Chunk *nc = realloc(ch, sizeof(Chunk) + n);
    if (!nc) {
        if (ch)
            chunk_link(a, ch); /* still owned: freed with the arena */
        arena_oom();
    }
    chunk_link(a, nc);
    return nc->mem;
}

static void chunk_free(Arena *a, void *p) {
    if (!p)
        return;
    Chunk *ch = chunk_of(p);
    chunk_unlink(a, ch);
    free(ch);
}

void *arena_block(Arena *a, void *p, size_t n) {
    if (n > SIZE_MAX / 2)
        arena_oom();
    return chunk_resize(a, p, n ? n : 1);
}

void arena_block_free(Arena *a, void *p) { chunk_free(a, p); }

/* Hands the first len bytes of the chunk at p to the caller as a malloc'd block. */
static char *chunk_release(Arena *a, void *p, size_t len) {
    Chunk *ch = chunk_of(p);
    chunk_unlink(a, ch);
    memmove(ch, ch->mem, len);
    return (char *)ch;
}

/* ---- Buf */

void buf_init(Buf *b) { memset(b, 0, sizeof *b); }

void buf_init_in(Buf *b, Arena *a) {
    buf_init(b);
    b->arena = a;
}

Buf *buf_new(Arena *a) {
    Buf *b = arena_alloc(a, sizeof *b);
    b->arena = a;
    return b;
}

void buf_free(Buf *b) {
    Arena *a = b->arena;
    if (a)
        chunk_free(a, b->data);
    else
        free(b->data);
    buf_init(b);
    b->arena = a;
}

/* Moves b's text to a larger block that holds extra more bytes and the NUL. */
static void buf_grow(Buf *b, size_t extra) {
    size_t cap = grow_cap(b->cap, b->len + extra + 1, 256, SIZE_MAX / 2);
    char *d = b->arena ? chunk_resize(b->arena, b->data, cap) : realloc(b->data, cap);
    if (!d)
        arena_oom();
    b->data = d;
    b->cap = cap;
}

static inline void reserve(Buf *b, size_t extra) {
    if (extra > SIZE_MAX / 4 - b->len)
        arena_oom();
    if (b->len + extra + 1 > b->cap)
        buf_grow(b, extra);
}

void buf_putn(Buf *b, const char *s, size_t n) {
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void buf_puts(Buf *b, const char *s) { buf_putn(b, s, strlen(s)); }

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *buf_steal(Buf *b) {
    reserve(b, 0);
    Arena *a = b->arena;
    char *s = a ? chunk_release(a, b->data, b->len + 1) : b->data;
    buf_init(b);
    b->arena = a;
    return s;
}
