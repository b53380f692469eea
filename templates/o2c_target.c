/* o2c_target.c - what the core that compiles the generated C offers, from the C compiler's
 * predefined macros (one generated file serves every target; kernels choose their register
 * blocks by these):
 *   O2C_V4      1: 4-float vectors, o2c_v4 and the o2c_v4_* macros below.  Helium (Cortex-M55,
 *               __ARM_FEATURE_MVE with its float half) through <arm_mve.h>; SSE (x86-64), NEON
 *               (aarch64, ARMv7 with NEON) and other GCC/Clang targets with 16-byte vectors
 *               through GCC vector extensions.  0: scalar register blocks (Cortex-M4/M7 with
 *               their 32 single-precision registers, RV32F, tcc, anything else; O2C_NO_VECTOR
 *               forces it, the unit tests check both).  O2C_MVE: the Helium one (its
 *               predicated tails and gathers).
 *   o2c_facc    the type float kernels accumulate long sums in (AveragePool, MVN, NLL...):
 *               double where the FPU has double precision, float on a single-precision FPU
 *               (__ARM_FP without bit 8: Cortex-M4F, M33; RV32F without D) and on soft-float
 *               targets, where double arithmetic would be library calls (O2C_FACC_FLOAT forces
 *               float: the unit tests run that path on the host).  O2C_ACC_T is the
 *               accumulator of element type T (the emitter's suffixes: O2C_ACC_f32, O2C_ACC_f64)
 *               and O2C_F32_T is 1 when T is float (kernels with float-only vector paths).
 *   O2C_HOT     on a kernel's hot function (GCC): multiply-adds fused whatever -std says
 *               (ISO modes do not contract), and no scheduling before register allocation,
 *               which on 32-register cores turns 24 accumulators into spills and copies.
 *   O2C_INLINE  forces inlining (GCC/Clang), so a call with literal strides or kernel sizes
 *               gets its own copy of the loop with immediate offsets; marked unused, so a
 *               helper a model does not call (o2c_part below) is no warning.
 *   O2C_X86_DISPATCH  1: an x86-64 GCC/Clang build whose flags do not promise AVX-512 (plain
 *               -O2, or -mavx2): the hot kernels are also compiled for AVX-512 (O2C_TARGET_AVX512)
 *               and AVX2 + FMA (O2C_TARGET_AVX2, empty when the flags already have them), and
 *               each call runs the best the CPU has: o2c_cpu_avx512() / o2c_cpu_avx2() read what
 *               libgcc's start-up found with cpuid (__builtin_cpu_supports: nothing is written
 *               after start-up, so it is thread-safe).  O2C_NO_DISPATCH turns it off.
 *   O2C_KERNEL  on a kernel whose loops the C compiler vectorises (Winograd transforms, unfold):
 *               with O2C_X86_DISPATCH, GCC vectorises them at -O2 too (its -O2 cost model
 *               leaves loops with a remainder scalar) and, on glibc, builds them for x86-64-v4
 *               (AVX-512), x86-64-v3 (AVX2) and the flags' baseline, the loader picking one per
 *               process (target_clones: an ifunc, resolved before main).  Not for small
 *               functions in hot loops: a call goes through the ifunc.  The small helpers such
 *               a kernel calls are O2C_INLINE: GCC does not inline a function into one whose
 *               optimisation options differ.  Elsewhere nothing: the kernel stays inlinable
 *               into the run function, which specialises it (-O3 vectorises its loops).
 *   o2c_par(big) built with OpenMP: whether a loop of enough work (big != 0) forks the threads:
 *               only with more than one thread to run it and outside every region, an inactive
 *               one included (libgomp starts a new team for a region nested in an inactive
 *               one).  A region that runs on one thread is not free: libgomp ends it, and each
 *               barrier in it, with a futex system call (1-4 us; 90 of them per SqueezeNet
 *               run), so serial work calls its loop directly, not through `if (0)` regions.
 *               o2c_share(n, &lo, &hi): the calling thread's part [lo, hi) of n items, split
 *               as schedule(static) would. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif
#ifndef O2C_TARGET_H
#define O2C_TARGET_H

/* GCC on x86-64: the loops it vectorises itself (transforms, unfold, activations) in 64-byte
 * vectors where the flags have them, like the kernels' own vector types.  GCC's tuning for
 * Intel cores (-march=native on them) prefers 32 bytes, and a 64-byte vector stored and read
 * back in 32-byte halves (or the reverse) waits for the store to retire (2026-12-07, a Xeon
 * with AVX-512, -O3 -march=native, 1 thread, against the same C without this: MobileNetV3-Small
 * 9% faster, ResNet-18 2%; MobileNetV2's depthwise 3x3 on 192 x 28 x 28 0.099 -> 0.061 ms
 * before conv_dwc.c took its activation into registers).  Not where the flags leave AVX-512 to
 * the run-time dispatch: GCC ignores target_clones under a target pragma. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__AVX512F__) &&   \
    __GNUC__ >= 8
#pragma GCC target("prefer-vector-width=512")
#endif

#if !defined(O2C_NO_VECTOR) && !defined(__TINYC__) && defined(__ARM_FEATURE_MVE) &&             \
    (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#define O2C_V4 1
#define O2C_MVE 1
typedef float32x4_t o2c_v4;
#define o2c_v4_ld(p) vld1q_f32(p)
#define o2c_v4_st(p, v) vst1q_f32(p, v)
#define o2c_v4_dup(s) vdupq_n_f32(s)
#define o2c_v4_fma(acc, v, s) vfmaq_n_f32(acc, v, s)
#define o2c_v4_fmav(acc, u, v) vfmaq_f32(acc, u, v)
#define o2c_v4_add(u, v) vaddq_f32(u, v)
#define o2c_v4_sum(v) (vgetq_lane_f32(v, 0) + vgetq_lane_f32(v, 1) + vgetq_lane_f32(v, 2) + \
                       vgetq_lane_f32(v, 3))
/* a column: p[0], p[s], p[2 s], p[3 s] through the index o2c_v4_ix(s) (gather / scatter) */
typedef uint32x4_t o2c_v4ix;
#define o2c_v4_ix(s) vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)(s))
#define o2c_v4_col(p, ix) vldrwq_gather_shifted_offset_f32(p, ix)
#define o2c_v4_stcol(p, ix, v) vstrwq_scatter_shifted_offset_f32(p, ix, v)
/* per lane: x where x > a, else a (a NaN x never replaces a); |v| */
#define o2c_v4_max(a, x) vpselq_f32(x, a, vcmpgtq_f32(x, a))
#define o2c_v4_abs(v) vabsq_f32(v)
/* max(v, 0) keeping NaN (vmaxnm would turn it into 0) */
#define o2c_v4_relu(v) vpselq_f32(vdupq_n_f32(0.0f), v, vcmpltq_n_f32(v, 0.0f))
/* min(max(v, lo), hi), NaN kept */
__attribute__((unused)) static inline o2c_v4 o2c_v4_clip(o2c_v4 v, float lo, float hi) {
    v = vpselq_f32(vdupq_n_f32(lo), v, vcmpltq_n_f32(v, lo));
    return vpselq_f32(vdupq_n_f32(hi), v, vcmpgtq_n_f32(v, hi));
}
#elif !defined(O2C_NO_VECTOR) && defined(__GNUC__) && !defined(__TINYC__) &&                   \
    (defined(__SSE2__) || defined(__ARM_NEON) || defined(__aarch64__) || defined(__ALTIVEC__) || \
     defined(__riscv_vector) || defined(__wasm_simd128__))
