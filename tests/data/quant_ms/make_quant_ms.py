#!/usr/bin/env python3
"""make_quant_ms.py — op cases of the com.microsoft QOperator ops (compiler/ops/quant_ms.c).

cases/NAME/: backend-style cases (model.onnx, test_data_set_K/{input,output}_I.pb); the
quantized inputs are graph inputs (some with a symbolic dim N and a data set per size), the
scales and zero points initializers.  Expected outputs from numpy with exactly the float32
operations quant_ms.c documents: DQ(q) = (float32(q) - float32(z)) * s,
Q(v) = saturate(rint(v / s) + float32(z)) (round half to even), the float op in float32 between
them; the pools sum (x - zx) in integers and requantize ((float32(acc) * sx) / float32(count)).
err_*.onnx: models that must be refused with a one-line error.
Run with Debian's python3-onnx: /usr/bin/python3 make_quant_ms.py (writes next to itself)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import sat  # noqa: E402

MS_OPSETS = [("", 13), ("com.microsoft", 1)]
F32 = np.float32
NP2TP = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.uint8): TensorProto.UINT8,
         np.dtype(np.int8): TensorProto.INT8}
rng = np.random.default_rng(4321)


def q8(shape, dt):
    return gen_util.rand_q8(rng, shape, dt)


def dq(q, s, z):
    return ((q.astype(F32) - F32(z)) * F32(s)).astype(F32)


def quant(v, s, z, dt):
    return sat(np.rint((np.asarray(v, dtype=F32) / F32(s)).astype(F32)).astype(F32) + F32(z), dt)


def qparams(dt):
    s = F32(rng.integers(1, 64) / 256.0)
    z = int(rng.integers(-20, 20)) if dt == np.int8 else int(rng.integers(100, 150))
    return s, z


def case(name, op, inputs, inits, sets, attrs=None, sym=None):
    """inputs: [(name, dtype, shape with 'N' for a symbolic dim)]; inits: [(name, array)];
    sets: list of (input arrays, output arrays); the output is named 'y'."""
    ins = [helper.make_tensor_value_info(n, NP2TP[np.dtype(t)], shp) for n, t, shp in inputs]
    y0 = sets[0][1][0]
    yshape = list(y0.shape) if sym is None else sym
    outs = [helper.make_tensor_value_info("y", NP2TP[y0.dtype], yshape)]
    order = [n for n, _, _ in inputs] + [n for n, _ in inits]
    node = helper.make_node(op, op_inputs(op, order, inputs, inits), ["y"], domain="com.microsoft",
                            **(attrs or {}))
    m = gen_util.make_model(name, node, ins, outs,
                            [numpy_helper.from_array(np.asarray(a), n) for n, a in inits],
                            MS_OPSETS, None, 7)
    gen_util.write_case(os.path.join(HERE, "cases", name), m, sets)


# the node's input order is given by the caller through a module-level list (set per case)
NODE_INPUTS = []


def op_inputs(op, order, inputs, inits):
    return list(NODE_INPUTS)


def scalar(v, dt, one_d=False):
    a = np.array(v, dtype=dt)
    return a.reshape(1) if one_d else a


def binary(name, op, dt, ashape, bshape, sizes, one_d=False, no_zp=False, params=None):
    global NODE_INPUTS
    (sa, za), (sb, zb), (sc, zc) = params or (qparams(dt), qparams(dt), qparams(dt))
    if no_zp:
        za = zb = zc = 0
    inits = [("sa", scalar(sa, F32, one_d)), ("sb", scalar(sb, F32)), ("sc", scalar(sc, F32))]
    if not no_zp:
        inits += [("za", scalar(za, dt)), ("zb", scalar(zb, dt, one_d)), ("zc", scalar(zc, dt))]
        NODE_INPUTS = ["a", "sa", "za", "b", "sb", "zb", "sc", "zc"]
    else:
        NODE_INPUTS = ["a", "sa", "", "b", "sb", "", "sc"]
    sets = []
    for n in sizes:
        a = q8([n if d == "N" else d for d in ashape], dt)
        b = q8([n if d == "N" else d for d in bshape], dt)
        va, vb = dq(a, sa, za), dq(b, sb, zb)
        v = (va + vb if op == "QLinearAdd" else va * vb).astype(F32)
        sets.append(([a, b], [quant(v, sc, zc, dt)]))
    yr = max(len(ashape), len(bshape))
    sym = None
    if any(d == "N" for d in ashape + bshape):
        full_a = [1] * (yr - len(ashape)) + ashape
        full_b = [1] * (yr - len(bshape)) + bshape
        sym = [("N" if (x == "N" or y == "N") else max(x, y)) for x, y in zip(full_a, full_b)]
    case(name, op, [("a", dt, ashape), ("b", dt, bshape)], inits, sets, sym=sym)


def unary(name, op, dt, shape, alpha=None):
    global NODE_INPUTS
    (sx, zx), (sy, zy) = qparams(dt), qparams(dt)
    NODE_INPUTS = ["x", "sx", "zx", "sy", "zy"]
    inits = [("sx", scalar(sx, F32)), ("zx", scalar(zx, dt)), ("sy", scalar(sy, F32)),
             ("zy", scalar(zy, dt))]
    x = np.arange(256).astype(np.int64) + (-128 if dt == np.int8 else 0)
    x = np.concatenate([x, q8((int(np.prod(shape)) - 256,), dt)]).astype(dt).reshape(shape)
    v = dq(x, sx, zx)
    if op == "QLinearSigmoid":
        f = (F32(1) / (F32(1) + np.exp(-v.astype(np.float64)).astype(F32))).astype(F32)
        attrs = None
    else:
        f = np.where(v < 0, (F32(alpha) * v).astype(F32), v).astype(F32)
        attrs = {"alpha": alpha}
    case(name, op, [("x", dt, list(shape))], inits, [([x], [quant(f, sy, zy, dt)])], attrs)


def concat(name, dt, shapes, axis, sizes):
    global NODE_INPUTS
    sy, zy = qparams(dt)
    inits = [("sy", scalar(sy, F32)), ("zy", scalar(zy, dt))]
    NODE_INPUTS = ["sy", "zy"]
    params = []
    for k in range(len(shapes)):
        s, z = (sy, zy) if k == 1 else qparams(dt)  # input 1 already on the output's grid
        params.append((s, z))
        inits += [("s%d" % k, scalar(s, F32)), ("z%d" % k, scalar(z, dt))]
        NODE_INPUTS += ["x%d" % k, "s%d" % k, "z%d" % k]
    sets = []
    for n in sizes:
        xs = [q8([n if d == "N" else d for d in shp], dt) for shp in shapes]
        ys = [quant(dq(x, s, z), sy, zy, dt) for x, (s, z) in zip(xs, params)]
        sets.append((xs, [np.concatenate(ys, axis=axis)]))
    sym = None
    if sizes[0] is not None:
        sym = ["N" if d == "N" else None for d in shapes[0]]
        sym = [d if d == "N" else (sum(s[i] for s in shapes) if i == axis % len(sym) else shapes[0][i])
               for i, d in enumerate(sym)]
    case(name, "QLinearConcat", [("x%d" % k, dt, shp) for k, shp in enumerate(shapes)], inits,
         sets, {"axis": axis}, sym=sym)


def pool_ref(x, zx, sx, sy, zy, k, strides, pads, cip, ceil_mode, dt):
    """x [N, C, H, W] quantized; AveragePool windows; the integer sum, then the float requant."""
    n, c, h, w = x.shape
    out = []
    for i in range(2):
        span = [h, w][i] + pads[i] + pads[2 + i] - k[i]
        o = (-(-span // strides[i]) if ceil_mode else span // strides[i]) + 1
        out.append(o)
    y = np.zeros((n, c, out[0], out[1]), dtype=dt)
    xi = x.astype(np.int64) - zx
    for oh in range(out[0]):
        for ow in range(out[1]):
            h0, w0 = oh * strides[0] - pads[0], ow * strides[1] - pads[1]
            h1, w1 = h0 + k[0], w0 + k[1]
            # taps inside the padded input (count_include_pad) and inside the input
            ph0, ph1 = max(h0, -pads[0]), min(h1, h + pads[2])
            pw0, pw1 = max(w0, -pads[1]), min(w1, w + pads[3])
            ih0, ih1, iw0, iw1 = max(h0, 0), min(h1, h), max(w0, 0), min(w1, w)
            cnt = (ph1 - ph0) * (pw1 - pw0) if cip else max(0, ih1 - ih0) * max(0, iw1 - iw0)
            acc = xi[:, :, ih0:max(ih0, ih1), iw0:max(iw0, iw1)].sum(axis=(2, 3))
            v = ((acc.astype(F32) * F32(sx)).astype(F32) / F32(cnt)).astype(F32)
            y[:, :, oh, ow] = quant(v, sy, zy, dt)
    return y


def pool(name, dt, shape, k=None, strides=None, pads=None, cip=0, ceil_mode=0, sizes=(None,)):
    global NODE_INPUTS
    (sx, zx), (sy, zy) = qparams(dt), qparams(dt)
    NODE_INPUTS = ["x", "sx", "zx", "sy", "zy"]
    inits = [("sx", scalar(sx, F32)), ("zx", scalar(zx, dt)), ("sy", scalar(sy, F32)),
             ("zy", scalar(zy, dt))]
    glob = k is None
    sets = []
    for n in sizes:
        x = q8([n if d == "N" else d for d in shape], dt)
        if glob:
            xx = x.reshape(x.shape[0], x.shape[1], -1, 1)
            y = pool_ref(xx, zx, sx, sy, zy, [xx.shape[2], 1], [1, 1], [0] * 4, 0, 0, dt)
            y = y.reshape(x.shape[:2] + (1,) * (x.ndim - 2))
        else:
            y = pool_ref(x, zx, sx, sy, zy, k, strides, pads, cip, ceil_mode, dt)
        sets.append(([x], [y]))
    attrs = {} if glob else {"kernel_shape": k, "strides": strides, "pads": pads,
                             "count_include_pad": cip, "ceil_mode": ceil_mode}
    sym = None
    if "N" in shape:
        y0 = sets[0][1][0]
        sym = ["N"] + list(y0.shape[1:])
    case(name, "QLinearGlobalAveragePool" if glob else "QLinearAveragePool",
         [("x", dt, shape)], inits, sets, attrs, sym=sym)


def err(name, op, inputs, attrs):
    node = helper.make_node(op, [n for n, _, _ in inputs], ["y"], domain="com.microsoft", **attrs)
    gen_util.write_model(HERE, name + ".onnx", node,
                         [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                         [helper.make_tensor_value_info("y", TensorProto.INT8, None)], (),
                         MS_OPSETS, None, 7)


def main():
    binary("qlinearadd_int8_bcast", "QLinearAdd", np.int8, ["N", 3, 4, 5], [3, 1, 1], [1, 2])
    binary("qlinearadd_uint8_1d_params", "QLinearAdd", np.uint8, [2, 7], [2, 7], [None],
           one_d=True)
    binary("qlinearmul_uint8_bcast", "QLinearMul", np.uint8, [4, 6], [6], [None])
    binary("qlinearmul_int8_nozp", "QLinearMul", np.int8, [3, 1, 5], [2, 1], [None], no_zp=True)
    unary("qlinearsigmoid_int8", "QLinearSigmoid", np.int8, (2, 8, 20))
    unary("qlinearsigmoid_uint8", "QLinearSigmoid", np.uint8, (16, 17))
    unary("qlinearleakyrelu_int8", "QLinearLeakyRelu", np.int8, (4, 70), alpha=0.1)
    unary("qlinearleakyrelu_uint8", "QLinearLeakyRelu", np.uint8, (300,), alpha=0.25)
    concat("qlinearconcat_int8_axis1", np.int8, [["N", 2, 3], ["N", 4, 3], ["N", 1, 3]], 1, [1, 3])
    concat("qlinearconcat_uint8_axis_last", np.uint8, [[2, 3], [2, 1]], -1, [None])
    pool("qlinearavgpool_int8_pad", np.int8, [1, 3, 7, 7], [3, 3], [2, 2], [1, 1, 1, 1])
    pool("qlinearavgpool_uint8_ceil_cip", np.uint8, ["N", 2, 6, 5], [2, 3], [2, 2], [0, 1, 1, 0],
         cip=1, ceil_mode=1, sizes=[1, 2])
    pool("qlinearglobalavgpool_int8", np.int8, ["N", 4, 5, 6], sizes=[1, 3])
    pool("qlinearglobalavgpool_uint8", np.uint8, [1, 3, 7, 1])
    s8 = TensorProto.INT8
    err("err_channels_last", "QLinearGlobalAveragePool",
        [("x", s8, [1, 2, 3, 3]), ("sx", TensorProto.FLOAT, []), ("zx", s8, []),
         ("sy", TensorProto.FLOAT, []), ("zy", s8, [])], {"channels_last": 1})
    err("err_per_axis_scale", "QLinearAdd",
        [("a", s8, [2, 3]), ("sa", TensorProto.FLOAT, [3]), ("za", s8, []),
         ("b", s8, [2, 3]), ("sb", TensorProto.FLOAT, []), ("zb", s8, []),
         ("sc", TensorProto.FLOAT, []), ("zc", s8, [])], {})
    # quotients exactly half-way ((a + b) / 14 for some sums), where the product by C_scale's
    # rounded reciprocal lands past the tie: the division must be the float chain's
    binary("qlinearadd_uint8_ties", "QLinearAdd", np.uint8, [1000], [1000], [None],
           params=((F32(2.0 ** -10), 0), (F32(2.0 ** -10), 0), (F32(7.0 / 512), 0)))
    # no broadcasting (the AVX-512 path: 16 values at a time, then the rest one by one), int8,
    # and a product with a scalar input
    binary("qlinearadd_int8_flat", "QLinearAdd", np.int8, [3, 37], [3, 37], [None])
    binary("qlinearmul_uint8_scalar", "QLinearMul", np.uint8, [70], [1], [None])


if __name__ == "__main__":
    main()
