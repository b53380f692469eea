/* gemm.c - the GEMM engine behind MatMul, Gemm, Conv and ConvTranspose.
 *
 *   C = epilogue(alpha * op(A) * op(B) + beta * C)      op(A): M x K, op(B): K x N, C: M x N
 *
 * op(X) is X or its transpose (transX == 1).  Matrices are row-major with leading dimensions
 * lda/ldb/ldc, so a call can address a sub-block or a strided slice (a group of a convolution,
 * a tile of its output positions).  beta == 0 overwrites C without reading it (C may hold
 * garbage, NaN included).  transX == GEMM_PACKED means X is already packed (below): constant
 * weights are packed by the compiler, which then also folds alpha into them.  The epilogue
 * (may be NULL) adds a bias broadcast along rows and/or columns, a residual (a matrix shaped like
 * C), then applies an activation, on each tile of C right after its last K block, while the tile
 * is still in L1.
 *
 * Blocking (BLIS-style, sizes measured on AVX-512, see shared RECIPES):
 *   for jc in N step NC:              B block KC x NC packed once (1 MB, stays in L2)
 *     for pc in K step KC:
 *       for ic in M step MC:          A block MC x KC packed (128 KB)
 *         for ir in MC step MR:       one A micro-panel (MR x KC, 8 KB) stays in L1 ...
 *           for jr in NC step NR:     ... while B micro-panels (KC x NR) stream from L2
 *             micro-kernel: an MR x NR tile of C in registers, KC rank-1 updates.
 * Packed layouts (fixed by MR, NR, KC alone, whatever compiler builds the code, so the
 * compiler can pack constants ahead of time):
 *   A: for each K block pc (KC wide, the last one narrower), for each MR-row panel (rows padded
 *      with zeros to MR): kc x MR elements, k-major.  Block pc starts at pc * Mp (Mp = M rounded
 *      up to MR), its panel i at i * kc.
 *   B: for each K block pc, for each NR-column panel (padded with zeros): kc x NR, k-major.
 *      Block pc starts at pc * Np, its panel j at j * kc.
 * The micro-kernel is 8 x (two 64-byte vectors): 8 x 32 for float, 16 accumulators, written
 * with GCC/Clang vector extensions, on AVX-512; AVX2 and aarch64 take 32-byte sub-tiles, other
 * cores 4 x 4 blocks (GEMM_VECTOR below).
 * M < MR takes gemm_small_T instead: no MR padding (an 8-row tile for one row wasted 7/8 of
 * the work), A and row-major B read in place, a 1-row or 4-row kernel over NR-column panels.
 * Other compilers (tcc, MSVC) and cores without vector registers (Cortex-M4/M7, RV32F) get
 * the same loops in plain C, in 4 x 4 register blocks (also when O2C_NO_VECTOR is defined:
 * the unit tests check both paths). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "o2c_target.c"
#include "gemm_act.c"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#define GEMM_MR 8
#define GEMM_KC 256
#define GEMM_MC 128
#define GEMM_NC 1024
#define GEMM_PACKED 2
/* transA == GEMM_PACKED_ROWS: A packed, and C is read next by a depthwise Conv, whose threads
 * split the channels (C's rows): where C fits the caches (up to GEMM_ROWS_MAX elements, 1 MB
 * of floats), the threads split C's rows too (own_rows below), so that each reads what it
 * wrote (compiler/ops/conv.c marks such 1x1 Convs).  2 threads, MobileNetV2's expansions: 96
 * -> 576 at 14x14 0.060 -> 0.053 ms, 64 -> 384 0.029 -> 0.025, 32 -> 192 at 28x28 0.027 ->
 * 0.026, the depthwise after them 5% faster; larger outputs (144 x 56 x 56, 96 x 112 x 112)
 * had been slower by rows, 0.059 -> 0.062 and 0.130 -> 0.140 ms, and their depthwise too. */
#define GEMM_PACKED_ROWS 6
#define GEMM_ROWS_MAX 262144
#define GEMM_PAR_MIN 262144 /* multiply-adds of a block below which it runs on one thread */
#define GEMM_VL_T ((int)(64 / sizeof(T)))   /* elements per 64-byte vector */
#define GEMM_NR_T (2 * GEMM_VL_T)

typedef struct gemm_epi_T {
    const T *bias;     /* bias[i * bias_sm + j * bias_sn], or NULL */
    int64_t bias_sm, bias_sn;
    const T *res;      /* res[i * ldr + j], or NULL */
    int64_t ldr;
    int act;
    T p0, p1;
} gemm_epi_T;

/* Packs the mc x kc block of alpha * op(A) at (i0, k0) into MR-row panels. */
O2C_KERNEL
static void gemm_pack_a_T(const T *A, int64_t lda, int transA, int64_t i0, int64_t k0,
                                 int64_t mc, int64_t kc, T alpha, T *dst) {
    int64_t i, k, r;
    for (i = 0; i < mc; i += GEMM_MR) {
        const int64_t mr = mc - i < GEMM_MR ? mc - i : GEMM_MR;
        T *d = dst + i * kc;
        if (!transA) {
            for (r = 0; r < mr; r++) {
                const T *a = A + (i0 + i + r) * lda + k0;
                for (k = 0; k < kc; k++)
                    d[k * GEMM_MR + r] = alpha * a[k];
            }
        } else {
            for (k = 0; k < kc; k++) {
                const T *a = A + (k0 + k) * lda + i0 + i;
                for (r = 0; r < mr; r++)
                    d[k * GEMM_MR + r] = alpha * a[r];
            }
        }
        for (r = mr; r < GEMM_MR; r++)
            for (k = 0; k < kc; k++)
                d[k * GEMM_MR + r] = (T)0;
    }
}

/* Packs the kc x nc block of alpha * op(B) at (k0, j0) into NR-column panels. */
O2C_KERNEL
static void gemm_pack_b_T(const T *B, int64_t ldb, int transB, int64_t k0, int64_t j0,
                                 int64_t kc, int64_t nc, T alpha, T *dst) {
    const int64_t NR = GEMM_NR_T;
    int64_t j, k, c;
    for (j = 0; j < nc; j += NR) {
        const int64_t nr = nc - j < NR ? nc - j : NR;
        T *d = dst + j * kc;
        if (!transB) {
            for (k = 0; k < kc; k++) {
                const T *b = B + (k0 + k) * ldb + j0 + j;
                T *dk = d + k * NR;
                if (alpha == (T)1)
                    for (c = 0; c < nr; c++)
                        dk[c] = b[c];
                else
                    for (c = 0; c < nr; c++)
                        dk[c] = alpha * b[c];
                for (c = nr; c < NR; c++)
                    dk[c] = (T)0;
            }
        } else {
            for (c = 0; c < nr; c++) {
                const T *b = B + (j0 + j + c) * ldb + k0;
                for (k = 0; k < kc; k++)
                    d[k * NR + c] = alpha * b[k];
            }
            for (c = nr; c < NR; c++)
                for (k = 0; k < kc; k++)
                    d[k * NR + c] = (T)0;
        }
    }
}

/* Epilogue over the mr x nr tile of C at (i0, j0) of the whole product. */
O2C_KERNEL
static void gemm_epi_tile_T(const gemm_epi_T *ep, T *c, int64_t ldc, int64_t i0,
                                   int64_t j0, int64_t mr, int64_t nr) {
    int64_t i, j;
    for (i = 0; i < mr; i++) {
        T *ci = c + i * ldc;
        if (ep->bias) {
            const T *bi = ep->bias + (i0 + i) * ep->bias_sm + j0 * ep->bias_sn;
            if (ep->bias_sn == 0)
                for (j = 0; j < nr; j++)
                    ci[j] += bi[0];
            else
                for (j = 0; j < nr; j++)
                    ci[j] += bi[j * ep->bias_sn];
        }
        if (ep->res) {
            const T *ri = ep->res + (i0 + i) * ep->ldr + j0;
            for (j = 0; j < nr; j++)
                ci[j] += ri[j];
        }
        gemm_act_T(ci, nr, ep->act, ep->p0, ep->p1);
    }
}

/* Stores the mr x nr corner of the tile t (rows GEMM_NR_T apart) to C, overwriting when
 * `first`, else accumulating; then the epilogue ep (if any) of the tile at (i0, j0). */
static void gemm_store_tile_T(const T *t, T *c, int64_t ldc, int64_t mr, int64_t nr, int first,
                              const gemm_epi_T *ep, int64_t i0, int64_t j0) {
    int64_t i, j;
    for (i = 0; i < mr; i++)
        for (j = 0; j < nr; j++)
            c[i * ldc + j] = first ? t[i * GEMM_NR_T + j] : c[i * ldc + j] + t[i * GEMM_NR_T + j];
    if (ep)
        gemm_epi_tile_T(ep, c, ldc, i0, j0, mr, nr);
}

