/* pool_plan.h — the geometry of a pooling node, shared by compiler/ops/pool.c (the float and
 * integer pools) and compiler/ops/quant_ms.c (QLinearAveragePool, QLinearGlobalAveragePool).
 * The rules are in pool.c's file comment. */
#ifndef ONNX2C_POOL_PLAN_H
#define ONNX2C_POOL_PLAN_H

#include "onnx2c.h"

typedef enum {
    POOL_MAX, /* MaxPool, GlobalMaxPool */
    POOL_AVG, /* AveragePool, GlobalAveragePool */
    POOL_LP,  /* LpPool, GlobalLpPool */
} PoolKind;

/* What emit needs: the pool as three spatial axes (leading axes of size 1 when fewer). */
typedef struct Pool {
    PoolKind kind;
    Sym *nc;                   /* N*C: independent planes */
    Sym *in[3], *out[3];       /* spatial sizes */
    Sym *k[3], *st[3], *dl[3]; /* kernel, strides, dilations */
    Sym *pad[6];               /* begin pads of the three axes, then end pads */
    int64_t col_major;         /* MaxPool storage_order */
    int64_t count_include_pad; /* AveragePool */
    double p;                  /* LpPool */
} Pool;

/* The window of node n (attributes kernel_shape, strides, dilations, pads, auto_pad,
 * ceil_mode and the kind's own) over x [N, C, D1..Dk] (k <= 3, rank checked by the caller):
 * records the fit constraints and writes the output shape (rank of x) into shape. */
Pool *pool_geometry(Compiler *c, Node *n, Value *x, PoolKind kind, Sym **shape);
/* The global pool: one window over all spatial axes; *shape is the output [N, C, 1, ...]. */
Pool *pool_global_geometry(Compiler *c, Node *n, Value *x, PoolKind kind, Sym ***shape);

#endif
