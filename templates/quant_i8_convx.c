/* quant_i8_convx.c - a convolution of the int8 engine (templates/quant_i8.c) on x86 with
 * AVX-512 VNNI as an implicit product: no unfolded columns.  For one group, up to two spatial
 * axes, a weight without zero points and an 8-bit output (the compiler's choice,
 * compiler/ops/quant.c; elsewhere templates/quant_i8_conv.c).
 *
 * The image is first copied into a packed buffer by qi8_xpack: the channels in quads, a
 * position's four channels one dword of VNNI values (x + 128 as uint8, as the columns of
 * templates/quant_i8.c), the padding the zero point, and the rows and columns split by the
 * strides into S1 x S2 phase planes of H x W dwords:
 *     buf[((cq S1 + a) S2 + b) H W + i W + j] = x[4 cq .. 4 cq + 3][S1 i + a - P1][S2 j + b - P2]
 * with H = O1 + (K1 - 1) D1 / S1, W = O2 + (K2 - 1) D2 / S2.  Tap (kh, kw) of the outputs
 * (o1, o2), (o1, o2 + 1), ... is then a run of consecutive dwords of one plane: plane
 * ((kh D1) % S1, (kw D2) % S2), from (o1 + kh D1 / S1) W + o2 + kw D2 / S2.  So the outputs
 * are computed over "virtual" rows of W positions (the columns o2 >= O2 compute sums that are
 * never stored), in tiles of QX_P = 48 positions (three vectors of 16) by 8 output channels:
 * 24 sums in registers, each VPDPBUSD one vector of 16 positions' dwords times one output's
 * four weights broadcast.  The sums are requantized 16 lanes at a time with the output's
 * multiplier and stored into the NCHW output rows, the lanes of the columns >= O2 squeezed
 * out (VPCOMPRESSB with VBMI2, else one byte at a time).
 * When few positions would fill the vectors of 16 poorly (a 7x7 image: 49 outputs over 64
 * lanes and more, a virtual row of 9), the lanes are output channels instead: tiles of 6
 * positions (any, no virtual rows) by 64 outputs, each VPDPBUSD one position's dword
 * broadcast times 16 outputs' weights; the bytes are then scattered to the NCHW planes.
 * The compiler packs the weight for both in blocks of 16 outputs:
 *     wx[((b T + t) CQ + cq) 64 + 4 i + j] = W[16 b + i][4 cq + j][t / K2][t % K2]
 * (T = K1 K2 taps, CQ channel quads; zeros beyond M and C).
 * Buffer: qi8_xbuf bytes (the planes and a tail that the last tile reads beyond them).
 * Untyped template. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "quant_i8.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#if QI8_VNNI && defined(__AVX512BW__)
#define QI8_CONVX 1
#else
#define QI8_CONVX 0
#endif

#if QI8_CONVX
#define QX_P 48
#define QX_TAPS 128
#define QX_RQT 2048

/* Bytes of the packed buffer: the planes and the tail the last tile reads past them. */
QI8_UNUSED static inline ptrdiff_t qi8_xbuf(ptrdiff_t cq, ptrdiff_t s1, ptrdiff_t s2, ptrdiff_t h,
                                 ptrdiff_t w) {
    return 4 * (cq * s1 * s2 * h * w + QX_P + w);
}

/* 64 bytes of a row from p: p[0..63] (s 1) or the even bytes p[0], p[2] .. p[126] (s 2), of
 * which only the first nb are read (the others 0) */
static inline __mmask64 qi8_xmask(ptrdiff_t n) {
    return n >= 64 ? ~(__mmask64)0 : n <= 0 ? 0 : ((__mmask64)1 << n) - 1;
}

