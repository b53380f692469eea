/* quant_i8.c - the int8 engine of the integer convolutions and products whose weight and
 * quantization parameters are constants (QLinearConv, ConvInteger, QLinearMatMul,
 * MatMulInteger; compiler/ops/quant.c): 8-bit operands, 32-bit sums, requantization in fixed
 * point.  No double arithmetic and no tensor widened to int32; the scratch is one tile of
 * unfolded columns.  Indices are ptrdiff_t, so a 32-bit core computes them in 32 bits.
 *
 * Operands.  uint8 data is read as int8 with its sign bit flipped (x - 128), and its zero
 * point likewise, so every product is int8 x int8 and (x - zx) is unchanged.  The weight W (M
 * outputs x K terms each) comes packed by the compiler: K rounded up to Kp, a multiple of 16
 * (zeros); outputs in pairs (M rounded up to even with a zero row), the two rows of a pair
 * interleaved by runs of 16:
 *     wp[(m / 2) 2 Kp + (k / 16) 32 + (m % 2) 16 + k % 16] = W[m][k].
 * The activations come as columns col[p][Kp] (a tile of up to QI8_P output positions of a
 * convolution, unfolded by templates/quant_i8_conv.c; rows of A of a product,
 * templates/quant_i8_rows.c): first staged as the raw bytes (padding: the raw zero point,
 * beyond K: the byte that flips to 0), then finished by qi8_finish: with the DSP extension
 * into int16 columns (qi8_col), each 4 bytes x0..x3 sign-extended as the pairs (x0, x2),
 * (x1, x3) (SXTB16), which is how SXTB16 splits a word of the weight, so a dual multiply-add
 * (SMLAD) takes them as they come: 16 multiply-adds per 18 instructions.  Elsewhere the
 * columns stay int8 (flipped in place), and the products run over bytes (Helium: 16 at a
 * time, VMLADAVA; plain C otherwise).  A depthwise convolution (one input and one output
 * channel per group) runs directly (templates/quant_i8_dw.c) on its weight as W[C][kvol].
 *
 * Sums.  acc[m][p] = sum_k W[m][k] col[p][k], wrapping in 32 bits like the ONNX definitions;
 * the zero points enter afterwards, exactly (mod 2^32):
 *     sum_k (x - zx)(w - zw) = acc - zx sum_k W[m][k] - zw[m] sum_k col[p][k] + K zx zw[m].
 * A padded position of a convolution holds zx, so it adds 0.  The compiler folds
 * bias[m] - zx sum_k W[m][k] + K zx zw[m] into cb[m]; the column sums are taken only when
 * the weight has a zero point that is not 0 (zw not NULL).
 *
 * Requantization (the QLinear ops; ymode 0 int8, 1 uint8 output; ymode 2 stores the int32
 * sums of ConvInteger / MatMulInteger).  The multiplier r = x_scale * w_scale[m] / y_scale,
 * a float as the ONNX reference computes it, equals mant * 2^-sh exactly (mant: the 24-bit
 * significand shifted to 31 bits), so v * r is exact in 64 bits and
 *     y = clamp(round_half_to_even(v * r) + zy, lo, hi)
 * is the correctly rounded real-valued result.  (A reference that forms v * r in double
 * rounds it to 53 bits first; that can move a value onto or off a tie only when |v| >= 2^29,
 * beyond what 8-bit models produce.)  sh <= 0 marks |r| >= 2^30, where any nonzero sum
 * saturates; sh = -1 an infinite r (y_scale 0: a NaN for a zero sum, which gives 0); sh = -2
 * a NaN r (0).  lo..hi is the output type's range or narrower (an activation folded in by
 * compiler/lower.c). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#endif
#ifndef O2C_QUANT_I8
#define O2C_QUANT_I8

#if !defined(O2C_NO_VECTOR) && !defined(__TINYC__) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define QI8_MVE 1
#elif !defined(O2C_NO_VECTOR) && !defined(__TINYC__) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#define QI8_DSP 1
#elif !defined(O2C_NO_VECTOR) && !defined(__TINYC__) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__AVX512VNNI__) && defined(__AVX512F__)
#include <immintrin.h>
#define QI8_VNNI 1
#elif !defined(O2C_NO_VECTOR) && !defined(__TINYC__) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__AVX2__)
#include <immintrin.h>
#define QI8_AVX2 1
#endif
#ifndef QI8_AVX2
#define QI8_AVX2 0
#endif
#ifndef QI8_MVE
#define QI8_MVE 0
#endif
#ifndef QI8_DSP
#define QI8_DSP 0
#endif
#ifndef QI8_VNNI
#define QI8_VNNI 0
#endif

/* Output positions (or rows) per tile of unfolded columns, and the type of a column's
 * element: the scratch is 8 Kp bytes of columns either way (and QI8_P int32 sums). */
