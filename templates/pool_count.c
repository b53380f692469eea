/* pool_count.c - AveragePool's divisor (pool_avg.c, qms_avgpool.c). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "pool_win.c"
#endif
#ifndef O2C_POOL_COUNT_T /* (once per element type: other templates include it) */
#define O2C_POOL_COUNT_T

/* AveragePool's divisor for the window w0 x w1 x w2: the taps inside the padded input when
 * count_include_pad, else the taps inside the input. */
static inline int64_t pool_count_T(const pool_win_T *w0, const pool_win_T *w1,
                                   const pool_win_T *w2, int64_t count_include_pad) {
    if (count_include_pad)
        return (w0->p1 - w0->p0) * (w1->p1 - w1->p0) * (w2->p1 - w2->p0);
    return (w0->j1 - w0->j0) * (w1->j1 - w1->j0) * (w2->j1 - w2->j0);
}
#endif
