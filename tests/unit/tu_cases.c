/* tu_cases.c — small models run on hostile data (see tu_cases.h).  No Test() here. */
#include "tu_cases.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAN_MAIN TU_DATA("index") "san_main.c"
#define SAN_FLAGS                                                                                  \
    "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow "            \
    "-fno-sanitize-recover=all"
#define SENTINEL 0xA5

/* The sanitized builds: the generated C under the contract's strict flags, then the runner. */
static const struct {
    const char *name, *strict, *plain;
} san_ccs[] = {
    {"gcc", "gcc -std=c99 -Wall -Wextra -pedantic -Werror", "gcc"},
    {"clang", "clang -std=c99 -Wall -Wextra -pedantic -Werror", "clang"},
};

static bool same(const unsigned char *got, const unsigned char *want, size_t n, int kind) {
    if (kind == TU_ANY)
        return true;
    if (kind == TU_EXACT)
        return memcmp(got, want, n) == 0;
    for (size_t i = 0; i + 4 <= n; i += 4) {
        float g, w;
        memcpy(&g, got + i, 4);
        memcpy(&w, want + i, 4);
        if (isnan(w) ? !isnan(g) : !(fabsf(g - w) <= 1e-5f + 1e-4f * fabsf(w)))
            return false;
    }
    return true;
}

/* Bytes of output o for the case's dims (model_output_shape). */
static size_t out_bytes(TuModel *m, const TuCaseModel *s, const TuCase *k, int o) {
    int64_t shape[8];
    int r = m->oshape(k->dims, o, shape);
    cr_assert_geq(r, 0, "%s, %s: model_output_shape(%d) = %d", s->file, k->what, o, r);
    int64_t n = s->esize[o];
    for (int i = 0; i < r; i++)
        n *= shape[i];
    return (size_t)n;
}

/* The first differing byte of output o, for the message. */
static size_t first_diff(const unsigned char *got, const unsigned char *want, size_t n) {
    size_t b = 0;
    while (b < n && got[b] == want[b])
        b++;
    return b;
}

/* The case in this process (libtcc): outputs start as the sentinel. */
static void run_tcc(TuModel *m, const TuCaseModel *s, const TuCase *k) {
    void *outs[TU_MAX_OUT];
    size_t nb[TU_MAX_OUT];
    const void *ins[TU_MAX_IN];
    for (int i = 0; i < s->nin; i++)
        ins[i] = k->in[i].p;
    for (int o = 0; o < s->nout; o++) {
        nb[o] = out_bytes(m, s, k, o);
        outs[o] = malloc(nb[o] ? nb[o] : 1);
        memset(outs[o], SENTINEL, nb[o]);
    }
    int rc = tu_run(m, k->dims, ins, outs);
    cr_assert_eq(rc, k->rc, "%s, %s: model_run returned %d, want %d", s->file, k->what, rc, k->rc);
    for (int o = 0; o < s->nout; o++) {
        if (rc != 0) {
            for (size_t b = 0; b < nb[o]; b++)
                cr_assert_eq(((unsigned char *)outs[o])[b], SENTINEL,
                             "%s, %s: output %d byte %zu written before the error", s->file,
                             k->what, o, b);
        } else if (k->want[o].p) {
            cr_assert_eq(k->want[o].n, nb[o], "%s, %s: output %d has %zu bytes, the case %zu",
                         s->file, k->what, o, nb[o], k->want[o].n);
            cr_assert(same(outs[o], k->want[o].p, nb[o], s->kind[o]),
                      "%s, %s: output %d differs from the reference (from byte %zu)", s->file,
                      k->what, o, first_diff(outs[o], k->want[o].p, nb[o]));
        }
        free(outs[o]);
    }
}

static void put(FILE *f, const void *p, size_t n) {
    cr_assert_eq(fwrite(p, 1, n, f), n, "cannot write a case file");
}

