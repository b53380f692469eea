/* o2c_template.h - lets a template compile on its own (unit tests): the element type T defaults
 * to float, and the C headers generated code includes are included.  The emitter removes the
 * `#ifndef O2C_TEMPLATE` block that includes this file. */
#ifndef O2C_TEMPLATE_H
#define O2C_TEMPLATE_H
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifndef T
#define T float
#endif
/* o2c_target.c's per-type names, which the emitter makes from T's suffix */
#ifndef O2C_ACC_T
#define O2C_ACC_T o2c_facc
#endif
#ifndef O2C_F32_T
#define O2C_F32_T 1
#endif
#endif
