/* test_ops_random.c — the random family (compiler/ops/random.c, templates/random_draws.c,
 * templates/random_multinomial.c) and what the harness checks of outputs made of draws
 * (Output.checks, runtime/draws.c).
 *
 * - The generator as C: SplitMix64's published outputs, the uniforms' ends, the moments of
 *   the uniform and normal draws, Multinomial's weights and picks.
 * - The cases of tests/data/random/cases (make_random.py) through onnx2c-test under libtcc,
 *   gcc's strict C99 flags and with every input axis symbolic and no declared shapes.
 * - The checks the compiler describes for each output (kind, reference input, rules, the
 *   Dropout pair), and that they fail wrong outputs: a run's outputs pass check_output, the
 *   same outputs corrupted one way at a time (a 0 where p = 1, a 2, a value at high, NaN, a
 *   class of probability 0, a mask that disagrees with the output...) fail it, and so does a
 *   reference of another shape or type through onnx2c-test.
 * - Determinism (two runs, libtcc and gcc: the same bits), and the one-line errors. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../templates/random_draws.c"
#define T float
#include "../../templates/math_t.c"
#include "../../templates/random_multinomial.c"

#define RANDOM TU_DATA("random")
#define CASES RANDOM "cases/"

/* ---- the generator */

Test(random, splitmix_reference) {
    /* SplitMix64 seeded with 0 (Vigna's splitmix64.c): its first three outputs */
    cr_assert_eq(o2c_splitmix(0, 1), UINT64_C(0xE220A8397B1DCDAF));
    cr_assert_eq(o2c_splitmix(0, 2), UINT64_C(0x6E789E6AA1B965F4));
    cr_assert_eq(o2c_splitmix(0, 3), UINT64_C(0x06C45D188009454F));
    /* the uniforms are its top 24 / 53 bits */
    uint64_t z = o2c_splitmix(42, 7);
    cr_assert_eq(o2c_unif_f32(42, 7), (float)(z >> 40) / 16777216.0f);
    cr_assert_eq(o2c_unif_f64(42, 7), (double)(z >> 11) / 9007199254740992.0);
}

Test(random, moments) {
    enum { N = 200000 };
    double su = 0, su2 = 0, sn = 0, sn2 = 0, sd = 0, sd2 = 0;
    float umax = 0;
    for (uint64_t i = 0; i < N; i++) {
        float u = o2c_unif_f32(9, i + 1), z = o2c_normal_f32(9, i);
        double d = o2c_normal_f64(9, i);
        cr_assert(u >= 0 && u < 1 && isfinite(z) && isfinite(d));
        umax = u > umax ? u : umax;
        su += u, su2 += (double)u * u, sn += z, sn2 += (double)z * z, sd += d, sd2 += d * d;
    }
    cr_assert(umax > 0.9999f, "max %g", umax);
    cr_assert(fabs(su / N - 0.5) < 0.005 && fabs(su2 / N - su * su / N / N - 1.0 / 12) < 0.002);
    cr_assert(fabs(sn / N) < 0.01 && fabs(sn2 / N - 1) < 0.02, "normal f32: %g %g", sn / N, sn2 / N);
    cr_assert(fabs(sd / N) < 0.01 && fabs(sd2 / N - 1) < 0.02, "normal f64: %g %g", sd / N, sd2 / N);
}

Test(random, multinomial_kernel) {
    /* weights 1 : 3 : 0 : 4 (log-probabilities, -inf for the third) */
    float w[4] = {0, logf(3), -INFINITY, logf(4)};
    o2c_mn_cumulate_T(w, 4);
    cr_assert(fabsf(w[3] / w[0] - 8) < 1e-5f && w[2] == w[1]);
    cr_assert_eq(o2c_mn_pick_T(w, 4, 0.0f), 0);
    cr_assert_eq(o2c_mn_pick_T(w, 4, 0.124f), 0);
    cr_assert_eq(o2c_mn_pick_T(w, 4, 0.126f), 1);
    cr_assert_eq(o2c_mn_pick_T(w, 4, 0.499f), 1);
    cr_assert_eq(o2c_mn_pick_T(w, 4, 0.501f), 3); /* never 2 */
    cr_assert_eq(o2c_mn_pick_T(w, 4, 1.0f), 3);  /* u * total = total: the last positive */
    int count[4] = {0};
    for (uint64_t i = 0; i < 80000; i++)
        count[o2c_mn_pick_T(w, 4, o2c_unif_f32(1, i + 1))]++;
    cr_assert(count[2] == 0 && abs(count[0] - 10000) < 600 && abs(count[1] - 30000) < 900,
              "%d %d %d %d", count[0], count[1], count[2], count[3]);
    /* +inf entries share everything; a row of -inf gives class 0 */
    float v[3] = {INFINITY, 1, INFINITY}, n[2] = {-INFINITY, -INFINITY};
    o2c_mn_cumulate_T(v, 3);
    cr_assert(o2c_mn_pick_T(v, 3, 0.4f) == 0 && o2c_mn_pick_T(v, 3, 0.6f) == 2);
    o2c_mn_cumulate_T(n, 2);
    cr_assert_eq(o2c_mn_pick_T(n, 2, 0.5f), 0);
}

