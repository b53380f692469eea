/* quant_lin.c - QuantizeLinear of n floats into the 8-bit type T with one scale and zero point:
 * y = saturate(nearbyintf(x / s) + z), NaN 0 (templates/int_satf.c), in float as the emitter
 * wrote it inline.  With AVX-512 (F and BW) 16 values at a time: the division and the
 * addition with their rounding named, round half to even, NaN 0, the clamp to T's range
 * (saturate's, as the values are integers); the rest one at a time. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "int_satf.c"
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#endif

static void qlin_quantize_T(const float *x, int64_t n, float s, float z, T *y) {
    int64_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    {
#define QLIN_R (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
        const int sgn = (T)-1 < (T)1;
        const __m512 vs = _mm512_set1_ps(s), vz = _mm512_set1_ps(z);
        const __m512 lo = _mm512_set1_ps(sgn ? -128.0f : 0.0f), hi = _mm512_set1_ps(sgn ? 127.0f : 255.0f);
        const int64_t n16 = n / 16 * 16;
        for (; i < n16; i += 16) {
            __m512 q = _mm512_add_round_ps(
                _mm512_roundscale_ps(_mm512_div_round_ps(_mm512_loadu_ps(x + i), vs, QLIN_R), QLIN_R),
                vz, QLIN_R);
            q = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(q, q, _CMP_ORD_Q), q);
            q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
            _mm_storeu_si128((__m128i *)(void *)(y + i), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(q)));
        }
#undef QLIN_R
    }
#endif
    for (; i < n; i++)
        y[i] = o2c_satf_T(nearbyintf(x[i] / s) + z);
}
