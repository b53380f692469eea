/* conv.c — op family: convolutions, Conv and ConvTranspose (1-D, 2-D, 3-D), on GEMM.
 *
 * ONNX Conv: X[N, C, D1..Ds] * W[M, C/group, k1..ks] (+ B[M]) -> Y[N, M, O1..Os] with
 *   Oi = floor((Di + pad_begin_i + pad_end_i - dilation_i * (ki - 1) - 1) / stride_i) + 1
 * (auto_pad SAME_UPPER/SAME_LOWER: Oi = ceil(Di / stride_i), the total padding
 * max(0, (Oi - 1) * stride_i + dilation_i * (ki - 1) + 1 - Di) split with the odd one at the
 * end (UPPER) or the beginning (LOWER); VALID: no padding).
 * ONNX ConvTranspose: X[N, C, D1..Ds] and W[C, M/group, k1..ks] -> Y[N, M, O1..Os] with
 *   Oi = stride_i * (Di - 1) + output_padding_i + dilation_i * (ki - 1) + 1 - pad_begin_i - pad_end_i
 * or Oi = output_shape_i (or stride_i * Di for SAME_*), the total padding then being what
 * makes the formula hold, split as the spec says (SAME_UPPER: begin = total / 2, otherwise
 * begin = total - total / 2).
 *
 * Lowering: everything is handled as 3-D (missing leading spatial axes have size 1).  Conv,
 * per image and group: im2col of a tile of output positions into the node's scratch (row-major),
 * then Y[g][:, tile] = W[g] x cols (templates/conv_im2col.c, templates/gemm.c); a 1x1, stride 1,
 * unpadded conv multiplies the input directly.  Special cases take direct kernels: depthwise
 * (templates/conv_dw.c), stride 1 with few output channels per group (conv_wide.c), 3x3 stride
 * 1 with 16+ channels and a constant weight (Winograd F(2x2, 3x3), or F(4x4, 3x3) on large
 * images, conv_wino.c).  ConvTranspose: cols = W[g]^T x X[g][:, tile],
 * then col2im scatter-adds cols into Y (templates/conv_col2im.c).  Nothing assumes that W is a
 * constant: a runtime weight with symbolic channel and kernel dims (correlation) is the same
 * code with more Syms.  The tile keeps the scratch bounded: about 2^17 elements, at least 32
 * positions. */
#include "onnx2c.h"
#include "gemm_plan.h"
#include <string.h>

#define TILE_ELEMS 131072 /* target size of the unfolded tile, in elements */
#define TILE_MIN 32       /* positions per tile, at least */
#define WIDE_MAX_M 4      /* output channels per group up to which Conv takes conv_wide.c */
#define WIDE_CAP 32768    /* scratch elements conv_wide.c's bands aim at */
/* input channels (per group) and output channels from which a 3x3 conv takes Winograd: with
 * 16 input channels unfold + GEMM measured faster (SqueezeNet's 16 -> 64 at 55x55: 0.31 against
 * 0.46 ms), from 32 Winograd (32 -> 128 at 27x27: 0.24 against 0.27 ms) */
#define WINO_MIN_C 32
#define WINO_MIN_M 16
#define WINO_MIN_TILES 8  /* 2x2 output tiles (one engine row panel) from which it does */
#define WINO_BIG_TILES 16 /* ... and up to which a weight of WINO_BIG_WEIGHT (M x C) does not */
#define WINO_BIG_WEIGHT 65536
#define WINO_T_TILES 256  /* below this many (a constant), the products are taken transposed */
#define WINO4_MIN_TILES 128 /* 4x4 output tiles from which F(4x4, 3x3) does */
#define WINO4_MIN_M 32     /* ... and output channels */
#define WINO_ELEMS 262144 /* target scratch of a Winograd chunk, in elements */
#define WINO_MAX_ELEMS 1048576 /* ... and its most, for a weight larger than that */
#define WINO_OWN_CM 16384     /* C x M of a Winograd layer whose threads take their own tiles */
#define WINO_OWN_ELEMS 65536  /* target scratch of such a thread's chunk, in elements */

typedef struct ConvPlan {
    bool transpose;
    /* spatial sizes normalised to 3-D: input, output, kernel, stride, dilation, pad_begin */
    Sym *in[3], *out[3], *k[3], *stride[3], *dil[3], *pad[3];
    Sym *group;
    Sym *cg, *mg;   /* input / output channels per group */
    Sym *rows;      /* rows of the unfolded matrix: cg * kvol (Conv), mg * kvol (ConvTranspose) */
    Sym *isp, *osp; /* input / output positions per channel */
    Sym *tile;      /* positions per tile (output ones for Conv, input ones for ConvTranspose) */
    bool direct;    /* Conv 1x1, stride 1, no padding: the input is its own unfolded matrix */
    Value *wpk;     /* Conv: constant weight packed per group for the engine (A operand), or NULL */
    Sym *cols;      /* elements of the unfolded tile at the start of the scratch (0 when direct) */
    bool depthwise; /* one input and one output channel per group, 1-D or 2-D: direct loops */
    Sym *dwp_slot;  /* depthwise, not --memory-first: elements of a slot of the vector kernel
                     * (DWP_SLOTS of them in the scratch), or NULL: the row kernel only */
    bool dwc;       /* that kernel: templates/conv_dwc.c (channels in lanes), else conv_dwp.c
                     * (phase planes) */
    bool dwc_rows3; /* dwc, but conv_dw.c's rows on x86 without AVX-512 (O2C_DWC_ROWS3) */
    bool dwc_rows3_x86; /* and on x86 with it too (O2C_DWC_ROWS3_X86) */
    bool wide;      /* stride 1, at most WIDE_MAX_M output channels per group, 1-D or 2-D:
                     * templates/conv_wide.c */
    Sym *cap;       /* wide: elements of scratch it may use */
    bool wino;      /* 3x3, stride 1, constant weight, one group: Winograd F(2x2, 3x3)
                     * (templates/conv_wino.c); wpk then holds the 16 transformed weights
                     * (36 with wino4) */
    bool wino_t;    /* wino with few tiles: the products transposed (tiles as GEMM rows) */
    bool wino4;     /* wino by F(4x4, 3x3): 4x4 output tiles, 36 points (else 2x2, 16) */
    Sym *tw, *tiles, *wnt; /* wino: tiles per row, tiles in all, tiles per chunk */
    int64_t wper;          /* wino: elements of one point's packed weight in wpk */
    bool ind;       /* 2-D, one group, packed float weight, at most IND_MAX_K rows (or
                     * IND_WIDE_K), strides whose phase planes all taps read, an image of at
                     * most IND_MAX_PIX padded elements (static, or checked at run time: ind_hq;
                     * plan_ind):
                     * templates/conv_ind.c when the core has 64-byte vectors, else the unfold
                     * path (both emitted) */
    Sym *ind_scratch; /* its elements of scratch */
    Sym *ind_hq, *ind_wq; /* runtime image dims: the padded image's rows and columns, whose
                           * bounds emit_conv checks before the call; else NULL */
    bool cdirect;   /* --memory-first, constant weight, 1-D or 2-D, not depthwise: direct loops
                     * (templates/conv_direct.c), no scratch; wpk holds the weight in the
                     * kernel's blocks of 4 output channels */
} ConvPlan;

static Sym *K(Compiler *c, int64_t v) { return sym_const(c->sym, v); }

/* templates/conv_dwp.c's and conv_dwc.c's constants: threads (slots), outputs a step, kernel
 * taps at most; conv_dwc.c's channels a block (floats; 8 doubles use less) and its padded
 * images at most (pixels: 16 channels of them in 256 KiB, the L2 of a core; MobileNetV2's
 * 3x3 on 144x56x56 measured 0.18 ms by rows, 0.14 in lanes, on 32x112x112 0.12 by rows, 0.13
 * in lanes) */
#define DWP_SLOTS 4
#define DWP_VL 64
#define DWP_TAPS 81
#define DWC_LN 16
#define DWC_MAX_PIX 4096

/* The elements of one slot of templates/conv_dwc.c for a small 2-D depthwise Conv (constant
 * sizes, Rp x Cp padded pixels at most DWC_MAX_PIX): the interleaved planes with 8 * sw pixels
 * of slack, the weights and biases of a block, rounded up to 16; else NULL. */
static Sym *dwc_slot(Compiler *c, const ConvPlan *p, int64_t kh, int64_t kw, int64_t sh,
                     int64_t sw, int64_t dh, int64_t dw) {
    int64_t oh, ow;
    if (!sym_get_const(p->out[1], &oh) || !sym_get_const(p->out[2], &ow))
        return NULL;
    const int64_t rp = (oh - 1) * sh + (kh - 1) * dh + 1, cp = (ow - 1) * sw + (kw - 1) * dw + 1;
    if (rp * cp > DWC_MAX_PIX)
        return NULL;
    const int64_t f = (rp * cp + 8 * sw) * DWC_LN + kh * kw * DWC_LN + DWC_LN;
    return K(c, (f + 15) / 16 * 16);
}

/* The elements of one slot of the vector kernel of a 2-D depthwise Conv: conv_dwc.c's for a
 * small image (p->dwc), else conv_dwp.c's: sh * sw phase planes of Hq * Wq + Wq + DWP_VL, then
 * the wide image (OH * Wq rounded up to DWP_VL), rounded up to 16 (64 bytes of float); NULL for
 * the kernels that keep conv_dw.c: more than DWP_TAPS taps, strides above 4, a kernel size,
 * stride or dilation that is not a constant, 3-wide kernels on larger images. */