/* ---- the cases */

static const char *const cases[] = {
    "bernoulli_sym",     "bernoulli_f64_i32",   "bernoulli_f16_bool", "bernoulli_bf16",
    "bernoulli_less_sym", "bernoulli_greater_f64", "uniform_f32",     "uniform_f64",
    "uniform_f16",       "uniform_like_sym",    "normal_f32",         "normal_like_f64_sym",
    "normal_f16",        "multinomial_sym",     "multinomial_f64_i64", "multinomial_f16",
    "dropout_const_sym", "dropout_op6_mask",
};
#define NCASES (sizeof cases / sizeof *cases)

Test(random, cases_tcc) {
    tu_run_cases(CASES, cases, NCASES, "");
}

Test(random, cases_strict) {
    tu_run_cases(CASES, cases, NCASES, "--strict");
}

Test(random, cases_dynamic) {
    tu_run_cases(CASES, cases, NCASES, "--dynamic --no-declared");
}

/* ---- what the compiler says of each output */

static void checks_of(const char *path, Output *o) {
    tu_compile_ok(path, o);
    cr_assert_not_null(o->checks, "%s", path);
}

Test(random, checks_described) {
    Output o;
    checks_of(CASES "bernoulli_sym/model.onnx", &o);
    const OutputCheck *k = &o.checks[0];
    cr_assert(o.noutputs == 1 && k->draws == O2C_DRAWS_BINARY && k->dtype == DT_FLOAT &&
              k->ref == 0 && !strcmp(k->op, "Bernoulli"));
    cr_assert(k->zero_if == O2C_CMP_LE && k->zero_at == 0 && k->one_if == O2C_CMP_GE &&
              k->one_at == 1);
    onnx2c_output_free(&o);
    /* Less(u, p), u in [0, 1): 1 where p >= 1, 0 where p <= 0; through Cast and Unsqueeze */
    checks_of(CASES "bernoulli_less_sym/model.onnx", &o);
    k = &o.checks[0];
    cr_assert(k->draws == O2C_DRAWS_BINARY && k->ref == 0 && k->one_if == O2C_CMP_GE &&
              k->one_at == 1 && k->zero_if == O2C_CMP_LE && k->zero_at == 0, "%d", k->draws);
    cr_assert_str_eq(k->op, "Less of RandomUniformLike");
    onnx2c_output_free(&o);
    /* Greater(p, u) is u < p */
    checks_of(CASES "bernoulli_greater_f64/model.onnx", &o);
    k = &o.checks[0];
    cr_assert(k->draws == O2C_DRAWS_BINARY && k->dtype == DT_BOOL && k->one_if == O2C_CMP_GE &&
              k->one_at == 1 && k->zero_if == O2C_CMP_LE && k->zero_at == 0);
    onnx2c_output_free(&o);
    /* ONNX 1.12's expansion, Greater(u, p): 1 where p < 0, 0 where p >= 1 */
    checks_of(TU_NODE_DATA "test_bernoulli_expanded/model.onnx", &o);
    k = &o.checks[0];
    cr_assert(k->draws == O2C_DRAWS_BINARY && k->one_if == O2C_CMP_LT && k->one_at == 0 &&
              k->zero_if == O2C_CMP_GE && k->zero_at == 1);
    onnx2c_output_free(&o);
    checks_of(CASES "uniform_f32/model.onnx", &o);
    k = &o.checks[0];
    cr_assert(k->draws == O2C_DRAWS_RANGE && k->lo == -2 && k->hi == 3 && k->ref == -1);
    onnx2c_output_free(&o);
    checks_of(CASES "normal_f32/model.onnx", &o);
    cr_assert(o.checks[0].draws == O2C_DRAWS_FINITE); /* through Reshape */
    onnx2c_output_free(&o);
    checks_of(CASES "multinomial_sym/model.onnx", &o);
    k = &o.checks[0];
    cr_assert(k->draws == O2C_DRAWS_CLASS && k->classes == 9 && k->ref == 0 &&
              k->dtype == DT_INT32);
    onnx2c_output_free(&o);
    /* Dropout: constant ratio and training_mode; output (through Identity) and mask (through
     * Cast) name each other */
    checks_of(CASES "dropout_const_sym/model.onnx", &o);
    cr_assert(o.noutputs == 2 && o.checks[0].draws == O2C_DRAWS_DROPOUT &&
              o.checks[1].draws == O2C_DRAWS_MASK && o.checks[0].pair == 1 &&
              o.checks[1].pair == 0 && o.checks[0].ref == 0 && o.checks[1].ref == 0);
    cr_assert(o.checks[0].ratio_in == -1 && fabs(o.checks[0].ratio - 0.3) < 1e-7 &&
              o.checks[0].train_in == -1 && o.checks[0].train);
    onnx2c_output_free(&o);
    /* runtime ratio and training_mode: inputs 1 and 2 */
    checks_of(TU_NODE_DATA "test_training_dropout_default_mask/model.onnx", &o);
    cr_assert(o.checks[0].ratio_in == 1 && o.checks[0].train_in == 2 && o.checks[1].pair == 0);
    onnx2c_output_free(&o);
    /* a draw through Add: no property (its values are compared); nothing random: the same */
    checks_of(RANDOM "uniform_add.onnx", &o);
    cr_assert(o.checks[0].draws == O2C_DRAWS_NONE && o.checks[0].dtype == DT_FLOAT);
    onnx2c_output_free(&o);
    checks_of(RANDOM "det.onnx", &o);
    cr_assert(o.checks[0].draws == O2C_DRAWS_NONE);
    onnx2c_output_free(&o);
}

