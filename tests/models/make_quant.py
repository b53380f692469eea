"""int8 versions of the DS-CNN keyword spotter and ResNet-8, written with onnx.helper the way
onnxruntime's and TFLite's quantizers write them (issue 11, Deliver 4), in the test layout
(CONTRACT.md section 3).

    /usr/bin/python3 tests/models/make_quant.py [NAME ...]     write the cases (all, or the named)

    q_kws_qop      DS-CNN (layer shapes of tiny_kws), QOperator form
    q_kws_qdq      DS-CNN, QDQ form
    q_resnet8_qop  ResNet-8 (layer shapes of tiny_resnet8), QOperator form
    q_resnet8_qdq  ResNet-8, QDQ form

Random float weights (fixed seed) with the layer shapes of tests/models/tiny_kws and tiny_resnet8
(read from their model.onnx); no Softmax (the output is the dequantized FC output). Scales from a
calibration pass: a numpy float forward of the same network on 16 random inputs, min/max per
tensor (widened to include 0). Quantization as the quantizers write it:
  - activations asymmetric int8: scale = (max - min) / 255, zero point = rint(-128 - min / scale);
    a tensor after a ReLU has the range [0, max], so zero point -128 and the ReLU is the
    saturation of the requantization (QOperator: no Relu node);
  - weights symmetric int8 per output channel (axis 0): scale = max|w| / 127, zero point 0;
  - biases int32 with scale = input_scale * weight_scale (per channel), zero point 0.
QOperator form: QuantizeLinear at the input, QLinearConv for every Conv, residual Add (ResNet-8)
as DequantizeLinear -> Add -> QuantizeLinear, global average pooling as DequantizeLinear ->
GlobalAveragePool -> QuantizeLinear, Flatten on int8, the FC as QLinearMatMul (DS-CNN: per-column
weight scales; the float bias added after a DequantizeLinear, then QuantizeLinear) or as a 1x1
QLinearConv before the Flatten (ResNet-8), DequantizeLinear at the output.
QDQ form: every float op (Conv, Relu, Add, GlobalAveragePool, Flatten, Gemm) between
DequantizeLinear and QuantizeLinear; weights int8 and biases int32 initializers, each behind a
per-axis DequantizeLinear (opset 13). The Relu of the QDQ form is its own op: the Conv's output
has the calibrated range before the ReLU, the Relu's output the range after.

Reference outputs from numpy implementations of the ONNX integer definitions (not of the float
graph): QuantizeLinear y = saturate(rint(x / scale) + zp) in float32; DequantizeLinear
(float(x) - zp) * scale in float32; QLinearConv / QLinearMatMul (and DQ -> Conv/Gemm -> Q of the
QDQ form) int32 accumulation of (x - x_zp) * (w - w_zp) + bias, then
y = saturate(rint(acc * m) + y_zp) with the multiplier m = x_scale * w_scale / y_scale in float32
and the product in float64 (as the ONNX reference computes it); GlobalAveragePool sums in float64
and divides by the count, Add and Relu in float32.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
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
        elif kind == "fc":
            v = t[ins[0]].astype(np.float64) @ L["w"].T.astype(np.float64) + L["b"]
            t[out + ":mm"] = (t[ins[0]].astype(np.float64) @ L["w"].T.astype(np.float64)).astype(F32)
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


def gap_ref(x):
    """GlobalAveragePool as onnx2c's host build: the sum in double, divided by the count."""
    s = x.astype(np.float64).reshape(x.shape[0], x.shape[1], -1)
    acc = np.zeros(s.shape[:2])
    for i in range(s.shape[2]):  # sequential, as the C loop (exact here: float32 terms)
        acc += s[:, :, i]
    return (acc / s.shape[2]).astype(F32).reshape(x.shape[0], x.shape[1], 1, 1)


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
        if kind in ("conv", "fc"):
            ws, wq = weight_params(L["w"])
            xs = q[ins[0]][0]
            bs = (F32(xs) * ws).astype(F32)
            L.update(ws=ws, wq=wq, bs=bs, bq=np.rint(L["b"] / bs).astype(np.int32))


