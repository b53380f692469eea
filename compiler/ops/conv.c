/* conv.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_conv[] = {
    {NULL, NULL, NULL, NULL},
};
