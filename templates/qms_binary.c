/* qms_binary.c - QLinearAdd and QLinearMul (com.microsoft) without broadcasting, an input
 * maybe a scalar (its stride 0): y = qms_quant_T(va + vb or va vb, sc, zc) clamped to
 * [lo, hi] (T's range, or a folded Relu's or Clip's), va = ((float)a - za) sa and vb the same:
 * DequantizeLinear -> Add or Mul -> QuantizeLinear in float32 as the chain reads.
 * With AVX-512 (F and BW) 16 values at a time: the same float operations with their rounding
 * named (the compiler cannot fuse a multiply and an add into one rounding), the quotient by sc
 * rounded half to even, NaN 0; the rest one at a time.  In place over a or b: each value is
 * read before its output is written. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "qms_quant.c"
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#endif

static void qms_binary_T(const T *a, int64_t as, const T *b, int64_t bs, int64_t n, float sa,
                         float za, float sb, float zb, float sc, float zc, int mul, int lo,
                         int hi, T *y) {
    int64_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    {
#define QMS_R (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
        const int sgn = (T)-1 < (T)1;
        const __m512 vsa = _mm512_set1_ps(sa), vza = _mm512_set1_ps(za);
        const __m512 vsb = _mm512_set1_ps(sb), vzb = _mm512_set1_ps(zb);
        const __m512 vsc = _mm512_set1_ps(sc), vzc = _mm512_set1_ps(zc);
        const __m512 flo = _mm512_set1_ps((float)lo), fhi = _mm512_set1_ps((float)hi);
        const int64_t n16 = n / 16 * 16;
        for (; i < n16; i += 16) {
            __m128i ra, rb;
            if (as)
                ra = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
            else
                ra = _mm_set1_epi8((char)a[0]);
            if (bs)
                rb = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
            else
                rb = _mm_set1_epi8((char)b[0]);
            const __m512 fa = _mm512_cvtepi32_ps(sgn ? _mm512_cvtepi8_epi32(ra) : _mm512_cvtepu8_epi32(ra));
            const __m512 fb = _mm512_cvtepi32_ps(sgn ? _mm512_cvtepi8_epi32(rb) : _mm512_cvtepu8_epi32(rb));
            const __m512 va = _mm512_mul_round_ps(_mm512_sub_round_ps(fa, vza, QMS_R), vsa, QMS_R);
            const __m512 vb = _mm512_mul_round_ps(_mm512_sub_round_ps(fb, vzb, QMS_R), vsb, QMS_R);
            const __m512 v = mul ? _mm512_mul_round_ps(va, vb, QMS_R) : _mm512_add_round_ps(va, vb, QMS_R);
            __m512 q = _mm512_add_round_ps(
                _mm512_roundscale_ps(_mm512_div_round_ps(v, vsc, QMS_R), QMS_R), vzc, QMS_R);
            /* NaN: 0 before the clamp, as qms_quant_T then the clamp */
            q = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(q, q, _CMP_ORD_Q), q);
            q = _mm512_min_ps(_mm512_max_ps(q, flo), fhi);
            _mm_storeu_si128((__m128i *)(void *)(y + i), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(q)));
        }
#undef QMS_R
    }
#endif
    for (; i < n; i++) {
        const float va = ((float)a[i * as] - za) * sa, vb = ((float)b[i * bs] - zb) * sb;
        const int q = (int)qms_quant_T(mul ? va * vb : va + vb, sc, zc);
        y[i] = (T)(q < lo ? lo : q > hi ? hi : q);
    }
}
