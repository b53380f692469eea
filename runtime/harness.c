/* harness.c — onnx2c-test: runs cases in the ONNX backend-test layout (CONTRACT.md §3).
 *
 * For each case folder: compile model.onnx to C, compile that C once (libtcc in memory, or
 * --cc "gcc -O2"), then for every test_data_set_*: derive the dims from the input shapes, check
 * them, size the outputs and the workspace through the generated API, run, compare (check_output
 * in draws.c: the type, then the values, or what random ops guarantee).  Each case runs in a
 * child process, so a crash or a hang is one failed case, not a dead run.
 * Prints "PASS name" or "FAIL name: stage: message" per case and closes with
 * "N passed, N failed".  With --weights each case is built both ways (onnx2c --weights, and
 * inline weights: model.c's jm_twin) and the two must give the same output bytes. */
#include "runtime.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct Config {
    const char *cc;
    const char *keep;
    bool strict;
    bool quiet;
    bool dynamic;
    bool no_declared;
    bool no_winograd;
    bool memory_first;
    bool weights;
    int timeout;
} Config;

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists entries of dir starting with prefix, sorted (numerically for input_N.pb). */
static int list_dir(const char *dir, const char *prefix, char ***out) {
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0, cap = 16;
    char **v = malloc(sizeof(char *) * (size_t)cap);
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (strncmp(ent->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (n == cap)
            v = realloc(v, sizeof(char *) * (size_t)(cap *= 2));
        v[n++] = strdup(ent->d_name);
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof(char *), cmp_str);
    *out = v;
    return n;
}

static void free_list(char **v, int n) {
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The buffer given for an input of no elements: a page that cannot be read, so generated code
 * that reads an empty input (say, a padding value from its first element) crashes the case
 * instead of passing on whatever lies there.  NULL when the page cannot be had (then the
 * loaded buffer serves). */
static const void *empty_input(void) {
    static void *page;
    if (!page) {
        void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        page = p == MAP_FAILED ? NULL : p;
    }
    return page;
}

/* The buffer given for an input whose test data has another shape than the model's: `bytes`
 * that cannot be read (munmap them after the run), or NULL.  ONNX 1.12's CastLike cases with
 * bfloat16 give `like`, which supplies only a type, as one element where the model declares
 * [3, 4]: a model that never reads the input runs; one that reads it crashes the case. */
static void *unreadable(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Runs one test_data_set; returns 0 or writes the failure (stage: message) into msg. */
static int run_set(const JitModel *m, const char *setdir, char *msg, size_t msglen) {
    char err[600];
    Tensor **in = NULL, **want = NULL;
    int nin = jm_read_set(setdir, "input", &in, err, sizeof err);
    if (nin < 0) {
        snprintf(msg, msglen, "data: %s", err);
        return -1;
    }
    int nout = jm_read_set(setdir, "output", &want, err, sizeof err);
    if (nout < 0) {
        jm_free_set(in, nin);
        snprintf(msg, msglen, "data: %s", err);
        return -1;
    }
    int rc = -1;
    void **outs = calloc((size_t)nout + 1, sizeof(void *));
    void *noread[JM_MAX_IO] = {0}; /* inputs given as unreadable memory (see unreadable) */
    size_t noread_len[JM_MAX_IO] = {0};
    int64_t *dims = jm_new_dims(m);
    jm_bind_dims(m, in, nin, dims);
    int crc = m->check(dims);
    if (crc) {
        snprintf(msg, msglen, "check: model_check returned %d", crc);
        goto done;
    }
    for (int i = 0; i < nin; i++) {
        int64_t shape[JM_MAX_RANK];
        int r = m->input_shape(dims, i, shape);
        if (r < 0) {
            snprintf(msg, msglen, "inputs: the model has fewer inputs than the test data (%d)", nin);
            goto done;
        }
        bool same = r == in[i]->rank;
        for (int d = 0; same && d < r; d++)
            same = shape[d] == in[i]->dims[d];
        if (!same) {
            size_t bytes = 16; /* the widest element (complex128); 0: no elements */
            bool fits = true;
            for (int d = 0; d < r && bytes; d++)
                if (shape[d] < 0 || (shape[d] && bytes > SIZE_MAX / (size_t)shape[d]))
                    fits = false;
                else
                    bytes *= (size_t)shape[d];
            if (fits && !bytes && empty_input()) {
                noread[i] = (void *)empty_input();
                continue;
            }
            if (fits && bytes && (noread[i] = unreadable(bytes))) {
                noread_len[i] = bytes;
                continue;
            }
            snprintf(msg, msglen, "inputs: input %d shape does not match the model", i);
            goto done;
        }
    }
    int64_t probe[JM_MAX_RANK];
    if (m->input_shape(dims, nin, probe) >= 0) {
        snprintf(msg, msglen, "inputs: the test data has fewer inputs than the model");
        goto done;
    }
    for (int i = 0; i < nout; i++) {
        int64_t shape[JM_MAX_RANK];
        int r = m->output_shape(dims, i, shape);
        /* without data dims the shapes are known before the run (with: compared after it) */
        if (r >= 0 && r <= JM_MAX_RANK && !m->out.ndata_dims &&
            !jm_same_shape(i, r, shape, want[i], msg, msglen))
            goto done;
        if (jm_alloc_output(m, dims, i, &outs[i], NULL, msg, msglen) < 0)
            goto done;
    }
    const void *inptr[JM_MAX_IO];
    for (int i = 0; i < nin; i++)
        inptr[i] = noread[i]                                ? noread[i]
                   : in[i]->nelem == 0 && empty_input() ? empty_input()
                                                         : in[i]->data;
    if (jm_run(m, dims, inptr, outs, 1, NULL, msg, msglen))
        goto done;
    for (int i = 0; i < nout; i++)
        if (!jm_compare(m, dims, i, in, nin, want, outs, nout, msg, msglen))
            goto done;
    rc = 0;
done:
    for (int i = 0; i < JM_MAX_IO; i++)
        if (noread_len[i])
            munmap(noread[i], noread_len[i]);
    for (int i = 0; i < nout; i++)
        free(outs[i]);
    free(outs);
    free(dims);
    jm_free_set(in, nin);
    jm_free_set(want, nout);
    return rc;
}

/* Writes text to path (--keep); a failure only loses the copy. */
static void keep_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Runs one case in this process; returns 0 or writes "stage: message" into msg. */
static int run_case(const Config *cfg, const char *dir, char *msg, size_t msglen) {
    char path[1200], err[1200];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    Options opt = {0};
    opt.force_dynamic = cfg->dynamic;
    opt.drop_declared = cfg->no_declared;
    opt.no_winograd = cfg->no_winograd;
    opt.memory_first = cfg->memory_first;
    opt.weights_blob = cfg->weights;
    JitModel m;
    if (jm_compile(&m, path, &opt, msg, msglen))
        return -1;
    int rc = -1;
    if (cfg->keep) {
        const char *base = strrchr(dir, '/');
        base = base ? base + 1 : dir;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", cfg->keep, base);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/%s/model.c", cfg->keep, base);
        keep_file(p, m.out.c_src);
        snprintf(p, sizeof p, "%s/%s/model.h", cfg->keep, base);
        keep_file(p, m.out.h_src);
    }
    if (cfg->strict) {
        /* the contract: warning-free under strict C99 */
        Jit *s = jit_compile(m.out.c_src, "model.h", m.out.h_src,
                             "gcc -std=c99 -Wall -Wextra -pedantic -Werror -O0", err, sizeof err);
        if (!s) {
            snprintf(msg, msglen, "strict: %s", err);
            goto done;
        }
        jit_free(s);
    }
    if (jm_load(&m, cfg->cc, msg, msglen) ||
        (cfg->weights && jm_twin(&m, path, &opt, cfg->cc, msg, msglen)))
        goto done;
    char **sets;
    int nsets = list_dir(dir, "test_data_set_", &sets);
    if (nsets == 0) {
        snprintf(msg, msglen, "data: no test_data_set_* in %s", dir);
        free_list(sets, nsets);
        goto done;
    }
    rc = 0;
    for (int s = 0; s < nsets && rc == 0; s++) {
        char setdir[1400], sm[900];
        snprintf(setdir, sizeof setdir, "%s/%s", dir, sets[s]);
        if (run_set(&m, setdir, sm, sizeof sm)) {
            snprintf(msg, msglen, "%s: %s", sets[s], sm);
            rc = -1;
        }
    }
    free_list(sets, nsets);
done:
    jm_close(&m);
    return rc;
}

/* Runs a case in a child process with a time limit. */
static int run_case_isolated(const Config *cfg, const char *dir, char *msg, size_t msglen) {
    int fds[2];
    if (pipe(fds))
        return run_case(cfg, dir, msg, msglen);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm((unsigned)cfg->timeout);
        char m[2000] = "";
        int rc = run_case(cfg, dir, m, sizeof m);
        if (write(fds[1], m, strlen(m)) < 0)
            rc = 2;
        close(fds[1]);
        _exit(rc ? 1 : 0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t k;
    while (len + 1 < msglen && (k = read(fds[0], msg + len, msglen - 1 - len)) > 0)
        len += (size_t)k;
    msg[len] = 0;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        snprintf(msg, msglen, "crash: %s", sig == SIGALRM ? "timed out" : strsignal(sig));
        return -1;
    }
    return WEXITSTATUS(st) == 0 ? 0 : -1;
}

static const char usage[] =
    "usage: onnx2c-test [options] CASE_DIR...\n"
    "\n"
    "Runs ONNX backend-test style cases (model.onnx + test_data_set_*/{input,output}_N.pb):\n"
    "compiles each model with onnx2c, compiles the C once, runs every data set, compares.\n"
    "\n"
    "Every output must have the reference's shape and type.  Outputs made of random draws\n"
    "(RandomUniform, RandomNormal, their -Like forms, Bernoulli, Multinomial, Dropout in\n"
    "training mode, and what keeps their property: Identity, Reshape, Cast..., a comparison\n"
    "of a uniform draw with a deterministic tensor) cannot match the reference's values: they\n"
    "are checked for what the op guarantees (0 or 1, and 0 where p = 0, 1 where p = 1; values\n"
    "in [low, high); finite; a class of nonzero probability; Dropout's kept values x / (1 -\n"
    "ratio) and a mask that agrees with them).  The compiler finds them by walking back from\n"
    "each graph output (README, \"Op notes\"); every other output is compared value by value.\n"
    "\n"
    "options:\n"
    "  --cc \"CMD\"        compile with CMD (e.g. \"gcc -O2\") instead of libtcc in memory\n"
    "  --strict          also require the C to compile with gcc -std=c99 -Wall -Wextra\n"
    "                    -pedantic -Werror\n"
    "  --dynamic         forced-dynamic mode: every input axis becomes a symbolic dim, and\n"
    "                    the one generated C serves every data set\n"
    "  --no-declared     forget the shapes the model declares for its outputs and\n"
    "                    value_info (with --dynamic: a dynamic export without them)\n"
    "  --no-winograd     compile with onnx2c --no-winograd (3x3 convs by unfold + GEMM)\n"
    "  --memory-first    compile with onnx2c --memory-first (the smallest workspace)\n"
    "  --weights         compile with the weights in a blob (onnx2c --weights), check it with\n"
    "                    model_weights_check, run model_run_w, and require the same output\n"
    "                    bytes as the build with inline weights\n"
    "  --root DIR        case names are relative to DIR\n"
    "  --list FILE       add the case names listed in FILE (one per line, # comments)\n"
    "  --keep DIR        write each case's generated model.c/model.h under DIR/CASE/\n"
    "  --timeout SEC     per-case time limit (default 120)\n"
    "  -q, --quiet       print only failures and the summary\n"
    "  -h, --help        show this text\n"
    "  --version         show the version\n";

int main(int argc, char **argv) {
    Config cfg = {.timeout = 120};
    const char *root = NULL;
    static char *cases[4096]; /* (static: the early returns of --help, --version... free nothing) */
    int ncases = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("onnx2c-test %s\n", O2C_VERSION);
            return 0;
        } else if (!strcmp(a, "--cc") && i + 1 < argc)
            cfg.cc = argv[++i];
        else if (!strcmp(a, "--strict"))
            cfg.strict = true;
        else if (!strcmp(a, "--dynamic"))
            cfg.dynamic = true;
        else if (!strcmp(a, "--no-declared"))
            cfg.no_declared = true;
        else if (!strcmp(a, "--no-winograd"))
            cfg.no_winograd = true;
        else if (!strcmp(a, "--memory-first"))
            cfg.memory_first = true;
        else if (!strcmp(a, "--weights"))
            cfg.weights = true;
        else if (!strcmp(a, "--root") && i + 1 < argc)
            root = argv[++i];
        else if (!strcmp(a, "--keep") && i + 1 < argc)
            cfg.keep = argv[++i];
        else if (!strcmp(a, "--timeout") && i + 1 < argc)
            cfg.timeout = atoi(argv[++i]);
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
            cfg.quiet = true;
        else if (!strcmp(a, "--list") && i + 1 < argc) {
            FILE *f = fopen(argv[++i], "r");
            if (!f) {
                fprintf(stderr, "onnx2c-test: error: cannot open '%s': %s\n", argv[i], strerror(errno));
                return 3;
            }
            char line[1024];
            while (fgets(line, sizeof line, f) && ncases < 4096) {
                line[strcspn(line, "\r\n#")] = 0;
                char *s = line;
                while (*s == ' ' || *s == '\t')
                    s++;
                size_t n = strlen(s);
                while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                    s[--n] = 0;
                if (*s)
                    cases[ncases++] = strdup(s);
            }
            fclose(f);
        } else if (a[0] == '-') {
            fprintf(stderr, "onnx2c-test: error: unknown option '%s' (try --help)\n", a);
            return 2;
        } else if (ncases < 4096)
            cases[ncases++] = strdup(a);
    }
    if (ncases == 0) {
        fputs(usage, stderr);
        return 2;
    }
    if (cfg.keep)
        mkdir(cfg.keep, 0755);
    int passed = 0, failed = 0;
    for (int i = 0; i < ncases; i++) {
        char dir[2048], msg[2048];
        if (root)
            snprintf(dir, sizeof dir, "%s/%s", root, cases[i]);
        else
            snprintf(dir, sizeof dir, "%s", cases[i]);
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = 0;
        /* with --root, cases are named as listed (node/test_abs); else by their folder name */
        const char *name = strrchr(dir, '/');
        name = root ? cases[i] : name ? name + 1 : dir;
        if (run_case_isolated(&cfg, dir, msg, sizeof msg) == 0) {
            passed++;
            if (!cfg.quiet)
                printf("PASS %s\n", name);
        } else {
            failed++;
            printf("FAIL %s: %s\n", name, msg);
        }
        fflush(stdout);
        free(cases[i]);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
