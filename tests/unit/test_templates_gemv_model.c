/* test_templates_gemv_model.c — the fully connected kernel (templates/gemv.c) from the
 * compiler's side (compiler/ops/matmul.c): under --memory-first every float Gemm/MatMul with a
 * constant weight takes it, with no scratch, and its weight arrays hold exactly the layer's
 * parameters (no panel padding); the default mode keeps the GEMM engine.  On the MLPerf
 * Tiny-style models: tiny_ad (640 -> 128 x 4 -> 8 -> 128 x 4 -> 640, BatchNormalization folded,
 * ReLU fused) whose workspace falls to its liveness bound (1,024 bytes; 8,768 with the engine's
 * packed A), and the last FC of tiny_kws (64 -> 12: 3,072 bytes of weight, not 8 KB of 32-column
 * panels). */
#include "onnx2c.h" /* white-box: looks inside the compiler */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

typedef struct FcSeen {
    int64_t ws;          /* the workspace (constant sizes) */
    int nfc;             /* Gemm and MatMul nodes */
    int nscratch;        /* ... of them with scratch */
    int nexact;          /* ... whose weight arrays are K * N + N floats (weight + bias) */
    int64_t flash;       /* their weight arrays' bytes */
} FcSeen;

static void inspect_fc(Compiler *c, void *user) {
    FcSeen *s = user;
    int64_t v;
    cr_assert(sym_get_const(c->g->workspace, &v));
    s->ws = v;
    for (int i = 0; i < c->g->nnodes; i++) {
        const Node *n = c->g->nodes[i];
        if (n->dead || (strcmp(n->op_type, "Gemm") && strcmp(n->op_type, "MatMul")))
            continue;
        const Value *y = n->out[0];
        int64_t nn, kk;
        cr_assert(sym_get_const(y->shape[y->rank - 1], &nn));
        cr_assert(sym_get_const(n->in[0]->shape[n->in[0]->rank - 1], &kk));
        s->nfc++;
        s->nscratch += n->scratch != NULL;
        s->nexact += n->flash == (kk * nn + nn) * 4;
        s->flash += n->flash;
    }
}

/* Compiles tests/models/NAME under --memory-first or not; returns the C source (malloc'd). */
static char *compile_tiny(const char *name, bool memory_first, FcSeen *s) {
    char path[300], err[1024];
    snprintf(path, sizeof path, "%s/tests/models/%s/model.onnx", ONNX2C_SOURCE_DIR, name);
    Options opt = {0};
    opt.memory_first = memory_first;
    opt.inspect = inspect_fc;
    opt.inspect_user = s;
    opt.name = "model";
    opt.out_path = "model.c";
    Output o;
    cr_assert_eq(onnx2c_compile(path, &opt, &o, err, sizeof err), O2C_OK, "%s", err);
    char *src = o.c_src;
    o.c_src = NULL;
    onnx2c_output_free(&o);
    return src;
}

static int count(const char *text, const char *what) {
    int k = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        k++;
    return k;
}

Test(gemv_model, tiny_ad_at_its_liveness_bound) {
    FcSeen s = {0};
    char *src = compile_tiny("tiny_ad", true, &s);
    cr_assert_eq(s.nfc, 10);
    cr_assert_eq(s.nscratch, 0, "%d Gemm nodes with scratch", s.nscratch);
    cr_assert_eq(s.nexact, 10, "%d of 10 Gemm nodes store padded weights", 10 - s.nexact);
    cr_assert_eq(s.ws, 1024, "workspace %lld, liveness bound 1024", (long long)s.ws);
    cr_assert_eq(count(src, "    gemv_f32("), 10);
    cr_assert_null(strstr(src, "gemm_f32("), "the GEMM engine is still emitted");
    free(src);
    /* the default mode: the engine, its scratch and packed panels */
    FcSeen d = {0};
    src = compile_tiny("tiny_ad", false, &d);
    cr_assert_eq(d.nscratch, 10);
    cr_assert_null(strstr(src, "gemv_f32("));
    cr_assert_gt(d.flash, s.flash);
    free(src);
}

Test(gemv_model, tiny_kws_fc_unpadded) {
    FcSeen s = {0};
    char *src = compile_tiny("tiny_kws", true, &s);
    cr_assert_eq(s.nfc, 1);
    cr_assert_eq(s.nscratch, 0);
    cr_assert_eq(s.flash, (64 * 12 + 12) * 4, "FC weight arrays: %lld bytes", (long long)s.flash);
    cr_assert_eq(count(src, "gemv_f32("), 2); /* the kernel and its call */
    free(src);
}
