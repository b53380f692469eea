#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_norm.c feeds the compiler.

Run from anywhere with Debian's python3-onnx; the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/norm/make_norm.py

The parameters are deterministic (no random numbers) so that the C test can compute the
expected values itself.
"""
import functools
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402

model = functools.partial(gen_util.write_model, HERE, opset=17, producer="onnx2c-make_norm")


def init(name, a):
    return numpy_helper.from_array(np.asarray(a, np.float32), name)


# LayerNormalization over the last axis of [N, T, 8], every output present: shapes only.
model("layernorm_sym.onnx",
      [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "mean", "invstd"],
                        name="ln", axis=-1)],
      [vi("x", ["N", "T", 8])], [vi("y", None), vi("mean", None), vi("invstd", None)],
      [init("s", np.ones(8)), init("b", np.zeros(8))])

# LayerNormalization of [N, 2, 50] from axis 1 with a 100-element Scale (a weight big enough
# to be stored as bytes) and a B that broadcasts over the last axis only: run and compared.
model("layernorm_big.onnx",
      [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], name="ln", axis=1,
                        epsilon=1e-3)],
      [vi("x", ["N", 2, 50])], [vi("y", None)],
      [init("s", 0.5 + 0.01 * np.arange(100).reshape(2, 50)), init("b", 0.1 * np.arange(50))])

# Errors: an axis out of range; a Scale that is not a suffix of the normalized shape.
model("layernorm_bad_axis.onnx",
      [helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln", axis=3)],
      [vi("x", [3, 4])], [vi("y", None)], [init("s", np.ones(4))])
model("layernorm_bad_scale.onnx",
      [helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln", axis=1)],
      [vi("x", [2, 3, 4])], [vi("y", None)], [init("s", np.ones((3, 1)))])

# Softmax at opset 11: the input is coerced to 2-D at axis 1 ([N, 12] here): run and compared.
model("softmax_opset11.onnx",
      [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
      [vi("x", ["N", 3, 4])], [vi("y", None)], opset=11)

# BatchNormalization at opset 9 asked for its training outputs: unsupported.
model("batchnorm_opset9_training.onnx",
      [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                        ["y", "rm", "rv", "sm", "sv"], name="bn")],
      [vi("x", [2, 3, 4])],
      [vi("y", None), vi("rm", None), vi("rv", None), vi("sm", None), vi("sv", None)],
      [init(k, np.ones(3)) for k in "sbmv"], opset=9)

# LRN without its required size attribute.
model("lrn_no_size.onnx", [helper.make_node("LRN", ["x"], ["y"], name="lrn")],
      [vi("x", [1, 3, 4, 4])], [vi("y", None)], opset=13)


# ---- LpNormalization (the worked example of docs/writing-ops.md): runnable cases, the
# reference computed here with numpy in double precision, and one refused model.
def lp_reference(x, axis, p):
    a = np.abs(x.astype(np.float64))
    norm = a.sum(axis=axis, keepdims=True) if p == 1 else np.sqrt((a * a).sum(axis=axis,
                                                                               keepdims=True))
    y = np.where(norm != 0, x / np.where(norm != 0, norm, 1), 0)
    return y.astype(x.dtype)


def lp_case(name, shape, axis, p, dtype=np.float32, sizes=None):
    """cases/NAME: LpNormalization of a [shape] input (dims named by strings are symbolic,
    run at each of sizes, a list of concrete shapes); some vectors are all zeros."""
    t = gen_util.F if dtype == np.float32 else gen_util.TensorProto.DOUBLE
    attrs = {} if axis is None else {"axis": axis}
    if p is not None:
        attrs["p"] = p
    m = gen_util.make_model(name, [helper.make_node("LpNormalization", ["x"], ["y"],
                                                    name="lpn", **attrs)],
                            [vi("x", shape, t)], [vi("y", None, t)], opset=13,
                            producer="onnx2c-make_norm")
    rng = np.random.default_rng(len(name))
    sets = []
    for s in sizes or [shape]:
        x = rng.uniform(-3, 3, s).astype(dtype)
        x.reshape(-1)[: s[-1]] = 0  # a run of zeros: along the last axis, one all-zero vector
        sets.append(([x], [lp_reference(x, -1 if axis is None else axis, 2 if p is None else p)]))
    gen_util.write_case(os.path.join(HERE, "cases", name), m, sets)


lp_case("lpnorm_default", [3, 5], None, None)
lp_case("lpnorm_p1_axis1", [2, 4, 3, 3], 1, 1)
lp_case("lpnorm_p2_sym", ["N", 6, "W"], -2, 2, sizes=[[1, 6, 7], [3, 6, 1]])
lp_case("lpnorm_double_last", [2, 3, 8], -1, 2, dtype=np.float64)


# ---- Softmax, LogSoftmax, Hardmax past 2^15 elements (built with OpenMP, rows of the outer
# dim go to the threads), and below it (one call), at symbolic sizes
def softmax_case(name, op, shape, axis, sizes):
    m = gen_util.make_model(name, [helper.make_node(op, ["x"], ["y"], name="sm", axis=axis)],
                            [vi("x", shape)], [vi("y", None)], opset=13,
                            producer="onnx2c-make_norm")
    rng = np.random.default_rng(len(name))
    sets = []
    for sz in sizes:
        x = rng.uniform(-4, 4, sz).astype(np.float32)
        if op == "Hardmax":
            x = np.round(x)  # ties: the first maximum wins
            i = np.argmax(x, axis=axis)
            y = np.zeros_like(x)
            np.put_along_axis(y, np.expand_dims(i, axis), 1, axis)
        else:
            e = np.exp(x - x.max(axis=axis, keepdims=True))
            ssum = e.sum(axis=axis, keepdims=True)
            y = e / ssum if op == "Softmax" else (x - x.max(axis=axis, keepdims=True)) - np.log(ssum)
        sets.append(([x], [y.astype(np.float32)]))
    gen_util.write_case(os.path.join(HERE, "cases", name), m, sets)


softmax_case("softmax_par_sym", "Softmax", ["N", 17, 1000], -1, [[2, 17, 1000], [1, 17, 1000]])
softmax_case("logsoftmax_par_axis1", "LogSoftmax", ["N", 130, "W"], 1, [[2, 130, 131], [1, 130, 5]])
softmax_case("hardmax_par", "Hardmax", ["N", 110, 100], -1, [[3, 110, 100], [1, 110, 100]])
model("lpnorm_bad_p.onnx", [helper.make_node("LpNormalization", ["x"], ["y"], name="lpn", p=3)],
      [vi("x", [2, 3])], [vi("y", None)])
