#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_elementwise.c feeds the compiler.

Run from anywhere with Debian's python3-onnx; the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/elementwise/make_elementwise.py

Values are deterministic so that the C test can compute the expected results itself.
"""
import functools
import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402

I64 = TensorProto.INT64
model = functools.partial(gen_util.write_model, HERE, opset=15,
                          producer="onnx2c-make_elementwise")


def const(name, values, dtype=np.int64):
    return gen_util.const(name, values, dtype)


N = helper.make_node

# Broadcasting with a symbolic dim: a[N, 1, 4] + b[3, 1] -> [N, 3, 4]; then Max/Mean (variadic,
# three inputs) and a Where on a comparison.
model("bcast_sym.onnx",
      [N("Add", ["a", "b"], ["s"], name="add"),
       N("Max", ["a", "b", "c"], ["mx"], name="max"),
       N("Mean", ["a", "b", "c"], ["mean"], name="mean"),
       N("Greater", ["a", "b"], ["gt"], name="gt"),
       N("Where", ["gt", "a", "b"], ["w"], name="where")],
      [vi("a", ["N", 1, 4]), vi("b", [3, 1]), vi("c", [4])],
      [vi("s", None), vi("mx", None), vi("mean", None), vi("w", None)])

# Shapes that cannot be broadcast: [2, 3] + [4, 3].
model("bcast_bad.onnx", [N("Add", ["a", "b"], ["y"], name="add")],
      [vi("a", [2, 3]), vi("b", [4, 3])], [vi("y", None)])

# PRelu: the slope must broadcast to X (unidirectionally): [2, 3] slope for X [3].
model("prelu_bad.onnx", [N("PRelu", ["x", "slope"], ["y"], name="prelu")],
      [vi("x", [3]), vi("slope", [2, 3])], [vi("y", None)])

# Cast to string is rejected with a clear error.
model("cast_string.onnx", [N("Cast", ["x"], ["y"], name="cast", to=TensorProto.STRING)],
      [vi("x", [3])], [vi("y", None, TensorProto.STRING)])

# Shape arithmetic that folds: x[N, C, 8] -> Shape -> * [1, 2, 1] -> / [1, 1, 2] -> Cast int32
# -> Cast int64 -> Max [0, 0, 0] -> Reshape x to [N, 2C, 4].  Also constant-only integer math
# as outputs: Div truncates toward zero, Mod fmod=0 takes the divisor's sign, fmod=1 the
# dividend's; Equal/Not/Where select.
model("shape_fold.onnx",
      [N("Shape", ["x"], ["shp"], name="shape"),
       N("Mul", ["shp", "k121"], ["m"], name="mul"),
       N("Div", ["m", "k112"], ["d"], name="div"),
       N("Cast", ["d"], ["d32"], name="to32", to=TensorProto.INT32),
       N("Cast", ["d32"], ["d64"], name="to64", to=TensorProto.INT64),
       N("Max", ["d64", "k000"], ["target"], name="max"),
       N("Reshape", ["x", "target"], ["y"], name="reshape"),
       N("Div", ["num", "den"], ["q"], name="idiv"),
       N("Mod", ["num", "den"], ["r0"], name="mod0"),
       N("Mod", ["num", "den"], ["r1"], name="mod1", fmod=1),
       N("Equal", ["num", "den"], ["eq"], name="eq"),
       N("Not", ["eq"], ["ne"], name="not"),
       N("Where", ["ne", "num", "den"], ["sel"], name="where")],
      [vi("x", ["N", "C", 8])],
      [vi("y", None), vi("target", None, I64), vi("q", None, I64), vi("r0", None, I64),
       vi("r1", None, I64), vi("sel", None, I64)],
      [const("k121", [1, 2, 1]), const("k112", [1, 1, 2]), const("k000", [0, 0, 0]),
       const("num", [-7, 7, -7, 7, 3]), const("den", [2, 2, -2, -2, 3])])

# Element types: Mod (fmod=0) on int32 with mixed signs, Round half to even, Cast float ->
# float16 and float16 -> float, Pow with an int64 exponent.
model("types.onnx",
      [N("Mod", ["i", "j"], ["mod"], name="mod"),
       N("Round", ["f"], ["round"], name="round"),
       N("Cast", ["f"], ["h"], name="tohalf", to=TensorProto.FLOAT16),
       N("Cast", ["h"], ["back"], name="fromhalf", to=TensorProto.FLOAT),
       N("Pow", ["f", "e"], ["pow"], name="pow")],
      [vi("i", [4], TensorProto.INT32), vi("j", [4], TensorProto.INT32), vi("f", [4]),
       vi("e", [4], I64)],
      [vi("mod", None, TensorProto.INT32), vi("round", None), vi("h", None, TensorProto.FLOAT16),
       vi("back", None), vi("pow", None)])

# Comparisons of symbolic shape values fold when they differ for every size (dims are >= 0):
# torch's x.expand(N, -1, -1) exports as Where(Equal(shape, -1), 1, shape): here [N, 4] is
# compared with -1 (Equal), and N + 1 with 0 (Greater, Less) to pick 4 rather than 9, so both
# Expand targets are known: e [N, 4] and y [N + 1, 4, 4].
model("cmp_fold.onnx",
      [N("Shape", ["x"], ["shp"], name="shape", start=0, end=1),
       N("Add", ["shp", "k1"], ["n1"], name="add"),
       N("Concat", ["shp", "k4"], ["cat"], name="cat", axis=0),
       N("Equal", ["cat", "km1"], ["eq"], name="eq"),
       N("Where", ["eq", "kone2", "cat"], ["tgt0"], name="where"),
       N("Greater", ["n1", "k0"], ["gt"], name="gt"),
       N("Less", ["n1", "k0"], ["lt"], name="lt"),
       N("Where", ["gt", "k4", "k9"], ["c1"], name="pick_gt"),
       N("Where", ["lt", "k9", "k4"], ["c2"], name="pick_lt"),
       N("Concat", ["n1", "c1", "c2"], ["tgt"], name="cat2", axis=0),
       N("Expand", ["x", "tgt0"], ["e"], name="expand"),
       N("Expand", ["one", "tgt"], ["y"], name="expand2")],
      [vi("x", ["N", 1])],
      [vi("e", None), vi("y", None)],
      [const("k1", [1]), const("k4", [4]), const("k9", [9]), const("k0", [0]),
       const("km1", [-1]), const("kone2", [1, 1]), const("one", [[[1.5]]], np.float32)])


# HardSigmoid and HardSwish at the edges: NaN stays NaN (numpy's clip, ONNX's reference), the
# infinities saturate, -inf * 0 in HardSwish is NaN; runnable cases, references from numpy.
def hard_case(name, op, attrs, ref):
    x = np.array([[np.nan, np.inf, -np.inf, 0, -3, 3, 1e30, -1e30, 0.25, -0.5, 2.9, -2.9]],
                 np.float32)
    m = gen_util.make_model(name, [N(op, ["x"], ["y"], name="h", **attrs)], [vi("x", [1, 12])],
                            [vi("y", None)], opset=14, producer="onnx2c-make_elementwise")
    with np.errstate(invalid="ignore"):
        y = ref(x).astype(np.float32)
    gen_util.write_case(os.path.join(HERE, "cases", name), m, [([x], [y])])


hard_case("hardsigmoid_edges", "HardSigmoid", {"alpha": 0.25, "beta": 0.5},
          lambda x: np.clip(np.float32(0.25) * x + np.float32(0.5), 0, 1))
hard_case("hardswish_edges", "HardSwish", {},
          lambda x: x * np.clip(x * np.float32(1 / 6) + np.float32(0.5), 0, 1))
