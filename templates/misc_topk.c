/* misc_topk.c - ONNX TopK along the middle axis of x seen as [outer, n, inner]: the k largest
 * (or smallest) elements, sorted, with their indices; equal elements keep the lower index first
 * (an element only moves past strictly worse ones).  vals and idx are [outer, k, inner]. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

static void topk_T(const T *x, T *vals, int64_t *idx, int64_t outer, int64_t n, int64_t inner,
                   int64_t k, int largest) {
    if (k <= 0)
        return;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            T *vp = vals + o * k * inner + i;
            int64_t *ip = idx + o * k * inner + i;
            int64_t cnt = 0;
            for (int64_t j = 0; j < n; j++) {
                T v = x[(o * n + j) * inner + i];
                int64_t p = cnt < k ? cnt : k - 1;
                if (cnt == k && !(largest ? v > vp[p * inner] : v < vp[p * inner]))
                    continue;
                while (p > 0 && (largest ? v > vp[(p - 1) * inner] : v < vp[(p - 1) * inner])) {
                    vp[p * inner] = vp[(p - 1) * inner];
                    ip[p * inner] = ip[(p - 1) * inner];
                    p--;
                }
                vp[p * inner] = v;
                ip[p * inner] = j;
                if (cnt < k)
                    cnt++;
            }
        }
}
