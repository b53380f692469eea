/* main.c — the onnx2c command: parses the command line, calls onnx2c_compile, writes OUT.c and
 * OUT.h atomically (temporary files renamed into place), prints errors as one line. */
#include "onnx2c.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: onnx2c MODEL.onnx -o OUT.c [options]\n"
    "\n"
    "Compiles an ONNX model to standalone C99: writes OUT.c and OUT.h.  Symbolic dims\n"
    "(dim_param, dynamic axes) stay runtime parameters of the generated functions.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.c    the C file to write; OUT.h is written beside it\n"
    "  --name NAME           C prefix of the generated symbols (default: OUT's stem)\n"
    "  --fix DIM=VALUE       make the symbolic dim DIM the constant VALUE (repeatable)\n"
    "  --max DIM=VALUE       an upper bound for DIM; with bounds for every dim, OUT.h defines\n"
    "                        NAME_WORKSPACE_MAX (repeatable)\n"
    "  --report              print, per node, the op, its output shape and its workspace\n"
    "                        offset and size, then the peak\n"
    "  --no-winograd         convolve 3x3, stride-1 layers by unfold + GEMM only: OUT.c then\n"
    "                        stores their weights as given (Winograd F(2x2,3x3), the default\n"
    "                        for layers of 16+ channels, stores 16/9 as many and runs faster)\n"
    "  --list-ops            list the supported operators and their family files\n"
    "  -h, --help            show this text\n"
    "  --version             show the version\n"
    "\n"
    "exit status: 0 success, 1 invalid or unsupported model, 2 bad usage, 3 I/O error\n";

static int fail(int status, const char *fmt, const char *arg) {
    fputs("onnx2c: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    if (status == O2C_EUSAGE)
        fputs("(try 'onnx2c --help')\n", stderr);
    return status;
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void collect_op(const OpDef *op, const char *family, void *user) {
    char ***p = user;
    char *line = malloc(strlen(op->name) + strlen(family) + 2);
    sprintf(line, "%s %s", op->name, family);
    *(*p)++ = line;
}

/* One line per op: "NAME FAMILY", sorted by name. */
static void list_ops(void) {
    char *lines[1024], **p = lines;
    ops_each(collect_op, &p);
    size_t n = (size_t)(p - lines);
    qsort(lines, n, sizeof *lines, cmp_name);
    for (size_t i = 0; i < n; i++) {
        printf("%s\n", lines[i]);
        free(lines[i]);
    }
}

static int parse_setting(const char *arg, DimSetting *out) {
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof out->name)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (errno || *end || end == eq + 1 || v < 0)
        return -1;
    memcpy(out->name, arg, (size_t)(eq - arg));
    out->name[eq - arg] = 0;
    out->value = v;
    return 0;
}

static int write_file(const char *path, const char *text, char *tmp, size_t tmplen) {
    snprintf(tmp, tmplen, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *model = NULL, *out = NULL;
    Options opt = {0};
    DimSetting *fix = calloc((size_t)argc, sizeof *fix), *max = calloc((size_t)argc, sizeof *max);
    opt.fix = fix;
    opt.max = max;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            goto end;
        } else if (!strcmp(a, "--list-ops")) {
            list_ops();
            goto end;
        } else if (!strcmp(a, "--version")) {
            printf("onnx2c %s\n", ONNX2C_VERSION);
            goto end;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!has_next) {
                rc = fail(O2C_EUSAGE, "%s needs a file name", a);
                goto end;
            }
            out = argv[++i];
        } else if (!strcmp(a, "--name")) {
            if (!has_next) {
                rc = fail(O2C_EUSAGE, "%s needs a name", a);
                goto end;
            }
            opt.name = argv[++i];
        } else if (!strcmp(a, "--fix") || !strcmp(a, "--max")) {
            bool isfix = a[2] == 'f';
            if (!has_next || parse_setting(argv[i + 1], isfix ? &fix[opt.nfix] : &max[opt.nmax])) {
                rc = fail(O2C_EUSAGE, "%s needs DIM=VALUE with VALUE >= 0", a);
                goto end;
            }
            i++;
            if (isfix)
                opt.nfix++;
            else
                opt.nmax++;
        } else if (!strcmp(a, "--no-winograd")) {
            opt.no_winograd = true;
        } else if (!strcmp(a, "--report")) {
            opt.report = true;
            opt.report_out = stdout;
        } else if (a[0] == '-' && a[1]) {
            rc = fail(O2C_EUSAGE, "unknown option '%s'", a);
            goto end;
        } else if (!model) {
            model = a;
        } else {
            rc = fail(O2C_EUSAGE, "unexpected argument '%s'", a);
            goto end;
        }
    }
    if (!model) {
        rc = fail(O2C_EUSAGE, "%s", "no model given");
        goto end;
    }
    if (!out) {
        rc = fail(O2C_EUSAGE, "%s", "no output given (-o OUT.c)");
        goto end;
    }
    size_t olen = strlen(out);
    if (olen < 3 || strcmp(out + olen - 2, ".c") != 0) {
        rc = fail(O2C_EUSAGE, "the output '%s' must end in .c", out);
        goto end;
    }
    opt.out_path = out;
    Output res;
    char err[1200];
    rc = onnx2c_compile(model, &opt, &res, err, sizeof err);
    if (rc) {
        fprintf(stderr, "onnx2c: error: %s\n", err);
        goto end;
    }
    char *hpath = malloc(olen + 1);
    memcpy(hpath, out, olen - 1);
    hpath[olen - 1] = 'h';
    hpath[olen] = 0;
    char tmp_c[4200], tmp_h[4200];
    if (write_file(out, res.c_src, tmp_c, sizeof tmp_c)) {
        rc = fail(O2C_EIO, "cannot write '%s'", out);
    } else if (write_file(hpath, res.h_src, tmp_h, sizeof tmp_h)) {
        remove(tmp_c);
        rc = fail(O2C_EIO, "cannot write '%s'", hpath);
    } else if (rename(tmp_c, out) || rename(tmp_h, hpath)) {
        remove(tmp_c);
        remove(tmp_h);
        rc = fail(O2C_EIO, "cannot write '%s'", out);
    }
    free(hpath);
    onnx2c_output_free(&res);
end:
    free(fix);
    free(max);
    return rc;
}
