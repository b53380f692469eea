/* test_names.c — text from a model never becomes C (issue 9, items 1 and 2).
 *
 * Names from the model (graph input and output names, node names, initializer names,
 * intermediate value names, value_info entries, dim_params, the graph's name, the model file's
 * own name) reach OUT.c and OUT.h only through the comment and string-literal escapers, and
 * identifiers made from them (KIND__NAME) never meet an identifier the compiler makes.
 *
 * Each payload below carries the token O2CMARK in the code it would inject (a statement, a
 * macro).  For every payload at every name position the model is compiled, OUT.c and OUT.h are
 * preprocessed by gcc in ISO C99 mode (trigraphs and line splices processed, macros kept by
 * -dD), string literals are dropped, and the token O2CMARK must not be there: had a payload
 * closed a comment or spliced a line, its code would be.  The C must also compile under the
 * strict flags, and running it (libtcc) must give the model's result. */
#include "modelgen.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARK "O2CMARK"

/* ---- scanning C text */

/* Reads the whole file (malloc'd, NUL-terminated). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

/* Identifiers KIND__NAME are made from model names (and the header's enum MODEL_DIM_NAME, whose
 * infix no other identifier has); no other identifier holds "__" after its first character. */
static bool model_kind(const char *tok, size_t len) {
    static const char *const kinds[] = {"d__", "in__", "out__", "t__", "w__", "k__", "Ww__"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (len > strlen(kinds[i]) && strncmp(tok, kinds[i], strlen(kinds[i])) == 0)
            return true;
    return false;
}

/* Walks preprocessed C (no comments): string and character literals skipped, every identifier
 * checked: not the marker, at most 63 characters (C99's significant length), and "__" inside
 * it only in a model identifier. */
static void check_tokens(const char *what, const char *s) {
    for (const char *p = s; *p;) {
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q) {
                if (*p == '\\' && p[1])
                    p++;
                p++;
            }
            if (*p)
                p++;
            continue;
        }
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *b = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            size_t len = (size_t)(p - b);
            cr_assert(!(len == strlen(MARK) && strncmp(b, MARK, len) == 0),
                      "%s: the payload's code reached the C: ...%.200s", what, b > s + 200 ? b - 200 : s);
            cr_assert(len <= 63, "%s: identifier of %zu characters: %.80s...", what, len, b);
            const char *dd = NULL;
            for (const char *q = b + 1; q + 1 < p; q++)
                if (q[0] == '_' && q[1] == '_')
                    dd = q;
            cr_assert(!dd || model_kind(b, len) || b[0] == '_' || strncmp(b, "MODEL_DIM_", 10) == 0,
                      "%s: identifier '%.*s' holds \"__\" but is not a model identifier", what,
                      (int)len, b);
            continue;
        }
        p++;
    }
}

/* ---- the model: X[N,2,4,4] -> MaxPool 2x2 -> P -> Add W[2,1,1] -> T -> Relu -> Y */

enum { POS_INPUT, POS_DIM, POS_INIT, POS_POOL_OUT, POS_TEMP, POS_OUTPUT, POS_NODE, POS_GRAPH,
       POS_FILE, NPOS };
static const char *const pos_name[NPOS] = {"input", "dim_param", "initializer", "pool output",
                                           "intermediate (+value_info)", "output", "node names",
                                           "graph name", "model file name"};

static void write_model(const char *path, int pos, const char *payload) {
    char node[3][64];
    const char *X = pos == POS_INPUT ? payload : "X", *N = pos == POS_DIM ? payload : "N";
    const char *W = pos == POS_INIT ? payload : "W", *P = pos == POS_POOL_OUT ? payload : "P";
    const char *T = pos == POS_TEMP ? payload : "T", *Y = pos == POS_OUTPUT ? payload : "Y";
    for (int i = 0; i < 3; i++)
        snprintf(node[i], sizeof node[i], "node%d", i);
    MgGraph *g = mg_new(13);
    if (pos == POS_GRAPH)
        mg_graph_name(g, payload);
    MgDim xd[4] = {{N, 0}, {NULL, 2}, {NULL, 4}, {NULL, 4}};
    MgDim td[4] = {{N, 0}, {NULL, 2}, {NULL, 3}, {NULL, 3}};
    mg_input(g, X, MG_FLOAT, 4, xd);
    const int64_t wd[3] = {2, 1, 1};
    const float wv[2] = {0.5f, -1.25f};
    mg_init(g, W, MG_FLOAT, 3, wd, wv);
    const char *names[3] = {pos == POS_NODE ? payload : node[0], pos == POS_NODE ? payload : node[1],
                            pos == POS_NODE ? payload : node[2]};
    MgNode *mp = mg_node(g, "MaxPool", names[0], 1, (const char *[]){X}, 1, (const char *[]){P});
    mg_attr_ints(mp, "kernel_shape", 2, (const int64_t[]){2, 2});
    mg_node(g, "Add", names[1], 2, (const char *[]){P, W}, 1, (const char *[]){T});
    mg_node(g, "Relu", names[2], 1, (const char *[]){T}, 1, (const char *[]){Y});
    mg_value_info(g, T, MG_FLOAT, 4, td);
    mg_output(g, Y, MG_FLOAT, 4, td);
    mg_write(g, path);
}

