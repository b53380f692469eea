/* runner.c — a generic bare-metal runner for one generated model (tools/embedded.sh).
 *
 * Build it with the generated OUT.c and the Cortex-M start-up (embedded/startup.c):
 *   -DMODEL_HEADER='"net.h"'  the generated header            (default "net.h")
 *   -DMODEL_NAME=net          the C prefix (onnx2c --name)    (default net)
 *   -DMODEL_UNAME=NET         the same in upper case          (default NET)
 *   -DRUNNER_WS_BYTES=N       the static workspace arena      (default UNAME_WORKSPACE_MAX, which
 *                             the header defines when every dim is fixed or has a --max bound)
 *   -DRUNNER_IO_BYTES=N       the static buffer for inputs and outputs, each rounded up to 64
 *   -DRUNNER_REPEAT=N         run the model N times on the same inputs (default 1); builds that
 *                             differ only in N run the same code (N is a volatile word of data)
 *                             and the same file I/O, so the difference of their executed
 *                             instruction counts (tools/insn-count) is N2 - N1 inferences
 *
 * Through semihosting, relative to the host's working directory, it reads run.bin (int64:
 * ndims, dims..., nin, input bytes..., nout, output bytes...) and in_K.raw, runs the model at
 * those dims in the static arena, writes out_K.raw and returns 0 (QEMU's exit status).  No
 * malloc: everything the model touches is static.  It is ISO C99.  A model with data dims
 * (CONTRACT §2b): their entries start at -1, an output's bytes in run.bin are those of its
 * bound, and out_K.raw holds its actual size after the run. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef MODEL_HEADER
#define MODEL_HEADER "net.h"
#endif
#ifndef MODEL_NAME
#define MODEL_NAME net
#endif
#ifndef MODEL_UNAME
#define MODEL_UNAME NET
#endif
#include MODEL_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define M(x) CAT(MODEL_NAME, x)   /* M(_run) -> net_run */
#define U(x) CAT(MODEL_UNAME, x)  /* U(_NUM_DIMS) -> NET_NUM_DIMS */

#ifndef RUNNER_WS_BYTES
#define RUNNER_WS_BYTES U(_WORKSPACE_MAX)
#endif
#ifndef RUNNER_IO_BYTES
#define RUNNER_IO_BYTES 65536
#endif
#ifndef RUNNER_REPEAT
#define RUNNER_REPEAT 1
#endif
#define MAXT 64

#if defined(__GNUC__)
#define ALIGN64 __attribute__((aligned(64)))
#else
#define ALIGN64
#endif

static unsigned char arena[RUNNER_WS_BYTES + 64] ALIGN64; /* + 64: never an empty array */
static unsigned char io[RUNNER_IO_BYTES + 64] ALIGN64;
static volatile int repeat = RUNNER_REPEAT;

enum { E_OK, E_FILE, E_HEADER, E_CHECK, E_ARENA, E_IO, E_SHAPE, E_RUN, E_WRITE };

static int fail(int code, const char *what) {
    printf("runner: %s\n", what);
    return code;
}

static int read_exact(const char *path, void *p, size_t n) {
    FILE *f = fopen(path, "rb");
    size_t got;
    if (!f)
        return -1;
    got = fread(p, 1, n, f);
    fclose(f);
    return got == n ? 0 : -1;
}

