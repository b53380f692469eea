#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_data_ub.c runs with hostile tensor data.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/dataub/make_dataub.py

Most models have one node whose arithmetic C could leave undefined for some data: integer sums, products, negations, quotients and shifts at the limits of their
type, float-to-integer conversions of NaN, infinities and out-of-range values.  The test
feeds INT_MIN, INT_MAX, -1, 0, NaN, +-inf, 1e30, -0.0, huge shifts... and compares with the
defined result docs/ops.md documents (integers wrap modulo 2^n, float-to-integer conversions
saturate with NaN giving 0, a zero divisor gives 0).  The last ones hold constants the
compiler folds, and attributes it must refuse (refuse_*.onnx).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
T = TensorProto
F, D, F16, BF16 = T.FLOAT, T.DOUBLE, T.FLOAT16, T.BFLOAT16
I8, I16, I32, I64 = T.INT8, T.INT16, T.INT32, T.INT64
U8, U16, U32, U64 = T.UINT8, T.UINT16, T.UINT32, T.UINT64


def model(name, nodes, inputs, outputs, opset, inits=()):
    gen_util.write_model(HERE, name, nodes, inputs, outputs, inits, opset, "onnx2c-make_dataub")


vi = helper.make_tensor_value_info  # vi(name, type, shape)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=op.lower(), **attrs)


def binary(name, op, t, n, opset=13, tb=None, **attrs):
    """y = op(a, b) on [n] elements (b of type tb, default t)."""
    model(name, node(op, ["a", "b"], ["y"], **attrs), [vi("a", t, [n]), vi("b", tb or t, [n])],
          [vi("y", t, None)], opset)


def unary(name, op, t, n, opset=13, **attrs):
    model(name, node(op, ["x"], ["y"], **attrs), [vi("x", t, [n])], [vi("y", t, None)], opset)


# ---- integer arithmetic: wraps modulo 2^n
binary("add_i32.onnx", "Add", I32, 4)
binary("sub_i64.onnx", "Sub", I64, 4)
binary("mul_i32.onnx", "Mul", I32, 4)
binary("mul_i64.onnx", "Mul", I64, 4)
binary("mul_u16.onnx", "Mul", U16, 4)  # 65535 * 65535 overflows int after promotion
model("sum_i64.onnx", node("Sum", ["a", "b", "c"], ["y"]),
      [vi("a", I64, [2]), vi("b", I64, [2]), vi("c", I64, [2])], [vi("y", I64, None)], 13)
unary("neg_i32.onnx", "Neg", I32, 4)
unary("neg_i64.onnx", "Neg", I64, 4)
unary("abs_i8.onnx", "Abs", I8, 4)
unary("abs_i32.onnx", "Abs", I32, 4)
unary("abs_i64.onnx", "Abs", I64, 4)
binary("prelu_i32.onnx", "PRelu", I32, 4, opset=16)
unary("shrink_i64.onnx", "Shrink", I64, 4, opset=13, bias=-5.0, lambd=1.0)
# integer base: an integer exponent (exact, wrapping) and a float one (saturating)
binary("pow_i64.onnx", "Pow", I64, 4, opset=15)
binary("pow_i32_f.onnx", "Pow", I32, 6, opset=15, tb=F)

# ---- integer Div and Mod: x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, x % -1 = 0
binary("div_i32.onnx", "Div", I32, 6)
binary("div_i64.onnx", "Div", I64, 6)
binary("div_u32.onnx", "Div", U32, 3)
binary("mod_i32.onnx", "Mod", I32, 6)            # fmod 0: the sign of the divisor
binary("mod_i64_fmod.onnx", "Mod", I64, 6, fmod=1)  # the sign of the dividend

# ---- BitShift: shifts of the width or more give 0
binary("shl_u8.onnx", "BitShift", U8, 4, opset=11, direction="LEFT")
binary("shl_u64.onnx", "BitShift", U64, 4, opset=11, direction="LEFT")
binary("shr_u32.onnx", "BitShift", U32, 4, opset=11, direction="RIGHT")

# ---- Cast from floats: saturating, NaN -> 0
INTS = [I8, U8, I16, U16, I32, U32, I64, U64]
model("cast_float.onnx", [node("Cast", ["x"], ["y%d" % i], to=t) for i, t in enumerate(INTS)],
      [vi("x", F, [10])], [vi("y%d" % i, t, None) for i, t in enumerate(INTS)], 13)
model("cast_double.onnx", [node("Cast", ["x"], ["y%d" % i], to=t)
                           for i, t in enumerate([I64, U64, I32])],
      [vi("x", D, [8])], [vi("y%d" % i, t, None) for i, t in enumerate([I64, U64, I32])], 13)