static void expect_runs(TuModel *m, const char *what) {
    enum { N = 2 };
    float x[N * 2 * 16], y[N * 2 * 9], want[N * 2 * 9];
    for (int i = 0; i < N * 2 * 16; i++)
        x[i] = (float)((i * 7) % 11) - 5.0f;
    const float w[2] = {0.5f, -1.25f};
    for (int n = 0; n < N; n++)
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    const float *xp = x + (n * 2 + c) * 16;
                    float mx = xp[i * 4 + j];
                    for (int a = 0; a < 2; a++)
                        for (int b = 0; b < 2; b++)
                            mx = xp[(i + a) * 4 + j + b] > mx ? xp[(i + a) * 4 + j + b] : mx;
                    float t = mx + w[c];
                    want[((n * 2 + c) * 3 + i) * 3 + j] = t > 0 ? t : 0;
                }
    int64_t dims[1] = {N};
    const void *in[1] = {x};
    void *out[1] = {y};
    cr_assert_eq(m->check(dims), 0, "%s: model_check", what);
    cr_assert_eq(tu_run(m, dims, in, out), 0, "%s: model_run", what);
    for (int i = 0; i < N * 2 * 9; i++)
        cr_assert_float_eq(y[i], want[i], 1e-6, "%s: y[%d]", what, i);
}

/* Compiles the model at path (CLI style, into dir/model.c and dir/model.h), preprocesses both
 * in ISO C99 and checks the tokens, compiles under the strict flags, runs it with libtcc. */
static void check_model(const char *dir, const char *path, const char *what) {
    TuModel m;
    tu_open(&m, path, NULL);
    char cpath[600], hpath[600], cmd[2400];
    snprintf(cpath, sizeof cpath, "%s/model.c", dir);
    snprintf(hpath, sizeof hpath, "%s/model.h", dir);
    tu_write_file(cpath, m.o.c_src, strlen(m.o.c_src));
    tu_write_file(hpath, m.o.h_src, strlen(m.o.h_src));
    const char *files[2] = {cpath, hpath};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "gcc -std=c99 -E -P -dD -x c '%s' -o '%s.i'", files[k], files[k]);
        cr_assert_eq(system(cmd), 0, "%s: %s", what, cmd);
        char ipath[700];
        snprintf(ipath, sizeof ipath, "%s.i", files[k]);
        char *pp = slurp(ipath);
        check_tokens(what, pp);
        free(pp);
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && gcc -std=c99 -Wall -Wextra -pedantic -Werror -c model.c "
                              "-o model.o 2>cc.txt", dir);
    if (system(cmd) != 0) {
        char log[2000];
        snprintf(cmd, sizeof cmd, "%s/cc.txt", dir);
        tu_read_text(cmd, log, sizeof log);
        cr_assert_fail("%s: strict compile failed: %s", what, log);
    }
    expect_runs(&m, what);
    tu_close(&m);
}

/* ---- the payloads */

typedef struct Payload { /* no pointers: Criterion copies parameters into a new process */
    char text[96];
    char what[64];
} Payload;

