#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_signal.c compiles.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/signal/make_signal.py

The good models have symbolic dims (dim_param) and give the shape-deciding scalars as
initializers or shape arithmetic (the backend node tests give them as runtime inputs with a
declared output shape).  The bad_*.onnx models break one rule each.
"""
import functools
import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import const, vi  # noqa: E402

I64 = TensorProto.INT64
model = functools.partial(gen_util.write_model, HERE, opset=17, producer="onnx2c-make_signal")


# BlackmanWindow whose size is the length N of x (Shape: a known symbolic size) -> y [N]
model("window_sym.onnx",
      [helper.make_node("Shape", ["x"], ["n"]),
       helper.make_node("BlackmanWindow", ["n"], ["y"], periodic=0)],
      [vi("x", ["N"])], [vi("y", ["N"])])

# HannWindow of constant size 6 as double: folded into a constant, then added to x [6]
model("window_const.onnx",
      [helper.make_node("HannWindow", ["n"], ["w"], output_datatype=TensorProto.DOUBLE),
       helper.make_node("Add", ["x", "w"], ["y"])],
      [vi("x", [6], TensorProto.DOUBLE)], [vi("y", [6], TensorProto.DOUBLE)],
      [const("n", np.int64(6))])

# DFT of complex x [B, N, 2] along axis 1 with dft_length 8 (initializer): y [B, 8, 2]
model("dft_len.onnx",
      [helper.make_node("DFT", ["x", "len"], ["y"], axis=1)],
      [vi("x", ["B", "N", 2])], [vi("y", ["B", 8, 2])],
      [const("len", np.int64(8))])

# onesided inverse DFT of real x [B, N, 1] along axis -2 (= 1): y [B, N / 2 + 1, 2]
model("dft_onesided.onnx",
      [helper.make_node("DFT", ["x"], ["y"], axis=-2, onesided=1, inverse=1)],
      [vi("x", ["B", "N", 1])], [vi("y", ["B", "K", 2])])

# STFT of x [B, L, 1], frame_step 3, Hann window of length 8: y [B, (L - 8) / 3 + 1, 5, 2]
model("stft_sym.onnx",
      [helper.make_node("HannWindow", ["wl"], ["w"]),
       helper.make_node("STFT", ["x", "step", "w", "fl"], ["y"])],
      [vi("x", ["B", "L", 1])], [vi("y", ["B", "F", 5, 2])],
      [const("wl", np.int64(8)), const("step", np.int64(3)), const("fl", np.int64(8))])

# MelWeightMatrix with the backend test's values as initializers: y [9, 8]
model("mel_const.onnx",
      [helper.make_node("MelWeightMatrix", ["nm", "dl", "sr", "lo", "hi"], ["y"])],
      [], [vi("y", [9, 8])],
      [const("nm", np.int32(8)), const("dl", np.int32(16)), const("sr", np.int32(8192)),
       const("lo", np.float32(0)), const("hi", np.float32(4096))])

# runtime window size and no declared output shape
model("bad_window_size.onnx",
      [helper.make_node("HannWindow", ["n"], ["y"])],
      [vi("n", [], I64)], [vi("y", None)])

# DFT axis 2 of a rank-3 input is the complex axis
model("bad_dft_axis.onnx",
      [helper.make_node("DFT", ["x"], ["y"], axis=2)],
      [vi("x", [1, 4, 1])], [vi("y", None)])

# STFT with neither a window nor a frame_length
model("bad_stft_length.onnx",
      [helper.make_node("STFT", ["x", "step"], ["y"])],
      [vi("x", [1, 16, 1])], [vi("y", None)],
      [const("step", np.int64(4))])

# DFT of a signal whose last dim is 3
model("bad_dft_complex.onnx",
      [helper.make_node("DFT", ["x"], ["y"], axis=1)],
      [vi("x", [1, 4, 3])], [vi("y", None)])
