#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_pool.c compiles.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/pool/make_pool.py

The good models have symbolic N, C, H, W (dim_param) so the tests check the output-shape rules
as Sym arithmetic, through the generated NAME_output_shape / NAME_check, and run the kernels
against a reference written in the test.  The bad_*.onnx models break one attribute rule each.
"""
import os
import sys

from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402


def model(name, node, inputs, outputs, opset):
    gen_util.write_model(HERE, name, node, inputs, outputs, (), opset, "onnx2c-make_pool")


X = vi("x", ["N", "C", "H", "W"])
Y = vi("y", None)
I = vi("i", None, TensorProto.INT64)

# MaxPool 3x3 stride 2, pads 1, dilation 2 in W, ceil_mode, with Indices (column-major)
model("maxpool_sym.onnx",
      helper.make_node("MaxPool", ["x"], ["y", "i"], name="mp", kernel_shape=[3, 3],
                       strides=[2, 2], pads=[1, 1, 1, 1], dilations=[1, 2], ceil_mode=1,
                       storage_order=1),
      [X], [Y, I], 12)
# AveragePool SAME_UPPER 3x3 stride 2, count_include_pad
model("avgpool_same_sym.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[3, 3],
                       strides=[2, 2], auto_pad="SAME_UPPER", count_include_pad=1),
      [X], [Y], 11)
# AveragePool without pads: the window must fit, H >= 3 and W >= 2 (checked at run time)
model("avgpool_valid_sym.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[3, 2]),
      [X], [Y], 11)
# LpPool p = 3, 1-D, pads 1
model("lppool_sym.onnx",
      helper.make_node("LpPool", ["x"], ["y"], name="lp", kernel_shape=[2], p=3, pads=[1, 0]),
      [vi("x", ["N", "C", "L"])], [Y], 11)
model("globalavgpool_sym.onnx",
      helper.make_node("GlobalAveragePool", ["x"], ["y"], name="gap"), [X], [Y], 1)

# --- one broken rule each
X5 = vi("x", [1, 1, 5, 5])
model("bad_auto_pad.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2], auto_pad="SAME"),
      [X5], [Y], 12)
model("bad_no_kernel.onnx", helper.make_node("AveragePool", ["x"], ["y"], name="ap"),
      [X5], [Y], 11)
model("bad_kernel_len.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2]), [X5], [Y], 12)
model("bad_window.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[7, 2]), [X5], [Y], 12)
model("bad_count_include_pad.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[2, 2],
                       count_include_pad=2), [X5], [Y], 11)
model("bad_strides.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2], strides=[1, 0]),
      [X5], [Y], 12)
model("bad_avg_int.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[2, 2]),
      [vi("x", [1, 1, 5, 5], TensorProto.INT32)], [Y], 11)
