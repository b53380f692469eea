/* test_ops_rnn.c — the recurrent family (compiler/ops/rnn.c, templates/rnn_*.c).
 *
 * The cases of tests/data/rnn/make_rnn.py have symbolic seq and batch and two data sets at
 * different sizes: each is compiled once through the library API, JIT-compiled with libtcc,
 * and run on both sets, the dims taken from the input shapes (Output.bind), the outputs
 * compared with the script's float64 reference of the ONNX formulas.  NAME_output_shape shows
 * the layout rules at run time; the bad_*.onnx models check the errors (one line, naming the
 * node). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define RNN TU_DATA("rnn")

/* Compiles CASE/model.onnx once and runs both data sets: dims from the input shapes, output
 * shapes from NAME_output_shape, values within the contract's tolerance. */
static void run_case(const char *name) {
    char dir[1024], file[1100];
    snprintf(dir, sizeof dir, RNN "%.512s", name);
    snprintf(file, sizeof file, "%s/model.onnx", dir);
    TuModel m;
    tu_open(&m, file, NULL);
    cr_assert_eq(m.o.ndims, 2, "%s: %d dims, want seq and batch", name, m.o.ndims);
    tu_run_data_sets(&m, dir, 2);
    tu_close(&m);
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
    TuModel m;
    tu_open(&m, RNN "lstm_reverse_layout1/model.onnx", NULL);
    cr_assert(strstr(m.o.h_src, "MODEL_DIM_SEQ") && strstr(m.o.h_src, "MODEL_DIM_BATCH"), "%s",
              m.o.h_src);
    /* dims in order of first appearance: X[batch, seq, 2] */
    int64_t dims[2] = {7, 11}, s[8];
    cr_assert_eq(m.oshape(dims, 0, s), 4);
    cr_assert(s[0] == 7 && s[1] == 11 && s[2] == 1 && s[3] == 3);
    cr_assert_eq(m.oshape(dims, 1, s), 3);
    cr_assert(s[0] == 7 && s[1] == 1 && s[2] == 3);
    cr_assert_eq(m.oshape(dims, 2, s), 3);
    tu_close(&m);
}

/* layout 0, bidirectional: Y[seq, 2, batch, 4], Y_h[2, batch, 4]. */
Test(rnn, bidirectional_symbolic_shapes) {
    TuModel m;
    tu_open(&m, RNN "lstm_bidir_peep/model.onnx", NULL);
    int64_t dims[2] = {5, 9}, s[8]; /* X[seq, batch, 3] */
    cr_assert_eq(m.oshape(dims, 0, s), 4);
    cr_assert(s[0] == 5 && s[1] == 2 && s[2] == 9 && s[3] == 4);
    cr_assert_eq(m.oshape(dims, 1, s), 3);
    cr_assert(s[0] == 2 && s[1] == 9 && s[2] == 4);
    tu_close(&m);
}

/* The generated C is strict C99 for gcc (float and double kernels). */
Test(rnn, strict_c99) {
    TuModel m;
    const char *cc = TU_STRICT_CC;
    tu_open(&m, RNN "lstm_acts_bidir/model.onnx", cc);
    tu_close(&m);
    tu_open(&m, RNN "lstm_opset7_double/model.onnx", cc);
    tu_close(&m);
    tu_open(&m, RNN "gru_bidir_lbr/model.onnx", cc);
    tu_close(&m);
}

/* ---- errors */

Test(rnn, errors) {
    tu_expect_error(RNN "bad_direction.onnx", O2C_EMODEL,
                    "node 'cell' (LSTM): direction 'sideways' is not forward, reverse or "
                    "bidirectional");
    tu_expect_error(RNN "bad_activation.onnx", O2C_EMODEL,
                    "node 'cell' (LSTM): activation 'Gelu' is not supported");
    tu_expect_error(RNN "bad_act_count.onnx", O2C_EMODEL, "2 activations, expected 3");
    tu_expect_error(RNN "bad_w_rows.onnx", O2C_EMODEL,
                    "W axis 1 is 12, expected 16: W is [num_directions, gates*hidden_size, "
                    "input_size]");
    tu_expect_error(RNN "bad_w_dirs.onnx", O2C_EMODEL, "W axis 0 is 1, expected 2");
    tu_expect_error(RNN "bad_input_size.onnx", O2C_EMODEL, "W axis 2 is 5, expected 3");
    tu_expect_error(RNN "bad_layout.onnx", O2C_EMODEL,
                    "node 'cell' (GRU): layout = 2: must be 0 or 1");
    tu_expect_error(RNN "bad_clip.onnx", O2C_EMODEL,
                    "node 'cell' (RNN): clip = -1: must be positive");
    tu_expect_error(RNN "bad_type.onnx", O2C_EMODEL, "input type int32 is not supported");
    tu_expect_error(RNN "bad_x_rank.onnx", O2C_EMODEL, "X has rank 2, expected 3");
}