#if QI8_DSP
#define QI8_P 4
typedef int16_t qi8_col;
#elif QI8_VNNI
#define QI8_P 8
typedef uint8_t qi8_col; /* x + 128 */
#else
#define QI8_P 4
typedef int8_t qi8_col;
#endif

/* the core's helpers: not every kernel uses every one (clang warns of an unused static inline) */
#if defined(__GNUC__) || defined(__clang__)
#define QI8_UNUSED __attribute__((unused))
#else
#define QI8_UNUSED
#endif

/* r = mant * 2^-sh exactly, with qi8_rq's codes for |r| >= 2^30 (sh 0), an infinite (-1) and
 * a NaN (-2) r; 0 when |r| < 2^-32 (every product rounds to 0). */
QI8_UNUSED static void qi8_mult(float r, int32_t *mant, int32_t *sh) {
    uint32_t b;
    memcpy(&b, &r, 4);
    const int32_t e = (int32_t)((b >> 23) & 255u), neg = (int32_t)(b >> 31);
    const uint32_t f = b & 0x7fffffu;
    if (e == 255) {
        *mant = neg ? -1 : 1;
        *sh = f ? -2 : -1;
        return;
    }
    const int32_t s = 157 - e; /* r = (f | 2^23) 2^7 2^-(157 - e) */
    if (e == 0 || s > 62) {
        *mant = 0, *sh = 1;
        return;
    }
    const int32_t m = (int32_t)((f | 0x800000u) << 7);
    *mant = neg ? -m : m;
    *sh = s < 1 ? 0 : s;
}

#if QI8_DSP
/* bytes 1 and 3 of x sign-extended to a 16-bit pair (SXTB16 with its rotation) */
QI8_UNUSED static inline int16x2_t qi8_sxtb16_r8(uint32_t x) {
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}
#endif

/* clamp(round_half_to_even(v * mant * 2^-sh) + zy, lo, hi) (see the header for sh <= 0). */
QI8_UNUSED static inline int32_t qi8_rq(int32_t v, int32_t mant, int32_t sh, int32_t zy, int32_t lo,
                             int32_t hi) {
    const int64_t p = (int64_t)v * mant;
    int32_t q;
    if (sh > 32) { /* (at most 62) */
        /* the usual case (|r| < 1/4), in 32-bit steps on p's halves h:l: round half to even
         * is floor((p + 2^(sh-1) - 1 + odd) / 2^sh), odd the lowest bit of floor(p / 2^sh);
         * 2^(sh-1) adds to h only, and the -1 (when not odd) borrows from h when l is 0 */
        const int s = (int)sh - 32;
        const uint64_t u = (uint64_t)p;
        const uint32_t h = (uint32_t)(u >> 32), l = (uint32_t)u;
        const int32_t hs = (int32_t)h;
        const uint32_t odd = (uint32_t)(hs >= 0 ? hs >> s : ~(~hs >> s)) & 1u;
        const int32_t th = (int32_t)(h + (1u << (s - 1)) - ((l == 0) & (odd ^ 1u)));
        q = th >= 0 ? th >> s : ~(~th >> s);
    } else if (sh > 0) { /* |r| >= 1/4, or tiny */
        int64_t q64 = p >= 0 ? p >> sh : -1 - ((-1 - p) >> sh);
        const uint64_t r = (uint64_t)p & ((UINT64_C(1) << sh) - 1), hf = UINT64_C(1) << (sh - 1);
        q64 += r > hf || (r == hf && (q64 & 1));
        q = q64 > (1 << 30) ? 1 << 30 : q64 < -(1 << 30) ? -(1 << 30) : (int32_t)q64;
    } else if (sh == -2 || (sh == -1 && p == 0)) {
        q = -zy; /* NaN: 0 */
    } else {
        q = p > 0 ? 1 << 30 : p < 0 ? -(1 << 30) : 0;
    }
    q += zy;
    return q < lo ? lo : q > hi ? hi : q;
}

