#include "onnx2c.h"
const OpDef ops_misc[] = {
    {NULL, NULL, NULL, NULL},
};
