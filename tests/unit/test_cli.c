/* test_cli.c — the onnx2c command as users run it (CONTRACT.md §1): exit statuses, one-line
 * errors, no output file left behind, the C prefix rule, --fix/--max, and that the generated C
 * compiles warning-free under strict C99; warnings, --quiet, progress on a terminal only, and
 * the kernel column of --report. */
#include "modelgen.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ONNX2C ONNX2C_BINARY_DIR "/onnx2c"
#define NODE TU_NODE_DATA

static char tmpdir[256];

static void setup(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/onnx2c-cli-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        cr_log_warn("could not remove %s", tmpdir);
}

/* Runs a shell command; returns its exit status and its stderr (first 4 KB) in err. */
static int run(const char *args, char *err, size_t errlen) {
    char cmd[2000], errpath[400];
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s %s >/dev/null 2>'%s'", tmpdir, ONNX2C, args, errpath);
    int st = system(cmd);
    FILE *f = fopen(errpath, "r");
    size_t n = f ? fread(err, 1, errlen - 1, f) : 0;
    err[n] = 0;
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exists(const char *name) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    struct stat sb;
    return stat(p, &sb) == 0;
}

static int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void write_file(const char *name, const void *data, size_t n) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    tu_write_file(p, data, n);
}

TestSuite(cli, .init = setup, .fini = teardown);

Test(cli, help_and_version) {
    char err[4096];
    cr_assert_eq(run("--help", err, sizeof err), 0);
    cr_assert_eq(run("--version", err, sizeof err), 0);
}

Test(cli, converts_and_names_outputs) {
    char err[4096];
    cr_assert_eq(run(NODE "test_add/model.onnx -o my-net.c", err, sizeof err), 0, "stderr: %s", err);
    cr_assert(exists("my-net.c") && exists("my-net.h"));
    char p[600], buf[8192];
    snprintf(p, sizeof p, "%s/my-net.h", tmpdir);
    tu_read_text(p, buf, sizeof buf);
    cr_assert(strstr(buf, "int my_net_run(const int64_t *dims, const void *const *inputs, void *const *outputs,"));
    cr_assert(strstr(buf, "#define MY_NET_NUM_DIMS    0"));
    cr_assert(strstr(buf, "#define MY_NET_NUM_INPUTS  2"));
    cr_assert(strstr(buf, "size_t my_net_workspace_size(const int64_t *dims);"));
    /* no temporaries left */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", tmpdir);
    cr_assert_neq(system(cmd), 0, "a temporary file was left behind");
}

Test(cli, generated_code_is_strict_c99) {
    char err[4096];
    cr_assert_eq(run(NODE "test_add_bcast/model.onnx -o m.c --name net", err, sizeof err), 0);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cd '%s' && gcc -std=c99 -Wall -Wextra -pedantic -Werror -c m.c -o m.o 2>/dev/null",
             tmpdir);
    cr_assert_eq(system(cmd), 0, "gcc -std=c99 -pedantic rejected the generated code");
    snprintf(cmd, sizeof cmd, "cd '%s' && nm m.o | grep -q ' T net_run'", tmpdir);
    cr_assert_eq(system(cmd), 0, "--name did not set the prefix");
}

Test(cli, usage_errors_exit_2) {
    char err[4096];
    cr_assert_eq(run("", err, sizeof err), 2);
    cr_assert_eq(run(NODE "test_add/model.onnx", err, sizeof err), 2, "no -o");
    cr_assert(strstr(err, "onnx2c: error:"));
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c --bogus", err, sizeof err), 2);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c --fix N", err, sizeof err), 2);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c --fix nosuchdim=3", err, sizeof err), 2);
    cr_assert(strstr(err, "no dim named 'nosuchdim'"), "stderr: %s", err);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.txt", err, sizeof err), 2);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c --name 9lives", err, sizeof err), 2);
    cr_assert(!exists("out.c") && !exists("out.h"));
}

