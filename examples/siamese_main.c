/* siamese_main.c — a Siamese tracker's correlation, exported from PyTorch with dynamic batch and
 * search size (tests/models/siamese_unfold: torch.nn.functional.unfold + matmul).
 *
 *   onnx2c tests/models/siamese_unfold/model.onnx -o siamese.c
 *   cc -std=c99 -O2 siamese_main.c siamese.c -lm
 *
 * The template z [B,8,4,4] slides over the search image x [B,8,H,W]; the response map is
 * [B,1,H-3,W-3].  One generated file runs at two search sizes, each checked against a direct
 * correlation computed here, and a search image smaller than the template is refused. */
#include "siamese.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define C 8
#define K 4

static float pattern(size_t i, unsigned salt) { return (float)((i * 2654435761u + salt) % 1000u) / 500.0f - 1.0f; }

static int run_at(int64_t b, int64_t h, int64_t w) {
    int64_t dims[SIAMESE_NUM_DIMS];
    dims[SIAMESE_DIM_B] = b;
    dims[SIAMESE_DIM_H] = h;
    dims[SIAMESE_DIM_W] = w;
    int rc = siamese_check(dims);
    if (rc != 0) {
        printf("search %lldx%lld: refused (%s)\n", (long long)h, (long long)w, siamese_strerror(rc));
        return rc;
    }
    int64_t oshape[4];
    siamese_output_shape(dims, 0, oshape);
    size_t nz = (size_t)(b * C * K * K), nx = (size_t)(b * C * h * w);
    size_t ny = (size_t)(oshape[0] * oshape[1] * oshape[2] * oshape[3]);
    float *z = malloc(nz * sizeof *z), *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y);
    for (size_t i = 0; i < nz; i++)
        z[i] = pattern(i, 17);
    for (size_t i = 0; i < nx; i++)
        x[i] = pattern(i, 5);
    size_t wsb = siamese_workspace_size(dims);
    void *ws = wsb ? aligned_alloc(64, (wsb + 63) / 64 * 64) : NULL;
    const void *in[2] = {z, x};
    void *out[1] = {y};
    rc = siamese_run(dims, in, out, ws);
    /* the same correlation, directly */
    double maxerr = 0;
    int64_t oh = h - K + 1, ow = w - K + 1;
    for (int64_t n = 0; rc == 0 && n < b; n++)
        for (int64_t i = 0; i < oh; i++)
            for (int64_t j = 0; j < ow; j++) {
                double acc = 0;
                for (int64_t c = 0; c < C; c++)
                    for (int64_t u = 0; u < K; u++)
                        for (int64_t v = 0; v < K; v++)
                            acc += (double)z[((n * C + c) * K + u) * K + v] *
                                   x[((n * C + c) * h + i + u) * w + j + v];
                double e = fabs(acc - y[(n * oh + i) * ow + j]);
                maxerr = e > maxerr ? e : maxerr;
            }
    printf("batch %lld, search %lldx%lld -> response %lldx%lld: run %d, max error %.2g\n", (long long)b,
           (long long)h, (long long)w, (long long)oshape[2], (long long)oshape[3], rc, maxerr);
    free(z);
    free(x);
    free(y);
    free(ws);
    return rc != 0 ? rc : maxerr < 1e-3 ? 0 : 1;
}

int main(void) {
    int rc = run_at(1, 22, 22);
    rc |= run_at(2, 16, 10);
    /* a search image smaller than the template: impossible, must be refused */
    if (run_at(1, 2, 22) == 0)
        rc = 1;
    return rc == 0 ? 0 : 1;
}
