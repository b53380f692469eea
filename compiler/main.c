/* main.c — the onnx2c command: parses the command line, calls onnx2c_compile, writes OUT.c and
 * OUT.h (with --weights also the blob and its .S) together or not at all: temporaries renamed
 * into place, the old files kept until OUT.c is in place.  OUT.c and the blob are streamed to
 * their temporaries as they are made.  Prints every error and warning as one line. */
#include "libonnx2c.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "usage: onnx2c MODEL.onnx -o OUT.c [options]\n"
    "\n"
    "Compiles an ONNX model to standalone C99: writes OUT.c and OUT.h.  Symbolic dims\n"
    "(dim_param, dynamic axes) stay runtime parameters of the generated functions.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.c    the C file to write; OUT.h is written beside it\n"
    "  --name NAME           C prefix of the generated symbols, without \"__\" and not ending\n"
    "                        in '_' (default: OUT's stem)\n"
    "  --fix DIM=VALUE       make the symbolic dim DIM the constant VALUE (repeatable)\n"
    "  --max DIM=VALUE       an upper bound for DIM; with bounds for every input dim, OUT.h\n"
    "                        defines NAME_WORKSPACE_MAX; on a data dim (a size decided by\n"
    "                        the data, e.g. nonzero_y_1) it lowers the bound (repeatable)\n"
    "  --weights FILE        put the weights into the binary blob FILE instead of OUT.c, and\n"
    "                        write FILE.S, which links FILE into a program; OUT.h then\n"
    "                        declares NAME_run_w, which takes the blob, for NAME_run\n"
    "  --report              print, per node, the op, its output shape and its workspace\n"
    "                        offset and size, and the kernel it got, then the peak\n"
    "  --quiet               print no warnings and no progress (errors still print)\n"
    "  --no-winograd         convolve 3x3, stride-1 layers by unfold + GEMM only: OUT.c then\n"
    "                        stores their weights as given (Winograd F(2x2,3x3), the default\n"
    "                        for layers of 32+ input channels, stores 16/9 as many and runs faster;\n"
    "                        F(4x4,3x3), on images of 45x45 and more, 4x as many)\n"
    "  --memory-first        for microcontrollers: the smallest workspace and weights rather\n"
    "                        than the fastest code (bounded kernel scratch, direct kernels,\n"
    "                        no Winograd, elementwise ops in place)\n"
    "  --list-ops            list the supported operators and their family files\n"
    "  -h, --help            show this text\n"
    "  --version             show the version\n"
    "\n"
    "exit status: 0 success, 1 invalid or unsupported model, 2 bad usage, 3 I/O error\n";

/* Progress on a terminal (Options.progress, set only when stderr is one and not --quiet): one
 * line rewritten in place, "onnx2c: inferring 1200/3400 nodes", at most every 100 ms and at
 * each new stage; cleared before anything else is printed. */
typedef struct Progress {
    double last;       /* when the line was last drawn */
    const char *stage; /* the stage drawn */
    int width;         /* characters drawn, 0: none */
} Progress;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void show_progress(void *user, const char *stage, int64_t done, int64_t total) {
    Progress *p = user;
    double t = now_seconds();
    bool same = p->stage && strcmp(p->stage, stage) == 0;
    if (same && t - p->last < 0.1)
        return;
    char line[120];
    if (!strcmp(stage, "loading") || total <= 1)
        snprintf(line, sizeof line, "onnx2c: %s %d%%", stage,
                 (int)(total > 0 ? 100 * done / total : 0));
    else
        snprintf(line, sizeof line, "onnx2c: %s %lld/%lld nodes", stage, (long long)done,
                 (long long)total);
    int w = (int)strlen(line);
    fprintf(stderr, "\r%s%*s", line, p->width > w ? p->width - w : 0, "");
    fflush(stderr);
    p->width = w > p->width ? w : p->width;
    p->stage = stage;
    p->last = t;
}

static void clear_progress(Progress *p) {
    if (p->width)
        fprintf(stderr, "\r%*s\r", p->width, "");
    p->width = 0;
}

/* Prints the one-line error (arg, which may come from the command line, made printable);
 * a usage error carries the hint to --help on the same line. */