static void put_i64(FILE *f, int64_t v) { put(f, &v, sizeof v); }

/* The case file san_main.c reads (its comment gives the layout). */
static void write_case(TuModel *m, const TuCaseModel *s, const TuCase *k, const char *path) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    put_i64(f, m->o.ndims);
    for (int i = 0; i < m->o.ndims; i++)
        put_i64(f, k->dims[i]);
    put_i64(f, s->nin);
    for (int i = 0; i < s->nin; i++) {
        put_i64(f, (int64_t)k->in[i].n);
        put(f, k->in[i].p, k->in[i].n);
    }
    put_i64(f, s->nout);
    for (int o = 0; o < s->nout; o++) {
        size_t n = out_bytes(m, s, k, o);
        unsigned char *sent = malloc(n ? n : 1);
        memset(sent, SENTINEL, n);
        bool check = k->rc == 0 && k->want[o].p;
        put_i64(f, (int64_t)n);
        put_i64(f, check ? s->kind[o] : k->rc ? TU_EXACT : TU_ANY);
        put(f, sent, n);
        put(f, check ? k->want[o].p : sent, n);
        free(sent);
    }
    put_i64(f, k->rc);
    cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

/* The cases again, in an executable built from the generated C by compiler `cc` with ASan and
 * UBSan: any read or write outside a buffer, any signed overflow or out-of-range conversion
 * ends it with a nonzero status. */
static void run_sanitized(TuModel *m, const TuCaseModel *s, const TuCase *cases, int n, int cc) {
    char dir[] = "/tmp/onnx2c-cases-XXXXXX", path[600], cmd[4096], log[4096] = "";
    cr_assert_not_null(mkdtemp(dir), "cannot create a temporary directory");
    snprintf(path, sizeof path, "%s/model.c", dir);
    tu_write_file(path, m->o.c_src, strlen(m->o.c_src));
    snprintf(path, sizeof path, "%s/model.h", dir);
    tu_write_file(path, m->o.h_src, strlen(m->o.h_src));
    int len = snprintf(cmd, sizeof cmd,
                       "cd '%s' && %s " SAN_FLAGS " -c model.c -o model.o > cc.log 2>&1 && %s "
                       SAN_FLAGS " -I. '%s' model.o -o run -lm >> cc.log 2>&1 && "
                       "ASAN_OPTIONS=detect_leaks=0 ./run",
                       dir, san_ccs[cc].strict, san_ccs[cc].plain, SAN_MAIN);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/case_%d.bin", dir, i);
        write_case(m, s, &cases[i], path);
        len += snprintf(cmd + len, sizeof cmd - (size_t)len, " case_%d.bin", i);
    }
    snprintf(cmd + len, sizeof cmd - (size_t)len, " > run.log 2>&1");
    cr_assert_lt(len, (int)sizeof cmd - 32, "command too long");
    int st = system(cmd);
    if (st != 0) {
        snprintf(path, sizeof path, "%s/cc.log", dir);
        size_t k = access(path, R_OK) == 0 ? tu_read_text(path, log, sizeof log) : 0;
        snprintf(path, sizeof path, "%s/run.log", dir);
        if (access(path, R_OK) == 0)
            tu_read_text(path, log + k, sizeof log - k);
    }
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    if (system(path) != 0) {
        /* a leftover temporary folder is harmless */
    }
    cr_assert_eq(st, 0, "%s under %s with ASan/UBSan failed: %s", s->file, san_ccs[cc].name, log);
}

void tu_check_cases(const char *dir, const TuCaseModel *s, const TuCase *cases, int n) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", dir, s->file);
    TuModel m;
    tu_open(&m, path, NULL);
    for (int i = 0; i < n; i++)
        run_tcc(&m, s, &cases[i]);
    for (size_t cc = 0; cc < sizeof san_ccs / sizeof *san_ccs; cc++)
        run_sanitized(&m, s, cases, n, (int)cc);
    tu_close(&m);
}
