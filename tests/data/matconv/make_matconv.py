#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_matconv.c compiles.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/matconv/make_matconv.py

The good models have symbolic dims (dim_param) so the tests check the output-shape rules as
Sym arithmetic through the generated NAME_output_shape / NAME_check, and run the kernels
against a direct loop written in the test.  Weights are deterministic (no random numbers).
The bad_*.onnx models break one rule each.
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

model = functools.partial(gen_util.write_model, HERE, producer="onnx2c-make_matconv")


def weights(name, shape, scale=0.1):
    """w[i] = scale * ((i * 7) % 11 - 5): the test computes the same values."""
    n = int(np.prod(shape))
    w = (scale * ((np.arange(n) * 7) % 11 - 5)).astype(np.float32).reshape(shape)
    return numpy_helper.from_array(w, name)


Y = vi("y", None)

# Conv 2-D, constant weight [4, 3, 3, 2], bias, asymmetric pads (top 1, left 0, bottom 2,
# right 1), strides (2, 1), dilations (1, 2), on x[N, 3, H, W]:
#   OH = (H + 3 - 3) / 2 + 1,  OW = (W + 1 - 3) / 1 + 1
model("conv_sym.onnx",
      helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", pads=[1, 0, 2, 1],
                       strides=[2, 1], dilations=[1, 2]),
      [vi("x", ["N", 3, "H", "W"])], [Y], [weights("w", [4, 3, 3, 2]), weights("b", [4], 1.0)])
# Conv SAME_LOWER, stride 2, 3x3, group 2 (C = 4, M = 6): OH = ceil(H / 2)
model("conv_same_sym.onnx",
      helper.make_node("Conv", ["x", "w"], ["y"], name="conv", auto_pad="SAME_LOWER",
                       strides=[2, 2], group=2),
      [vi("x", ["N", 4, "H", "W"])], [Y], [weights("w", [6, 2, 3, 3])])
# Correlation: the weight is a runtime input with symbolic channels and kernel dims
model("corr_sym.onnx",
      helper.make_node("Conv", ["x", "z"], ["y"], name="corr"),
      [vi("x", [1, "C", "H", "W"]), vi("z", ["M", "C", "KH", "KW"])], [Y])
# ConvTranspose 2-D, stride 2, pads 1, output_padding 1, dilation (1, 2), group 2, bias
model("convt_sym.onnx",
      helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="convt", strides=[2, 2],
                       pads=[1, 0, 1, 1], output_padding=[1, 0], dilations=[1, 2], group=2),
      [vi("x", ["N", 4, "H", "W"])], [Y], [weights("w", [4, 3, 3, 2]), weights("b", [6], 1.0)])
# MatMul with batch broadcast: a[B, 1, M, K] x b[S, K, N] -> [B, S, M, N]
model("matmul_bcast_sym.onnx",
      helper.make_node("MatMul", ["a", "b"], ["y"], name="mm"),
      [vi("a", ["B", 1, "M", 5]), vi("b", ["S", 5, "N"])], [Y])

# --- one broken rule each
model("bad_weight_rank.onnx", helper.make_node("Conv", ["x", "w"], ["y"], name="conv"),
      [vi("x", ["N", 3, "H", "W"])], [Y], [weights("w", [4, 3, 3])])
model("bad_channels.onnx", helper.make_node("Conv", ["x", "w"], ["y"], name="conv", group=2),
      [vi("x", ["N", 3, "H", "W"])], [Y], [weights("w", [4, 3, 3, 3])])
model("bad_kernel_fits.onnx", helper.make_node("Conv", ["x", "w"], ["y"], name="conv"),
      [vi("x", [1, 1, 2, 8])], [Y], [weights("w", [1, 1, 3, 3])])
model("bad_strides.onnx",
      helper.make_node("Conv", ["x", "w"], ["y"], name="conv", strides=[1, 1, 1]),
      [vi("x", ["N", 1, "H", "W"])], [Y], [weights("w", [1, 1, 3, 3])])
model("bad_matmul_k.onnx", helper.make_node("MatMul", ["a", "b"], ["y"], name="mm"),
      [vi("a", [2, 3]), vi("b", [4, 5])], [Y])
model("bad_gemm_c.onnx", helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm"),
      [vi("a", [2, 3]), vi("b", [3, 4]), vi("c", [3, 4])], [Y])