#if QI8_VNNI
/* The requantization of 16 lanes at once (AVX-512; the lanes' multipliers with 1 <= sh <= 62):
 * qi8_rq16_prep turns mant and sh into the even and odd lanes' 64-bit terms once per block
 * (qi8_rq16_prep1: one multiplier for all lanes, from scalars), qi8_rq16 then rounds 16 sums
 * half to even exactly as qi8_rq and narrows them to bytes. */
typedef struct {
    __m512i me, mo, se, so, be, bo, zy, lo, hi;
    /* every lane's sh > 32 (hi32): sh - 32, 2^(sh - 33) - 1, bit sh - 32, and lm: the low
     * 32 bits of mant v are 0 exactly when v & lm is (mant's odd factor is invertible modulo
     * any power of two: lm = 2^(32 - t) - 1, t mant's trailing zeros) */
    __m512i s32, b32, bit, lm;
    int hi32;
    /* one multiplier, tie-free below the caller's bound (qi8_rq1_t): 2^(s-1) [+ zy 2^s] */
    __m512i bn;
    int nt, zf;
    int sat; /* the clamp's top is the type's: 1 int8 (lo >= -128), 2 uint8 (lo >= 0) */
    /* qi8_narrow64: unsigned bytes (hi > 127), a bottom or a top inside the type's range,
     * lo and hi as bytes */
    int u8, blo, bhi;
    __m512i lo8, hi8;
} qi8_rq16_t;

static inline int qi8_rq16_sat(int32_t lo, int32_t hi) {
    return hi == 127 && lo >= -128 ? 1 : hi == 255 && lo >= 0 ? 2 : 0;
}

static inline void qi8_rq16_bytes(qi8_rq16_t *r, int32_t lo, int32_t hi) {
    r->u8 = hi > 127;
    r->blo = lo > (r->u8 ? 0 : -128), r->bhi = hi < (r->u8 ? 255 : 127);
    r->lo8 = _mm512_set1_epi8((char)lo), r->hi8 = _mm512_set1_epi8((char)hi);
}

__attribute__((unused)) static inline qi8_rq16_t qi8_rq16_prep(__m512i mant, __m512i sh,
                                                               int32_t zy, int32_t lo,
                                                               int32_t hi) {
    qi8_rq16_t r;
    const __m512i one = _mm512_set1_epi64(1), low = _mm512_set1_epi64(0xffffffff);
    r.me = mant, r.mo = _mm512_srli_epi64(mant, 32);
    r.se = _mm512_and_si512(sh, low), r.so = _mm512_srli_epi64(sh, 32);
    r.be = _mm512_sub_epi64(_mm512_sllv_epi64(one, _mm512_sub_epi64(r.se, one)), one);
    r.bo = _mm512_sub_epi64(_mm512_sllv_epi64(one, _mm512_sub_epi64(r.so, one)), one);
    r.zy = _mm512_set1_epi32(zy), r.lo = _mm512_set1_epi32(lo), r.hi = _mm512_set1_epi32(hi);
    r.hi32 = !_mm512_cmple_epi32_mask(sh, _mm512_set1_epi32(32));
    const __m512i one32 = _mm512_set1_epi32(1);
    r.s32 = _mm512_sub_epi32(sh, _mm512_set1_epi32(32));
    r.b32 = _mm512_sub_epi32(_mm512_sllv_epi32(one32, _mm512_sub_epi32(r.s32, one32)), one32);
    r.bit = _mm512_sllv_epi32(one32, r.s32);
    /* t: the exponent of mant's lowest set bit as a float (exact: a power of two) */
    const __m512i b = _mm512_and_si512(mant, _mm512_sub_epi32(_mm512_setzero_si512(), mant));
    const __m512i t = _mm512_sub_epi32(
        _mm512_srli_epi32(_mm512_castps_si512(_mm512_cvtepi32_ps(b)), 23), _mm512_set1_epi32(127));
    r.lm = _mm512_srlv_epi32(_mm512_set1_epi32(-1), t);
    r.sat = qi8_rq16_sat(lo, hi);
    qi8_rq16_bytes(&r, lo, hi);
    r.nt = r.zf = 0, r.bn = r.b32;
    return r;
}