def reference(net, q, x, form):
    """Integer reference of one form on float input x: the float32 output."""
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
        elif kind == "add":
            a, b = dequantize(xin, *q[ins[0]]), dequantize(t[ins[1]], *q[ins[1]])
            s = (a + b).astype(F32)
            if form == "qop":
                t[out] = quantize(s, *q[out])
            else:
                pre = quantize(s, *q[out + ":pre"])
                t[out] = quantize(np.maximum(dequantize(pre, *q[out + ":pre"]), F32(0)), *q[out])
        elif kind == "gap":
            t[out] = quantize(gap_ref(dequantize(xin, *q[ins[0]])), *q[out])
        elif kind == "flatten":
            t[out] = xin.reshape(1, -1)
        elif kind == "fc":
            xs, xz = q[ins[0]]
            if form == "qop" and net["fc_form"] == "matmul":
                mm = qmatmul_ref(xin, xs, xz, L["wq"].T, L["ws"], 0, *q[out + ":mm"])
                s = (dequantize(mm, *q[out + ":mm"]) + L["b"]).astype(F32)
                t[out] = quantize(s, *q[out])
            else:  # QLinearConv 1x1 (QOperator) or DQ -> Gemm -> Q (QDQ): the same integers
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
        elif kind == "fc":  # QLinearMatMul, per-column scales; bias in float
            xs, xz = g.qparams(ins[0], q[ins[0]])
            bmat = [g.init(out + "_W_quantized", np.ascontiguousarray(L["wq"].T)),
                    g.init(out + "_W_scale", L["ws"]),
                    g.init(out + "_W_zero_point", np.zeros(L["ws"].shape, np.int8))]
            ys, yz = g.qparams(out + ":mm", q[out + ":mm"])
            mm = g.node("QLinearMatMul", [x, xs, xz, *bmat, ys, yz], [out + "_mm_q"],
                        out + "_QLinearMatMul")
            d = g.dq(mm, out + ":mm", q[out + ":mm"])
            s = g.node("Add", [d, g.init(out + "_bias", L["b"])], [out + "_add"], out + "_Add")
            cur[out] = g.q(s, out, q[out])
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
        if kind in ("conv", "fc"):
            w = g.weight_dq(out + "_W", L["wq"], L["ws"], 0)
            b = g.weight_dq(out + "_B", L["bq"], L["bs"], 0)
            pre = out + ":pre" if relu else out
            if kind == "conv":
                y = g.node("Conv", [x, w, b], [out + "_conv"], out + "_Conv", **conv_attrs(L))
            else:
                y = g.node("Gemm", [x, w, b], [out + "_gemm"], out + "_Gemm", transB=1)
        elif kind == "add":
            x2 = g.dq(cur[ins[1]], ins[1], q[ins[1]])
            y = g.node("Add", [x, x2], [out + "_add"], out + "_Add")
            pre = out + ":pre"
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


def to_model(g, net, nout, doc):
    gr = helper.make_graph(
        g.nodes, "quant", [helper.make_tensor_value_info("input", TensorProto.FLOAT, net["input"])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, nout])], g.inits)
    # ONNX names may not contain ':' in some tools: rename the calibration keys
    for n in gr.node:
        for lst in (n.input, n.output):
            for i, s in enumerate(lst):
                lst[i] = s.replace(":", "_")
    for t in gr.initializer:
        t.name = t.name.replace(":", "_")
    m = helper.make_model(gr, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnx2c tests/models/make_quant.py", doc_string=doc)
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def write_case(name, model, inputs, outputs):
    d = os.path.join(HERE, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, (x, y) in enumerate(zip(inputs, outputs)):
        s = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(s)
        for fn, arr in (("input_0.pb", x), ("output_0.pb", y)):
            with open(os.path.join(s, fn), "wb") as f:
                f.write(numpy_helper.from_array(np.ascontiguousarray(arr)).SerializeToString())


NETS = {"kws": (kws_net, 11), "resnet8": (resnet8_net, 12)}


def make(net_name, forms):
    build, seed = NETS[net_name]
    rng = np.random.default_rng(seed)
    net = build(rng)
    q = calibrate(net, rng)
    quantize_net(net, q)
    inputs = [rng.standard_normal(net["input"]).astype(F32) for _ in range(2)]
    nout = net["nodes"][-1][3]["w"].shape[0]
    for form in forms:
        qq = dict(q)
        g = (build_qop if form == "qop" else build_qdq)(net, qq)
        outs = [reference(net, qq, x, form) for x in inputs]
        # how far the float graph (float64 forward) is from the int8 reference: a sanity check
        flt = [float_forward(net, x)[net["output"]] for x in inputs]
        err = max(float(np.abs(o - f).max()) for o, f in zip(outs, flt))
        rng_out = max(float(np.abs(f).max()) for f in flt)
        name = "q_%s_%s" % (net_name, form)
        write_case(name, to_model(g, net, nout, name), inputs, outs)
        print("%-14s max |int8 - float| = %.4f (max |float| %.3f), argmax agree %s" % (
            name, err, rng_out, all(o.argmax() == f.argmax() for o, f in zip(outs, flt))))


def main(argv):
    names = argv or ["q_kws_qop", "q_kws_qdq", "q_resnet8_qop", "q_resnet8_qdq"]
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
