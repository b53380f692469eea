/* pool_max.c - max pooling over up to three spatial axes (ONNX MaxPool, GlobalMaxPool).
 *
 * x is [nc, in[0], in[1], in[2]] and y is [nc, out[0], out[1], out[2]]; 1-D and 2-D pools pass
 * leading spatial sizes of 1.  Output element o reads the taps o*st - pad_begin + j*dl,
 * j in [0, k), of each axis; taps in the padding are skipped (never compared).  A window with no
 * tap inside the input gives `lowest`.  ind (may be NULL) receives the flat index of the max in x
 * (ONNX MaxPool Indices): row-major, or with the spatial axes in column-major order when
 * col_major (storage_order = 1); the (n, c) offset is included either way.  Integer types
 * without indices take a plain loop (no NaN to keep, no position to track): per chunk of up to
 * 64 outputs of a row, the maximum of the window's rows over the columns the chunk reads
 * (contiguous, so the C compiler vectorizes it), then each output's taps from that. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#include "pool_win.c"
#include "v16_taps.c"
#endif
#if (defined(__AVX512F__) || defined(__AVX512BW__)) && !defined(O2C_NO_VECTOR) &&              \
    !defined(__TINYC__)
#include <immintrin.h>
#endif

/* Float 3x3 windows with 64-byte vectors (templates/v16_taps.c): 16 outputs at a time.  The
 * three rows' maximum per column first, then each output's three columns of it, every maximum
 * skipping NaN (_mm512_max_ps(u, v) is u > v ? u : v, v when either is NaN: the columns start
 * from -inf), and then an output whose first tap r0[i] is NaN is NaN: the rule of taking the
 * nine taps in order with m = max(tap, m) from m = r0[i].  The columns 16 to 31 (stride 2) or
 * 0 to 15 (stride 1) past a block are the next block's first ones, carried over in registers.
 * By taps (each row's three columns loaded and, at stride 2, permuted: 12 loads and 9
 * permutes for 16 outputs, here 6 and 4) SqueezeNet's 64 x 111 x 111 -> 55 x 55 had taken
 * 1.4x ONNX Runtime's time. */
#if O2C_V16
#define POOL_MAX_V16 1
#ifndef POOL_MAX_V16_HELPERS
#define POOL_MAX_V16_HELPERS
/* the columns [b, b + 16) of the three rows' maximum (NaN skipped; -inf where all are NaN,
 * zero from e on), and in *f row r0's; plain loads where all 16 are before e (the masks made
 * for every load: SqueezeNet's 128 x 55 x 55 pool 36.9 -> 31.4 us) */
O2C_V16_TARGET static O2C_INLINE __m512 pool_max3_col(const float *r0, const float *r1,
                                                      const float *r2, int64_t b, int64_t e,
                                                      __m512 *f) {
    const __m512 lo = _mm512_set1_ps(-INFINITY);
    if (b + 16 <= e) {
        *f = _mm512_loadu_ps(r0 + b);
        return _mm512_max_ps(_mm512_loadu_ps(r2 + b),
                             _mm512_max_ps(_mm512_loadu_ps(r1 + b), _mm512_max_ps(*f, lo)));
    }
    const __mmask16 k = o2c_v16_lanes(b, e);
    *f = _mm512_maskz_loadu_ps(k, r0 + b);
    return _mm512_max_ps(_mm512_maskz_loadu_ps(k, r2 + b),
                         _mm512_max_ps(_mm512_maskz_loadu_ps(k, r1 + b), _mm512_max_ps(*f, lo)));
}
#define POOL_ALIGN(u, v, n)                                                                        \
    _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(u), _mm512_castps_si512(v), n))
