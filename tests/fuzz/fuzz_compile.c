/* fuzz_compile.c — a libFuzzer target: the whole compiler (load, infer, lower, plan, emit) on
 * arbitrary bytes as a model file.  What CONTRACT.md §1 promises for any input: no crash, no
 * undefined behaviour, no leak (ASan, UBSan), a status of the contract, and on failure one
 * line of message.  Built by `cmake -DONNX2C_FUZZ=ON` with clang; run with tools/fuzz.sh. */
#include "libonnx2c.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the emitter promises of OUT.c and OUT.h whatever the model's names hold (issue 9):
 * printable ASCII, tabs and newlines only; no backslash-newline (a line splice) but to go on
 * with a preprocessor directive of the templates (model text never reaches one), and no "??"
 * (a trigraph) anywhere; no comment opener inside a comment (only the escaper writes model
 * text into comments: a nested opener means a closer could have slipped through too); every
 * comment, string and character literal closed. */
static bool text_is_safe(const char *s) {
    bool directive = false, line_start = true; /* a #if of the templates may go on (\ newline) */
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if ((ch < 32 && ch != '\n' && ch != '\t') || ch > 126)
            return false;
        if (line_start && ch != ' ' && ch != '\t') {
            directive = directive || ch == '#';
            line_start = false;
        }
        if (p[0] == '\\' && p[1] == '\n' && !directive)
            return false; /* a splice outside a preprocessor directive */
        if (p[0] == '?' && p[1] == '?')
            return false;
        if (ch == '\n') {
            directive = directive && p > s && p[-1] == '\\';
            line_start = true;
        }
    }
    for (const char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e)
                return false;
            for (const char *q = p + 2; q < e; q++)
                if (q[0] == '/' && q[1] == '*')
                    return false;
            p = e + 1;
        } else if (p[0] == '/' && p[1] == '/') {
            while (p[1] && p[1] != '\n')
                p++;
        } else if (p[0] == '"' || p[0] == '\'') {
            char q = p[0];
            for (p++; *p != q; p++) {
                if (!*p || *p == '\n')
                    return false;
                if (*p == '\\' && p[1])
                    p++;
            }
        }
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/onnx2c-fuzz-%d.onnx", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    Options opt;
    memset(&opt, 0, sizeof opt);
    opt.name = "model";
    opt.out_path = "model.c";
    Output out;
    memset(&out, 0, sizeof out);
    char err[1024];
    err[0] = 0;
    int st = onnx2c_compile(path, &opt, &out, err, sizeof err);
    if (st == O2C_OK) {
        if (!out.c_src || !out.h_src || !text_is_safe(out.c_src) || !text_is_safe(out.h_src))
            abort();
        onnx2c_output_free(&out);
        return 0;
    }
    if (st != O2C_EMODEL && st != O2C_EIO)
        abort(); /* a status the contract does not have for a readable file */
    if (!err[0] || strchr(err, '\n'))
        abort(); /* no message, or more than one line */
    return 0;
}
