/* test_fuzz_regressions.c — inputs tools/fuzz.sh (libFuzzer on the whole compiler) found to
 * crash or to reach undefined behaviour, kept in tests/fuzz/regressions/: each must now be
 * refused with status 1 and the one-line message given here (and the unit tests also run under
 * ASan and UBSan in CI). */
#include "testutil.h"
#include <criterion/criterion.h>

#define REG ONNX2C_SOURCE_DIR "/tests/fuzz/regressions/"

static const struct {
    const char *file, *message;
} regressions[] = {
    /* a Resize scale of +inf: converted to an integer (undefined) while looking for p/q */
    {"resize_inf_scale.onnx", "scale inf is not a number in (0, 1e9]"},
    /* a Shape node without outputs: its rule wrote the shape of a missing value */
    {"shape_no_output.onnx", "output 0 is missing (it is required)"},
    /* dims whose product overflows int64 (counting a folded Reshape's elements): the
     * symbolic arithmetic itself refuses it, naming the Reshape */
    {"reshape_huge.onnx", "node '/Reshape' (Reshape): shape arithmetic overflows int64"},
    /* an attribute of the wrong type read while emitting (LRN's bias): the emitter's text
     * buffers leaked on that error path (ASan's leak check in CI) */
    {"lrn_bias_type_at_emit.onnx", "attribute 'bias' has the wrong type"},
};

Test(fuzz, regressions_refused_cleanly) {
    for (size_t i = 0; i < sizeof regressions / sizeof regressions[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", REG, regressions[i].file);
        tu_expect_error(path, O2C_EMODEL, regressions[i].message);
    }
}