/* Outputs [o2, hi) of a row (stride s 1 or 2) from the window's rows r0, r1, r2 into y */
O2C_V16_TARGET __attribute__((unused)) static void
pool_max3_row(const float *r0, const float *r1, const float *r2, int64_t s, int64_t o2, int64_t hi,
              float *y) {
    const __m512i ev = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i od = _mm512_add_epi32(ev, _mm512_set1_epi32(1));
    const int64_t e = (hi - 1) * s + 3; /* the columns the row's outputs read, from r + 0 */
    __m512 f0 = _mm512_setzero_ps(), f1, f2;
    __m512 v0 = o2 < hi ? pool_max3_col(r0, r1, r2, o2 * s, e, &f0) : f0;
    for (; o2 < hi; o2 += 16) {
        const int64_t i = o2 * s, n = hi - o2 < 16 ? hi - o2 : 16;
        __m512 a, b, c, first, v1, v2;
        if (s == 1) {
            v1 = pool_max3_col(r0, r1, r2, i + 16, e, &f1);
            a = v0, b = POOL_ALIGN(v1, v0, 1), c = POOL_ALIGN(v1, v0, 2), first = f0;
            v0 = v1, f0 = f1;
        } else {
            v1 = pool_max3_col(r0, r1, r2, i + 16, e, &f1);
            v2 = pool_max3_col(r0, r1, r2, i + 32, e, &f2);
            a = _mm512_permutex2var_ps(v0, ev, v1);
            b = _mm512_permutex2var_ps(v0, od, v1);
            /* the even columns from 2 on: v0's 2..15, v1, v2's 0 and 1, shifted by two */
            c = _mm512_permutex2var_ps(POOL_ALIGN(v1, v0, 2), ev, POOL_ALIGN(v2, v1, 2));
            first = _mm512_permutex2var_ps(f0, ev, f1);
            v0 = v2, f0 = f2;
        }
        a = _mm512_max_ps(c, _mm512_max_ps(b, a));
        a = _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(first, first, _CMP_UNORD_Q), first);
        _mm512_mask_storeu_ps(y, o2c_v16_lanes(0, n), a);
        y += n;
    }
}
#undef POOL_ALIGN
#endif
#else
#define POOL_MAX_V16 0
#endif

/* The columns an output row's chunk reads at most (the integer path's local row) */
#ifndef POOL_SPAN
#define POOL_SPAN 160
#endif

/* always inlined: the call's constant window (kernel, strides, pads) then specialises the loops
 * at -O2 too (measured: SqueezeNet's three pools 1.44 -> 0.36 ms with plain -O2) */