static inline __m512i qi8_xrow64(const uint8_t *p, ptrdiff_t s, ptrdiff_t nb) {
    if (s == 1)
        return _mm512_maskz_loadu_epi8(qi8_xmask(nb), p);
    const __m256i lo = _mm512_cvtepi16_epi8(_mm512_maskz_loadu_epi8(qi8_xmask(nb), p));
    const __m256i hi = _mm512_cvtepi16_epi8(_mm512_maskz_loadu_epi8(qi8_xmask(nb - 64), p + 64));
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

/* Packs the channels [4 cq, 4 cq + 4) of x (C channels of I1 x I2 bytes) into their planes:
 * each byte xor xb, the padding (and the channels >= C) zb. */
static void qi8_xpack(const uint8_t *x, ptrdiff_t C, ptrdiff_t I1, ptrdiff_t I2, ptrdiff_t cq,
                      ptrdiff_t S1, ptrdiff_t S2, ptrdiff_t P1, ptrdiff_t P2, ptrdiff_t H,
                      ptrdiff_t W, uint64_t ua, uint64_t ub, uint8_t xb, uint8_t zb,
                      uint8_t *buf) {
    if (S1 == 1 && S2 == 1 && P1 == 0 && P2 == 0 && H == I1 && W == I2 && I1 > 1) {
        /* the planes are the image's rows end to end (a 1x1 kernel, no padding): one row */
        qi8_xpack(x, C, 1, I1 * I2, cq, 1, 1, 0, 0, 1, I1 * I2, ua, ub, xb, zb, buf);
        return;
    }
    const uint32_t zd = 0x01010101u * zb;
    const ptrdiff_t c0 = 4 * cq, isp = I1 * I2;
    for (ptrdiff_t a = 0; a < S1; a++)
        for (ptrdiff_t b = 0; b < S2; b++) {
            if (a < 64 && b < 64 && !((ua >> a) & (ub >> b) & 1))
                continue; /* a plane no tap reads (a 1x1 kernel with stride 2: 3 of 4) */
            uint8_t *pl = buf + 4 * ((cq * S1 + a) * S2 + b) * H * W;
            /* the plane's columns j with S2 j + b - P2 inside the image: [j0, j1) */
            ptrdiff_t j0 = (P2 - b + S2 - 1) / S2, j1 = (I2 - 1 + P2 - b) / S2 + 1;
            if (P2 - b < 0)
                j0 = 0;
            if (I2 - 1 + P2 - b < 0)
                j1 = 0;
            j0 = j0 > W ? W : j0, j1 = j1 > W ? W : j1, j1 = j1 < j0 ? j0 : j1;
            for (ptrdiff_t i = 0; i < H; i++) {
                uint8_t *d = pl + 4 * i * W;
                const ptrdiff_t r = S1 * i + a - P1;
                if (r < 0 || r >= I1 || c0 >= C) {
                    for (ptrdiff_t j = 0; j < W; j++)
                        memcpy(d + 4 * j, &zd, 4);
                    continue;
                }
                for (ptrdiff_t j = 0; j < j0; j++)
                    memcpy(d + 4 * j, &zd, 4);
                for (ptrdiff_t j = j1; j < W; j++)
                    memcpy(d + 4 * j, &zd, 4);
                const uint8_t *xr = x + c0 * isp + r * I2 + S2 * j0 + b - P2;
                ptrdiff_t j = j0;
                if (S2 <= 2) {
                    /* 64 positions of the four channels' rows (the missing channels of a
                     * partial quad: the zero point) interleaved at a time: bytes of 4 rows into
                     * dwords within each 16-byte lane, then the lanes transposed; the rest of
                     * the row by masked loads and stores */
                    const __m512i f = _mm512_set1_epi8((char)xb), zv = _mm512_set1_epi8((char)zb);
                    for (; j < j1; j += 64, xr += 64 * S2) {
                        const ptrdiff_t n = j1 - j < 64 ? j1 - j : 64;
                        /* the bytes read: positions' columns, and past the last one's only
                         * when inside the row (s 2 reads pairs) */
                        const ptrdiff_t nb = S2 == 1 ? n : 2 * n - (n < 64 || j + 64 >= j1);
                        __m512i rw[4];
                        for (int cc = 0; cc < 4; cc++)
                            rw[cc] = c0 + cc < C
                                         ? _mm512_xor_si512(qi8_xrow64(xr + cc * isp, S2, nb), f)
                                         : zv;
                        const __m512i l01 = _mm512_unpacklo_epi8(rw[0], rw[1]);
                        const __m512i h01 = _mm512_unpackhi_epi8(rw[0], rw[1]);
                        const __m512i l23 = _mm512_unpacklo_epi8(rw[2], rw[3]);
                        const __m512i h23 = _mm512_unpackhi_epi8(rw[2], rw[3]);
                        /* u_k: positions 16 L + 4 k .. + 3 in lane L */
                        const __m512i u0 = _mm512_unpacklo_epi16(l01, l23);
                        const __m512i u1 = _mm512_unpackhi_epi16(l01, l23);
                        const __m512i u2 = _mm512_unpacklo_epi16(h01, h23);
                        const __m512i u3 = _mm512_unpackhi_epi16(h01, h23);
                        const __m512i a0 = _mm512_shuffle_i32x4(u0, u1, 0x44); /* u0.0 u0.1 u1.0 u1.1 */
                        const __m512i a1 = _mm512_shuffle_i32x4(u2, u3, 0x44);
                        const __m512i a2 = _mm512_shuffle_i32x4(u0, u1, 0xee);
                        const __m512i a3 = _mm512_shuffle_i32x4(u2, u3, 0xee);
                        const __m512i o[4] = {_mm512_shuffle_i32x4(a0, a1, 0x88),
                                              _mm512_shuffle_i32x4(a0, a1, 0xdd),
                                              _mm512_shuffle_i32x4(a2, a3, 0x88),
                                              _mm512_shuffle_i32x4(a2, a3, 0xdd)};
                        for (int q = 0; q < 4 && 16 * q < n; q++) {
                            const ptrdiff_t m = n - 16 * q < 16 ? n - 16 * q : 16;
                            _mm512_mask_storeu_epi8(d + 4 * (j + 16 * q),
                                                    m == 16 ? ~(__mmask64)0
                                                            : ((__mmask64)1 << (4 * m)) - 1,
                                                    o[q]);
                        }
                    }
                }
                for (; j < j1; j++, xr += S2)
                    for (ptrdiff_t cc = 0; cc < 4; cc++)
                        d[4 * j + cc] = c0 + cc < C ? (uint8_t)(xr[cc * isp] ^ xb) : zb;
            }
        }
}

/* Lane l of a tile's vector is stored when its virtual position is an output: mask and the
 * output index of the first such lane. */
typedef struct {
    __mmask16 mk;
    int full;     /* all 16 lanes, contiguous in the output */
    ptrdiff_t at; /* output index (o1 O2 + o2) of the first stored lane */
} qi8_xlanes;

__attribute__((always_inline)) static inline void qi8_xstore(uint8_t *y, const qi8_xlanes *l, __m128i q) {
    if (l->full)
        _mm_storeu_si128((__m128i *)(void *)(y + l->at), q);
    else if (l->mk) {
#if defined(__AVX512VBMI2__)
        const __m128i c = _mm_maskz_compress_epi8(l->mk, q);
        _mm_mask_storeu_epi8(y + l->at, (__mmask16)((1u << __builtin_popcount(l->mk)) - 1u), c);
#else
        uint8_t b[16];
        _mm_storeu_si128((__m128i *)(void *)b, q);
        ptrdiff_t n = 0;
        for (int i = 0; i < 16; i++)
            if (l->mk >> i & 1)
                y[l->at + n++] = b[i];
#endif
    }
}

/* The epilogue of a block of 8 outputs when every one of them takes qi8_rq16_1: its terms,
 * biases (cbu), output rows and the tile's lanes. */
typedef struct {
    const qi8_rq1_t *rq;
    const int32_t *cb;
    const qi8_rq16_t *r1;
    const qi8_xlanes *ln;
    uint8_t *y;
    ptrdiff_t osp;
    int nm;
    int c48; /* three vectors, 48 outputs in a row: narrowed together (qi8_narrow64) */
} qi8_xep_t;

/* The sums of nv (1 to 3) vectors of 16 positions from xt (the tile's first position in plane
 * 0) by 8 outputs (wq: their first weights in a block of 16), into acc[(3 i + j) 16 + lane];
 * toff[t]: the byte offset of tap t from a position's dword in plane 0. */
static O2C_INLINE void qi8_xtile(const int nv, const uint8_t *xt, const int8_t *wq, ptrdiff_t CQ,
                                 ptrdiff_t NT, const ptrdiff_t *toff, ptrdiff_t cqs,
                                 int32_t *acc, const qi8_xep_t *ep) {
    /* the sums start at the constant when the epilogue is here */
#define QX_C0(i) (ep && (i) < ep->nm ? _mm512_set1_epi32(ep->cb[i]) : _mm512_setzero_si512())
    __m512i s00 = QX_C0(0), s01 = s00, s02 = s00, s10 = QX_C0(1), s11 = s10, s12 = s10,
            s20 = QX_C0(2), s21 = s20, s22 = s20, s30 = QX_C0(3), s31 = s30, s32 = s30,
            s40 = QX_C0(4), s41 = s40, s42 = s40, s50 = QX_C0(5), s51 = s50, s52 = s50,
            s60 = QX_C0(6), s61 = s60, s62 = s60, s70 = QX_C0(7), s71 = s70, s72 = s70;
#undef QX_C0
    for (ptrdiff_t t = 0; t < NT; t++) {
            const uint8_t *xp = xt + toff[t];
            for (ptrdiff_t c = 0; c < CQ; c++, xp += cqs, wq += 64) {
                _mm_prefetch((const char *)(wq + 2048), _MM_HINT_T0); /* the weight streams */
                const __m512i x0 = _mm512_loadu_si512((const void *)xp);
                const __m512i x1 = nv > 1 ? _mm512_loadu_si512((const void *)(xp + 64)) : x0;
                const __m512i x2 = nv > 2 ? _mm512_loadu_si512((const void *)(xp + 128)) : x0;
#define QX_STEP(i)                                                                            \
    {                                                                                         \
        int32_t wd;                                                                           \
        memcpy(&wd, wq + 4 * (i), 4);                                                         \
        const __m512i wv = _mm512_set1_epi32(wd);                                             \
        s##i##0 = _mm512_dpbusd_epi32(s##i##0, x0, wv);                                       \
        if (nv > 1)                                                                           \
            s##i##1 = _mm512_dpbusd_epi32(s##i##1, x1, wv);                                   \
        if (nv > 2)                                                                           \
            s##i##2 = _mm512_dpbusd_epi32(s##i##2, x2, wv);                                   \
    }
                QX_STEP(0) QX_STEP(1) QX_STEP(2) QX_STEP(3)
                QX_STEP(4) QX_STEP(5) QX_STEP(6) QX_STEP(7)
#undef QX_STEP
            }
        }
    if (ep) { /* requantized and stored from the registers */
#define QX_EPI(i)                                                                             \
    if ((i) < ep->nm) {                                                                       \
        const qi8_rq1_t *rp = ep->rq + (i);                                                   \
        uint8_t *ym = ep->y + (i) * ep->osp;                                                  \
        if (nv == 3 && ep->c48) {                                                             \
            _mm512_mask_storeu_epi8(ym + ep->ln[0].at, (__mmask64)0xffffffffffff,             \
                                    qi8_narrow64(qi8_rq16_1w(s##i##0, rp, ep->r1),            \
                                                 qi8_rq16_1w(s##i##1, rp, ep->r1),            \
                                                 qi8_rq16_1w(s##i##2, rp, ep->r1),            \
                                                 _mm512_setzero_si512(), ep->r1));            \
        } else {                                                                              \
        qi8_xstore(ym, &ep->ln[0], qi8_rq16_1(s##i##0, rp, ep->r1));                          \
        if (nv > 1)                                                                           \
            qi8_xstore(ym, &ep->ln[1], qi8_rq16_1(s##i##1, rp, ep->r1));                      \
        if (nv > 2)                                                                           \
            qi8_xstore(ym, &ep->ln[2], qi8_rq16_1(s##i##2, rp, ep->r1));                      \
        }                                                                                     \
    }
        QX_EPI(0) QX_EPI(1) QX_EPI(2) QX_EPI(3) QX_EPI(4) QX_EPI(5) QX_EPI(6) QX_EPI(7)
#undef QX_EPI
        return;
    }
    __m512i *av = (__m512i *)(void *)acc;
#define QX_PUT(i)                                                                             \
    _mm512_storeu_si512(av + 3 * (i), s##i##0);                                               \
    if (nv > 1)                                                                               \
        _mm512_storeu_si512(av + 3 * (i) + 1, s##i##1);                                       \
    if (nv > 2)                                                                               \
        _mm512_storeu_si512(av + 3 * (i) + 2, s##i##2);
    QX_PUT(0) QX_PUT(1) QX_PUT(2) QX_PUT(3) QX_PUT(4) QX_PUT(5) QX_PUT(6) QX_PUT(7)
#undef QX_PUT
}

/* The stored lanes of the nv vectors from virtual position v0 (rows of W, O2 of them
 * outputs; nvp positions in all). */
static void qi8_xlanes_of(ptrdiff_t v0, int nv, ptrdiff_t W, ptrdiff_t O2, ptrdiff_t nvp,
                          qi8_xlanes *ln) {
    for (int j = 0; j < nv; j++) {
        ptrdiff_t v = v0 + 16 * j, r = v / W, cl = v % W;
        if (W == O2) { /* every column an output: the lanes before the end */
            ptrdiff_t n = nvp - v < 16 ? nvp - v : 16;
            ln[j].mk = (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u);
            ln[j].at = v, ln[j].full = n >= 16;
            continue;
        }
        ln[j].mk = 0, ln[j].at = -1;
        for (int l = 0; l < 16 && v < nvp; l++, v++) {
            if (cl < O2) {
                ln[j].mk = (__mmask16)(ln[j].mk | (1u << l));
                if (ln[j].at < 0)
                    ln[j].at = r * O2 + cl;
            }
            if (++cl == W)
                cl = 0, r++;
        }
        ln[j].full = ln[j].mk == 0xffff; /* 16 outputs of one row */
    }
}

/* Requantizes and stores the sums of nv vectors by the outputs 8 mb .. 8 mb + 7 (< M): a block
 * that the epilogue in the registers (qi8_xep_t) does not take. */
static void qi8_xepi(const int32_t *acc, int nv, const qi8_xlanes *ln, ptrdiff_t mb, ptrdiff_t M,
                     ptrdiff_t osp, const int32_t *cbu, const int32_t *mant, const int32_t *sh,
                     int32_t zy, int32_t lo, int32_t hi, int ymode, uint8_t *y) {
    for (int i = 0; i < 8 && 8 * mb + i < M; i++) {
        const ptrdiff_t mo = 8 * mb + i;
        uint8_t *ym = y + mo * osp;
        const int32_t shm = sh[mo];
        if (shm >= 1 && shm <= 62) {
            const qi8_rq16_t rq = qi8_rq16_prep1(mant[mo], shm, zy, lo, hi, -1);
            const __m512i cv = _mm512_set1_epi32(cbu[mo]);
            for (int j = 0; j < nv; j++)
                qi8_xstore(ym, &ln[j],
                           qi8_rq16(_mm512_add_epi32(
                                        _mm512_loadu_si512((const void *)(acc + (3 * i + j) * 16)),
                                        cv),
                                    &rq));
        } else
            for (int j = 0; j < nv; j++) {
                ptrdiff_t n = 0;
                for (int l = 0; l < 16; l++)
                    if (ln[j].mk >> l & 1)
                        qi8_out((uint32_t)acc[(3 * i + j) * 16 + l] + (uint32_t)cbu[mo], mant[mo],
                                shm, zy, lo, hi, ymode, ym, ln[j].at + n++);
            }
    }
}

/* The sums of 6 positions (byte offsets vp of their dwords in plane 0) by nq (1 to 4) blocks
 * of 16 outputs (wb: the first block's weights, bs bytes from one block to the next), into
 * acc[(4 p + q) 16 + lane]. */
static O2C_INLINE void qi8_xtile_c(const int nq, const uint8_t *pb, const ptrdiff_t *vp,
                                   const int8_t *wb, ptrdiff_t bs, ptrdiff_t CQ, ptrdiff_t NT,
                                   const ptrdiff_t *toff, ptrdiff_t cqs, int32_t *acc) {
    __m512i s00 = _mm512_setzero_si512(), s01 = s00, s02 = s00, s03 = s00, s10 = s00, s11 = s00,
            s12 = s00, s13 = s00, s20 = s00, s21 = s00, s22 = s00, s23 = s00, s30 = s00,
            s31 = s00, s32 = s00, s33 = s00, s40 = s00, s41 = s00, s42 = s00, s43 = s00,
            s50 = s00, s51 = s00, s52 = s00, s53 = s00;
    const int8_t *wq = wb;
    for (ptrdiff_t t = 0; t < NT; t++) {
        const uint8_t *xp = pb + toff[t];
        for (ptrdiff_t c = 0; c < CQ; c++, xp += cqs, wq += 64) {
            /* the weight streams (one line of each block an iteration) */
            _mm_prefetch((const char *)(wq + 2048), _MM_HINT_T0);
            if (nq > 1)
                _mm_prefetch((const char *)(wq + bs + 2048), _MM_HINT_T0);
            if (nq > 2)
                _mm_prefetch((const char *)(wq + 2 * bs + 2048), _MM_HINT_T0);
            if (nq > 3)
                _mm_prefetch((const char *)(wq + 3 * bs + 2048), _MM_HINT_T0);
            const __m512i w0 = _mm512_loadu_si512((const void *)wq);
            const __m512i w1 = nq > 1 ? _mm512_loadu_si512((const void *)(wq + bs)) : w0;
            const __m512i w2 = nq > 2 ? _mm512_loadu_si512((const void *)(wq + 2 * bs)) : w0;
            const __m512i w3 = nq > 3 ? _mm512_loadu_si512((const void *)(wq + 3 * bs)) : w0;
#define QX_CSTEP(p)                                                                           \
    {                                                                                         \
        int32_t xd;                                                                           \
        memcpy(&xd, xp + vp[p], 4);                                                           \
        const __m512i xv = _mm512_set1_epi32(xd);                                             \
        s##p##0 = _mm512_dpbusd_epi32(s##p##0, xv, w0);                                       \
        if (nq > 1)                                                                           \
            s##p##1 = _mm512_dpbusd_epi32(s##p##1, xv, w1);                                   \
        if (nq > 2)                                                                           \
            s##p##2 = _mm512_dpbusd_epi32(s##p##2, xv, w2);                                   \
        if (nq > 3)                                                                           \
            s##p##3 = _mm512_dpbusd_epi32(s##p##3, xv, w3);                                   \
    }
            QX_CSTEP(0) QX_CSTEP(1) QX_CSTEP(2) QX_CSTEP(3) QX_CSTEP(4) QX_CSTEP(5)
#undef QX_CSTEP
        }
    }
    __m512i *av = (__m512i *)(void *)acc;
#define QX_CPUT(p)                                                                            \
    _mm512_storeu_si512(av + 4 * (p), s##p##0);                                               \
    if (nq > 1)                                                                               \
        _mm512_storeu_si512(av + 4 * (p) + 1, s##p##1);                                       \
    if (nq > 2)                                                                               \
        _mm512_storeu_si512(av + 4 * (p) + 2, s##p##2);                                       \
    if (nq > 3)                                                                               \
        _mm512_storeu_si512(av + 4 * (p) + 3, s##p##3);
    QX_CPUT(0) QX_CPUT(1) QX_CPUT(2) QX_CPUT(3) QX_CPUT(4) QX_CPUT(5)
#undef QX_CPUT
}

/* Requantizes and stores the sums of np positions (output indices at) by nq blocks of 16
 * outputs from 16 m0 (< M). */
static void qi8_xepi_c(const int32_t *acc, int np, const ptrdiff_t *at, int nq, ptrdiff_t m0,
                       ptrdiff_t M, ptrdiff_t osp, const int32_t *cbu, const int32_t *mant,
                       const int32_t *sh, int32_t zy, int32_t lo, int32_t hi, int ymode,
                       uint8_t *y) {
    for (int q = 0; q < nq; q++) {
        const ptrdiff_t mq = m0 + 16 * q, nm = M - mq < 16 ? M - mq : 16;
        const __mmask16 mk = (__mmask16)((1u << nm) - 1u);
        const __m512i shv = _mm512_maskz_loadu_epi32(mk, sh + mq);
        const int vec = !_mm512_mask_cmplt_epi32_mask(mk, shv, _mm512_set1_epi32(1)) &&
                        !_mm512_mask_cmpgt_epi32_mask(mk, shv, _mm512_set1_epi32(62));
        const qi8_rq16_t rq =
            qi8_rq16_prep(_mm512_maskz_loadu_epi32(mk, mant + mq), shv, zy, lo, hi);
        const __m512i cv = _mm512_maskz_loadu_epi32(mk, cbu + mq);
#if defined(__AVX512VBMI__)
        if (vec && np == 6 && at[5] == at[0] + 5) {
            /* six consecutive outputs: the 6 x 16 bytes transposed (VPERMT2B) into 16 rows of
             * 8, each channel's 6 bytes one masked store */
            __m512i b[6];
            for (int p = 0; p < 6; p++)
                b[p] = qi8_rq16w(
                    _mm512_add_epi32(_mm512_loadu_si512((const void *)(acc + (4 * p + q) * 16)), cv),
                    &rq);
            const __m512i lo4 = qi8_narrow64(b[0], b[1], b[2], b[3], &rq);
            const __m512i hi2 = qi8_narrow64(b[4], b[5], b[5], b[5], &rq);
            /* byte 8 c + p of row block c / 8 <- byte 16 p + c (p < 6) */
            static const int8_t ix[2][64] = {{
                0, 16, 32, 48, 64, 80, 80, 80, 1, 17, 33, 49, 65, 81, 81, 81,
                2, 18, 34, 50, 66, 82, 82, 82, 3, 19, 35, 51, 67, 83, 83, 83,
                4, 20, 36, 52, 68, 84, 84, 84, 5, 21, 37, 53, 69, 85, 85, 85,
                6, 22, 38, 54, 70, 86, 86, 86, 7, 23, 39, 55, 71, 87, 87, 87,
            }, {
                8, 24, 40, 56, 72, 88, 88, 88, 9, 25, 41, 57, 73, 89, 89, 89,
                10, 26, 42, 58, 74, 90, 90, 90, 11, 27, 43, 59, 75, 91, 91, 91,
                12, 28, 44, 60, 76, 92, 92, 92, 13, 29, 45, 61, 77, 93, 93, 93,
                14, 30, 46, 62, 78, 94, 94, 94, 15, 31, 47, 63, 79, 95, 95, 95,
            }};
            const __m512i t0 = _mm512_permutex2var_epi8(lo4, _mm512_loadu_si512((const void *)ix[0]), hi2);
            const __m512i t1 = _mm512_permutex2var_epi8(lo4, _mm512_loadu_si512((const void *)ix[1]), hi2);
            uint8_t *yq = y + mq * osp + at[0];
            for (ptrdiff_t i = 0; i < nm; i++) {
                const uintptr_t a = (uintptr_t)(yq + i * osp) - (uintptr_t)(8 * (i % 8));
                _mm512_mask_storeu_epi8((void *)a, (__mmask64)0x3f << (8 * (i % 8)),
                                        i < 8 ? t0 : t1);
            }
            continue;
        }
#endif
        for (int p = 0; p < np; p++) {
            const int32_t *a = acc + (4 * p + q) * 16;
            uint8_t *yp = y + mq * osp + at[p];
            if (vec) {
                uint8_t b[16];
                _mm_storeu_si128((__m128i *)(void *)b,
                                 qi8_rq16(_mm512_add_epi32(_mm512_loadu_si512((const void *)a), cv),
                                          &rq));
                for (ptrdiff_t i = 0; i < nm; i++)
                    yp[i * osp] = b[i];
            } else
                for (ptrdiff_t i = 0; i < nm; i++)
                    qi8_out((uint32_t)a[i] + (uint32_t)cbu[mq + i], mant[mq + i], sh[mq + i], zy,
                            lo, hi, ymode, yp, i * osp);
        }
    }
}

/* One image x[C][I1][I2] (8-bit, flip: the sign bit flipped when uint8) into y + yoff (M
 * channels of O1 x O2); zx the flipped zero point; cbu, mant, sh as in templates/quant_i8.c;
 * buf: qi8_xbuf bytes; up to nthr threads with OpenMP. */
static void qi8_convx(const void *x, int x_u8, int32_t zx, int64_t cin, int64_t m,
                      const int64_t *in, const int64_t *out, const int64_t *k,
                      const int64_t *stride, const int64_t *dil, const int64_t *pad,
                      const int8_t *wx, const int32_t *cbu, const int32_t *mant,
                      const int32_t *sh, int32_t zy, int32_t lo, int32_t hi, int ymode, void *y,
                      int64_t yoff, void *buf, int64_t nthr) {
    const ptrdiff_t C = (ptrdiff_t)cin, M = (ptrdiff_t)m, CQ = (C + 3) / 4;
    const ptrdiff_t I1 = (ptrdiff_t)in[1], I2 = (ptrdiff_t)in[2];
    const ptrdiff_t O1 = (ptrdiff_t)out[1], O2 = (ptrdiff_t)out[2];
    const ptrdiff_t K1 = (ptrdiff_t)k[1], K2 = (ptrdiff_t)k[2], NT = K1 * K2;
    const ptrdiff_t S1 = (ptrdiff_t)stride[1], S2 = (ptrdiff_t)stride[2];
    const ptrdiff_t D1 = (ptrdiff_t)dil[1], D2 = (ptrdiff_t)dil[2];
    const ptrdiff_t H = O1 + (K1 - 1) * D1 / S1, W = O2 + (K2 - 1) * D2 / S2;
    const ptrdiff_t plane = 4 * H * W, cqs = 4 * S1 * S2 * H * W, nvp = O1 * W;
    const uint8_t flip = x_u8 ? 0x80 : 0, xb = (uint8_t)(flip ^ 0x80);
    const uint8_t zb = (uint8_t)((uint8_t)zx ^ 0x80); /* the zero point's VNNI value */
    uint8_t *const pb = (uint8_t *)buf, *const yb = (uint8_t *)y + (ptrdiff_t)yoff;
    /* tiles of 48 positions; the last one of 16 or 32 when that covers the rest */
    const ptrdiff_t ntile = (nvp + QX_P - 1) / QX_P, nmb = (M + 7) / 8, nb16 = (M + 15) / 16;
    const ptrdiff_t bs = NT * CQ * 64; /* bytes of a block of 16 outputs' weights */
    /* a weight larger than L2's share: each block of outputs through all tiles (its weights
     * stay in L1), else each tile through all blocks (the tile's input stays in L1) */
    const int wmajor = nb16 * bs > 256 * 1024;
    /* lanes as output channels when that fills the vectors better (and the sums are long
     * enough to pay for the scattered stores) */
    const ptrdiff_t P = O1 * O2, last = nvp - (ntile - 1) * QX_P;
    const float fill_p = (float)P / (float)((ntile - 1) * QX_P + (last + 15) / 16 * 16);
    const float fill_c = (float)P / (float)((P + 5) / 6 * 6) * (float)M / (float)(nb16 * 16);
    const int chan = NT * CQ >= 16 && M >= 16 && fill_c > fill_p + 0.05f;
    int nt = 1;
    (void)nt, (void)nthr;
#ifdef _OPENMP
    nt = omp_get_max_threads();
    nt = nt < (int)nthr ? nt : (int)nthr;
    if ((float)nvp * (float)NT * (float)CQ * (float)M < 2e6f)
        nt = 1;
#endif
    /* the row and column phases that some tap reads (bits; phases >= 64 always packed) */
    uint64_t ua = 0, ub = 0;
    for (ptrdiff_t kh = 0; kh < K1; kh++)
        ua |= kh * D1 % S1 < 64 ? (uint64_t)1 << (kh * D1 % S1) : 0;
    for (ptrdiff_t kw = 0; kw < K2; kw++)
        ub |= kw * D2 % S2 < 64 ? (uint64_t)1 << (kw * D2 % S2) : 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
#endif
    for (ptrdiff_t q = 0; q < CQ; q++)
        qi8_xpack((const uint8_t *)x, C, I1, I2, q, S1, S2, (ptrdiff_t)pad[1], (ptrdiff_t)pad[2],
                  H, W, ua, ub, xb, zb, pb);
    ptrdiff_t toff[QX_TAPS]; /* the taps' byte offsets (the compiler keeps NT <= QX_TAPS) */
    for (ptrdiff_t kh = 0, t = 0; kh < K1; kh++)
        for (ptrdiff_t kw = 0; kw < K2 && t < QX_TAPS; kw++, t++)
            toff[t] = ((kh * D1 % S1) * S2 + kw * D2 % S2) * plane +
                      4 * ((kh * D1 / S1) * W + kw * D2 / S2);
    if (chan) {
        /* items: groups of 64 outputs (4 blocks) by tiles of 6 positions, group-major (the
         * group's weights stay in L2 through its tiles) */
        const ptrdiff_t ng = (nb16 + 3) / 4, npt = (P + 5) / 6;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
#endif
        for (ptrdiff_t it = 0; it < ng * npt; it++) {
            const ptrdiff_t g = it / npt, p0 = (it % npt) * 6;
            const int np = P - p0 < 6 ? (int)(P - p0) : 6, nq = nb16 - 4 * g < 4 ? (int)(nb16 - 4 * g) : 4;
            ptrdiff_t vp[6], at[6];
            for (int p = 0; p < 6; p++) {
                const ptrdiff_t o = p0 + (p < np ? p : 0);
                at[p] = o, vp[p] = 4 * (o / O2 * W + o % O2);
            }
            int32_t acc[24 * 16];
            const int8_t *wb = wx + 4 * g * bs;
            if (nq == 4)
                qi8_xtile_c(4, pb, vp, wb, bs, CQ, NT, toff, cqs, acc);
            else if (nq == 3)
                qi8_xtile_c(3, pb, vp, wb, bs, CQ, NT, toff, cqs, acc);
            else if (nq == 2)
                qi8_xtile_c(2, pb, vp, wb, bs, CQ, NT, toff, cqs, acc);
            else
                qi8_xtile_c(1, pb, vp, wb, bs, CQ, NT, toff, cqs, acc);
            qi8_xepi_c(acc, np, at, nq, 64 * g, M, O1 * O2, cbu, mant, sh, zy, lo, hi, ymode, yb);
        }
        return;
    }
    /* the requantization's terms per output (up to QX_RQT outputs; more: per block) */
    qi8_rq1_t rqt_[QX_RQT], *rqt = ymode != 2 && M <= QX_RQT ? rqt_ : NULL;
    const qi8_rq16_t r1 = qi8_rq16_prep1(1 << 30, 40, zy, lo, hi, -1); /* zy, lo, hi, sat */
    unsigned char bfast[QX_RQT / 8]; /* blocks of 8 whose outputs all take qi8_rq16_1 */
    for (ptrdiff_t i = 0; rqt && i < M; i++) {
        /* |v| <= the taps' products (uint8 x int8) and the constant */
        const int64_t cb = cbu[i] < 0 ? -(int64_t)cbu[i] : cbu[i];
        qi8_rq1_of(mant[i], sh[i], zy, (int64_t)NT * 4 * CQ * 255 * 128 + cb, &rqt[i]);
        if (i % 8 == 0)
            bfast[i / 8] = 1;
        bfast[i / 8] &= (unsigned char)rqt[i].ok;
    }
    const ptrdiff_t nit = wmajor ? ntile * nmb : ntile;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
#endif
    for (ptrdiff_t it = 0; it < nit; it++) {
        const ptrdiff_t tile = wmajor ? it % ntile : it;
        const ptrdiff_t v0 = tile * QX_P, rest = nvp - v0;
        const int nv = rest > 32 ? 3 : rest > 16 ? 2 : 1;
        qi8_xlanes ln[3];
        qi8_xlanes_of(v0, nv, W, O2, nvp, ln);
        const int c48 = nv == 3 && ln[0].full && ln[1].full && ln[2].full &&
                        ln[1].at == ln[0].at + 16 && ln[2].at == ln[0].at + 32;
        int32_t acc[24 * 16];
        for (ptrdiff_t mb = wmajor ? it / ntile : 0; mb < (wmajor ? it / ntile + 1 : nmb); mb++) {
            const int8_t *wq = wx + mb / 2 * bs + mb % 2 * 32;
            const uint8_t *xt = pb + 4 * v0;
            const qi8_xep_t ep = {rqt ? rqt + 8 * mb : NULL, cbu + 8 * mb, &r1, ln,
                                  yb + 8 * mb * O1 * O2, O1 * O2,
                                  M - 8 * mb < 8 ? (int)(M - 8 * mb) : 8, c48};
            const qi8_xep_t *epp = rqt && bfast[mb] ? &ep : NULL;
            if (nv == 3)
                qi8_xtile(3, xt, wq, CQ, NT, toff, cqs, acc, epp);
            else if (nv == 2)
                qi8_xtile(2, xt, wq, CQ, NT, toff, cqs, acc, epp);
            else
                qi8_xtile(1, xt, wq, CQ, NT, toff, cqs, acc, epp);
            if (!epp)
                qi8_xepi(acc, nv, ln, mb, M, O1 * O2, cbu, mant, sh, zy, lo, hi, ymode, yb);
        }
    }
}
#endif
