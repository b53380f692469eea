/* probe.c — asks a generated model (prefix "model", model.h beside it) what it says about many
 * dims vectors, for tests/unit/test_overflow.c; built for the host (ASan + UBSan) and for a
 * Cortex-M4 run on QEMU (32-bit size_t; dims.txt and out.txt through semihosting).
 *
 * dims.txt: "V D" then V lines "MODE d0 ... d<D-1>"; MODE c (check only) or r (also run the
 * model when it accepts the dims: inputs and outputs malloc'd at their exact size, float).
 * out.txt: a line per vector: "rc workspace_size" then, for each input and each output, its
 * rank and shape (or the negative code), then for MODE r the code model_run returned.
 * Built with -DPROBE_NO_RUN (the Cortex-M4: no heap for the buffers) MODE r is MODE c.
 * Exit status 0, or 2 when a file cannot be read or written.  ISO C99. */
#include "model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXD 16

static void put_shape(FILE *out, int r, const int64_t *shape) {
    fprintf(out, " %d", r);
    for (int k = 0; k < r; k++)
        fprintf(out, " %lld", (long long)shape[k]);
}

#ifndef PROBE_NO_RUN
/* Runs the model at dims: every buffer malloc'd at its exact size (AddressSanitizer sees any
 * access outside it), inputs filled with a pattern.  Returns model_run's code, or 1 when a
 * buffer cannot be had. */
static int run(const int64_t *dims) {
    void *bufs[MODEL_NUM_INPUTS + MODEL_NUM_OUTPUTS + 1] = {0};
    const void *ins[MODEL_NUM_INPUTS + 1];
    void *outs[MODEL_NUM_OUTPUTS + 1];
    int rc = 1, nb = 0;
    for (int i = 0; i < MODEL_NUM_INPUTS + MODEL_NUM_OUTPUTS; i++) {
        int64_t shape[MAXD], n = 1;
        int in = i < MODEL_NUM_INPUTS;
        int r = in ? model_input_shape(dims, i, shape) : model_output_shape(dims, i - MODEL_NUM_INPUTS, shape);
        for (int k = 0; k < r; k++)
            n *= shape[k];
        float *p = malloc(n > 0 ? (size_t)n * sizeof(float) : 1);
        if (!p)
            goto done;
        bufs[nb++] = p;
        for (int64_t k = 0; in && k < n; k++)
            p[k] = (float)((k * 37) % 19) * 0.125f - 1.0f;
        if (in)
            ins[i] = p;
        else
            outs[i - MODEL_NUM_INPUTS] = p;
    }
    size_t wsz = model_workspace_size(dims);
    void *ws = wsz ? malloc(wsz) : NULL;
    if (wsz && !ws)
        goto done;
    rc = model_run(dims, ins, outs, ws);
    free(ws);
done:
    for (int i = 0; i < nb; i++)
        free(bufs[i]);
    return rc;
}
#endif

int main(void) {
    FILE *in = fopen("dims.txt", "r"), *out = fopen("out.txt", "w");
    long nvec;
    int nd;
    if (!in || !out || fscanf(in, "%ld %d", &nvec, &nd) != 2 || nd > MAXD)
        return 2;
    for (long v = 0; v < nvec; v++) {
        char mode[4];
        long long d[MAXD];
        int64_t dims[MAXD + 1], shape[MAXD];
        if (fscanf(in, "%3s", mode) != 1)
            return 2;
        for (int k = 0; k < nd; k++) {
            if (fscanf(in, "%lld", &d[k]) != 1)
                return 2;
            dims[k] = d[k];
        }
        int rc = model_check(dims);
        fprintf(out, "%d %llu", rc, (unsigned long long)model_workspace_size(dims));
        for (int i = 0; i < MODEL_NUM_INPUTS; i++)
            put_shape(out, model_input_shape(dims, i, shape), shape);
        for (int i = 0; i < MODEL_NUM_OUTPUTS; i++)
            put_shape(out, model_output_shape(dims, i, shape), shape);
#ifndef PROBE_NO_RUN
        if (mode[0] == 'r' && rc == 0)
            fprintf(out, " %d", run(dims));
#endif
        fputc('\n', out);
    }
    fclose(in);
    return fclose(out) ? 2 : 0;
}
