/* test_constraints.c — NAME_check refuses impossible dims and NAME_run then writes nothing
 * (issue 3): mismatched MatMul inner dims, and a Siamese search image smaller than its
 * template (tests/models/corr_xcorr: a Conv whose weight is a runtime input). */
#include "testutil.h"
#include <criterion/criterion.h>
#include <string.h>

typedef const char *(*strerror_fn)(int);

/* Runs m at dims whose check fails: the code is negative, names a node, and the output buffer
 * keeps its sentinel bytes. */
static void expect_refused(TuModel *m, const int64_t *dims, int nin, const char *fragment) {
    int code = m->check(dims);
    cr_assert_lt(code, 0, "%s: check accepted impossible dims", m->path);
    strerror_fn se = (strerror_fn)jit_symbol(m->j, "model_strerror");
    cr_assert_not_null(se);
    cr_assert(strstr(se(code), fragment), "%s: strerror(%d) = '%s' lacks '%s'", m->path, code, se(code),
              fragment);
    float in[4][256];
    const void *ins[4];
    for (int i = 0; i < nin; i++) {
        for (int k = 0; k < 256; k++)
            in[i][k] = 1.0f;
        ins[i] = in[i];
    }
    unsigned char out[1024];
    memset(out, 0x5A, sizeof out);
    void *outs[1] = {out};
    unsigned char ws[4096];
    cr_assert_eq(m->run(dims, ins, outs, ws), code, "%s: run did not return check's code", m->path);
    for (size_t k = 0; k < sizeof out; k++)
        cr_assert_eq(out[k], 0x5A, "%s: run wrote output byte %zu after a failed check", m->path, k);
}

Test(constraints, matmul_inner_dims) {
    TuModel m;
    tu_open(&m, TU_DATA("constraints") "matmul_sym.onnx", NULL);
    int64_t ok[4] = {2, 3, 3, 4}; /* M, K, K2, N */
    cr_assert_eq(m.check(ok), 0);
    int64_t bad[4] = {2, 3, 5, 4};
    expect_refused(&m, bad, 2, "'mm' (MatMul)");
    tu_close(&m);
}

Test(constraints, search_smaller_than_template) {
    TuModel m;
    tu_open(&m, ONNX2C_SOURCE_DIR "/tests/models/corr_xcorr/model.onnx", NULL);
    int64_t ok[6] = {1, 2, 8, 8, 3, 3}; /* N, C, H, W, KH, KW */
    cr_assert_eq(m.check(ok), 0);
    int64_t bad[6] = {1, 2, 2, 8, 3, 3}; /* H = 2 < KH = 3 */
    expect_refused(&m, bad, 2, "(Conv)");
    tu_close(&m);
}
