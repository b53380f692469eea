/* test_expand.c — the placeholder syntax of text templates (compiler/expand.c): which `$`
 * sequences are placeholders and what their keys are, unknown keys kept as written, the end
 * bound, and the identifier syntax of templates/NAME.c. */
#include "onnx2c.h"
#include <criterion/criterion.h>
#include <string.h>

/* Replaces every placeholder by "<KEY>", keeps the key "keep". */
static bool bracket(Buf *out, const char *key, size_t len, void *user) {
    (void)user;
    if (expand_key_is(key, len, "keep"))
        return false;
    buf_puts(out, "<");
    buf_putn(out, key, len);
    buf_puts(out, ">");
    return true;
}

static void check(const char *tmpl, const char *end, ExpandSyntax syn, const char *want) {
    Buf b;
    buf_init(&b);
    expand(&b, tmpl, end, syn, bracket, NULL);
    cr_assert_str_eq(b.data ? b.data : "", want, "template \"%s\"", tmpl);
    buf_free(&b);
}

Test(expand, dollar_keys) {
    check("$0 + $12", NULL, EXPAND_DOLLAR, "<0> + <1>2");
    check("($y)$t0", NULL, EXPAND_DOLLAR, "(<y>)<t0>");
    check("fabs$F(v) a += $abs_v", NULL, EXPAND_DOLLAR, "fabs<F>(v) a += <abs>_v");
    check("$ $$a $( $", NULL, EXPAND_DOLLAR, "$ $<a> $( $");
    check("x $keep y", NULL, EXPAND_DOLLAR, "x $keep y");
    check("", NULL, EXPAND_DOLLAR, "");
}

Test(expand, end_bound) {
    const char *s = "$ab $c";
    check(s, s + 2, EXPAND_DOLLAR, "<a>");
    check(s, s + 1, EXPAND_DOLLAR, "$");
}

Test(expand, identifiers) {
    check("T x_T(T *p) { return 2.0f; }", NULL, EXPAND_IDENT,
          "<T> <x_T>(<T> *<p>) { <return> <2>.<0f>; }");
}

Test(expand, find) {
    const char *key;
    size_t len;
    const char *t = "($a % $b)";
    const char *d = expand_find(t, NULL, EXPAND_DOLLAR, &key, &len);
    cr_assert_eq(d, t + 1);
    cr_assert(len == 1 && key[0] == 'a');
    cr_assert_null(expand_find("a $ b", NULL, EXPAND_DOLLAR, &key, &len));
}

Test(expand, table) {
    ExpandKey keys[] = {{"N", "(float)cnt"}, {"a", "acc"}, {NULL, NULL}};
    Buf b;
    buf_init(&b);
    expand(&b, "$a / $N + $b", NULL, EXPAND_DOLLAR, expand_table, keys);
    cr_assert_str_eq(b.data, "acc / (float)cnt + $b");
    buf_free(&b);
}
