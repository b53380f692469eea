/* help2man.c — build tool: a tool's man page from its --help, so that the two cannot drift.
 *
 * Usage: o2c-help2man EXE TEMPLATE OUT
 * Runs `EXE --help` and `EXE --version` and fills TEMPLATE (roff, docs/man/NAME.1.in: the
 * hand-written NAME line, examples, SEE ALSO) into OUT.  The --help text has one shape for
 * every onnx2c tool:
 *
 *   usage: TOOL ARGS...                       -> @SYNOPSIS@
 *   paragraphs                                -> @DESCRIPTION@
 *   options:                                  -> @OPTIONS@: one .TP per option line
 *     -x, --long VALUE    text                   (options bold, their values italic;
 *                         more text              indented lines continue the text)
 *   exit status: text                         -> @EXIT_STATUS@
 *   other paragraphs                          -> @NOTES@
 *
 * and @VERSION@ is the last word of --version.  A part the help has and the template lacks is
 * an error, as is a placeholder the help cannot fill. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Text {
    char *s;
    size_t len, cap;
} Text;

static void put(Text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s) {
            fputs("o2c-help2man: out of memory\n", stderr);
            exit(1);
        }
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = 0;
}

static void puts_t(Text *t, const char *s) {
    put(t, s, strlen(s));
}

/* Text into roff: backslashes, minus signs and quotes escaped; a line never starts a request. */
static void roff(Text *t, const char *s, size_t n) {
    if (n && (s[0] == '.' || s[0] == '\''))
        puts_t(t, "\\&");
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            puts_t(t, "\\e");
        else if (s[i] == '-')
            puts_t(t, "\\-");
        else if (s[i] == '"')
            puts_t(t, "\\(dq");
        else
            put(t, s + i, 1);
    }
}

/* The rest of f, NUL-terminated (NULL when empty). */
static char *read_stream(FILE *f) {
    Text t = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        put(&t, buf, n);
    return t.s;
}

/* Runs `exe arg` and returns its whole standard output (NULL on failure). */
static char *run(const char *exe, const char *arg) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' %s", exe, arg);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char *s = read_stream(p);
    if (pclose(p) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = read_stream(f);
    fclose(f);
    return s;
}

/* An option line "  -x, --long VALUE    text": the option part as .TP's tag, the text after. */
static void option_tag(Text *t, const char *s, size_t n) {
    puts_t(t, ".TP\n");
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ' ' && s[j] != ',')
            j++;
        bool flag = s[i] == '-';
        puts_t(t, flag ? "\\fB" : "\\fI");
        roff(t, s + i, j - i);
        puts_t(t, "\\fR");
        i = j;
        while (i < n && (s[i] == ' ' || s[i] == ',')) /* ", " or " " between words, kept */
            put(t, s + i++, 1);
    }
    puts_t(t, "\n");
}

typedef enum { PART_DESCRIPTION, PART_OPTIONS, PART_EXIT, PART_NOTES, NPARTS } Part;

