#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_spatial.c compiles.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/spatial/make_spatial.py

The good models have symbolic dims (dim_param); the bad_*.onnx models break one rule each.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402

D, I32, I64 = TensorProto.DOUBLE, TensorProto.INT32, TensorProto.INT64


def model(name, node, inputs, outputs, opset, inits=()):
    gen_util.write_model(HERE, name, node, inputs, outputs, inits, opset, "onnx2c-make_spatial")


# Det on double [B, M, M]: y [B]
model("det_sym.onnx", helper.make_node("Det", ["x"], ["y"], name="det"),
      [vi("x", ["B", "M", "M"], D)], [vi("y", ["B"], D)], 11)

# ReverseSequence on int32 [T, B, 2], time_axis 0, batch_axis 1
model("revseq_sym.onnx",
      helper.make_node("ReverseSequence", ["x", "lens"], ["y"], name="rs", time_axis=0,
                       batch_axis=1),
      [vi("x", ["T", "B", 2], I32), vi("lens", ["B"], I64)], [vi("y", ["T", "B", 2], I32)], 10)

# MaxUnpool 1-D with output_shape an initializer [N, C, 7] (one more than the unpooled 6)
model("maxunpool_const_shape.onnx",
      helper.make_node("MaxUnpool", ["x", "i", "os"], ["y"], name="mu", kernel_shape=[2],
                       strides=[2]),
      [vi("x", [1, 2, 3]), vi("i", [1, 2, 3], I64)], [vi("y", None)], 11,
      [numpy_helper.from_array(np.array([1, 2, 7], dtype=np.int64), "os")])

# RoiAlign opset 10 (no pixel shift), max mode, adaptive sampling, on symbolic N, C, H, W, R
model("roialign_max10.onnx",
      helper.make_node("RoiAlign", ["x", "rois", "bi"], ["y"], name="ra", mode="max",
                       output_height=2, output_width=2, spatial_scale=0.5),
      [vi("x", ["N", "C", "H", "W"]), vi("rois", ["R", 4]), vi("bi", ["R"], I64)],
      [vi("y", ["R", "C", 2, 2])], 10)

# bad: GridSample on a 5-D input
model("bad_gridsample_5d.onnx",
      helper.make_node("GridSample", ["x", "g"], ["y"], name="gs"),
      [vi("x", [1, 1, 2, 2, 2]), vi("g", [1, 2, 2, 2, 3])], [vi("y", None)], 16)

# bad: Det of a 2 x 3 matrix
model("bad_det_nonsquare.onnx", helper.make_node("Det", ["x"], ["y"], name="det"),
      [vi("x", [2, 3])], [vi("y", None)], 11)

# bad: MaxUnpool with a runtime output_shape and no declared output shape
model("bad_maxunpool_rt_shape.onnx",
      helper.make_node("MaxUnpool", ["x", "i", "os"], ["y"], name="mu", kernel_shape=[2, 2],
                       strides=[2, 2]),
      [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], I64), vi("os", [4], I64)],
      [vi("y", None)], 11)

# bad: GridSample with an unknown mode
model("bad_gridsample_mode.onnx",
      helper.make_node("GridSample", ["x", "g"], ["y"], name="gs", mode="trilinear"),
      [vi("x", [1, 1, 2, 2]), vi("g", [1, 2, 2, 2])], [vi("y", None)], 16)
