/* slice_main.c — runs a Slice model of tests/data/hostile/ (prefix "model", model.h beside it)
 * at N = 0, 1 and 3, built by tests/unit/test_hostile_attrs.c with gcc under the contract's
 * strict C99 flags plus AddressSanitizer and UndefinedBehaviorSanitizer.  Every buffer is
 * malloc'd at its exact size (a 1-byte buffer for an empty tensor), so a read of a row of an
 * empty input ends the run.  The model is recognised by its counts:
 *   flip.onnx           1 input x[N, 3], 1 output: y = x reversed along axis 0
 *   flip_runtime.onnx   5 inputs (x, starts, ends, axes, steps of torch.flip): the same
 *   slice_extreme.onnx  1 input, 2 outputs: the last row and the first row (none when N is 0)
 * Exit status 0 when every run gives the expected shape and values, 1 otherwise. */
#include "model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *buffer(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p)
        exit(2);
    return p;
}

static int run(int64_t n) {
    int64_t dims[1] = {n}, shape[2];
    size_t nx = (size_t)n * 3;
    float *x = buffer(nx * sizeof *x);
    float *y[2];
    int64_t want_rows[2];
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)i;
    int64_t st = -1, en = -INT64_MAX, ax = 0, sp = -1;
    const void *in[5] = {x, &st, &en, &ax, &sp};
    void *out[2];
    if (model_check(dims) != 0) {
        fprintf(stderr, "N=%lld: model_check fails\n", (long long)n);
        return 1;
    }
    for (int o = 0; o < MODEL_NUM_OUTPUTS; o++) {
        want_rows[o] = MODEL_NUM_OUTPUTS == 2 ? (n > 0) : n;
        if (model_output_shape(dims, o, shape) != 2 || shape[0] != want_rows[o] || shape[1] != 3) {
            fprintf(stderr, "N=%lld: output %d has shape [%lld, %lld]\n", (long long)n, o,
                    (long long)shape[0], (long long)shape[1]);
            return 1;
        }
        y[o] = buffer((size_t)want_rows[o] * 3 * sizeof(float));
        out[o] = y[o];
    }
    void *ws = buffer(model_workspace_size(dims));
    int rc = model_run(dims, in, out, ws);
    if (rc != 0) {
        fprintf(stderr, "N=%lld: model_run returns %d\n", (long long)n, rc);
        return 1;
    }
    for (int o = 0; o < MODEL_NUM_OUTPUTS; o++)
        for (int64_t r = 0; r < want_rows[o]; r++)
            for (int64_t j = 0; j < 3; j++) {
                /* the flips and the last row read row n - 1 - r, the first row row 0 */
                int64_t src = MODEL_NUM_OUTPUTS == 2 && o == 1 ? 0 : n - 1 - r;
                if (y[o][r * 3 + j] != x[src * 3 + j]) {
                    fprintf(stderr, "N=%lld: output %d [%lld, %lld] is %g\n", (long long)n, o,
                            (long long)r, (long long)j, (double)y[o][r * 3 + j]);
                    return 1;
                }
            }
    for (int o = 0; o < MODEL_NUM_OUTPUTS; o++)
        free(y[o]);
    free(ws);
    free(x);
    return 0;
}

int main(void) {
    return run(0) || run(1) || run(3);
}