/* Micro-kernel: acc = A panel (kc x MR) x B panel (kc x NR, rows ldb apart: NR when packed,
 * the matrix's own ldb when read in place); then the mr x nr corner of the tile is stored to C
 * (overwriting when `first`, else accumulating), with the epilogue ep (NULL but after the last
 * K block) of the tile at (i0, j0) of the product: on a full tile with a per-row or per-column
 * bias, in registers before the one store, else by gemm_epi_tile_T after it. */
/* The vector kernels only where the core's registers hold their accumulators: the 64-byte one
 * with AVX-512 (32 registers of 64 bytes; also compiled, for the CPUs that have it, by an
 * x86-64 build that dispatches at run time), the 32-byte one with AVX2 + FMA (16 of 32 bytes)
 * and on aarch64 (32 of 16 bytes; its 8 accumulators take 16).  Other cores take gemm_ukr_c_T's
 * 4 x 4 blocks, in 4-float vectors where they have them (SSE2, 32-bit NEON, Helium): a core
 * without vectors (Cortex-M4/M7, RV32F) would get each 64-byte operation split into 16 scalar
 * ones (a 62 KB micro-kernel whose 256 accumulators live on the stack, and 20 s of
 * arm-none-eabi-gcc -O2 for each file that holds it), and Helium's 8 vector registers hold 2
 * of its 16 accumulators. */
#if defined(__GNUC__) && !defined(__TINYC__) && !defined(O2C_NO_VECTOR) &&                       \
    (O2C_X86_DISPATCH || defined(__AVX512F__) || defined(__aarch64__) ||                         \
     (defined(__AVX2__) && defined(__FMA__)))
#define GEMM_VECTOR 1
#if defined(__aarch64__) || (!O2C_X86_DISPATCH && !defined(__AVX512F__))
#define GEMM_V32 1
#else
#define GEMM_V32 0
#endif
/* The A panels of constant weights are packed back to back, so the micro-kernels prefetch
 * GEMM_PF_A elements (4 KB) ahead in A: weights that come from memory (a model's layers each
 * read their own once per run) otherwise stall the kernel on every cache line; measured on
 * AVX-512, a 160 x 960 weight times 49 columns from memory: 120 -> 84 us (hot: 82 us). */
#define GEMM_PF_A 1024
#if !defined(__clang__)
#define GEMM_FMA __attribute__((optimize("fp-contract=fast")))
#else
#define GEMM_FMA
#endif
#if O2C_X86_DISPATCH
#define GEMM_TARGET_V64 O2C_TARGET_AVX512 /* the kernel of CPUs with AVX-512 (picked below) */
#else
#define GEMM_TARGET_V64
#endif
#else
#define GEMM_VECTOR 0
#define GEMM_V32 0
#endif
#if GEMM_VECTOR && !GEMM_V32
__extension__ typedef T gemm_v_T __attribute__((vector_size(64)));
__extension__ typedef T gemm_vu_T __attribute__((vector_size(64), aligned(sizeof(T)), may_alias));
/* m ? a : b per lane, m a comparison of vectors (all ones or zeros per lane) */
#define GEMM_SEL_T(m, a, b)                                                                      \
    ((gemm_v_T)(((__typeof__(m))(a) & (m)) | ((__typeof__(m))(b) & ~(m))))
/* max(lo, v) and min(hi, v) (v < lo ? lo : v, v > hi ? hi : v: a NaN v stays): on x86 with
 * AVX-512 one instruction each for floats (the masks of GEMM_SEL_T took two) */
#if defined(__x86_64__) && (defined(__AVX512F__) || O2C_X86_DISPATCH) && O2C_F32_T
#include <immintrin.h>
#define GEMM_MAXV_T(lo, v) ((gemm_v_T)_mm512_max_ps((__m512)(lo), (__m512)(v)))
#define GEMM_MINV_T(hi, v) ((gemm_v_T)_mm512_min_ps((__m512)(hi), (__m512)(v)))
#else
#define GEMM_MAXV_T(lo, v) GEMM_SEL_T((v) < (lo), lo, v)
#define GEMM_MINV_T(hi, v) GEMM_SEL_T((v) > (hi), hi, v)
#endif
/* A full 8 x 32 tile acc (16 vectors, rows of two) to C (accumulating unless first), with the
 * epilogue (a bias per row or per column, a residual, the activation) in registers before the
 * one store (also templates/conv_ind.c's).  The epilogue's fields are read once: C's stores
 * (may_alias) had them reloaded for every row. */
GEMM_TARGET_V64 static O2C_INLINE void gemm_store_full_T(const gemm_v_T *acc, T *c, int64_t ldc,
                                                         int first, const gemm_epi_T *ep,
                                                         int64_t i0, int64_t j0) {
    const int VL = GEMM_VL_T;
    const T *const bias = ep ? ep->bias : (const T *)0, *const res = ep ? ep->res : (const T *)0;
    const int64_t bsm = ep ? ep->bias_sm : 0, bsn = ep ? ep->bias_sn : 0, ldr = ep ? ep->ldr : 0;
    const int act = ep ? ep->act : GEMM_ACT_NONE;
    const T ep0 = ep ? ep->p0 : (T)0, ep1 = ep ? ep->p1 : (T)0;
    gemm_v_T lo = {0}, hi = {0};
    int i;
    lo += act == GEMM_ACT_CLIP ? ep0 : (T)0;
    hi += ep1;
    for (i = 0; i < GEMM_MR; i++) {
        gemm_vu_T *p0 = (gemm_vu_T *)(void *)(c + i * ldc);
        gemm_vu_T *p1 = (gemm_vu_T *)(void *)(c + i * ldc + VL);
        gemm_v_T v0 = acc[2 * i], v1 = acc[2 * i + 1];
        if (!first)
            v0 += *p0, v1 += *p1;
        if (bias && bsn == 0) {
            const T bv = bias[(i0 + i) * bsm];
            v0 += bv, v1 += bv;
        } else if (bias) {
            const T *bi = bias + (i0 + i) * bsm + j0;
            v0 += *(const gemm_vu_T *)(const void *)bi;
            v1 += *(const gemm_vu_T *)(const void *)(bi + VL);
        }
        if (res) {
            const T *ri = res + (i0 + i) * ldr + j0;
            v0 += *(const gemm_vu_T *)(const void *)ri;
            v1 += *(const gemm_vu_T *)(const void *)(ri + VL);
        }
        if (act == GEMM_ACT_RELU || act == GEMM_ACT_CLIP) {
            /* in registers, as gemm_act_T (x < lo ? lo : x, then x > hi ? hi : x: a NaN
             * stays) */
            v0 = GEMM_MAXV_T(lo, v0), v1 = GEMM_MAXV_T(lo, v1);
            if (act == GEMM_ACT_CLIP)
                v0 = GEMM_MINV_T(hi, v0), v1 = GEMM_MINV_T(hi, v1);
        } else if (act != GEMM_ACT_NONE) {
            gemm_v_T t[2];
            t[0] = v0, t[1] = v1;
            gemm_act_T((T *)(void *)t, 2 * VL, act, ep0, ep1);
            v0 = t[0], v1 = t[1];
        }
        *p0 = v0, *p1 = v1;
    }
}

/* The 8 x 32 tile's 16 accumulators, one rank-1 update (A's 8 values at a, B's row b0 b1),
 * and the accumulators into 16 vectors tv (also templates/conv_ind.c's kernel) */
#define GEMM_ACC_DECL_T                                                                          \
    gemm_v_T c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0},       \
             c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0}, c60 = {0}, c61 = {0},       \
             c70 = {0}, c71 = {0}
#define GEMM_ACC_STEP_T(a, b0, b1)                                                               \
    (c00 += (a)[0] * (b0), c01 += (a)[0] * (b1), c10 += (a)[1] * (b0), c11 += (a)[1] * (b1),    \
     c20 += (a)[2] * (b0), c21 += (a)[2] * (b1), c30 += (a)[3] * (b0), c31 += (a)[3] * (b1),    \
     c40 += (a)[4] * (b0), c41 += (a)[4] * (b1), c50 += (a)[5] * (b0), c51 += (a)[5] * (b1),    \
     c60 += (a)[6] * (b0), c61 += (a)[6] * (b1), c70 += (a)[7] * (b0), c71 += (a)[7] * (b1))
#define GEMM_ACC_OUT_T(tv)                                                                       \
    (tv[0] = c00, tv[1] = c01, tv[2] = c10, tv[3] = c11, tv[4] = c20, tv[5] = c21, tv[6] = c30, \
     tv[7] = c31, tv[8] = c40, tv[9] = c41, tv[10] = c50, tv[11] = c51, tv[12] = c60,          \
     tv[13] = c61, tv[14] = c70, tv[15] = c71)
/* The common whole tile, overwriting C (the first K block), with no bias or one a row and
 * ReLU, Clip or no activation (GEMM_EPI_PLAIN_T), stored straight from the 16 accumulators
 * (also templates/conv_ind.c's): through an array and gemm_store_full_T's loop over its rows,
 * which GCC did not unroll, the stores of 16-step tiles (1x1 Convs of 16 input channels) had
 * taken a third of their time (96 x 16 times 16 x 3000 with ReLU 51 -> 44 us, 64 x 27 times
 * 27 x 3025 51 -> 46). */
