"""int8 test models written with onnx.helper the way onnxruntime's and TFLite's quantizers write
them (issue 11, Deliver 4), in the test layout (CONTRACT.md section 3).

    /usr/bin/python3 tests/models/make_quant.py [NAME ...]     write the cases (all, or the named)

    q_kws_qop      DS-CNN (layer shapes of tiny_kws), QOperator form
    q_kws_qdq      DS-CNN, QDQ form
    q_resnet8_qop  ResNet-8 (layer shapes of tiny_resnet8), QOperator form
    q_resnet8_qdq  ResNet-8, QDQ form
    q_fc_qop       FC autoencoder 640 -> 128 -> 128 -> 8 -> 128 -> 128 -> 640 (ReLU), QOperator
    q_fc_qdq       the FC autoencoder, QDQ form
    q_tblock_qop   pre-LN Transformer encoder block (S 16, D 64, 2 heads, FF 128), QOperator
    q_tblock_qdq   the Transformer block, QDQ form

Random float weights (fixed seed per network); the CNNs take the layer shapes of
tests/models/tiny_kws and tiny_resnet8 (read from their model.onnx), with no Softmax (the output
is the dequantized FC output). Scales from a calibration pass: a numpy float forward of the same
network on 16 random inputs, min/max per tensor (widened to include 0). Quantization as the
quantizers write it:
  - activations asymmetric int8: scale = (max - min) / 255, zero point = rint(-128 - min / scale);
    a tensor after a ReLU has the range [0, max], so zero point -128 and the ReLU is the
    saturation of the requantization (QOperator: no Relu node);
  - weights symmetric int8 per output channel (Conv axis 0, a MatMul's B per column): scale =
    max|w| / 127, zero point 0;
  - biases int32 with scale = input_scale * weight_scale (per channel), zero point 0 (Conv,
    Gemm); the bias of a MatMul is a float Add between DequantizeLinear and QuantizeLinear.
QOperator form: QuantizeLinear at the input, QLinearConv for every Conv, residual Add (ResNet-8)
as DequantizeLinear -> Add -> QuantizeLinear, global average pooling as DequantizeLinear ->
GlobalAveragePool -> QuantizeLinear, Flatten on int8, the FC as QLinearMatMul (DS-CNN, FC net:
per-column weight scales; the float bias added after a DequantizeLinear, then QuantizeLinear)
or as a 1x1 QLinearConv before the Flatten (ResNet-8), DequantizeLinear at the output.
Transformer block, QOperator: the projections as QLinearMatMul + DQ -> Add(bias) -> Q; Reshape
and Transpose of the heads on the int8 tensors; Q x K^T and P x V as QLinearMatMul of two
runtime int8 tensors (per-tensor scales, nonzero zero points); Softmax and the LayerNorms
(ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add: opset 13 has no
LayerNormalization) in float between DequantizeLinear and QuantizeLinear; the residual Adds as
com.microsoft QLinearAdd (opset_import com.microsoft 1; inputs A, A_scale, A_zero_point, B,
B_scale, B_zero_point, C_scale, C_zero_point), as onnxruntime's quantizer writes them.
QDQ form: every float op (Conv, Relu, Add, GlobalAveragePool, Flatten, Gemm, MatMul, Reshape,
Transpose, Softmax, the LayerNorm) between DequantizeLinear and QuantizeLinear; weights int8 and
biases int32 initializers, each behind a per-axis DequantizeLinear (opset 13); a Reshape or
Transpose keeps its input's scale and zero point; Q x K^T and P x V: DQ of two runtime tensors
-> MatMul -> Q. The Relu of the CNNs' QDQ form is its own op (Conv -> Q -> DQ -> Relu -> Q: the
Conv's output has the calibrated range before the ReLU, the Relu's output the range after); the
FC net fuses it (DQ -> Gemm -> Relu -> Q), the Transformer's feed-forward has DQ -> Add(bias)
-> Relu -> Q.

Reference outputs from numpy implementations of the ONNX integer definitions (not of the float
graph): QuantizeLinear y = saturate(rint(x / scale) + zp) in float32; DequantizeLinear
(float(x) - zp) * scale in float32; QLinearConv / QLinearMatMul (and DQ -> Conv/Gemm/MatMul -> Q
of the QDQ form) int32 accumulation of (x - x_zp) * (w - w_zp) + bias, then
y = saturate(rint(acc * m) + y_zp) with the multiplier m = x_scale * w_scale / y_scale in float32
and the product in float64 (as the ONNX reference computes it); GlobalAveragePool (QLinear and
DQ -> GlobalAveragePool -> Q, which compiler/lower.c makes a QLinearGlobalAveragePool) as
compiler/ops/quant_ms.c defines it: the exact integer sum acc of (x - x_zp) over the plane, then
quantize((float32(acc) * x_scale) / float32(count)) in float32; Add and Relu in float32;
QLinearAdd (and DQ -> Add -> Q) dequantizes each side in float32, adds in float32 and quantizes
in float32. Softmax and LayerNorm are
computed in float64, rounded to float32 and quantized; their float32 rounding depends on the
implementation (libm's expf, the order and width of sums: double on the host, float on the
Cortex-M), so the Transformer's data sets are random inputs drawn until every such quantized
value is at least 1e-3 steps from a rounding boundary (x.5): an implementation within that of
the exact value gives the same integers on every target.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "data"))
import gen_util  # noqa: E402

F32 = np.float32

# -- the float networks: layer shapes read from the tiny models ---------------------------------


def conv_shapes(name):
    """Weight shapes and attributes of the Convs and the Gemm of tests/models/NAME, in order."""
    m = onnx.load(os.path.join(HERE, name, "model.onnx"))
    init = {i.name: list(i.dims) for i in m.graph.initializer}
    out = []
    for n in m.graph.node:
        if n.op_type in ("Conv", "Gemm"):
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            out.append((n.op_type, init[n.input[1]], attrs))
    return out


def _w(rng, shape, fan_in):
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(F32)


def _layer(rng, op, wshape, attrs):
    fan_in = int(np.prod(wshape[1:]))
    w = _w(rng, wshape, fan_in)
    b = (rng.standard_normal(wshape[0]) * 0.1).astype(F32)
    if op == "Gemm":
        return {"w": w, "b": b}
    return {"w": w, "b": b, "group": attrs.get("group", 1), "strides": list(attrs["strides"]),
            "pads": list(attrs["pads"]), "k": list(attrs["kernel_shape"])}


def kws_net(rng):
    """DS-CNN: conv+relu, 4 x (depthwise 3x3 + relu, pointwise + relu), GAP, flatten, FC."""
    ls = conv_shapes("tiny_kws")
    assert [op for op, _, _ in ls] == ["Conv"] * 9 + ["Gemm"]
    nodes = []
    t = "input"
    for i, (op, ws, at) in enumerate(ls[:9]):
        nodes.append(("conv", [t], "c%d" % i, _layer(rng, op, ws, at), True))
        t = "c%d" % i
    nodes.append(("gap", [t], "gap", None, False))
    nodes.append(("flatten", ["gap"], "flat", None, False))
    nodes.append(("fc", ["flat"], "fc", _layer(rng, *ls[9]), False))
    return {"input": [1, 1, 49, 10], "nodes": nodes, "output": "fc", "fc_form": "matmul"}


def resnet8_net(rng):
    """ResNet-8: conv+relu, 3 residual blocks (the last two with a strided 1x1 shortcut), GAP,
    flatten, FC."""
    ls = conv_shapes("tiny_resnet8")
    assert [op for op, _, _ in ls] == ["Conv"] * 9 + ["Gemm"]
    L = [_layer(rng, *l) for l in ls]
    nodes = [("conv", ["input"], "c0", L[0], True)]
    # block 1: identity shortcut
    nodes += [("conv", ["c0"], "b1a", L[1], True), ("conv", ["b1a"], "b1b", L[2], False),
              ("add", ["b1b", "c0"], "b1", None, True)]
    # blocks 2, 3: the tiny model's order is shortcut, body conv 1, body conv 2
    prev = "b1"
    for blk, (s, a, b) in ((2, (L[3], L[4], L[5])), (3, (L[6], L[7], L[8]))):
        nodes += [("conv", [prev], "b%ds" % blk, s, False),
                  ("conv", [prev], "b%da" % blk, a, True),
                  ("conv", ["b%da" % blk], "b%db" % blk, b, False),
                  ("add", ["b%db" % blk, "b%ds" % blk], "b%d" % blk, None, True)]
        prev = "b%d" % blk
    nodes.append(("gap", [prev], "gap", None, False))
    nodes.append(("flatten", ["gap"], "flat", None, False))
    nodes.append(("fc", ["flat"], "fc", L[9], False))
    return {"input": [1, 3, 32, 32], "nodes": nodes, "output": "fc", "fc_form": "conv"}


def fc_net(rng):
    """An FC autoencoder (tiny_ad-like): 640 -> 128 -> 128 -> 8 -> 128 -> 128 -> 640, ReLU after
    every hidden layer. QOperator: QLinearMatMul + float bias as the DS-CNN's FC; QDQ: DQ ->
    Gemm -> [Relu] -> Q (the Relu fused before the one QuantizeLinear)."""
    widths = [640, 128, 128, 8, 128, 128, 640]
    nodes, t = [], "input"
    for i in range(len(widths) - 1):
        L = _layer(rng, "Gemm", [widths[i + 1], widths[i]], {})
        nodes.append(("fc", [t], "fc%d" % i, L, i < len(widths) - 2))
        t = "fc%d" % i
    return {"input": [1, 640], "nodes": nodes, "output": t, "fc_form": "matmul",
            "qdq_relu": "fused"}


def _ln(rng, d):
    return {"g": (1.0 + 0.1 * rng.standard_normal(d)).astype(F32),
            "b": (0.1 * rng.standard_normal(d)).astype(F32)}


def tblock_net(rng, S=16, D=64, H=2, FF=128):
    """A pre-LN Transformer encoder block (ViT/GPT style): h = x + Wo(attn(LN1(x))),
    out = h + W2(relu(W1(LN2(h)))); 2 heads, the Q/K/V/output/feed-forward projections as
    MatMul with constant weights (the 1/sqrt(head dim) folded into Wq, bq), Q x K^T and P x V as
    MatMuls of two activations, Softmax and the LayerNorms in float, residual Adds."""
    dh = D // H
    mm = {}
    for n, (k, m) in (("q", (D, D)), ("k", (D, D)), ("v", (D, D)), ("o", (D, D)),
                      ("ff1", (D, FF)), ("ff2", (FF, D))):
        mm[n] = _layer(rng, "Gemm", [m, k], {})  # w [N, K], as a Gemm's
    mm["q"]["w"] = (mm["q"]["w"] / np.sqrt(dh)).astype(F32)
    mm["q"]["b"] = (mm["q"]["b"] / np.sqrt(dh)).astype(F32)
    heads = {"shape": [1, S, H, dh]}
    nodes = [("ln", ["input"], "ln1", _ln(rng, D), False)]
    for n, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [("mm", ["ln1"], n, mm[n], False),
                  ("reshape", [n], n + "4", heads, False),
                  ("transpose", [n + "4"], n + "h", {"perm": perm}, False)]
    nodes += [("amm", ["qh", "kh"], "scores", None, False),
              ("softmax", ["scores"], "probs", {"axis": -1}, False),
              ("amm", ["probs", "vh"], "ctx", None, False),
              ("transpose", ["ctx"], "ctx_t", {"perm": [0, 2, 1, 3]}, False),
              ("reshape", ["ctx_t"], "ctx_s", {"shape": [1, S, D]}, False),
              ("mm", ["ctx_s"], "attn", mm["o"], False),
              ("add", ["input", "attn"], "h", None, False),
              ("ln", ["h"], "ln2", _ln(rng, D), False),
              ("mm", ["ln2"], "ff1", mm["ff1"], True),
              ("mm", ["ff1"], "ff2", mm["ff2"], False),
              ("add", ["h", "ff2"], "out", None, False)]
    return {"input": [1, S, D], "nodes": nodes, "output": "out", "qop_add": "qlinear"}


# -- numpy kernels -------------------------------------------------------------------------------


def im2col(x, k, strides, pads, pad_value):
    """x [C, H, W] -> cols [C, kh, kw, OH, OW]."""
    c, h, w = x.shape
    xp = np.full((c, h + pads[0] + pads[2], w + pads[1] + pads[3]), pad_value, dtype=x.dtype)
    xp[:, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x
    oh = (xp.shape[1] - k[0]) // strides[0] + 1
    ow = (xp.shape[2] - k[1]) // strides[1] + 1
    cols = np.empty((c, k[0], k[1], oh, ow), dtype=x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            cols[:, i, j] = xp[:, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1]]
    return cols, oh, ow


def conv_acc(x, w, L, pad_value):
    """Grouped convolution of x [1, C, H, W] with w [M, C/g, kh, kw] (no bias), in x's dtype."""
    g = L["group"]
    cols, oh, ow = im2col(x[0], L["k"], L["strides"], L["pads"], pad_value)
    m, cg = w.shape[0], w.shape[1]
    mg = m // g
    y = np.empty((m, oh * ow), dtype=x.dtype)
    for gi in range(g):
        c = cols[gi * cg:(gi + 1) * cg].reshape(cg * L["k"][0] * L["k"][1], oh * ow)
        y[gi * mg:(gi + 1) * mg] = w[gi * mg:(gi + 1) * mg].reshape(mg, -1).astype(x.dtype) @ c
    return y.reshape(1, m, oh, ow)


