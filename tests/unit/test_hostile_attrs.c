/* test_hostile_attrs.c — hostile attributes and shapes (issue 9 items 4, 5, 8, 9): the
 * compiler stays UB-free (this file runs under the ASan+UBSan build too) and refuses what does
 * not fit in int64 with one line naming the node; Slice's folded length is exact for every
 * dim, 0 included; a chain of thousands of pools compiles on a 256 KB stack.
 *
 *   refused_with_one_line     tests/data/hostile/refuse_*.onnx (make_hostile.py): Conv pads
 *                             of 2^62 and 2^63 - 1, dilations of 2^62, pool kernels, Pad,
 *                             Resize sizes, ConvTranspose output_padding, blocksizes...
 *   slice_length_is_exact     slice_axis against a direct implementation of the ONNX rule
 *                             for a grid of starts, ends (constants up to +-2^63, symbolic
 *                             ones of either sign) and steps, at dims 0..6 and larger
 *   flip_runs_at_zero         torch.flip on a dynamic N (constant and runtime starts/ends) and
 *                             extreme steps, run at N = 0, 1, 3 by libtcc and as an executable
 *                             built by gcc -std=c99 -pedantic -Werror with ASan and UBSan
 *   pool_chains               6,400 MaxPools in three configurations, compiled on a thread
 *                             with a 256 KB stack: refused at the first window that no longer
 *                             fits, or compiled */
#include "onnx2c.h" /* white-box: looks inside the compiler */
#include "testutil.h"

#include "onnx_subset.pb-c.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOSTILE TU_DATA("hostile")

/* ------------------------------------------------------------------ refused models */

Test(hostile, refused_with_one_line) {
    static const struct {
        const char *file, *op, *what;
    } cases[] = {
        {"refuse_conv_pads_2p62.onnx", "Conv", "pads[0] = 4611686018427387904 is too large"},
        {"refuse_conv_pads_max.onnx", "Conv", "pads[0] = 9223372036854775807 is too large"},
        {"refuse_conv_dilations_2p62.onnx", "Conv", "dilations[0] = 4611686018427387904 is too large"},
        {"refuse_conv_strides_max.onnx", "Conv", "strides[0] = 9223372036854775807 is too large"},
        {"refuse_conv_kernel_shape_max.onnx", "Conv", "kernel_shape[0] = 9223372036854775807"},
        {"refuse_convtranspose_output_padding.onnx", "ConvTranspose", "output_padding[0] = 4611686018427387904"},
        {"refuse_convtranspose_output_shape.onnx", "ConvTranspose", "overflows int64"},
        {"refuse_convtranspose_dilations.onnx", "ConvTranspose", "overflows int64"},
        {"refuse_maxpool_kernel_2p62.onnx", "MaxPool", "kernel_shape[0] = 4611686018427387904"},
        {"refuse_maxpool_dilations.onnx", "MaxPool", "dilations[0] = 4611686018427387904"},
        {"refuse_averagepool_pads_max.onnx", "AveragePool", "pads[0] = 9223372036854775807"},
        {"refuse_lppool_strides.onnx", "LpPool", "strides[0] = 9223372036854775807"},
        {"refuse_depthtospace_blocksize.onnx", "DepthToSpace", "blocksize' = 4294967297"},
        {"refuse_spacetodepth_blocksize.onnx", "SpaceToDepth", "blocksize' = 4611686018427387904"},
        {"refuse_pad_huge.onnx", "Pad", "overflows int64"},
        {"refuse_pad_max.onnx", "Pad", "overflows int64"},
        {"refuse_resize_sizes_huge.onnx", "Resize", "more than 2^48 elements"},
        {"refuse_resize_sizes_product.onnx", "Resize", "more than 2^48 elements"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], op[64];
        snprintf(path, sizeof path, "%s%s", HOSTILE, cases[i].file);
        snprintf(op, sizeof op, "node 'hostile' (%s): ", cases[i].op);
        const char *parts[] = {op, cases[i].what, NULL};
        tu_expect_error_parts(path, O2C_EMODEL, parts);
    }
}

/* ------------------------------------------------------------------ Slice's length */