#define GEMM_EPI_PLAIN_T(ep)                                                                     \
    (!(ep) || ((ep)->bias_sn == 0 && !(ep)->res && (ep)->act <= GEMM_ACT_CLIP))
#define GEMM_OUT_ROW_T(i, ca, cb)                                                                \
    do {                                                                                         \
        gemm_v_T v0 = ca, v1 = cb;                                                               \
        if (bias_) {                                                                             \
            const T bv = bias_[(i0_ + (i)) * bsm_];                                              \
            v0 += bv, v1 += bv;                                                                  \
        }                                                                                        \
        if (act_ != GEMM_ACT_NONE)                                                               \
            v0 = GEMM_MAXV_T(lo_, v0), v1 = GEMM_MAXV_T(lo_, v1);                                \
        if (act_ == GEMM_ACT_CLIP)                                                               \
            v0 = GEMM_MINV_T(hi_, v0), v1 = GEMM_MINV_T(hi_, v1);                                \
        *(gemm_vu_T *)(void *)(c_ + (i) * ldc_) = v0;                                            \
        *(gemm_vu_T *)(void *)(c_ + (i) * ldc_ + GEMM_VL_T) = v1;                                \
    } while (0)
#define GEMM_ACC_STORE_T(c, ldc, ep, i0)                                                         \
    do {                                                                                         \
        T *const c_ = (c);                                                                       \
        const int64_t ldc_ = (ldc), i0_ = (i0);                                                  \
        const T *const bias_ = (ep) ? (ep)->bias : (const T *)0;                                 \
        const int64_t bsm_ = (ep) ? (ep)->bias_sm : 0;                                           \
        const int act_ = (ep) ? (ep)->act : GEMM_ACT_NONE;                                       \
        gemm_v_T lo_ = {0}, hi_ = {0};                                                           \
        lo_ += act_ == GEMM_ACT_CLIP ? (ep)->p0 : (T)0;                                          \
        hi_ += act_ == GEMM_ACT_CLIP ? (ep)->p1 : (T)0;                                          \
        GEMM_OUT_ROW_T(0, c00, c01);                                                             \
        GEMM_OUT_ROW_T(1, c10, c11);                                                             \
        GEMM_OUT_ROW_T(2, c20, c21);                                                             \
        GEMM_OUT_ROW_T(3, c30, c31);                                                             \
        GEMM_OUT_ROW_T(4, c40, c41);                                                             \
        GEMM_OUT_ROW_T(5, c50, c51);                                                             \
        GEMM_OUT_ROW_T(6, c60, c61);                                                             \
        GEMM_OUT_ROW_T(7, c70, c71);                                                             \
    } while (0)
/* A partial tile (rows [0, mr), columns [0, nr) of t, rows GEMM_NR_T apart) to C with no bias
 * or one a row, a residual or none, ReLU, Clip or no activation: masked vectors on x86 with
 * AVX-512 for floats, else (and for the other epilogues) gemm_store_tile_T's scalar loops.
 * (The last column panels of 13x13, 14x14 and 7x7 images, N = 169, 196, 49: 960 x 160 times
 * 160 x 49 with Clip 76.3 -> 72.2 us, 1000 x 512 times 512 x 169 with ReLU 729 -> 723.) */
#if defined(__x86_64__) && (defined(__AVX512F__) || O2C_X86_DISPATCH) && O2C_F32_T
GEMM_TARGET_V64 static void gemm_store_mask_T(const T *t, T *c, int64_t ldc, int64_t mr,
                                              int64_t nr, int first, const gemm_epi_T *ep,
                                              int64_t i0, int64_t j0) {
    const __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xffffu : (1u << nr) - 1);
    const __mmask16 m1 = (__mmask16)(nr >= 32 ? 0xffffu : nr <= 16 ? 0u : (1u << (nr - 16)) - 1);
    const T *const bias = ep ? ep->bias : (const T *)0, *const res = ep ? ep->res : (const T *)0;
    const int64_t bsm = ep ? ep->bias_sm : 0, ldr = ep ? ep->ldr : 0;
    const int act = ep ? ep->act : GEMM_ACT_NONE;
    const __m512 lo = _mm512_set1_ps(act == GEMM_ACT_CLIP ? ep->p0 : 0.0f);
    const __m512 hi = _mm512_set1_ps(act == GEMM_ACT_CLIP ? ep->p1 : 0.0f);
    int64_t i;
    for (i = 0; i < mr; i++) {
        T *const ci = c + i * ldc;
        __m512 v0 = _mm512_loadu_ps(t + i * GEMM_NR_T);
        __m512 v1 = m1 ? _mm512_loadu_ps(t + i * GEMM_NR_T + 16) : _mm512_setzero_ps();
        if (!first) {
            v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, ci));
            v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, ci + 16));
        }
        if (bias) {
            const __m512 bv = _mm512_set1_ps(bias[(i0 + i) * bsm]);
            v0 = _mm512_add_ps(v0, bv), v1 = _mm512_add_ps(v1, bv);
        }
        if (res) {
            const T *ri = res + (i0 + i) * ldr + j0;
            v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, ri));
            v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, ri + 16));
        }
        if (act != GEMM_ACT_NONE) /* max(lo, x), min(hi, x): a NaN x stays */
            v0 = _mm512_max_ps(lo, v0), v1 = _mm512_max_ps(lo, v1);
        if (act == GEMM_ACT_CLIP)
            v0 = _mm512_min_ps(hi, v0), v1 = _mm512_min_ps(hi, v1);
        _mm512_mask_storeu_ps(ci, m0, v0);
        if (m1)
            _mm512_mask_storeu_ps(ci + 16, m1, v1);
    }
}
#define GEMM_STORE_PART_T(t, c, ldc, mr, nr, first, ep, i0, j0)                                  \
    (!(ep) || ((ep)->bias_sn == 0 && (ep)->act <= GEMM_ACT_CLIP)                                 \
         ? gemm_store_mask_T(t, c, ldc, mr, nr, first, ep, i0, j0)                               \
         : gemm_store_tile_T(t, c, ldc, mr, nr, first, ep, i0, j0))
#else
#define GEMM_STORE_PART_T gemm_store_tile_T
#endif
/* A tile of at most 16 columns (the last column panel of N = 169, 196, 40 ...): one vector a
 * row, as two sets of 8 sums over even and odd k (8 chains would wait on the FMA latency),
 * into the tile array tv (rows of 2 vectors, the first one used); a step takes the 8 A values
 * of two consecutive k and B's vectors v, w of those k (also templates/conv_ind.c's). */
#define GEMM_HALF_DECL_T                                                                         \
    gemm_v_T h0 = {0}, h1 = {0}, h2 = {0}, h3 = {0}, h4 = {0}, h5 = {0}, h6 = {0}, h7 = {0},    \
             g0 = {0}, g1 = {0}, g2 = {0}, g3 = {0}, g4 = {0}, g5 = {0}, g6 = {0}, g7 = {0}
#define GEMM_HALF_STEP_T(a, v, w)                                                                \
    (h0 += (a)[0] * (v), h1 += (a)[1] * (v), h2 += (a)[2] * (v), h3 += (a)[3] * (v),            \
     h4 += (a)[4] * (v), h5 += (a)[5] * (v), h6 += (a)[6] * (v), h7 += (a)[7] * (v),            \
     g0 += (a)[8] * (w), g1 += (a)[9] * (w), g2 += (a)[10] * (w), g3 += (a)[11] * (w),          \
     g4 += (a)[12] * (w), g5 += (a)[13] * (w), g6 += (a)[14] * (w), g7 += (a)[15] * (w))
#define GEMM_HALF_LAST_T(a, v) /* an odd kc's last k */                                     \
    (h0 += (a)[0] * (v), h1 += (a)[1] * (v), h2 += (a)[2] * (v), h3 += (a)[3] * (v),            \
     h4 += (a)[4] * (v), h5 += (a)[5] * (v), h6 += (a)[6] * (v), h7 += (a)[7] * (v))
#define GEMM_HALF_OUT_T(tv)                                                                      \
    (tv[0] = h0 + g0, tv[2] = h1 + g1, tv[4] = h2 + g2, tv[6] = h3 + g3, tv[8] = h4 + g4,      \
     tv[10] = h5 + g5, tv[12] = h6 + g6, tv[14] = h7 + g7)
/* 17 to 20 columns (the last panel of N = 49, 52, 81, 84, 113, 116, ...): the half tile over
 * columns 0-15, and columns 16 .. 15 + n (n <= 4 a constant where this is inlined) as vectors
 * of the 8 rows of A's panel times one B element, in the same pass (even and odd k apart, as
 * the half tile's sums): per pair of k, 16 + 2n FMAs instead of the full tile's 32 (ResNet-18's
 * and MobileNetV2's 7x7 layers, N = 49 = 32 + 17).  Into the tile array t (rows of NR). */