/* ---- wrong outputs fail */

enum { MAXIO = 8 };

/* A case's data set 0 run by the generated code: inputs, references, outputs. */
typedef struct Run {
    TuModel m;
    Tensor *in[MAXIO], *want[MAXIO];
    void *got[MAXIO];
    int nin, nout;
} Run;

static void run_dir(Run *r, const char *dir, const char *cc) {
    char path[1100];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    memset(r, 0, sizeof *r);
    tu_open(&r->m, strdup(path), cc);
    r->nin = tu_load_set(dir, 0, "input", r->in, MAXIO);
    r->nout = tu_load_set(dir, 0, "output", r->want, MAXIO);
    int64_t dims[8] = {0};
    for (int b = 0; b < r->m.o.nbind; b++)
        dims[r->m.o.bind[b].dim] = r->in[r->m.o.bind[b].input]->dims[r->m.o.bind[b].axis];
    const void *ins[MAXIO];
    for (int i = 0; i < r->nin; i++)
        ins[i] = r->in[i]->data;
    for (int i = 0; i < r->nout; i++)
        r->got[i] = calloc((size_t)r->want[i]->nelem + 1, onnx2c_dtype_size(r->want[i]->dtype));
    cr_assert_eq(tu_run(&r->m, dims, ins, r->got), 0, "%s", dir);
}

/* The case tests/data/random/cases/NAME. */
static void run_case(Run *r, const char *name, const char *cc) {
    char dir[1024];
    snprintf(dir, sizeof dir, CASES "%s", name);
    run_dir(r, dir, cc);
}

static void close_run(Run *r) {
    for (int i = 0; i < r->nout; i++) {
        free(r->got[i]);
        onnx2c_tensor_free(r->want[i]);
    }
    for (int i = 0; i < r->nin; i++)
        onnx2c_tensor_free(r->in[i]);
    free((void *)r->m.path);
    tu_close(&r->m);
}

/* Output i passes (fragment NULL) or fails with a message holding fragment. */
static void expect(Run *r, int i, const char *fragment) {
    char msg[400] = "";
    bool ok = check_output(&r->m.o, i, r->in, r->nin, r->want, r->got, r->nout, msg, sizeof msg);
    if (!fragment)
        cr_assert(ok, "%s output %d: %s", r->m.path, i, msg);
    else
        cr_assert(!ok && strstr(msg, fragment), "%s output %d: %s (want a failure: '%s')",
                  r->m.path, i, ok ? "passed" : msg, fragment);
}

