/* reduce_lanes.c - a contiguous row's sum (of v, v * v or |v|: mode 0, 1, 2) and maximum in 16
 * lanes, for the reductions along the last axis (ReduceSum, ReduceMean, ReduceSumSquare,
 * ReduceL1, ReduceL2, ReduceLogSum: compiler/ops/reduce.c) and Softmax's rows (softmax_exp.c).
 *
 * Floats on cores with vectors (O2C_V4) go through four 4-float vectors.  The same loop over an
 * array of scalar lanes was vectorised well by some compilers and flags only: GCC 12 with -O3
 * -march=native took 9 us for a transformer's [128, 256] mean through 8 lanes, 1 us through
 * these vectors (-O2, -O2 -mavx2 and clang: about 1 us either way).  Elsewhere (double, tcc,
 * scalar cores) 8 scalar lanes.  Either way lane l sums the elements k = l (mod lanes) of the
 * whole blocks in order, the lanes are added pairwise, then the remaining elements in order.
 * The maximum keeps the first element unless a larger one comes (a NaN never replaces it); a
 * Softmax row with a NaN is NaN whatever its maximum. */
/* (The blocks end at n / 16 * 16, n / 8 * 8: `k + 8 <= n` with a remainder loop from where it
 * stopped had GCC -O3 warn of an iteration of undefined behaviour in the remainder.) */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif

static O2C_INLINE T reduce_sum_T(const T *x, int64_t n, int mode) {
    int64_t k = 0;
    T r;
#if O2C_V4
    if (O2C_F32_T && n >= 16) {
        const float *xf = (const float *)(const void *)x;
        const int64_t n16 = n / 16 * 16;
        o2c_v4 a0 = o2c_v4_dup(0.0f), a1 = a0, a2 = a0, a3 = a0;
        for (; k < n16; k += 16) {
            o2c_v4 v0 = o2c_v4_ld(xf + k), v1 = o2c_v4_ld(xf + k + 4);
            o2c_v4 v2 = o2c_v4_ld(xf + k + 8), v3 = o2c_v4_ld(xf + k + 12);
            if (mode == 1) {
                a0 = o2c_v4_fmav(a0, v0, v0), a1 = o2c_v4_fmav(a1, v1, v1);
                a2 = o2c_v4_fmav(a2, v2, v2), a3 = o2c_v4_fmav(a3, v3, v3);
                continue;
            }
            if (mode == 2) {
                v0 = o2c_v4_abs(v0), v1 = o2c_v4_abs(v1);
                v2 = o2c_v4_abs(v2), v3 = o2c_v4_abs(v3);
            }
            a0 = o2c_v4_add(a0, v0), a1 = o2c_v4_add(a1, v1);
            a2 = o2c_v4_add(a2, v2), a3 = o2c_v4_add(a3, v3);
        }
        a0 = o2c_v4_add(o2c_v4_add(a0, a1), o2c_v4_add(a2, a3));
        r = (T)o2c_v4_sum(a0);
    } else
#endif
    if (n >= 8) {
        const int64_t n8 = n / 8 * 8;
        T l8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int l;
        for (; k < n8; k += 8)
            for (l = 0; l < 8; l++) {
                const T v = x[k + l];
                l8[l] += mode == 1 ? v * v : mode == 2 ? (v < 0 ? -v : v) : v;
            }
        r = ((l8[0] + l8[1]) + (l8[2] + l8[3])) + ((l8[4] + l8[5]) + (l8[6] + l8[7]));
    } else
        r = 0;
    for (; k < n; k++) {
        const T v = x[k];
        r += mode == 1 ? v * v : mode == 2 ? (v < 0 ? -v : v) : v;
    }
    return r;
}

/* n >= 1 */
static O2C_INLINE T reduce_max_T(const T *x, int64_t n) {
    int64_t k = 1;
    T r = x[0];
#if O2C_V4
    if (O2C_F32_T && n >= 16) {
        const float *xf = (const float *)(const void *)x;
        const int64_t n16 = n / 16 * 16;
        o2c_v4 a0 = o2c_v4_dup(xf[0]), a1 = a0, a2 = a0, a3 = a0;
        float m[4];
        int l;
        for (k = 0; k < n16; k += 16) {
            a0 = o2c_v4_max(a0, o2c_v4_ld(xf + k)), a1 = o2c_v4_max(a1, o2c_v4_ld(xf + k + 4));
            a2 = o2c_v4_max(a2, o2c_v4_ld(xf + k + 8));
            a3 = o2c_v4_max(a3, o2c_v4_ld(xf + k + 12));
        }
        o2c_v4_st(m, o2c_v4_max(o2c_v4_max(a0, a1), o2c_v4_max(a2, a3)));
        for (l = 0; l < 4; l++)
            r = m[l] > r ? (T)m[l] : r;
    }
#endif
    for (; k < n; k++)
        r = x[k] > r ? x[k] : r;
    return r;
}

/* the mean of x[0 .. n-1] (NaN for n = 0, as 0 / 0) */
static O2C_INLINE T reduce_mean_T(const T *x, int64_t n) { return reduce_sum_T(x, n, 0) / (T)n; }
