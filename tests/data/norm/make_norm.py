#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_norm.c feeds the compiler.

Run from anywhere with Debian's python3-onnx; the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/norm/make_norm.py

The parameters are deterministic (no random numbers) so that the C test can compute the
expected values itself.
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

model = functools.partial(gen_util.write_model, HERE, opset=17, producer="onnx2c-make_norm")


def init(name, a):
    return numpy_helper.from_array(np.asarray(a, np.float32), name)


# LayerNormalization over the last axis of [N, T, 8], every output present: shapes only.
model("layernorm_sym.onnx",
      [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "mean", "invstd"],
                        name="ln", axis=-1)],
      [vi("x", ["N", "T", 8])], [vi("y", None), vi("mean", None), vi("invstd", None)],
      [init("s", np.ones(8)), init("b", np.zeros(8))])

# LayerNormalization of [N, 2, 50] from axis 1 with a 100-element Scale (a weight big enough
# to be stored as bytes) and a B that broadcasts over the last axis only: run and compared.
model("layernorm_big.onnx",
      [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], name="ln", axis=1,
                        epsilon=1e-3)],
      [vi("x", ["N", 2, 50])], [vi("y", None)],
      [init("s", 0.5 + 0.01 * np.arange(100).reshape(2, 50)), init("b", 0.1 * np.arange(50))])

# Errors: an axis out of range; a Scale that is not a suffix of the normalized shape.
model("layernorm_bad_axis.onnx",
      [helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln", axis=3)],
      [vi("x", [3, 4])], [vi("y", None)], [init("s", np.ones(4))])
model("layernorm_bad_scale.onnx",
      [helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln", axis=1)],
      [vi("x", [2, 3, 4])], [vi("y", None)], [init("s", np.ones((3, 1)))])

# Softmax at opset 11: the input is coerced to 2-D at axis 1 ([N, 12] here): run and compared.
model("softmax_opset11.onnx",
      [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
      [vi("x", ["N", 3, 4])], [vi("y", None)], opset=11)

# BatchNormalization at opset 9 asked for its training outputs: unsupported.
model("batchnorm_opset9_training.onnx",
      [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                        ["y", "rm", "rv", "sm", "sv"], name="bn")],
      [vi("x", [2, 3, 4])],
      [vi("y", None), vi("rm", None), vi("rv", None), vi("sm", None), vi("sv", None)],
      [init(k, np.ones(3)) for k in "sbmv"], opset=9)

# LRN without its required size attribute.
model("lrn_no_size.onnx", [helper.make_node("LRN", ["x"], ["y"], name="lrn")],
      [vi("x", [1, 3, 4, 4])], [vi("y", None)], opset=13)
