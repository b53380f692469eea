/* jit.c — compiles generated C in memory: libtcc by default (milliseconds), or a system
 * compiler into a shared object loaded with dlopen (for gcc -O3 runs of the same tests).
 * Hides libtcc's version quirks behind three calls. */
#include "runtime.h"
#include <dlfcn.h>
#include <libtcc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ONNX2C_TCC_LIBDIR
#define ONNX2C_TCC_LIBDIR "/usr/lib/x86_64-linux-gnu/tcc"
#endif

struct Jit {
    TCCState *tcc;
    void *dl;
    char dir[256];
};

typedef struct ErrSink {
    char *buf;
    size_t len;
    bool set;
} ErrSink;

static void on_tcc_error(void *opaque, const char *msg) {
    ErrSink *s = opaque;
    if (!s->set) {
        snprintf(s->buf, s->len, "tcc: %s", msg);
        for (char *p = s->buf; *p; p++)
            if (*p == '\n')
                *p = ' ';
        s->set = true;
    }
}

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

static void remove_dir(Jit *j) {
    if (!j->dir[0])
        return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", j->dir);
    if (system(cmd) != 0) {
        /* nothing to do: a leftover temp dir is harmless */
    }
    j->dir[0] = 0;
}

Jit *jit_compile(const char *c_src, const char *header_name, const char *h_src, const char *cc,
                 char *err, size_t errlen) {
    Jit *j = calloc(1, sizeof *j);
    snprintf(j->dir, sizeof j->dir, "/tmp/onnx2c-jit-XXXXXX");
    if (!mkdtemp(j->dir)) {
        snprintf(err, errlen, "cannot create a temporary directory");
        free(j);
        return NULL;
    }
    char hpath[400], cpath[400];
    snprintf(hpath, sizeof hpath, "%s/%s", j->dir, header_name);
    snprintf(cpath, sizeof cpath, "%s/model.c", j->dir);
    if (write_text(hpath, h_src) || (cc && write_text(cpath, c_src))) {
        snprintf(err, errlen, "cannot write to %s", j->dir);
        goto fail;
    }
    if (!cc) {
        ErrSink sink = {err, errlen, false};
        j->tcc = tcc_new();
        tcc_set_lib_path(j->tcc, ONNX2C_TCC_LIBDIR);
        tcc_set_error_func(j->tcc, &sink, on_tcc_error);
        tcc_set_output_type(j->tcc, TCC_OUTPUT_MEMORY);
        tcc_add_include_path(j->tcc, j->dir);
        if (tcc_compile_string(j->tcc, c_src) < 0 || tcc_add_library(j->tcc, "m") < 0 ||
            tcc_relocate(j->tcc, TCC_RELOCATE_AUTO) < 0) {
            if (!sink.set)
                snprintf(err, errlen, "tcc failed");
            goto fail;
        }
        remove_dir(j);
        return j;
    }
    char sopath[400], cmd[2000];
    snprintf(sopath, sizeof sopath, "%s/model.so", j->dir);
    snprintf(cmd, sizeof cmd, "%s -shared -fPIC -o '%s' '%s' -lm > '%s/cc.log' 2>&1", cc, sopath, cpath,
             j->dir);
    if (system(cmd) != 0) {
        char logp[400];
        snprintf(logp, sizeof logp, "%s/cc.log", j->dir);
        FILE *f = fopen(logp, "r");
        char line[512] = "";
        if (f) {
            /* the first diagnostic line */
            while (fgets(line, sizeof line, f))
                if (strstr(line, "error") || strstr(line, "warning"))
                    break;
            fclose(f);
        }
        line[strcspn(line, "\n")] = 0;
        snprintf(err, errlen, "%s failed: %s", cc, line);
        goto fail;
    }
    /* NODELETE: a model built with -fopenmp loads libgomp, whose idle threads outlive dlclose */
    j->dl = dlopen(sopath, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!j->dl) {
        snprintf(err, errlen, "dlopen: %s", dlerror());
        goto fail;
    }
    remove_dir(j);
    return j;
fail:
    jit_free(j);
    return NULL;
}

void *jit_symbol(Jit *j, const char *name) {
    if (j->tcc)
        return tcc_get_symbol(j->tcc, name);
    return dlsym(j->dl, name);
}

void jit_free(Jit *j) {
    if (!j)
        return;
    if (j->tcc)
        tcc_delete(j->tcc);
    if (j->dl)
        dlclose(j->dl);
    remove_dir(j);
    free(j);
}
