/* compare.c — the output comparison of CONTRACT.md §3.
 *
 * Float outputs: |got - want| <= atol + rtol*|want| elementwise, rtol = 1e-3 and
 * atol = max(1e-5, 1e-4 * max|want|) over the output; NaN matches NaN, infinities match in sign.
 * Integer and bool outputs match exactly.  float16/bfloat16 are compared as the floats they
 * encode. */
#include "runtime.h"
#include <math.h>
#include <string.h>

static double half_to_double(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = ldexp(m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(m + 1024, e - 25);
    return s ? -v : v;
}

static double bf16_to_double(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

double tensor_value(DType t, const void *p, int64_t i) {
    switch (t) {
    case DT_FLOAT: return ((const float *)p)[i];
    case DT_DOUBLE: return ((const double *)p)[i];
    case DT_FLOAT16: return half_to_double(((const uint16_t *)p)[i]);
    case DT_BFLOAT16: return bf16_to_double(((const uint16_t *)p)[i]);
    case DT_INT8: return ((const int8_t *)p)[i];
    case DT_INT16: return ((const int16_t *)p)[i];
    case DT_INT32: return ((const int32_t *)p)[i];
    case DT_INT64: return (double)((const int64_t *)p)[i];
    case DT_UINT8: case DT_BOOL: return ((const uint8_t *)p)[i];
    case DT_UINT16: return ((const uint16_t *)p)[i];
    case DT_UINT32: return ((const uint32_t *)p)[i];
    case DT_UINT64: return (double)((const uint64_t *)p)[i];
    default: return NAN;
    }
}

bool compare_tensor(const Tensor *want, const void *got, char *msg, size_t msglen) {
    DType t = want->dtype;
    int64_t n = want->nelem;
    if (t == DT_FLOAT || t == DT_DOUBLE || t == DT_FLOAT16 || t == DT_BFLOAT16) {
        double maxw = 0;
        for (int64_t i = 0; i < n; i++) {
            double w = tensor_value(t, want->data, i);
            if (isfinite(w) && fabs(w) > maxw)
                maxw = fabs(w);
        }
        double atol = fmax(1e-5, 1e-4 * maxw), rtol = 1e-3;
        double worst = 0;
        int64_t worst_i = -1;
        for (int64_t i = 0; i < n; i++) {
            double w = tensor_value(t, want->data, i), g = tensor_value(t, got, i);
            bool ok;
            double err = 0;
            if (isnan(w) || isnan(g))
                ok = isnan(w) && isnan(g);
            else if (isinf(w) || isinf(g))
                ok = w == g;
            else {
                err = fabs(g - w);
                ok = err <= atol + rtol * fabs(w);
                err = err / (atol + rtol * fabs(w));
            }
            if (!ok && (worst_i < 0 || err > worst || isnan(err))) {
                worst = ok ? 0 : (err > 0 ? err : INFINITY);
                worst_i = i;
            }
        }
        if (worst_i >= 0) {
            snprintf(msg, msglen, "element %lld: got %.9g, want %.9g (%.3g x tolerance)",
                     (long long)worst_i, tensor_value(t, got, worst_i), tensor_value(t, want->data, worst_i),
                     worst);
            return false;
        }
        return true;
    }
    size_t es = onnx2c_dtype_size(t);
    for (int64_t i = 0; i < n; i++)
        if (memcmp((const char *)want->data + (size_t)i * es, (const char *)got + (size_t)i * es, es)) {
            int64_t gw = 0, gg = 0;
            memcpy(&gw, (const char *)want->data + (size_t)i * es, es);
            memcpy(&gg, (const char *)got + (size_t)i * es, es);
            snprintf(msg, msglen, "element %lld: got %lld, want %lld (bits)", (long long)i,
                     (long long)gg, (long long)gw);
            return false;
        }
    return true;
}
