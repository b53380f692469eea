/* fuzz_compile.c — a libFuzzer target: the whole compiler (load, infer, lower, plan, emit) on
 * arbitrary bytes as a model file.  What CONTRACT.md §1 promises for any input: no crash, no
 * undefined behaviour, no leak (ASan, UBSan), a status of the contract, and on failure one
 * line of message.  Built by `cmake -DONNX2C_FUZZ=ON` with clang; run with tools/fuzz.sh. */
#include "onnx2c.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/onnx2c-fuzz-%d.onnx", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    Options opt;
    memset(&opt, 0, sizeof opt);
    opt.name = "model";
    opt.out_path = "model.c";
    Output out;
    memset(&out, 0, sizeof out);
    char err[1024];
    err[0] = 0;
    int st = onnx2c_compile(path, &opt, &out, err, sizeof err);
    if (st == O2C_OK) {
        if (!out.c_src || !out.h_src)
            abort();
        onnx2c_output_free(&out);
        return 0;
    }
    if (st != O2C_EMODEL && st != O2C_EIO)
        abort(); /* a status the contract does not have for a readable file */
    if (!err[0] || strchr(err, '\n'))
        abort(); /* no message, or more than one line */
    return 0;
}
