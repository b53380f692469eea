/* conv_dw_slots.c - the threads of the depthwise kernels with per-thread scratch slots
 * (conv_dwp.c, conv_dwc.c): up to nslot OpenMP threads (one without OpenMP, below 65536
 * multiply-adds, or where o2c_par says no), at most one per item.  Returns the thread count:
 * the kernels fork only for more than one.  The slots are zeroed (the padding the kernels
 * never write): here for one thread, else each thread its own in the region (dw_slot_T): a
 * slot zeroed by the thread that forks sat in the wrong core's cache, and one core wrote all. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif

static int dw_slots_T(T *planes, int64_t slot, int nslot, int64_t items, double macs) {
    int nthr = 1;
#ifdef _OPENMP
    nthr = omp_get_max_threads();
    nthr = nthr < nslot ? nthr : nslot;
    nthr = items < nthr ? (int)items : nthr;
    if (!o2c_par(macs >= 65536.0))
        nthr = 1;
#else
    (void)nslot, (void)items, (void)macs;
#endif
    if (nthr == 1)
        memset(planes, 0, (size_t)slot * sizeof(T));
    return nthr;
}

#ifdef _OPENMP
/* In the region: the calling thread's slot, zeroed. */
static T *dw_slot_T(T *planes, int64_t slot) {
    T *s = planes + omp_get_thread_num() * slot;
    memset(s, 0, (size_t)slot * sizeof(T));
    return s;
}
#endif

/* The common depthwise windows with constants: in a kernel with the arguments KH, KW, sh, sw,
 * dh, dw, ph, pw, runs CALL(K, S, P) (a macro of the caller's: the kernel's body, inlined, for a
 * K x K window at stride S, dilation 1, padding P) and returns when the window is one of them.
 * The compiler then unrolls their taps; a call with constant arguments got such a copy anyway,
 * but not the call in a threads' region, whose body sees the window as variables. */
#define DW_WINDOWS_T(CALL)                                                                       \
    if (KH == KW && (KH == 3 || KH == 5) && ph == KH / 2 && pw == ph && sh == sw &&               \
        (sh == 1 || sh == 2) && dh == 1 && dw == 1) {                                             \
        if (KH == 3 && sh == 1)                                                                   \
            CALL(3, 1, 1);                                                                        \
        else if (KH == 3)                                                                         \
            CALL(3, 2, 1);                                                                        \
        else if (sh == 1)                                                                         \
            CALL(5, 1, 2);                                                                        \
        else                                                                                      \
            CALL(5, 2, 2);                                                                        \
        return;                                                                                   \
    }