model("cast_half.onnx", [node("Cast", ["x"], ["y%d" % i], to=t)
                         for i, t in enumerate([I8, U16, I64])],
      [vi("x", F16, [8])], [vi("y%d" % i, t, None) for i, t in enumerate([I8, U16, I64])], 13)
model("cast_bf16.onnx", [node("Cast", ["x"], ["y%d" % i], to=t)
                         for i, t in enumerate([I32, U8])],
      [vi("x", BF16, [8])], [vi("y%d" % i, t, None) for i, t in enumerate([I32, U8])], 13)


# ---- reductions of integers over the last axis of [rows, 2] (keepdims 0)
def reduce(name, op, t, rows, opset=11):
    model(name, node(op, ["x"], ["y"], axes=[1], keepdims=0), [vi("x", t, [rows, 2])],
          [vi("y", t, None)], opset)


reduce("reducesum_i64.onnx", "ReduceSum", I64, 2)
reduce("reduceprod_i32.onnx", "ReduceProd", I32, 2)
reduce("reducesumsquare_i64.onnx", "ReduceSumSquare", I64, 2)
reduce("reducel1_i64.onnx", "ReduceL1", I64, 3)
reduce("reducemean_i32.onnx", "ReduceMean", I32, 2)
reduce("reducemean_i64.onnx", "ReduceMean", I64, 2)
reduce("reducel2_i32.onnx", "ReduceL2", I32, 2)
reduce("reducelogsum_i32.onnx", "ReduceLogSum", I32, 3)
reduce("reducelogsumexp_i64.onnx", "ReduceLogSumExp", I64, 2)
# runtime axes (the output's declared shape): the kernel that reads the axes
model("reducesum_rt_i64.onnx", node("ReduceSum", ["x", "axes"], ["y"], keepdims=0),
      [vi("x", I64, [2, 2]), vi("axes", I64, [1])], [vi("y", I64, [2])], 13)

# ---- products of integers: the GEMM engine, Einsum
model("matmul_i32.onnx", node("MatMul", ["a", "b"], ["y"]),
      [vi("a", I32, [2, 2]), vi("b", I32, [2, 2])], [vi("y", I32, None)], 13)
# 9 rows: the blocked engine (MR = 8) and its edge tiles; B a constant (packed at compile time)
bconst = numpy_helper.from_array(
    np.array([[2, -1, 3], [-(2 ** 62), 2 ** 62, 7]], dtype=np.int64), "b")
model("matmul_i64_constb.onnx", node("MatMul", ["a", "b"], ["y"]), [vi("a", I64, [9, 2])],
      [vi("y", I64, None)], 13, inits=[bconst])
# alpha 3, beta -1: C copied into Y and scaled; and a bias row (beta 1) added in the epilogue
model("gemm_i32.onnx", node("Gemm", ["a", "b", "c"], ["y"], alpha=3.0, beta=-1.0),
      [vi("a", I32, [2, 2]), vi("b", I32, [2, 2]), vi("c", I32, [2, 2])],
      [vi("y", I32, None)], 13)
model("gemm_i64_bias.onnx", node("Gemm", ["a", "b", "c"], ["y"], transB=1),
      [vi("a", I64, [2, 2]), vi("b", I64, [2, 2]), vi("c", I64, [2])], [vi("y", I64, None)], 13)
model("einsum_i32.onnx", node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik"),
      [vi("a", I32, [2, 2]), vi("b", I32, [2, 2])], [vi("y", I32, None)], 12)
model("einsum_u16.onnx", node("Einsum", ["a", "b"], ["y"], equation="i,i->"),
      [vi("a", U16, [2]), vi("b", U16, [2])], [vi("y", U16, None)], 12)

# ---- CumSum, scatter reductions
model("cumsum_i32.onnx", node("CumSum", ["x", "axis"], ["y"]), [vi("x", I32, [4])],
      [vi("y", I32, None)], 14, inits=[numpy_helper.from_array(np.array(0, np.int64), "axis")])
model("scatter_add_i64.onnx",
      node("ScatterElements", ["d", "i", "u"], ["y"], axis=0, reduction="add"),
      [vi("d", I64, [2]), vi("i", I64, [3]), vi("u", I64, [3])], [vi("y", I64, None)], 16)
model("scatter_mul_i32.onnx",
      node("ScatterElements", ["d", "i", "u"], ["y"], axis=0, reduction="mul"),
      [vi("d", I32, [2]), vi("i", I64, [3]), vi("u", I32, [3])], [vi("y", I32, None)], 16)
model("scatternd_mul_i64.onnx", node("ScatterND", ["d", "i", "u"], ["y"], reduction="mul"),
      [vi("d", I64, [2]), vi("i", I64, [2, 1]), vi("u", I64, [2])], [vi("y", I64, None)], 16)