static O2C_INLINE void maxpool_T(const T *x, T *y, int64_t *ind, int64_t nc, const int64_t *in,
                      const int64_t *out, const int64_t *k, const int64_t *st, const int64_t *dl,
                      const int64_t *pad, int64_t col_major, T lowest) {
    int64_t plane = in[0] * in[1] * in[2];
    if (!ind && (T)0.5 == (T)0) {
        /* integers without indices (no NaN, no position to track): chunks of a row's outputs
         * (see the header); a window wider than POOL_SPAN columns: the output row is its own
         * accumulator, each tap of the window a pass over the row's valid outputs */
        const ptrdiff_t I1 = (ptrdiff_t)in[1], I2 = (ptrdiff_t)in[2];
        const ptrdiff_t O0 = (ptrdiff_t)out[0], O1 = (ptrdiff_t)out[1], O2 = (ptrdiff_t)out[2];
        const ptrdiff_t D2 = (ptrdiff_t)dl[2], S2 = (ptrdiff_t)st[2], P2 = (ptrdiff_t)pad[2];
        for (int64_t c = 0; c < nc; c++) {
            const T *xc = x + c * plane;
            for (ptrdiff_t o0 = 0; o0 < O0; o0++) {
                const pool_win_T w0 = pool_window_T(o0, 0, in, k, st, dl, pad, 0);
                for (ptrdiff_t o1 = 0; o1 < O1; o1++, y += O2) {
                    const pool_win_T w1 = pool_window_T(o1, 1, in, k, st, dl, pad, 0);
                    /* chunks of ch outputs: the window rows' maximum over the chunk's span of
                     * columns first (contiguous: vectorized), then each output's taps from it */
                    const ptrdiff_t K2 = (ptrdiff_t)k[2], reach = (K2 - 1) * D2 + 1;
                    ptrdiff_t ch = reach <= POOL_SPAN ? (POOL_SPAN - reach) / S2 + 1 : 0;
                    ch = ch > 64 ? 64 : ch;
#if defined(__AVX512BW__) && !defined(O2C_NO_VECTOR) && !defined(__TINYC__)
                    /* bytes, a window 3 wide with stride 1 or 2 (the 3x3 pools of CNNs):
                     * each tap of the window's rows a masked 64-byte load, the maxima of the
                     * columns i, i + 1, i + 2, then (stride 2) the even bytes by a narrowing */
                    if (sizeof(T) == 1 && K2 == 3 && D2 == 1 && (S2 == 1 || S2 == 2) &&
                        w0.j0 < w0.j1 && w1.j0 < w1.j1) {
                        const int sg = (T)-1 < (T)0;
                        const __m512i lw = _mm512_set1_epi8((char)lowest);
                        const ptrdiff_t step = S2 == 1 ? 64 : 32;
                        for (ptrdiff_t c = 0; c < O2; c += step) {
                            const ptrdiff_t n = O2 - c < step ? O2 - c : step;
                            __m512i h = lw;
                            for (int64_t a = w0.j0; a < w0.j1; a++)
                                for (int64_t b = w1.j0; b < w1.j1; b++) {
                                    const T *row =
                                        xc + ((w0.s + a * dl[0]) * I1 + w1.s + b * dl[1]) * I2;
                                    for (ptrdiff_t t = 0; t < 3; t++) {
                                        const ptrdiff_t c0 = c * S2 - P2 + t;
                                        ptrdiff_t lo = c0 < 0 ? -c0 : 0, hi = I2 - c0;
                                        hi = hi > 64 ? 64 : hi;
                                        if (lo >= hi)
                                            continue;
                                        const __mmask64 mk =
                                            (hi >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << hi) - 1) &
                                            ~(((__mmask64)1 << lo) - 1);
                                        const __m512i v =
                                            _mm512_mask_loadu_epi8(lw, mk, (const void *)(row + c0));
                                        h = sg ? _mm512_max_epi8(h, v) : _mm512_max_epu8(h, v);
                                    }
                                }
                            const __mmask64 mo = n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
                            if (S2 == 1)
                                _mm512_mask_storeu_epi8((void *)(y + c), mo, h);
                            else
                                _mm256_mask_storeu_epi8((void *)(y + c), (__mmask32)mo,
                                                        _mm512_cvtepi16_epi8(h));
                        }
                        continue;
                    }
#endif
                    if (ch > 0 && w0.j0 < w0.j1 && w1.j0 < w1.j1) {
                        T vm[POOL_SPAN];
                        for (ptrdiff_t c = 0; c < O2; c += ch) {
                            const ptrdiff_t n = O2 - c < ch ? O2 - c : ch;
                            const ptrdiff_t col0 = c * S2 - P2, span = (n - 1) * S2 + reach;
                            const ptrdiff_t i0 = col0 < 0 ? -col0 : 0;
                            const ptrdiff_t i1 = I2 - col0 < span ? I2 - col0 : span;
                            for (ptrdiff_t i = 0; i < span; i++)
                                vm[i] = lowest;
                            for (int64_t a = w0.j0; a < w0.j1; a++)
                                for (int64_t b = w1.j0; b < w1.j1; b++) {
                                    const T *row =
                                        xc + ((w0.s + a * dl[0]) * I1 + w1.s + b * dl[1]) * I2 +
                                        col0;
                                    for (ptrdiff_t i = i0; i < i1; i++)
                                        vm[i] = row[i] > vm[i] ? row[i] : vm[i];
                                }
                            for (ptrdiff_t o = 0; o < n; o++) {
                                T v = vm[o * S2];
                                for (ptrdiff_t j = 1; j < K2; j++)
                                    v = vm[o * S2 + j * D2] > v ? vm[o * S2 + j * D2] : v;
                                y[c + o] = v;
                            }
                        }
                        continue;
                    }
                    for (ptrdiff_t o2 = 0; o2 < O2; o2++)
                        y[o2] = lowest;
                    for (int64_t a = w0.j0; a < w0.j1; a++)
                        for (int64_t b = w1.j0; b < w1.j1; b++) {
                            const T *row = xc + ((w0.s + a * dl[0]) * I1 + w1.s + b * dl[1]) * I2;
                            for (ptrdiff_t j = 0; j < (ptrdiff_t)k[2]; j++) {
                                /* outputs whose tap j is inside: lo <= o2 < hi */
                                const ptrdiff_t off = j * D2 - P2;
                                ptrdiff_t lo = off >= 0 ? 0 : (-off + S2 - 1) / S2;
                                ptrdiff_t hi = I2 - off <= 0 ? 0 : (I2 - off + S2 - 1) / S2;
                                hi = hi < O2 ? hi : O2;
                                for (ptrdiff_t o2 = lo; o2 < hi; o2++) {
                                    const T v = row[o2 * S2 + off];
                                    y[o2] = v > y[o2] ? v : y[o2];
                                }
                            }
                        }
                }
            }
        }
        return;
    }
    /* floats without indices: the outputs whose window lies inside the row, [lo, hi), take the
     * taps from the window's rows directly (a 3-wide window unrolled); the same order of
     * comparisons as below (the first tap, then each greater one), so the same results */
    const int64_t S2 = st[2], D2 = dl[2], P2 = pad[2], K2 = k[2], I2 = in[2];
    int64_t lo = (P2 + S2 - 1) / S2, hi = (I2 - 1 - (K2 - 1) * D2 + P2) >= 0
                                             ? (I2 - 1 - (K2 - 1) * D2 + P2) / S2 + 1 : 0;
    hi = hi < out[2] ? hi : out[2];
    if (ind || k[0] * k[1] > 64 || hi <= lo)
        lo = hi = 0;
