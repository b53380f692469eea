/* test_ops_rnn.c — the recurrent family (compiler/ops/rnn.c, templates/rnn_*.c).
 *
 * The cases of tests/data/rnn/make_rnn.py have symbolic seq and batch and two data sets at
 * different sizes: each is compiled once through the library API, JIT-compiled with libtcc,
 * and run on both sets, the dims taken from the input shapes (Output.bind), the outputs
 * compared with the script's float64 reference of the ONNX formulas.  NAME_output_shape shows
 * the layout rules at run time; the bad_*.onnx models check the errors (one line, naming the
 * node). */
#include "onnx2c.h"
#include "runtime.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RNN ONNX2C_SOURCE_DIR "/tests/data/rnn/"

typedef int (*check_fn)(const int64_t *);
typedef size_t (*ws_fn)(const int64_t *);
typedef int (*shape_fn)(const int64_t *, int, int64_t *);
typedef int (*run_fn)(const int64_t *, const void *const *, void *const *, void *);

typedef struct Model {
    Output o;
    Jit *j;
    check_fn check;
    ws_fn wsize;
    shape_fn oshape;
    run_fn run;
} Model;

static void model_open(Model *m, const char *file, const char *cc) {
    char err[1024] = "";
    Options opt = {0};
    opt.name = "model";
    opt.out_path = "model.c";
    int st = onnx2c_compile(file, &opt, &m->o, err, sizeof err);
    cr_assert_eq(st, O2C_OK, "%s: %s", file, err);
    m->j = jit_compile(m->o.c_src, "model.h", m->o.h_src, cc, err, sizeof err);
    cr_assert_not_null(m->j, "%s: %s", file, err);
    m->check = (check_fn)jit_symbol(m->j, "model_check");
    m->wsize = (ws_fn)jit_symbol(m->j, "model_workspace_size");
    m->oshape = (shape_fn)jit_symbol(m->j, "model_output_shape");
    m->run = (run_fn)jit_symbol(m->j, "model_run");
    cr_assert(m->check && m->wsize && m->oshape && m->run);
}

static void model_close(Model *m) {
    jit_free(m->j);
    onnx2c_output_free(&m->o);
}

/* Loads DIR/test_data_set_K/PREFIX_I.pb for I = 0.. until absent; returns the count. */
static int load_set(const char *dir, int k, const char *prefix, Tensor **t, int max) {
    int n = 0;
    for (; n < max; n++) {
        char path[1100], err[256];
        snprintf(path, sizeof path, "%.512s/test_data_set_%d/%.64s_%d.pb", dir, k, prefix, n);
        FILE *f = fopen(path, "rb");
        if (!f)
            break;
        fclose(f);
        cr_assert_eq(load_tensor_file(path, &t[n], err, sizeof err), 0, "%s: %s", path, err);
    }
    return n;
}

/* Compiles CASE/model.onnx once and runs every data set: dims from the input shapes, output
 * shapes from NAME_output_shape, values within the contract's tolerance. */
static void run_case(const char *name) {
    char dir[512], file[600];
    snprintf(dir, sizeof dir, RNN "%s", name);
    snprintf(file, sizeof file, "%s/model.onnx", dir);
    Model m;
    model_open(&m, file, NULL);
    cr_assert_eq(m.o.ndims, 2, "%s: %d dims, want seq and batch", name, m.o.ndims);
    for (int k = 0; k < 2; k++) {
        Tensor *in[8], *want[3];
        int nin = load_set(dir, k, "input", in, 8), nout = load_set(dir, k, "output", want, 3);
        cr_assert(nin > 0 && nout > 0, "%s: set %d is missing", name, k);
        int64_t dims[2] = {-1, -1};
        for (int b = 0; b < m.o.nbind; b++)
            dims[m.o.bind[b].dim] = in[m.o.bind[b].input]->dims[m.o.bind[b].axis];
        cr_assert(dims[0] > 0 && dims[1] > 0, "%s: dims not bound", name);
        cr_assert_eq(m.check(dims), 0, "%s set %d: check failed", name, k);
        const void *ins[8];
        void *outs[3];
        for (int i = 0; i < nin; i++)
            ins[i] = in[i]->data;
        for (int i = 0; i < nout; i++) {
            int64_t shape[8];
            int r = m.oshape(dims, i, shape);
            cr_assert_eq(r, want[i]->rank, "%s set %d output %d: rank %d", name, k, i, r);
            for (int a = 0; a < r; a++)
                cr_assert_eq(shape[a], want[i]->dims[a], "%s set %d output %d axis %d: %lld, want %lld",
                             name, k, i, a, (long long)shape[a], (long long)want[i]->dims[a]);
            outs[i] = calloc((size_t)want[i]->nelem + 1, dtype_size(want[i]->dtype));
        }
        size_t wsz = m.wsize(dims);
        void *ws = wsz ? aligned_alloc(64, (wsz + 63) / 64 * 64) : NULL;
        cr_assert_eq(m.run(dims, ins, outs, ws), 0, "%s set %d: run failed", name, k);
        for (int i = 0; i < nout; i++) {
            char msg[256] = "";
            cr_assert(compare_tensor(want[i], outs[i], msg, sizeof msg), "%s set %d output %d: %s",
                      name, k, i, msg);
            free(outs[i]);
            tensor_free(want[i]);
        }
        for (int i = 0; i < nin; i++)
            tensor_free(in[i]);
        free(ws);
    }
    model_close(&m);
}

