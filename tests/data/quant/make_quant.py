#!/usr/bin/env python3
"""make_quant.py — test models of the quantization family (compiler/ops/quant.c).

cases/NAME/: backend-style cases (model.onnx, test_data_set_0/{input,output}_I.pb) with
expected outputs computed here with numpy by the ONNX definitions: the paths the backend node
cases do not reach (int8, per-row/per-column/per-channel parameters, batched zero points,
groups, strides, dilations, auto_pad, bias, int32 inputs, opset 10).
err_*.onnx: models that must be rejected with a one-line error.
Run with Debian's python3-onnx: /usr/bin/python3 make_quant.py (writes next to itself)."""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import sat  # noqa: E402

NP2TP = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.uint8): TensorProto.UINT8,
         np.dtype(np.int8): TensorProto.INT8, np.dtype(np.int32): TensorProto.INT32}
rng = np.random.default_rng(1234)


def model(node, ins, outs, opset):
    return gen_util.make_model(
        "g", node, [helper.make_tensor_value_info(n, NP2TP[a.dtype], a.shape) for n, a in ins],
        [helper.make_tensor_value_info(n, NP2TP[a.dtype], a.shape) for n, a in outs], (), opset,
        None, 7)


def case(name, op, ins, outs, opset, const=False, **attrs):
    """const: every input but the first becomes an initializer (a second case NAME_c), the
    form that runs the int8 engine (templates/quant_i8.c) for the products."""
    if const and not name.endswith("_c"):
        case(name, op, ins, outs, opset, **attrs)
        name += "_c"
    node = helper.make_node(op, [n for n, _ in ins], [n for n, _ in outs], **attrs)
    m = model(node, ins[:1] if const else ins, outs, opset)
    if const:
        m.graph.initializer.extend(numpy_helper.from_array(a, n) for n, a in ins[1:])
        ins = ins[:1]
    onnx.checker.check_model(m)
    gen_util.write_case(os.path.join(HERE, "cases", name), m,
                        [([a for _, a in ins], [a for _, a in outs])], named=True)


def err(name, op, ins, outs, opset, **attrs):
    node = helper.make_node(op, [n for n, _ in ins], [n for n, _ in outs], **attrs)
    gen_util.save(os.path.join(HERE, name + ".onnx"), model(node, ins, outs, opset))


def q8(shape, dt):
    return gen_util.rand_q8(rng, shape, dt)  # rng at call time (fuzz.py replaces it)


def scales(shape):
    return (rng.integers(1, 64, size=shape) / 512.0).astype(np.float32)


def requant(acc, mult, zy, dt):
    return sat(np.rint(acc.astype(np.float64) * mult.astype(np.float64)) + zy, dt)


def conv_ref(x, w, group, strides, dil, pads):
    """x [N, C, *sp] int, w [M, C/g, *k] int (zero points already subtracted), pads begin+end."""
    sp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[sp + i]) for i in range(sp)])
    N, M = x.shape[0], w.shape[0]
    cg, mg = w.shape[1], M // group
    ks = w.shape[2:]
    osz = [(xp.shape[2 + i] - dil[i] * (ks[i] - 1) - 1) // strides[i] + 1 for i in range(sp)]
    y = np.zeros([N, M] + osz, dtype=np.int64)
    for o in np.ndindex(*osz):
        for kk in np.ndindex(*ks):
            idx = tuple(o[i] * strides[i] + kk[i] * dil[i] for i in range(sp))
            for g in range(group):
                xs = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + idx]  # N, cg
                ws = w[(slice(g * mg, (g + 1) * mg), slice(None)) + kk]   # mg, cg
                y[(slice(None), slice(g * mg, (g + 1) * mg)) + o] += xs @ ws.T
    return y