# ---- quantization: saturating, NaN -> 0; a zero scale gives infinities and NaN
model("quantize_i8.onnx", node("QuantizeLinear", ["x", "s", "z"], ["y"]),
      [vi("x", F, [8]), vi("s", F, []), vi("z", I8, [])], [vi("y", I8, None)], 13)
model("quantize_i32.onnx", node("QuantizeLinear", ["x", "s", "z"], ["y"]),
      [vi("x", I32, [4]), vi("s", F, []), vi("z", U8, [])], [vi("y", U8, None)], 13)
model("dynquant.onnx", node("DynamicQuantizeLinear", ["x"], ["y", "ys", "yz"]),
      [vi("x", F, [4])], [vi("y", U8, None), vi("ys", F, None), vi("yz", U8, None)], 11)
model("qlinearmatmul.onnx",
      node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"]),
      [vi("a", U8, [1, 2]), vi("sa", F, []), vi("za", U8, []), vi("b", U8, [2, 1]),
       vi("sb", F, []), vi("zb", U8, []), vi("sy", F, []), vi("zy", U8, [])],
      [vi("y", U8, None)], 10)

# ---- values known at compile time: folded as the kernel computes them, never by C's UB
def init(name, arr):
    return numpy_helper.from_array(arr, name)


MIN64, MAX64 = np.iinfo(np.int64).min, np.iinfo(np.int64).max
model("div_const_i64.onnx", [node("Div", ["a", "b"], ["q"]), node("Mod", ["a", "b"], ["r"])],
      [], [vi("q", I64, None), vi("r", I64, None)], 13,
      inits=[init("a", np.array([MIN64, 7, MIN64], np.int64)),
             init("b", np.array([-1, -1, 3], np.int64))])
model("fold_wrap_i64.onnx",
      [node("Add", ["a", "b"], ["s"]), node("Mul", ["a", "b"], ["p"]), node("Neg", ["a"], ["n"]),
       helper.make_node("ReduceProd", ["a"], ["r"], name="rp", keepdims=0)],
      [], [vi("s", I64, None), vi("p", I64, None), vi("n", I64, None), vi("r", I64, None)], 13,
      inits=[init("a", np.array([MAX64, MIN64, 3], np.int64)),
             init("b", np.array([1, -1, 2 ** 62], np.int64))])
model("cast_const.onnx", [node("Cast", ["f"], ["y8"], to=I8), node("Cast", ["f"], ["y64"], to=U64)],
      [], [vi("y8", I8, None), vi("y64", U64, None)], 13,
      inits=[init("f", np.array([300.5, -1e30, np.nan, 2.5, 1e19], np.float32))])
# refused: parameters C would convert out of range
model("refuse_shrink_huge.onnx", node("Shrink", ["x"], ["y"], bias=1e30, lambd=1.0),
      [vi("x", I32, [2])], [vi("y", I32, None)], 13)
model("refuse_shrink_negative_u8.onnx", node("Shrink", ["x"], ["y"], bias=-1.0, lambd=1.0),
      [vi("x", U8, [2])], [vi("y", U8, None)], 13)
model("refuse_gemm_alpha_fraction.onnx", node("Gemm", ["a", "b"], ["y"], alpha=0.5),
      [vi("a", I32, [2, 2]), vi("b", I32, [2, 2])], [vi("y", I32, None)], 13)
model("refuse_gemm_beta_huge.onnx", node("Gemm", ["a", "b", "c"], ["y"], beta=-1e30),
      [vi("a", I64, [2, 2]), vi("b", I64, [2, 2]), vi("c", I64, [2])], [vi("y", I64, None)], 13)
model("refuse_clip6_int.onnx", node("Clip", ["x"], ["y"], min=-1e30, max=1e30),
      [vi("x", I32, [2])], [vi("y", I32, None)], 6)
model("refuse_cumsum_axis_max.onnx", node("CumSum", ["x", "axis"], ["y"]), [vi("x", I32, [4])],
      [vi("y", I32, None)], 14, inits=[init("axis", np.array(MAX64, np.int64))])

# ---- empty tensors: a workspace of 0 bytes may be NULL (no arithmetic on it, not even + 0)
model("empty_chain.onnx", [node("Add", ["a", "a"], ["t"]), node("Mul", ["t", "a"], ["y"])],
      [vi("a", I32, ["N"])], [vi("y", I32, None)], 13)
model("empty_resize.onnx", node("Resize", ["x", "", "s"], ["y"], mode="linear"),
      [vi("x", F, ["N", 1, 2, 2])], [vi("y", F, None)], 13,
      inits=[init("s", np.array([1, 1, 2, 2], np.float32))])
model("empty_matmulinteger.onnx", node("MatMulInteger", ["a", "b"], ["y"]),
      [vi("a", U8, ["N", 2]), vi("b", U8, [2, 2])], [vi("y", I32, None)], 10)
