/* weights_main.c — a model whose weights are in a separate blob (onnx2c --weights), run both
 * ways the blob can reach it: linked into the program, and loaded from the file at run time.
 *
 *   onnx2c examples/tinynet.onnx -o tinynet_w.c --weights tinynet_w.bin
 *   cc -std=c99 -O2 -c tinynet_w.c
 *   cc -c tinynet_w.bin.S -I .            # links the blob in as tinynet_w_weights
 *   cc -std=c11 -O2 weights_main.c tinynet_w.o tinynet_w.bin.o -lm
 *   ./a.out tinynet_w.bin
 *
 * Both runs must give the same bytes; a corrupted copy of the blob is refused. */
#include "tinynet_w.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The blob file in memory aligned to 64 bytes (free it with free), or NULL. */
static void *load_blob(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    void *p = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (p = aligned_alloc(64, ((size_t)n + 63) / 64 * 64)) &&
        fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return p;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s BLOB\n", argv[0]);
        return 2;
    }
    size_t size = 0;
    unsigned char *loaded = load_blob(argv[1], &size);
    if (!loaded) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    /* once, after loading: header, size and checksum */
    int rc = tinynet_w_weights_check(loaded, size);
    int rc_linked = tinynet_w_weights_check(tinynet_w_weights, TINYNET_W_WEIGHTS_SIZE);
    printf("blob: %zu bytes, check %d (file), %d (linked)\n", size, rc, rc_linked);
    if (rc || rc_linked)
        return 1;

    int64_t dims[TINYNET_W_NUM_DIMS] = {[TINYNET_W_DIM_BATCH] = 2, [TINYNET_W_DIM_HEIGHT] = 48,
                                        [TINYNET_W_DIM_WIDTH] = 40};
    static float image[2 * 3 * 48 * 40], probs[2][2][4];
    for (size_t i = 0; i < sizeof image / sizeof *image; i++)
        image[i] = (float)((i * 7919u) % 255u) / 255.0f - 0.5f;
    size_t ws_bytes = tinynet_w_workspace_size(dims);
    void *ws = aligned_alloc(64, (ws_bytes + 63) / 64 * 64 + 64);
    const void *inputs[1] = {image};
    for (int k = 0; k < 2; k++) {
        void *outputs[1] = {probs[k]};
        rc = tinynet_w_run_w(dims, inputs, outputs, ws, k ? (const void *)loaded : tinynet_w_weights);
        printf("%s: run -> %d, probs[0] = %.4f %.4f %.4f %.4f\n", k ? "file" : "linked", rc,
               probs[k][0][0], probs[k][0][1], probs[k][0][2], probs[k][0][3]);
        if (rc)
            return 1;
    }
    if (memcmp(probs[0], probs[1], sizeof probs[0]) != 0) {
        printf("the two runs differ\n");
        return 1;
    }
    loaded[size / 2] ^= 1; /* a corrupted copy: refused, not run */
    rc = tinynet_w_weights_check(loaded, size);
    printf("corrupted blob: check %d (%s)\n", rc, tinynet_w_strerror(rc));
    free(loaded);
    free(ws);
    return rc == -8 ? 0 : 1;
}