/* One output's terms of qi8_rq16's hi32 path as scalars (ok: 33 <= sh <= 62), made once per
 * call (qi8_rq1_of) and broadcast into each vector's instructions (qi8_rq16_1).
 * Tie-free outputs (nt): a tie needs v mant = 2^(sh-1) modulo 2^sh, so v a multiple of
 * 2^(sh-1-t) (t: mant's trailing zeros; its odd factor is invertible); when every sum is below
 * that in magnitude (vmax, the caller's bound on |v|) there is none, and round half up,
 * floor((h + 2^(s-1)) / 2^s), is the rounding half to even (l / 2^32 < 1 never carries).
 * bn: 2^(s-1), plus zy 2^s when s <= 21 (zf: no overflow, |h| <= 2^30). */
typedef struct {
    int32_t mant, s32, b32, bit, lm, bn;
    unsigned char ok, nt, zf;
} qi8_rq1_t;

__attribute__((unused)) static inline void qi8_rq1_of(int32_t mant, int32_t sh, int32_t zy,
                                                      int64_t vmax, qi8_rq1_t *o) {
    o->ok = sh > 32 && sh <= 62;
    o->nt = o->zf = 0, o->bn = o->mant = o->s32 = o->b32 = o->bit = o->lm = 0;
    if (!o->ok)
        return;
    /* mant 0: every product 0, no tie */
    const int t = mant ? __builtin_ctz((uint32_t)mant) : 31, s = sh - 32;
    o->mant = mant, o->s32 = s, o->b32 = (int32_t)((1u << (s - 1)) - 1u);
    o->bit = (int32_t)(1u << s);
    o->lm = mant ? (int32_t)(0xffffffffu >> t) : 0;
    o->nt = !mant || sh - 1 - t >= 32 || (vmax >= 0 && vmax < (int64_t)1 << (sh - 1 - t));
    o->zf = s <= 21;
    o->bn = (int32_t)((1u << (s - 1)) + (o->zf ? (uint32_t)zy << s : 0u));
}

/* The same for one multiplier (1 <= sh <= 62) in every lane: broadcasts when sh > 32; vmax
 * bounds the sums' magnitude (qi8_rq1_of; -1: no bound). */
__attribute__((unused)) static inline qi8_rq16_t qi8_rq16_prep1(int32_t mant, int32_t sh,
                                                                int32_t zy, int32_t lo,
                                                                int32_t hi, int64_t vmax) {
    if (sh <= 32)
        return qi8_rq16_prep(_mm512_set1_epi32(mant), _mm512_set1_epi32(sh), zy, lo, hi);
    qi8_rq1_t o; /* the scalar terms, broadcast */
    qi8_rq1_of(mant, sh, zy, vmax, &o);
    qi8_rq16_t r;
    r.me = _mm512_set1_epi32(mant);
    r.s32 = _mm512_set1_epi32(o.s32), r.b32 = _mm512_set1_epi32(o.b32);
    r.bit = _mm512_set1_epi32(o.bit), r.lm = _mm512_set1_epi32(o.lm);
    r.zy = _mm512_set1_epi32(zy), r.lo = _mm512_set1_epi32(lo), r.hi = _mm512_set1_epi32(hi);
    r.hi32 = 1;
    r.sat = qi8_rq16_sat(lo, hi);
    qi8_rq16_bytes(&r, lo, hi);
    r.mo = r.se = r.so = r.be = r.bo = r.me;
    r.nt = o.nt, r.zf = o.zf, r.bn = _mm512_set1_epi32(o.bn);
    return r;
}

