/* nms_main.c — a detector's post-processing with a size decided by the data: torchvision's
 * nms exported from PyTorch with a dynamic box count N (tests/models/survey_nms_post): scores
 * from logits, NonMaxSuppression at IoU 0.45, the kept boxes and scores gathered.
 *
 *   onnx2c tests/models/survey_nms_post/model.onnx -o nms.c
 *   cc -std=c99 -O2 nms_main.c nms.c -lm
 *
 * How many boxes are kept is a data dim (CONTRACT §2b): dims has NMS_NUM_DIMS input dims and
 * then NMS_NUM_DATA_DIMS entries the caller sets to -1.  Before the run nms_output_shape gives
 * each output's bound (here N boxes: allocate that); nms_run writes the kept count into dims,
 * and nms_output_shape then gives the actual shapes. */
#include "nms.h"

#include <stdio.h>
#include <stdlib.h>

static int run_at(int64_t n, unsigned seed) {
    int64_t dims[NMS_NUM_DIMS + NMS_NUM_DATA_DIMS];
    dims[NMS_DIM_N] = n;
    for (int d = NMS_NUM_DIMS; d < NMS_NUM_DIMS + NMS_NUM_DATA_DIMS; d++)
        dims[d] = -1;
    int rc = nms_check(dims);
    if (rc != 0) {
        printf("%lld boxes: refused (%s)\n", (long long)n, nms_strerror(rc));
        return rc;
    }
    int64_t bound[2], got[2];
    nms_output_shape(dims, 0, bound); /* kept boxes: [bound, 4] before the run */
    float *boxes = malloc((size_t)n * 4 * sizeof *boxes), *logits = malloc((size_t)n * sizeof *logits);
    float *kept = malloc((size_t)(bound[0] * bound[1] + 1) * sizeof *kept);
    float *kscores = malloc((size_t)(bound[0] + 1) * sizeof *kscores);
    int64_t *keep = malloc((size_t)(bound[0] + 1) * sizeof *keep);
    srand(seed);
    for (int64_t i = 0; i < n; i++) { /* boxes around a few centres: many overlap */
        float cx = (float)(rand() % 4) * 3.0f + (float)(rand() % 100) / 100.0f;
        float cy = (float)(rand() % 3) * 3.0f + (float)(rand() % 100) / 100.0f;
        float w = 1.0f + (float)(rand() % 100) / 50.0f, h = 1.0f + (float)(rand() % 100) / 50.0f;
        boxes[i * 4 + 0] = cx - w / 2;
        boxes[i * 4 + 1] = cy - h / 2;
        boxes[i * 4 + 2] = cx + w / 2;
        boxes[i * 4 + 3] = cy + h / 2;
        logits[i] = (float)(rand() % 600) / 100.0f - 3.0f;
    }
    size_t wsb = nms_workspace_size(dims);
    void *ws = wsb ? aligned_alloc(64, (wsb + 63) / 64 * 64) : NULL;
    const void *in[2] = {boxes, logits};
    void *out[3] = {kept, kscores, keep};
    rc = nms_run(dims, in, out, ws);
    if (rc == 0) {
        nms_output_shape(dims, 0, got);
        printf("%lld boxes -> %lld kept (bound %lld), workspace %zu bytes; best: box %lld, "
               "score %.3f\n",
               (long long)n, (long long)got[0], (long long)bound[0], wsb,
               got[0] ? (long long)keep[0] : -1LL, got[0] ? kscores[0] : 0.0f);
        for (int64_t k = 1; k < got[0]; k++) /* by score, highest first */
            if (kscores[k] > kscores[k - 1])
                rc = 1;
        if (got[0] < 1 || got[0] > n)
            rc = 1;
    } else
        printf("%lld boxes: run %d (%s)\n", (long long)n, rc, nms_strerror(rc));
    free(boxes);
    free(logits);
    free(kept);
    free(kscores);
    free(keep);
    free(ws);
    return rc;
}

int main(void) {
    int rc = run_at(20, 1);
    rc |= run_at(300, 2);
    return rc == 0 ? 0 : 1;
}
