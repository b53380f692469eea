/* test_ops_signal.c — the signal family (compiler/ops/signal.c, templates/signal_*.c).
 *
 * Models with symbolic dims and known shape-deciding scalars (tests/data/signal/
 * make_signal.py) are compiled through the library API and JIT-compiled with libtcc;
 * NAME_output_shape shows the shape rules for several sizes from one C file, and NAME_run is
 * compared with direct double-precision references written here.  The backend node models
 * (runtime scalars, declared output shapes) check that contradicting runtime data gives
 * O2C_RUN_EDATA.  The bad_*.onnx models check the errors (one line, naming the node). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIG TU_DATA("signal")
#define TWO_PI 6.283185307179586477

static void run(TuModel *m, const int64_t *dims, const void *const *ins, void *const *outs) {
    cr_assert_eq(tu_run(m, dims, ins, outs), 0, "%s: run failed", m->path);
}

/* Reference DFT bin k of n points of x (ci 1 or 2 per sample, xs elements apart, len
 * samples, zero-padded), sign -1 forward, +1 inverse (unscaled). */
static void ref_bin(const float *x, int64_t xs, int64_t ci, int64_t len, const float *w,
                    int64_t n, int64_t k, int sign, double *re, double *im) {
    *re = *im = 0;
    for (int64_t j = 0; j < n && j < len; j++) {
        double xr = x[j * xs], xi = ci == 2 ? x[j * xs + 1] : 0;
        double f = w ? w[j] : 1.0, a = sign * TWO_PI * (double)j * (double)k / (double)n;
        *re += f * (xr * cos(a) - xi * sin(a));
        *im += f * (xr * sin(a) + xi * cos(a));
    }
}

/* BlackmanWindow (symmetric) whose size is Shape(x): y [N]; N = 1 uses N - 1 -> 1. */
Test(signal, window_symbolic_size) {
    TuModel m;
    tu_open(&m, SIG "window_sym.onnx", NULL);
    for (int64_t N = 1; N <= 9; N += 4) {
        const int64_t dims[1] = {N};
        tu_expect_shape(&m, dims, 0, 1, dims);
        float x[9] = {0}, y[9], want[9];
        const void *ins[1] = {x};
        void *outs[1] = {y};
        run(&m, dims, ins, outs);
        for (int64_t k = 0; k < N; k++) {
            double a = TWO_PI * (double)k / (double)(N > 1 ? N - 1 : 1);
            want[k] = (float)(0.42 - 0.5 * cos(a) + 0.08 * cos(2 * a));
        }
        tu_expect_close(y, want, N);
    }
    tu_close(&m);
}

/* HannWindow of constant size 6 as double (folded), added to x. */
Test(signal, window_constant_double) {
    TuModel m;
    tu_open(&m, SIG "window_const.onnx", TU_STRICT_CC);
    double x[6] = {1, 2, 3, 4, 5, 6}, y[6];
    const void *ins[1] = {x};
    void *outs[1] = {y};
    run(&m, NULL, ins, outs);
    for (int k = 0; k < 6; k++) {
        double want = x[k] + 0.5 - 0.5 * cos(TWO_PI * k / 6.0);
        cr_assert(fabs(y[k] - want) < 1e-12, "y[%d] = %.17g, want %.17g", k, y[k], want);
    }
    tu_close(&m);
}

/* DFT of complex x [B, N, 2] with dft_length 8: zero-padded (N = 5) or cut (N = 11). */
Test(signal, dft_length_pad_and_cut) {
    TuModel m;
    tu_open(&m, SIG "dft_len.onnx", NULL);
    for (int64_t N = 5; N <= 11; N += 6) {
        const int64_t dims[2] = {2, N}, want_shape[3] = {2, 8, 2};
        tu_expect_shape(&m, dims, 0, 3, want_shape);
        float *x = tu_random_floats(2 * N * 2, (unsigned)N), y[32], want[32];
        const void *ins[1] = {x};
        void *outs[1] = {y};
        run(&m, dims, ins, outs);
        for (int64_t b = 0; b < 2; b++)
            for (int64_t k = 0; k < 8; k++) {
                double re, im;
                ref_bin(x + b * N * 2, 2, 2, N, NULL, 8, k, -1, &re, &im);
                want[(b * 8 + k) * 2] = (float)re;
                want[(b * 8 + k) * 2 + 1] = (float)im;
            }
        tu_expect_close(y, want, 32);
        free(x);
    }
    tu_close(&m);
}

/* onesided inverse DFT of real x [B, N, 1] along axis -2: y [B, N / 2 + 1, 2], divided by N. */
Test(signal, dft_onesided_inverse) {
    TuModel m;
    tu_open(&m, SIG "dft_onesided.onnx", NULL);
    for (int64_t N = 6; N <= 7; N++) {
        const int64_t dims[2] = {3, N}, K = N / 2 + 1, want_shape[3] = {3, K, 2};
        tu_expect_shape(&m, dims, 0, 3, want_shape);
        float *x = tu_random_floats(3 * N, (unsigned)N), y[24], want[24];
        const void *ins[1] = {x};
        void *outs[1] = {y};
        run(&m, dims, ins, outs);
        for (int64_t b = 0; b < 3; b++)
            for (int64_t k = 0; k < K; k++) {
                double re, im;
                ref_bin(x + b * N, 1, 1, N, NULL, N, k, 1, &re, &im);
                want[(b * K + k) * 2] = (float)(re / (double)N);
                want[(b * K + k) * 2 + 1] = (float)(im / (double)N);
            }
        tu_expect_close(y, want, 3 * K * 2);
        free(x);
    }
    tu_close(&m);
}

