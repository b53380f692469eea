/* tinynet_main.c — calls the C that onnx2c generated from examples/tinynet.onnx.
 *
 *   onnx2c examples/tinynet.onnx -o tinynet.c
 *   cc -std=c99 -O2 tinynet_main.c tinynet.c -lm
 *
 * One generated file serves every batch, height and width: this program runs it at two sizes,
 * with the workspace the model asks for, and shows that impossible dims are refused. */
#include "tinynet.h"

#include <stdio.h>
#include <stdlib.h>

static int run_at(int64_t batch, int64_t height, int64_t width) {
    int64_t dims[TINYNET_NUM_DIMS];
    dims[TINYNET_DIM_BATCH] = batch;
    dims[TINYNET_DIM_HEIGHT] = height;
    dims[TINYNET_DIM_WIDTH] = width;
    int rc = tinynet_check(dims);
    if (rc != 0) {
        printf("dims %lldx3x%lldx%lld refused: %s\n", (long long)batch, (long long)height,
               (long long)width, tinynet_strerror(rc));
        return rc;
    }
    int64_t in_shape[4], out_shape[2];
    tinynet_input_shape(dims, 0, in_shape);
    tinynet_output_shape(dims, 0, out_shape);
    size_t n_in = (size_t)(in_shape[0] * in_shape[1] * in_shape[2] * in_shape[3]);
    size_t n_out = (size_t)(out_shape[0] * out_shape[1]);
    float *image = malloc(n_in * sizeof *image);
    float *probs = malloc(n_out * sizeof *probs);
    size_t ws_bytes = tinynet_workspace_size(dims);
    void *ws = ws_bytes ? aligned_alloc(64, (ws_bytes + 63) / 64 * 64) : NULL;
    for (size_t i = 0; i < n_in; i++) /* a deterministic test pattern */
        image[i] = (float)((i * 7919u) % 255u) / 255.0f - 0.5f;
    const void *inputs[1] = {image};
    void *outputs[1] = {probs};
    rc = tinynet_run(dims, inputs, outputs, ws);
    printf("batch %lld, image %lldx%lld: workspace %zu bytes, run -> %d\n", (long long)batch,
           (long long)height, (long long)width, ws_bytes, rc);
    for (int64_t b = 0; rc == 0 && b < out_shape[0]; b++) {
        printf("  probs[%lld] =", (long long)b);
        for (int64_t k = 0; k < out_shape[1]; k++)
            printf(" %.4f", probs[b * out_shape[1] + k]);
        printf("\n");
    }
    free(image);
    free(probs);
    free(ws);
    return rc;
}

int main(void) {
    int rc = run_at(1, 32, 32);
    rc |= run_at(2, 48, 40);
    /* a negative dim can never be right: the model says so instead of running */
    if (run_at(1, -4, 32) == 0)
        rc = 1;
    return rc == 0 ? 0 : 1;
}
