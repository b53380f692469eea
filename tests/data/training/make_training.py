#!/usr/bin/python3
"""Writes the cases and models of the training family (compiler/ops/training.c; read by
tests/unit/test_ops_training.c and, for cases/, by ctest's op_cases_*), next to this script:

    /usr/bin/python3 tests/data/training/make_training.py

Runnable cases (references from numpy, in the precision of ONNX's own reference: learning-rate
scalars in float64, tensors in their type, coefficients rounded to it):
  cases/adagrad_f64_sym      Adagrad, double, X1[N,3] and X2[4], T = 3, two sizes of N
  cases/adam_bias_post       Adam, float, T = 2 (bias correction), norm_coefficient_post 0.1,
                             R a double, two tensors
  cases/adam_t0_sym          Adam, float, T = 0 (no bias correction), X[N,2], default attributes
  cases/momentum_std_t4      Momentum standard, T = 4 (beta applies), two tensors
  cases/nesterov_t1_f64      Momentum nesterov, double, T = 1
Models to refuse (one line naming the node):
  bad_count.onnx      Adagrad with R, T and 4 tensors (not a multiple of 3)
  bad_outputs.onnx    Adam with 2 of its 3 outputs
  bad_shape.onnx      Momentum with G[3] for X[2]
  bad_type.onnx       Adagrad on int32 tensors
  bad_mixed.onnx      Adam with X float, V double
  bad_r_type.onnx     Momentum with an int64 R
  bad_mode.onnx       Momentum mode 'heavy'
  bad_no_alpha.onnx   Momentum without its required alpha
"""
import os
import sys

import numpy as np
from onnx import TensorProto as TP, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402

DOMAIN = "ai.onnx.preview.training"
OPSETS = [("", 17), (DOMAIN, 1)]
F, D, I64 = TP.FLOAT, TP.DOUBLE, TP.INT64
RNG = np.random.default_rng(14)


def f32(v):
    """An attribute as the model stores it (float32), as a Python float."""
    return float(np.float32(v))


def adagrad(r, t, x, g, hh, a):
    ty = x.dtype.type
    rate = np.float64(r) / (1 + np.float64(t) * a["decay_factor"])  # float64, then the type's
    gr = ty(a["norm_coefficient"]) * x + g
    hn = hh + gr * gr
    return x - ty(rate) * gr / (np.sqrt(hn) + ty(a["epsilon"])), hn


def adam(r, t, x, g, v, hh, a):
    ty = x.dtype.type
    al, be = a["alpha"], a["beta"]
    gr = ty(a["norm_coefficient"]) * x + g
    vn = ty(al) * v + ty(1 - al) * gr
    hn = ty(be) * hh + ty(1 - be) * (gr * gr)
    rate = np.float64(r) * np.sqrt(1 - be ** float(t)) / (1 - al ** float(t)) if t > 0 else r
    xn = x - ty(rate) * (vn / (np.sqrt(hn) + ty(a["epsilon"])))
    return ty(1 - a["norm_coefficient_post"]) * xn, vn, hn


def momentum(r, t, x, g, v, a, nesterov):
    ty = x.dtype.type
    gr = ty(a["norm_coefficient"]) * x + g
    vn = ty(a["alpha"]) * v + ty(a["beta"] if t > 0 else 1) * gr
    step = gr + ty(a["alpha"]) * vn if nesterov else vn
    return x - ty(r) * step, vn