def same_pads(insz, ks, strides, dil, lower):
    pb, pe = [], []
    for i, d in enumerate(insz):
        o = -(-d // strides[i])
        total = max(0, (o - 1) * strides[i] + dil[i] * (ks[i] - 1) + 1 - d)
        b = total - total // 2 if lower else total // 2
        pb.append(b)
        pe.append(total - b)
    return pb + pe


def qconv_case(name, xshape, xt, wshape, wt, group=1, strides=None, dil=None, pads=None,
                zw_mode="none", per_channel=True, bias=True, yt=np.int8, big_mult=False,
                sw=None, sx=None, sy=None):
    """A QLinearConv with constant weight and parameters (the int8 engine) and its reference."""
    sp = len(xshape) - 2
    strides, dil = strides or [1] * sp, dil or [1] * sp
    pads = pads or [0] * (2 * sp)
    M = wshape[0]
    x, w = q8(xshape, xt), q8(wshape, wt)
    zx = q8((), xt)
    sx = np.array(0.03 if sx is None else sx, dtype=np.float32)
    if sw is None:
        sw = scales((M,)) if per_channel else scales(())
    sw = np.asarray(sw, dtype=np.float32)
    zw = {"none": np.zeros((), wt), "scalar": q8((), wt), "channel": q8((M,), wt)}[zw_mode]
    sy = np.array(sy if sy is not None else 0.002 if big_mult else 0.4, dtype=np.float32)
    zy = q8((), yt)
    b = rng.integers(-3000, 3000, size=(M,)).astype(np.int32)
    zwb = zw.reshape((M,) + (1,) * (sp + 1)) if zw.ndim else zw
    acc = conv_ref(x.astype(np.int64) - zx, w.astype(np.int64) - zwb, group, strides, dil, pads)
    if bias:
        acc = acc + b.reshape((1, M) + (1,) * sp)
    acc = ((acc + 2**31) % 2**32 - 2**31)
    mult = (sx * sw / sy).astype(np.float32)
    if mult.ndim:
        mult = mult.reshape((1, M) + (1,) * sp)
    ins = [("x", x), ("sx", sx), ("zx", zx), ("w", w), ("sw", sw), ("zw", zw), ("sy", sy),
           ("zy", zy)] + ([("B", b)] if bias else [])
    case(name, "QLinearConv", ins, [("y", requant(acc, mult, zy, yt))], 10, const=True,
         group=group, strides=strides, dilations=dil, pads=pads)


def maxpool_ref(x, kernel_shape, strides, pads, dilations=None, ceil_mode=0):
    """ONNX MaxPool of an integer tensor: the max of the taps inside the input."""
    sp = x.ndim - 2
    dil = dilations or [1] * sp
    osz = []
    for i in range(sp):
        span = dil[i] * (kernel_shape[i] - 1) + 1
        num = x.shape[2 + i] + pads[i] + pads[sp + i] - span
        o = (-(-num // strides[i]) if ceil_mode else num // strides[i]) + 1
        if ceil_mode and (o - 1) * strides[i] >= x.shape[2 + i] + pads[i]:
            o -= 1
        osz.append(o)
    y = np.full(x.shape[:2] + tuple(osz), np.iinfo(x.dtype).min, dtype=x.dtype)
    for o in np.ndindex(*osz):
        for kk in np.ndindex(*kernel_shape):
            idx = [o[i] * strides[i] - pads[i] + kk[i] * dil[i] for i in range(sp)]
            if all(0 <= idx[i] < x.shape[2 + i] for i in range(sp)):
                sl = (slice(None), slice(None)) + o
                y[sl] = np.maximum(y[sl], x[(slice(None), slice(None)) + tuple(idx)])
    return y


def engine_cases():
    """The int8 engine's paths: im2col tiles (groups, strides, dilations, pads, 1-D/2-D/3-D,
    K below and above 16, odd output counts), the pointwise unfold, depthwise, uint8 operands
    (sign flip), weight zero points (column sums), per-tensor and per-channel scales, outputs
    int8 and uint8, saturation (a large multiplier), int32 outputs, products of rows."""
    qconv_case("qconv_e_im2col", (2, 6, 7, 9), np.int8, (8, 6, 3, 3), np.int8, pads=[1, 1, 1, 1])
    qconv_case("qconv_e_u8_group", (1, 8, 9, 8), np.uint8, (6, 4, 3, 2), np.uint8, group=2,
               strides=[2, 1], dil=[2, 2], pads=[1, 0, 2, 1], zw_mode="scalar", yt=np.uint8)
    qconv_case("qconv_e_dw", (2, 5, 8, 7), np.int8, (5, 1, 3, 3), np.int8, group=5,
               strides=[2, 1], pads=[1, 1, 1, 1], zw_mode="channel")
    qconv_case("qconv_e_dw_u8", (1, 4, 6, 9), np.uint8, (4, 1, 3, 5), np.int8, group=4,
               dil=[1, 2], pads=[2, 3, 0, 1], yt=np.uint8)
    qconv_case("qconv_e_1d", (2, 3, 20), np.uint8, (5, 3, 4), np.int8, strides=[3], pads=[2, 1],
               per_channel=False)
    qconv_case("qconv_e_3d", (1, 2, 4, 5, 6), np.int8, (3, 2, 2, 3, 2), np.uint8,
               pads=[1, 0, 1, 0, 1, 1], zw_mode="channel", bias=False)
    qconv_case("qconv_e_pointwise", (1, 20, 5, 5), np.int8, (17, 20, 1, 1), np.int8)
    qconv_case("qconv_e_pointwise_u8", (2, 33, 3, 7), np.uint8, (4, 33, 1, 1), np.int8,
               zw_mode="channel", yt=np.uint8)
    qconv_case("qconv_e_deep", (1, 70, 6, 6), np.int8, (9, 70, 3, 3), np.int8, pads=[1, 1, 1, 1])
    qconv_case("qconv_e_saturate", (1, 3, 5, 5), np.int8, (4, 3, 3, 3), np.int8, big_mult=True)
    # multipliers that are powers of two (ties in every 2^k-th sum: round half to even on
    # both sides of 1/4, where the fixed-point path changes) and 3/8, 3/4, 3/2
    qconv_case("qconv_e_ties", (1, 4, 6, 6), np.int8, (8, 4, 2, 2), np.int8, pads=[1, 1, 0, 0],
               sx=0.125, sy=1.0, sw=[2.0**-2, 2.0**-6, 3 * 2.0**-3, 1.5, 2.0**-9, 2.0**1,
                                     6.0, 2.0**-14])
    # MatMulInteger / QLinearMatMul with a constant B: rows of A in tiles, N odd, K > 16
    a, b = q8((3, 5, 37), np.uint8), q8((37, 11), np.int8)
    za, zb = q8((), np.uint8), q8((11,), np.int8)
    yy = np.matmul(a.astype(np.int64) - za, b.astype(np.int64) - zb).astype(np.int32)
    case("matmulinteger_e_batch", "MatMulInteger", [("A", a), ("B", b), ("za", za), ("zb", zb)],
         [("Y", yy)], 10, const=True)
    a, b = q8((2, 40), np.int8), q8((40, 6), np.uint8)
    sa, za = np.array(0.02, np.float32), q8((), np.int8)
    sb, zb = scales((6,)), q8((6,), np.uint8)
    sy, zy = np.array(0.3, np.float32), q8((), np.uint8)
    acc = np.matmul(a.astype(np.int64) - za, b.astype(np.int64) - zb)
    mult = (sa * sb / sy).astype(np.float32)
    case("qlinearmatmul_e_u8", "QLinearMatMul",
         [("a", a), ("sa", sa), ("za", za), ("b", b), ("sb", sb), ("zb", zb), ("sy", sy),
          ("zy", zy)], [("y", requant(acc, mult, zy, np.uint8))], 10, const=True)
    # depthwise 3x3 over a padded plane: rows wider than a vector (16 outputs) with a tail,
    # stride 2 (the even bytes) and 1, uint8 and int8
    qconv_case("qconv_e_dw3_s2", (1, 6, 9, 37), np.uint8, (6, 1, 3, 3), np.int8, group=6,
               strides=[2, 2], pads=[1, 1, 1, 1], yt=np.uint8)
    qconv_case("qconv_e_dw3_s1", (2, 3, 5, 40), np.int8, (3, 1, 3, 3), np.int8, group=3,
               pads=[1, 1, 1, 1])
    # three blocks of 16 outputs (a pair, then one), 3x3 windows copied 4 bytes at a time
    qconv_case("qconv_e_wide", (1, 20, 5, 6), np.uint8, (40, 20, 3, 3), np.int8,
               pads=[1, 1, 1, 1], yt=np.uint8)
    # integer MaxPool (the int8 tensor of a QDQ graph): pads, strides, dilations, ceil_mode
    for name, shape, dt, attrs in (
            ("maxpool_u8_pads", (1, 3, 9, 11), np.uint8,
             dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
            ("maxpool_i8_dil_ceil", (2, 2, 10, 7), np.int8,
             dict(kernel_shape=[2, 3], strides=[3, 2], dilations=[2, 1], pads=[0, 2, 1, 0],
                  ceil_mode=1)),
            ("maxpool_i8_1d", (1, 4, 17), np.int8, dict(kernel_shape=[4], strides=[1], pads=[3, 2])),
            ("maxpool_u8_3d", (1, 2, 4, 5, 6), np.uint8,
             dict(kernel_shape=[2, 2, 3], strides=[1, 2, 2], pads=[0, 1, 1, 1, 0, 1]))):
        x = q8(shape, dt)
        case(name, "MaxPool", [("x", x)], [("y", maxpool_ref(x, **attrs))], 12, **attrs)
    # big enough (tiles x K x outputs >= 10^6) to share its tiles among OpenMP threads
    qconv_case("qconv_e_omp", (1, 32, 24, 23), np.uint8, (64, 32, 3, 3), np.int8,
               pads=[1, 1, 1, 1], yt=np.uint8)
    qconv_case("qconv_e_omp_dw", (1, 40, 30, 30), np.int8, (40, 1, 3, 3), np.int8, group=40,
               pads=[1, 1, 1, 1])
    # a 7x7 stride-2 stem (rows of 7 copied at once inside the image)
    qconv_case("qconv_e_k7", (1, 3, 20, 21), np.uint8, (8, 3, 7, 7), np.int8, strides=[2, 2],
               pads=[3, 3, 3, 3], yt=np.uint8)
    # a 3-D depthwise convolution with a kernel depth of 1 (not the 2-D padded-plane path)
    qconv_case("qconv_e_dw3d", (1, 2, 4, 4, 3), np.int8, (2, 1, 1, 1, 3), np.int8, group=2,
               strides=[1, 2, 2], pads=[2, 0, 1, 1, 0, 0])


def main():
    # QuantizeLinear: int32 input, int8 per axis (axis -1)
    x = rng.integers(-3000, 3000, size=(2, 3, 4)).astype(np.int32)
    s = scales((4,)) * 8
    z = q8((4,), np.int8)
    y = sat(np.rint(x.astype(np.float64) / s.astype(np.float64)) + z, np.int8)
    case("quantize_int32_axis", "QuantizeLinear", [("x", x), ("s", s), ("z", z)], [("y", y)], 13,
         axis=-1)
    # QuantizeLinear opset 10, no zero point: uint8
    x = (rng.standard_normal((3, 5)) * 4).astype(np.float32)
    s = np.array(0.03125, dtype=np.float32)
    y = sat(np.rint(x / s), np.uint8)
    case("quantize_v10_nozp", "QuantizeLinear", [("x", x), ("s", s)], [("y", y)], 10)
    # DequantizeLinear: int8 per axis 0; int32 without zero point
    x = q8((3, 2, 2), np.int8)
    s = scales((3,))
    z = q8((3,), np.int8)
    y = ((x.astype(np.float32) - z.reshape(3, 1, 1).astype(np.float32)) * s.reshape(3, 1, 1))
    case("dequantize_int8_axis0", "DequantizeLinear", [("x", x), ("s", s), ("z", z)],
         [("y", y.astype(np.float32))], 13, axis=0)
    x = rng.integers(-100000, 100000, size=(7,)).astype(np.int32)
    s = np.array(0.125, dtype=np.float32)
    case("dequantize_int32", "DequantizeLinear", [("x", x), ("s", s)],
         [("y", (x.astype(np.float32) * s).astype(np.float32))], 13)
    # MatMulInteger: int8 A [2,3,4] with batched per-row zero point [2,3,1]; uint8 B [4,5] per column
    a = q8((2, 3, 4), np.int8)
    za = q8((2, 3, 1), np.int8)
    b = q8((4, 5), np.uint8)
    zb = q8((5,), np.uint8)
    yy = np.matmul(a.astype(np.int32) - za, b.astype(np.int32) - zb).astype(np.int32)
    case("matmulinteger_rows_cols", "MatMulInteger", [("A", a), ("B", b), ("za", za), ("zb", zb)],
         [("Y", yy)], 10, const=True)
    # MatMulInteger: uint8 A [3,4] per row [3], int8 B [2,4,5] without zero point
    a = q8((3, 4), np.uint8)
    za = q8((3,), np.uint8)
    b = q8((2, 4, 5), np.int8)
    yy = np.matmul(a.astype(np.int32) - za.reshape(3, 1), b.astype(np.int32)).astype(np.int32)
    case("matmulinteger_bcast", "MatMulInteger", [("A", a), ("B", b), ("za", za)], [("Y", yy)], 10)
    # QLinearMatMul: per-row a [3], per-column b [5], int8 output
    a = q8((3, 4), np.uint8)
    sa, za = scales((3,)), q8((3,), np.uint8)
    b = q8((4, 5), np.int8)
    sb, zb = scales((5,)), q8((5,), np.int8)
    sy, zy = np.array(0.75, dtype=np.float32), np.array(-7, dtype=np.int8)
    acc = np.matmul(a.astype(np.int32) - za.reshape(3, 1), b.astype(np.int32) - zb)
    mult = (sa.reshape(3, 1) * sb.reshape(1, 5) / sy).astype(np.float32)
    case("qlinearmatmul_rows_cols", "QLinearMatMul",
         [("a", a), ("sa", sa), ("za", za), ("b", b), ("sb", sb), ("zb", zb), ("sy", sy),
          ("zy", zy)], [("y", requant(acc, mult, zy, np.int8))], 10, const=True)
    # ConvInteger: uint8 x, int8 w with per-channel zero point, group 2, stride 2, dilation 2, pads
    x = q8((2, 4, 7, 6), np.uint8)
    zx = np.array(9, dtype=np.uint8)
    w = q8((6, 2, 2, 3), np.int8)
    zw = q8((6,), np.int8)
    pads = [1, 0, 2, 1]
    acc = conv_ref(x.astype(np.int64) - zx, w.astype(np.int64) - zw.reshape(6, 1, 1, 1), 2,
                   [2, 1], [2, 2], pads)
    case("convinteger_group_stride", "ConvInteger", [("x", x), ("w", w), ("zx", zx), ("zw", zw)],
         [("y", acc.astype(np.int32))], 10, const=True, group=2, strides=[2, 1], dilations=[2, 2], pads=pads)
    # ConvInteger 1-D, SAME_LOWER, stride 2, no zero points
    x = q8((1, 3, 9), np.int8)
    w = q8((2, 3, 4), np.int8)
    pads = same_pads([9], [4], [2], [1], True)
    acc = conv_ref(x.astype(np.int64), w.astype(np.int64), 1, [2], [1], pads)
    case("convinteger_1d_same_lower", "ConvInteger", [("x", x), ("w", w)],
         [("y", acc.astype(np.int32))], 10, const=True, auto_pad="SAME_LOWER", strides=[2])
    # ConvInteger 3-D, SAME_UPPER
    x = q8((1, 2, 3, 4, 5), np.uint8)
    w = q8((3, 2, 2, 2, 3), np.uint8)
    zx, zw = np.array(128, dtype=np.uint8), np.array(100, dtype=np.uint8)
    pads = same_pads([3, 4, 5], [2, 2, 3], [1, 2, 2], [1, 1, 1], False)
    acc = conv_ref(x.astype(np.int64) - 128, w.astype(np.int64) - 100, 1, [1, 2, 2], [1, 1, 1], pads)
    case("convinteger_3d_same_upper", "ConvInteger", [("x", x), ("w", w), ("zx", zx), ("zw", zw)],
         [("y", acc.astype(np.int32))], 10, const=True, auto_pad="SAME_UPPER", strides=[1, 2, 2])
    # QLinearConv: int8 x, int8 w per channel, bias, uint8 y, pads and stride
    x = q8((1, 3, 6, 5), np.int8)
    sx, zx = np.array(0.05, dtype=np.float32), np.array(-3, dtype=np.int8)
    w = q8((4, 3, 3, 3), np.int8)
    sw, zw = scales((4,)), q8((4,), np.int8)
    sy, zy = np.array(2.5, dtype=np.float32), np.array(120, dtype=np.uint8)
    bias = rng.integers(-2000, 2000, size=(4,)).astype(np.int32)
    pads = [1, 1, 1, 1]
    acc = conv_ref(x.astype(np.int64) - zx, w.astype(np.int64) - zw.reshape(4, 1, 1, 1), 1, [2, 1],
                   [1, 1], pads) + bias.reshape(1, 4, 1, 1)
    mult = (sx * sw / sy).astype(np.float32).reshape(1, 4, 1, 1)
    case("qlinearconv_bias_perchannel", "QLinearConv",
         [("x", x), ("sx", sx), ("zx", zx), ("w", w), ("sw", sw), ("zw", zw), ("sy", sy),
          ("zy", zy), ("B", bias)], [("y", requant(acc, mult, zy, np.uint8))], 10, const=True,
         strides=[2, 1], pads=pads)
    engine_cases()

    # errors
    f = np.zeros((1, 3, 2), np.float32)
    err("err_axis", "QuantizeLinear",
        [("x", f), ("s", np.zeros(3, np.float32)), ("z", np.zeros(3, np.uint8))],
        [("y", np.zeros((1, 3, 2), np.uint8))], 13, axis=3)
    err("err_dtype", "MatMulInteger", [("A", np.zeros((2, 3), np.float32)),
                                      ("B", np.zeros((3, 2), np.uint8))],
        [("Y", np.zeros((2, 2), np.int32))], 10)
    err("err_zp_len", "ConvInteger",
        [("x", np.zeros((1, 1, 3, 3), np.uint8)), ("w", np.zeros((2, 1, 2, 2), np.uint8)),
         ("zx", np.zeros((), np.uint8)), ("zw", np.zeros(3, np.uint8))],
        [("y", np.zeros((1, 2, 2, 2), np.int32))], 10)
    err("err_bias_type", "QLinearConv",
        [("x", np.zeros((1, 1, 3, 3), np.uint8)), ("sx", np.ones((), np.float32)),
         ("zx", np.zeros((), np.uint8)), ("w", np.zeros((1, 1, 1, 1), np.uint8)),
         ("sw", np.ones((), np.float32)), ("zw", np.zeros((), np.uint8)),
         ("sy", np.ones((), np.float32)), ("zy", np.zeros((), np.uint8)),
         ("B", np.zeros(1, np.float32))],
        [("y", np.zeros((1, 1, 3, 3), np.uint8))], 10)
    implicit_cases()
    pool_cases()
    quantize_cases()


def quantize_cases():
    """QuantizeLinear of floats per tensor (templates/quant_lin.c: 16 values at a time with
    AVX-512, the rest one by one): exact half-way quotients both ways, values past the type's
    range, infinities and NaN (0)."""
    s, z = np.float32(0.25), np.int8(-3)
    x = (np.arange(-70, 70, dtype=np.float32) * np.float32(0.125)).astype(np.float32)
    x = np.concatenate([x, np.array([np.inf, -np.inf, np.nan, 1e30, -1e30, 31.875, -32.125,
                                     np.nan, 0.0, -0.0], np.float32)])
    q = np.rint(x / s) + np.float32(z)
    y = np.where(np.isnan(q), 0, np.clip(np.nan_to_num(q, posinf=1e9, neginf=-1e9), -128, 127))
    case("quantize_f32_int8_special", "QuantizeLinear", [("x", x.reshape(3, 50)), ("s", s),
         ("z", z)], [("y", y.astype(np.int8).reshape(3, 50))], 13)


def pool_cases():
    """Integer MaxPool by chunks of a row (templates/pool_max.c): rows of several chunks with
    pads on both ends, and a window wider than a chunk's span (the per-tap passes)."""
    for name, shape, dt, attrs in (
            ("maxpool_u8_chunks", (1, 2, 5, 300), np.uint8,
             dict(kernel_shape=[3, 3], strides=[2, 1], pads=[1, 2, 1, 1])),
            ("maxpool_i8_wide_window", (1, 2, 3, 200), np.int8,
             dict(kernel_shape=[2, 165], strides=[1, 7], pads=[0, 3, 1, 4]))):
        x = q8(shape, dt)
        case(name, "MaxPool", [("x", x)], [("y", maxpool_ref(x, **attrs))], 12, **attrs)


def implicit_cases():
    """The x86 implicit product (templates/quant_i8_convx.c, with AVX-512 VNNI): strides and
    dilations that differ per axis (phase planes), asymmetric pads, channels that leave a
    partial quad and outputs a partial block of 8, rows whose padding columns are squeezed out
    of the stores, a batch, tiles of 48, 32 and 16 positions, int8 and uint8 data."""
    qconv_case("qconv_x_s2_dil", (1, 6, 13, 17), np.int8, (13, 6, 3, 2), np.int8,
               strides=[2, 3], dil=[2, 1], pads=[1, 2, 2, 0])
    qconv_case("qconv_x_u8_batch", (2, 9, 9, 11), np.uint8, (24, 9, 3, 3), np.int8,
               pads=[1, 1, 1, 1], yt=np.uint8)
    qconv_case("qconv_x_s2_1x1", (1, 16, 10, 10), np.uint8, (20, 16, 1, 1), np.int8,
               strides=[2, 2], yt=np.uint8)


if __name__ == "__main__":
    main()