/* floor((p + 2^(sh-1) - 1 + odd) / 2^sh), odd the lowest bit of floor(p / 2^sh), in [-2^30,
 * 2^30] */
static inline __m512i qi8_rq16_lane(__m512i p, __m512i s, __m512i b) {
    const __m512i odd = _mm512_and_si512(_mm512_srav_epi64(p, s), _mm512_set1_epi64(1));
    const __m512i q = _mm512_srav_epi64(_mm512_add_epi64(p, _mm512_add_epi64(b, odd)), s);
    return _mm512_min_epi64(_mm512_max_epi64(q, _mm512_set1_epi64(-(1 << 30))),
                            _mm512_set1_epi64(1 << 30));
}

/* q + zy (no overflow: |q| <= 2^30) clamped to [lo, hi], as bytes */
__attribute__((always_inline)) static inline __m128i qi8_rq16_narrow(__m512i q, const qi8_rq16_t *r) {
    if (r->sat == 1) /* the top is int8's: the narrowing saturates */
        return _mm512_cvtsepi32_epi8(_mm512_max_epi32(q, r->lo));
    if (r->sat == 2) /* uint8's, once the bottom is clamped */
        return _mm512_cvtusepi32_epi8(_mm512_max_epi32(q, r->lo));
    return _mm512_cvtepi32_epi8(_mm512_min_epi32(_mm512_max_epi32(q, r->lo), r->hi));
}

/* qi8_rq16's hi32 path for the output p (p->ok) before the clamp: q + zy in 32 bits (zy of
 * the qi8_rq16_t r) */
__attribute__((unused, always_inline)) static inline __m512i qi8_rq16_1w(__m512i v, const qi8_rq1_t *p,
                                                          const qi8_rq16_t *r) {
    const __m512i m = _mm512_set1_epi32(p->mant);
    const __m512i pe = _mm512_mul_epi32(v, m);
    const __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), m);
    /* the products' high words: the odd dwords of pe and po */
    const __m512i h = _mm512_permutex2var_epi32(
        pe, _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1), po);
    if (p->nt) { /* no tie: half up, zy maybe folded in */
        const __m512i q =
            _mm512_srav_epi32(_mm512_add_epi32(h, _mm512_set1_epi32(p->bn)), _mm512_set1_epi32(p->s32));
        return p->zf ? q : _mm512_add_epi32(q, r->zy);
    }
    const __mmask16 c = (__mmask16)(_mm512_test_epi32_mask(v, _mm512_set1_epi32(p->lm)) |
                                    _mm512_test_epi32_mask(h, _mm512_set1_epi32(p->bit)));
    __m512i t = _mm512_add_epi32(h, _mm512_set1_epi32(p->b32));
    t = _mm512_mask_add_epi32(t, c, t, _mm512_set1_epi32(1));
    return _mm512_add_epi32(_mm512_srav_epi32(t, _mm512_set1_epi32(p->s32)), r->zy);
}

/* The same clamped to [lo, hi] and narrowed to bytes */
__attribute__((unused, always_inline)) static inline __m128i qi8_rq16_1(__m512i v, const qi8_rq1_t *p,
                                                         const qi8_rq16_t *r) {
    return qi8_rq16_narrow(qi8_rq16_1w(v, p, r), r);
}

/* Four vectors before the clamp (qi8_rq16_1w, qi8_rq16w) clamped and narrowed at once into
 * the 64 bytes q0, q1, q2, q3: the saturating packs to 16 and 8 bits (unsigned when hi > 127),
 * one dword permutation back into order, then the clamp on the bytes when [lo, hi] is
 * narrower than the type (4 vectors in 6 to 8 instructions, against 4 each). */
__attribute__((unused, always_inline)) static inline __m512i qi8_narrow64(__m512i q0, __m512i q1,
                                                           __m512i q2, __m512i q3,
                                                           const qi8_rq16_t *r) {
    const __m512i a = _mm512_packs_epi32(q0, q1), b = _mm512_packs_epi32(q2, q3);
    /* lane k of c: the dwords k of q0, q1, q2, q3; dword 4 j + k of the result: 4 k + j */
    const __m512i c = r->u8 ? _mm512_packus_epi16(a, b) : _mm512_packs_epi16(a, b);
    __m512i y = _mm512_permutexvar_epi32(
        _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), c);
    if (r->blo)
        y = r->u8 ? _mm512_max_epu8(y, r->lo8) : _mm512_max_epi8(y, r->lo8);
    if (r->bhi)
        y = r->u8 ? _mm512_min_epu8(y, r->hi8) : _mm512_min_epi8(y, r->hi8);
    return y;
}