#define GEMM_XCOLS 4
__extension__ typedef T gemm_vm_T __attribute__((vector_size(GEMM_MR * sizeof(T))));
__extension__ typedef T gemm_vmu_T
    __attribute__((vector_size(GEMM_MR * sizeof(T)), aligned(sizeof(T)), may_alias));
GEMM_TARGET_V64 GEMM_FMA
static O2C_INLINE void gemm_half_cols_T(int64_t kc, const T *a, const T *b, int64_t ldb,
                                        const int n, T *t) {
    const int VL = GEMM_VL_T;
    gemm_vu_T *tv = (gemm_vu_T *)(void *)t;
    gemm_vm_T x[GEMM_XCOLS], y[GEMM_XCOLS];
    int64_t k;
    int j, i;
    GEMM_HALF_DECL_T;
    for (j = 0; j < n; j++)
        x[j] = (gemm_vm_T){0}, y[j] = x[j];
    for (k = 0; k + 1 < kc; k += 2) {
        const gemm_vm_T av = *(const gemm_vmu_T *)(const void *)a;
        const gemm_vm_T aw = *(const gemm_vmu_T *)(const void *)(a + GEMM_MR);
        GEMM_HALF_STEP_T(a, *(const gemm_vu_T *)(const void *)b,
                         *(const gemm_vu_T *)(const void *)(b + ldb));
        for (j = 0; j < n; j++)
            x[j] += av * b[VL + j], y[j] += aw * b[ldb + VL + j];
        __builtin_prefetch(a + GEMM_PF_A);
        a += 2 * GEMM_MR;
        b += 2 * ldb;
    }
    if (k < kc) {
        const gemm_vm_T av = *(const gemm_vmu_T *)(const void *)a;
        GEMM_HALF_LAST_T(a, *(const gemm_vu_T *)(const void *)b);
        for (j = 0; j < n; j++)
            x[j] += av * b[VL + j];
    }
    GEMM_HALF_OUT_T(tv);
    for (j = 0; j < n; j++) {
        const gemm_vm_T v = x[j] + y[j];
        for (i = 0; i < GEMM_MR; i++)
            t[i * GEMM_NR_T + VL + j] = v[i];
    }
}

GEMM_TARGET_V64 GEMM_FMA
static void gemm_ukr_T(int64_t kc, const T *a, const T *b, int64_t ldb, T *c, int64_t ldc,
                       int64_t mr, int64_t nr, int first, const gemm_epi_T *ep, int64_t i0,
                       int64_t j0) {
    const int VL = GEMM_VL_T;
    GEMM_ACC_DECL_T;
    int64_t k;
    if (nr > VL && nr <= VL + GEMM_XCOLS) {
        T t[GEMM_MR * 2 * (64 / sizeof(T))];
        switch (nr - VL) { /* each a copy with its own count of column sums */
        case 1:
            gemm_half_cols_T(kc, a, b, ldb, 1, t);
            break;
        case 2:
            gemm_half_cols_T(kc, a, b, ldb, 2, t);
            break;
        case 3:
            gemm_half_cols_T(kc, a, b, ldb, 3, t);
            break;
        default:
            gemm_half_cols_T(kc, a, b, ldb, 4, t);
            break;
        }
        GEMM_STORE_PART_T(t, c, ldc, mr, nr, first, ep, i0, j0);
        return;
    }
    if (nr <= VL) {
        T t[GEMM_MR * 2 * (64 / sizeof(T))];
        gemm_vu_T *tv = (gemm_vu_T *)(void *)t;
        GEMM_HALF_DECL_T;
        for (k = 0; k + 1 < kc; k += 2) {
            GEMM_HALF_STEP_T(a, *(const gemm_vu_T *)(const void *)b,
                             *(const gemm_vu_T *)(const void *)(b + ldb));
            __builtin_prefetch(a + GEMM_PF_A);
            a += 2 * GEMM_MR;
            b += 2 * ldb;
        }
        if (k < kc)
            GEMM_HALF_LAST_T(a, *(const gemm_vu_T *)(const void *)b);
        GEMM_HALF_OUT_T(tv);
        GEMM_STORE_PART_T(t, c, ldc, mr, nr, first, ep, i0, j0);
        return;
    }
    for (k = 0; k < kc; k++) {
        const gemm_v_T b0 = *(const gemm_vu_T *)(const void *)b;
        const gemm_v_T b1 = *(const gemm_vu_T *)(const void *)(b + VL);
        GEMM_ACC_STEP_T(a, b0, b1);
        if (k & 1)
            __builtin_prefetch(a + GEMM_PF_A);
        a += GEMM_MR;
        b += ldb;
    }
    if (mr == GEMM_MR && nr == 2 * VL && first && GEMM_EPI_PLAIN_T(ep)) {
        GEMM_ACC_STORE_T(c, ldc, ep, i0);
    } else if (mr == GEMM_MR && nr == 2 * VL && (!ep || !ep->bias || ep->bias_sn <= 1)) {
        gemm_v_T acc[16];
        GEMM_ACC_OUT_T(acc);
        gemm_store_full_T(acc, c, ldc, first, ep, i0, j0);
    } else {
        T t[GEMM_MR * 2 * (64 / sizeof(T))];
        gemm_vu_T *tv = (gemm_vu_T *)(void *)t;
        GEMM_ACC_OUT_T(tv);
        GEMM_STORE_PART_T(t, c, ldc, mr, nr, first, ep, i0, j0);
    }
}
#endif

#if O2C_X86_DISPATCH || GEMM_V32
#if O2C_X86_DISPATCH
#define GEMM_TARGET_V32 O2C_TARGET_AVX2
#else
#define GEMM_TARGET_V32
#endif
/* AVX2 + FMA (16 ymm registers), and 64-bit Arm: the 8 x NR tile as four sub-tiles of 4 rows x two 32-byte
 * vectors, 8 accumulators each, every one a pass over the kc panels (8 FMAs to 2 loads and 4
 * broadcasts per k: the 64-byte kernel's 16 accumulators would need 32 registers here). */
__extension__ typedef T gemm_v8_T __attribute__((vector_size(32)));
__extension__ typedef T gemm_v8u_T __attribute__((vector_size(32), aligned(sizeof(T)), may_alias));
GEMM_TARGET_V32 GEMM_FMA
static void gemm_ukr_v32_T(int64_t kc, const T *a, const T *b, int64_t ldb, T *c, int64_t ldc,
                          int64_t mr, int64_t nr, int first, const gemm_epi_T *ep, int64_t i0,
                          int64_t j0) {
    const int VL = (int)(32 / sizeof(T)), NR = GEMM_NR_T;
    const int full = mr == GEMM_MR && nr == NR;
    T t[GEMM_MR * 2 * (64 / sizeof(T))]; /* the tile, when only its mr x nr corner is stored */
    int h, q, i;
    int64_t k;
    for (h = 0; h < GEMM_MR; h += 4) {
        for (q = 0; q < NR; q += 2 * VL) {
            const T *ak = a + h, *bk = b + q;
            gemm_v8_T c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0},
                      c31 = {0}, acc[8];
            for (k = 0; k < kc; k++) {
                const gemm_v8_T b0 = *(const gemm_v8u_T *)(const void *)bk;
                const gemm_v8_T b1 = *(const gemm_v8u_T *)(const void *)(bk + VL);
                c00 += ak[0] * b0, c01 += ak[0] * b1;
                c10 += ak[1] * b0, c11 += ak[1] * b1;
                c20 += ak[2] * b0, c21 += ak[2] * b1;
                c30 += ak[3] * b0, c31 += ak[3] * b1;
                if (k & 1)
                    __builtin_prefetch(ak + GEMM_PF_A);
                ak += GEMM_MR;
                bk += ldb;
            }
            acc[0] = c00, acc[1] = c01, acc[2] = c10, acc[3] = c11;
            acc[4] = c20, acc[5] = c21, acc[6] = c30, acc[7] = c31;
            for (i = 0; i < 4; i++) {
                gemm_v8u_T *p = full ? (gemm_v8u_T *)(void *)(c + (h + i) * ldc + q)
                                     : (gemm_v8u_T *)(void *)(t + (h + i) * NR + q);
                if (full && !first)
                    p[0] += acc[2 * i], p[1] += acc[2 * i + 1];
                else
                    p[0] = acc[2 * i], p[1] = acc[2 * i + 1];
            }
        }
    }
    if (!full)
        gemm_store_tile_T(t, c, ldc, mr, nr, first, ep, i0, j0);
    else if (ep)
        gemm_epi_tile_T(ep, c, ldc, i0, j0, mr, nr);
}
#endif

#if !GEMM_VECTOR || O2C_X86_DISPATCH
/* Plain C (tcc, cores without vectors, Helium, SSE2 or 32-bit NEON builds, x86 CPUs without
 * AVX2 in a dispatching build): the tile in 4 x 4
 * blocks, each block in 16 scalars over the kc panels, 8 loads to 16 multiply-adds (a Cortex-M4F
 * or an RV32F core has 32 float registers), or with 4-float vectors (O2C_V4: Helium's 8 vector
 * registers) in 4 accumulators, a load of B and 4 multiply-adds by A's elements; only the blocks
 * of the mr x nr corner are computed, each element's products summed in k order. */
