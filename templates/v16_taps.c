/* v16_taps.c - 16 outputs of a 3-wide window at a time with 64-byte float vectors (x86-64 with
 * AVX-512: in the flags, or under O2C_X86_DISPATCH in functions with its target attribute, taken
 * when the CPU has it).  The 3x3 max pool (pool_max.c) and the 3x3 depthwise convolution
 * (conv_dw.c) read a window row the same way: output j of 16 reads the columns j * s + {0, 1, 2}
 * of the row, s the stride, 1 or 2.  Stride 1: three loads at r + 0, 1, 2.  Stride 2: the even
 * and odd columns of r[0..31], then the even ones of r[2..33].  The loads are masked to the e
 * elements the outputs read (the row may end there), so a row's last outputs take a vector
 * too. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif
#ifndef O2C_V16_TAPS /* (once: type-independent) */
#define O2C_V16_TAPS
#if (defined(__AVX512F__) || O2C_X86_DISPATCH) && !defined(O2C_NO_VECTOR) &&                    \
    !defined(__TINYC__) && defined(__x86_64__)
#define O2C_V16 1
#include <immintrin.h>
#if O2C_X86_DISPATCH
#define O2C_V16_TARGET O2C_TARGET_AVX512
#define o2c_v16_ok() o2c_cpu_avx512()
#else
#define O2C_V16_TARGET
#define o2c_v16_ok() 1
#endif
/* the lanes j of a load at r + b with b + j < e */
O2C_V16_TARGET static O2C_INLINE __mmask16 o2c_v16_lanes(int64_t b, int64_t e) {
    return e - b >= 16 ? (__mmask16)0xffff : e <= b ? (__mmask16)0 : (__mmask16)((1u << (e - b)) - 1);
}
/* the three taps (*a, *b, *c: columns 0, 1, 2 of each output's window) of 16 outputs at stride
 * s (1 or 2) whose first window starts at r; e: the elements they read from r */
O2C_V16_TARGET static O2C_INLINE void o2c_v16_taps3(const float *r, int64_t e, int64_t s,
                                                    __m512 *a, __m512 *b, __m512 *c) {
    if (s == 1) {
        *a = _mm512_maskz_loadu_ps(o2c_v16_lanes(0, e), r);
        *b = _mm512_maskz_loadu_ps(o2c_v16_lanes(1, e), r + 1);
        *c = _mm512_maskz_loadu_ps(o2c_v16_lanes(2, e), r + 2);
    } else {
        const __m512i ev = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                                            2, 0);
        const __m512i od = _mm512_add_epi32(ev, _mm512_set1_epi32(1));
        const __m512 lo = _mm512_maskz_loadu_ps(o2c_v16_lanes(0, e), r);
        const __m512 hi = _mm512_maskz_loadu_ps(o2c_v16_lanes(16, e), r + 16);
        const __m512 lo2 = _mm512_maskz_loadu_ps(o2c_v16_lanes(2, e), r + 2);
        const __m512 hi2 = _mm512_maskz_loadu_ps(o2c_v16_lanes(18, e), r + 18);
        *a = _mm512_permutex2var_ps(lo, ev, hi);
        *b = _mm512_permutex2var_ps(lo, od, hi);
        *c = _mm512_permutex2var_ps(lo2, ev, hi2);
    }
}
/* the same for 16 whole outputs (the 16 * s + 3 - s elements from r all readable): plain
 * loads, but the last element of the stride-2 window, which is past the outputs' reach (a
 * constant mask: the row may end there); GCC had turned the masks of o2c_v16_taps3 into a
 * branch a load, a 3x3 depthwise row of 16 outputs in 21 cycles (12 here) */
O2C_V16_TARGET static O2C_INLINE void o2c_v16_taps3_full(const float *r, int64_t s, __m512 *a,
                                                         __m512 *b, __m512 *c) {
    if (s == 1) {
        *a = _mm512_loadu_ps(r);
        *b = _mm512_loadu_ps(r + 1);
        *c = _mm512_loadu_ps(r + 2);
    } else {
        const __m512i ev = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                                            2, 0);
        const __m512i od = _mm512_add_epi32(ev, _mm512_set1_epi32(1));
        const __m512 lo = _mm512_loadu_ps(r), hi = _mm512_loadu_ps(r + 16);
        const __m512 lo2 = _mm512_loadu_ps(r + 2);
        const __m512 hi2 = _mm512_maskz_loadu_ps((__mmask16)0x7fff, r + 18);
        *a = _mm512_permutex2var_ps(lo, ev, hi);
        *b = _mm512_permutex2var_ps(lo, od, hi);
        *c = _mm512_permutex2var_ps(lo2, ev, hi2);
    }
}
#else
#define O2C_V16 0
#endif
#endif
