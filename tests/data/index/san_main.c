/* san_main.c — runs a generated model (prefix "model", model.h beside it) on the case files
 * named on the command line, built with gcc -fsanitize=address,undefined by
 * tests/unit/test_index_errors.c: an instrumented shared object cannot be loaded into the
 * uninstrumented unit-test process, so the sanitizer run is this small executable.
 *
 * Each buffer is malloc'd at its exact size, so AddressSanitizer reports any read or write
 * outside it.  A case file holds, as native int64 counts followed by raw bytes:
 *   ndims, dims[ndims]
 *   nin, then per input: nbytes, bytes
 *   nout, then per output: nbytes, kind (0 exact bytes, 1 float32 within 1e-5 + 1e-4 |want|,
 *                          NaN matching NaN, 2 not compared), initial bytes, wanted bytes
 *   rc (what model_run must return)
 * The outputs start as their initial bytes (the test's sentinel); on a nonzero rc the wanted
 * bytes are that sentinel: nothing may have been written.  Exit status 0 when every case
 * passes, 1 (with a line on stderr) otherwise; a sanitizer error aborts with its own status. */
#define _POSIX_C_SOURCE 200112L
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB 8

static FILE *in;

static int64_t get_i64(void) {
    int64_t v = 0;
    if (fread(&v, sizeof v, 1, in) != 1) {
        fprintf(stderr, "san_main: truncated case file\n");
        exit(2);
    }
    return v;
}

/* A buffer of exactly n bytes (1 when n is 0) read from the case file, or NULL to skip. */
static unsigned char *get_bytes(int64_t n, int keep) {
    unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
    if (!p || (n > 0 && fread(p, 1, (size_t)n, in) != (size_t)n)) {
        fprintf(stderr, "san_main: truncated case file\n");
        exit(2);
    }
    if (!keep) {
        free(p);
        return NULL;
    }
    return p;
}

static int same(const unsigned char *got, const unsigned char *want, int64_t n, int kind) {
    if (kind == 2)
        return 1;
    if (kind == 0)
        return memcmp(got, want, (size_t)n) == 0;
    for (int64_t i = 0; i + 4 <= n; i += 4) {
        float g, w;
        memcpy(&g, got + i, 4);
        memcpy(&w, want + i, 4);
        if (isnan(w) ? !isnan(g) : !(fabsf(g - w) <= 1e-5f + 1e-4f * fabsf(w)))
            return 0;
    }
    return 1;
}

static int run_case(const char *path) {
    in = fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "san_main: cannot open %s\n", path);
        return 1;
    }
    int64_t dims[16] = {0}, nd = get_i64();
    for (int64_t i = 0; i < nd && i < 16; i++)
        dims[i] = get_i64();
    int64_t nin = get_i64(), nout, nb[MAXB], kind[MAXB];
    const void *ins[MAXB];
    unsigned char *want[MAXB], *inb[MAXB];
    void *outs[MAXB];
    for (int64_t i = 0; i < nin; i++)
        ins[i] = inb[i] = get_bytes(get_i64(), 1);
    nout = get_i64();
    for (int64_t i = 0; i < nout; i++) {
        nb[i] = get_i64();
        kind[i] = get_i64();
        outs[i] = get_bytes(nb[i], 1);
        want[i] = get_bytes(nb[i], 1);
    }
    int64_t rc_want = get_i64();
    fclose(in);
    size_t wsz = model_workspace_size(dims);
    void *ws = NULL;
    if (wsz && posix_memalign(&ws, 64, wsz) != 0) {
        fprintf(stderr, "san_main: no memory\n");
        return 1;
    }
    int rc = model_run(dims, ins, outs, ws), bad = 0;
    if (rc != rc_want) {
        fprintf(stderr, "%s: model_run returned %d, want %d\n", path, rc, (int)rc_want);
        bad = 1;
    }
    for (int64_t i = 0; i < nout && !bad; i++)
        if (!same(outs[i], want[i], nb[i], rc_want ? 0 : (int)kind[i])) {
            fprintf(stderr, "%s: output %d differs%s\n", path, (int)i,
                    rc_want ? " from the sentinel (written before the error)" : "");
            bad = 1;
        }
    free(ws);
    for (int64_t i = 0; i < nin; i++)
        free(inb[i]);
    for (int64_t i = 0; i < nout; i++) {
        free(outs[i]);
        free(want[i]);
    }
    return bad;
}

int main(int argc, char **argv) {
    int bad = 0;
    for (int i = 1; i < argc; i++)
        bad |= run_case(argv[i]);
    return bad;
}