O2C_KERNEL
static void gemm_ukr_c_T(int64_t kc, const T *a, const T *b, int64_t ldb, T *c, int64_t ldc,
                         int64_t mr, int64_t nr, int first, const gemm_epi_T *ep, int64_t i0,
                         int64_t j0) {
    const int64_t NR = GEMM_NR_T;
    T acc[GEMM_MR * 2 * (64 / sizeof(T))];
    int64_t h, q, k;
    for (h = 0; h < mr; h += 4) {
        for (q = 0; q < nr; q += 4) {
            const T *ak = a + h, *bk = b + q;
            T *t = acc + h * NR + q;
#if O2C_V4 && O2C_F32_T
            o2c_v4 v0 = o2c_v4_dup(0.0f), v1 = v0, v2 = v0, v3 = v0;
            for (k = 0; k < kc; k++) {
                const o2c_v4 bv = o2c_v4_ld(bk);
                v0 = o2c_v4_fma(v0, bv, ak[0]), v1 = o2c_v4_fma(v1, bv, ak[1]);
                v2 = o2c_v4_fma(v2, bv, ak[2]), v3 = o2c_v4_fma(v3, bv, ak[3]);
                ak += GEMM_MR;
                bk += ldb;
            }
            o2c_v4_st(t, v0), o2c_v4_st(t + NR, v1), o2c_v4_st(t + 2 * NR, v2);
            o2c_v4_st(t + 3 * NR, v3);
#else
            T c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0, c13 = 0;
            T c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0, c32 = 0, c33 = 0;
            for (k = 0; k < kc; k++) {
                const T a0 = ak[0], a1 = ak[1], a2 = ak[2], a3 = ak[3];
                const T b0 = bk[0], b1 = bk[1], b2 = bk[2], b3 = bk[3];
                c00 += a0 * b0, c01 += a0 * b1, c02 += a0 * b2, c03 += a0 * b3;
                c10 += a1 * b0, c11 += a1 * b1, c12 += a1 * b2, c13 += a1 * b3;
                c20 += a2 * b0, c21 += a2 * b1, c22 += a2 * b2, c23 += a2 * b3;
                c30 += a3 * b0, c31 += a3 * b1, c32 += a3 * b2, c33 += a3 * b3;
                ak += GEMM_MR;
                bk += ldb;
            }
            t[0] = c00, t[1] = c01, t[2] = c02, t[3] = c03;
            t += NR;
            t[0] = c10, t[1] = c11, t[2] = c12, t[3] = c13;
            t += NR;
            t[0] = c20, t[1] = c21, t[2] = c22, t[3] = c23;
            t += NR;
            t[0] = c30, t[1] = c31, t[2] = c32, t[3] = c33;
#endif
        }
    }
    gemm_store_tile_T(acc, c, ldc, mr, nr, first, ep, i0, j0);
}
#endif

/* The micro-kernel this CPU runs best: with O2C_X86_DISPATCH, the AVX-512 one, else the AVX2
 * one, else plain C (the engine calls it through the pointer); otherwise the one the flags
 * built, called by name (GEMM_UKR_T), so the compiler can specialise it. */
#if O2C_X86_DISPATCH
#define GEMM_UKR_T ukr
#define GEMM_UKR_SMALL_T ukr
#elif GEMM_V32
#define GEMM_UKR_T gemm_ukr_v32_T
#define GEMM_UKR_SMALL_T gemm_ukr_small_c_T
#elif GEMM_VECTOR
#define GEMM_UKR_T gemm_ukr_T
#define GEMM_UKR_SMALL_T gemm_ukr_small_T
#else
#define GEMM_UKR_T gemm_ukr_c_T
#define GEMM_UKR_SMALL_T gemm_ukr_small_c_T
#endif
typedef void (*gemm_ukr_fn_T)(int64_t kc, const T *a, const T *b, int64_t ldb, T *c, int64_t ldc,
                              int64_t mr, int64_t nr, int first, const gemm_epi_T *ep,
                              int64_t i0, int64_t j0);
static gemm_ukr_fn_T gemm_ukr_pick_T(void) {
#if O2C_X86_DISPATCH
    if (o2c_cpu_avx512())
        return gemm_ukr_T;
    if (o2c_cpu_avx2())
        return gemm_ukr_v32_T;
    return gemm_ukr_c_T;
#elif GEMM_V32
    return gemm_ukr_v32_T;
#elif GEMM_VECTOR
    return gemm_ukr_T;
#else
    return gemm_ukr_c_T;
#endif
}

/* Small M (fewer than MR rows: a GEMV, a fully connected layer on one sample, a correlation
 * with one output channel): the mr x nr tile (mr <= 4) of alpha * A x B panel, A read in place
 * (element (i, k) at a[i * sai + k * sak]), B panel rows ldb apart; overwrites C when `first`,
 * else accumulates.  Rows past mr repeat the last one (computed, never stored). */
#if GEMM_VECTOR && !GEMM_V32
GEMM_TARGET_V64 GEMM_FMA
static void gemm_ukr_small_T(int64_t kc, int64_t mr, const T *a, int64_t sai, int64_t sak,
                             const T *b, int64_t ldb, T *c, int64_t ldc, int64_t nr, int first,
                             T alpha) {
    const int VL = GEMM_VL_T;
    gemm_v_T acc[8];
    int64_t i, j, k;
    if (mr == 1) {
        /* one row: four k steps in flight (8 independent sums) */
        gemm_v_T s00 = {0}, s01 = {0}, s10 = {0}, s11 = {0}, s20 = {0}, s21 = {0}, s30 = {0},
                 s31 = {0};
        for (k = 0; k + 4 <= kc; k += 4) {
            const T *bk = b + k * ldb;
            s00 += a[k * sak] * *(const gemm_vu_T *)(const void *)bk;
            s01 += a[k * sak] * *(const gemm_vu_T *)(const void *)(bk + VL);
            s10 += a[(k + 1) * sak] * *(const gemm_vu_T *)(const void *)(bk + ldb);
            s11 += a[(k + 1) * sak] * *(const gemm_vu_T *)(const void *)(bk + ldb + VL);
            s20 += a[(k + 2) * sak] * *(const gemm_vu_T *)(const void *)(bk + 2 * ldb);
            s21 += a[(k + 2) * sak] * *(const gemm_vu_T *)(const void *)(bk + 2 * ldb + VL);
            s30 += a[(k + 3) * sak] * *(const gemm_vu_T *)(const void *)(bk + 3 * ldb);
            s31 += a[(k + 3) * sak] * *(const gemm_vu_T *)(const void *)(bk + 3 * ldb + VL);
        }
        for (; k < kc; k++) {
            s00 += a[k * sak] * *(const gemm_vu_T *)(const void *)(b + k * ldb);
            s01 += a[k * sak] * *(const gemm_vu_T *)(const void *)(b + k * ldb + VL);
        }
        acc[0] = (s00 + s10) + (s20 + s30);
        acc[1] = (s01 + s11) + (s21 + s31);
    } else {
        const T *a0 = a, *a1 = a + sai, *a2 = a + (mr > 2 ? 2 : mr - 1) * sai,
                *a3 = a + (mr > 3 ? 3 : mr - 1) * sai;
        gemm_v_T c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0},
                 c31 = {0};
        for (k = 0; k < kc; k++) {
            const gemm_v_T b0 = *(const gemm_vu_T *)(const void *)(b + k * ldb);
            const gemm_v_T b1 = *(const gemm_vu_T *)(const void *)(b + k * ldb + VL);
            const int64_t ak = k * sak;
            c00 += a0[ak] * b0, c01 += a0[ak] * b1;
            c10 += a1[ak] * b0, c11 += a1[ak] * b1;
            c20 += a2[ak] * b0, c21 += a2[ak] * b1;
            c30 += a3[ak] * b0, c31 += a3[ak] * b1;
        }
        acc[0] = c00, acc[1] = c01, acc[2] = c10, acc[3] = c11;
        acc[4] = c20, acc[5] = c21, acc[6] = c30, acc[7] = c31;
    }
    for (i = 0; i < mr; i++) {
        T t[2 * (64 / sizeof(T))];
        gemm_vu_T *tv = (gemm_vu_T *)(void *)t;
        tv[0] = alpha * acc[2 * i], tv[1] = alpha * acc[2 * i + 1];
        for (j = 0; j < nr; j++)
            c[i * ldc + j] = first ? t[j] : c[i * ldc + j] + t[j];
    }
}
#endif
#if !GEMM_VECTOR || O2C_X86_DISPATCH || GEMM_V32
/* Plain C (vectorised by the C compiler: with O2C_X86_DISPATCH, for AVX2 in its clone). */
O2C_KERNEL
static void gemm_ukr_small_c_T(int64_t kc, int64_t mr, const T *a, int64_t sai, int64_t sak,
                             const T *b, int64_t ldb, T *c, int64_t ldc, int64_t nr, int first,
                             T alpha) {
    T acc[2 * (64 / sizeof(T))];
    int64_t i, j, k;
    for (i = 0; i < mr; i++) {
        for (j = 0; j < nr; j++)
            acc[j] = (T)0;
        for (k = 0; k < kc; k++) {
            const T ak = a[i * sai + k * sak];
            const T *bk = b + k * ldb;
            for (j = 0; j < nr; j++)
                acc[j] += ak * bk[j];
        }
        for (j = 0; j < nr; j++)
            c[i * ldc + j] = first ? alpha * acc[j] : c[i * ldc + j] + alpha * acc[j];
    }
}
#endif