Test(cli, missing_file_exit_3_one_line) {
    char err[4096];
    cr_assert_eq(run("no-such-model.onnx -o out.c", err, sizeof err), 3);
    cr_assert_eq(count_lines(err), 1, "stderr: %s", err);
    cr_assert(strncmp(err, "onnx2c: error: ", 15) == 0);
    cr_assert(!exists("out.c") && !exists("out.h"));
}

Test(cli, garbage_exit_1_no_output) {
    char err[4096];
    unsigned char junk[4096];
    srand(7);
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)rand();
    write_file("junk.onnx", junk, sizeof junk);
    write_file("empty.onnx", "", 0);
    cr_assert_eq(run("junk.onnx -o out.c", err, sizeof err), 1);
    cr_assert_eq(count_lines(err), 1, "stderr: %s", err);
    cr_assert(strstr(err, "junk.onnx"));
    cr_assert_eq(run("empty.onnx -o out.c", err, sizeof err), 1);
    cr_assert(!exists("out.c") && !exists("out.h"));
}

Test(cli, unwritable_output_exit_3) {
    char err[4096];
    cr_assert_eq(run(NODE "test_add/model.onnx -o /nonexistent-dir/out.c", err, sizeof err), 3);
    cr_assert_eq(count_lines(err), 1, "stderr: %s", err);
}

Test(cli, unsupported_op_names_node) {
    char err[4096];
    cr_assert_eq(run(ONNX2C_SOURCE_DIR "/tests/data/bad/unknown_op.onnx -o out.c", err, sizeof err), 1);
    cr_assert(strstr(err, "node '"), "stderr: %s", err);
    cr_assert_eq(count_lines(err), 1);
    cr_assert(!exists("out.c"));
}

Test(cli, fix_and_max_dims) {
    char err[4096];
    /* the bundled example has dims batch, height, width */
    const char *model = ONNX2C_SOURCE_DIR "/examples/tinynet.onnx";
    char args[800];
    snprintf(args, sizeof args, "%s -o t.c --max batch=4 --max height=64 --max width=64", model);
    int rc = run(args, err, sizeof err);
    if (rc == 1 && strstr(err, "not supported"))
        cr_skip_test("an op of the example is not supported yet: %s", err);
    cr_assert_eq(rc, 0, "stderr: %s", err);
    char p[600], buf[16384];
    snprintf(p, sizeof p, "%s/t.h", tmpdir);
    tu_read_text(p, buf, sizeof buf);
    cr_assert(strstr(buf, "#define T_WORKSPACE_MAX"), "no WORKSPACE_MAX with every dim bounded");
    cr_assert(strstr(buf, "T_DIM_HEIGHT = 1"));
    /* the bound holds: workspace_size at and below the bounds never exceeds it */
    static const char prog[] =
        "#include \"t.h\"\n"
        "int main(void) {\n"
        "    int64_t hi[3] = {4, 64, 64}, mid[3] = {1, 17, 33}, lo[3] = {1, 1, 1};\n"
        "    size_t a = t_workspace_size(hi), b = t_workspace_size(mid), c = t_workspace_size(lo);\n"
        "    return a > 0 && a <= T_WORKSPACE_MAX && b <= T_WORKSPACE_MAX && c <= T_WORKSPACE_MAX ? 0 : 1;\n"
        "}\n";
    write_file("wsmax.c", prog, strlen(prog));
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cd '%s' && cc -std=c99 -o wsmax wsmax.c t.c -lm && ./wsmax", tmpdir);
    cr_assert_eq(system(cmd), 0, "NAME_workspace_size exceeded NAME_WORKSPACE_MAX");
    snprintf(args, sizeof args, "%s -o f.c --fix batch=1", model);
    cr_assert_eq(run(args, err, sizeof err), 0, "stderr: %s", err);
    snprintf(p, sizeof p, "%s/f.h", tmpdir);
    tu_read_text(p, buf, sizeof buf);
    cr_assert(strstr(buf, "#define F_NUM_DIMS    2"), "--fix did not remove the dim");
    cr_assert(!strstr(buf, "F_DIM_BATCH"));
}

/* ------------------------------------------------------------------ hostile inputs (#9) */

static bool any_tmp_left(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q tmp", tmpdir);
    return system(cmd) == 0;
}

