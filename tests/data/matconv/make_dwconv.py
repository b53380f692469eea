#!/usr/bin/python3
"""Depthwise Conv cases (templates/conv_dw.c) at several symbolic sizes, with PyTorch's outputs.

Run with Debian's python3-onnx, python3-torch (outputs are committed; the tests never need
Python):

    /usr/bin/python3 tests/data/matconv/make_dwconv.py

Each case is one depthwise Conv (group = channels, one output channel per group; constant
weight and bias) with symbolic N, H, W, optionally followed by the ops the compiler fuses into
it (Clip as ReLU6, Add of a residual, Relu), in tests/data/matconv/dw/<name>/: model.onnx and
test_data_set_K at the sizes listed, so one generated C file runs every size.  Geometries cover
the fast 3-wide path (3x3, 1x3, 2x3 kernels; strides 1, 2, 3; pads 0, 1, asymmetric; images
narrower than the kernel) and the generic per-tap path (5x5, dilated, 3x1, 7x7), and 1-D.
"""
import os
import shutil
import zlib

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dw")
FL = TensorProto.FLOAT


def case(name, C, k, strides, pads, dil=None, post=None, sizes=((1, 9, 11),), one_d=False):
    """pads: ONNX order (begin..., end...); post: None, 'relu6', 'res_relu'."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    sp = 1 if one_d else 2
    dil = dil or [1] * sp
    w = rng.uniform(-1, 1, (C, 1) + tuple(k)).astype(np.float32)
    b = rng.uniform(-1, 1, (C,)).astype(np.float32)
    xshape = ["N", C, "W"] if one_d else ["N", C, "H", "W"]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c" if post else "y"], name="dw",
                              group=C, kernel_shape=list(k), strides=list(strides),
                              pads=list(pads), dilations=list(dil))]
    inputs = [helper.make_tensor_value_info("x", FL, xshape)]
    if post == "relu6":
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"], name="relu6"))
    elif post == "res_relu":
        inputs.append(helper.make_tensor_value_info("r", FL, ["N", C, "H", "W"]))
        nodes.append(helper.make_node("Add", ["c", "r"], ["s"], name="res"))
        nodes.append(helper.make_node("Relu", ["s"], ["y"], name="relu"))
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    if post == "relu6":
        inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                  numpy_helper.from_array(np.array(6, np.float32), "hi")]
    g = helper.make_graph(nodes, name, inputs,
                          [helper.make_tensor_value_info("y", FL, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnx2c-make_dwconv")
    m.ir_version = 8
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for i, size in enumerate(sizes):
        if one_d:
            n, wd = size
            x = rng.uniform(-3, 3, (n, C, wd)).astype(np.float32)
            xt = torch.from_numpy(x)
            y = F.conv1d(F.pad(xt, (pads[0], pads[1])), torch.from_numpy(w), torch.from_numpy(b),
                         stride=strides[0], dilation=dil[0], groups=C)
        else:
            n, h, wd = size
            x = rng.uniform(-3, 3, (n, C, h, wd)).astype(np.float32)
            xt = torch.from_numpy(x)
            # ONNX pads: (top, left, bottom, right); F.pad: (left, right, top, bottom)
            xp = F.pad(xt, (pads[1], pads[3], pads[0], pads[2]))
            y = F.conv2d(xp, torch.from_numpy(w), torch.from_numpy(b), stride=tuple(strides),
                         dilation=tuple(dil), groups=C)
        feeds = [x]
        if post == "relu6":
            y = torch.clamp(y, 0, 6)
        elif post == "res_relu":
            r = rng.uniform(-1, 1, tuple(y.shape)).astype(np.float32)
            y = torch.relu(y + torch.from_numpy(r))
            feeds.append(r)
        sd = os.path.join(d, "test_data_set_%d" % i)
        os.makedirs(sd, exist_ok=True)
        for j, a in enumerate(feeds):
            with open(os.path.join(sd, "input_%d.pb" % j), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())
        with open(os.path.join(sd, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y.numpy().astype(np.float32)).SerializeToString())


if os.path.isdir(HERE):
    shutil.rmtree(HERE)
SIZES = ((1, 9, 11), (2, 14, 14), (1, 1, 1), (1, 2, 3), (1, 7, 40))
# the 3-wide fast path
case("k3_s1_p1_relu6", 5, (3, 3), (1, 1), (1, 1, 1, 1), post="relu6", sizes=SIZES)
case("k3_s2_p1_relu6", 5, (3, 3), (2, 2), (1, 1, 1, 1), post="relu6", sizes=SIZES)
case("k3_s1_p0", 3, (3, 3), (1, 1), (0, 0, 0, 0), sizes=((1, 3, 3), (1, 5, 17), (2, 9, 4)))
case("k3_s2_p0_asym", 4, (3, 3), (2, 1), (0, 1, 2, 0), sizes=SIZES[:2] + ((1, 1, 2),))
case("k3_s3_p1", 3, (3, 3), (3, 3), (1, 1, 1, 1), sizes=SIZES)
case("k3_s1_p1_res_relu", 6, (3, 3), (1, 1), (1, 1, 1, 1), post="res_relu", sizes=SIZES)
case("k3_dil2x1", 3, (3, 3), (1, 1), (2, 1, 2, 1), dil=(2, 1), sizes=SIZES)
case("k1x3_p01", 4, (1, 3), (1, 1), (0, 1, 0, 1), sizes=SIZES)
case("k2x3_s2", 4, (2, 3), (2, 2), (1, 1, 0, 1), sizes=SIZES)
case("k3_p2", 3, (3, 3), (1, 1), (2, 2, 2, 2), sizes=SIZES)
# the generic per-tap path
case("k5_s1_p2", 4, (5, 5), (1, 1), (2, 2, 2, 2), post="relu6", sizes=SIZES)
case("k3_dil2_p2", 3, (3, 3), (1, 1), (2, 2, 2, 2), dil=(2, 2), sizes=SIZES)
case("k3x1_s2", 3, (3, 1), (2, 2), (1, 0, 1, 0), sizes=SIZES)
case("k7_s2_p3", 2, (7, 7), (2, 2), (3, 3, 3, 3), sizes=SIZES)
# 1-D
case("conv1d_k3_p1", 4, (3,), (1,), (1, 1), sizes=((1, 9), (2, 1), (1, 33)), one_d=True)
case("conv1d_k5_s2", 4, (5,), (2,), (2, 2), sizes=((1, 9), (2, 1), (1, 33)), one_d=True)