typedef void (*gemm_ukr_small_fn_T)(int64_t kc, int64_t mr, const T *a, int64_t sai,
                                    int64_t sak, const T *b, int64_t ldb, T *c, int64_t ldc,
                                    int64_t nr, int first, T alpha);
static gemm_ukr_small_fn_T gemm_ukr_small_pick_T(void) {
#if O2C_X86_DISPATCH
    return o2c_cpu_avx512() ? gemm_ukr_small_T : gemm_ukr_small_c_T;
#elif GEMM_VECTOR && !GEMM_V32
    return gemm_ukr_small_T;
#else
    return gemm_ukr_small_c_T;
#endif
}

/* One (jc, pc) block of the engine for M < MR (below).  Its B panels are shared out among the
 * threads of the region gemm_small_T opened when par (o2c_part), else done whole. */
static void gemm_small_block_T(int par, int64_t M, int64_t nc, int64_t kc, int64_t jc,
                               int64_t pc, const T *ap, int64_t sai, int64_t sak, const T *B,
                               int64_t ldb, int transB, int64_t np, T *C, int64_t ldc, T alpha,
                               int first, const gemm_epi_T *ep, T *bbuf,
                               gemm_ukr_small_fn_T ukr) {
    const int64_t NR = GEMM_NR_T, npan = (nc + NR - 1) / NR;
    const int64_t nfull = transB == 0 ? nc / NR * NR : 0;
    int64_t p, lo, hi;
    (void)ukr; /* called through GEMM_UKR_SMALL_T */
    if (transB == 1) {
        o2c_part(par, npan, &lo, &hi);
        for (p = lo; p < hi; p++)
            gemm_pack_b_T(B, ldb, 1, pc, jc + p * NR, kc, nc - p * NR < NR ? nc - p * NR : NR,
                          (T)1, bbuf + p * NR * kc);
        o2c_sync(par);
    } else if (transB == 0 && nfull < nc) {
        if (o2c_lead(par))
            gemm_pack_b_T(B, ldb, 0, pc, jc + nfull, kc, nc - nfull, (T)1, bbuf);
        o2c_sync(par);
    }
    o2c_part(par, npan, &lo, &hi);
    for (p = lo; p < hi; p++) {
        const int64_t jr = p * NR, nr = nc - jr < NR ? nc - jr : NR;
        const T *bp = bbuf + jr * kc;
        int64_t lb = NR, i;
        if (transB == GEMM_PACKED)
            bp = B + pc * np + (jc + jr) * kc;
        else if (transB == 0 && jr < nfull)
            bp = B + pc * ldb + jc + jr, lb = ldb;
        else if (transB == 0)
            bp = bbuf;
        for (i = 0; i < M; i += 4)
            GEMM_UKR_SMALL_T(kc, M - i < 4 ? M - i : 4, ap + i * sai, sai, sak, bp, lb,
                             C + i * ldc + jc + jr, ldc, nr, first, alpha);
        if (ep)
            gemm_epi_tile_T(ep, C + jc + jr, ldc, 0, jc + jr, M, nr);
    }
}

/* The engine for M < MR: B panels read in place when B is row-major (the last partial one,
 * and a transposed B, packed into bbuf), A read in place, no MR padding.  beta is already
 * applied to C.  Built with OpenMP, a block with enough work shares its B panels out. */
static void gemm_small_T(int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, int transA,
                         const T *B, int64_t ldb, int transB, T *C, int64_t ldc, T alpha, T beta,
                         const gemm_epi_T *epi, T *bbuf) {
    const int64_t NR = GEMM_NR_T, np = (N + NR - 1) / NR * NR;
    const int64_t sai = transA ? 1 : lda;
    const int64_t sak = transA == GEMM_PACKED ? GEMM_MR : transA ? lda : 1;
    const gemm_ukr_small_fn_T ukr = gemm_ukr_small_pick_T();
    int64_t jc, pc;
    for (jc = 0; jc < N; jc += GEMM_NC) {
        const int64_t nc = N - jc < GEMM_NC ? N - jc : GEMM_NC;
        for (pc = 0; pc < K; pc += GEMM_KC) {
            const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
            const int first = pc == 0 && beta == (T)0;
            const gemm_epi_T *ep = pc + kc == K ? epi : NULL;
            /* packed A: block pc at pc * MR (one panel); else column pc of op(A).  Threads
             * from an eighth of GEMM_PAR_MIN: a few rows stream B (a weight) from memory, and
             * two cores stream it faster (MobileNetV3's 1024 -> 1000 classifier).  Never inside
             * another region (o2c_par: libgomp would start a new team of threads for each;
             * ResNet-18 on 2 threads once took 42 ms instead of 13) */
            const T *ap = transA == GEMM_PACKED ? A + pc * GEMM_MR : A + pc * sak;
#ifdef _OPENMP
            if (o2c_par(M * nc * kc >= GEMM_PAR_MIN / 8 && nc > NR)) {
#pragma omp parallel
                gemm_small_block_T(1, M, nc, kc, jc, pc, ap, sai, sak, B, ldb, transB, np, C,
                                   ldc, alpha, first, ep, bbuf, ukr);
                continue;
            }
#endif
            gemm_small_block_T(0, M, nc, kc, jc, pc, ap, sai, sak, B, ldb, transB, np, C, ldc,
                               alpha, first, ep, bbuf, ukr);
        }
    }
}

/* One column (N == 1) with A packed: a constant weight times a vector (a 1x1 Conv on a 1x1
 * image, as in squeeze-excitation blocks).  The tile kernel would spend 31 of its 32 columns on
 * padding; here each 8-row panel streams once through 8 sums (two chains over k), then
 * y = alpha * sum (+ C when acc), and the epilogue.  Panels [p0, p1). */
O2C_KERNEL
static void gemm_pa_col_run_T(int64_t p0, int64_t p1, int64_t M, int64_t K, const T *A,
                              const T *B, int64_t sb, T *C, int64_t ldc, T alpha, int acc,
                              const gemm_epi_T *epi) {
    const int64_t mp = (M + GEMM_MR - 1) / GEMM_MR * GEMM_MR;
    int64_t p, pc, k, r;
    for (p = p0; p < p1; p++) {
        const int64_t i0 = p * GEMM_MR, mr = M - i0 < GEMM_MR ? M - i0 : GEMM_MR;
        T s0[GEMM_MR], s1[GEMM_MR];
        for (r = 0; r < GEMM_MR; r++)
            s0[r] = (T)0, s1[r] = (T)0;
        for (pc = 0; pc < K; pc += GEMM_KC) {
            const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
            const T *ap = A + pc * mp + i0 * kc, *bp = B + pc * sb;
            for (k = 0; k + 1 < kc; k += 2) {
                const T b0 = bp[0], b1 = bp[sb];
                for (r = 0; r < GEMM_MR; r++)
                    s0[r] += ap[r] * b0;
                for (r = 0; r < GEMM_MR; r++)
                    s1[r] += ap[GEMM_MR + r] * b1;
#if GEMM_VECTOR
                __builtin_prefetch(ap + GEMM_PF_A);
#endif
                ap += 2 * GEMM_MR, bp += 2 * sb;
            }
            if (k < kc)
                for (r = 0; r < GEMM_MR; r++)
                    s0[r] += ap[r] * bp[0];
        }
        for (r = 0; r < mr; r++) {
            const T v = alpha * (s0[r] + s1[r]);
            C[(i0 + r) * ldc] = acc ? C[(i0 + r) * ldc] + v : v;
        }
        if (epi)
            gemm_epi_tile_T(epi, C + i0 * ldc, ldc, i0, 0, mr, 1);
    }
}

/* B's column: element k at B[k * sb]; the panels shared among the threads (from an eighth of
 * GEMM_PAR_MIN: the weight streams from memory, faster on two cores; o2c_par, as in
 * gemm_small_T). */
static void gemm_pa_col_T(int64_t M, int64_t K, const T *A, const T *B, int64_t sb, T *C,
                          int64_t ldc, T alpha, int acc, const gemm_epi_T *epi) {
    const int64_t np = (M + GEMM_MR - 1) / GEMM_MR;
#ifdef _OPENMP
    if (o2c_par(M * K >= GEMM_PAR_MIN / 8 && np > 1)) {
#pragma omp parallel
        {
            int64_t lo, hi;
            o2c_share(np, &lo, &hi);
            gemm_pa_col_run_T(lo, hi, M, K, A, B, sb, C, ldc, alpha, acc, epi);
        }
        return;
    }
#endif
    gemm_pa_col_run_T(0, np, M, K, A, B, sb, C, ldc, alpha, acc, epi);
}

