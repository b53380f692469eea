/* conv_dw_slots.c - the threads of the depthwise kernels with per-thread scratch slots
 * (conv_dwp.c, conv_dwc.c): up to nslot OpenMP threads (one without OpenMP, below 65536
 * multiply-adds, or where o2c_par says no), at most one per item; their slots of slot
 * elements zeroed (the padding the kernels never write).  Returns the thread count: the
 * kernels fork only for more than one. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif

static int dw_slots_T(T *planes, int64_t slot, int nslot, int64_t items, double macs) {
    int nthr = 1, i;
#ifdef _OPENMP
    nthr = omp_get_max_threads();
    nthr = nthr < nslot ? nthr : nslot;
    nthr = items < nthr ? (int)items : nthr;
    if (!o2c_par(macs >= 65536.0))
        nthr = 1;
#else
    (void)nslot, (void)items, (void)macs;
#endif
    for (i = 0; i < nthr; i++)
        memset(planes + i * slot, 0, (size_t)slot * sizeof(T));
    return nthr;
}