/* The first element of in[0] equal to v. */
static int64_t where(const Run *r, double v) {
    for (int64_t e = 0; e < r->in[0]->nelem; e++)
        if (tensor_value(r->in[0]->dtype, r->in[0]->data, e) == v)
            return e;
    cr_assert_fail("no element %g", v);
    return -1;
}

Test(random, bernoulli_wrong_fails) {
    static const char *const names[] = {"bernoulli_sym", "bernoulli_less_sym"};
    for (int c = 0; c < 2; c++) {
        Run r;
        run_case(&r, names[c], NULL);
        float *y = r.got[0];
        expect(&r, 0, NULL);
        int64_t one = where(&r, 1), zero = where(&r, 0);
        y[one] = 0;
        expect(&r, 0, "always 1");
        y[one] = 1, y[zero] = 1;
        expect(&r, 0, "always 0");
        y[zero] = 0, y[3] = 2;
        expect(&r, 0, "expected 0 or 1");
        memset(y, 0, sizeof(float) * (size_t)r.want[0]->nelem); /* all zeros */
        expect(&r, 0, "always 1");
        close_run(&r);
    }
    /* bool output: a byte 2 is no bool */
    Run r;
    run_case(&r, "bernoulli_f16_bool", NULL);
    expect(&r, 0, NULL);
    ((unsigned char *)r.got[0])[1] = 2;
    expect(&r, 0, "expected 0 or 1");
    close_run(&r);
}

Test(random, range_wrong_fails) {
    Run r;
    run_case(&r, "uniform_f32", NULL);
    float *y = r.got[0];
    expect(&r, 0, NULL);
    y[5] = -2.0f; /* low is in */
    expect(&r, 0, NULL);
    y[5] = 3.0f; /* high is out */
    expect(&r, 0, "outside [-2, 3)");
    y[5] = NAN;
    expect(&r, 0, "outside");
    close_run(&r);
    run_case(&r, "uniform_f16", NULL);
    expect(&r, 0, NULL);
    ((uint16_t *)r.got[0])[0] = 0x34CD; /* 0.3000488 >= high 0.3 */
    expect(&r, 0, "outside");
    close_run(&r);
    run_case(&r, "normal_f32", NULL);
    expect(&r, 0, NULL);
    ((float *)r.got[0])[7] = INFINITY;
    expect(&r, 0, "not finite");
    ((float *)r.got[0])[7] = NAN;
    expect(&r, 0, "not finite");
    close_run(&r);
}

Test(random, multinomial_wrong_fails) {
    Run r;
    run_case(&r, "multinomial_sym", NULL);
    int32_t *y = r.got[0];
    expect(&r, 0, NULL);
    const float *x = r.in[0]->data; /* [B, 9] */
    int64_t k = 0;
    while (k < 9 && x[k] != -INFINITY)
        k++;
    cr_assert(k < 9, "row 0 has no -inf class");
    int32_t keep = y[0];
    y[0] = (int32_t)k;
    expect(&r, 0, "log-probability is -inf");
    y[0] = 9;
    expect(&r, 0, "not a class");
    y[0] = -1;
    expect(&r, 0, "not a class");
    y[0] = keep;
    expect(&r, 0, NULL);
    close_run(&r);
}

Test(random, dropout_wrong_fails) {
    Run r;
    run_case(&r, "dropout_const_sym", NULL);
    float *y = r.got[0], *mask = r.got[1];
    const float *x = r.in[0]->data;
    expect(&r, 0, NULL);
    expect(&r, 1, NULL);
    int64_t kept = -1, dropped = -1;
    for (int64_t e = 1; e < r.want[0]->nelem; e++) {
        if (mask[e] == 1 && x[e] != 0 && kept < 0)
            kept = e;
        if (mask[e] == 0 && x[e] != 0 && dropped < 0)
            dropped = e;
    }
    cr_assert(kept > 0 && dropped > 0);
    /* the mask disagrees with the output */
    mask[kept] = 0;
    expect(&r, 1, "where the mask drops it");
    expect(&r, 0, "where the mask drops it");
    mask[kept] = 1, mask[dropped] = 1;
    expect(&r, 1, "where the mask keeps it");
    mask[dropped] = 0;
    expect(&r, 1, NULL);
    /* a kept value not x / (1 - ratio); a dropped one not 0 */
    float keep = y[kept];
    y[kept] = x[kept];
    expect(&r, 0, "expected 0 or");
    y[kept] = keep, y[dropped] = x[dropped] / 0.7f;
    expect(&r, 0, "where the mask drops it");
    y[dropped] = 0, mask[3] = 0.5f;
    expect(&r, 1, "expected 0 or 1");
    close_run(&r);
    /* ratio 0 at run time: nothing is drawn, so the reference's values (x, every mask element
     * 1), and a dropped element fails */
    run_dir(&r, TU_NODE_DATA "test_training_dropout_zero_ratio_mask", NULL);
    expect(&r, 0, NULL);
    expect(&r, 1, NULL);
    ((unsigned char *)r.got[1])[4] = 0;
    expect(&r, 1, "element 4: got 0, want 1");
    ((float *)r.got[0])[4] = 0;
    expect(&r, 0, "element 4: got 0");
    close_run(&r);
    /* training_mode false at run time: the same */
    run_dir(&r, TU_NODE_DATA "test_training_dropout_mask", NULL);
    expect(&r, 0, NULL);
    *(unsigned char *)r.in[2]->data = 0; /* the check reads training_mode from the inputs */
    expect(&r, 0, "element");
    close_run(&r);
}

