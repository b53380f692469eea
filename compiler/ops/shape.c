/* shape.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_shape[] = {
    {NULL, NULL, NULL, NULL},
};
