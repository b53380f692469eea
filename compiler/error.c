/* error.c — errors unwind to the driver.
 *
 * Every error is formatted once, as one line naming the model file and, where there is one,
 * the node and its op: "net.onnx: node 'conv_7' (Conv): weight rank 3 does not match input
 * rank 4".  Then it longjmps to onnx2c_compile, which returns the status to its caller; nothing
 * below the driver ever exits the process. */
#include "onnx2c.h"
#include <string.h>

_Noreturn void o2c_verror(Compiler *c, int status, const Node *n, const char *fmt, va_list ap) {
    size_t len = 0, cap = sizeof c->err;
    int k;
    if (n)
        k = snprintf(c->err, cap, "%s: node '%s' (%s): ", c->path ? c->path : "model",
                     n->name ? n->name : "?", n->op_type ? n->op_type : "?");
    else
        k = snprintf(c->err, cap, "%s: ", c->path ? c->path : "model");
    len = k > 0 ? ((size_t)k < cap ? (size_t)k : cap - 1) : 0;
    vsnprintf(c->err + len, cap - len, fmt, ap);
    /* one line: fold any newline a message might carry */
    for (char *p = c->err; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    c->status = status;
    longjmp(c->jmp, 1);
}

_Noreturn void o2c_error(Compiler *c, const Node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    o2c_verror(c, O2C_EMODEL, n, fmt, ap);
}

_Noreturn void o2c_ioerror(Compiler *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    o2c_verror(c, O2C_EIO, NULL, fmt, ap);
}