#define O2C_V4 1
__extension__ typedef float o2c_v4 __attribute__((vector_size(16)));
__extension__ typedef float o2c_v4u __attribute__((vector_size(16), aligned(4), may_alias));
#define o2c_v4_ld(p) ((o2c_v4)(*(const o2c_v4u *)(const void *)(p)))
#define o2c_v4_st(p, v) (*(o2c_v4u *)(void *)(p) = (v))
#define o2c_v4_dup(s) ((o2c_v4){0, 0, 0, 0} + (s))
#define o2c_v4_fma(acc, v, s) ((acc) + (v) * (s))
#define o2c_v4_fmav(acc, u, v) ((acc) + (u) * (v))
#define o2c_v4_add(u, v) ((u) + (v))
#define o2c_v4_sum(v) ((v)[0] + (v)[1] + (v)[2] + (v)[3])
typedef int64_t o2c_v4ix;
#define o2c_v4_ix(s) ((int64_t)(s))
__extension__ typedef int32_t o2c_v4i __attribute__((vector_size(16)));
__attribute__((unused)) static inline o2c_v4 o2c_v4_col(const float *p, int64_t s) {
    const o2c_v4 v = {p[0], p[s], p[2 * s], p[3 * s]};
    return v;
}
__attribute__((unused)) static inline void o2c_v4_stcol(float *p, int64_t s, o2c_v4 v) {
    p[0] = v[0], p[s] = v[1], p[2 * s] = v[2], p[3 * s] = v[3];
}
__attribute__((unused)) static inline o2c_v4 o2c_v4_max(o2c_v4 a, o2c_v4 x) {
    const o2c_v4i m = (o2c_v4i)(x > a); /* x where x > a, else a (a NaN x never replaces a) */
    return (o2c_v4)(((o2c_v4i)x & m) | ((o2c_v4i)a & ~m));
}
__attribute__((unused)) static inline o2c_v4 o2c_v4_abs(o2c_v4 v) {
    const o2c_v4i sign = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
    return (o2c_v4)((o2c_v4i)v & ~sign);
}
__attribute__((unused)) static inline o2c_v4 o2c_v4_relu(o2c_v4 v) { /* NaN compares false: kept */
    const o2c_v4 zero = {0, 0, 0, 0};
    return (o2c_v4)((o2c_v4i)v & ~(o2c_v4i)(v < zero));
}
__attribute__((unused)) static inline o2c_v4 o2c_v4_clip(o2c_v4 v, float lo, float hi) {
    const o2c_v4 l = o2c_v4_dup(lo), h = o2c_v4_dup(hi);
    o2c_v4i m = (o2c_v4i)(v < l);
    v = (o2c_v4)(((o2c_v4i)v & ~m) | ((o2c_v4i)l & m));
    m = (o2c_v4i)(v > h);
    return (o2c_v4)(((o2c_v4i)v & ~m) | ((o2c_v4i)h & m));
}
#else
#define O2C_V4 0
#endif