static Payload payloads[] = {
    {"add */ { } { " MARK "(); } if (0) //", "comment closer + statement"},
    {"a*\\\n/ " MARK "(); /*", "line splice between * and /"},
    {"a*?\?/\n/ " MARK "(); /*", "trigraph splice between * and /"},
    {"x */\n#define abs(v) " MARK "\n/* ", "macro in the header"},
    {"?\?=define " MARK " 1", "trigraph #"},
    {"/* " MARK " */", "nested comment"},
    {"*/ " MARK " /*", "closer first"},
    {"x\n" MARK "();\n", "newlines"},
    {"x\r" MARK "\f\v\t\x01\x7f\xff\xfe", "control and non-ASCII bytes"},
    {"\" " MARK " \"", "quotes"},
    {"\\\" " MARK "(); \"\\", "backslash-quote"},
    {"?\?/\n" MARK "();", "trigraph backslash at the end of a line"},
    {"//\n" MARK "();", "line comment then newline"},
    {"1", "a digit: in_1 is a kernel local"},
    {"in_1", "an emit_tmp name"},
    {"in__X", "a model identifier"},
    {"s1", "a shape local"},
    {"ws", "the workspace pointer"},
    {"dims", "the dims parameter"},
    {"inputs", "a parameter"},
    {"model_run", "an API function"},
    {"int", "a keyword"},
    {"i", "a loop variable"},
    {"__LINE__", "a predefined macro"},
};

ParameterizedTestParameters(names, payload_at_every_position) {
    return cr_make_param_array(Payload, payloads, sizeof payloads / sizeof *payloads);
}

ParameterizedTest(Payload *pl, names, payload_at_every_position) {
    char dir[] = "/tmp/onnx2c-names-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    for (int pos = 0; pos < NPOS; pos++) {
        char path[700], what[300];
        if (pos == POS_FILE) {
            /* a file name holds any byte but '/' and NUL */
            char base[128];
            size_t k = 0;
            for (const char *p = pl->text; *p && k + 1 < sizeof base; p++)
                base[k++] = *p == '/' ? '|' : *p;
            base[k] = 0;
            snprintf(path, sizeof path, "%s/%s.onnx", dir, base);
        } else
            snprintf(path, sizeof path, "%s/m%d.onnx", dir, pos);
        snprintf(what, sizeof what, "payload (%s) as the %s", pl->what, pos_name[pos]);
        write_model(path, pos, pl->text);
        check_model(dir, path, what);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A name of a megabyte at every position: comments and string literals are shortened (C99
 * guarantees string literals of 4095 bytes; -pedantic checks it), identifiers too. */
Test(names, megabyte_names) {
    char dir[] = "/tmp/onnx2c-names-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    size_t n = 1 << 20;
    char *big = malloc(n + 16);
    cr_assert_not_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = "ab*/?\\\n\""[i % 8];
    big[n] = 0;
    for (int pos = 0; pos < POS_FILE; pos++) {
        char path[700], what[100];
        snprintf(path, sizeof path, "%s/m%d.onnx", dir, pos);
        snprintf(what, sizeof what, "a 1 MB name as the %s", pos_name[pos]);
        write_model(path, pos, big);
        check_model(dir, path, what);
    }
    free(big);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ---- the compiler's own sources: no identifier the compiler writes holds "__" after its
 * first character (templates/ entirely; compiler/ string literals), so none can equal a model
 * identifier KIND__NAME.  emit.c's model_ident, which makes those, is the one exception. */

static void scan_source(const char *path, bool literals_only) {
    char *s = slurp(path);
    bool in_str = !literals_only;
    for (char *p = s; *p; p++) {
        if (literals_only) {
            if (p[0] == '/' && p[1] == '*') {
                char *e = strstr(p + 2, "*/");
                p = e ? e + 1 : p + strlen(p) - 1;
                continue;
            }
            if (p[0] == '/' && p[1] == '/') {
                char *e = strchr(p, '\n');
                p = e ? e : p + strlen(p) - 1;
                continue;
            }
            if (*p == '\'' && !in_str) {
                p += p[1] == '\\' ? 3 : 2;
                continue;
            }
            if (*p == '"') {
                in_str = !in_str;
                continue;
            }
            if (in_str && *p == '\\' && p[1]) {
                p++;
                continue;
            }
        }
        if (in_str && p > s && (isalnum((unsigned char)p[-1])) && p[0] == '_' && p[1] == '_' &&
            isalnum((unsigned char)p[2])) {
            char *line = p;
            while (line > s && line[-1] != '\n')
                line--;
            bool allowed = strstr(path, "compiler/emit.c") && strstr(line, "model_ident");
            cr_assert(allowed, "%s: \"__\" inside an identifier of generated code: %.80s", path, line);
        }
    }
    free(s);
}

static void scan_dir(const char *dir, bool literals_only) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len < 3 || (strcmp(de->d_name + len - 2, ".c") && strcmp(de->d_name + len - 2, ".h")))
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        scan_source(path, literals_only);
        n++;
    }
    closedir(d);
    cr_assert_gt(n, 0, "no sources in %s", dir);
}