/* ONNX Slice on one axis, directly: the length, and the clamped start in *begin. */
static int64_t spec_len(int64_t st, int64_t en, int64_t step, int64_t dim, int64_t *begin) {
    if (st < 0)
        st += dim; /* no overflow: dim >= 0 */
    if (en < 0)
        en += dim;
    uint64_t span, mag = step > 0 ? (uint64_t)step : 0 - (uint64_t)step;
    if (step > 0) {
        st = st < 0 ? 0 : st > dim ? dim : st;
        en = en < 0 ? 0 : en > dim ? dim : en;
        span = en > st ? (uint64_t)en - (uint64_t)st : 0;
    } else {
        st = st < 0 ? 0 : st;
        st = st > dim - 1 ? dim - 1 : st; /* [0, dim - 1] is empty for dim 0: nothing to read */
        en = en < -1 ? -1 : en > dim - 1 ? dim - 1 : en;
        span = st > en ? (uint64_t)st - (uint64_t)en : 0;
    }
    *begin = st;
    return (int64_t)(span / mag + (span % mag != 0));
}

Test(hostile, slice_length_is_exact) {
    Arena *a = arena_new();
    SymCtx *s = sym_ctx_new(a);
    Sym *D = sym_dim(s, 0), *K1 = sym_const(s, 1);
    static const int64_t consts[] = {INT64_MIN, -INT64_MAX, -(INT64_C(1) << 40), -7, -3, -2, -1,
                                     0, 1, 2, 3, 5, INT64_C(1) << 40, INT64_MAX - 1, INT64_MAX};
    static const int64_t steps[] = {INT64_MIN, -INT64_MAX, -(INT64_C(1) << 40), -3, -2, -1,
                                    1, 2, 3, INT64_C(1) << 40, INT64_MAX};
    static const int64_t dims[] = {0, 1, 2, 3, 4, 5, 6, 1000, INT64_C(1) << 40};
    enum { NC = sizeof consts / sizeof *consts };
    /* the bounds: the constants, and dim-relative Syms of either sign */
    Sym *v[NC + 6];
    for (int i = 0; i < NC; i++)
        v[i] = sym_const(s, consts[i]);
    v[NC] = sym_sub(s, D, K1);                            /* dim - 1 */
    v[NC + 1] = sym_sub(s, D, sym_const(s, 3));           /* dim - 3: negative for small dims */
    v[NC + 2] = sym_add(s, D, sym_const(s, 2));           /* past the end */
    v[NC + 3] = sym_sub(s, sym_const(s, 2), D);           /* 2 - dim */
    v[NC + 4] = sym_neg(s, D);                            /* -dim */
    v[NC + 5] = sym_floordiv(s, D, sym_const(s, 2));      /* dim / 2 */
    int nv = NC + 6, checked = 0;
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++)
            for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
                Sym *begin, *len = slice_axis(s, D, v[i], v[j], steps[k], &begin);
                for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
                    int64_t st, en, want_b, got, got_b;
                    cr_assert(sym_eval(v[i], &dims[d], &st) && sym_eval(v[j], &dims[d], &en));
                    int64_t want = spec_len(st, en, steps[k], dims[d], &want_b);
                    cr_assert(sym_eval(len, &dims[d], &got), "length %s does not evaluate",
                              sym_str(a, len, NULL));
                    cr_assert_eq(got, want, "dim %" PRId64 ", start %" PRId64 ", end %" PRId64
                                 ", step %" PRId64 ": length %" PRId64 ", want %" PRId64 " (%s)",
                                 dims[d], st, en, steps[k], got, want, sym_str(a, len, NULL));
                    if (want > 0) {
                        cr_assert(sym_eval(begin, &dims[d], &got_b));
                        cr_assert_eq(got_b, want_b, "dim %" PRId64 ", start %" PRId64 ", end %"
                                     PRId64 ", step %" PRId64 ": begins at %" PRId64 ", want %"
                                     PRId64, dims[d], st, en, steps[k], got_b, want_b);
                    }
                    checked++;
                }
            }
    cr_assert_gt(checked, 40000);
    /* torch.flip's length is the dim itself; to the end from 1 with step 2 */
    Sym *b;
    cr_assert_eq(slice_axis(s, D, sym_const(s, -1), sym_const(s, -INT64_MAX), -1, &b), D);
    cr_assert_eq(slice_axis(s, D, sym_const(s, -1), sym_const(s, INT64_MIN), -1, &b), D);
    cr_assert_eq(slice_axis(s, D, sym_const(s, 0), sym_const(s, INT64_MAX), 1, &b), D);
    arena_free(a);
}

/* ------------------------------------------------------------------ torch.flip at N = 0 */

