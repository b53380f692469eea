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


# bfloat16: Cast and CastLike round toward zero (a float keeps its upper 16 bits, as ONNX 1.12's
# reference data); Add on bfloat16 rounds its float sum to nearest even.  The bfloat16 tensors
# are written as TensorProto BFLOAT16 (numpy has no such type: uint16 bit patterns).
def bf16_tensor(bits):
    bits = np.ascontiguousarray(bits, dtype="<u2")
    return helper.make_tensor("", TensorProto.BFLOAT16, bits.shape, bits.tobytes(), raw=True)


def bf16_case(name, nodes, inputs, outputs, ins, outs):
    """ins/outs: numpy arrays, or ("bf16", uint16 bits) for bfloat16 tensors."""
    m = gen_util.make_model(name, nodes, inputs, outputs, opset=15,
                            producer="onnx2c-make_elementwise")
    case_dir = os.path.join(HERE, "cases", name)
    plain = [a if not isinstance(a, tuple) else a[1] for a in ins]
    plain_out = [a if not isinstance(a, tuple) else a[1] for a in outs]
    gen_util.write_case(case_dir, m, [(plain, plain_out)])
    for kind, arrays in (("input", ins), ("output", outs)):
        for i, a in enumerate(arrays):
            if isinstance(a, tuple):
                gen_util.save(os.path.join(case_dir, "test_data_set_0", "%s_%d.pb" % (kind, i)),
                              bf16_tensor(a[1]))


def f32_trunc_bf16(f):
    """float32 -> bfloat16 bits toward zero: the upper 16 bits; NaN made quiet."""
    u = np.asarray(f, np.float32).view(np.uint32)
    b = (u >> 16).astype(np.uint16)
    return np.where(np.isnan(f), b | 0x0040, b).astype(np.uint16)