int main(void) {
    int64_t hdr[3 + 64 + 2 * MAXT];
    int64_t dims[U(_NUM_DIMS) + U(_NUM_DATA_DIMS) + 1];
    const void *inputs[U(_NUM_INPUTS) + 1];
    void *outputs[U(_NUM_OUTPUTS) + 1];
    int64_t shape[16];
    size_t used = 0, ws;
    char path[32];
    int i, k = 0, rc = 0, nd, nin, nout, r;
    FILE *f = fopen("run.bin", "rb");
    size_t nh;

    if (!f)
        return fail(E_FILE, "cannot open run.bin");
    nh = fread(hdr, sizeof(int64_t), sizeof hdr / sizeof hdr[0], f);
    fclose(f);
    nd = nh > 0 ? (int)hdr[k++] : -1;
    if (nd != U(_NUM_DIMS) || nh < (size_t)nd + 2)
        return fail(E_HEADER, "run.bin: wrong number of dims");
    for (i = 0; i < nd; i++)
        dims[i] = hdr[k++];
    for (i = nd; i < nd + U(_NUM_DATA_DIMS); i++)
        dims[i] = -1;
    nin = (int)hdr[k++];
    if (nin != U(_NUM_INPUTS) || nh < (size_t)(k + nin + 1))
        return fail(E_HEADER, "run.bin: wrong number of inputs");
    k += nin;
    nout = (int)hdr[k++];
    if (nout != U(_NUM_OUTPUTS) || nh < (size_t)(k + nout))
        return fail(E_HEADER, "run.bin: wrong number of outputs");
    k -= nin + 1;

    rc = M(_check)(dims);
    if (rc != 0) {
        printf("runner: check: %s\n", M(_strerror)(rc));
        return E_CHECK;
    }
    ws = M(_workspace_size)(dims);
    if (ws > RUNNER_WS_BYTES)
        return fail(E_ARENA, "the workspace does not fit the static arena");

    for (i = 0; i < nin + nout; i++) {
        int out = i >= nin, idx = out ? i - nin : i;
        size_t bytes = (size_t)hdr[k + i + (out ? 1 : 0)], n = 1, es;
        int r = out ? M(_output_shape)(dims, idx, shape) : M(_input_shape)(dims, idx, shape), d;
        void *p = io + used;
        if (r < 0)
            return fail(E_SHAPE, "a shape function failed");
        for (d = 0; d < r; d++)
            n *= (size_t)shape[d];
        es = n ? bytes / n : 0;
        if (n ? (bytes % n != 0 || !(es == 1 || es == 2 || es == 4 || es == 8)) : bytes != 0)
            return fail(E_SHAPE, "a tensor's size does not match the model's shape");
        if (used + bytes > RUNNER_IO_BYTES)
            return fail(E_IO, "the inputs and outputs do not fit the static I/O buffer");
        used += (bytes + 63) / 64 * 64;
        if (out) {
            memset(p, 0xAB, bytes); /* garbage, so an unwritten output cannot pass */
            outputs[idx] = p;
        } else {
            sprintf(path, "in_%d.raw", idx);
            if (read_exact(path, p, bytes))
                return fail(E_FILE, "cannot read an input file");
            inputs[idx] = p;
        }
    }

    for (r = 0; r < repeat && rc == 0; r++)
        rc = M(_run)(dims, inputs, outputs, arena);
    if (rc != 0) {
        printf("runner: run: %s\n", M(_strerror)(rc));
        return E_RUN;
    }
    for (i = 0; i < nout; i++) {
        size_t bytes = (size_t)hdr[k + nin + 1 + i];
        if (U(_NUM_DATA_DIMS) > 0) { /* the actual size: the bound's bytes per element */
            size_t nb = 1, na = 1;
            int64_t bd[U(_NUM_DIMS) + U(_NUM_DATA_DIMS) + 1];
            int d;
            for (d = 0; d < nd + U(_NUM_DATA_DIMS); d++)
                bd[d] = d < nd ? dims[d] : -1;
            r = M(_output_shape)(bd, i, shape);
            for (d = 0; d < r; d++)
                nb *= (size_t)shape[d];
            r = M(_output_shape)(dims, i, shape);
            for (d = 0; d < r; d++)
                na *= (size_t)shape[d];
            bytes = nb ? bytes / nb * na : 0;
        }
        sprintf(path, "out_%d.raw", i);
        f = fopen(path, "wb");
        if (!f || fwrite(outputs[i], 1, bytes, f) != bytes)
            return fail(E_WRITE, "cannot write an output file");
        fclose(f);
    }
    printf("runner: ok, workspace %lu of %lu bytes, I/O %lu bytes\n", (unsigned long)ws,
           (unsigned long)RUNNER_WS_BYTES, (unsigned long)used);
    return E_OK;
}
