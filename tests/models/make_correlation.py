"""Correlation test cases: a Conv whose weight (the template of a Siamese tracker) is a runtime
input with symbolic shape.  PyTorch cannot export these (its exporter needs a constant weight
shape), so the graphs are built with onnx.helper and the reference outputs computed with
torch.nn.functional.conv2d.

    /usr/bin/python3 tests/models/make_correlation.py

Writes tests/models/corr_*/ in the backend-test layout, each with several data sets of
different template and search sizes, all served by one generated C file:
  corr_xcorr      X[N,C,H,W] (*) Z[1,C,KH,KW] -> [N,1,H-KH+1,W-KW+1]; every dim symbolic
  corr_xcorr_pad  the same with pads 1 and stride 2
  corr_depthwise  SiamRPN++'s depthwise cross-correlation: group = 8 channels,
                  X[1,8,H,W] (*) Z[8,1,KH,KW] -> [1,8,...]; kernel and image dims symbolic
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "data"))
import gen_util  # noqa: E402


def write(case, model, sets):
    d = os.path.join(HERE, case)
    onnx.checker.check_model(model)
    gen_util.write_case(d, model, sets)
    print("wrote", d)


def conv_model(name, xshape, zshape, yshape, **attrs):
    x = helper.make_tensor_value_info("search", TensorProto.FLOAT, xshape)
    z = helper.make_tensor_value_info("template", TensorProto.FLOAT, zshape)
    y = helper.make_tensor_value_info("response", TensorProto.FLOAT, yshape)
    node = helper.make_node("Conv", ["search", "template"], ["response"], name="xcorr", **attrs)
    graph = helper.make_graph([node], name, [x, z], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def ref(x, z, **kw):
    return torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(z), **kw).numpy()


rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# plain cross-correlation: every dim of both inputs symbolic
sets = []
for n, c, h, w, kh, kw in [(1, 8, 22, 22, 6, 6), (2, 4, 16, 12, 3, 3), (1, 2, 9, 13, 4, 2)]:
    x, z = rand(n, c, h, w), rand(1, c, kh, kw)
    sets.append(([x, z], [ref(x, z)]))
write("corr_xcorr",
      conv_model("xcorr", ["N", "C", "H", "W"], [1, "C", "KH", "KW"], ["N", 1, "OH", "OW"]), sets)

# with padding and stride
sets = []
for n, c, h, w, kh, kw in [(1, 8, 22, 22, 6, 6), (1, 3, 11, 8, 3, 5)]:
    x, z = rand(n, c, h, w), rand(1, c, kh, kw)
    sets.append(([x, z], [ref(x, z, padding=1, stride=2)]))
write("corr_xcorr_pad",
      conv_model("xcorr_pad", ["N", "C", "H", "W"], [1, "C", "KH", "KW"], ["N", 1, "OH", "OW"],
                 pads=[1, 1, 1, 1], strides=[2, 2]), sets)

# depthwise: one template channel per search channel (group = channels)
sets = []
for h, w, kh, kw in [(22, 22, 6, 6), (13, 17, 5, 3)]:
    x, z = rand(1, 8, h, w), rand(8, 1, kh, kw)
    sets.append(([x, z], [ref(x, z, groups=8)]))
write("corr_depthwise",
      conv_model("depthwise_xcorr", [1, 8, "H", "W"], [8, 1, "KH", "KW"], [1, 8, "OH", "OW"], group=8),
      sets)
