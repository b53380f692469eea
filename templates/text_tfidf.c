/* text_tfidf.c - ONNX TfIdfVectorizer on integer tokens (compiler/ops/text.c).  x is rows x
 * len tokens of type T; y is rows x cols floats.  The pool: for each n-gram length n in
 * [nlo, nhi], cnt[n - nlo] n-grams of n items each at pool + at[n - nlo], sorted ascending
 * (lexicographic, no two equal), the k-th counting into output column col[base[n - nlo] + k].
 *
 * Counting, as ONNX Runtime and ONNX's reference: a 1-gram once per position; an n-gram of
 * n >= 2 once per start i and distance d in [1, maxd] (skip d - 1) with its items x[i],
 * x[i + d], ..., x[i + (n - 1) d] inside the row.  Counts are kept in y as floats (exact up
 * to 2^24 per column).  Then mode 0 (TF) keeps the count, 1 (IDF) makes it w[j] when
 * nonzero, 2 (TFIDF) multiplies it by w[j]; w NULL stands for ones. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

/* The place of the n-gram x[0], x[d], ..., x[(n - 1) d] among the cnt n-grams of tbl, or -1:
 * a binary search. */
static int64_t ngram_find_T(const int64_t *tbl, int64_t cnt, int64_t n, const T *x, int64_t d) {
    int64_t lo = 0, hi = cnt;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int64_t *g = tbl + mid * n;
        int cmp = 0;
        for (int64_t q = 0; q < n && cmp == 0; q++) {
            const int64_t v = (int64_t)x[q * d];
            cmp = (g[q] > v) - (g[q] < v);
        }
        if (cmp == 0)
            return mid;
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static void tfidf_T(const T *x, float *y, int64_t rows, int64_t len, int64_t cols,
                    const int64_t *pool, const int64_t *at, const int64_t *base,
                    const int64_t *cnt, const int64_t *col, int64_t nlo, int64_t nhi,
                    int64_t maxd, int mode, const float *w) {
    for (int64_t r = 0; r < rows; r++) {
        const T *xr = x + r * len;
        float *yr = y + r * cols;
        for (int64_t j = 0; j < cols; j++)
            yr[j] = 0.0f;
        int64_t n2 = nlo; /* the first length counted per distance */
        if (nlo == 1 && nhi >= 1) {
            for (int64_t i = 0; i < len; i++) {
                const int64_t k = ngram_find_T(pool + at[0], cnt[0], 1, xr + i, 1);
                if (k >= 0)
                    yr[col[base[0] + k]] += 1.0f;
            }
            n2 = 2;
        }
        for (int64_t d = 1; d <= maxd && d < len && n2 <= nhi; d++)
            for (int64_t i = 0; i < len; i++) {
                const int64_t fit = (len - 1 - i) / d + 1; /* items from i at distance d */
                for (int64_t n = n2; n <= nhi && n <= fit; n++) {
                    const int64_t l = n - nlo;
                    const int64_t k = ngram_find_T(pool + at[l], cnt[l], n, xr + i, d);
                    if (k >= 0)
                        yr[col[base[l] + k]] += 1.0f;
                }
            }
        if (mode == 1)
            for (int64_t j = 0; j < cols; j++)
                yr[j] = yr[j] > 0.0f ? (w ? w[j] : 1.0f) : 0.0f;
        else if (mode == 2 && w)
            for (int64_t j = 0; j < cols; j++)
                yr[j] *= w[j];
    }
}
