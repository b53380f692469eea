/* test_cli.c — the onnx2c command as users run it (CONTRACT.md §1): exit statuses, one-line
 * errors, no output file left behind, the C prefix rule, --fix/--max, and that the generated C
 * compiles warning-free under strict C99. */
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
