/* elementwise.c — op family: elementwise math with numpy broadcasting.
 *
 * ONNX: Add, Sub, Mul, Div (opset 7+: multidirectional broadcasting), Relu, ...
 * Shapes: the broadcast of the inputs.  Folding: integer inputs known at compile time (shape
 * arithmetic such as Shape -> Gather -> Mul) give known outputs as Syms.
 * Code: one loop nest per node through emit_elementwise. */
#include "onnx2c.h"
#include <string.h>

/* ---- shared rules */

/* Output shape = broadcast of all present inputs; dtype = first input's. */
static void infer_broadcast_all(Compiler *c, Node *n, DType out_type) {
    Value *a = infer_in(c, n, 0);
    int r = a->rank;
    Sym **shape = arena_alloc(c->arena, sizeof(Sym *) * 16);
    for (int i = 0; i < r; i++)
        shape[i] = a->shape[i];
    for (int k = 1; k < n->nin; k++) {
        Value *b = n->in[k];
        if (!b)
            continue;
        Sym *tmp[16];
        r = infer_broadcast(c, n, r, shape, b->rank, b->shape, tmp);
        for (int i = 0; i < r; i++)
            shape[i] = tmp[i];
    }
    ir_set_shape(c, n->out[0], out_type == DT_UNDEFINED ? a->dtype : out_type, r, shape);
}

static void require_same_types(Compiler *c, Node *n) {
    for (int k = 1; k < n->nin; k++)
        if (n->in[k] && n->in[k]->dtype != n->in[0]->dtype)
            o2c_error(c, n, "input %d has type %s but input 0 has type %s", k,
                      dtype_name(n->in[k]->dtype), dtype_name(n->in[0]->dtype));
}

/* Index of output element i in an input of shape `in` broadcast to `out` (constant shapes). */
static int64_t bcast_index(const Value *out, const Value *in, int64_t i) {
    int64_t idx = 0, stride = 1;
    for (int d = out->rank - 1; d >= 0; d--) {
        int64_t od, id = 1;
        sym_get_const(out->shape[d], &od);
        int k = d - (out->rank - in->rank);
        if (k >= 0)
            sym_get_const(in->shape[k], &id);
        int64_t coord = i % od;
        i /= od;
        if (k >= 0) {
            idx += (id == 1 ? 0 : coord) * stride;
            stride *= id;
        }
    }
    return idx;
}

typedef Sym *(*SymBinary)(SymCtx *, Sym *, Sym *);

/* Folds a binary op over known integer inputs (Syms), when the output size is constant. */
static void fold_binary(Compiler *c, Node *n, SymBinary f) {
    Value *a = n->in[0], *b = n->in[1], *y = n->out[0];
    if (!dtype_is_int(y->dtype) || !f)
        return;
    Sym **ka = ir_known_ints(c, a), **kb = ir_known_ints(c, b);
    int64_t len = ir_known_len(y);
    if (!ka || !kb || len < 0 || len > 4096)
        return;
    y->kv = arena_alloc(c->arena, sizeof(Sym *) * (size_t)(len ? len : 1));
    for (int64_t i = 0; i < len; i++)
        y->kv[i] = f(c->sym, ka[bcast_index(y, a, i)], kb[bcast_index(y, b, i)]);
}

/* ---- binary arithmetic */

static Sym *fold_div(SymCtx *s, Sym *a, Sym *b) {
    /* ONNX integer Div truncates toward zero; shape values are non-negative, where it is floor */
    return sym_floordiv(s, a, b);
}

static const struct {
    const char *name;
    const char *expr;
    SymBinary fold;
} binary_ops[] = {
    {"Add", "$0 + $1", sym_add},
    {"Sub", "$0 - $1", sym_sub},
    {"Mul", "$0 * $1", sym_mul},
    {"Div", "$0 / $1", fold_div},
};

static int binary_index(const Node *n) {
    for (size_t i = 0; i < sizeof binary_ops / sizeof *binary_ops; i++)
        if (!strcmp(binary_ops[i].name, n->op_type))
            return (int)i;
    return -1;
}

static void infer_binary(Compiler *c, Node *n) {
    infer_require_inputs(c, n, 2, 2);
    require_same_types(c, n);
    infer_broadcast_all(c, n, DT_UNDEFINED);
    fold_binary(c, n, binary_ops[binary_index(n)].fold);
}

static void emit_binary(Compiler *c, Emit *e, Node *n) {
    (void)c;
    emit_elementwise(e, n, n->out[0], 2, n->in, binary_ops[binary_index(n)].expr);
}

/* ---- unary */

static void infer_unary(Compiler *c, Node *n) {
    infer_require_inputs(c, n, 1, 1);
    infer_broadcast_all(c, n, DT_UNDEFINED);
}

static void emit_relu(Compiler *c, Emit *e, Node *n) {
    (void)c;
    emit_elementwise(e, n, n->out[0], 1, n->in, "$0 > 0 ? $0 : 0");
}

const OpDef ops_elementwise[] = {
    {"Add", NULL, infer_binary, emit_binary},
    {"Sub", NULL, infer_binary, emit_binary},
    {"Mul", NULL, infer_binary, emit_binary},
    {"Div", NULL, infer_binary, emit_binary},
    {"Relu", NULL, infer_unary, emit_relu},
    {NULL, NULL, NULL, NULL},
};
