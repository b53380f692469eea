/* norm.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_norm[] = {
    {NULL, NULL, NULL, NULL},
};
