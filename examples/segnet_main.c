/* segnet_main.c — a fully-convolutional segmentation net exported from PyTorch with dynamic
 * batch, height and width (tests/models/segnet_dynamic): strided convolutions down to 1/8, a
 * classifier, and a bilinear resize back to the input size.
 *
 *   onnx2c tests/models/segnet_dynamic/model.onnx -o segnet.c
 *   cc -std=c99 -O2 segnet_main.c segnet.c -lm
 *
 * One generated file serves every size: the output always has the input's height and width.
 * An empty image is refused by segnet_check before anything runs. */
#include "segnet.h"

#include <stdio.h>
#include <stdlib.h>

static int run_at(int64_t n, int64_t h, int64_t w) {
    int64_t dims[SEGNET_NUM_DIMS];
    dims[SEGNET_DIM_N] = n;
    dims[SEGNET_DIM_H] = h;
    dims[SEGNET_DIM_W] = w;
    int rc = segnet_check(dims);
    if (rc != 0) {
        printf("image %lldx%lld: refused (%s)\n", (long long)h, (long long)w, segnet_strerror(rc));
        return rc;
    }
    int64_t ishape[4], oshape[4];
    segnet_input_shape(dims, 0, ishape);
    segnet_output_shape(dims, 0, oshape);
    size_t ni = (size_t)(ishape[0] * ishape[1] * ishape[2] * ishape[3]);
    size_t no = (size_t)(oshape[0] * oshape[1] * oshape[2] * oshape[3]);
    float *img = malloc(ni * sizeof *img), *logits = malloc(no * sizeof *logits);
    for (size_t i = 0; i < ni; i++)
        img[i] = (float)((i * 40503u) % 256u) / 128.0f - 1.0f;
    size_t wsb = segnet_workspace_size(dims);
    void *ws = wsb ? aligned_alloc(64, (wsb + 63) / 64 * 64) : NULL;
    const void *in[1] = {img};
    void *out[1] = {logits};
    rc = segnet_run(dims, in, out, ws);
    /* class histogram of the per-pixel argmax */
    long hist[16] = {0};
    int64_t classes = oshape[1], plane = oshape[2] * oshape[3];
    for (int64_t b = 0; rc == 0 && b < oshape[0]; b++)
        for (int64_t p = 0; p < plane; p++) {
            int best = 0;
            for (int64_t k = 1; k < classes && k < 16; k++)
                if (logits[(b * classes + k) * plane + p] > logits[(b * classes + best) * plane + p])
                    best = (int)k;
            hist[best]++;
        }
    printf("batch %lld, image %lldx%lld -> logits [%lld,%lld,%lld,%lld], workspace %zu bytes, run %d; "
           "pixels per class:",
           (long long)n, (long long)h, (long long)w, (long long)oshape[0], (long long)oshape[1],
           (long long)oshape[2], (long long)oshape[3], wsb, rc);
    for (int64_t k = 0; k < classes && k < 16; k++)
        printf(" %ld", hist[k]);
    printf("\n");
    free(img);
    free(logits);
    free(ws);
    return rc != 0 ? rc : (oshape[2] == h && oshape[3] == w) ? 0 : 1;
}

int main(void) {
    int rc = run_at(1, 64, 64);
    rc |= run_at(2, 48, 40);
    if (run_at(1, 0, 64) == 0) /* an empty image */
        rc = 1;
    return rc == 0 ? 0 : 1;
}