#if defined(O2C_FACC_FLOAT) || (defined(__ARM_FP) && !(__ARM_FP & 8)) ||                      \
    (defined(__arm__) && !defined(__ARM_FP)) ||                                                 \
    (defined(__riscv) && !(defined(__riscv_flen) && __riscv_flen >= 64))
typedef float o2c_facc;
#else
typedef double o2c_facc;
#endif
#define O2C_ACC_f32 o2c_facc
#define O2C_ACC_f64 double
#define O2C_F32_f32 1
#define O2C_F32_f64 0

#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__)
#define O2C_HOT __attribute__((optimize("fp-contract=fast", "no-schedule-insns")))
#else
#define O2C_HOT
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__)
#define O2C_INLINE __attribute__((always_inline, unused)) inline
#else
#define O2C_INLINE inline
#endif

#if !defined(O2C_NO_VECTOR) && !defined(O2C_NO_DISPATCH) && defined(__x86_64__) &&              \
    defined(__GNUC__) && !defined(__TINYC__) && !defined(__AVX512F__)
#define O2C_X86_DISPATCH 1
#define O2C_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#ifndef O2C_CPU_LEVEL /* tests: the most the kernels may use (0 plain C, 1 AVX2, 2 AVX-512) */
#define O2C_CPU_LEVEL 2
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define O2C_TARGET_AVX2
#define o2c_cpu_avx2() (O2C_CPU_LEVEL >= 1)
#else
#define O2C_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define o2c_cpu_avx2()                                                                          \
    (O2C_CPU_LEVEL >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
#endif
#define o2c_cpu_avx512()                                                                        \
    (O2C_CPU_LEVEL >= 2 && __builtin_cpu_supports("avx512f") &&                                 \
     __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&                 \
     __builtin_cpu_supports("avx512vl"))
#else
#define O2C_X86_DISPATCH 0
#endif

#if O2C_X86_DISPATCH && !defined(__clang__) && defined(__OPTIMIZE__)
#define O2C_VECTORIZE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define O2C_VECTORIZE
#endif
#if O2C_X86_DISPATCH && defined(__GLIBC__) && !defined(O2C_NO_CLONES)
#define O2C_KERNEL                                                                              \
    O2C_VECTORIZE __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define O2C_KERNEL O2C_VECTORIZE
#endif

#ifdef _OPENMP
#include <omp.h>
static O2C_INLINE int o2c_par(int big) {
    return big && omp_get_level() == 0 && omp_get_max_threads() > 1;
}
static O2C_INLINE void o2c_share(int64_t n, int64_t *lo, int64_t *hi) {
    const int64_t me = omp_get_thread_num(), nt = omp_get_num_threads();
    *lo = n * me / nt, *hi = n * (me + 1) / nt;
}
#endif
/* Work shared inside a region that o2c_par opened (par != 0), or done whole by one caller (par
 * == 0, wherever it runs: orphaned `omp for` would bind to an enclosing region of someone
 * else's, such as Winograd's loop over its 16 products): o2c_part, the items [lo, hi) of n this
 * thread does; o2c_lead, whether this thread does a step done once; o2c_sync, the barrier
 * after a step whose results every thread reads. */
static O2C_INLINE void o2c_part(int par, int64_t n, int64_t *lo, int64_t *hi) {
#ifdef _OPENMP
    if (par) {
        o2c_share(n, lo, hi);
        return;
    }
#endif
    (void)par;
    *lo = 0, *hi = n;
}
static O2C_INLINE int o2c_lead(int par) {
#ifdef _OPENMP
    return !par || omp_get_thread_num() == 0;
#else
    (void)par;
    return 1;
#endif
}
static O2C_INLINE void o2c_sync(int par) {
#ifdef _OPENMP
    if (par) {
#pragma omp barrier
    }
#endif
    (void)par;
}
#endif
