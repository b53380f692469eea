/* modelgen.h — small ONNX models written from C, for tests that need many crafted models
 * (hostile names, hostile attributes) without committing a fixture for each.
 *
 * The protobuf wire format is written by hand (varints and length-delimited fields with the
 * field numbers of onnx.proto), so a test can also write what no exporter would: names with
 * any bytes, attributes at the int64 limits, dims named like generated identifiers.
 *
 *   MgGraph *g = mg_new(13);
 *   MgDim xd[] = {{"N", 0}, {NULL, 3}};
 *   mg_input(g, "x", MG_FLOAT, 2, xd);
 *   MgNode *n = mg_node(g, "Relu", "relu_0", 1, (const char *[]){"x"}, 1, (const char *[]){"y"});
 *   mg_output(g, "y", MG_FLOAT, -1, NULL);
 *   mg_write(g, path);          // writes the file and frees g
 *
 * Every function asserts with Criterion on failure, so it may only be called inside a Test(). */
#ifndef ONNX2C_MODELGEN_H
#define ONNX2C_MODELGEN_H

#include <stddef.h>
#include <stdint.h>

/* TensorProto.DataType */
enum { MG_FLOAT = 1, MG_UINT8 = 2, MG_INT8 = 3, MG_INT32 = 6, MG_INT64 = 7, MG_BOOL = 9, MG_DOUBLE = 11 };

/* One dim of a declared shape: a dim_param when param is non-NULL, else dim_value = value. */
typedef struct MgDim {
    const char *param;
    int64_t value;
} MgDim;

typedef struct MgGraph MgGraph;
typedef struct MgNode MgNode;

/* A model with one default-domain opset import and IR version 8. */
MgGraph *mg_new(int opset);
void mg_graph_name(MgGraph *g, const char *name);
/* Graph inputs, outputs and value_info; rank -1 writes no shape. */
void mg_input(MgGraph *g, const char *name, int dtype, int rank, const MgDim *dims);
void mg_output(MgGraph *g, const char *name, int dtype, int rank, const MgDim *dims);
void mg_value_info(MgGraph *g, const char *name, int dtype, int rank, const MgDim *dims);
/* An initializer holding n elements of raw little-endian data (of the MG_ type's size). */
void mg_init(MgGraph *g, const char *name, int dtype, int rank, const int64_t *dims,
             const void *data);
MgNode *mg_node(MgGraph *g, const char *op_type, const char *name, int nin,
                const char *const *in, int nout, const char *const *out);
void mg_attr_int(MgNode *n, const char *name, int64_t v);
void mg_attr_ints(MgNode *n, const char *name, int count, const int64_t *v);
void mg_attr_float(MgNode *n, const char *name, float v);
void mg_attr_str(MgNode *n, const char *name, const char *s);
/* Writes the model to path and frees g. */
void mg_write(MgGraph *g, const char *path);

#endif
