/* ops.c — the one table of ops.
 *
 * Each op family (one file in compiler/ops/) defines a NULL-terminated OpDef array; this file
 * lists the families.  Adding an op is one line in its family's table. */
#include "onnx2c.h"
#include <string.h>

#define FAMILIES(X) \
    X(elementwise)  \
    X(matmul)       \
    X(conv)         \
    X(pool)         \
    X(norm)         \
    X(softmax)      \
    X(reduce)       \
    X(shape)        \
    X(layout)       \
    X(misc)         \
    X(loss)         \
    X(resize)       \
    X(rnn)          \
    X(quant)        \
    X(quant_ms)     \
    X(signal)       \
    X(spatial)      \
    X(linalg)

#define DECLARE(f) extern const OpDef ops_##f[];
FAMILIES(DECLARE)
#define LIST(f) ops_##f,
static const OpDef *const families[] = {FAMILIES(LIST) NULL};
#define NAME(f) #f,
static const char *const family_names[] = {FAMILIES(NAME) NULL};

const OpDef *ops_find(const char *domain, const char *op_type) {
    if (domain && strcmp(domain, "ai.onnx") == 0)
        domain = "";
    for (int f = 0; families[f]; f++)
        for (const OpDef *d = families[f]; d->name; d++) {
            const char *dd = d->domain ? d->domain : "";
            if (strcmp(d->name, op_type) == 0 && strcmp(dd, domain ? domain : "") == 0)
                return d;
        }
    return NULL;
}

/* The library's list of ops (libonnx2c.h): every op in the table, in table order. */
void onnx2c_each_op(void (*f)(const char *domain, const char *op_type, const char *family,
                              void *user),
                    void *user) {
    for (int i = 0; families[i]; i++)
        for (const OpDef *d = families[i]; d->name; d++)
            f(d->domain ? d->domain : "", d->name, family_names[i], user);
}
