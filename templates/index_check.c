/* index_check.c - index data validated before a node writes anything: ONNX calls an index
 * outside [-dim, dim) an error (Gather, GatherElements), and NAME_run then returns -7
 * (O2C_RUN_EINDEX) with the outputs untouched.  T is the index type (int32_t or int64_t).
 * index_out_T is 1 when one of idx[0..n) lies outside [-dim, dim) (dim >= 0, so -dim does not
 * overflow; a dim of 0 has no valid index). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static int index_out_T(const T *idx, int64_t n, int64_t dim) {
    for (int64_t i = 0; i < n; i++) {
        const int64_t v = (int64_t)idx[i];
        if (v < -dim || v >= dim)
            return 1;
    }
    return 0;
}