def rand(shape, dt, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(dt)


def case(name, op, attrs, dt, shapes, sets, nhist, ref, r_type=F):
    """shapes: per tensor, its declared shape; sets: per data set (r, t, concrete shapes)."""
    nt = len(shapes)
    groups = ["X", "G"] + (["V", "H"] if nhist == 2 else ["H"] if op == "Adagrad" else ["V"])
    ins = ["R", "T"] + ["%s%d" % (k, i + 1) for k in groups for i in range(nt)]
    outs = ["%s%d_new" % (k, i + 1) for k in [groups[0]] + groups[2:] for i in range(nt)]
    node = h.make_node(op, ins, outs, name=name, domain=DOMAIN, **attrs)
    tt = TP.DOUBLE if dt == np.float64 else TP.FLOAT
    inputs = [vi("R", [], r_type), vi("T", [], I64)]
    inputs += [vi("%s%d" % (k, i + 1), shapes[i], tt) for k in groups for i in range(nt)]
    outputs = [vi(o, None, tt) for o in outs]
    m = gen_util.make_model(name, node, inputs, outputs, opset=OPSETS,
                            producer="make_training.py")
    data = []
    for r, t, cshapes in sets:
        rr = np.array(r, np.float64 if r_type == D else np.float32)
        xs = [rand(s, dt) for s in cshapes]
        gs = [rand(s, dt) for s in cshapes]
        hs = [[rand(s, dt, 0.0, 3.0) for s in cshapes] for _ in range(len(groups) - 2)]
        res = [ref(rr, t, xs[i], gs[i], *[hh[i] for hh in hs]) for i in range(nt)]
        flat_in = [rr, np.array(t, np.int64)] + xs + gs + [a for hh in hs for a in hh]
        flat_out = [res[i][k] for k in range(len(res[0])) for i in range(nt)]
        data.append((flat_in, [np.asarray(o, dt) for o in flat_out]))
    gen_util.write_case(os.path.join(HERE, "cases", name), m, data)


a = {"decay_factor": f32(0.1), "epsilon": f32(1e-5), "norm_coefficient": f32(0.01)}
case("adagrad_f64_sym", "Adagrad", a, np.float64, [["N", 3], [4]],
     [(0.05, 3, [[2, 3], [4]]), (0.2, 0, [[5, 3], [4]])], 1,
     lambda r, t, x, g, hh: adagrad(r, t, x, g, hh, a))

b = {"alpha": f32(0.9), "beta": f32(0.99), "epsilon": f32(1e-4), "norm_coefficient": f32(0.02),
     "norm_coefficient_post": f32(0.1)}
case("adam_bias_post", "Adam", b, np.float32, [[3, 2], [5]], [(0.1, 2, [[3, 2], [5]])], 2,
     lambda r, t, x, g, v, hh: adam(r, t, x, g, v, hh, b), r_type=D)

b0 = {"alpha": f32(0.9), "beta": f32(0.999), "epsilon": f32(1e-6), "norm_coefficient": 0.0,
      "norm_coefficient_post": 0.0}
case("adam_t0_sym", "Adam", {}, np.float32, [["N", 2]],
     [(0.01, 0, [[3, 2]]), (0.5, 0, [[1, 2]])], 2,
     lambda r, t, x, g, v, hh: adam(r, t, x, g, v, hh, b0))

c = {"alpha": f32(0.8), "beta": f32(0.7), "norm_coefficient": f32(0.05), "mode": "standard"}
case("momentum_std_t4", "Momentum", c, np.float32, [[4], [2, 3]], [(0.3, 4, [[4], [2, 3]])], 1,
     lambda r, t, x, g, v: momentum(r, t, x, g, v, c, False))

n = {"alpha": f32(0.95), "beta": f32(0.5), "norm_coefficient": f32(0.001), "mode": "nesterov"}
case("nesterov_t1_f64", "Momentum", n, np.float64, [[6]], [(0.1, 1, [[6]])], 1,
     lambda r, t, x, g, v: momentum(r, t, x, g, v, n, True))


def bad(name, op, ins, outs, types, attrs, shapes=None):
    node = h.make_node(op, ins, outs, name="opt", domain=DOMAIN, **attrs)
    shapes = shapes or {}
    inputs = [vi(k, shapes.get(k, [] if k in ("R", "T") else [2]), types.get(k, F)) for k in ins]
    gen_util.write_model(HERE, name + ".onnx", node, inputs, [vi(o, None) for o in outs],
                         opset=OPSETS, producer="make_training.py")


mom = {"alpha": 0.9, "beta": 1.0, "norm_coefficient": 0.0, "mode": "standard"}
bad("bad_count", "Adagrad", ["R", "T", "X", "G", "H", "X2"], ["Y", "H2"], {"T": I64}, {})
bad("bad_outputs", "Adam", ["R", "T", "X", "G", "V", "H"], ["Y", "V2"], {"T": I64}, {})
bad("bad_shape", "Momentum", ["R", "T", "X", "G", "V"], ["Y", "V2"], {"T": I64}, mom,
    {"G": [3]})
bad("bad_type", "Adagrad", ["R", "T", "X", "G", "H"], ["Y", "H2"],
    {"T": I64, "X": TP.INT32, "G": TP.INT32, "H": TP.INT32}, {})
bad("bad_mixed", "Adam", ["R", "T", "X", "G", "V", "H"], ["Y", "V2", "H2"], {"T": I64, "V": D}, {})
bad("bad_r_type", "Momentum", ["R", "T", "X", "G", "V"], ["Y", "V2"], {"T": I64, "R": I64}, mom)
bad("bad_mode", "Momentum", ["R", "T", "X", "G", "V"], ["Y", "V2"], {"T": I64},
    dict(mom, mode="heavy"))
bad("bad_no_alpha", "Momentum", ["R", "T", "X", "G", "V"], ["Y", "V2"], {"T": I64},
    {k: v for k, v in mom.items() if k != "alpha"})