static void read_in(const char *name, char *buf, size_t cap) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    tu_read_text(p, buf, cap);
}

/* Each usage error is exactly one line, the hint to --help included. */
Test(cli, usage_errors_one_line) {
    char err[4096];
    const char *cases[] = {
        "",
        NODE "test_add/model.onnx",
        NODE "test_add/model.onnx -o out.c --bogus",
        NODE "test_add/model.onnx -o out.c --fix N",
        NODE "test_add/model.onnx -o out.c --fix nosuchdim=3",
        NODE "test_add/model.onnx -o out.txt",
        NODE "test_add/model.onnx -o out.c --name 9lives",
        NODE "test_add/model.onnx -o out.c extra",
        NODE "test_add/model.onnx -o",
        "\"--bogus$(printf '\\nsecond-line')\"", /* sh: no $'...' */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_eq(run(cases[i], err, sizeof err), 2, "%s", cases[i]);
        cr_assert_eq(count_lines(err), 1, "'%s' printed: %s", cases[i], err);
        cr_assert(strncmp(err, "onnx2c: error: ", 15) == 0, "%s", err);
    }
    cr_assert(strstr(err, "unknown option '--bogus\\x0asecond-line' (try 'onnx2c --help')"), "%s", err);
}

/* The output's name reaches the C (#include "STEM.h"): it needs a stem and nothing that could
 * break out of a string or a comment. */
Test(cli, bad_output_names) {
    char err[4096];
    const char *cases[] = {"-o .c", "-o sub/.c", "-o 'a\"b.c'", "-o 'a\\b.c'", "-o \"a'b.c\"",
                           "-o \"$(printf 'a\\nb.c')\"", "-o 'a?\?=b.c'",
                           "-o \"$(printf '\\303\\251.c')\"", "-o \"$(printf 'a\\tb.c')\""};
    cr_assert_eq(mkdir(strcat(strcpy((char[600]){0}, tmpdir), "/sub"), 0755), 0);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[600];
        snprintf(args, sizeof args, NODE "test_add/model.onnx %s", cases[i]);
        cr_assert_eq(run(args, err, sizeof err), 2, "%s: %s", cases[i], err);
        cr_assert_eq(count_lines(err), 1, "%s printed: %s", cases[i], err);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s/sub')\" && test \"$(ls -A '%s' | grep -v stderr.txt)\" = sub",
             tmpdir, tmpdir);
    cr_assert_eq(system(cmd), 0, "a file was written");
}

/* OUT.h a directory: nothing is written, an existing OUT.c stays as it was. */
Test(cli, header_target_is_directory) {
    char err[4096], buf[64];
    char p[600];
    snprintf(p, sizeof p, "%s/out.h", tmpdir);
    cr_assert_eq(mkdir(p, 0755), 0);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c", err, sizeof err), 3);
    cr_assert_eq(count_lines(err), 1, "%s", err);
    cr_assert(strstr(err, "'out.h'"), "the message names another file: %s", err);
    cr_assert(!exists("out.c"));
    cr_assert(!any_tmp_left(), "a temporary file was left behind");
    write_file("out.c", "old", 3);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c", err, sizeof err), 3);
    read_in("out.c", buf, sizeof buf);
    cr_assert_str_eq(buf, "old");
    cr_assert(!any_tmp_left());
    /* the same with OUT.c a directory */
    rmdir(p);
    unlink(strcat(strcpy(p, tmpdir), "/out.c"));
    cr_assert_eq(mkdir(p, 0755), 0);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c", err, sizeof err), 3);
    cr_assert(strstr(err, "'out.c'"), "%s", err);
    cr_assert(!exists("out.h") && !any_tmp_left());
}

/* Criterion runs no .fini after cr_skip_test: remove the folder first. */
#define SKIP_TEST(...)                                                                             \
    do {                                                                                           \
        teardown();                                                                                \
        cr_skip_test(__VA_ARGS__);                                                                 \
    } while (0)

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* The last step, renaming OUT.c into place, fails (an LD_PRELOAD shim makes rename() to a ".c"
 * name fail): the previous OUT.h is put back, or the new one removed when there was none. */
