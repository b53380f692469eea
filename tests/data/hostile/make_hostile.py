#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_hostile_attrs.c feeds the compiler.

Run from anywhere with Debian's python3-onnx (onnx 1.12); the outputs are committed next to
this script so the tests never need Python:

    /usr/bin/python3 tests/data/hostile/make_hostile.py

refuse_*.onnx: attributes or constant inputs whose shape arithmetic would overflow int64 (or
give sizes no machine holds); each must be refused with exit status 1 and one line naming the
node.  The other models are valid and run: torch.flip on a dynamic axis, with constant and
with runtime starts/ends, and Slice with extreme starts, ends and steps.
"""
import functools
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64
MAX, MIN = 2**63 - 1, -2**63
BIG = 2**62


model = functools.partial(gen_util.write_model, HERE, producer="onnx2c-make_hostile")


def ints(name, values):
    return gen_util.const(name, values, np.int64)


def floats(name, shape):
    return numpy_helper.from_array(np.ones(shape, dtype=np.float32), name)


X4 = vi("x", ["N", 1, "H", "W"])
Y = vi("y", None)
W33 = floats("w", (1, 1, 3, 3))


def conv(name, op="Conv", w=W33, **attrs):
    model(name, [helper.make_node(op, ["x", "w"], ["y"], name="hostile", **attrs)], [X4], [Y],
          [w])


def pool(name, op="MaxPool", **attrs):
    model(name, [helper.make_node(op, ["x"], ["y"], name="hostile", **attrs)], [X4], [Y])


# --- refused: Conv / ConvTranspose / pools with attributes past int64 or any machine
conv("refuse_conv_pads_2p62.onnx", pads=[BIG] * 4)
conv("refuse_conv_pads_max.onnx", pads=[MAX, 0, 0, 0])
conv("refuse_conv_dilations_2p62.onnx", dilations=[BIG, BIG])
conv("refuse_conv_strides_max.onnx", strides=[MAX, 1])
conv("refuse_conv_kernel_shape_max.onnx", kernel_shape=[MAX, 3])
conv("refuse_convtranspose_output_padding.onnx", op="ConvTranspose", output_padding=[BIG, 0])
conv("refuse_convtranspose_output_shape.onnx", op="ConvTranspose", output_shape=[BIG, BIG])
model("refuse_convtranspose_dilations.onnx",
      [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="hostile",
                        dilations=[2**31 - 1, 2**31 - 1], strides=[2**31 - 1, 2**31 - 1])],
      [vi("x", [1, 1, 5, 5])], [Y], [W33])
pool("refuse_maxpool_kernel_2p62.onnx", kernel_shape=[BIG, BIG])
pool("refuse_maxpool_dilations.onnx", kernel_shape=[3, 3], dilations=[BIG, 1])
pool("refuse_averagepool_pads_max.onnx", op="AveragePool", kernel_shape=[3, 3], pads=[MAX] * 4)
pool("refuse_lppool_strides.onnx", op="LpPool", kernel_shape=[2, 2], strides=[MAX, MAX])
model("refuse_depthtospace_blocksize.onnx",
      [helper.make_node("DepthToSpace", ["x"], ["y"], name="hostile", blocksize=2**32 + 1)],
      [X4], [Y])
model("refuse_spacetodepth_blocksize.onnx",
      [helper.make_node("SpaceToDepth", ["x"], ["y"], name="hostile", blocksize=BIG)], [X4], [Y])

# --- refused: constant inputs (Pad, Resize sizes) whose sizes pass int64 or 2^48 elements
model("refuse_pad_huge.onnx",
      [helper.make_node("Pad", ["x", "p"], ["y"], name="hostile")], [X4], [Y],
      [ints("p", [0, 0, BIG, BIG, 0, 0, BIG, BIG])])
model("refuse_pad_max.onnx",
      [helper.make_node("Pad", ["x", "p"], ["y"], name="hostile")], [X4], [Y],
      [ints("p", [0, 0, MAX, 0, 0, 0, 1, 0])])
model("refuse_resize_sizes_huge.onnx",
      [helper.make_node("Resize", ["x", "", "", "s"], ["y"], name="hostile")], [X4], [Y],
      [ints("s", [1, 1, BIG, BIG])])
model("refuse_resize_sizes_product.onnx",
      [helper.make_node("Resize", ["x", "", "", "s"], ["y"], name="hostile")], [X4], [Y],
      [ints("s", [2**20, 2**20, 2**20, 2**20])])

# --- valid: torch.flip(x, [0]) on a dynamic N (Slice -1 : -INT64_MAX : -1 on axis 0)
XN3 = vi("x", ["N", 3])
model("flip.onnx", [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="flip")],
      [XN3], [vi("y", ["N", 3])],
      [ints("st", [-1]), ints("en", [-MAX]), ints("ax", [0]), ints("sp", [-1])])
# the same with starts, ends, axes and steps as runtime inputs (the declared shape decides)
model("flip_runtime.onnx",
      [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="flip")],
      [XN3, vi("st", [1], I64), vi("en", [1], I64), vi("ax", [1], I64), vi("sp", [1], I64)],
      [vi("y", ["N", 3])])
# extreme starts, ends and steps on a dynamic N: x[INT64_MAX : INT64_MIN : INT64_MIN] is the
# last row (step magnitude past any dim), x[INT64_MIN : INT64_MAX : INT64_MAX] the first
model("slice_extreme.onnx",
      [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["a"], name="last"),
       helper.make_node("Slice", ["x", "st2", "en2", "ax", "sp2"], ["b"], name="first")],
      [XN3], [vi("a", None), vi("b", None)],
      [ints("st", [MAX]), ints("en", [MIN]), ints("ax", [0]), ints("sp", [MIN]),
       ints("st2", [MIN]), ints("en2", [MAX]), ints("sp2", [MAX])])
