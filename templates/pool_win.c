/* pool_win.c - the window of one pool output position along each spatial axis, from
 * pool_taps_T (the pool_* kernels and qms_avgpool.c). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "pool_taps.c"
#endif
#ifndef O2C_POOL_WIN_T /* (once per element type: other templates include it) */
#define O2C_POOL_WIN_T

/* One output position's window along one spatial axis of a pool (pool_avg.c, pool_lp.c,
 * pool_max.c, qms_avgpool.c).  Tap j of the window reads input s + j * dl; the taps j in
 * [j0, j1) are the ones inside the input [0, n).  For AveragePool's count_include_pad, the
 * taps in [p0, p1) are the ones inside the padded axis [-pad_begin, n + pad_end): the same
 * narrowing with the axis shifted by pad_begin (both are empty, 0, when not asked for). */
typedef struct pool_win_T {
    int64_t s, j0, j1, p0, p1;
} pool_win_T;

/* The window of output o along axis ax (0, 1 or 2) of a pool whose per-axis arrays are in
 * (input sizes), k (kernel), st (strides), dl (dilations) and pad (the three begin pads, then
 * the three end pads); padded: also the taps inside the padded axis. */
static inline pool_win_T pool_window_T(int64_t o, int ax, const int64_t *in, const int64_t *k,
                                       const int64_t *st, const int64_t *dl, const int64_t *pad,
                                       int64_t padded) {
    pool_win_T w;
    w.s = o * st[ax] - pad[ax];
    pool_taps_T(w.s, in[ax], k[ax], dl[ax], &w.j0, &w.j1);
    w.p0 = w.p1 = 0;
    if (padded)
        pool_taps_T(w.s + pad[ax], in[ax] + pad[ax] + pad[ax + 3], k[ax], dl[ax], &w.p0, &w.p1);
    return w;
}

#endif