/* A reference of another shape or type fails through onnx2c-test (a copy of bernoulli_sym
 * with set 0's output replaced). */
static void wrong_reference(const char *pb, const char *fragment) {
    char dir[] = "/tmp/o2c_random_XXXXXX", cmd[4096];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "mkdir -p %s/c/test_data_set_0 && cp %s %s/c/ && cp %s %s/c/"
             "test_data_set_0/ && cp %s %s/c/test_data_set_0/output_0.pb", dir,
             CASES "bernoulli_sym/model.onnx", dir, CASES "bernoulli_sym/test_data_set_0/input_0.pb",
             dir, pb, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char c[200];
    snprintf(c, sizeof c, "%s/c", dir);
    tu_expect_case_fails(c, fragment);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(random, wrong_reference_fails) {
    wrong_reference(RANDOM "wrong/bernoulli_shape.pb", "shape: output 0 is [23], want [24]");
    wrong_reference(RANDOM "wrong/bernoulli_type.pb", "type float, want double");
}

/* ---- determinism */

Test(random, deterministic) {
    static const char *const names[] = {"bernoulli_sym", "uniform_f16", "normal_like_f64_sym",
                                        "multinomial_f64_i64", "dropout_const_sym"};
    for (int c = 0; c < 5; c++) {
        Run a, b, g;
        run_case(&a, names[c], NULL);
        run_case(&b, names[c], NULL);
        run_case(&g, names[c], TU_STRICT_CC);
        for (int i = 0; i < a.nout; i++) {
            size_t n = (size_t)a.want[i]->nelem * onnx2c_dtype_size(a.want[i]->dtype);
            cr_assert(!memcmp(a.got[i], b.got[i], n), "%s output %d: a second run differs",
                      names[c], i);
            cr_assert(!memcmp(a.got[i], g.got[i], n), "%s output %d: gcc's run differs",
                      names[c], i);
        }
        close_run(&a);
        close_run(&b);
        close_run(&g);
    }
}

/* ---- errors: one line naming the node */

Test(random, errors) {
#define ERR(file, msg) tu_expect_error(RANDOM file, O2C_EMODEL, msg)
    ERR("bad_uniform_int.onnx", "node 'r' (RandomUniform): dtype int32: expected float16, float "
                                "or double");
    ERR("bad_uniform_range.onnx", "node 'r' (RandomUniform): low 1 is not below high 1");
    ERR("bad_uniform_f16_empty.onnx", "no float16 value lies in [low, high) = [1.0001, 1.0002)");
    ERR("bad_normal_noshape.onnx", "node 'r' (RandomNormal): attribute 'shape' is required");
    ERR("bad_like_int.onnx", "node 'r' (RandomNormalLike): output type int64: expected float16, "
                             "float or double");
    ERR("bad_bernoulli_int.onnx", "node 'r' (Bernoulli): input type int32: expected float16, "
                                  "float or double");
    ERR("bad_multinomial_rank.onnx", "node 'r' (Multinomial): input has rank 1: expected "
                                     "[batch_size, class_size]");
    ERR("bad_multinomial_dtype.onnx", "node 'r' (Multinomial): dtype float: expected int32 or "
                                      "int64");
    ERR("bad_multinomial_classes.onnx", "node 'r' (Multinomial): class_size (input dimension 1) "
                                        "must be at least 1");
#undef ERR
}