static Sym *dwp_slot(Compiler *c, ConvPlan *p) {
    SymCtx *s = c->sym;
    int64_t kh, kw, sh, sw, dh, dw;
    if (!sym_get_const(p->k[1], &kh) || !sym_get_const(p->k[2], &kw) ||
        !sym_get_const(p->stride[1], &sh) || !sym_get_const(p->stride[2], &sw) ||
        !sym_get_const(p->dil[1], &dh) || !sym_get_const(p->dil[2], &dw) || kh * kw > DWP_TAPS ||
        sh > 4 || sw > 4)
        return NULL;
    Sym *small = dwc_slot(c, p, kh, kw, sh, sw, dh, dw);
    if (small) {
        p->dwc = true;
        /* 3-wide kernels (MobileNet's 3x3) at stride 2 from 14 outputs wide and at stride 1
         * from 56 wide: lanes only with 64-byte vectors, else conv_dw.c's rows (2026-12-07,
         * gcc -O3 -mavx2 -mfma: 144x56x56 stride 2 0.37 -> 0.12 ms, stride 1 0.55 -> 0.20,
         * 192x28x28 stride 2 0.12 -> 0.05; MobileNetV2 9.1 -> 8.5 ms, on 2 threads 5.5 -> 4.9.
         * With AVX-512 the lanes stay: MobileNetV2 and V3 were 1-3% slower by rows) */
        int64_t ow;
        p->dwc_rows3 = kw == 3 && dw == 1 && kh <= 3 && sh == sw &&
                       sym_get_const(p->out[2], &ow) &&
                       ((sw == 2 && ow >= 14) || (sw == 1 && ow >= 56));
        /* and with AVX-512 at stride 2 from 28 outputs wide, since conv_dw.c's rows took one
         * call for the rectangle (2026-12-07, 1 thread: MobileNetV2's 144 x 56 x 56 stride 2
         * 0.056 -> 0.049 ms, on 2 threads 0.037 -> 0.027; 192 x 28 x 28 stride 2 stays in
         * lanes, 0.020 against 0.023 by rows on 1 thread), and at stride 1 from 56 wide: its
         * 16-channel planes (216 KB a block at 56 x 56) had run 0.33 ms on a Xeon's 1 thread
         * (0.16 on 2) against 0.18 (0.10) by rows; a Zen 5 had 0.117 against 0.127 */
        p->dwc_rows3_x86 = p->dwc_rows3 && ((sw == 2 && ow >= 28) || (sw == 1 && ow >= 56));
        return small;
    }
    /* 3-wide kernels keep conv_dw.c's row path: measured faster at strides 2 (no planes to
     * fill) and at 112 and 28 wide, as fast at 7, 10% slower at 14 (MobileNetV2) */
    if (kw == 3 && dw == 1 && kh <= 3)
        return NULL;
    Sym *rp = sym_add(s, sym_add(s, sym_mul(s, sym_sub(s, p->out[1], K(c, 1)), K(c, sh)),
                                 K(c, (kh - 1) * dh)), K(c, 1));
    Sym *cp = sym_add(s, sym_add(s, sym_mul(s, sym_sub(s, p->out[2], K(c, 1)), K(c, sw)),
                                 K(c, (kw - 1) * dw)), K(c, 1));
    Sym *hq = sym_floordiv(s, sym_add(s, rp, K(c, sh - 1)), K(c, sh));
    Sym *wq = sym_floordiv(s, sym_add(s, cp, K(c, sw - 1)), K(c, sw));
    Sym *plane = sym_add(s, sym_mul(s, hq, wq), sym_add(s, wq, K(c, DWP_VL)));
    Sym *wide = sym_mul(s, sym_floordiv(s, sym_add(s, sym_mul(s, p->out[1], wq), K(c, DWP_VL - 1)),
                                        K(c, DWP_VL)),
                        K(c, DWP_VL));
    Sym *f = sym_add(s, sym_mul(s, K(c, sh * sw), plane), wide);
    return sym_mul(s, sym_floordiv(s, sym_add(s, f, K(c, 15)), K(c, 16)), K(c, 16));
}

/* Why a depthwise Conv outside --memory-first has no vector kernel (dwp_slot NULL for a reason
 * other than the measured choice of 3-wide kernels), for a warning; NULL when it has one. */
static const char *dw_slow_reason(Compiler *c, const ConvPlan *p) {
    int64_t kh, kw, sh, sw, dh, dw;
    if (p->dwp_slot || c->opt->memory_first)
        return NULL;
    if (!sym_get_const(p->k[1], &kh) || !sym_get_const(p->k[2], &kw) ||
        !sym_get_const(p->stride[1], &sh) || !sym_get_const(p->stride[2], &sw) ||
        !sym_get_const(p->dil[1], &dh) || !sym_get_const(p->dil[2], &dw))
        return "its kernel size, stride or dilation is not a constant";
    if (kh * kw > DWP_TAPS)
        return arena_printf(c->arena, "its kernel has %lld taps (the vector kernels take up to "
                            "%d)", (long long)(kh * kw), DWP_TAPS);
    if (sh > 4 || sw > 4)
        return "its stride is above 4";
    return NULL;
}

/* Common checks and attributes of Conv and ConvTranspose.  Fills the 3-D-normalised kernel,
 * stride and dilation (leading axes 1) and returns the spatial rank. */
static int conv_common(Compiler *c, Node *n, ConvPlan *p, int64_t *pads, int *mode) {
    Value *x = infer_in(c, n, 0), *w = infer_in(c, n, 1), *b = node_in(n, 2);
    if (w->rank != x->rank)
        o2c_error(c, n, "weight rank %d does not match input rank %d", w->rank, x->rank);
    if (x->rank < 3 || x->rank > 5)
        o2c_error(c, n, "input rank %d is not supported (1 to 3 spatial axes)", x->rank);
    if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE)
        o2c_error(c, n, "element type %s is not supported", dtype_name(x->dtype));
    if (w->dtype != x->dtype)
        o2c_error(c, n, "weight has type %s but input has type %s", dtype_name(w->dtype),
                  dtype_name(x->dtype));
    if (b && b->dtype != x->dtype)
        o2c_error(c, n, "bias has type %s but input has type %s", dtype_name(b->dtype),
                  dtype_name(x->dtype));
    if (b && b->rank != 1)
        o2c_error(c, n, "bias has rank %d, expected 1", b->rank);
    int sp = x->rank - 2, off = 3 - sp;
    int64_t stride[3], dil[3], ks[3], group;
    *mode = attr_conv(c, n, sp, stride, dil, pads, &group);
    p->group = K(c, group);
    bool nk = node_attr(n, "kernel_shape") != NULL;
    attr_ints_n(c, n, "kernel_shape", sp, 1, 1, ks);
    for (int i = 0; i < 3; i++) {
        p->in[i] = p->k[i] = p->stride[i] = p->dil[i] = K(c, 1);
        p->pad[i] = K(c, 0);
    }
    for (int i = 0; i < sp; i++) {
        p->in[off + i] = x->shape[2 + i];
        p->k[off + i] = w->shape[2 + i];
        p->stride[off + i] = K(c, stride[i]);
        p->dil[off + i] = K(c, dil[i]);
        if (nk) {
            ir_constrain(c, n, CK_EQ, K(c, ks[i]), w->shape[2 + i],
                         "kernel_shape[%d] must equal the weight's spatial dim %d", i, i);
            p->k[off + i] = K(c, ks[i]);
        }
    }
    return sp;
}

/* Sym of (a - b) / 2 rounded down; floor(total / 2). */
static Sym *half(Compiler *c, Sym *total) { return sym_floordiv(c->sym, total, K(c, 2)); }

/* Positions per tile for `rows` unfolded rows and `npos` positions.  At most 256 positions (a
 * constant) whose whole unfolded matrix takes at most 2 TILE_ELEMS: one tile (a split re-reads
 * the whole weight per tile: ResNet-18's 3x3 stride-2 layers at 7x7, 512 x 2304 weights, went as
 * 32 + 17 positions, 1.25 ms, against 1.07 ms in one; at 14x14 96 + 96 + 4, 0.81 against 0.74;
 * more positions in one tile measured slower). */
static Sym *tile_size(Compiler *c, Sym *rows, Sym *npos) {
    SymCtx *s = c->sym;
    int64_t r, np;
    if (sym_get_const(rows, &r) && sym_get_const(npos, &np) && np <= 256 && r * np <= 2 * TILE_ELEMS)
        return npos;
    Sym *t = sym_floordiv(s, K(c, TILE_ELEMS), sym_max(s, rows, K(c, 1)));
    t = sym_mul(s, sym_floordiv(s, t, K(c, TILE_MIN)), K(c, TILE_MIN)); /* whole engine panels */
    return sym_min(s, npos, sym_max(s, t, K(c, TILE_MIN)));
}

static Sym *prod3(Compiler *c, Sym *const *v) {
    return sym_mul(c->sym, sym_mul(c->sym, v[0], v[1]), v[2]);
}

/* ---- Conv */

/* Element i of a float or double constant, as double. */
static double const_at(const Value *v, int64_t i) {
    return v->dtype == DT_FLOAT ? (double)((const float *)v->data)[i] : ((const double *)v->data)[i];
}

/* The skew added to the stride of Winograd's 16 transformed operands and products, in elements:
 * one cache line (templates/conv_wino.c). */
static int64_t wino_skew(DType t) {
    return 64 / (int64_t)dtype_size(t);
}

/* The transformed weight of a Winograd layer, for gp_lazy: W (M x C x 3 x 3) at 16 points. */
typedef struct WinoJob {
    Compiler *c;       /* for the scratch of one point */
    const Value *w;
    int64_t M, C, per; /* per: elements of one point's packing */
    int64_t nr;
    bool t;            /* ConvPlan.wino_t: U^T as the engine's B operand */
    bool f4;           /* ConvPlan.wino4: 36 points of G (6 x 3) */
} WinoJob;

/* U[xi][m][c], xi = 4 i + j: G g G^T with G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1]; for
 * F(4x4, 3x3) xi = 6 i + j and G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6;
 * 1/24 -1/12 1/6; 0 0 1].  Part xi of the weight is point xi's M x C matrix, packed (its U in
 * scratch meanwhile). */
