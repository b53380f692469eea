/* reduce.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_reduce[] = {
    {NULL, NULL, NULL, NULL},
};