static void build_shim(void) {
    static const char shim[] =
        "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <errno.h>\n#include <stdlib.h>\n"
        "#include <string.h>\n"
        "int rename(const char *a, const char *b) {\n"
        "    int (*real)(const char *, const char *) =\n"
        "        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, \"rename\");\n"
        "    size_t n = strlen(b);\n"
        "    if (n > 2 && strcmp(b + n - 2, \".c\") == 0) { errno = EIO; return -1; }\n"
        "    return real(a, b);\n}\n"
        "int link(const char *a, const char *b) {\n" /* a file system without hard links */
        "    int (*real)(const char *, const char *) =\n"
        "        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, \"link\");\n"
        "    if (getenv(\"SHIM_NOLINK\")) { errno = EPERM; return -1; }\n"
        "    return real(a, b);\n}\n";
    write_file("shim.c", shim, strlen(shim));
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cd '%s' && cc -shared -fPIC -o shim.so shim.c -ldl", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

Test(cli, failed_rename_restores_header) {
#ifdef UNDER_ASAN
    SKIP_TEST("LD_PRELOAD does not mix with ASan");
#endif
    build_shim();
    char err[4096], buf[64], full[2000];
    for (int nolink = 0; nolink < 2; nolink++) { /* the old header kept by a link, a copy */
        write_file("out.h", "old header", 10);
        write_file("out.c", "old source", 10);
        snprintf(full, sizeof full, "cd '%s' && env %s LD_PRELOAD='%s/shim.so' %s %s -o out.c "
                 ">/dev/null 2>stderr.txt", tmpdir, nolink ? "SHIM_NOLINK=1" : "", tmpdir, ONNX2C,
                 NODE "test_add/model.onnx");
        int st = system(full);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
        read_in("stderr.txt", err, sizeof err);
        cr_assert_eq(count_lines(err), 1, "%s", err);
        cr_assert(strstr(err, "cannot write 'out.c'"), "%s", err);
        read_in("out.h", buf, sizeof buf);
        cr_assert_str_eq(buf, "old header");
        read_in("out.c", buf, sizeof buf);
        cr_assert_str_eq(buf, "old source");
        cr_assert(!any_tmp_left());
    }
    /* no previous files: none appear */
    unlink(strcat(strcpy((char[600]){0}, tmpdir), "/out.h"));
    unlink(strcat(strcpy((char[600]){0}, tmpdir), "/out.c"));
    int st = system(full);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    cr_assert(!exists("out.c") && !exists("out.h") && !any_tmp_left());
}

/* --weights FILE: the blob and FILE.S appear with OUT.c and OUT.h, or none of them. */
Test(cli, weights_files) {
    char err[4096], p[600], buf[8192];
    cr_assert_eq(run(NODE "test_conv_with_strides_padding/model.onnx -o out.c --weights w.bin",
                     err, sizeof err), 0, "%s", err);
    cr_assert(exists("out.c") && exists("out.h") && exists("w.bin") && exists("w.bin.S"));
    snprintf(p, sizeof p, "%s/out.h", tmpdir);
    tu_read_text(p, buf, sizeof buf);
    cr_assert(strstr(buf, "int out_run_w(const int64_t *dims"), "%s", buf);
    cr_assert(!strstr(buf, "int out_run("), "%s", buf);
    const char *def = strstr(buf, "#define OUT_WEIGHTS_SIZE ");
    cr_assert_not_null(def);
    struct stat st;
    snprintf(p, sizeof p, "%s/w.bin", tmpdir);
    cr_assert_eq(stat(p, &st), 0);
    cr_assert_eq((long long)st.st_size, atoll(def + strlen("#define OUT_WEIGHTS_SIZE ")));
    snprintf(p, sizeof p, "%s/w.bin.S", tmpdir);
    tu_read_text(p, buf, sizeof buf);
    cr_assert(strstr(buf, ".incbin \"w.bin\""), "%s", buf);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd '%s' && cc -c w.bin.S -o w.o && nm w.o | grep -q ' R out_weights' "
             "&& cc -std=c99 -Wall -Wextra -pedantic -Werror -c out.c -o out.o", tmpdir);
    cr_assert_eq(system(cmd), 0, "FILE.S or OUT.c does not build");
    snprintf(cmd, sizeof cmd, "cd '%s' && rm -f out.* w.*", tmpdir);
    cr_assert_eq(system(cmd), 0);
    /* a bad model, a bad blob name, the blob named as OUT.h: nothing written, nothing left */
    write_file("bad.onnx", "garbage", 7);
    cr_assert_eq(run("bad.onnx -o out.c --weights w.bin", err, sizeof err), 1, "%s", err);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c --weights 'w\"x.bin'", err, sizeof err), 2,
                 "%s", err);
    cr_assert_eq(count_lines(err), 1, "%s", err);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c --weights out.h", err, sizeof err), 2, "%s",
                 err);
    cr_assert_eq(run(NODE "test_add/model.onnx -o out.c --weights", err, sizeof err), 2, "%s", err);
    cr_assert(!exists("out.c") && !exists("out.h") && !exists("w.bin") && !exists("w.bin.S"));
    cr_assert(!any_tmp_left(), "a temporary file was left behind");
}

