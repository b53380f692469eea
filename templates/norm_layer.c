/* norm_layer.c - ONNX LayerNormalization of x seen as [outer, n] (n = the product of the dims
 * from `axis` on): y = (x - mean) * invstd * scale + bias, mean and invstd over each row.
 * scale / bias hold scale_n / bias_n elements that broadcast along the row (a suffix of the
 * normalized shape, so element k uses index k % scale_n); bias, mean_out, invstd_out may be
 * NULL. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "norm_moments.c"
#endif

static void layernorm_T(const T *x, const T *scale, int64_t scale_n, const T *bias,
                        int64_t bias_n, T *y, T *mean_out, T *invstd_out, int64_t outer, int64_t n,
                        T eps) {
    for (int64_t o = 0; o < outer; o++) {
        const T *xr = x + o * n;
        T *yr = y + o * n;
        T m, is;
        norm_moments_T(xr, n, eps, &m, &is);
        if (mean_out)
            mean_out[o] = m;
        if (invstd_out)
            invstd_out[o] = is;
        for (int64_t k = 0; k < n; k++) {
            T v = (xr[k] - m) * is * scale[scale_n == n ? k : k % scale_n];
            if (bias)
                v += bias[bias_n == n ? k : k % bias_n];
            yr[k] = v;
        }
    }
}