static int fail(int status, const char *fmt, const char *arg) {
    char safe[600], msg[1200];
    onnx2c_oneline(safe, sizeof safe, arg);
    snprintf(msg, sizeof msg, fmt, safe);
    fprintf(stderr, "onnx2c: error: %s%s\n", msg,
            status == O2C_EUSAGE ? " (try 'onnx2c --help')" : "");
    return status;
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void collect_op(const char *domain, const char *op_type, const char *family, void *user) {
    (void)domain;
    char ***p = user;
    char *line = malloc(strlen(op_type) + strlen(family) + 2);
    sprintf(line, "%s %s", op_type, family);
    *(*p)++ = line;
}

/* One line per op: "NAME FAMILY", sorted by name. */
static void list_ops(void) {
    char *lines[1024], **p = lines;
    onnx2c_each_op(collect_op, &p);
    size_t n = (size_t)(p - lines);
    qsort(lines, n, sizeof *lines, cmp_name);
    for (size_t i = 0; i < n; i++) {
        printf("%s\n", lines[i]);
        free(lines[i]);
    }
}

/* The output's file name reaches the C (OUT.c includes "STEM.h"): it must have a stem and
 * hold nothing that could end a string or a comment, or form a trigraph.  NULL when fine, else
 * what is wrong. */
static const char *bad_output_name(const char *out) {
    const char *base = strrchr(out, '/');
    base = base ? base + 1 : out;
    size_t n = strlen(base);
    if (n < 2 || strcmp(base + n - 2, ".c") != 0)
        return "must end in .c";
    if (n == 2)
        return "has no name before '.c'";
    for (const char *p = base; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\' || ch == '\'')
            return "holds a quote, a backslash, a control byte or a byte outside printable ASCII";
        if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*') || (p[0] == '?' && p[1] == '?'))
            return "holds '/*', '*/' or '\?\?'";
    }
    return NULL;
}

/* ---- writing OUT.c and OUT.h: both appear together or not at all */

/* "PATH.TAG<pid>.<k>": a name beside path for a temporary or a backup. */
static char *side_name(const char *path, const char *tag, int k) {
    size_t n = strlen(path) + strlen(tag) + 48;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s.%s%ld.%d", path, tag, (long)getpid(), k);
    return s;
}

/* Creates a new file "PATH.TAG<pid>.<k>" beside path; returns its descriptor and its malloc'd
 * name in *name, or -1 with errno set. */
static int create_temp(const char *path, const char *tag, char **name) {
    for (int k = 0; k < 100; k++) {
        char *tmp = side_name(path, tag, k);
        if (!tmp)
            return -1;
        int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *name = tmp;
            return fd;
        }
        int e = errno;
        free(tmp);
        if (e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

/* Writes n bytes to a new file "PATH.TAG<pid>.<k>" beside path; returns its malloc'd name, or
 * NULL with errno set (nothing is then left behind). */
static char *write_temp(const char *path, const char *tag, const char *data, size_t n) {
    char *tmp;
    int fd = create_temp(path, tag, &tmp);
    if (fd < 0)
        return NULL;
    errno = 0;
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        data += w;
        n -= (size_t)w;
    }
    int e = n ? (errno ? errno : EIO) : 0;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        unlink(tmp);
        free(tmp);
        errno = e;
        return NULL;
    }
    return tmp;
}

/* A copy of path beside it, to put back if the rest fails: a hard link, or where the file
 * system has none (vfat...) a copy of the bytes.  NULL with errno set. */
static char *backup(const char *path) {
    for (int k = 0; k < 100; k++) {
        char *bak = side_name(path, "tmpbak", k);
        if (!bak)
            return NULL;
        if (link(path, bak) == 0)
            return bak;
        int e = errno;
        free(bak);
        if (e == EEXIST)
            continue;
        if (e != EPERM && e != ENOTSUP && e != EXDEV && e != EMLINK) {
            errno = e;
            return NULL;
        }
        break;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t len = 0, cap = 0;
    int e = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *d = ncap > cap ? realloc(data, ncap) : NULL;
            if (!d) {
                e = ENOMEM;
                break;
            }
            data = d;
            cap = ncap;
        }
        size_t k = fread(data + len, 1, cap - len, f);
        if (k == 0)
            break;
        len += k;
    }
    if (!e && ferror(f))
        e = errno ? errno : EIO;
    fclose(f);
    char *bak = e ? NULL : write_temp(path, "tmpbak", len ? data : "", len);
    if (e)
        errno = e;
    free(data);
    return bak;
}