/* With --weights, the last rename (OUT.c) failing puts the previous blob, FILE.S and OUT.h back
 * (or removes the new ones when there were none). */
Test(cli, failed_rename_restores_blob) {
#ifdef UNDER_ASAN
    SKIP_TEST("LD_PRELOAD does not mix with ASan");
#endif
    build_shim();
    static const char *const names[] = {"out.h", "w.bin", "w.bin.S", "out.c"};
    char full[2000], buf[64], err[4096];
    snprintf(full, sizeof full, "cd '%s' && env LD_PRELOAD='%s/shim.so' %s %s -o out.c "
             "--weights w.bin >/dev/null 2>stderr.txt", tmpdir, tmpdir, ONNX2C,
             NODE "test_conv_with_strides_padding/model.onnx");
    for (size_t i = 0; i < 4; i++)
        write_file(names[i], "old", 3);
    int st = system(full);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    read_in("stderr.txt", err, sizeof err);
    cr_assert(strstr(err, "cannot write 'out.c'"), "%s", err);
    for (size_t i = 0; i < 4; i++) {
        read_in(names[i], buf, sizeof buf);
        cr_assert_str_eq(buf, "old", "%s was not put back", names[i]);
    }
    cr_assert(!any_tmp_left());
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cd '%s' && rm -f out.* w.*", tmpdir);
    cr_assert_eq(system(cmd), 0);
    st = system(full);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    for (size_t i = 0; i < 4; i++)
        cr_assert(!exists(names[i]), "%s appeared", names[i]);
    cr_assert(!any_tmp_left());
}

/* The model named on the command line is a FIFO or a directory: exit 3, one line, no wait. */
Test(cli, model_fifo_or_directory, .timeout = 20) {
    char err[4096], p[600];
    snprintf(p, sizeof p, "%s/fifo.onnx", tmpdir);
    cr_assert_eq(mkfifo(p, 0600), 0);
    cr_assert_eq(run("fifo.onnx -o out.c", err, sizeof err), 3);
    cr_assert_eq(count_lines(err), 1, "%s", err);
    cr_assert(strstr(err, "FIFO"), "%s", err);
    cr_assert_eq(run(". -o out.c", err, sizeof err), 3);
    cr_assert_eq(count_lines(err), 1, "%s", err);
    cr_assert(!exists("out.c") && !exists("out.h"));
}

