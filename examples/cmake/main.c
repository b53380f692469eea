/* main.c — runs the model onnx2c_add_model converted at build time (examples/cmake), and
 * checks its outputs against PyTorch's.
 *
 * tinynet.h comes from the build folder; TINYNET_WORKSPACE_MAX exists because CMakeLists.txt
 * gave every dim a --max bound, so the workspace is a static arena: no malloc. */
#include "tinynet.h"

#include <math.h>
#include <stdio.h>

/* Image b of a batch: a fixed pattern in [-8, 8) (the same formula as the reference's). */
static void make_images(float *x, int64_t batch, int64_t per_image) {
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < per_image; i++) {
            unsigned k = (unsigned)((i * 7919 + b * 104729) % 1021);
            x[b * per_image + i] = (float)(k / 1021.0 * 16.0 - 8.0);
        }
}

static _Alignas(64) unsigned char arena[TINYNET_WORKSPACE_MAX + 1];
static float images[4 * 3 * 64 * 64];
static float probs[4 * 4];

/* Runs at batch x height x width; 0 when every probability is within the contract's
 * tolerance of want (PyTorch, float64). */
static int run_at(int64_t batch, int64_t height, int64_t width, const float *want) {
    int64_t dims[TINYNET_NUM_DIMS];
    dims[TINYNET_DIM_BATCH] = batch;
    dims[TINYNET_DIM_HEIGHT] = height;
    dims[TINYNET_DIM_WIDTH] = width;
    int rc = tinynet_check(dims);
    if (rc == 0 && tinynet_workspace_size(dims) > sizeof arena)
        rc = -1;
    if (rc != 0) {
        printf("%lldx3x%lldx%lld: %s\n", (long long)batch, (long long)height, (long long)width,
               tinynet_strerror(rc));
        return 1;
    }
    make_images(images, batch, 3 * height * width);
    const void *inputs[TINYNET_NUM_INPUTS] = {images};
    void *outputs[TINYNET_NUM_OUTPUTS] = {probs};
    rc = tinynet_run(dims, inputs, outputs, arena);
    if (rc != 0) {
        printf("run: %s\n", tinynet_strerror(rc));
        return 1;
    }
    int bad = 0;
    for (int64_t i = 0; i < batch * 4; i++) {
        double tol = 1e-5 + 1e-3 * fabs(want[i]);
        bad += fabs(probs[i] - want[i]) > tol;
        printf("%s %.6f (want %.6f)%s", i % 4 ? "" : "  probs", probs[i], want[i],
               i % 4 == 3 ? "\n" : ",");
    }
    printf("%lldx3x%lldx%lld: %s\n", (long long)batch, (long long)height, (long long)width,
           bad ? "WRONG" : "ok");
    return bad != 0;
}

int main(void) {
    static const float want_2x32x32[] = {0.3362822f, 0.2232003f, 0.2234442f, 0.2170732f,
                                         0.3382967f, 0.2238037f, 0.2212472f, 0.2166524f};
    static const float want_1x48x40[] = {0.3475889f, 0.2208145f, 0.1949387f, 0.2366579f};
    int bad = run_at(2, 32, 32, want_2x32x32);
    bad |= run_at(1, 48, 40, want_1x48x40);
    /* above the --max bound: refused, not run */
    int64_t too_big[TINYNET_NUM_DIMS] = {1, 128, 32};
    if (tinynet_check(too_big) != -1)
        bad = 1;
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad;
}