/* ---- runs against the reference, one generated C for two (seq, batch) sizes */

/* bidirectional, B, sequence_lens down to 0 (Y zero past the length, Y_h/Y_c held), initial
 * h and c, peepholes, all three outputs */
Test(rnn, lstm_bidirectional_peepholes_sequence_lens) { run_case("lstm_bidir_peep"); }
/* layout 1, reverse, clip, input_forget */
Test(rnn, lstm_reverse_layout1_clip_input_forget) { run_case("lstm_reverse_layout1"); }
/* activations with alpha/beta taken in order by those that have them */
Test(rnn, lstm_activation_list) { run_case("lstm_acts_bidir"); }
/* opset 7, double, W/R/B as run-time inputs, only Y_c */
Test(rnn, lstm_opset7_double_only_y_c) { run_case("lstm_opset7_double"); }
Test(rnn, gru_bidirectional_linear_before_reset) { run_case("gru_bidir_lbr"); }
Test(rnn, gru_reverse_layout1_softsign) { run_case("gru_reverse_layout1"); }
Test(rnn, rnn_bidirectional_relu_leakyrelu) { run_case("rnn_bidir_acts"); }
Test(rnn, rnn_reverse_affine_opset7) { run_case("rnn_reverse_affine"); }

/* ---- shapes */

/* layout 1: X[batch, seq, 2] -> Y[batch, seq, 1, 3], Y_h = Y_c [batch, 1, 3]; hidden_size and
 * num_directions are constants, seq and batch stay symbolic. */
Test(rnn, layout1_symbolic_shapes) {
    Model m;
    model_open(&m, RNN "lstm_reverse_layout1/model.onnx", NULL);
    cr_assert(strstr(m.o.h_src, "MODEL_DIM_SEQ") && strstr(m.o.h_src, "MODEL_DIM_BATCH"), "%s",
              m.o.h_src);
    /* dims in order of first appearance: X[batch, seq, 2] */
    int64_t dims[2] = {7, 11}, s[8];
    cr_assert_eq(m.oshape(dims, 0, s), 4);
    cr_assert(s[0] == 7 && s[1] == 11 && s[2] == 1 && s[3] == 3);
    cr_assert_eq(m.oshape(dims, 1, s), 3);
    cr_assert(s[0] == 7 && s[1] == 1 && s[2] == 3);
    cr_assert_eq(m.oshape(dims, 2, s), 3);
    model_close(&m);
}

/* layout 0, bidirectional: Y[seq, 2, batch, 4], Y_h[2, batch, 4]. */
Test(rnn, bidirectional_symbolic_shapes) {
    Model m;
    model_open(&m, RNN "lstm_bidir_peep/model.onnx", NULL);
    int64_t dims[2] = {5, 9}, s[8]; /* X[seq, batch, 3] */
    cr_assert_eq(m.oshape(dims, 0, s), 4);
    cr_assert(s[0] == 5 && s[1] == 2 && s[2] == 9 && s[3] == 4);
    cr_assert_eq(m.oshape(dims, 1, s), 3);
    cr_assert(s[0] == 2 && s[1] == 9 && s[2] == 4);
    model_close(&m);
}

/* The generated C is strict C99 for gcc (float and double kernels). */
Test(rnn, strict_c99) {
    Model m;
    const char *cc = "gcc -std=c99 -Wall -Wextra -pedantic -Werror -O0";
    model_open(&m, RNN "lstm_acts_bidir/model.onnx", cc);
    model_close(&m);
    model_open(&m, RNN "lstm_opset7_double/model.onnx", cc);
    model_close(&m);
    model_open(&m, RNN "gru_bidir_lbr/model.onnx", cc);
    model_close(&m);
}

/* ---- errors */

static void expect_error(const char *file, const char *fragment) {
    char err[1024] = "";
    Options opt = {0};
    Output out = {0};
    int st = onnx2c_compile(file, &opt, &out, err, sizeof err);
    if (st == O2C_OK)
        onnx2c_output_free(&out);
    cr_assert_eq(st, O2C_EMODEL, "%s: status %d: %s", file, st, err);
    cr_assert(strstr(err, fragment), "%s: message lacks \"%s\": %s", file, fragment, err);
    cr_assert(!strchr(err, '\n'), "message is not one line: %s", err);
}

Test(rnn, errors) {
    expect_error(RNN "bad_direction.onnx",
                 "node 'cell' (LSTM): direction 'sideways' is not forward, reverse or bidirectional");
    expect_error(RNN "bad_activation.onnx", "node 'cell' (LSTM): activation 'Gelu' is not supported");
    expect_error(RNN "bad_act_count.onnx", "2 activations, expected 3");
    expect_error(RNN "bad_w_rows.onnx",
                 "W axis 1 is 12, expected 16: W is [num_directions, gates*hidden_size, input_size]");
    expect_error(RNN "bad_w_dirs.onnx", "W axis 0 is 1, expected 2");
    expect_error(RNN "bad_input_size.onnx", "W axis 2 is 5, expected 3");
    expect_error(RNN "bad_layout.onnx", "node 'cell' (GRU): layout = 2: must be 0 or 1");
    expect_error(RNN "bad_clip.onnx", "node 'cell' (RNN): clip = -1: must be positive");
    expect_error(RNN "bad_type.onnx", "input type int32 is not supported");
    expect_error(RNN "bad_x_rank.onnx", "X has rank 2, expected 3");
}