def float_forward(net, x):
    """The float network (calibration): name -> float32 tensor; the ReLU'd value of a node."""
    t = {"input": x}
    for kind, ins, out, L, relu in net["nodes"]:
        if kind == "conv":
            v = conv_acc(t[ins[0]].astype(np.float64), L["w"], L, 0.0) + L["b"].reshape(1, -1, 1, 1)
            t[out + ":pre"] = v.astype(F32)
        elif kind == "add":
            v = t[ins[0]] + t[ins[1]]
            t[out + ":pre"] = v
        elif kind == "gap":
            v = t[ins[0]].astype(np.float64).mean(axis=(2, 3), keepdims=True)
        elif kind == "flatten":
            v = t[ins[0]].reshape(1, -1)
        elif kind in ("fc", "mm"):
            v = t[ins[0]].astype(np.float64) @ L["w"].T.astype(np.float64) + L["b"]
            t[out + ":mm"] = (t[ins[0]].astype(np.float64) @ L["w"].T.astype(np.float64)).astype(F32)
        elif kind == "amm":
            v = t[ins[0]].astype(np.float64) @ t[ins[1]].astype(np.float64)
        elif kind == "reshape":
            v = t[ins[0]].reshape(L["shape"])
        elif kind == "transpose":
            v = t[ins[0]].transpose(L["perm"])
        elif kind == "softmax":
            v = softmax64(t[ins[0]], L["axis"])
        elif kind == "ln":
            v = layernorm64(t[ins[0]], L)
        if relu:
            v = np.maximum(v, 0)
        t[out] = np.asarray(v, dtype=F32)
    return t


