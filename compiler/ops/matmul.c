/* matmul.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_matmul[] = {
    {NULL, NULL, NULL, NULL},
};
