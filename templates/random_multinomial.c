/* random_multinomial.c - Multinomial's sampling of one row (compiler/ops/random.c), in T
 * (float or double; a float16 row is converted to float first).
 *
 * o2c_mn_cumulate_T turns a row of C unnormalized log-probabilities into cumulative weights in
 * place: w[k] = sum over j <= k of exp(x[j] - max x), each term in (0, 1] (no overflow); -inf
 * and NaN give weight 0; a row whose largest value is +inf gives weight 1 to its +inf entries
 * and 0 to the rest.  o2c_mn_pick_T(w, C, u) is the class of a uniform u in [0, 1): the first k
 * with w[k] > u * w[C - 1] (a binary search), so a class of weight 0 is never picked; when
 * rounding makes u * w[C - 1] reach the total, the last class of positive weight; class 0 for
 * a row without any positive weight. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "math_t.c"
#endif

static void o2c_mn_cumulate_T(T *w, int64_t C) {
    T m = (T)-INFINITY, s = 0;
    int64_t k;
    for (k = 0; k < C; k++)
        if (w[k] > m)
            m = w[k];
    for (k = 0; k < C; k++) {
        T e;
        if (m == (T)INFINITY)
            e = w[k] == m ? (T)1 : (T)0;
        else
            e = o2c_fn_T(exp, w[k] - m);
        s += e > 0 ? e : (T)0; /* (NaN: 0) */
        w[k] = s;
    }
}

static int64_t o2c_mn_pick_T(const T *w, int64_t C, T u) {
    T total = C > 0 ? w[C - 1] : (T)0, t = u * total;
    int64_t lo = 0, hi = C, k;
    if (!(total > 0))
        return 0;
    while (lo < hi) { /* the first k in [lo, hi) with w[k] > t */
        int64_t mid = lo + (hi - lo) / 2;
        if (w[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo < C)
        return lo;
    for (k = C - 1; k > 0 && !(w[k] > w[k - 1]); k--)
        ;
    return k;
}
