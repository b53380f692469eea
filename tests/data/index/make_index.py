#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_index_errors.c runs with hostile index data.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/index/make_index.py

Every model has one node whose runtime data is used as an index, a count or a coordinate
(Gather's indices, a Slice's starts, a Pad's pads...).  The test feeds each one valid data
(checked against a reference) and hostile data (out of range, INT64_MIN, INT64_MAX, NaN...):
NAME_run must give -7 where ONNX calls it an error, -4 where it contradicts the declared output
shape, the defined result otherwise, and never read or write outside a buffer.  Where the
output's shape depends on the data (OneHot's depth, TopK's K, Range, Slice, Pad, Tile, Resize)
the graph output declares it.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import const, vi  # noqa: E402

F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


def model(name, node, inputs, outputs, opset, inits=()):
    gen_util.write_model(HERE, name, node, inputs, outputs, inits, opset, "onnx2c-make_index")


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=op.lower(), **attrs)


# ---- gathers and scatters: ONNX calls an index outside [-s, s) an error (-7)
# an embedding lookup: rows of data [N, 3] (inner copy, no outer loop); N = 0 has no valid index
model("gather_rows.onnx", node("Gather", ["d", "i"], ["y"], axis=0),
      [vi("d", ["N", 3]), vi("i", ["K"], I64)], [vi("y", None)], 13)
# int32 indices [2, 2] along the middle axis of [2, N, 2] (outer and inner loops)
model("gather_mid_i32.onnx", node("Gather", ["d", "i"], ["y"], axis=1),
      [vi("d", [2, "N", 2], I64), vi("i", [2, 2], I32)], [vi("y", None)], 13)
# the last axis (one element per index)
model("gather_last.onnx", node("Gather", ["d", "i"], ["y"], axis=-1),
      [vi("d", [2, "N"]), vi("i", ["K"], I64)], [vi("y", None)], 13)
model("gatherelements.onnx", node("GatherElements", ["d", "i"], ["y"], axis=1),
      [vi("d", [2, 3]), vi("i", [2, 2], I64)], [vi("y", None)], 13)
model("gathernd.onnx", node("GatherND", ["d", "i"], ["y"]),
      [vi("d", [2, 3]), vi("i", [3, 2], I64)], [vi("y", None)], 13)
model("gathernd_batch.onnx", node("GatherND", ["d", "i"], ["y"], batch_dims=1),
      [vi("d", [2, 3]), vi("i", [2, 1], I64)], [vi("y", None)], 13)
model("scatterelements.onnx",
      node("ScatterElements", ["d", "i", "u"], ["y"], axis=0, reduction="add"),
      [vi("d", [3, 2]), vi("i", [2, 2], I64), vi("u", [2, 2])], [vi("y", None)], 16)
# Scatter (opset 9-10), int32 indices
model("scatter10.onnx", node("Scatter", ["d", "i", "u"], ["y"], axis=1),
      [vi("d", [2, 3]), vi("i", [2, 1], I32), vi("u", [2, 1])], [vi("y", None)], 10)
model("scatternd.onnx", node("ScatterND", ["d", "i", "u"], ["y"]),
      [vi("d", [4, 2]), vi("i", [2, 1], I64), vi("u", [2, 2])], [vi("y", None)], 13)

# ---- OneHot: out-of-range indices give rows of `off` (defined); a runtime depth must give
# the declared dim (-4), whatever float it holds
model("onehot_rt.onnx", node("OneHot", ["i", "depth", "v"], ["y"]),
      [vi("i", [4], I64), vi("depth", []), vi("v", [2])], [vi("y", [4, 3])], 11)
# TopK with a runtime K: the declared dim (-4 for any other int64)
model("topk_rt.onnx", node("TopK", ["x", "k"], ["v", "i"]),
      [vi("x", [5]), vi("k", [1], I64)], [vi("v", [2]), vi("i", [2], I64)], 11)

# ---- spatial: a MaxUnpool index outside the unpooled tensor, a RoiAlign batch index outside
# [0, N) are -7; GridSample's float coordinates are any value
model("maxunpool.onnx",
      node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
      [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], I64)], [vi("y", None)], 11)