def f64_trunc_bf16(d):
    """float64 -> bfloat16 toward zero: to float32 toward zero (the grids nest), then truncated."""
    d = np.asarray(d, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = d.astype(np.float32)
        over = np.isfinite(d) & (np.abs(f.astype(np.float64)) > np.abs(d))
    f = np.where(over, np.nextafter(f, np.float32(0)), f).astype(np.float32)
    return f32_trunc_bf16(f)


def rne_bf16(f):
    """float32 -> bfloat16 bits, nearest even (finite values)."""
    u = np.asarray(f, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_to_f32(bits):
    return (np.asarray(bits, np.uint32) << 16).view(np.float32)


BF = TensorProto.BFLOAT16
edges32 = np.array([0.47892547, -1.9999999, 1.0039062, 1.0117188, 3.4028235e38, -3.4028235e38,
                    1e-40, -1e-45, 1.1754944e-38, 0.0, -0.0, np.nan, np.inf, -np.inf, 65504.0,
                    -0.1], np.float32).reshape(2, 8)
bf16_case("cast_f32_bf16_trunc", [N("Cast", ["x"], ["y"], name="cast", to=BF)],
          [vi("x", [2, 8])], [vi("y", [2, 8], BF)], [edges32], [("bf16", f32_trunc_bf16(edges32))])
edges64 = np.array([0.47892547, 1e39, -1e39, 1.0 + 2.0 ** -30, -(1.0 + 2.0 ** -7) * 2.0 ** -126,
                    1e-45, 3.0e-39, np.nan, -np.inf, 2.0 ** 127 * (2 - 2.0 ** -8)], np.float64)
bf16_case("cast_f64_bf16_trunc", [N("Cast", ["x"], ["y"], name="cast", to=BF)],
          [vi("x", [10], TensorProto.DOUBLE)], [vi("y", [10], BF)], [edges64],
          [("bf16", f64_trunc_bf16(edges64))])
edges16 = np.array([1.0009766, -3.1406, 65504.0, 6.0e-8, -0.0, np.inf, 0.33325, 2049.0],
                   np.float16)
bf16_case("cast_f16_bf16_trunc", [N("Cast", ["x"], ["y"], name="cast", to=BF)],
          [vi("x", [8], TensorProto.FLOAT16)], [vi("y", [8], BF)], [edges16],
          [("bf16", f32_trunc_bf16(edges16.astype(np.float32)))])
like_bits = np.array([0], np.uint16)
bf16_case("castlike_f32_bf16_trunc", [N("CastLike", ["x", "like"], ["y"], name="castlike")],
          [vi("x", [2, 8]), vi("like", [1], BF)], [vi("y", [2, 8], BF)],
          [edges32, ("bf16", like_bits)], [("bf16", f32_trunc_bf16(edges32))])
a_bits = f32_trunc_bf16(np.array([1.0, 1.0078125, 3.0, -2.5, 100.0, 0.1], np.float32))
b_bits = f32_trunc_bf16(np.array([0.00390625, 0.01171875, 1.0078125, 0.0048828125, 0.3, 0.2],
                                 np.float32))
sum_bits = rne_bf16(bf16_to_f32(a_bits) + bf16_to_f32(b_bits))
bf16_case("add_bf16_rne", [N("Add", ["a", "b"], ["y"], name="add")],
          [vi("a", [6], BF), vi("b", [6], BF)], [vi("y", [6], BF)],
          [("bf16", a_bits), ("bf16", b_bits)], [("bf16", sum_bits)])


# Broadcasts decided at run time: two symbolic dims that may differ (either may be 1), a
# symbolic dim against a constant, PRelu's slope and Where over three operands; one generated
# C at every combination, references from numpy.  Runnable cases.
def bcast_rt_sets(shapes_list, fn, dtype=np.float32):
    rng = np.random.default_rng(7)
    sets = []
    for shapes in shapes_list:
        ins = [rng.standard_normal(s).astype(dtype) for s in shapes]
        sets.append((ins, fn(*ins)))
    return sets


m = gen_util.make_model("bcast_runtime_sym",
                        [N("Add", ["a", "b"], ["s"], name="add"), N("Mul", ["a", "c"], ["p"], name="mul"),
                         N("Greater", ["a", "b"], ["g"], name="gt"),
                         N("Where", ["g", "a", "c"], ["w"], name="where")],
                        [vi("a", ["A0", "A1"]), vi("b", ["B0", "B1"]), vi("c", ["C1"])],
                        [vi("s", None), vi("p", None), vi("w", None)], opset=13)
gen_util.write_case(os.path.join(HERE, "cases", "bcast_runtime_sym"), m,
                    bcast_rt_sets([((3, 4), (1, 4), (4,)), ((1, 4), (5, 1), (1,)), ((2, 1), (2, 3), (1,)),
                                   ((3, 3), (3, 3), (3,)), ((0, 4), (1, 4), (4,))],
                                  lambda a, b, c: [a + b, a * c, np.where(a > b, a, c)]))
m = gen_util.make_model("bcast_runtime_const",
                        [N("Add", ["a", "k"], ["s"], name="add"), N("PRelu", ["x", "slope"], ["y"], name="prelu")],
                        [vi("a", ["A0", "A1"]), vi("x", ["N", "C", "L"]), vi("slope", ["S0", "S1"])],
                        [vi("s", None), vi("y", None)],
                        [gen_util.const("k", np.arange(5, dtype=np.float32) - 2)], opset=13)
rng = np.random.default_rng(8)
sets = []
for a_s, x_s, sl_s in (((2, 5), (2, 3, 4), (3, 1)), ((3, 1), (1, 2, 5), (1, 5)), ((1, 5), (2, 2, 2), (2, 2))):
    a = rng.standard_normal(a_s).astype(np.float32)
    x = rng.standard_normal(x_s).astype(np.float32)
    sl = rng.standard_normal(sl_s).astype(np.float32)
    sets.append(([a, x, sl], [a + (np.arange(5, dtype=np.float32) - 2), np.where(x < 0, x * sl, x)]))
gen_util.write_case(os.path.join(HERE, "cases", "bcast_runtime_const"), m, sets)
