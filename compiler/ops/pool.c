/* pool.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_pool[] = {
    {NULL, NULL, NULL, NULL},
};