/* One (jc, pc) block of the engine (below), its rows [i0, M) (i0 a multiple of MR): pack the
 * kc x nc block of B (unless packed or read in place), then per MC block of rows pack A and
 * run the micro-kernel over its MR x NR tiles.  The B panels, the A panels and the tiles (row
 * panel outer, so a thread keeps its A panel in L1) are shared out among the threads of the
 * region gemm_T opened when par (o2c_part).  Else done whole, from kc = 128 the column panel
 * outer: its kc x NR panel of B (up to 32 KB) stays in L1 while the A panels (a quarter of
 * that) stream from L2 (2026-12-07, a Xeon, 1 thread: the Transformer's linears 4-7% faster,
 * SqueezeNet's 512 -> 1000 over 13x13 1.08 -> 1.02 ms; on 2 threads ResNet-18's 256-channel
 * layers 6%).  Short panels keep the rows outer: they cost little to reread, and C's rows
 * then go out in long runs (MobileNetV2's 16 -> 96 over 112x112, 2 threads each on its own
 * columns, had taken 0.29 ms by columns against 0.18).  par == 2 (B
 * read in place): each thread packs the last, partial panel into its own bbuf (gemm_T gives
 * each thread its own panel of the buffer), no barrier. */
static void gemm_block_T(int par, int64_t i0, int64_t M, int64_t nc, int64_t kc, int64_t jc,
                         int64_t pc, const T *A, int64_t lda, int transA, const T *B, int64_t ldb,
                         int transB, T *C, int64_t ldc, T alpha_a, T alpha_b, int first,
                         const gemm_epi_T *ep, int direct_b, int64_t mp, int64_t np, T *abuf,
                         T *bbuf, gemm_ukr_fn_T ukr) {
    const int64_t NR = GEMM_NR_T, npan = (nc + NR - 1) / NR;
    const int64_t nfull = nc / NR * NR; /* direct_b: panels read in place */
    const int rows = par || kc < 128;   /* the tiles' order (above) */
    const T *bp = bbuf;
    int64_t ic, p, t, lo, hi;
    (void)ukr; /* called through GEMM_UKR_T */
    if (transB == GEMM_PACKED) {
        bp = B + pc * np + jc * kc;
    } else if (!direct_b) {
        o2c_part(par, npan, &lo, &hi);
        for (p = lo; p < hi; p++)
            gemm_pack_b_T(B, ldb, transB, pc, jc + p * NR, kc,
                          nc - p * NR < NR ? nc - p * NR : NR, alpha_b, bbuf + p * NR * kc);
        o2c_sync(par);
    } else if (nfull < nc) {
        if (par == 2 || o2c_lead(par))
            gemm_pack_b_T(B, ldb, 0, pc, jc + nfull, kc, nc - nfull, (T)1, bbuf);
        if (par != 2)
            o2c_sync(par);
    }
    for (ic = i0; ic < M; ic += GEMM_MC) {
        const int64_t mc = M - ic < GEMM_MC ? M - ic : GEMM_MC;
        const int64_t nir = (mc + GEMM_MR - 1) / GEMM_MR;
        const T *ap = abuf;
        if (transA == GEMM_PACKED) {
            ap = A + pc * mp + ic * kc;
        } else {
            o2c_part(par, nir, &lo, &hi);
            for (p = lo; p < hi; p++)
                gemm_pack_a_T(A, lda, transA, ic + p * GEMM_MR, pc,
                              mc - p * GEMM_MR < GEMM_MR ? mc - p * GEMM_MR : GEMM_MR, kc,
                              alpha_a, abuf + p * GEMM_MR * kc);
            o2c_sync(par);
        }
        o2c_part(par, nir * npan, &lo, &hi);
        for (t = lo; t < hi; t++) {
            const int64_t ir = rows ? t / npan * GEMM_MR : t % nir * GEMM_MR;
            const int64_t jr = rows ? t % npan * NR : t / nir * NR;
            const int64_t mr = mc - ir < GEMM_MR ? mc - ir : GEMM_MR;
            const int64_t nr = nc - jr < NR ? nc - jr : NR;
            T *ct = C + (ic + ir) * ldc + jc + jr;
            const int64_t ti = ic + ir, tj = jc + jr;
            if (!direct_b)
                GEMM_UKR_T(kc, ap + ir * kc, bp + jr * kc, NR, ct, ldc, mr, nr, first, ep, ti,
                           tj);
            else if (jr < nfull)
                GEMM_UKR_T(kc, ap + ir * kc, B + pc * ldb + jc + jr, ldb, ct, ldc, mr, nr, first,
                           ep, ti, tj);
            else
                GEMM_UKR_T(kc, ap + ir * kc, bbuf, NR, ct, ldc, mr, nr, first, ep, ti, tj);
        }
        if (ic + GEMM_MC < M && transA != GEMM_PACKED)
            o2c_sync(par); /* (the next block's A panels overwrite abuf) */
    }
}

/* The engine's (jc, pc) blocks of the rows [i0, M) in order over the columns [j0, N), ncb
 * columns a block (GEMM_NC, or less where a thread packs B into its own slice of the buffer),
 * shared out (par) as in gemm_block_T; a barrier after each block but the last (the next one
 * repacks the shared panels). */
static void gemm_blocks_T(int par, int64_t i0, int64_t M, int64_t j0, int64_t N, int64_t K,
                          const T *A, int64_t lda, int transA, const T *B, int64_t ldb,
                          int transB, T *C, int64_t ldc, T alpha_a, T alpha_b, T beta,
                          const gemm_epi_T *epi, int direct_b, int64_t mp, int64_t np,
                          T *abuf, T *bbuf, gemm_ukr_fn_T ukr, int64_t ncb) {
    int64_t jc, pc;
    for (jc = j0; jc < N; jc += ncb) {
        const int64_t nc = N - jc < ncb ? N - jc : ncb;
        for (pc = 0; pc < K; pc += GEMM_KC) {
            const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
            const int first = pc == 0 && beta == (T)0;
            const gemm_epi_T *ep = pc + kc == K ? epi : NULL;
            /* (both operands packed, or A packed and B read in place with par == 2: nothing
             * shared is rewritten, and each thread keeps the same tiles of C from block to
             * block) */
            if ((jc > j0 || pc > 0) && (transA != GEMM_PACKED || transB != GEMM_PACKED) &&
                !(par == 2 && transA == GEMM_PACKED))
                o2c_sync(par);
            gemm_block_T(par, i0, M, nc, kc, jc, pc, A, lda, transA, B, ldb, transB, C, ldc,
                         alpha_a, alpha_b, first, ep, direct_b, mp, np, abuf, bbuf, ukr);
        }
    }
}

/* The engine.  work: min(roundup(M, MR), MC) * min(K, KC) + min(K, KC) * min(roundup(N, NR), NC)
 * elements (+16 keeps the B part 64-byte aligned; the compiler's gp_work), none for a
 * GEMM_PACKED operand's part. */