/* qi8_rq16 before the clamp (the hi32 and the general path): q + zy in 32 bits */
__attribute__((unused, always_inline)) static inline __m512i qi8_rq16w(__m512i v, const qi8_rq16_t *r) {
    if (r->hi32) {
        /* every multiplier below 1/4 (the usual case): qi8_rq's 32-bit steps on the products'
         * high words h (the low ones l only tested for zero, on v: lm): floor((h + 2^(s-1) -
         * 1 + c) / 2^s), s = sh - 32, c = 0 only at a tie (l = 0, h's fraction exactly half)
         * below an even quotient */
        const __m512i pe = _mm512_mul_epi32(v, r->me);
        const __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), r->mo);
        const __m512i h = _mm512_permutex2var_epi32(
            pe, _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1), po);
        if (r->nt) { /* qi8_rq1_t's tie-free path */
            const __m512i q = _mm512_srav_epi32(_mm512_add_epi32(h, r->bn), r->s32);
            return r->zf ? q : _mm512_add_epi32(q, r->zy);
        }
        const __mmask16 c = (__mmask16)(_mm512_test_epi32_mask(v, r->lm) |
                                        _mm512_test_epi32_mask(h, r->bit));
        __m512i t = _mm512_add_epi32(h, r->b32);
        t = _mm512_mask_add_epi32(t, c, t, _mm512_set1_epi32(1));
        return _mm512_add_epi32(_mm512_srav_epi32(t, r->s32), r->zy);
    }
    const __m512i pe = _mm512_mul_epi32(v, r->me);
    const __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), r->mo);
    const __m512i qe = qi8_rq16_lane(pe, r->se, r->be), qo = qi8_rq16_lane(po, r->so, r->bo);
    const __m512i q = _mm512_mask_blend_epi32(0xAAAA, qe, _mm512_slli_epi64(qo, 32));
    return _mm512_add_epi32(q, r->zy);
}

__attribute__((unused, always_inline)) static inline __m128i qi8_rq16(__m512i v, const qi8_rq16_t *r) {
    return qi8_rq16_narrow(qi8_rq16w(v, r), r);
}
#endif

/* Stores the sum s (zero points' terms included) at y[at]: requantized by mant, sh (ymode 0
 * int8, 1 uint8) or as int32 (ymode 2). */
QI8_UNUSED static inline void qi8_out(uint32_t s, int32_t mant, int32_t sh, int32_t zy, int32_t lo,
                           int32_t hi, int ymode, void *y, ptrdiff_t at) {
    if (ymode == 2)
        ((int32_t *)y)[at] = (int32_t)s;
    else if (ymode == 0)
        ((int8_t *)y)[at] = (int8_t)qi8_rq((int32_t)s, mant, sh, zy, lo, hi);
    else
        ((uint8_t *)y)[at] = (uint8_t)qi8_rq((int32_t)s, mant, sh, zy, lo, hi);
}

/* Stores output (m, p) at y[at]: the sum s with the zero points' terms (cb, zw per output,
 * colsum per column), then qi8_out. */
QI8_UNUSED static inline void qi8_put(uint32_t s, ptrdiff_t m, ptrdiff_t p, const int32_t *cb,
                           const int32_t *zw, const int32_t *colsum, const int32_t *mant,
                           const int32_t *sh, int32_t zy, int32_t lo, int32_t hi, int ymode,
                           void *y, ptrdiff_t at) {
    s += (uint32_t)cb[m];
    if (zw)
        s -= (uint32_t)zw[m] * (uint32_t)colsum[p];
    qi8_out(s, mant ? mant[m] : 0, sh ? sh[m] : 0, zy, lo, hi, ymode, y, at);
}
#endif
