#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_misc.c compiles.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/misc/make_misc.py

The good models have symbolic dims (dim_param) and, for OneHot and TopK, the depth / k as
initializers (the backend node tests give them as runtime inputs, which cannot decide a dim).
The bad_*.onnx models break one rule each.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import const, vi  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(name, nodes, inputs, outputs, opset, inits=()):
    gen_util.write_model(HERE, name, nodes, inputs, outputs, inits, opset, "onnx2c-make_misc")


# OneHot: indices [N] (int64), depth 4 (float initializer), values [off, on]; axis 0
model("onehot_sym.onnx",
      helper.make_node("OneHot", ["i", "depth", "v"], ["y"], name="oh", axis=0),
      [vi("i", ["N"], I64), vi("v", [2])], [vi("y", None)], 11,
      [const("depth", np.array(4.0, dtype=np.float32))])
# TopK: x [B, N], k = 3 (initializer), smallest
model("topk_sym.onnx",
      helper.make_node("TopK", ["x", "k"], ["v", "i"], name="tk", axis=1, largest=0),
      [vi("x", ["B", "N"])], [vi("v", None), vi("i", None, I64)], 11,
      [const("k", np.array([3], dtype=np.int64))])
# TopK with k = the size of axis 1 (Shape -> Gather -> Unsqueeze: a symbolic known k), the
# export of torch.sort / argsort along a dynamic axis
model("topk_symk.onnx",
      [helper.make_node("Shape", ["x"], ["s"]),
       helper.make_node("Gather", ["s", "one"], ["n"], axis=0),
       helper.make_node("Unsqueeze", ["n", "zero"], ["k"]),
       helper.make_node("TopK", ["x", "k"], ["v", "i"], name="tk", axis=1)],
      [vi("x", ["B", "N"])], [vi("v", None), vi("i", None, I64)], 13,
      [const("one", np.array(1, dtype=np.int64)), const("zero", np.array([0], dtype=np.int64))])
# Trilu upper with a runtime k on [B, R, C]
model("trilu_sym.onnx",
      helper.make_node("Trilu", ["x", "k"], ["y"], name="tr"),
      [vi("x", ["B", "R", "C"]), vi("k", [], I64)], [vi("y", None)], 14)
# Einsum batch matmul with symbolic dims
model("einsum_sym.onnx",
      helper.make_node("Einsum", ["a", "b"], ["y"], name="es", equation="bij,bjk->bik"),
      [vi("a", ["B", "I", "J"]), vi("b", ["B", "J", "K"])], [vi("y", None)], 12)
# NegativeLogLikelihoodLoss, mean with weights and ignore_index, x [N, C, D]
model("nll_sym.onnx",
      helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["y"], name="nll",
                       reduction="mean", ignore_index=1),
      [vi("x", ["N", "C", "D"]), vi("t", ["N", "D"], I64), vi("w", ["C"])], [vi("y", None)], 13)

# errors
model("bad_onehot_depth.onnx",
      helper.make_node("OneHot", ["i", "depth", "v"], ["y"], name="oh"),
      [vi("i", [3], I64), vi("depth", [], F), vi("v", [2])], [vi("y", None)], 11)
model("bad_einsum_label.onnx",
      helper.make_node("Einsum", ["a", "b"], ["y"], name="es", equation="ij,jk->il"),
      [vi("a", [2, 3]), vi("b", [3, 4])], [vi("y", None)], 12)
model("bad_einsum_size.onnx",
      helper.make_node("Einsum", ["a", "b"], ["y"], name="es", equation="ij,jk->ik"),
      [vi("a", [2, 3]), vi("b", [5, 4])], [vi("y", None)], 12)
model("bad_nll_reduction.onnx",
      helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"], name="nll",
                       reduction="avg"),
      [vi("x", [3, 5]), vi("t", [3], I64)], [vi("y", None)], 13)
model("bad_nll_target.onnx",
      helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"], name="nll"),
      [vi("x", [3, 5, 2]), vi("t", [3, 4], I64)], [vi("y", None)], 13)
model("bad_gathernd_batch.onnx",
      helper.make_node("GatherND", ["d", "i"], ["y"], name="gn", batch_dims=2),
      [vi("d", [2, 2]), vi("i", [2, 1], I64)], [vi("y", None)], 13)
model("bad_topk_k.onnx",
      helper.make_node("TopK", ["x", "k"], ["v", "i"], name="tk"),
      [vi("x", [3, 4])], [vi("v", None), vi("i", None, I64)], 11,
      [const("k", np.array([5], dtype=np.int64))])