/* "cannot write 'PATH': why", one line. */
static int fail_write(const char *path, const char *why) {
    char safe[600];
    onnx2c_oneline(safe, sizeof safe, path);
    fprintf(stderr, "onnx2c: error: cannot write '%s': %s\n", safe, why);
    return O2C_EIO;
}

/* Refuses a target that exists and is not a regular file (a directory, a FIFO...). */
static int check_target(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return fail_write(path, S_ISDIR(st.st_mode) ? "it is a directory"
                                                    : "it exists and is not a regular file");
    return 0;
}

/* One file to write: its path, the temporary holding its new contents, a link to (or copy of)
 * the previous file while it may have to be put back. */
typedef struct Target {
    const char *path;
    char *tmp, *bak;
    bool had; /* a file was there before */
} Target;

/* Renames the temporaries into place, in order, so that the files appear together or not at
 * all: the previous versions of all but the last are kept first (a hard link, or a copy); should
 * a rename fail, those already renamed are put back (or removed when there were none).  The
 * temporaries and backups never stay. */
static int commit(Target *t, int n) {
    int rc = 0, done = 0;
    for (int i = 0; i < n - 1 && !rc; i++) {
        struct stat st;
        t[i].had = lstat(t[i].path, &st) == 0;
        if (t[i].had && !(t[i].bak = backup(t[i].path)))
            rc = fail_write(t[i].path, strerror(errno)); /* cannot keep the old one: change nothing */
    }
    for (; done < n && !rc; done++)
        if (rename(t[done].tmp, t[done].path) != 0)
            rc = fail_write(t[done].path, strerror(errno));
        else {
            free(t[done].tmp);
            t[done].tmp = NULL;
        }
    if (rc)
        done--; /* t[done] failed */
    for (int i = 0; rc && i < done; i++) {
        if (t[i].bak ? rename(t[i].bak, t[i].path) != 0 : unlink(t[i].path) != 0)
            fail_write(t[i].path, "the previous file could not be restored");
        else if (t[i].bak) {
            free(t[i].bak);
            t[i].bak = NULL;
        }
    }
    for (int i = 0; i < n; i++) {
        if (t[i].tmp)
            unlink(t[i].tmp);
        if (t[i].bak)
            unlink(t[i].bak);
        free(t[i].tmp);
        free(t[i].bak);
        t[i].tmp = t[i].bak = NULL;
    }
    return rc;
}

/* A temporary beside path opened for writing (and reading: the blob's header is written last);
 * NULL after printing the error. */
static FILE *open_temp(Target *t) {
    int fd = create_temp(t->path, "tmp", &t->tmp);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w+b");
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(t->tmp);
        }
        free(t->tmp);
        t->tmp = NULL;
        fail_write(t->path, strerror(e));
    }
    return f;
}

/* Closes a temporary opened by open_temp (NULL: nothing); 0, or an error was printed. */
static int close_temp(Target *t, FILE *f) {
    if (!f)
        return 0;
    errno = 0;
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad)
        return fail_write(t->path, strerror(errno ? errno : EIO));
    return 0;
}