static int64_t wino_part(const void *arg, int64_t xi, void *dst) {
    static const double G2[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
    static const double G4[6][3] = {{.25, 0, 0},
                                    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                    {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                    {0, 0, 1}};
    const WinoJob *jb = arg;
    const double(*G)[3] = jb->f4 ? G4 : G2;
    const Value *w = jb->w;
    const int64_t M = jb->M, C = jb->C;
    const int side = jb->f4 ? 6 : 4;
    const int i = (int)xi / side, j = (int)xi % side;
    size_t es = dtype_size(w->dtype);
    unsigned char *u = arena_block(jb->c->arena, NULL, (size_t)(M * C) * es);
    for (int64_t m = 0; m < M; m++)
        for (int64_t ci = 0; ci < C; ci++) {
            const int64_t base = (m * C + ci) * 9;
            double gg[3]; /* row i of G g */
            for (int b = 0; b < 3; b++)
                gg[b] = G[i][0] * const_at(w, base + b) + G[i][1] * const_at(w, base + 3 + b) +
                        G[i][2] * const_at(w, base + 6 + b);
            double t = gg[0] * G[j][0] + gg[1] * G[j][1] + gg[2] * G[j][2];
            size_t at = (size_t)(m * C + ci);
            if (w->dtype == DT_FLOAT)
                ((float *)(void *)u)[at] = (float)t;
            else
                ((double *)(void *)u)[at] = t;
        }
    if (jb->t)
        gp_pack(u, es, C, M, C, 1, false, jb->nr, dst);
    else
        gp_pack(u, es, M, C, C, 0, true, 0, dst);
    arena_block_free(jb->c->arena, u);
    return jb->per;
}

/* Whether a Winograd layer takes F(4x4, 3x3): from WINO4_MIN_TILES tiles of 4x4 outputs (a
 * constant output size, 45 x 45 and more; its products are then never transposed) and
 * WINO4_MIN_M output channels.  Measured on one thread (Intel Xeon, chains of 3x3 layers with
 * ReLU, against F(2x2, 3x3)): 64 -> 64 at 56x56 2.95 -> 2.5-2.7 ms for three layers
 * (ResNet-18's layer1 in the model: 1.13 -> 0.94 and 1.27 -> 1.00 ms), 128 -> 128 at 56x56
 * 6.4 -> 5.0 for two, 32 -> 32 at 112x112 2.36 -> 2.00; in the segmentation bench model, 32
 * -> 32 at 128x128 1.58 -> 1.09 ms (2 threads 0.74 -> 0.54), 64 -> 64 at 64x64 1.13 -> 0.80.
 * Below: 64 -> 64 at 40x40 (100 tiles) 1.05 -> 0.99 on one thread but 7% slower on two (the
 * threads' shares of 4 panels of 32 tiles, 64 and 36 tiles); with the products transposed (16
 * to 49 tiles) it lost: 128 -> 128 at 28x28 3.0 -> 3.25, 256 -> 256 at 14x14 2.9 -> 5.8 (its
 * 2.25x larger transformed weight read from memory).  With 16 output channels the transforms
 * (36 operands a tile and input channel) outweigh the products (the face detector's 64 -> 16
 * at 40x40: 0.223 -> 0.250 ms). */
static bool wino4_pick(const ConvPlan *p, int64_t M) {
    int64_t oh, ow;
    return M >= WINO4_MIN_M && sym_get_const(p->out[1], &oh) && sym_get_const(p->out[2], &ow) &&
           ((oh + 3) / 4) * ((ow + 3) / 4) >= WINO4_MIN_TILES;
}

/* Whether a Conv (not depthwise, not wide) takes Winograd F(2x2, 3x3), and if so its plan:
 * the weight transformed at compile time (U = G g G^T per output and input channel, see
 * templates/conv_wino.c), each of the 16 points' M x C matrix packed as the engine's A operand;
 * the scratch: per chunk of wnt tiles, the transformed input (16 x C x Np), the 16 products
 * (16 x M x Np), Np = wnt rounded up to the engine's NR. */
static bool wino_plan(Compiler *c, Node *n, ConvPlan *p) {
    SymCtx *s = c->sym;
    Value *x = n->in[0], *w = n->in[1];
    int64_t v[8], tl;
    if (c->opt->no_winograd || c->opt->memory_first || !w->data || !sym_get_const(p->group, &v[0]) || v[0] != 1 ||
        !sym_get_const(p->k[0], &v[1]) || v[1] != 1 || !sym_get_const(p->in[0], &v[2]) ||
        v[2] != 1 || !sym_get_const(p->k[1], &v[3]) || v[3] != 3 ||
        !sym_get_const(p->k[2], &v[4]) || v[4] != 3 || !sym_get_const(p->stride[1], &v[5]) ||
        v[5] != 1 || !sym_get_const(p->stride[2], &v[6]) || v[6] != 1 ||
        !sym_get_const(p->dil[1], &v[7]) || v[7] != 1 || !sym_get_const(p->dil[2], &v[7]) ||
        v[7] != 1)
        return false;
    int64_t C, M;
    if (!sym_get_const(p->cg, &C) || !sym_get_const(p->mg, &M) || C < WINO_MIN_C ||
        M < WINO_MIN_M)
        return false;
    p->wino4 = wino4_pick(p, M);
    const int64_t ts = p->wino4 ? 4 : 2, pts = p->wino4 ? 36 : 16;
    p->tw = sym_ceildiv(s, p->out[2], K(c, ts));
    p->tiles = sym_mul(s, sym_ceildiv(s, p->out[1], K(c, ts)), p->tw);
    /* Below WINO_MIN_TILES, and with a large weight for at most WINO_BIG_TILES (a 7x7 output):
     * the 16/9 larger transformed weight, read from memory once per run, then costs more than
     * the 9/4 multiplications save (ResNet-18's 512 -> 512 at 7x7: 1.60 -> 1.51 ms unfolded) */
    if (sym_get_const(p->tiles, &tl) &&
        (tl < WINO_MIN_TILES || (tl <= WINO_BIG_TILES && M * C >= WINO_BIG_WEIGHT)))
        return false;
    p->wino = true;
    p->wino_t = !p->wino4 && sym_get_const(p->tiles, &tl) && tl < WINO_T_TILES;
    /* each point's U (M x C) as the engine's A operand, or U^T (C x M) as its B operand,
     * made when the weight is written out (wino_part) */
    size_t es = dtype_size(w->dtype);
    const int64_t nr = gp_nr(x->dtype);
    int64_t per = p->wino_t ? gp_pack(NULL, es, C, M, C, 1, false, nr, NULL)
                            : gp_pack(NULL, es, M, C, C, 0, true, 0, NULL);
    WinoJob *job = arena_alloc(c->arena, sizeof *job);
    *job = (WinoJob){c, w, M, C, per, nr, p->wino_t, p->wino4};
    p->wpk = gp_lazy(c, w->name, w->dtype, pts * per, wino_part, job, pts, per);
    p->wper = per;
    /* tiles per chunk: whole engine panels, the chunk's scratch near WINO_ELEMS.  Scratch: V
     * (16 x C x tiles rounded up to the panel width: NR, or MR transposed), then the products
     * (16 x M x tiles rounded up to NR).  Every chunk reads the whole transformed weight (16 x C
     * x M) again: when that is more than the chunk's own scratch (C x M / (C + M) tiles), the
     * chunk grows towards it, up to WINO_MAX_ELEMS (ResNet-18's 256 -> 256 at 14x14, 49 tiles,
     * a 4 MB weight: one chunk instead of 32 + 17 tiles, 1.68 -> 1.38 ms on one thread and
     * 0.93 -> 0.82 ms on two, in a chain of such layers whose weights come from memory). */
    /* (F(4x4, 3x3): half as many tiles as F(2x2, 3x3) takes, twice its outputs in 9/8 of its
     * scratch; a quarter of them, chunks of 32 tiles at 64 -> 64, had been too few for the
     * threads to take their own (below): ResNet-18's 64 -> 64 at 56x56 on two threads ran on
     * one, 0.55 ms by F(2x2, 3x3), 0.88 by F(4x4, 3x3)) */
    const int64_t even = C * M / (C + M), most = WINO_MAX_ELEMS / (pts * (C + M));
    int64_t want = p->wino4 ? WINO_ELEMS / (32 * (C + M)) : WINO_ELEMS / (16 * (C + M));
    if (want < even)
        want = even < most ? even : most;
    want = want / nr * nr;
    p->wnt = sym_min(s, p->tiles, K(c, want < nr ? nr : want));
    Sym *vp = gp_roundup(s, p->wnt, p->wino_t ? GP_MR : nr), *mp = gp_roundup(s, p->wnt, nr);
    /* (+ 2 x 16 skews of a cache line: templates/conv_wino.c) */
    n->scratch = sym_mul(s,
                         sym_add(s, sym_add(s, sym_mul(s, K(c, pts * C), vp),
                                            sym_mul(s, K(c, pts * M), mp)),
                                 sym_add(s, K(c, 2 * pts * wino_skew(x->dtype)),
                                         gp_work(c, x->dtype, p->mg, p->wnt, p->cg, true, true))),
                         K(c, (int64_t)es));
    n->priv = p;
    return true;
}

/* templates/conv_ind.c for a 2-D Conv with one group, a packed float weight, at most
 * IND_MAX_K rows (C * KH * KW: a tile reads that many rows of 32 from all over the image) and an
 * image of at most IND_MAX_PIX padded elements (C x Hp x Wp: the copy it reads, and its int32
 * offsets; with runtime rows or columns a check in the generated code, the unfold path past
 * it); not 1x1 without padding (the direct GEMM).  A stride up to IND_MAX_STRIDE
 * whose phase planes the taps all read (KH * dh >= SH, ...: a 1x1 stride-2 conv would copy
 * four planes to read one).  Measured against unfold + GEMM on AVX-512: the 3x3 16 -> 16
 * convolutions of the RetinaFace-style detector at 40x40 0.083 -> 0.053 ms (ORT 0.040),
 * SqueezeNet's 3x3 16 -> 64 at 55x55 0.31 -> 0.295 ms. */
#define IND_MAX_PIX (1 << 21)
#define IND_MAX_K 288
/* Up to IND_WIDE_K rows where the tiles re-read the image's rows few times: at most
 * IND_WIDE_M output channels, or up to IND_WIDE_MAX_M from IND_WIDE_OW outputs a row (the
 * unfold then costs more than the scattered reads; 1 thread, against unfold + GEMM: 3x3 stride
 * 2 64 -> 64 at 112x112 1.44 -> 1.13 ms, 64 -> 128 at 56x56 0.61 -> 0.54, 128 -> 128 at 56x56
 * 1.26 -> 1.07, 48 -> 96 at 80x80 0.71 -> 0.61, 128 -> 128 at 40x40 0.65 -> 0.57; stride 1
 * 256 -> 8 at 28x28 0.60 -> 0.13, 5x5 32 -> 32 at 56x56 1.17 -> 0.67; equal at 256 -> 256
 * over 56x56 stride 2.  Slower kept out: 128 -> 256 at 28x28 stride 2 (14 outputs a row) 0.58
 * against 0.78, 256 -> 256 1.19 against 1.55, 64 -> 128 0.165 against 0.188) */
#define IND_WIDE_K 4608
#define IND_WIDE_M 64
#define IND_WIDE_MAX_M 256
#define IND_WIDE_OW 20
#define IND_MAX_STRIDE 4
#define IND_SLACK 64 /* CONV_IND_SLACK */
/* every residue mod st is some tap's k * dil (the taps read every phase plane) */
static bool ind_phases_used(int64_t k, int64_t dil, int64_t st) {
    for (int64_t ph = 0; ph < st; ph++) {
        bool hit = false;
        for (int64_t t = 0; t < k && !hit; t++)
            hit = t * dil % st == ph;
        if (!hit)
            return false;
    }
    return true;
}
/* The padded image's extent that conv_ind_T reads along spatial axis ax (1 rows, 2 columns):
 * (out - 1) * stride + (k - 1) * dil + 1 */
static Sym *ind_padded(Compiler *c, const ConvPlan *p, int ax) {
    SymCtx *s = c->sym;
    Sym *one = K(c, 1);
    return sym_add(s, sym_add(s, sym_mul(s, sym_sub(s, p->out[ax], one), p->stride[ax]),
                              sym_mul(s, sym_sub(s, p->k[ax], one), p->dil[ax])),
                   one);
}
static void plan_ind(Compiler *c, ConvPlan *p, Value *x) {
    int64_t v[12];
    Sym *const *sy[12] = {&p->k[0], &p->in[0], &p->stride[1], &p->stride[2], &p->group,
                          &p->cg, &p->in[1], &p->in[2], &p->out[1], &p->out[2], &p->k[1],
                          &p->k[2]};
    if (p->direct || !p->wpk || x->dtype != DT_FLOAT)
        return;
    /* the image's and the output's rows and columns (6 .. 9) may be runtime dims (-1 here):
     * their bounds are then checked where the code runs (emit_conv), the unfold path past them */
    bool dyn = false;
    for (int i = 0; i < 12; i++)
        if (!sym_get_const(*sy[i], &v[i])) {
            if (i < 6 || i > 9)
                return;
            v[i] = -1, dyn = true;
        }
    int64_t dh, dw;
    if (v[0] != 1 || v[1] != 1 || v[2] < 1 || v[2] > IND_MAX_STRIDE || v[3] < 1 ||
        v[3] > IND_MAX_STRIDE || v[4] != 1 || !sym_get_const(p->dil[1], &dh) ||
        !sym_get_const(p->dil[2], &dw))
        return;
    /* the products in steps, each factor bounded first: static dims reach INT64_MAX - 1 */
    for (int i = 5; i < 12; i++)
        if ((v[i] < 1 && !(i >= 6 && i <= 9 && v[i] == -1)) || v[i] > IND_MAX_PIX)
            return;
    int64_t mg;
    /* (a runtime output width: the wide rule by the channels alone) */
    const int64_t kmax = sym_get_const(p->mg, &mg) &&
                                 (mg <= IND_WIDE_M ||
                                  (mg <= IND_WIDE_MAX_M && v[9] >= IND_WIDE_OW))
                             ? IND_WIDE_K
                             : IND_MAX_K;
    if (dh < 1 || dw < 1 || dh > IND_MAX_PIX || dw > IND_MAX_PIX || v[5] * v[10] > kmax ||
        v[5] * v[10] * v[11] > kmax || !ind_phases_used(v[10], dh, v[2]) ||
        !ind_phases_used(v[11], dw, v[3]))
        return;
    const int64_t kr = v[5] * v[10] * v[11];
    if (dyn) {
        /* hq x wq: the padded image (as conv_ind_T works it out from OH, OW) rounded up to
         * whole phase planes; its size bounded at run time (emit_conv), the scratch capped
         * there */
        SymCtx *s = c->sym;
        Sym *hq = gp_roundup(s, ind_padded(c, p, 1), v[2]);
        Sym *wq = gp_roundup(s, ind_padded(c, p, 2), v[3]);
        p->ind_hq = hq, p->ind_wq = wq;
        p->ind = true;
        p->ind_scratch = sym_add(s, sym_min(s, sym_mul(s, K(c, v[5]), sym_mul(s, hq, wq)),
                                            K(c, IND_MAX_PIX)),
                                 K(c, IND_SLACK + kr));
        return;
    }
    /* the padded image the outputs read; hq, wq: its rows and columns rounded up to whole
     * phase planes */
    const int64_t hp = (v[8] - 1) * v[2] + (v[10] - 1) * dh + 1;
    const int64_t wp = (v[9] - 1) * v[3] + (v[11] - 1) * dw + 1;
    if (hp > IND_MAX_PIX || wp > IND_MAX_PIX)
        return;
    const int64_t hq = (hp + v[2] - 1) / v[2] * v[2], wq = (wp + v[3] - 1) / v[3] * v[3];
    if (v[5] * hq > IND_MAX_PIX || v[5] * hq * wq > IND_MAX_PIX)
        return;
    p->ind = true;
    p->ind_scratch = K(c, v[5] * hq * wq + IND_SLACK + kr);
}

void infer_conv(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    ConvPlan *p = arena_alloc(c->arena, sizeof *p);
    int64_t pads[6];
    int mode;
    int sp = conv_common(c, n, p, pads, &mode), off = 3 - sp;
    Value *x = n->in[0], *w = n->in[1], *b = node_in(n, 2);
    Sym *m = w->shape[0];
    p->cg = w->shape[1];
    ir_constrain(c, n, CK_EQ, x->shape[1], sym_mul(s, p->cg, p->group),
                 "Conv input channels must equal weight channels (dim 1) times group");
    ir_constrain(c, n, CK_DIVIDES, p->group, m, "Conv group must divide the output channels");
    p->mg = sym_floordiv(s, m, p->group);
    if (b)
        ir_constrain(c, n, CK_EQ, b->shape[0], m, "Conv bias length must equal the output channels");
    for (int i = 0; i < 3; i++)
        p->out[i] = K(c, 1);
    bool nopad = true;
    for (int i = 0; i < sp; i++) {
        int a = off + i;
        Sym *span = sym_add(s, sym_mul(s, p->dil[a], sym_sub(s, p->k[a], K(c, 1))), K(c, 1));
        /* a runtime kernel (a correlation's template) of width 0 is no convolution */
        ir_constrain(c, n, CK_LE, K(c, 1), p->k[a], "Conv kernel dim %d must be positive", i);
        if (mode == AUTO_PAD_SAME_UPPER || mode == AUTO_PAD_SAME_LOWER) {
            p->out[a] = sym_ceildiv(s, p->in[a], p->stride[a]);
            Sym *total = sym_max(s, K(c, 0),
                                 sym_sub(s, sym_add(s, sym_mul(s, sym_sub(s, p->out[a], K(c, 1)),
                                                               p->stride[a]),
                                                    span),
                                         p->in[a]));
            p->pad[a] = mode == AUTO_PAD_SAME_UPPER ? half(c, total) : sym_sub(s, total, half(c, total));
            int64_t t;
            if (!sym_get_const(total, &t) || t != 0)
                nopad = false;
        } else {
            Sym *padded = sym_add(s, p->in[a], sym_add(s, K(c, pads[i]), K(c, pads[sp + i])));
            ir_constrain(c, n, CK_LE, span, padded,
                         "Conv kernel (dilated) must fit in the padded input along spatial axis %d",
                         i);
            p->out[a] =
                sym_add(s, sym_floordiv(s, sym_sub(s, padded, span), p->stride[a]), K(c, 1));
            p->pad[a] = K(c, pads[i]);
            if (pads[i] || pads[sp + i])
                nopad = false;
        }
        int64_t kk, st;
        if (!sym_get_const(p->k[a], &kk) || kk != 1 || !sym_get_const(p->stride[a], &st) || st != 1)
            nopad = false;
    }
    p->direct = nopad;
    Sym *kvol = prod3(c, p->k);
    p->rows = sym_mul(s, p->cg, kvol);
    p->isp = prod3(c, p->in);
    p->osp = prod3(c, p->out);
    Sym *shape[5] = {x->shape[0], m};
    for (int i = 0; i < sp; i++)
        shape[2 + i] = p->out[off + i];
    ir_set_shape(c, n->out[0], x->dtype, x->rank, shape);
    int64_t G, mgv, rowsv, one;
    p->depthwise = sym_get_const(p->cg, &one) && one == 1 && sym_get_const(p->mg, &mgv) &&
                   mgv == 1 && sym_get_const(p->k[0], &one) && one == 1 &&
                   sym_get_const(p->in[0], &one) && one == 1;
    if (p->depthwise) {
        n->scratch = NULL;
        p->dwp_slot = c->opt->memory_first ? NULL : dwp_slot(c, p);
        if (p->dwp_slot)
            n->scratch = sym_mul(s, K(c, DWP_SLOTS * (int64_t)dtype_size(x->dtype)), p->dwp_slot);
        n->priv = p;
        return;
    }
    /* --memory-first: a constant weight takes direct loops, no unfold and no scratch; the
     * weight is reordered per group into the kernel's blocks of 4 output channels */
    if (c->opt->memory_first && w->data && sym_get_const(p->k[0], &one) && one == 1 &&
        sym_get_const(p->in[0], &one) && one == 1 && sym_get_const(p->group, &G) &&
        sym_get_const(p->mg, &mgv) && sym_get_const(p->rows, &rowsv)) {
        p->wpk = gp_lazy_job(c, w->name, w->dtype, G * mgv * rowsv,
                             (GpJob){.kind = GPJ_ROW_BLOCKS, .src = w->data,
                                     .es = dtype_size(w->dtype), .groups = G,
                                     .sstep = mgv * rowsv, .dstep = mgv * rowsv, .rows = mgv,
                                     .cols = rowsv});
        p->cdirect = true;
        n->scratch = NULL;
        n->priv = p;
        return;
    }
    /* stride 1 with few output channels per group (a correlation): wide rows, no unfold */
    int64_t st1, st2;
    p->wide = !p->direct && sym_get_const(p->mg, &mgv) && mgv <= WIDE_MAX_M &&
              sym_get_const(p->k[0], &one) && one == 1 && sym_get_const(p->in[0], &one) &&
              one == 1 && sym_get_const(p->stride[1], &st1) && st1 == 1 &&
              sym_get_const(p->stride[2], &st2) && st2 == 1;
    if (p->wide) {
        Sym *wp = sym_add(s, p->out[2], sym_mul(s, sym_sub(s, p->k[2], K(c, 1)), p->dil[2]));
        Sym *span = sym_mul(s, sym_sub(s, p->k[1], K(c, 1)), p->dil[1]);
        /* one band row: mg accumulator rows, the padded copy's 1 + span rows */
        p->cap = sym_max(s, K(c, WIDE_CAP),
                         sym_mul(s, sym_add(s, sym_add(s, p->mg, K(c, 1)), span), wp));
        n->scratch = sym_mul(s, p->cap, K(c, (int64_t)dtype_size(x->dtype)));
        n->priv = p;
        return;
    }
    if (wino_plan(c, n, p))
        return;
    /* a constant weight: each group's W[g] (mg x rows) packed as the engine's A operand.  Not
     * below MR rows: the engine's small-M path (gemm_small_T) reads A in place as fast, and a
     * packed A there would be padded to MR rows it never reads (flash 8 / mg times the weight) */
    if (w->data && sym_get_const(p->group, &G) && sym_get_const(p->mg, &mgv) && mgv >= GP_MR &&
        sym_get_const(p->rows, &rowsv)) {
        size_t es = dtype_size(w->dtype);
        int64_t per = gp_pack(NULL, es, mgv, rowsv, rowsv, 0, true, 0, NULL);
        p->wpk = gp_lazy_job(c, w->name, w->dtype, per * G,
                             (GpJob){.kind = GPJ_PACK, .src = w->data, .es = es, .groups = G,
                                     .sstep = mgv * rowsv, .dstep = per, .rows = mgv,
                                     .cols = rowsv, .ld = rowsv, .as_a = true});
    }
    plan_ind(c, p, x);
    p->tile = p->direct ? p->osp : tile_size(c, p->rows, p->osp);
    /* the unfolded tile, packed as the engine's B operand: rows x tile rounded up to NR */
    p->cols = p->direct ? K(c, 0)
                        : gp_roundup(s, sym_mul(s, p->rows, gp_roundup(s, p->tile, gp_nr(x->dtype))),
                                     16);
    n->scratch = sym_mul(s,
                         sym_add(s, p->cols,
                                 gp_work(c, x->dtype, p->mg, p->tile, p->rows, p->wpk != NULL,
                                         !p->direct)),
                         K(c, (int64_t)dtype_size(x->dtype)));
    if (p->ind)
        n->scratch = sym_max(s, n->scratch,
                             sym_mul(s, p->ind_scratch, K(c, (int64_t)dtype_size(x->dtype))));
    n->priv = p;
}

/* Declares the 3-D size arrays the unfold kernels take; names in arr[0..5]. */
static void emit_geometry(Emit *e, const ConvPlan *p, const char **arr) {
    arr[0] = emit_sym_array(e, "cv_in", 3, p->in);
    arr[1] = emit_sym_array(e, "cv_out", 3, p->out);
    arr[2] = emit_sym_array(e, "cv_k", 3, p->k);
    arr[3] = emit_sym_array(e, "cv_stride", 3, p->stride);
    arr[4] = emit_sym_array(e, "cv_dil", 3, p->dil);
    arr[5] = emit_sym_array(e, "cv_pad", 3, p->pad);
}

static const char *scratch_ptr(Emit *e, Node *n, const char *ct) {
    return arena_printf(emit_arena(e), "(%s *)(void *)(ws + %s)", ct,
                        emit_sym(e, n->scratch_offset));
}

/* Inside a parallel region: when the plan put every node's scratch in one slot (the default
 * mode: Graph.scratch_slot), point `var` (declared by the caller, of type ct) at this thread's
 * share of that slot, share = slot bytes / threads rounded down to 64, when `need` bytes fit
 * in it: thread t then writes the same bytes in every node that does this, lines its own core
 * wrote last (the caller's own split of the node's scratch moves with the node's sizes). */
static void scratch_part(Compiler *c, Emit *e, Node *n, const char *var, const char *ct,
                         const char *need, const char *then) {
    if (!c->g->scratch_slot)
        return;
    emit_line(e, "{");
    emit_line(e, "    const int64_t share = (int64_t)(%s) / omp_get_num_threads() / 64 * 64;",
              emit_sym(e, c->g->scratch_slot));
    emit_line(e, "    if (share >= %s) {", need);
    emit_line(e, "        %s = (%s *)(void *)(ws + %s + omp_get_thread_num() * share);", var, ct,
              emit_sym(e, n->scratch_offset));
    if (then)
        emit_line(e, "        %s", then);
    emit_line(e, "    }");
    emit_line(e, "}");
}

/* Before the `#ifdef _OPENMP` of a branch that calls scratch_part: a symbolic slot size is a
 * variable, which a build without OpenMP would leave unused (the scratch's offset, 0 in the
 * slot at the workspace's start, is a constant). */
static void scratch_part_keep(Compiler *c, Emit *e) {
    int64_t v;
    if (c->g->scratch_slot && !sym_get_const(c->g->scratch_slot, &v))
        emit_line(e, "(void)%s;", emit_sym(e, c->g->scratch_slot));
}

/* One chunk of Winograd tiles [t0, t0 + nt): the input transform into wv, the 16 (36)
 * products into wm, the output transform; threads share the products when par_products (and the
 * chunk is large), else each call runs serially where it is. */
static void emit_wino_chunk(Emit *e, Node *n, int act, float p0, float p1,
                            bool par_products) {
    ConvPlan *p = n->priv;
    Value *x = n->in[0], *b = node_in(n, 2), *res = node_in(n, 3), *y = n->out[0];
    const char *ct = dtype_ctype(y->dtype);
    const char *gemm = emit_template(e, "gemm", y->dtype);
    const char *wn = emit_template(e, "conv_wino", y->dtype);
    const char *C = emit_sym(e, x->shape[1]), *M = emit_sym(e, y->shape[1]);
    const char *osp = emit_sym(e, p->osp);
    const long long nr = (long long)gp_nr(y->dtype), pw = p->wino_t ? GP_MR : nr;
    const int64_t per = p->wper;
    const int pts = p->wino4 ? 36 : 16, f4 = p->wino4 ? 1 : 0;
    const char *in_part = p->wino4 ? "wino4_in_part" : "wino_in_part";
    /* the pts operands vs apart, the pts products ms apart (sk: their skew, set by the
     * caller) */
    emit_line(e, "const int64_t ntv = (nt + %lld) / %lld * %lld;", pw - 1, pw, pw);
    emit_line(e, "const int64_t vs = %s * ntv + sk, ms = %s + sk;", C,
              p->wino_t ? arena_printf(emit_arena(e), "nt * %s", M)
                        : arena_printf(emit_arena(e), "%s * ntv", M));
    const char *xin = arena_printf(emit_arena(e), "%s + nb * %s * %s, %s, %s, %s, %s, %s, %s, "
                                   "t0, nt, %lld, wv, vs", emit_ptr(e, x), C, emit_sym(e, p->isp),
                                   C,
                                   emit_sym(e, p->in[1]), emit_sym(e, p->in[2]),
                                   emit_sym(e, p->pad[1]), emit_sym(e, p->pad[2]),
                                   emit_sym(e, p->tw), pw);
    const char *prod =
        p->wino_t ? arena_printf(emit_arena(e),
                                 "gemm_%s(nt, %s, %s, wv + xi * vs, %s, 2, %s + xi * %lld, "
                                 "%s, 2, wm + xi * ms, %s, (%s)1, (%s)0, 0, gw);",
                                 gemm, M, C, C, emit_ptr(e, p->wpk), (long long)per, M, M, ct, ct)
                  : arena_printf(emit_arena(e),
                                 "gemm_%s(%s, nt, %s, %s + xi * %lld, %s, 2, wv + xi * vs, "
                                 "ntv, 2, wm + xi * ms, ntv, (%s)1, (%s)0, 0, gw);",
                                 gemm, M, C, emit_ptr(e, p->wpk), (long long)per, C, ct, ct);
    if (par_products) {
        /* each thread transforms the input for its own points and multiplies them: its share
         * of the transformed input never leaves its core, and no barrier between the two */
        emit_line(e, "#ifdef _OPENMP");
        emit_line(e, "if (o2c_par((double)(%s) * (double)nt * (double)(%s) >= 262144.0)) {", M, C);
        emit_line(e, "#pragma omp parallel");
        emit_line(e, "    {");
        emit_line(e, "        int64_t xlo, xhi;");
        emit_line(e, "        o2c_share(%d, &xlo, &xhi);", pts);
        emit_line(e, "        %s_%s(%s, 0, %s, xlo, xhi);", in_part, wn, xin, C);
        emit_line(e, "        for (int64_t xi = xlo; xi < xhi; xi++)");
        emit_line(e, "            %s", prod);
        emit_line(e, "    }");
        emit_line(e, "} else");
        emit_line(e, "#endif");
        emit_line(e, "{");
        emit_line(e, "    wino_in_%s(%d, %s);", wn, f4, xin);
        emit_line(e, "    for (int xi = 0; xi < %d; xi++)", pts);
        emit_line(e, "        %s", prod);
        emit_line(e, "}");
    } else {
        emit_line(e, "wino_in_%s(%d, %s);", wn, f4, xin);
        emit_line(e, "for (int xi = 0; xi < %d; xi++)", pts);
        emit_line(e, "    %s", prod);
    }
    emit_line(e, "wino_out_%s(%d, wm, ms, %d, %s, %s, %s, %s, t0, nt, %s, %s, %d, %s, %s, "
                 "%s + nb * %s * %s);",
              wn, f4, p->wino_t ? 1 : 0, M, emit_sym(e, p->out[1]),
              emit_sym(e, p->out[2]), emit_sym(e, p->tw), b ? emit_ptr(e, b) : "0",
              res ? arena_printf(emit_arena(e), "%s + nb * %s * %s", emit_ptr(e, res), M, osp) : "0",
              act, emit_literal(e, y->dtype, p0), emit_literal(e, y->dtype, p1), emit_ptr(e, y), M,
              osp);
}

static void emit_wino(Compiler *c, Emit *e, Node *n, int act, float p0, float p1) {
    ConvPlan *p = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    const char *ct = dtype_ctype(y->dtype);
    const char *C = emit_sym(e, x->shape[1]), *M = emit_sym(e, y->shape[1]);
    const char *tiles = emit_sym(e, p->tiles), *wnt = emit_sym(e, p->wnt);
    const long long nr = (long long)gp_nr(y->dtype), pw = p->wino_t ? GP_MR : nr;
    Sym *vmax = gp_roundup(c->sym, p->wnt, pw), *mmax = gp_roundup(c->sym, p->wnt, nr);
    const int pts = p->wino4 ? 36 : 16, ts = p->wino4 ? 4 : 2;
    emit_line(e, "/* 3x3, stride 1: Winograd F(%dx%d, 3x3) over %s tiles of %dx%d outputs, %s at "
              "a time: %d GEMMs (%s) between input and output transforms */",
              ts, ts, tiles, ts, ts, wnt, pts,
              p->wino_t ? arena_printf(emit_arena(e), "tiles x %s x %s, transposed", M, C)
                        : arena_printf(emit_arena(e), "%s x tiles x %s", M, C));
    emit_line(e, "%s *const wv0 = %s;", ct, scratch_ptr(e, n, ct));
    const long long sk = (long long)wino_skew(y->dtype);
    emit_line(e, "%s *const wm0 = wv0 + %d * (%s * %s + %lld);", ct, pts, C, emit_sym(e, vmax),
              sk);
    emit_line(e, "%s *const gw = wm0 + %d * (%s * %s + %lld);", ct, pts, M, emit_sym(e, mmax),
              sk);
    emit_line(e, "for (int64_t nb = 0; nb < %s; nb++) {", emit_sym(e, x->shape[0]));
    /* Built with OpenMP, many tiles and a small weight (16 x C x M, read again by every chunk:
     * at most WINO_OWN_CM): each thread takes its own run of chunks of tiles (a static share:
     * the rows of the image the same thread wrote in the layer before), in its share of the
     * scratch up to WINO_OWN_ELEMS, every step of a chunk its own (no barrier, the chunk's
     * data in the thread's own cache; 2 threads, ResNet-18's 64-channel layers 0.94 -> 0.86 ms),
     * from two panels of tiles per thread and 262144 C x M x tiles (SqueezeNet's 13x13 layers,
     * 49 tiles, had run on one thread: each chunk below the threshold of the shared path; the
     * whole model on 2 threads 5.10 -> 4.85 ms).
     * Else threads share each chunk's 16 points: each transforms the input for its own points
     * and multiplies them (the engine's own calls then run serially), then all transform the
     * output (256 -> 256 at 14x14 on 2 threads: 0.56 -> 0.48 ms; the input transform shared by
     * channels had read half of its operands from the other core). */
    int64_t cv = 0, mv = 0;
    const char *step = wnt;
    if (sym_get_const(x->shape[1], &cv) && sym_get_const(y->shape[1], &mv) && cv * mv > 0 &&
        cv * mv <= WINO_OWN_CM) {
        int64_t cap = WINO_OWN_ELEMS / (pts * (cv + mv)) / pw * pw;
        cap = cap < pw ? pw : cap;
        /* one thread takes chunks of that size too (its weight stays in L2 anyway; 64 -> 64
         * at 56x56: 0.96 -> 0.89 ms in chunks of 32 tiles instead of 128) */
        int64_t wc;
        if (sym_get_const(p->wnt, &wc))
            step = arena_printf(emit_arena(e), "%lld", (long long)(wc < cap ? wc : cap));
        else
            step = arena_printf(emit_arena(e), "(%s < %lld ? %s : %lld)", wnt, (long long)cap,
                                wnt, (long long)cap);
        scratch_part_keep(c, e);
        emit_line(e, "#ifdef _OPENMP");
        emit_line(e, "    if (o2c_par((double)(%s) * (double)(%s) * (double)(%s) >= 16384.0 "
                  "&& %s >= %lld * omp_get_max_threads())) {",
                  M, tiles, C, wnt, pw);
        emit_line(e, "#pragma omp parallel");
        emit_line(e, "        {");
        emit_indent(e, 3);
        emit_line(e, "const int64_t cw0 = %s / omp_get_num_threads() / %lld * %lld;", wnt, pw,
                  pw);
        emit_line(e, "const int64_t cw = cw0 < %lld ? cw0 : %lld;", (long long)cap,
                  (long long)cap);
        /* each thread's 16 operands and products skewed when all threads' fit */
        emit_line(e, "const int64_t nth = omp_get_num_threads();");
        emit_line(e, "const int64_t sk = nth * (%s * cw + %lld) <= %s * %s + %lld && "
                  "nth * (%s * cw + %lld) <= %s * %s + %lld ? %lld : 0;",
                  C, sk, C, emit_sym(e, vmax), sk, M, sk, M, emit_sym(e, mmax), sk, sk);
        emit_line(e, "%s *wv = wv0 + omp_get_thread_num() * %d * (%s * cw + sk);", ct, pts, C);
        emit_line(e, "%s *wm = wm0 + omp_get_thread_num() * %d * (%s * cw + sk);", ct, pts, M);
        scratch_part(c, e, n, "wv", ct,
                     arena_printf(emit_arena(e),
                                  "%d * ((%s + %s) * cw + 2 * sk) * (int64_t)sizeof(%s)", pts, C,
                                  M, ct),
                     arena_printf(emit_arena(e), "wm = wv + %d * (%s * cw + sk);", pts, C));
        /* the panels shared evenly (196 tiles in chunks of 24 had gone 5 chunks to 4: 120
         * tiles against 76; 32 -> 128 at 27x27 alone, 2 threads: 1.19x -> 1.38x of one), each
         * thread's run in equal chunks of whole panels, at most cw tiles */
        emit_line(e, "int64_t plo, phi;");
        emit_line(e, "o2c_share((%s + %lld) / %lld, &plo, &phi);", tiles, pw - 1, pw);
        emit_line(e, "const int64_t tlo = plo * %lld, thi = phi * %lld < %s ? phi * %lld : %s;",
                  pw, pw, tiles, pw, tiles);
        emit_line(e, "const int64_t nch = tlo < thi ? (thi - tlo + cw - 1) / cw : 1;");
        emit_line(e, "const int64_t cs = ((thi - tlo + nch - 1) / nch + %lld) / %lld * %lld;",
                  pw - 1, pw, pw);
        emit_line(e, "/* chunks of cs <= cw tiles (whole panels), the thread's own run of them */");
        emit_line(e, "for (int64_t t0 = tlo; t0 < thi; t0 += cs) {");
        emit_indent(e, 1);
        emit_line(e, "const int64_t nt = thi - t0 < cs ? thi - t0 : cs;");
        emit_wino_chunk(e, n, act, p0, p1, false);
        emit_indent(e, -1);
        emit_line(e, "}");
        emit_indent(e, -3);
        emit_line(e, "        }");
        emit_line(e, "        continue;");
        emit_line(e, "    }");
        emit_line(e, "#endif");
    }
    emit_line(e, "    for (int64_t t0 = 0; t0 < %s; t0 += %s) {", tiles, step);
    emit_indent(e, 2);
    emit_line(e, "%s *const wv = wv0, *const wm = wm0;", ct);
    emit_line(e, "const int64_t sk = %lld;", sk);
    emit_line(e, "const int64_t nt = %s - t0 < %s ? %s - t0 : %s;", tiles, step, tiles, step);
    emit_wino_chunk(e, n, act, p0, p1, true);
    emit_indent(e, -2);
    emit_line(e, "    }");
    emit_line(e, "}");
}

/* One tile of an unfolded Conv: positions p0 .. p0 + np - 1 unfolded into buf (packed as the
 * engine's B operand), then Y[:, tile] = W x buf with the epilogue. */
typedef struct {
    DType dt;
    const char *sfx, *gemm, *cg, *mg, *rows, *ta, *osp, *bias;
    bool res;
    int act;
    float p0, p1;
    const char *arr[6];
} UnfTile;
static void emit_unf_tile(Emit *e, const UnfTile *u, const char *buf) {
    const char *ct = dtype_ctype(u->dt);
    emit_line(e, "im2col_%s(xg, %s, %s, %s, %s, %s, %s, %s, p0, np, %s);", u->sfx, u->cg,
              u->arr[0], u->arr[1], u->arr[2], u->arr[3], u->arr[4], u->arr[5], buf);
    const char *ep = gp_emit_epi(e, u->gemm, u->dt, u->bias, "1", "0", u->res ? "rg + p0" : NULL,
                                 u->osp, u->act, u->p0, u->p1);
    emit_line(e, "gemm_%s(%s, np, %s, wg, %s, %s, %s, np, 2, yg + p0, %s, (%s)1, (%s)0, %s, gw);",
              u->gemm, u->mg, u->rows, u->rows, u->ta, buf, u->osp, ct, ct, ep);
}

bool conv_is_depthwise(const Node *n) {
    return !strcmp(n->op_type, "Conv") && (!n->domain || !*n->domain) && n->priv &&
           ((const ConvPlan *)n->priv)->depthwise;
}

/* Whether v's one consumer is a depthwise Conv: the threads split its channels (conv_dw.c,
 * conv_dwc.c, conv_dwp.c), so a 1x1 Conv writing v splits its output channels the same way
 * (GEMM_PACKED_ROWS, templates/gemm.c) and each thread then reads what it wrote. */
static bool feeds_depthwise(Compiler *c, const Value *v) {
    if (v->nuses != 1 || v->is_output)
        return false;
    for (int i = 0; i < c->g->nnodes; i++) {
        const Node *q = c->g->nodes[i];
        if (!q->dead && q->nin > 0 && q->in[0] == v)
            return conv_is_depthwise(q);
    }
    return false;
}

void emit_conv(Compiler *c, Emit *e, Node *n) {
    ConvPlan *p = n->priv;
    Value *x = n->in[0], *w = n->in[1], *b = node_in(n, 2), *res = node_in(n, 3), *y = n->out[0];
    const char *ct = dtype_ctype(y->dtype);
    const char *N = emit_sym(e, x->shape[0]);
    const char *C = emit_sym(e, x->shape[1]), *M = emit_sym(e, y->shape[1]);
    const char *isp = emit_sym(e, p->isp), *osp = emit_sym(e, p->osp);
    int act;
    float p0, p1;
    gp_epi_attrs(n, &act, &p0, &p1);
    if (p->depthwise) {
        const char *why = dw_slow_reason(c, p);
        if (why)
            o2c_warn(c, n, "depthwise convolution on the scalar row kernel (templates/conv_dw.c), "
                     "not the vector ones: %s", why);
        emit_kernel(e, "conv depthwise (%s)", !p->dwp_slot ? "direct row loops"
                                               : p->dwc ? "channels in vector lanes, else rows"
                                                        : "phase planes, else rows");
        const char *dw = emit_template(e, "conv_dw", y->dtype);
        /* a GlobalAveragePool of y fused as a second output (lower.c): each channel's mean */
        Value *g = n->nout > 1 ? n->out[1] : NULL;
        const char *gap = g ? arena_printf(emit_arena(e), "%s + nb * %s", emit_ptr(e, g), M) : "0";
        /* (the row kernel's: the mean after each channel's call, in the channel loop) */
        const char *gapmean = "";
        if (g)
            gapmean = arena_printf(emit_arena(e),
                                   " %s[nb * %s + ch] = reduce_mean_%s(%s + (nb * %s + ch) * %s, "
                                   "%s); }",
                                   emit_ptr(e, g), M, emit_template(e, "reduce_lanes", y->dtype),
                                   emit_ptr(e, y), M, osp, osp);
        /* the channel loop here, not in the template, so the kernel call keeps the literal
         * sizes of a static shape inside the OpenMP region (gcc specialises it on them) */
        if (p->dwp_slot) {
            /* both kernels referenced (no unused function), the target's one compiled */
            const char *dwp = emit_template(e, p->dwc ? "conv_dwc" : "conv_dwp", y->dtype);
            emit_line(e, "/* depthwise: %s on cores with vectors, else direct loops, one channel "
                         "at a time */", p->dwc ? "channels in the vector lanes" : "phase planes");
            emit_line(e, "if (%s) {", p->dwc_rows3_x86 ? "O2C_DWC && !O2C_DWC_ROWS3_X86"
                                      : p->dwc_rows3   ? "O2C_DWC && !O2C_DWC_ROWS3"
                                      : p->dwc         ? "O2C_DWC"
                                                       : "O2C_DWP");
            emit_line(e, "    for (int64_t nb = 0; nb < %s; nb++)", N);
            emit_line(e, "        %s_%s(%s + nb * %s * %s, %s, %s, %s, %s + nb * %s * %s, %s, %s, "
                      "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s, "
                      "(%s *)(void *)(ws + %s), %s, %d);",
                      p->dwc ? "dwc" : "dwp", dwp, emit_ptr(e, x), C, isp, emit_ptr(e, w),
                      b ? emit_ptr(e, b) : "0",
                      res ? arena_printf(emit_arena(e), "%s + nb * %s * %s", emit_ptr(e, res), M, osp)
                          : "0",
                      emit_ptr(e, y), M, osp, gap, M, emit_sym(e, p->in[1]), emit_sym(e, p->in[2]),
                      emit_sym(e, p->out[1]), emit_sym(e, p->out[2]), emit_sym(e, p->k[1]),
                      emit_sym(e, p->k[2]), emit_sym(e, p->stride[1]), emit_sym(e, p->stride[2]),
                      emit_sym(e, p->dil[1]), emit_sym(e, p->dil[2]), emit_sym(e, p->pad[1]),
                      emit_sym(e, p->pad[2]), act, emit_literal(e, y->dtype, p0),
                      emit_literal(e, y->dtype, p1), ct, emit_sym(e, n->scratch_offset),
                      emit_sym(e, p->dwp_slot), DWP_SLOTS);
            emit_line(e, "} else");
        } else
            emit_line(e, "/* depthwise: direct loops, one channel at a time */");
        emit_line(e, "for (int64_t nb = 0; nb < %s; nb++) {", N);
        emit_indent(e, 1);
        /* (factors the call uses too: no variable that only OpenMP builds would use) */
        emit_par_for(
            e,
            arena_printf(emit_arena(e),
                         "(double)(%s) * (double)(%s) * (double)(%s) * (double)(%s) >= 65536.0",
                         M, osp,
                         emit_sym(e, p->k[1]), emit_sym(e, p->k[2])),
            arena_printf(emit_arena(e), "for (int64_t ch = 0; ch < %s; ch++)", M),
            arena_printf(
                emit_arena(e),
                "%sdwconv_%s(%s + nb * %s * %s, %s, %s, %s, %s + nb * %s * %s, ch, %s, %s, %s, "
                "%s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s);%s",
                g ? "{ " : "", dw, emit_ptr(e, x), C, isp, emit_ptr(e, w),
                b ? emit_ptr(e, b) : "0",
                res ? arena_printf(emit_arena(e), "%s + nb * %s * %s", emit_ptr(e, res), M, osp)
                    : "0",
                emit_ptr(e, y), M, osp, emit_sym(e, p->in[1]), emit_sym(e, p->in[2]),
                emit_sym(e, p->out[1]), emit_sym(e, p->out[2]), emit_sym(e, p->k[1]),
                emit_sym(e, p->k[2]), emit_sym(e, p->stride[1]), emit_sym(e, p->stride[2]),
                emit_sym(e, p->dil[1]), emit_sym(e, p->dil[2]), emit_sym(e, p->pad[1]),
                emit_sym(e, p->pad[2]), act, emit_literal(e, y->dtype, p0),
                emit_literal(e, y->dtype, p1), gapmean));
        emit_indent(e, -1);
        emit_line(e, "}");
        return;
    }
    if (p->cdirect) {
        emit_kernel(e, "conv direct (blocks of 4 channels x 6 positions, no scratch)");
        const char *cd = emit_template(e, "conv_direct", y->dtype);
        const char *G = emit_sym(e, p->group);
        const char *cg = emit_sym(e, p->cg), *mg = emit_sym(e, p->mg);
        const char *kvol = emit_sym(e, sym_mul(c->sym, p->k[1], p->k[2]));
        emit_line(e, "/* direct loops: blocks of 4 output channels x 6 positions, no scratch */");
        emit_line(e, "for (int64_t nb = 0; nb < %s; nb++)", N);
        emit_line(e, "    for (int64_t gi = 0; gi < %s; gi++)", G);
        emit_line(e, "        convd_%s(%s + (nb * %s + gi * %s) * %s, %s + gi * %s * %s * %s, %s, %s, "
                  "%s + (nb * %s + gi * %s) * %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                  "%s, %s, %d, %s, %s);",
                  cd, emit_ptr(e, x), C, cg, isp, emit_ptr(e, p->wpk), mg, cg, kvol,
                  b ? arena_printf(emit_arena(e), "%s + gi * %s", emit_ptr(e, b), mg) : "0",
                  res ? arena_printf(emit_arena(e), "%s + (nb * %s + gi * %s) * %s",
                                     emit_ptr(e, res), M, mg, osp)
                      : "0",
                  emit_ptr(e, y), M, mg, osp, cg, emit_sym(e, p->in[1]), emit_sym(e, p->in[2]),
                  mg, emit_sym(e, p->out[1]), emit_sym(e, p->out[2]), emit_sym(e, p->k[1]),
                  emit_sym(e, p->k[2]), emit_sym(e, p->stride[1]), emit_sym(e, p->stride[2]),
                  emit_sym(e, p->dil[1]), emit_sym(e, p->dil[2]), emit_sym(e, p->pad[1]),
                  emit_sym(e, p->pad[2]), act, emit_literal(e, y->dtype, p0),
                  emit_literal(e, y->dtype, p1));
        return;
    }
    if (p->wide) {
        emit_kernel(e, "conv wide rows (few output channels, no unfold)");
        const char *wd = emit_template(e, "conv_wide", y->dtype);
        const char *G = emit_sym(e, p->group);
        const char *cg = emit_sym(e, p->cg), *mg = emit_sym(e, p->mg);
        const char *kvol = emit_sym(e, sym_mul(c->sym, p->k[1], p->k[2]));
        /* the sizes (literals when constant): in a function of this node's own
         * (templates/conv_wide.c) when they all are constants, else parameters of the one
         * shared function */
        Sym *const sz[] = {p->cg, p->mg, p->in[1], p->in[2], p->out[1], p->out[2], p->k[1],
                           p->k[2], p->dil[1], p->dil[2], p->pad[1], p->pad[2], p->cap};
        bool konst = true;
        for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
            konst = konst && sym_is_const(sz[i]);
        const char *list = arena_printf(
            emit_arena(e), "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s", cg, mg,
            emit_sym(e, p->in[1]), emit_sym(e, p->in[2]), emit_sym(e, p->out[1]),
            emit_sym(e, p->out[2]), emit_sym(e, p->k[1]), emit_sym(e, p->k[2]),
            emit_sym(e, p->dil[1]), emit_sym(e, p->dil[2]), emit_sym(e, p->pad[1]),
            emit_sym(e, p->pad[2]), act, emit_literal(e, y->dtype, p0),
            emit_literal(e, y->dtype, p1));
        const char *cap = emit_sym(e, p->cap);
        const char *ptrs = arena_printf(emit_arena(e), "(const %s *x, const %s *w, const %s *bias, "
                                        "const %s *res, %s *y", ct, ct, ct, ct, ct);
        const char *fn, *sizes;
        if (konst) {
            fn = arena_printf(emit_arena(e), "convwide_%s_n%d", wd, n->index);
            emit_kernel_fn(e, fn,
                           "/* %s: convwide_in_%s with this node's sizes as constants */\n"
                           "O2C_KERNEL\n"
                           "static void %s%s, %s *scratch) {\n"
                           "    convwide_in_%s(x, w, bias, res, y, %s, scratch, %s);\n"
                           "}\n",
                           emit_comment_text(e, n->name), wd, fn, ptrs, ct, wd, list, cap);
            sizes = scratch_ptr(e, n, ct);
        } else {
            fn = arena_printf(emit_arena(e), "convwide_%s", wd);
            emit_kernel_fn(e, fn,
                           "O2C_KERNEL\n"
                           "static void %s%s, int64_t C, int64_t M, int64_t H, int64_t W, "
                           "int64_t OH, int64_t OW, int64_t KH, int64_t KW, int64_t dh, "
                           "int64_t dw, int64_t ph, int64_t pw, int act, %s p0, %s p1, "
                           "%s *scratch, int64_t cap) {\n"
                           "    convwide_in_%s(x, w, bias, res, y, C, M, H, W, OH, OW, KH, KW, "
                           "dh, dw, ph, pw, act, p0, p1, scratch, cap);\n"
                           "}\n",
                           fn, ptrs, ct, ct, ct, wd);
            sizes = arena_printf(emit_arena(e), "%s, %s, %s", list, scratch_ptr(e, n, ct), cap);
        }
        emit_line(e, "/* stride 1, %s output channel(s) per group: wide rows (no unfold) */", mg);
        emit_line(e, "for (int64_t nb = 0; nb < %s; nb++)", N);
        emit_line(e, "    for (int64_t gi = 0; gi < %s; gi++)", G);
        emit_line(e, "        %s(%s + (nb * %s + gi * %s) * %s, %s + gi * %s * %s * %s, %s, %s, "
                  "%s + (nb * %s + gi * %s) * %s, %s);",
                  fn, emit_ptr(e, x), C, cg, isp, emit_ptr(e, w), mg, cg, kvol,
                  b ? arena_printf(emit_arena(e), "%s + gi * %s", emit_ptr(e, b), mg) : "0",
                  res ? arena_printf(emit_arena(e), "%s + (nb * %s + gi * %s) * %s",
                                     emit_ptr(e, res), M, mg, osp)
                      : "0",
                  emit_ptr(e, y), M, mg, osp, sizes);
        return;
    }
    if (p->wino) {
        emit_kernel(e, "conv winograd F(%s,3x3) + gemm%s", p->wino4 ? "4x4" : "2x2",
                    p->wino_t ? " (transposed)" : "");
        emit_wino(c, e, n, act, p0, p1);
        return;
    }
    if (p->ind) {
        const char *ind = emit_template(e, "conv_ind", y->dtype);
        Sym *hp = ind_padded(c, p, 1), *wp = ind_padded(c, p, 2);
        emit_line(e, "/* an indirect GEMM over the padded image (no unfold) on cores with "
                  "64-byte vectors */");
        if (p->ind_hq)
            /* runtime image dims: the image and its padded copy within IND_MAX_PIX (int32
             * offsets; the scratch is capped there), else the unfold path */
            emit_line(e, "if (conv_ind_ok_%s() && (double)(%s) <= %d.0 && (double)(%s) <= %d.0 "
                      "&& (double)%s * (double)(%s) * (double)(%s) <= %d.0) {",
                      ind, emit_sym(e, p->in[1]), IND_MAX_PIX, emit_sym(e, p->in[2]),
                      IND_MAX_PIX, C, emit_sym(e, p->ind_hq), emit_sym(e, p->ind_wq),
                      IND_MAX_PIX);
        else
            emit_line(e, "if (conv_ind_ok_%s()) {", ind);
        emit_line(e, "    for (int64_t nb = 0; nb < %s; nb++)", N);
        emit_line(e, "        conv_ind_%s(%s + nb * %s * %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                  "%s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s + nb * %s * %s, %s, %s, %s);",
                  ind, emit_ptr(e, x), C, isp, C, emit_sym(e, p->in[1]), emit_sym(e, p->in[2]),
                  emit_sym(e, p->pad[1]), emit_sym(e, p->pad[2]), emit_sym(e, hp),
                  emit_sym(e, wp), emit_sym(e, p->stride[1]), emit_sym(e, p->stride[2]),
                  emit_sym(e, p->k[1]), emit_sym(e, p->k[2]),
                  emit_sym(e, p->dil[1]), emit_sym(e, p->dil[2]), emit_ptr(e, p->wpk), M,
                  b ? emit_ptr(e, b) : "0",
                  res ? arena_printf(emit_arena(e), "%s + nb * %s * %s", emit_ptr(e, res), M,
                                     osp)
                      : "0",
                  act, emit_literal(e, y->dtype, p0), emit_literal(e, y->dtype, p1),
                  emit_ptr(e, y), M, osp, emit_sym(e, p->out[1]), emit_sym(e, p->out[2]),
                  scratch_ptr(e, n, ct));
        emit_line(e, "} else {");
        emit_indent(e, 1);
    }
    emit_kernel(e, "conv %s%s%s", p->ind ? "indirect gemm on AVX-512, else " : "",
                p->direct ? "1x1 gemm (no unfold)" : "im2col+gemm",
                p->wpk ? " (packed weight)" : " (weight packed at run time)");
    const char *gemm = emit_template(e, "gemm", y->dtype);
    const char *sfx = p->direct ? NULL : emit_template(e, "conv_im2col", y->dtype);
    const char *G = emit_sym(e, p->group);
    const char *cg = emit_sym(e, p->cg), *mg = emit_sym(e, p->mg), *rows = emit_sym(e, p->rows);
    const char *arr[6] = {0};
    if (!p->direct) {
        emit_geometry(e, p, arr);
        emit_line(e, "%s *const cols = %s;", ct, scratch_ptr(e, n, ct));
    }
    emit_line(e, "%s *const gw = %s + %s;", ct, scratch_ptr(e, n, ct), emit_sym(e, p->cols));
    emit_line(e, "for (int64_t nb = 0; nb < %s; nb++) {", N);
    emit_line(e, "    for (int64_t gi = 0; gi < %s; gi++) {", G);
    emit_indent(e, 2);
    emit_line(e, "const %s *xg = %s + (nb * %s + gi * %s) * %s;", ct, emit_ptr(e, x), C, cg, isp);
    if (p->wpk)
        emit_line(e, "const %s *wg = %s + gi * %s;", ct, emit_ptr(e, p->wpk),
                  emit_sym(e, sym_mul(c->sym, gp_roundup(c->sym, p->mg, GP_MR), p->rows)));
    else
        emit_line(e, "const %s *wg = %s + gi * %s * %s;", ct, emit_ptr(e, w), mg, rows);
    emit_line(e, "%s *yg = %s + (nb * %s + gi * %s) * %s;", ct, emit_ptr(e, y), M, mg, osp);
    if (res)
        emit_line(e, "const %s *rg = %s + (nb * %s + gi * %s) * %s;", ct, emit_ptr(e, res), M, mg,
                  osp);
    const char *bias = b ? arena_printf(emit_arena(e), "%s + gi * %s", emit_ptr(e, b), mg) : NULL;
    const char *ta = p->wpk ? "2" : "0";
    if (p->direct) {
        emit_line(e, "/* 1x1, stride 1, no padding: Y[g] = W[g] x X[g] */");
        const char *ep = gp_emit_epi(e, gemm, y->dtype, bias, "1", "0", res ? "rg" : NULL, osp,
                                     act, p0, p1);
        if (p->wpk && feeds_depthwise(c, y))
            ta = "6"; /* GEMM_PACKED_ROWS */
        emit_line(e, "gemm_%s(%s, %s, %s, wg, %s, %s, xg, %s, 0, yg, %s, (%s)1, (%s)0, %s, gw);",
                  gemm, mg, osp, rows, rows, ta, osp, osp, ct, ct, ep);
    } else {
        const char *tile = emit_sym(e, p->tile);
        const UnfTile ut = {y->dtype, sfx, gemm, cg, mg, rows, ta, osp, bias, res != NULL, act,
                            p0, p1, {arr[0], arr[1], arr[2], arr[3], arr[4], arr[5]}};
        if (p->wpk) {
            /* Built with OpenMP, with A packed (the engine then needs no buffer of its own):
             * each thread takes its own run of output positions, in tiles of its share of
             * cols, and unfolds and multiplies them alone: no fork or barrier per tile, and
             * the unfolded tile never leaves the thread's core (forked per tile, a 64 -> 64
             * 3x3 over 56x56 ran slower on two threads than on one).  From two column panels a
             * thread: with one each, the threads share the tile's rows instead (a 7x7 image,
             * 32 + 17 positions, each thread reading all the weight: 512 -> 512 0.99 -> 0.95
             * ms, 256 -> 512 stride 2 0.47 -> 0.40 ms that way) */
            const long long nr = (long long)gp_nr(y->dtype);
            /* (tile rounded up to NR, written out here: a dim used only in this branch would be
             * an unused variable in a build without OpenMP) */
            const char *tpad = arena_printf(emit_arena(e), "(%s + %lld) / %lld * %lld", tile,
                                            nr - 1, nr, nr);
            scratch_part_keep(c, e);
            emit_line(e, "#ifdef _OPENMP");
            emit_line(e, "if (o2c_par((double)(%s) * (double)(%s) * (double)(%s) >= 262144.0 "
                         "&& %s / omp_get_max_threads() >= %lld)) {",
                      mg, osp, rows, tpad, 2 * nr);
            emit_line(e, "#pragma omp parallel");
            emit_line(e, "    {");
            emit_indent(e, 2);
            emit_line(e, "const int64_t tw = %s / omp_get_num_threads() / %lld * %lld;", tpad, nr,
                      nr);
            emit_line(e, "%s *ct = cols + omp_get_thread_num() * %s * tw;", ct, rows);
            scratch_part(c, e, n, "ct", ct,
                         arena_printf(emit_arena(e), "%s * tw * (int64_t)sizeof(%s)", rows, ct),
                         NULL);
            emit_line(e, "int64_t lo, hi;");
            emit_line(e, "o2c_share((%s + %lld) / %lld, &lo, &hi);", osp, nr - 1, nr);
            emit_line(e, "hi = hi * %lld < %s ? hi * %lld : %s;", nr, osp, nr, osp);
            emit_line(e, "for (int64_t p0 = lo * %lld; p0 < hi; p0 += tw) {", nr);
            emit_indent(e, 1);
            emit_line(e, "const int64_t np = hi - p0 < tw ? hi - p0 : tw;");
            emit_unf_tile(e, &ut, "ct");
            emit_indent(e, -1);
            emit_line(e, "}");
            emit_indent(e, -2);
            emit_line(e, "    }");
            emit_line(e, "} else");
            emit_line(e, "#endif");
        }
        emit_line(e, "for (int64_t p0 = 0; p0 < %s; p0 += %s) {", osp, tile);
        emit_indent(e, 1);
        emit_line(e, "const int64_t np = %s - p0 < %s ? %s - p0 : %s;", osp, tile, osp, tile);
        /* the unfolded tile goes out packed as the engine's B operand (no packing pass in the
         * engine; with A packed too, its threads keep their own tiles through all K blocks,
         * no barrier between them) */
        emit_unf_tile(e, &ut, "cols");
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    emit_indent(e, -2);
    emit_line(e, "    }");
    emit_line(e, "}");
    if (p->ind) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}

/* ---- ConvTranspose */

void infer_conv_transpose(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    ConvPlan *p = arena_alloc(c->arena, sizeof *p);
    p->transpose = true;
    int64_t pads[6], opad[3], oshape[5];
    int mode;
    int sp = conv_common(c, n, p, pads, &mode), off = 3 - sp;
    Value *x = n->in[0], *w = n->in[1], *b = node_in(n, 2);
    ir_constrain(c, n, CK_EQ, w->shape[0], x->shape[1],
                 "ConvTranspose weight dim 0 must equal the input channels");
    ir_constrain(c, n, CK_DIVIDES, p->group, x->shape[1],
                 "ConvTranspose group must divide the input channels");
    p->cg = sym_floordiv(s, x->shape[1], p->group);
    p->mg = w->shape[1];
    Sym *m = sym_mul(s, p->mg, p->group);
    if (b)
        ir_constrain(c, n, CK_EQ, b->shape[0], m,
                     "ConvTranspose bias length must equal the output channels");
    attr_ints_n(c, n, "output_padding", sp, 0, 0, opad);
    const int64_t *os;
    int nos = attr_ints(c, n, "output_shape", &os);
    if (nos >= 0 && nos != sp && nos != sp + 2)
        o2c_error(c, n, "attribute 'output_shape' has %d values, expected %d", nos, sp);
    for (int i = 0; nos >= 0 && i < sp; i++) {
        oshape[i] = os[nos - sp + i];
        if (oshape[i] < 0)
            o2c_error(c, n, "output_shape[%d] = %lld is negative", i, (long long)oshape[i]);
    }
    for (int i = 0; i < 3; i++)
        p->out[i] = K(c, 1);
    for (int i = 0; i < sp; i++) {
        int a = off + i;
        Sym *span = sym_add(s, sym_mul(s, p->dil[a], sym_sub(s, p->k[a], K(c, 1))), K(c, 1));
        /* stride * (in - 1) + output_padding + dilation * (k - 1) + 1: the unpadded extent */
        Sym *full = sym_add(s, sym_add(s, sym_mul(s, p->stride[a], sym_sub(s, p->in[a], K(c, 1))),
                                       K(c, opad[i])),
                            span);
        if (nos >= 0 || mode == AUTO_PAD_SAME_UPPER || mode == AUTO_PAD_SAME_LOWER) {
            p->out[a] = nos >= 0 ? K(c, oshape[i]) : sym_mul(s, p->in[a], p->stride[a]);
            Sym *total = sym_sub(s, full, p->out[a]);
            p->pad[a] = mode == AUTO_PAD_SAME_UPPER ? half(c, total) : sym_sub(s, total, half(c, total));
        } else {
            p->out[a] = sym_sub(s, sym_sub(s, full, K(c, pads[i])), K(c, pads[sp + i]));
            p->pad[a] = K(c, pads[i]);
            ir_constrain(c, n, CK_LE, K(c, 0), p->out[a],
                         "ConvTranspose output size along spatial axis %d must not be negative", i);
        }
    }
    Sym *kvol = prod3(c, p->k);
    p->rows = sym_mul(s, p->mg, kvol);
    p->isp = prod3(c, p->in);
    p->osp = prod3(c, p->out);
    p->tile = tile_size(c, p->rows, p->isp);
    p->cols = gp_roundup(s, sym_mul(s, p->rows, p->tile), 16);
    n->scratch = sym_mul(s, sym_add(s, p->cols, gp_work(c, x->dtype, p->rows, p->tile, p->cg, false, false)),
                         K(c, (int64_t)dtype_size(x->dtype)));
    Sym *shape[5] = {x->shape[0], m};
    for (int i = 0; i < sp; i++)
        shape[2 + i] = p->out[off + i];
    ir_set_shape(c, n->out[0], x->dtype, x->rank, shape);
    n->priv = p;
}

void emit_conv_transpose(Compiler *c, Emit *e, Node *n) {
    (void)c;
    ConvPlan *p = n->priv;
    Value *x = n->in[0], *w = n->in[1], *b = node_in(n, 2), *y = n->out[0];
    const char *ct = dtype_ctype(y->dtype);
    emit_kernel(e, "convtranspose gemm+col2im");
    const char *gemm = emit_template(e, "gemm", y->dtype);
    const char *sfx = emit_template(e, "conv_col2im", y->dtype);
    const char *G = emit_sym(e, p->group), *N = emit_sym(e, x->shape[0]);
    const char *C = emit_sym(e, x->shape[1]), *M = emit_sym(e, y->shape[1]);
    const char *cg = emit_sym(e, p->cg), *mg = emit_sym(e, p->mg), *rows = emit_sym(e, p->rows);
    const char *isp = emit_sym(e, p->isp), *osp = emit_sym(e, p->osp);
    const char *tile = emit_sym(e, p->tile);
    const char *arr[6];
    emit_geometry(e, p, arr);
    emit_line(e, "%s *const cols = %s;", ct, scratch_ptr(e, n, ct));
    emit_line(e, "%s *const gw = cols + %s;", ct, emit_sym(e, p->cols));
    emit_line(e, "for (int64_t nb = 0; nb < %s; nb++) {", N);
    emit_indent(e, 1);
    emit_line(e, "%s *yb = %s + nb * %s * %s;", ct, emit_ptr(e, y), M, osp);
    emit_line(e, "for (int64_t m = 0; m < %s; m++)", M);
    emit_line(e, "    for (int64_t q = 0; q < %s; q++)", osp);
    if (b)
        emit_line(e, "        yb[m * %s + q] = %s[m];", osp, emit_ptr(e, b));
    else
        emit_line(e, "        yb[m * %s + q] = (%s)0;", osp, ct);
    emit_line(e, "for (int64_t gi = 0; gi < %s; gi++) {", G);
    emit_indent(e, 1);
    emit_line(e, "const %s *xg = %s + (nb * %s + gi * %s) * %s;", ct, emit_ptr(e, x), C, cg, isp);
    emit_line(e, "const %s *wg = %s + gi * %s * %s;", ct, emit_ptr(e, w), cg, rows);
    emit_line(e, "for (int64_t p0 = 0; p0 < %s; p0 += %s) {", isp, tile);
    emit_indent(e, 1);
    emit_line(e, "const int64_t np = %s - p0 < %s ? %s - p0 : %s;", isp, tile, isp, tile);
    emit_line(e, "/* cols = W[g]^T x X[g][:, tile], then scatter-add into Y[g] */");
    emit_line(e, "gemm_%s(%s, np, %s, wg, %s, 1, xg + p0, %s, 0, cols, np, (%s)1, (%s)0, 0, gw);",
              gemm, rows, cg, rows, isp, ct, ct);
    emit_line(e, "col2im_%s(cols, %s, %s, %s, %s, %s, %s, %s, p0, np, yb + gi * %s * %s);", sfx, mg,
              arr[0], arr[1], arr[2], arr[3], arr[4], arr[5], mg, osp);
    emit_indent(e, -1);
    emit_line(e, "}");
    emit_indent(e, -1);
    emit_line(e, "}");
    emit_indent(e, -1);
    emit_line(e, "}");
}