/* STFT of x [B, L, 1], step 3, periodic Hann window of 8: y [B, (L - 8) / 3 + 1, 5, 2]. */
Test(signal, stft_symbolic_frames) {
    TuModel m;
    tu_open(&m, SIG "stft_sym.onnx", NULL);
    const int64_t B = 2, L = 20, F = (L - 8) / 3 + 1;
    const int64_t dims[2] = {B, L}, want_shape[4] = {B, F, 5, 2};
    tu_expect_shape(&m, dims, 0, 4, want_shape);
    float *x = tu_random_floats(B * L, 7), w[8], y[2 * 5 * 5 * 2], want[2 * 5 * 5 * 2];
    for (int j = 0; j < 8; j++)
        w[j] = (float)(0.5 - 0.5 * cos(TWO_PI * j / 8.0));
    const void *ins[1] = {x};
    void *outs[1] = {y};
    run(&m, dims, ins, outs);
    for (int64_t b = 0; b < B; b++)
        for (int64_t f = 0; f < F; f++)
            for (int64_t k = 0; k < 5; k++) {
                double re, im;
                ref_bin(x + b * L + f * 3, 1, 1, 8, w, 8, k, -1, &re, &im);
                want[((b * F + f) * 5 + k) * 2] = (float)re;
                want[((b * F + f) * 5 + k) * 2 + 1] = (float)im;
            }
    tu_expect_close(y, want, B * F * 5 * 2);
    free(x);
    tu_close(&m);
}

/* MelWeightMatrix with the backend test's values as initializers matches its output. */
Test(signal, mel_constant_inputs) {
    TuModel m;
    tu_open(&m, SIG "mel_const.onnx", TU_STRICT_CC);
    const int64_t want_shape[2] = {9, 8};
    tu_expect_shape(&m, NULL, 0, 2, want_shape);
    float y[72];
    const void *ins[1] = {NULL};
    void *outs[1] = {y};
    run(&m, NULL, ins, outs);
    Tensor *t = tu_load_tensor(TU_NODE_DATA "test_melweightmatrix/test_data_set_0/output_0.pb");
    cr_assert_eq(t->nelem, 72);
    tu_expect_close(y, t->data, 72);
    onnx2c_tensor_free(t);
    tu_close(&m);
}

/* Runtime sizes must match the declared output shape: O2C_RUN_EDATA otherwise. */
Test(signal, runtime_scalars_checked) {
    TuModel m;
    tu_open(&m, TU_NODE_DATA "test_hannwindow/model.onnx", NULL);
    float y[10];
    void *outs[1] = {y};
    int32_t size = 9;
    const void *ins[1] = {&size};
    cr_assert_eq(tu_run(&m, NULL, ins, outs), O2C_RUN_EDATA);
    size = 10;
    run(&m, NULL, ins, outs);
    tu_close(&m);

    tu_open(&m, TU_NODE_DATA "test_stft/model.onnx", NULL);
    float x[128] = {0}, z[15 * 9 * 2];
    int64_t step = 8, len = 16;
    const void *sins[3] = {x, &step, &len};
    void *souts[1] = {z};
    run(&m, NULL, sins, souts);
    step = 7; /* 17 frames, declared 15 */
    cr_assert_eq(tu_run(&m, NULL, sins, souts), O2C_RUN_EDATA);
    step = 8;
    len = 17; /* 9 bins but (128 - 17) / 8 + 1 = 14 frames */
    cr_assert_eq(tu_run(&m, NULL, sins, souts), O2C_RUN_EDATA);
    len = 0;
    cr_assert_eq(tu_run(&m, NULL, sins, souts), O2C_RUN_EDATA);
    tu_close(&m);
}

Test(signal, errors) {
    tu_expect_error(SIG "bad_window_size.onnx", O2C_EMODEL,
                    "node 'HannWindow_0' (HannWindow): size 'n' is not known at compile time");
    tu_expect_error(SIG "bad_dft_axis.onnx", O2C_EMODEL,
                    "(DFT): axis 2 is out of range for an input of rank 3");
    tu_expect_error(SIG "bad_dft_complex.onnx", O2C_EMODEL,
                    "the last dim of the input is 3: must be 1 (real) or 2 (complex)");
    tu_expect_error(SIG "bad_stft_length.onnx", O2C_EMODEL,
                    "(STFT): needs a window or a frame_length");
}

/* The backend node cases, strict C99 under gcc. */
Test(signal, backend_cases) {
    static const char *const names[] = {
        "node/test_hannwindow", "node/test_hannwindow_symmetric", "node/test_hammingwindow",
        "node/test_hammingwindow_symmetric", "node/test_blackmanwindow",
        "node/test_blackmanwindow_symmetric", "node/test_dft", "node/test_dft_axis",
        "node/test_dft_inverse", "node/test_stft", "node/test_stft_with_window",
        "node/test_melweightmatrix",
    };
    tu_run_cases("/usr/share/libonnx-testdata/data", names, sizeof names / sizeof names[0],
                 "--strict");
}