static void gemm_T(int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, int transA_in,
                   const T *B, int64_t ldb, int transB, T *C, int64_t ldc, T alpha, T beta,
                   const gemm_epi_T *epi, T *work) {
    const int rows_next = transA_in == GEMM_PACKED_ROWS;
    const int transA = rows_next ? GEMM_PACKED : transA_in;
    const int64_t NR = GEMM_NR_T;
    const int64_t mp = (M + GEMM_MR - 1) / GEMM_MR * GEMM_MR, np = (N + NR - 1) / NR * NR;
    const int64_t kc0 = K < GEMM_KC ? K : GEMM_KC;
    T *abuf = work, *bbuf = work + (transA == GEMM_PACKED ? 0 : (mp < GEMM_MC ? mp : GEMM_MC) * kc0);
    const gemm_ukr_fn_T ukr = gemm_ukr_pick_T();
    /* B is read in place (no packing) when few row panels share it (M <= MC), up to K = 160 with
     * the 32-byte and plain C kernels (measured on 1x1-conv shapes: up to 30% faster at K = 32,
     * equal at 64, slower from about K = 256; MobileNetV2's 144 -> 24 at 56x56 0.145 -> 0.119
     * ms, ResNet-18's unfolded 7x7 stem, K = 147, 1.50 -> 1.33 ms) and at any K with the
     * 64-byte kernel, which prefetches its B rows (2026-12-07, 1x1 Convs on one thread: 384 ->
     * 64 at 14x14 0.045 -> 0.040 ms, 288 -> 24 at 56x56 0.226 -> 0.173, 1152 -> 128 at 28x28
     * 1.05 -> 0.93, 2048 -> 32 at 7x7 0.039 -> 0.030; none slower); the last, partial column
     * panel is still packed.  alpha then goes into A (never pre-packed with alpha != 1).  On
     * more threads, past K = 160 only with two column panels a thread or more: with fewer,
     * packing lets each thread pack and multiply its own panel with no barrier (2 threads, 7x7
     * images, two panels: 2048 -> 32 0.022 ms packed, 0.029 read in place; 1024 -> 64 0.019,
     * 0.022; 576 -> 96 0.015, 0.017; at 14x14, seven panels, read in place is faster: 384 ->
     * 64 0.026 -> 0.024, 320 -> 24 0.011 -> 0.010). */
    int64_t kdir = 160, kown = 160;
#if GEMM_VECTOR && !GEMM_V32
    if (ukr == gemm_ukr_T) {
        kdir = kown = K;
#ifdef _OPENMP
        if (o2c_par(1) && np / NR < 2 * (int64_t)omp_get_max_threads())
            kdir = 160;
#endif
    }
#endif
    /* Few column panels (fewer than two a thread: a 7x7 image's 49 columns are a panel of 32
     * and one of 17) and many row panels: each thread takes its own rows through all the
     * blocks, no barrier, B read in place and its last, partial panel packed by each thread
     * into its own panel of bbuf (past K = 160 only with the 64-byte kernel, as above).  By
     * columns, the thread with the full panel had taken 1.5x the other's time (2 threads,
     * 7x7: 960 -> 160 0.041 -> 0.037 ms, 320 -> 1280 0.105 -> 0.094, 256 -> 512 0.034 ->
     * 0.030; MobileNetV2 on 2 threads 1.67x -> 1.72-1.76x its 1-thread speed; outputs
     * bit-identical).  Also where the panels split unevenly, one thread's columns over a tenth
     * more than an even share (13x13: 96 and 73 columns; 2 threads, SqueezeNet's 512 -> 1000
     * 0.396 -> 0.377 ms, 96 -> 576 0.045 -> 0.043; the model 1.71 -> 1.67 ms). */
    int own_rows = 0;
    (void)kown, (void)rows_next;
#ifdef _OPENMP
    {
        const int64_t thr = o2c_par(1) ? omp_get_max_threads() : 1;
        /* the largest of the threads' shares of the columns, split by panels */
        int64_t most = 0, ti;
        for (ti = 0; ti < thr; ti++) {
            const int64_t c0 = np / NR * ti / thr * NR, c1 = np / NR * (ti + 1) / thr * NR;
            const int64_t cols = (c1 < N ? c1 : N) - c0;
            most = cols > most ? cols : most;
        }
        own_rows = thr > 1 && transA == GEMM_PACKED && transB == 0 && alpha == (T)1 && K <= kown &&
                   (np / NR < 2 * thr || most * thr * 10 > N * 11 ||
                    (rows_next && M * N <= GEMM_ROWS_MAX)) &&
                   np / NR >= thr &&
                   (M + GEMM_MR - 1) / GEMM_MR >= 4 * thr;
    }
#endif
    const int direct_b = own_rows || (transB == 0 && M <= GEMM_MC && K <= kdir &&
                                      (transA != GEMM_PACKED || alpha == (T)1));
    /* alpha is applied while packing B, or A when B is not packed here */
    const T alpha_b = direct_b ? (T)1 : alpha;
    const T alpha_a = transB == GEMM_PACKED || direct_b ? alpha : (T)1;
    int64_t i, j;
    if (M <= 0 || N <= 0)
        return;
    if (beta != (T)0 && beta != (T)1)
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++)
                C[i * ldc + j] *= beta;
    if (K <= 0 || alpha == (T)0) {
        for (i = 0; i < M && beta == (T)0; i++)
            for (j = 0; j < N; j++)
                C[i * ldc + j] = (T)0;
        if (epi)
            for (i = 0; i < M; i += GEMM_MR)
                gemm_epi_tile_T(epi, C + i * ldc, ldc, i, 0, M - i < GEMM_MR ? M - i : GEMM_MR, N);
        return;
    }
    if (N == 1 && transA == GEMM_PACKED) {
        gemm_pa_col_T(M, K, A, B, transB == GEMM_PACKED ? NR : transB ? 1 : ldb, C, ldc,
                      transB == GEMM_PACKED ? (T)1 : alpha, beta != (T)0, epi);
        return;
    }
    if (M < GEMM_MR) {
        gemm_small_T(M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta, epi, bbuf);
        return;
    }
#ifdef _OPENMP
    {
        /* Nothing to pack here (A packed; B packed, or read in place) and many column
         * panels: each thread takes its own columns through all the blocks, no barrier (the
         * last panel, partial, is packed by the one thread that has it), and enough work in
         * all of them forks.  A 1x1 Conv over a 160x160 image has 25 blocks of 1024 columns
         * (two barriers each), each too small alone to fork for: on two threads it ran alone,
         * and slower than on one thread (its input half in the other core's cache).
         * B packed here: each thread packs its own panels, at their own place in bbuf, and
         * multiplies them, again without a barrier, from one panel a thread (each reads only B
         * panels it packed: MobileNetV2's 192 -> 32 1x1 over 28x28 had read half of them from
         * the other core, 0.099 -> 0.042 ms; over 7x7, two panels, 0.076 -> 0.064).  B wider
         * than the buffer (np > NC): each thread its own slice of NC / threads columns, its
         * columns in blocks of up to that (MobileNetV2's 24 -> 144 over 56x56, 3136 columns:
         * the threads had shared each block's panels and tiles, with barriers, and took longer
         * than one thread, 0.20 against 0.155 ms).  B read in place or packed by the caller:
         * from 8 panels a thread (else the tiles go by rows; ResNet-18's unfolded 7x7x512, two
         * panels, took 20% longer by columns). */
        const int64_t thr = omp_get_max_threads();
        const int pack_own = !direct_b && transB != GEMM_PACKED &&
                             (np <= GEMM_NC || GEMM_NC / thr >= NR);
        const int own_cols = transA == GEMM_PACKED &&
                             ((pack_own && np / NR >= thr) ||
                              ((direct_b || transB == GEMM_PACKED) && np / NR >= 8 * thr));
        /* else one region for all the blocks: a fork costs several times a barrier (each
         * block ends with one) */
        const int64_t fmas = M * (own_cols || N < GEMM_NC ? N : GEMM_NC) *
                             (K < GEMM_KC ? K : GEMM_KC);
        if (o2c_par(fmas >= GEMM_PAR_MIN && (M > GEMM_MR || N > NR))) {
#pragma omp parallel
            {
                if (own_rows) {
                    int64_t lo, hi;
                    o2c_share((M + GEMM_MR - 1) / GEMM_MR, &lo, &hi);
                    if (hi > lo)
                        gemm_blocks_T(0, lo * GEMM_MR, hi * GEMM_MR < M ? hi * GEMM_MR : M, 0, N,
                                      K, A, lda, transA, B, ldb, transB, C, ldc, alpha_a, alpha_b,
                                      beta, epi, direct_b, mp, np, abuf,
                                      bbuf + omp_get_thread_num() * NR * kc0, ukr, GEMM_NC);
                } else if (own_cols) {
                    int64_t lo, hi, ncb = GEMM_NC;
                    T *bb;
                    o2c_share(np / NR, &lo, &hi);
                    bb = pack_own ? bbuf + lo * NR * kc0 : bbuf;
                    if (pack_own && np > GEMM_NC) {
                        /* the thread's slice: ncw columns; its hi - lo panels in nb equal
                         * blocks of at most that (hi > lo: own_cols needs np / NR >= thr, at
                         * least one panel a thread, so nb >= 1; ncw >= NR by pack_own) */
                        const int64_t ncw = GEMM_NC / omp_get_num_threads() / NR * NR;
                        const int64_t nb = ((hi - lo) * NR + ncw - 1) / ncw;
                        ncb = (hi - lo + nb - 1) / nb * NR;
                        bb = bbuf + omp_get_thread_num() * ncw * kc0;
                    }
                    gemm_blocks_T(0, 0, M, lo * NR, hi * NR < N ? hi * NR : N, K, A, lda, transA, B,
                                  ldb, transB, C, ldc, alpha_a, alpha_b, beta, epi, direct_b, mp,
                                  np, abuf, bb, ukr, ncb);
                } else {
                    /* B read in place: each thread packs its own copy of the partial panel
                     * when bbuf has a panel a thread, and then needs no barrier (2 threads:
                     * MobileNetV3's 240 -> 40 at 14x14 0.016 -> 0.012 ms, SqueezeNet's 384 ->
                     * 48 at 13x13 0.026 -> 0.019; outputs bit-identical) */
                    const int par = direct_b && np / NR >= omp_get_num_threads() ? 2 : 1;
                    gemm_blocks_T(par, 0, M, 0, N, K, A, lda, transA, B, ldb, transB, C, ldc,
                                  alpha_a, alpha_b, beta, epi, direct_b, mp, np, abuf,
                                  par == 2 ? bbuf + omp_get_thread_num() * NR * kc0 : bbuf, ukr,
                                  GEMM_NC);
                }
            }
            return;
        }
    }
#endif
    gemm_blocks_T(0, 0, M, 0, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha_a, alpha_b, beta,
                  epi, direct_b, mp, np, abuf, bbuf, ukr, GEMM_NC);
}