/* An opset newer than the newest implemented: compiled, one warning line, exit 0. */
Test(cli, newer_opset_warning) {
    char err[4096];
    cr_assert_eq(run(ONNX2C_SOURCE_DIR "/tests/data/bad/opset19.onnx -o out.c", err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(count_lines(err), 1, "%s", err);
    cr_assert(strncmp(err, "onnx2c: warning: ", 17) == 0, "%s", err);
    cr_assert(strstr(err, "opset 19 of domain 'ai.onnx' is newer than 17"), "%s", err);
    cr_assert(exists("out.c") && exists("out.h"));
}

/* Out of memory is an error like any other: exit 1, one line "FILE: out of memory".  The model
 * needs 1 GiB of weights (a sparse file) under a 600 MB address-space limit. */
Test(cli, out_of_memory_exit_1) {
#ifdef UNDER_ASAN
    SKIP_TEST("an address-space limit does not work under ASan");
#endif
    if (system("command -v prlimit >/dev/null") != 0)
        SKIP_TEST("prlimit is not installed");
    char err[4096], cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s/tests/data/bad/external_big.onnx' '%s/big.onnx' && "
             "truncate -s 1G '%s/big.bin'", ONNX2C_SOURCE_DIR, tmpdir, tmpdir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && prlimit --as=600000000 %s big.onnx -o out.c "
             ">/dev/null 2>stderr.txt", tmpdir, ONNX2C);
    int st = system(cmd);
    read_in("stderr.txt", err, sizeof err);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d: %s", st, err);
    cr_assert_str_eq(err, "onnx2c: error: big.onnx: out of memory\n");
    cr_assert(!exists("out.c") && !exists("out.h"));
}

/* ---- messages: warnings, --quiet, progress, the kernel column of --report */

/* --quiet: no warning; the outputs are written, exit 0. */
Test(cli, quiet_suppresses_warnings) {
    char err[4096];
    cr_assert_eq(run("--quiet " ONNX2C_SOURCE_DIR "/tests/data/bad/opset19.onnx -o out.c", err,
                     sizeof err), 0, "%s", err);
    cr_assert_str_eq(err, "");
    cr_assert(exists("out.c") && exists("out.h"));
    /* errors still print, with the same status */
    cr_assert_eq(run("--quiet missing.onnx -o out2.c", err, sizeof err), 3);
    cr_assert_eq(count_lines(err), 1, "%s", err);
    cr_assert(strncmp(err, "onnx2c: error: ", 15) == 0, "%s", err);
}

/* Two nodes on slow paths: a depthwise Conv of 10x10 taps (the vector kernels take 81 at most)
 * and a linear Resize of one axis (the bilinear kernel takes the last two). */
static void write_slow_model(const char *name) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    static float w[2 * 10 * 10];
    for (int i = 0; i < 200; i++)
        w[i] = (float)(i % 7) * 0.125f;
    MgGraph *g = mg_new(13);
    mg_input(g, "x", MG_FLOAT, 4, (const MgDim[]){{NULL, 1}, {NULL, 2}, {NULL, 12}, {NULL, 12}});
    mg_init(g, "w", MG_FLOAT, 4, (const int64_t[]){2, 1, 10, 10}, w);
    mg_init(g, "sc", MG_FLOAT, 1, (const int64_t[]){4}, (const float[]){1, 1, 1, 2});
    MgNode *n = mg_node(g, "Conv", "dw", 2, (const char *[]){"x", "w"}, 1, (const char *[]){"t"});
    mg_attr_int(n, "group", 2);
    n = mg_node(g, "Resize", "up", 3, (const char *[]){"t", "", "sc"}, 1, (const char *[]){"y"});
    mg_attr_str(n, "mode", "linear");
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_write(g, p);
}

/* A warning a line, naming the node and op; --quiet prints none.  stderr is a file here: no
 * progress (no carriage return) either way. */