def act_params(lo, hi):
    """Asymmetric int8 scale and zero point of the range [lo, hi] widened to include 0."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = F32((hi - lo) / 255.0) if hi > lo else F32(1.0)
    zp = int(np.clip(np.rint(-128.0 - lo / float(scale)), -128, 127))
    return scale, zp


def weight_params(w):
    """Symmetric int8 per output channel: scales [M] and the int8 weights."""
    amax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(F32)
    q = np.clip(np.rint(w / scale.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127).astype(np.int8)
    return scale, q


def quantize(x, scale, zp):
    v = np.rint(np.asarray(x, dtype=F32) / F32(scale)).astype(F32) + F32(zp)
    return np.clip(v, -128, 127).astype(np.int8)


def dequantize(q, scale, zp):
    return ((q.astype(F32) - F32(zp)) * F32(scale)).astype(F32)


def requant(acc, mult, yzp):
    """acc int32 [..., M along axis ax] times the float32 multipliers, in float64."""
    v = np.rint(acc.astype(np.float64) * mult.astype(np.float64)) + float(yzp)
    return np.clip(v, -128, 127).astype(np.int8)


def qconv_ref(xq, xs, xz, wq, ws, bq, ys, yz, L):
    """QLinearConv: int32 accumulation, per-channel multiplier xs * ws / ys in float32."""
    x = xq.astype(np.int64) - xz
    acc = conv_acc(x, wq.astype(np.int64), L, 0) + bq.astype(np.int64).reshape(1, -1, 1, 1)
    assert np.abs(acc).max() < 2 ** 31
    mult = (F32(xs) * ws.astype(F32) / F32(ys)).astype(F32)
    return requant(acc, mult.reshape(1, -1, 1, 1), yz)


def qmatmul_ref(aq, as_, az, bq, bs, bz, ys, yz):
    """QLinearMatMul a [1, K] x b [K, N] with per-column b scales."""
    acc = (aq.astype(np.int64) - az) @ (bq.astype(np.int64) - bz)
    mult = (F32(as_) * bs.astype(F32) / F32(ys)).astype(F32)
    return requant(acc, mult.reshape(1, -1), yz)


def gap_ref(xq, xs, xz):
    """GlobalAveragePool of the int8 xq [N, C, H, W] (scale xs, zero point xz) as
    QLinearGlobalAveragePool (compiler/ops/quant_ms.c): the exact integer sum of (x - xz) over
    the plane, then (float32(sum) * xs) / float32(count) in float32: the float value quantize()
    takes.  (The float64 sum of the dequantized values can differ: each DequantizeLinear product
    is rounded to float32 before the sum.)"""
    acc = (xq.astype(np.int64) - int(xz)).reshape(xq.shape[0], xq.shape[1], -1).sum(axis=2)
    v = (acc.astype(F32) * F32(xs)).astype(F32) / F32(xq.shape[2] * xq.shape[3])
    return v.astype(F32).reshape(xq.shape[0], xq.shape[1], 1, 1)


def softmax64(x, axis):
    e = np.exp(x.astype(np.float64) - x.astype(np.float64).max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


LN_EPS = 1e-5


def layernorm64(x, L):
    """LayerNorm over the last axis as torch exports it at opset 13 (ReduceMean, Sub, Pow,
    ReduceMean, Add epsilon, Sqrt, Div, Mul gamma, Add beta), in float64."""
    x = x.astype(np.float64)
    d = x - x.mean(axis=-1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + LN_EPS) * L["g"] + L["b"]


def quantize_float_op(v, scale, zp, stats):
    """QuantizeLinear of the float64 result v of a float op whose float32 rounding depends on
    the implementation (libm's expf, the order and width of the sums): v rounded to float32,
    then quantized. stats["margin"]: the smallest distance, in quantization steps, of an
    unsaturated value to a rounding boundary (half way between two steps); an implementation
    closer than that to the float64 value gives the same integers."""
    y = np.asarray(v, dtype=np.float64) / float(scale)
    lo = np.clip(np.floor(y) + zp, -128, 127)
    hi = np.clip(np.floor(y) + 1 + zp, -128, 127)
    d = np.abs(y - np.floor(y) - 0.5)[lo != hi]
    if d.size:
        stats["margin"] = min(stats.get("margin", 1.0), float(d.min()))
    return quantize(np.asarray(v, dtype=F32), scale, zp)


# -- quantization of a network -------------------------------------------------------------------


def calibrate(net, rng, n=16):
    lo, hi = {}, {}
    for _ in range(n):
        x = rng.standard_normal(net["input"]).astype(F32)
        for k, v in float_forward(net, x).items():
            lo[k] = min(lo.get(k, np.inf), float(v.min()))
            hi[k] = max(hi.get(k, -np.inf), float(v.max()))
    return {k: act_params(lo[k], hi[k]) for k in lo}


def quantize_net(net, q):
    """Adds the int8 weights, per-channel scales and int32 biases to the layers."""
    for kind, ins, out, L, relu in net["nodes"]:
        if kind in ("conv", "fc", "mm"):
            ws, wq = weight_params(L["w"])
            xs = q[ins[0]][0]
            bs = (F32(xs) * ws).astype(F32)
            L.update(ws=ws, wq=wq, bs=bs, bq=np.rint(L["b"] / bs).astype(np.int32))


def reference(net, q, x, form, stats=None):
    """Integer reference of one form on float input x: the float32 output. stats (a dict):
    gets "margin", the rounding margin of the float ops of implementation-defined rounding
    (quantize_float_op)."""
    stats = {} if stats is None else stats
    t = {"input": quantize(x, *q["input"])}
    for kind, ins, out, L, relu in net["nodes"]:
        xin = t[ins[0]]
        if kind == "conv":
            xs, xz = q[ins[0]]
            if form == "qop" or not relu:
                t[out] = qconv_ref(xin, xs, xz, L["wq"], L["ws"], L["bq"], *q[out], L)
            else:  # QDQ: Conv -> Q(pre-ReLU range) -> DQ -> Relu -> Q
                pre = qconv_ref(xin, xs, xz, L["wq"], L["ws"], L["bq"], *q[out + ":pre"], L)
                t[out] = quantize(np.maximum(dequantize(pre, *q[out + ":pre"]), F32(0)), *q[out])
        elif kind == "add":  # also com.microsoft QLinearAdd: the same float32 steps
            a, b = dequantize(xin, *q[ins[0]]), dequantize(t[ins[1]], *q[ins[1]])
            s = (a + b).astype(F32)
            if form == "qop" or not relu:
                t[out] = quantize(s, *q[out])
            else:
                pre = quantize(s, *q[out + ":pre"])
                t[out] = quantize(np.maximum(dequantize(pre, *q[out + ":pre"]), F32(0)), *q[out])
        elif kind == "gap":
            t[out] = quantize(gap_ref(xin, *q[ins[0]]), *q[out])
        elif kind == "flatten":
            t[out] = xin.reshape(1, -1)
        elif kind == "reshape":  # on int8 (QOperator) or DQ -> Reshape -> Q of the same parameters
            t[out] = xin.reshape(L["shape"])
        elif kind == "transpose":
            t[out] = np.ascontiguousarray(xin.transpose(L["perm"]))
        elif kind == "softmax":
            v = softmax64(dequantize(xin, *q[ins[0]]), L["axis"])
            t[out] = quantize_float_op(v, *q[out], stats)
        elif kind == "ln":
            t[out] = quantize_float_op(layernorm64(dequantize(xin, *q[ins[0]]), L), *q[out], stats)
        elif kind == "amm":  # QLinearMatMul (or DQ -> MatMul -> Q) of two activations
            t[out] = qmatmul_ref(xin, *q[ins[0]], t[ins[1]], np.array(q[ins[1]][0], F32),
                                 q[ins[1]][1], *q[out])
        elif kind == "mm" or (kind == "fc" and form == "qop" and net["fc_form"] == "matmul"):
            # QLinearMatMul (or DQ -> MatMul -> Q), then DQ -> Add(float bias) [-> Relu] -> Q
            xs, xz = q[ins[0]]
            mm = qmatmul_ref(xin, xs, xz, L["wq"].T, L["ws"], 0, *q[out + ":mm"])
            s = (dequantize(mm, *q[out + ":mm"]) + L["b"]).astype(F32)
            t[out] = quantize(s, *q[out])  # a ReLU: the saturation at zero point -128
        elif kind == "fc":  # QLinearConv 1x1 (QOperator) or DQ -> Gemm [-> Relu] -> Q (QDQ)
            xs, xz = q[ins[0]]
            acc = (xin.astype(np.int64) - xz) @ L["wq"].T.astype(np.int64) + L["bq"]
            mult = (F32(xs) * L["ws"] / F32(q[out][0])).astype(F32)
            t[out] = requant(acc, mult.reshape(1, -1), q[out][1])
    return dequantize(t[net["output"]], *q[net["output"]])


# -- ONNX graphs ---------------------------------------------------------------------------------


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.names = [], [], set()

    def init(self, name, arr):
        if name not in self.names:
            self.names.add(name)
            self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def qparams(self, t, sz):
        """Initializers of the scale and zero point of activation t: (scale, zero point) names."""
        s, z = sz
        return (self.init(t + "_scale", np.array(s, dtype=F32)),
                self.init(t + "_zero_point", np.array(z, dtype=np.int8)))

    def node(self, op, ins, outs, name, **attrs):
        self.nodes.append(helper.make_node(op, ins, outs, name=name, **attrs))
        return outs[0]

    def q(self, x, t, sz, out=None):
        out = out or t + "_q"
        return self.node("QuantizeLinear", [x, *self.qparams(t, sz)], [out], t + "_QuantizeLinear")

    def dq(self, xq, t, sz, out=None):
        out = out or xq + "_dq"
        if out in self.names:  # one DequantizeLinear serves every consumer
            return out
        self.names.add(out)
        return self.node("DequantizeLinear", [xq, *self.qparams(t, sz)], [out],
                         xq + "_DequantizeLinear")

    def weight_dq(self, name, arr, scale, axis):
        """int8/int32 initializer behind a per-axis DequantizeLinear (QDQ form)."""
        zp = np.zeros(scale.shape, dtype=np.int8 if arr.dtype == np.int8 else np.int32)
        ins = [self.init(name + "_quantized", arr), self.init(name + "_scale", scale),
               self.init(name + "_zero_point", zp)]
        return self.node("DequantizeLinear", ins, [name], name + "_DequantizeLinear", axis=axis)


    def layernorm(self, x, out, L):
        """LayerNorm over the last axis as torch exports it at opset 13 (no LayerNormalization)."""
        ax = dict(axes=[-1], keepdims=1)
        m = self.node("ReduceMean", [x], [out + "_mean"], out + "_ReduceMean", **ax)
        d = self.node("Sub", [x, m], [out + "_sub"], out + "_Sub")
        p = self.node("Pow", [d, self.init("ln_two", np.array(2.0, F32))], [out + "_pow"],
                      out + "_Pow")
        v = self.node("ReduceMean", [p], [out + "_var"], out + "_ReduceMean_1", **ax)
        e = self.node("Add", [v, self.init("ln_eps", np.array(LN_EPS, F32))], [out + "_vare"],
                      out + "_Add")
        r = self.node("Sqrt", [e], [out + "_std"], out + "_Sqrt")
        n = self.node("Div", [d, r], [out + "_norm"], out + "_Div")
        y = self.node("Mul", [n, self.init(out + "_gamma", L["g"])], [out + "_mul"], out + "_Mul")
        return self.node("Add", [y, self.init(out + "_beta", L["b"])], [out + "_ln"],
                         out + "_Add_1")

    def float_op(self, kind, x, out, L):
        """The float body of a DequantizeLinear -> op -> QuantizeLinear: Softmax, LayerNorm,
        Reshape, Transpose."""
        if kind == "softmax":
            return self.node("Softmax", [x], [out + "_softmax"], out + "_Softmax", axis=L["axis"])
        if kind == "ln":
            return self.layernorm(x, out, L)
        if kind == "reshape":
            shp = self.init(out + "_shape", np.array(L["shape"], np.int64))
            return self.node("Reshape", [x, shp], [out + "_reshape"], out + "_Reshape")
        return self.node("Transpose", [x], [out + "_transpose"], out + "_Transpose",
                         perm=L["perm"])

    def matmul_bias(self, x, xname, out, L, q, relu=False, qdq=False):
        """x [.., K] x W [K, N] with per-column weight scales, then the float bias added between
        DequantizeLinear and QuantizeLinear: QLinearMatMul (QOperator) or DQ(x), DQ(W, axis 1)
        -> MatMul -> Q (QDQ); then DQ -> Add [-> Relu] -> Q. QOperator: the ReLU is the
        saturation of the QuantizeLinear (zero point -128)."""
        if qdq:
            w = self.weight_dq(out + "_W", np.ascontiguousarray(L["wq"].T), L["ws"], 1)
            y = self.node("MatMul", [x, w], [out + "_matmul"], out + "_MatMul")
            mm = self.q(y, out + ":mm", q[out + ":mm"], out=out + "_mm_q")
        else:
            xs, xz = self.qparams(xname, q[xname])
            bmat = [self.init(out + "_W_quantized", np.ascontiguousarray(L["wq"].T)),
                    self.init(out + "_W_scale", L["ws"]),
                    self.init(out + "_W_zero_point", np.zeros(L["ws"].shape, np.int8))]
            ys, yz = self.qparams(out + ":mm", q[out + ":mm"])
            mm = self.node("QLinearMatMul", [x, xs, xz, *bmat, ys, yz], [out + "_mm_q"],
                           out + "_QLinearMatMul")
        d = self.dq(mm, out + ":mm", q[out + ":mm"])
        s = self.node("Add", [d, self.init(out + "_bias", L["b"])], [out + "_add"], out + "_Add")
        if relu and qdq:
            s = self.node("Relu", [s], [out + "_relu"], out + "_Relu")
        return self.q(s, out, q[out])


def conv_attrs(L):
    return dict(kernel_shape=L["k"], strides=L["strides"], pads=L["pads"], group=L["group"],
                dilations=[1, 1])


def build_qop(net, q):
    g = Graph()
    cur = {"input": g.q("input", "input", q["input"])}
    for kind, ins, out, L, relu in net["nodes"]:
        x = cur[ins[0]]
        if kind == "conv" or (kind == "fc" and net["fc_form"] == "conv"):
            xs, xz = g.qparams(ins[0], q[ins[0]])
            wq = L["wq"] if kind == "conv" else L["wq"].reshape(L["wq"].shape + (1, 1))
            w = [g.init(out + "_W_quantized", wq), g.init(out + "_W_scale", L["ws"]),
                 g.init(out + "_W_zero_point", np.zeros(L["ws"].shape, np.int8))]
            b = g.init(out + "_B_quantized", L["bq"])
            ys, yz = g.qparams(out, q[out])
            if kind == "conv":
                cur[out] = g.node("QLinearConv", [x, xs, xz, *w, ys, yz, b], [out + "_q"],
                                  out + "_QLinearConv", **conv_attrs(L))
            else:  # [1, K] -> [1, K, 1, 1] -> 1x1 QLinearConv -> Flatten
                shp = g.init("fc_in_shape", np.array([1, -1, 1, 1], np.int64))
                x4 = g.node("Reshape", [x, shp], [out + "_in4"], out + "_Reshape")
                y4 = g.node("QLinearConv", [x4, xs, xz, *w, ys, yz, b], [out + "_q4"],
                            out + "_QLinearConv", kernel_shape=[1, 1])
                cur[out] = g.node("Flatten", [y4], [out + "_q"], out + "_Flatten", axis=1)
        elif kind in ("fc", "mm"):  # QLinearMatMul, per-column scales; bias in float
            cur[out] = g.matmul_bias(x, ins[0], out, L, q, relu)
        elif kind == "amm":  # two activations
            ab = [x, *g.qparams(ins[0], q[ins[0]]), cur[ins[1]], *g.qparams(ins[1], q[ins[1]])]
            cur[out] = g.node("QLinearMatMul", ab + list(g.qparams(out, q[out])), [out + "_q"],
                              out + "_QLinearMatMul")
        elif kind in ("reshape", "transpose"):  # on the int8 tensor
            cur[out] = g.float_op(kind, x, out, L)
        elif kind in ("softmax", "ln"):
            cur[out] = g.q(g.float_op(kind, g.dq(x, ins[0], q[ins[0]]), out, L), out, q[out])
        elif kind == "add" and net.get("qop_add") == "qlinear":  # as onnxruntime writes it
            ab = [x, *g.qparams(ins[0], q[ins[0]]), cur[ins[1]], *g.qparams(ins[1], q[ins[1]])]
            cur[out] = g.node("QLinearAdd", ab + list(g.qparams(out, q[out])), [out + "_q"],
                              out + "_QLinearAdd", domain="com.microsoft")
        elif kind == "add":
            a = g.dq(x, ins[0], q[ins[0]])
            b = g.dq(cur[ins[1]], ins[1], q[ins[1]])
            s = g.node("Add", [a, b], [out + "_add"], out + "_Add")
            cur[out] = g.q(s, out, q[out])
        elif kind == "gap":
            d = g.dq(x, ins[0], q[ins[0]])
            p = g.node("GlobalAveragePool", [d], [out + "_pool"], out + "_GlobalAveragePool")
            cur[out] = g.q(p, out, q[out])
        elif kind == "flatten":
            cur[out] = g.node("Flatten", [x], [out + "_q"], out + "_Flatten", axis=1)
    g.dq(cur[net["output"]], net["output"], q[net["output"]], out="output")
    return g


def build_qdq(net, q):
    g = Graph()
    cur = {"input": g.q("input", "input", q["input"])}
    for kind, ins, out, L, relu in net["nodes"]:
        x = g.dq(cur[ins[0]], ins[0], q[ins[0]])
        if kind == "mm":
            cur[out] = g.matmul_bias(x, ins[0], out, L, q, relu, qdq=True)
            continue
        if kind in ("conv", "fc"):
            w = g.weight_dq(out + "_W", L["wq"], L["ws"], 0)
            b = g.weight_dq(out + "_B", L["bq"], L["bs"], 0)
            pre = out + ":pre" if relu else out
            if kind == "conv":
                y = g.node("Conv", [x, w, b], [out + "_conv"], out + "_Conv", **conv_attrs(L))
            else:
                y = g.node("Gemm", [x, w, b], [out + "_gemm"], out + "_Gemm", transB=1)
            if relu and net.get("qdq_relu") == "fused":  # DQ -> Gemm -> Relu -> Q
                y = g.node("Relu", [y], [out + "_relu"], out + "_Relu")
                pre = out
        elif kind in ("add", "amm"):
            x2 = g.dq(cur[ins[1]], ins[1], q[ins[1]])
            op = "Add" if kind == "add" else "MatMul"
            y = g.node(op, [x, x2], [out + "_" + op.lower()], out + "_" + op)
            pre = out + ":pre" if relu else out
        elif kind in ("reshape", "transpose", "softmax", "ln"):
            y = g.float_op(kind, x, out, L)
            pre = out
        elif kind == "gap":
            y = g.node("GlobalAveragePool", [x], [out + "_pool"], out + "_GlobalAveragePool")
            pre = out
        elif kind == "flatten":
            y = g.node("Flatten", [x], [out + "_flat"], out + "_Flatten", axis=1)
            pre = out
            q[out] = q[ins[0]]  # Flatten keeps its input's quantization
        if pre != out:  # DQ -> Relu -> Q
            yq = g.q(y, pre, q[pre], out=out + "_pre_q")
            r = g.node("Relu", [g.dq(yq, pre, q[pre])], [out + "_relu"], out + "_Relu")
            cur[out] = g.q(r, out, q[out])
        else:
            cur[out] = g.q(y, out, q[out])
    g.dq(cur[net["output"]], net["output"], q[net["output"]], out="output")
    return g


def to_model(g, net, oshape, doc):
    gr = helper.make_graph(
        g.nodes, "quant", [helper.make_tensor_value_info("input", TensorProto.FLOAT, net["input"])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, list(oshape))], g.inits)
    # ONNX names may not contain ':' in some tools: rename the calibration keys
    for n in gr.node:
        for lst in (n.input, n.output):
            for i, s in enumerate(lst):
                lst[i] = s.replace(":", "_")
    for t in gr.initializer:
        t.name = t.name.replace(":", "_")
    opsets = [helper.make_opsetid("", 13)]
    if any(n.domain == "com.microsoft" for n in gr.node):
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    m = helper.make_model(gr, opset_imports=opsets,
                          producer_name="onnx2c tests/models/make_quant.py", doc_string=doc)
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def write_case(name, model, inputs, outputs):
    gen_util.write_case(os.path.join(HERE, name), model,
                        [([x], [y]) for x, y in zip(inputs, outputs)])


# name: (network, seed, the smallest rounding margin of a data set: quantize_float_op)
NETS = {"kws": (kws_net, 11, None), "resnet8": (resnet8_net, 12, None), "fc": (fc_net, 13, None),
        "tblock": (tblock_net, 14, 1e-3)}


def draw_inputs(net, q, rng, forms, margin):
    """Two random inputs; with a margin, drawn until the references of every form keep their
    float ops (Softmax, LayerNorm) at least that many steps from a rounding boundary."""
    if margin is None:
        return [rng.standard_normal(net["input"]).astype(F32) for _ in range(2)], 0
    inputs, tried = [], 0
    while len(inputs) < 2:
        x = rng.standard_normal(net["input"]).astype(F32)
        tried += 1
        ok = True
        for form in forms:
            st = {}
            reference(net, dict(q), x, form, st)
            ok = ok and st.get("margin", 1.0) >= margin
        if ok:
            inputs.append(x)
        assert tried < 10000, "no input of rounding margin %g" % margin
    return inputs, tried


def make(net_name, forms):
    build, seed, margin = NETS[net_name]
    rng = np.random.default_rng(seed)
    net = build(rng)
    q = calibrate(net, rng)
    quantize_net(net, q)
    inputs, tried = draw_inputs(net, q, rng, forms, margin)
    for form in forms:
        qq = dict(q)
        g = (build_qop if form == "qop" else build_qdq)(net, qq)
        outs = [reference(net, qq, x, form) for x in inputs]
        # how far the float graph (float64 forward) is from the int8 reference: a sanity check
        flt = [float_forward(net, x)[net["output"]] for x in inputs]
        err = max(float(np.abs(o - f).max()) for o, f in zip(outs, flt))
        rng_out = max(float(np.abs(f).max()) for f in flt)
        name = "q_%s_%s" % (net_name, form)
        write_case(name, to_model(g, net, outs[0].shape, name), inputs, outs)
        print("%-14s max |int8 - float| = %.4f (max |float| %.3f), argmax agree %s%s" % (
            name, err, rng_out, all(o.argmax() == f.argmax() for o, f in zip(outs, flt)),
            ", %d inputs drawn for margin %g" % (tried, margin) if margin else ""))


def main(argv):
    names = argv or ["q_%s_%s" % (n, f) for n in NETS for f in ("qop", "qdq")]
    todo = {}
    for n in names:
        parts = n.split("_")
        if len(parts) != 3 or parts[0] != "q" or parts[1] not in NETS or parts[2] not in ("qop", "qdq"):
            sys.exit("unknown case %s" % n)
        todo.setdefault(parts[1], []).append(parts[2])
    for net_name, forms in todo.items():
        make(net_name, forms)


if __name__ == "__main__":
    main(sys.argv[1:])
