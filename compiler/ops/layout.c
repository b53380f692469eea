/* layout.c — op family: (not yet written). */
#include "onnx2c.h"

const OpDef ops_layout[] = {
    {NULL, NULL, NULL, NULL},
};
