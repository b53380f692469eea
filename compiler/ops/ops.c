/* ops.c — the one table of ops, built from compiler/ops/optable.h (one row an op: its facts
 * and its functions, which live in the op's family file, compiler/ops/FAMILY.c). */
#include "onnx2c.h"
#include <string.h>

#define OP(name, domain, family, since, in_min, in_max, infer, emit, variant)                     \
    void infer_##infer(Compiler *c, Node *n);                                                      \
    void emit_##emit(Compiler *c, Emit *e, Node *n);
#define OP_KNOWN(name, domain, family, since, in_min, in_max, infer, variant)                      \
    void infer_##infer(Compiler *c, Node *n);
#include "optable.h"
#undef OP
#undef OP_KNOWN

static const OpDef table[] = {
#define OP(name, domain, family, since, in_min, in_max, infer, emit, variant)                     \
    {#name, domain, #family, since, in_min, in_max, infer_##infer, emit_##emit, variant},
#define OP_KNOWN(name, domain, family, since, in_min, in_max, infer, variant)                      \
    {#name, domain, #family, since, in_min, in_max, infer_##infer, NULL, variant},
#include "optable.h"
#undef OP
#undef OP_KNOWN
};

const OpDef *ops_find(const char *domain, const char *op_type) {
    if (!domain || strcmp(domain, "ai.onnx") == 0)
        domain = "";
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(table[i].name, op_type) == 0 && strcmp(table[i].domain, domain) == 0)
            return &table[i];
    return NULL;
}

/* The library's list of ops (libonnx2c.h): every op in the table, in table order. */
void onnx2c_each_op(void (*f)(const char *domain, const char *op_type, const char *family,
                              void *user),
                    void *user) {
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        f(table[i].domain, table[i].name, table[i].family, user);
}