int main(int argc, char **argv) {
    if (argc != 4) {
        fputs("usage: o2c-help2man EXE TEMPLATE OUT\n", stderr);
        return 2;
    }
    char *help = run(argv[1], "--help"), *version = run(argv[1], "--version");
    char *tmpl = read_all(argv[2]);
    if (!help || !version || !tmpl) {
        fprintf(stderr, "o2c-help2man: cannot run '%s --help' and '--version', or read '%s'\n",
                argv[1], argv[2]);
        return 1;
    }
    Text synopsis = {0}, part[NPARTS] = {{0}};
    Part cur = PART_DESCRIPTION;
    bool para = false; /* inside a paragraph of the current part */
    for (char *line = help, *next; *line; line = next) {
        size_t n = strcspn(line, "\n");
        next = line + n + (line[n] == '\n');
        if (!strncmp(line, "usage: ", 7)) { /* "usage: TOOL ARGS" */
            const char *tool = line + 7;
            size_t k = strcspn(tool, " \n");
            puts_t(&synopsis, ".B ");
            roff(&synopsis, tool, k);
            puts_t(&synopsis, "\n");
            if (tool[k] == ' ') {
                const char *args = tool + k + 1;
                roff(&synopsis, args, (size_t)(line + n - args));
                puts_t(&synopsis, "\n");
            }
            continue;
        }
        if (n == 0) {
            para = false;
            if (cur == PART_OPTIONS || cur == PART_EXIT)
                cur = PART_NOTES;
            continue;
        }
        if (!strncmp(line, "options:", n)) {
            cur = PART_OPTIONS;
            para = false;
            continue;
        }
        const char *exit_head = "exit status: ";
        if (!para && !strncmp(line, exit_head, strlen(exit_head))) {
            cur = PART_EXIT;
            line += strlen(exit_head);
            n -= strlen(exit_head);
        }
        Text *t = &part[cur];
        if (cur == PART_OPTIONS) {
            size_t lead = strspn(line, " ");
            if (lead < n && lead <= 4 && line[lead] == '-') { /* a new option */
                const char *o = line + lead;
                size_t on = n - lead, k = 0;
                while (k < on && !(o[k] == ' ' && k + 1 < on && o[k + 1] == ' '))
                    k++;
                option_tag(t, o, k);
                while (k < on && o[k] == ' ')
                    k++;
                roff(t, o + k, on - k);
                puts_t(t, "\n");
            } else { /* its text goes on */
                roff(t, line + lead, n - lead);
                puts_t(t, "\n");
            }
            continue;
        }
        if (!para && t->len)
            puts_t(t, ".PP\n");
        para = true;
        size_t lead = strspn(line, " ");
        roff(t, line + lead, n - lead);
        puts_t(t, "\n");
    }
    static const char *const names[NPARTS] = {"@DESCRIPTION@", "@OPTIONS@", "@EXIT_STATUS@",
                                              "@NOTES@"};
    for (int p = 0; p < NPARTS; p++)
        if (part[p].len && !strstr(tmpl, names[p])) {
            fprintf(stderr, "o2c-help2man: %s: %s --help has a part for %s\n", argv[2], argv[1],
                    names[p]);
            return 1;
        }
    const char *ver = strrchr(version, ' ');
    ver = ver ? ver + 1 : version;
    Text out = {0};
    for (const char *s = tmpl; *s;) {
        const char *at = strchr(s, '@');
        if (!at) {
            puts_t(&out, s);
            break;
        }
        put(&out, s, (size_t)(at - s));
        const char *fill = NULL;
        size_t skip = 0;
        if (!strncmp(at, "@VERSION@", 9)) {
            fill = ver;
            skip = 9;
        } else if (!strncmp(at, "@SYNOPSIS@\n", 11)) {
            fill = synopsis.s;
            skip = 11;
        }
        for (int p = 0; p < NPARTS && !skip; p++)
            if (!strncmp(at, names[p], strlen(names[p])) && at[strlen(names[p])] == '\n') {
                fill = part[p].s;
                skip = strlen(names[p]) + 1;
            }
        if (!skip) { /* an '@' of the text */
            put(&out, at, 1);
            s = at + 1;
            continue;
        }
        if (!fill) {
            fprintf(stderr, "o2c-help2man: %s: %s --help has nothing for %.*s\n", argv[2],
                    argv[1], (int)skip, at);
            return 1;
        }
        size_t fl = strcspn(fill, "\n");
        if (fill == ver)
            put(&out, fill, fl);
        else
            puts_t(&out, fill);
        s = at + skip;
    }
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(out.s, 1, out.len, f) != out.len || fclose(f) != 0) {
        fprintf(stderr, "o2c-help2man: cannot write '%s'\n", argv[3]);
        return 1;
    }
    free(help);
    free(version);
    free(tmpl);
    free(synopsis.s);
    free(out.s);
    for (int p = 0; p < NPARTS; p++)
        free(part[p].s);
    return 0;
}
