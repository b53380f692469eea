/* expand.c — the one placeholder syntax of the text templates that become generated C.
 *
 * A template is C text holding placeholders.  A placeholder is `$` followed by its key:
 *   - one digit: $0..$9 (a numbered operand; `$12` is $1 followed by the text "2"),
 *   - or a letter and every letter and digit after it: $y, $t0, $F, $abs, $a.
 * A `$` followed by anything else is text.  expand() copies the text and asks a callback for
 * each placeholder's replacement; a placeholder the callback does not know stays as written,
 * so a template can be expanded in stages (elementwise.c's op tables replace $F, $T, $a..$c
 * and leave $0..$9 and $y to emit_elementwise).
 *
 * The users: emit_elementwise ($0..$9, $y, $t0..$t9), elementwise.c's op tables ($0..$9, $F,
 * $T, $a..$c), reduce.c's reduction tables ($N, $F, $abs, $a), sym.c's C forms of division,
 * mod, min and max ($a $b $A $B; its printer walks the template one placeholder at a time
 * with expand_find, since an operand is printed by a later step of its explicit stack), and
 * emit.c's instantiation of templates/NAME.c.  Those files must compile on their own as C, so
 * their placeholders carry no sigil: under EXPAND_IDENT every C identifier (a maximal run of
 * letters, digits and '_') is a key, and the instantiation replaces `T` and `NAME_T`. */
#include "onnx2c.h"
#include <ctype.h>
#include <string.h>

static bool more(const char *p, const char *end) { return end ? p < end : *p != 0; }

static bool is_ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* The length of the key of a `$` placeholder whose key starts at k (0: not a placeholder). */
static size_t dollar_key(const char *k, const char *end) {
    if (!more(k, end))
        return 0;
    if (isdigit((unsigned char)*k))
        return 1;
    if (!isalpha((unsigned char)*k))
        return 0;
    size_t n = 1;
    while (more(k + n, end) && isalnum((unsigned char)k[n]))
        n++;
    return n;
}

const char *expand_find(const char *s, const char *end, ExpandSyntax syn, const char **key,
                        size_t *len) {
    for (const char *p = s; more(p, end); p++) {
        if (syn == EXPAND_IDENT && is_ident_char(*p)) {
            size_t n = 1;
            while (more(p + n, end) && is_ident_char(p[n]))
                n++;
            *key = p;
            *len = n;
            return p;
        }
        if (syn == EXPAND_DOLLAR && *p == '$' && (*len = dollar_key(p + 1, end)) > 0) {
            *key = p + 1;
            return p;
        }
    }
    return NULL;
}

void expand(Buf *out, const char *s, const char *end, ExpandSyntax syn, ExpandFn fn,
            void *user) {
    const char *key;
    size_t len;
    for (const char *p = s;;) {
        const char *at = expand_find(p, end, syn, &key, &len);
        const char *stop = at ? at : end ? end : p + strlen(p);
        buf_putn(out, p, (size_t)(stop - p));
        if (!at)
            return;
        p = key + len;
        if (!fn(out, key, len, user))
            buf_putn(out, at, (size_t)(p - at));
    }
}

bool expand_key_is(const char *key, size_t len, const char *name) {
    return strlen(name) == len && memcmp(key, name, len) == 0;
}

bool expand_table(Buf *out, const char *key, size_t len, void *user) {
    for (const ExpandKey *k = user; k->key; k++)
        if (expand_key_is(key, len, k->key)) {
            buf_puts(out, k->text);
            return true;
        }
    return false;
}