Test(names, compiler_identifiers_never_hold_double_underscore) {
    scan_dir(ONNX2C_SOURCE_DIR "/templates", false);
    scan_dir(ONNX2C_SOURCE_DIR "/compiler", true);
    scan_dir(ONNX2C_SOURCE_DIR "/compiler/ops", true);
}

/* The same, in the generated C of every case of tests/node_pass.txt found on this machine:
 * every identifier holding "__" after its first character is a model identifier; and the
 * files are plain printable ASCII. */
Test(names, generated_identifiers_disjoint) {
    FILE *f = fopen(ONNX2C_SOURCE_DIR "/tests/node_pass.txt", "r");
    cr_assert_not_null(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char path[800];
        snprintf(path, sizeof path, "/usr/share/libonnx-testdata/data/%s/model.onnx", line);
        if (access(path, R_OK) != 0)
            continue;
        Output o;
        char err[1024];
        int st = tu_compile(path, &o, err, sizeof err);
        cr_assert_eq(st, O2C_OK, "%s: %s", path, err);
        /* no comments to skip: check_tokens reads them as text, and comments hold model names
         * only through the escaper, which keeps "__" (harmless there); strip them first */
        for (int k = 0; k < 2; k++) {
            for (const char *q = k ? o.h_src : o.c_src; *q; q++) /* plain ASCII text */
                cr_assert(((unsigned char)*q >= 32 && (unsigned char)*q < 127) || *q == '\n' ||
                              *q == '\t',
                          "%s: byte 0x%02x in the generated %s", path, (unsigned char)*q,
                          k ? "header" : "C");
            char *s = strdup(k ? o.h_src : o.c_src);
            for (char *p = s; (p = strstr(p, "/*"));) {
                char *e = strstr(p + 2, "*/");
                cr_assert_not_null(e, "%s: an unterminated comment", path);
                memset(p, ' ', (size_t)(e + 2 - p));
            }
            check_tokens(path, s);
            free(s);
        }
        onnx2c_output_free(&o);
        n++;
    }
    fclose(f);
    cr_assert_gt(n, 0, "no backend case found");
}

/* The C prefix is compiler-made text too: "--name in_" would make in__run, the identifier of a
 * value named "run"; a default prefix from the output's stem loses doubled and trailing '_'. */
Test(names, prefix_never_meets_model_identifiers) {
    const char *model = ONNX2C_SOURCE_DIR "/examples/tinynet.onnx";
    static const char *const bad[] = {"in_", "t_", "a__b", "x_"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        Options opt = {0};
        opt.name = bad[i];
        opt.out_path = "model.c";
        Output o;
        char err[1024];
        int st = onnx2c_compile(model, &opt, &o, err, sizeof err);
        cr_assert_eq(st, O2C_EUSAGE, "--name %s: status %d (%s)", bad[i], st, err);
        cr_assert(strstr(err, "__") && !strchr(err, '\n'), "%s", err);
    }
    Options opt = {0};
    opt.out_path = "out/my__net_.c";
    Output o;
    char err[1024];
    cr_assert_eq(onnx2c_compile(model, &opt, &o, err, sizeof err), O2C_OK, "%s", err);
    cr_assert_str_eq(o.name, "my_net");
    cr_assert(strstr(o.c_src, "#include \"my__net_.h\""));
    onnx2c_output_free(&o);
    opt.out_path = "out/a\"b.c";
    cr_assert_eq(onnx2c_compile(model, &opt, &o, err, sizeof err), O2C_EUSAGE, "%s", err);
}

/* Attributes named o2c_* are the lowering's own (a fused activation on a MatMul): a model that
 * brings its own is refused rather than having them read as onnx2c's. */
Test(names, reserved_attributes_refused) {
    char path[] = "/tmp/onnx2c-attr-XXXXXX.onnx";
    int fd = mkstemps(path, 5);
    cr_assert(fd >= 0);
    close(fd);
    MgGraph *g = mg_new(13);
    MgDim ad[2] = {{NULL, 2}, {NULL, 2}};
    mg_input(g, "a", MG_FLOAT, 2, ad);
    mg_input(g, "b", MG_FLOAT, 2, ad);
    MgNode *mm = mg_node(g, "MatMul", "mm", 2, (const char *[]){"a", "b"}, 1, (const char *[]){"y"});
    mg_attr_int(mm, "o2c_act", 1);
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_write(g, path);
    tu_expect_error(path, O2C_EMODEL, "names beginning with 'o2c_' are reserved");
    remove(path);
}