int main(int argc, char **argv) {
    const char *model = NULL, *out = NULL, *weights = NULL;
    Target tg[4] = {{0}}; /* the blob, FILE.S, OUT.h, OUT.c: OUT.c is renamed last */
    FILE *cf = NULL, *wf = NULL;
    char *hpath = NULL, *spath = NULL;
    Options opt = {0};
    Progress progress = {0};
    bool quiet = false;
    DimSetting *fix = calloc((size_t)argc, sizeof *fix), *max = calloc((size_t)argc, sizeof *max);
    opt.fix = fix;
    opt.max = max;
    int rc = 0;
    if (!fix || !max) {
        fputs("onnx2c: error: out of memory\n", stderr);
        rc = O2C_EMODEL;
        goto end;
    }
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
            printf("onnx2c %s\n", O2C_VERSION);
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
            if (!has_next || !onnx2c_parse_setting(argv[i + 1], isfix ? &fix[opt.nfix] : &max[opt.nmax])) {
                rc = fail(O2C_EUSAGE, "%s needs DIM=VALUE with VALUE >= 0", a);
                goto end;
            }
            i++;
            if (isfix)
                opt.nfix++;
            else
                opt.nmax++;
        } else if (!strcmp(a, "--weights")) {
            if (!has_next) {
                rc = fail(O2C_EUSAGE, "%s needs a file name", a);
                goto end;
            }
            weights = argv[++i];
        } else if (!strcmp(a, "--no-winograd")) {
            opt.no_winograd = true;
        } else if (!strcmp(a, "--memory-first")) {
            opt.memory_first = true;
        } else if (!strcmp(a, "--quiet")) {
            quiet = true;
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
    const char *why = bad_output_name(out);
    if (why) {
        char safe[600];
        onnx2c_oneline(safe, sizeof safe, out);
        fprintf(stderr, "onnx2c: error: the output name '%s' %s (try 'onnx2c --help')\n", safe, why);
        rc = O2C_EUSAGE;
        goto end;
    }
    opt.out_path = out;
    size_t olen = strlen(out);
    hpath = malloc(olen + 1);
    spath = weights ? malloc(strlen(weights) + 3) : NULL;
    if (!hpath || (weights && !spath)) {
        rc = fail(O2C_EMODEL, "%s: out of memory", model);
        goto end;
    }
    memcpy(hpath, out, olen + 1);
    hpath[olen - 1] = 'h';
    int nt = 0;
    if (weights) {
        sprintf(spath, "%s.S", weights);
        if (!strcmp(weights, out) || !strcmp(weights, hpath) || !strcmp(spath, out) ||
            !strcmp(spath, hpath)) {
            rc = fail(O2C_EUSAGE, "--weights %s: the blob and its .S must not be OUT.c or OUT.h",
                      weights);
            goto end;
        }
        tg[nt++].path = weights;
        tg[nt++].path = spath;
    }
    tg[nt++].path = hpath;
    tg[nt++].path = out;
    for (int k = nt - 1; k >= 0 && !rc; k--) /* OUT.c, OUT.h, then the blob's files */
        rc = check_target(tg[k].path);
    if (rc)
        goto end;
    /* OUT.c and the blob are streamed to their temporaries while they are made */
    if (!(cf = open_temp(&tg[nt - 1])) || (weights && !(wf = open_temp(&tg[0])))) {
        rc = O2C_EIO;
        goto end;
    }
    opt.c_file = cf;
    opt.weights_blob = weights != NULL;
    opt.weights_name = weights;
    opt.weights_file = wf;
    if (!quiet && isatty(STDERR_FILENO)) {
        opt.progress = show_progress;
        opt.progress_user = &progress;
    }
    Output res;
    char err[1200];
    rc = onnx2c_compile(model, &opt, &res, err, sizeof err);
    clear_progress(&progress);
    if (rc) {
        fprintf(stderr, "onnx2c: error: %s\n", err);
        goto end;
    }
    rc = close_temp(&tg[nt - 1], cf);
    cf = NULL;
    if (!rc)
        rc = close_temp(&tg[0], wf);
    else if (wf)
        fclose(wf);
    wf = NULL;
    if (!rc && !(tg[nt - 2].tmp = write_temp(hpath, "tmp", res.h_src, strlen(res.h_src))))
        rc = fail_write(hpath, strerror(errno));
    if (!rc && weights && !(tg[1].tmp = write_temp(spath, "tmp", res.s_src, strlen(res.s_src))))
        rc = fail_write(spath, strerror(errno));
    if (!rc)
        rc = commit(tg, nt);
    for (int i = 0; !rc && !quiet && i < res.nwarnings; i++) /* a failure prints one line */
        fprintf(stderr, "onnx2c: warning: %s\n", res.warnings[i]);
    onnx2c_output_free(&res);
end:
    if (cf)
        fclose(cf);
    if (wf)
        fclose(wf);
    for (int k = 0; k < 4; k++) /* what a failure left: temporaries only, never a target */
        if (tg[k].tmp) {
            unlink(tg[k].tmp);
            free(tg[k].tmp);
        }
    free(hpath);
    free(spath);
    free(fix);
    free(max);
    return rc;
}