Test(cli, slow_path_warnings) {
    char err[4096];
    write_slow_model("slow.onnx");
    cr_assert_eq(run("slow.onnx -o out.c", err, sizeof err), 0, "%s", err);
    cr_assert_eq(count_lines(err), 2, "%s", err);
    cr_assert(strstr(err, "onnx2c: warning: slow.onnx: node 'dw' (Conv): depthwise convolution "
                          "on the scalar row kernel"), "%s", err);
    cr_assert(strstr(err, "100 taps"), "%s", err);
    cr_assert(strstr(err, "onnx2c: warning: slow.onnx: node 'up' (Resize): linear Resize on the "
                          "generic separable path"), "%s", err);
    cr_assert(!strchr(err, '\r'), "%s", err);
    cr_assert_eq(run("--quiet slow.onnx -o out.c", err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(err, "");
    /* --memory-first chose the row kernel on purpose: nothing to say about it */
    cr_assert_eq(run("--memory-first slow.onnx -o out.c", err, sizeof err), 0, "%s", err);
    cr_assert(!strstr(err, "depthwise"), "%s", err);
}

/* On a terminal (a pseudo-terminal made by script(1)) the stages show on one line rewritten
 * with \r, cleared at the end; nothing with --quiet. */
Test(cli, progress_on_a_terminal, .timeout = 60) {
    if (system("script -q -c true /dev/null >/dev/null 2>&1") != 0)
        SKIP_TEST("script(1) is not available");
    char cmd[1200], out[8192];
    for (int quiet = 0; quiet < 2; quiet++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && script -q -c \"%s %s %s -o out.c 2>&1 >/dev/null\" "
                 "/dev/null > tty.txt 2>&1 </dev/null", tmpdir, ONNX2C, quiet ? "--quiet" : "",
                 NODE "test_add/model.onnx");
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        read_in("tty.txt", out, sizeof out);
        if (quiet) {
            cr_assert_str_eq(out, "", "%s", out);
            continue;
        }
        cr_assert(strstr(out, "\ronnx2c: loading "), "%s", out);
        cr_assert(strstr(out, "\ronnx2c: inferring "), "%s", out);
        cr_assert(strstr(out, "\ronnx2c: writing "), "%s", out);
        cr_assert(!strchr(out, '\n'), "the progress line ends cleared, not on a line: %s", out);
        size_t n = strlen(out);
        cr_assert(n > 0 && out[n - 1] == '\r', "%s", out);
    }
}

/* --report's last column names each node's kernel. */
Test(cli, report_names_kernels) {
    char p[600], cmd[1200], out[16384];
    snprintf(p, sizeof p, "%s/cg.onnx", tmpdir);
    static float w[8 * 3 * 3 * 3], f[8 * 8 * 8 * 4];
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        w[i] = (float)(i % 5) * 0.25f;
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        f[i] = (float)(i % 3) * 0.5f;
    MgGraph *g = mg_new(13);
    mg_input(g, "x", MG_FLOAT, 4, (const MgDim[]){{NULL, 1}, {NULL, 3}, {NULL, 8}, {NULL, 8}});
    mg_init(g, "w", MG_FLOAT, 4, (const int64_t[]){8, 3, 3, 3}, w);
    mg_init(g, "f", MG_FLOAT, 2, (const int64_t[]){8 * 8 * 8, 4}, f);
    MgNode *n = mg_node(g, "Conv", "conv", 2, (const char *[]){"x", "w"}, 1, (const char *[]){"c"});
    mg_attr_ints(n, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    mg_node(g, "Flatten", "flat", 1, (const char *[]){"c"}, 1, (const char *[]){"v"});
    mg_node(g, "Gemm", "fc", 2, (const char *[]){"v", "f"}, 1, (const char *[]){"y"});
    mg_output(g, "y", MG_FLOAT, -1, NULL);
    mg_write(g, p);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s cg.onnx -o out.c --report > report.txt", tmpdir,
             ONNX2C);
    cr_assert_eq(system(cmd), 0);
    read_in("report.txt", out, sizeof out);
    cr_assert(strstr(out, "arena in use kernel\n"), "%s", out);
    const char *line[3] = {"\nconv ", "\nflat ", "\nfc "};
    /* (the conv may take the indirect GEMM first, on cores with 64-byte vectors) */
    const char *want[3] = {"im2col+gemm (packed weight)\n", " copy (alias: nothing)\n",
                           " gemm (B packed at compile time)\n"};
    for (int i = 0; i < 3; i++) {
        const char *at = strstr(out, line[i]);
        cr_assert_not_null(at, "%s", out);
        const char *eol = strchr(at + 1, '\n');
        const char *k = strstr(at, want[i]);
        cr_assert(k && k + strlen(want[i]) == eol + 1, "%s: %s", want[i], out);
    }
}
