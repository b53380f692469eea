/* softmax.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_softmax[] = {
    {NULL, NULL, NULL, NULL},
};