model("roialign.onnx",
      node("RoiAlign", ["x", "rois", "b"], ["y"], output_height=2, output_width=2,
           sampling_ratio=2),
      [vi("x", [2, 1, 4, 4]), vi("rois", [1, 4]), vi("b", [1], I64)], [vi("y", None)], 16)
for mode, pad, align in (("bilinear", "zeros", 0), ("nearest", "border", 0),
                         ("bicubic", "reflection", 1)):
    model("gridsample_%s.onnx" % mode,
          node("GridSample", ["x", "g"], ["y"], mode=mode, padding_mode=pad,
               align_corners=align),
          [vi("x", [1, 1, 3, 3]), vi("g", [1, 2, 3, 2])], [vi("y", None)], 16)

# ---- a per-axis scale and zero point of symbolic lengths S and Z: 1 or the axis C at run time
# (-4 otherwise: an element would be read past their end)
model("dequant_axis.onnx", node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=1),
      [vi("x", [2, "C"], TensorProto.UINT8), vi("s", ["S"]), vi("z", ["Z"], TensorProto.UINT8)],
      [vi("y", None)], 13)

# ---- axes, lengths and offsets read at run time
model("cumsum.onnx", node("CumSum", ["x", "a"], ["y"]),
      [vi("x", [2, 3]), vi("a", [], I64)], [vi("y", None)], 14)
model("revseq.onnx",
      node("ReverseSequence", ["x", "l"], ["y"], time_axis=0, batch_axis=1),
      [vi("x", [4, 2]), vi("l", [2], I64)], [vi("y", None)], 10)
model("trilu_upper.onnx", node("Trilu", ["x", "k"], ["y"]),
      [vi("x", [3, 3]), vi("k", [], I64)], [vi("y", None)], 14)
model("trilu_lower.onnx", node("Trilu", ["x", "k"], ["y"], upper=0),
      [vi("x", [3, 3]), vi("k", [], I64)], [vi("y", None)], 14)
# targets outside [0, C) other than ignore_index are an error (-7)
model("nll.onnx",
      node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"], reduction="none", ignore_index=-100),
      [vi("x", [2, 3]), vi("t", [2], I64)], [vi("y", None)], 13)
# with the log_prob output, written before the loss: untouched on -7 too
model("sce.onnx",
      node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y", "lp"], reduction="sum"),
      [vi("x", [2, 3]), vi("t", [2], I32)], [vi("y", None), vi("lp", None)], 13)

# ---- shapes from data: near-INT64 values must not overflow in the generated checks (-4)
model("range_rt.onnx", node("Range", ["s", "l", "d"], ["y"]),
      [vi("s", [], I64), vi("l", [], I64), vi("d", [], I64)], [vi("y", [4], I64)], 11)
model("slice_rt.onnx", node("Slice", ["x", "s", "e", "a", "t"], ["y"]),
      [vi("x", [5]), vi("s", [1], I64), vi("e", [1], I64), vi("a", [1], I64),
       vi("t", [1], I64)], [vi("y", [2])], 13)
for mode in ("constant", "edge"):
    model("pad_%s_rt.onnx" % mode, node("Pad", ["x", "p", "v"], ["y"], mode=mode),
          [vi("x", [3]), vi("p", [2], I64)], [vi("y", [5])], 13,
          [const("v", np.array(9.0, dtype=np.float32))])
model("tile_rt.onnx", node("Tile", ["x", "r"], ["y"]),
      [vi("x", [2]), vi("r", [1], I64)], [vi("y", [6])], 13)
model("resize_scales_rt.onnx", node("Resize", ["x", "", "s"], ["y"], mode="nearest"),
      [vi("x", [1, 1, 2, 2]), vi("s", [4])], [vi("y", [1, 1, 4, 4])], 13)
model("resize_crop_rt.onnx",
      node("Resize", ["x", "roi", "", "sz"], ["y"], mode="linear",
           coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-1.0),
      [vi("x", [1, 1, 4, 4]), vi("roi", [8])], [vi("y", [1, 1, 2, 2])], 13,
      [const("sz", np.array([1, 1, 2, 2], dtype=np.int64))])
