/* error.c — errors unwind to the driver.
 *
 * Every error is formatted once, as one line naming the model file and, where there is one,
 * the node and its op: "net.onnx: node 'conv_7' (Conv): weight rank 3 does not match input
 * rank 4".  Then it longjmps to onnx2c_compile, which returns the status to its caller; nothing
 * below the driver ever exits the process.
 *
 * Names in a message come from the model (node and value names, the file name): whatever they
 * hold, the message stays one printable line of bounded length (onnx2c_oneline).
 *
 * Warnings (o2c_warn) take the same form and do not unwind: the compile goes on, and
 * onnx2c_compile hands them over in Output.warnings; the command prints them unless --quiet. */
#include "onnx2c.h"
#include <string.h>

/* Length of the valid UTF-8 sequence of a printable character at s (not C1 controls, not
 * overlong forms, not surrogates), or 0. */
static size_t utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (!n || c > 0xf4)
        return 0;
    unsigned cp = c & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const unsigned min[5] = {0, 0, 0xa0, 0x800, 0x10000}; /* 0x80-0x9f: C1 controls */
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void onnx2c_oneline(char *dst, size_t cap, const char *src) {
    if (cap == 0)
        return;
    const unsigned char *s = (const unsigned char *)(src ? src : "");
    size_t k = 0;
    while (*s) {
        char piece[8];
        size_t n = utf8_len(s), used = n;
        if (*s >= 0x20 && *s < 0x7f)
            n = used = 1;
        if (n)
            memcpy(piece, s, n);
        else { /* a control byte or a byte that is not part of printable UTF-8 */
            snprintf(piece, sizeof piece, "\\x%02x", *s);
            n = 4;
            used = 1;
        }
        /* keep room for "..." when more follows */
        if (k + n + (s[used] ? 3 : 0) >= cap) {
            if (k + 3 < cap) { /* always so, but for a tiny cap */
                memcpy(dst + k, "...", 3);
                k += 3;
            }
            break;
        }
        memcpy(dst + k, piece, n);
        k += n;
        s += used;
    }
    dst[k] = 0;
}

/* The length of s cut to at most max bytes, not inside a UTF-8 sequence. */
static size_t cut_len(const char *s, size_t max) {
    size_t n = strlen(s);
    if (n <= max)
        return n;
    n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    return n;
}

/* Formats "FILE: node 'N' (Op): MESSAGE" (n may be NULL: "FILE: MESSAGE") into dst as one
 * printable line. */
static void format_line(Compiler *c, const Node *n, char *dst, size_t cap, const char *fmt,
                        va_list ap) {
    char raw[2 * sizeof c->err];
    size_t len = 0, rcap = sizeof raw;
    int k;
    const char *path = c->path ? c->path : "model";
    if (n) {
        /* a long node name is cut (at a character boundary), so the message itself shows */
        const char *name = n->name ? n->name : "?";
        int nl = (int)cut_len(name, 200), ol = (int)cut_len(n->op_type ? n->op_type : "?", 100);
        k = snprintf(raw, rcap, "%s: node '%.*s%s' (%.*s): ", path, nl, name,
                     name[nl] ? "..." : "", ol, n->op_type ? n->op_type : "?");
    }
    else
        k = snprintf(raw, rcap, "%s: ", path);
    len = k > 0 ? ((size_t)k < rcap ? (size_t)k : rcap - 1) : 0;
    vsnprintf(raw + len, rcap - len, fmt, ap);
    onnx2c_oneline(dst, cap, raw);
}

_Noreturn void o2c_verror(Compiler *c, int status, const Node *n, const char *fmt, va_list ap) {
    format_line(c, n, c->err, sizeof c->err, fmt, ap);
    c->status = status;
    longjmp(c->jmp, 1);
}

_Noreturn void o2c_error(Compiler *c, const Node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    o2c_verror(c, O2C_EMODEL, n, fmt, ap);
}

_Noreturn void o2c_ioerror(Compiler *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    o2c_verror(c, O2C_EIO, NULL, fmt, ap);
}

void o2c_warn(Compiler *c, const Node *n, const char *fmt, ...) {
    if (c->nwarn >= O2C_MAX_WARNINGS) {
        c->warn_dropped++;
        return;
    }
    char line[sizeof c->err];
    va_list ap;
    va_start(ap, fmt);
    format_line(c, n, line, sizeof line, fmt, ap);
    va_end(ap);
    c->warn = arena_grow(c->arena, (void *)c->warn, c->nwarn, &c->warn_cap, 8, sizeof(char *));
    c->warn[c->nwarn++] = arena_strdup(c->arena, line);
}