#if POOL_MAX_V16
    const int v16 = o2c_v16_ok(); /* (once, not per row: a 13x13 pool took 3x as long) */
#endif
    for (int64_t c = 0; c < nc; c++) {
        const T *xc = x + c * plane;
        for (int64_t o0 = 0; o0 < out[0]; o0++) {
            const pool_win_T w0 = pool_window_T(o0, 0, in, k, st, dl, pad, 0);
            for (int64_t o1 = 0; o1 < out[1]; o1++) {
                const pool_win_T w1 = pool_window_T(o1, 1, in, k, st, dl, pad, 0);
                const T *rw[64];
                int nr = 0;
                if (hi > lo)
                    for (int64_t a = w0.j0; a < w0.j1; a++)
                        for (int64_t b = w1.j0; b < w1.j1; b++)
                            rw[nr++] = xc + ((w0.s + a * dl[0]) * in[1] + w1.s + b * dl[1]) * I2 - P2;
                for (int64_t o2 = 0; o2 < out[2]; o2++) {
                    if (o2 == lo && hi > lo) {
                        if (nr == 3 && K2 == 3 && D2 == 1) { /* 3x3: the 9 taps unrolled */
                            const T *q0 = rw[0], *q1 = rw[1], *q2 = rw[2];
#if POOL_MAX_V16
                            /* floats, stride 1 or 2: 16 outputs a vector, the taps in the same
                             * order (m = max(v, m) is v > m ? v : m, NaN in either keeping m);
                             * stride 2 takes the even and odd columns of two vectors; the last
                             * outputs with masked loads and stores */
                            if (sizeof(T) == 4 && (T)0.5 != (T)0 && (S2 == 1 || S2 == 2) &&
                                v16) {
                                pool_max3_row((const float *)(const void *)q0,
                                              (const float *)(const void *)q1,
                                              (const float *)(const void *)q2, S2, o2, hi,
                                              (float *)(void *)y);
                                y += hi - o2;
                                o2 = hi;
                            }
#endif
#define POOL_MAX3(q)                                                                               \
    m = q[i] > m ? q[i] : m, m = q[i + 1] > m ? q[i + 1] : m, m = q[i + 2] > m ? q[i + 2] : m
                            for (; o2 < hi; o2++) {
                                const int64_t i = o2 * S2;
                                T m = q0[i];
                                POOL_MAX3(q0);
                                POOL_MAX3(q1);
                                POOL_MAX3(q2);
                                *y++ = m;
                            }
#undef POOL_MAX3
                        } else
                            for (; o2 < hi; o2++) {
                                const int64_t i = o2 * S2;
                                T m = nr > 0 ? rw[0][i] : lowest;
                                for (int r = 0; r < nr; r++)
                                    for (int64_t j = 0; j < K2; j++)
                                        m = rw[r][i + j * D2] > m ? rw[r][i + j * D2] : m;
                                *y++ = m;
                            }
                        if (o2 >= out[2])
                            break;
                    }
                    const pool_win_T w2 = pool_window_T(o2, 2, in, k, st, dl, pad, 0);
                    T best = lowest;
                    int64_t bi0 = 0, bi1 = 0, bi2 = 0;
                    int found = 0;
                    for (int64_t a = w0.j0; a < w0.j1; a++) {
                        int64_t i0 = w0.s + a * dl[0];
                        for (int64_t b = w1.j0; b < w1.j1; b++) {
                            int64_t i1 = w1.s + b * dl[1];
                            const T *row = xc + (i0 * in[1] + i1) * in[2];
                            for (int64_t j = w2.j0; j < w2.j1; j++) {
                                int64_t i2 = w2.s + j * dl[2];
                                T v = row[i2];
                                if (!found || v > best) {
                                    best = v;
                                    bi0 = i0;
                                    bi1 = i1;
                                    bi2 = i2;
                                    found = 1;
                                }
                            }
                        }
                    }
                    *y++ = best;
                    if (ind)
                        *ind++ = c * plane + (col_major ? bi0 + (bi1 + bi2 * in[1]) * in[0]
                                                        : (bi0 * in[1] + bi1) * in[2] + bi2);
                }
            }
        }
    }
}
