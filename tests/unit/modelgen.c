/* modelgen.c — see modelgen.h.  Field numbers are those of onnx.proto (and of
 * compiler/onnx_subset.proto): ModelProto ir_version 1, graph 7, opset_import 8;
 * OperatorSetIdProto domain 1, version 2; GraphProto node 1, name 2, initializer 5, input 11,
 * output 12, value_info 13; NodeProto input 1, output 2, name 3, op_type 4, attribute 5;
 * AttributeProto name 1, f 2, i 3, s 4, floats 7, ints 8, type 20; ValueInfoProto name 1,
 * type 2; TypeProto tensor_type 1; TypeProto.Tensor elem_type 1, shape 2; TensorShapeProto
 * dim 1; Dimension dim_value 1, dim_param 2; TensorProto dims 1, data_type 2, name 8,
 * raw_data 9. */
#include "modelgen.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Pb {
    unsigned char *p;
    size_t n, cap;
} Pb;

static void pb_raw(Pb *b, const void *data, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        cr_assert_not_null(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void pb_uvarint(Pb *b, uint64_t v) {
    unsigned char tmp[10];
    int k = 0;
    do {
        tmp[k] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            tmp[k] |= 0x80;
        k++;
    } while (v);
    pb_raw(b, tmp, (size_t)k);
}

static void pb_varint(Pb *b, int field, int64_t v) {
    pb_uvarint(b, (uint64_t)field << 3);
    pb_uvarint(b, (uint64_t)v);
}

static void pb_bytes(Pb *b, int field, const void *data, size_t n) {
    pb_uvarint(b, ((uint64_t)field << 3) | 2);
    pb_uvarint(b, n);
    pb_raw(b, data, n);
}

static void pb_str(Pb *b, int field, const char *s) { pb_bytes(b, field, s, strlen(s)); }

/* Appends sub as a length-delimited field of b and frees sub. */
static void pb_msg(Pb *b, int field, Pb *sub) {
    pb_bytes(b, field, sub->p, sub->n);
    free(sub->p);
    memset(sub, 0, sizeof *sub);
}

struct MgNode {
    Pb pb;
    MgNode *next;
};

struct MgGraph {
    int opset;
    Pb graph; /* name, initializers, inputs, outputs, value_info */
    MgNode *first, *last;
};

MgGraph *mg_new(int opset) {
    MgGraph *g = calloc(1, sizeof *g);
    cr_assert_not_null(g);
    g->opset = opset;
    return g;
}

void mg_graph_name(MgGraph *g, const char *name) { pb_str(&g->graph, 2, name); }

static void value_info(MgGraph *g, int field, const char *name, int dtype, int rank,
                       const MgDim *dims) {
    Pb vi = {0}, tp = {0}, tt = {0}, shape = {0};
    pb_str(&vi, 1, name);
    pb_varint(&tt, 1, dtype);
    if (rank >= 0) {
        for (int i = 0; i < rank; i++) {
            Pb d = {0};
            if (dims[i].param)
                pb_str(&d, 2, dims[i].param);
            else
                pb_varint(&d, 1, dims[i].value);
            pb_msg(&shape, 1, &d);
        }
        if (shape.n == 0) /* a scalar: an empty shape message */
            pb_bytes(&tt, 2, "", 0);
        else
            pb_msg(&tt, 2, &shape);
    }
    pb_msg(&tp, 1, &tt);
    pb_msg(&vi, 2, &tp);
    pb_msg(&g->graph, field, &vi);
}

void mg_input(MgGraph *g, const char *name, int dtype, int rank, const MgDim *dims) {
    value_info(g, 11, name, dtype, rank, dims);
}

void mg_output(MgGraph *g, const char *name, int dtype, int rank, const MgDim *dims) {
    value_info(g, 12, name, dtype, rank, dims);
}

void mg_value_info(MgGraph *g, const char *name, int dtype, int rank, const MgDim *dims) {
    value_info(g, 13, name, dtype, rank, dims);
}

void mg_init(MgGraph *g, const char *name, int dtype, int rank, const int64_t *dims,
             const void *data) {
    Pb t = {0};
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        pb_varint(&t, 1, dims[i]);
        n *= dims[i];
    }
    pb_varint(&t, 2, dtype);
    pb_str(&t, 8, name);
    size_t es = dtype == MG_INT64 || dtype == MG_DOUBLE ? 8
                : dtype == MG_UINT8 || dtype == MG_INT8 || dtype == MG_BOOL ? 1 : 4;
    pb_bytes(&t, 9, data, (size_t)n * es);
    pb_msg(&g->graph, 5, &t);
}

MgNode *mg_node(MgGraph *g, const char *op_type, const char *name, int nin,
                const char *const *in, int nout, const char *const *out) {
    MgNode *n = calloc(1, sizeof *n);
    cr_assert_not_null(n);
    for (int i = 0; i < nin; i++)
        pb_str(&n->pb, 1, in[i]);
    for (int i = 0; i < nout; i++)
        pb_str(&n->pb, 2, out[i]);
    if (name)
        pb_str(&n->pb, 3, name);
    pb_str(&n->pb, 4, op_type);
    if (g->last)
        g->last->next = n;
    else
        g->first = n;
    g->last = n;
    return n;
}

/* Attribute types of onnx.proto's AttributeProto.AttributeType. */
enum { AT_FLOAT = 1, AT_INT = 2, AT_STRING = 3, AT_INTS = 7 };

void mg_attr_int(MgNode *n, const char *name, int64_t v) {
    Pb a = {0};
    pb_str(&a, 1, name);
    pb_varint(&a, 3, v);
    pb_varint(&a, 20, AT_INT);
    pb_msg(&n->pb, 5, &a);
}

void mg_attr_ints(MgNode *n, const char *name, int count, const int64_t *v) {
    Pb a = {0};
    pb_str(&a, 1, name);
    for (int i = 0; i < count; i++)
        pb_varint(&a, 8, v[i]);
    pb_varint(&a, 20, AT_INTS);
    pb_msg(&n->pb, 5, &a);
}

void mg_attr_float(MgNode *n, const char *name, float v) {
    Pb a = {0};
    pb_str(&a, 1, name);
    unsigned char f[5] = {(2 << 3) | 5};
    memcpy(f + 1, &v, 4); /* fixed32, little-endian on the hosts we test on */
    pb_raw(&a, f, 5);
    pb_varint(&a, 20, AT_FLOAT);
    pb_msg(&n->pb, 5, &a);
}

void mg_attr_str(MgNode *n, const char *name, const char *s) {
    Pb a = {0};
    pb_str(&a, 1, name);
    pb_str(&a, 4, s);
    pb_varint(&a, 20, AT_STRING);
    pb_msg(&n->pb, 5, &a);
}

void mg_write(MgGraph *g, const char *path) {
    Pb graph = {0}, model = {0}, opset = {0};
    for (MgNode *n = g->first, *next; n; n = next) {
        next = n->next;
        pb_msg(&graph, 1, &n->pb);
        free(n);
    }
    pb_raw(&graph, g->graph.p, g->graph.n);
    free(g->graph.p);
    pb_varint(&model, 1, 8);
    pb_msg(&model, 7, &graph);
    pb_str(&opset, 1, "");
    pb_varint(&opset, 2, g->opset);
    pb_msg(&model, 8, &opset);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(model.p, 1, model.n, f), model.n);
    cr_assert_eq(fclose(f), 0);
    free(model.p);
    free(g);
}