static void flip_in_process(const char *file) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", HOSTILE, file);
    TuModel m;
    tu_open(&m, path, NULL);
    for (int64_t n = 0; n <= 3; n++) {
        int64_t dims[1] = {n}, shape[2] = {-1, -1};
        float x[9], y[9] = {0};
        for (int i = 0; i < 9; i++)
            x[i] = (float)i;
        int64_t st = -1, en = -INT64_MAX, ax = 0, sp = -1;
        const void *in[5] = {x, &st, &en, &ax, &sp};
        void *out[1] = {y};
        cr_assert_eq(m.oshape(dims, 0, shape), 2);
        cr_assert(shape[0] == n && shape[1] == 3, "%s at N=%" PRId64 ": [%" PRId64 ", %" PRId64 "]",
                  file, n, shape[0], shape[1]);
        cr_assert_eq(tu_run(&m, dims, in, out), 0, "%s at N=%" PRId64, file, n);
        for (int64_t r = 0; r < n; r++)
            for (int j = 0; j < 3; j++)
                cr_assert_eq(y[r * 3 + j], x[(n - 1 - r) * 3 + j]);
    }
    tu_close(&m);
}

/* The model's C built with gcc (strict C99, ASan, UBSan) with tests/data/hostile/slice_main.c,
 * which runs it at N = 0, 1, 3 on buffers of exact size. */
static void slice_sanitized(const char *file) {
    char path[512], dir[] = "/tmp/onnx2c-hostile-XXXXXX", cmd[2048], log[4096] = "";
    snprintf(path, sizeof path, "%s%s", HOSTILE, file);
    Output o;
    tu_compile_ok(path, &o);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/model.c", dir);
    tu_write_file(path, o.c_src, strlen(o.c_src));
    snprintf(path, sizeof path, "%s/model.h", dir);
    tu_write_file(path, o.h_src, strlen(o.h_src));
    onnx2c_output_free(&o);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && " TU_STRICT_CC " -g -fsanitize=address,undefined "
             "-fno-sanitize-recover=all -I. '%s' model.c -o run -lm > log 2>&1 && "
             "ASAN_OPTIONS=detect_leaks=0 ./run >> log 2>&1",
             dir, HOSTILE "slice_main.c");
    int st = system(cmd);
    snprintf(path, sizeof path, "%s/log", dir);
    if (st != 0 && access(path, R_OK) == 0)
        tu_read_text(path, log, sizeof log);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) {
        /* a leftover temporary folder is harmless */
    }
    cr_assert_eq(st, 0, "%s under ASan/UBSan: %s", file, log);
}

Test(hostile, flip_runs_at_zero, .timeout = 120) {
    flip_in_process("flip.onnx");
    flip_in_process("flip_runtime.onnx");
    if (system("command -v gcc >/dev/null 2>&1") != 0)
        cr_skip_test("no gcc");
    slice_sanitized("flip.onnx");
    slice_sanitized("flip_runtime.onnx");
    slice_sanitized("slice_extreme.onnx");
}

/* ------------------------------------------------------------------ chains of pools */

enum { CHAIN_S2, CHAIN_CEIL, CHAIN_K2 };

/* A model of n MaxPools in a row on x[N, 4, H, W]: kernel 2 stride 2 (S2), kernel 3 pads 1
 * stride 2 ceil_mode (CEIL), or kernel 2 stride 1 (K2). */
static void write_chain(const char *path, int n, int mode) {
    static int64_t k2[2] = {2, 2}, k3[2] = {3, 3}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
    Onnx__AttributeProto ak = ONNX__ATTRIBUTE_PROTO__INIT, as = ONNX__ATTRIBUTE_PROTO__INIT,
                         ap = ONNX__ATTRIBUTE_PROTO__INIT, ac = ONNX__ATTRIBUTE_PROTO__INIT;
    ak.name = "kernel_shape", ak.has_type = 1, ak.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    ak.n_ints = 2, ak.ints = mode == CHAIN_CEIL ? k3 : k2;
    as = ak, as.name = "strides", as.ints = s2;
    ap = ak, ap.name = "pads", ap.n_ints = 4, ap.ints = p1;
    ac.name = "ceil_mode", ac.has_type = 1, ac.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    ac.has_i = 1, ac.i = 1;
    Onnx__AttributeProto *attrs[4] = {&ak, &as, &ap, &ac};
    int nattr = mode == CHAIN_S2 ? 2 : mode == CHAIN_CEIL ? 4 : 1;
    Onnx__NodeProto *nodes = calloc((size_t)n, sizeof *nodes), **np = calloc((size_t)n, sizeof *np);
    char (*names)[3][24] = calloc((size_t)n, sizeof *names);
    char **io = calloc(2 * (size_t)n, sizeof *io);
    for (int i = 0; i < n; i++) {
        Onnx__NodeProto init = ONNX__NODE_PROTO__INIT;
        nodes[i] = init;
        snprintf(names[i][0], 24, "mp%d", i);
        snprintf(names[i][1], 24, i ? "p%d" : "x", i - 1);
        snprintf(names[i][2], 24, "p%d", i);
        io[2 * i] = names[i][1];
        io[2 * i + 1] = names[i][2];
        nodes[i].name = names[i][0];
        nodes[i].op_type = "MaxPool";
        nodes[i].n_input = nodes[i].n_output = 1;
        nodes[i].input = &io[2 * i];
        nodes[i].output = &io[2 * i + 1];
        nodes[i].n_attribute = (size_t)nattr;
        nodes[i].attribute = attrs;
        np[i] = &nodes[i];
    }
    Onnx__TensorShapeProto__Dimension d[4], *dp[4];
    const char *params[4] = {"N", NULL, "H", "W"};
    for (int i = 0; i < 4; i++) {
        Onnx__TensorShapeProto__Dimension init = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
        d[i] = init;
        if (params[i])
            d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM,
            d[i].dim_param = (char *)params[i];
        else
            d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE, d[i].dim_value = 4;
        dp[i] = &d[i];
    }
    Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
    shape.n_dim = 4, shape.dim = dp;
    Onnx__TypeProto__Tensor tin = ONNX__TYPE_PROTO__TENSOR__INIT, tout = ONNX__TYPE_PROTO__TENSOR__INIT;
    tin.has_elem_type = 1, tin.elem_type = 1, tin.shape = &shape;
    tout.has_elem_type = 1, tout.elem_type = 1;
    Onnx__TypeProto ti = ONNX__TYPE_PROTO__INIT, to = ONNX__TYPE_PROTO__INIT;
    ti.value_case = to.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    ti.tensor_type = &tin, to.tensor_type = &tout;
    Onnx__ValueInfoProto vin = ONNX__VALUE_INFO_PROTO__INIT, vout = ONNX__VALUE_INFO_PROTO__INIT;
    vin.name = "x", vin.type = &ti;
    vout.name = names[n - 1][2], vout.type = &to;
    Onnx__ValueInfoProto *vi[1] = {&vin}, *vo[1] = {&vout};
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.name = "chain", g.n_node = (size_t)n, g.node = np;
    g.n_input = 1, g.input = vi, g.n_output = 1, g.output = vo;
    Onnx__OperatorSetIdProto ops = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opp[1] = {&ops};
    ops.domain = "", ops.has_version = 1, ops.version = 13;
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    m.has_ir_version = 1, m.ir_version = 8, m.n_opset_import = 1, m.opset_import = opp, m.graph = &g;
    size_t len = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = malloc(len);
    onnx__model_proto__pack(&m, buf);
    tu_write_file(path, buf, len);
    free(buf);
    free(io);
    free(names);
    free(np);
    free(nodes);
}

typedef struct Chain {
    const char *path;
    int status;
    char err[1024];
    size_t c_len;
} Chain;

static void *compile_chain(void *arg) {
    Chain *ch = arg;
    Output o;
    ch->status = onnx2c_compile(ch->path, NULL, &o, ch->err, sizeof ch->err);
    ch->c_len = o.c_src ? strlen(o.c_src) : 0;
    onnx2c_output_free(&o);
    return NULL;
}

Test(hostile, pool_chains, .timeout = 300) {
    static const struct {
        int mode;
        const char *err; /* NULL: compiles */
    } cases[] = {
        /* H / 2^62 after 62 pools, 0 after 63: the 64th window of 2 cannot fit */
        {CHAIN_S2, "node 'mp63' (MaxPool): spatial axis 0: the window (2) is larger than the padded input"},
        {CHAIN_CEIL, NULL}, /* the sizes converge to {1, 2} */
        {CHAIN_K2, NULL},   /* H - 6400: flat */
    };
    char path[64];
    snprintf(path, sizeof path, "/tmp/onnx2c-chain-%ld.onnx", (long)getpid());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_chain(path, 6400, cases[i].mode);
        Chain ch = {.path = path};
        pthread_attr_t at;
        pthread_t th;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 256 * 1024);
        cr_assert_eq(pthread_create(&th, &at, compile_chain, &ch), 0);
        pthread_join(th, NULL);
        pthread_attr_destroy(&at);
        if (cases[i].err) {
            cr_assert_eq(ch.status, O2C_EMODEL, "chain %d compiled", cases[i].mode);
            cr_assert(strstr(ch.err, cases[i].err) && !strchr(ch.err, '\n'), "chain %d: %s",
                      cases[i].mode, ch.err);
        } else {
            cr_assert_eq(ch.status, O2C_OK, "chain %d: %s", cases[i].mode, ch.err);
            cr_assert_gt(ch.c_len, 6400 * 50);
        }
    }
    remove(path);
}
