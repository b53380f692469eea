#!/usr/bin/python3
"""Squeeze-excitation cases: a depthwise Conv (its activation fused) whose output goes to a
GlobalAveragePool and to the Mul by the block's scale, as in MobileNetV3 and EfficientNet.  The
compiler fuses the pool into the Conv (compiler/lower.c: each channel's mean taken by the
depthwise kernel as it finishes the channel), in every depthwise kernel:
  se_dwc_5x5     static 1 x 40 x 14 x 14, 5x5: the channels-in-lanes kernel (templates/conv_dwc.c)
                 on cores with vectors; HardSwish; the pool's output also a graph output
  se_dw3_s2      symbolic N, H, W, 3x3 stride 2: the row kernel (templates/conv_dw.c); ReLU6
  se_dwp_5x5     symbolic N, H, W, 5x5: the phase-plane kernel (templates/conv_dwp.c) on cores
                 with vectors; HardSwish; 36 channels (a last, partial block of lanes elsewhere)
Then fc1 (1x1, C -> C / 4, Relu), fc2 (1x1, back to C), HardSigmoid and the Mul (a call of
templates/ew_scale.c; se_dwp_5x5's 36 x 44 x 44, over 2^16 elements, on the threads).

Run with Debian's python3-onnx, python3-torch (outputs are committed; the tests never need
Python):

    /usr/bin/python3 tests/data/matconv/se/make_se.py
"""
import os
import sys
import zlib

import numpy as np
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
import gen_util  # noqa: E402

FL = TensorProto.FLOAT


def se_case(name, C, k, stride, act, sizes, static=False, gap_out=False):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    p = k // 2
    wd = rng.uniform(-1, 1, (C, 1, k, k)).astype(np.float32)
    bd = rng.uniform(-1, 1, (C,)).astype(np.float32)
    S = max(C // 4, 1)
    w1 = rng.uniform(-1, 1, (S, C, 1, 1)).astype(np.float32)
    b1 = rng.uniform(-1, 1, (S,)).astype(np.float32)
    w2 = rng.uniform(-1, 1, (C, S, 1, 1)).astype(np.float32)
    b2 = rng.uniform(-1, 1, (C,)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "wd", "bd"], ["c"], name="dw", group=C,
                              kernel_shape=[k, k], strides=[stride, stride], pads=[p] * 4)]
    if act == "hswish":
        nodes += [helper.make_node("HardSigmoid", ["c"], ["h"], name="hsig", alpha=1 / 6,
                                   beta=0.5),
                  helper.make_node("Mul", ["c", "h"], ["d"], name="hswish")]
    else:
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["d"], name="relu6"))
    nodes += [helper.make_node("GlobalAveragePool", ["d"], ["g"], name="squeeze"),
              helper.make_node("Conv", ["g", "w1", "b1"], ["f1"], name="fc1", kernel_shape=[1, 1]),
              helper.make_node("Relu", ["f1"], ["r1"], name="relu"),
              helper.make_node("Conv", ["r1", "w2", "b2"], ["f2"], name="fc2", kernel_shape=[1, 1]),
              helper.make_node("HardSigmoid", ["f2"], ["s"], name="scale", alpha=1 / 6, beta=0.5),
              helper.make_node("Mul", ["s", "d"], ["y"], name="excite")]
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((wd, "wd"), (bd, "bd"), (w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))]
    inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
              numpy_helper.from_array(np.array(6, np.float32), "hi")]
    xshape = [sizes[0][0], C, sizes[0][1], sizes[0][2]] if static else ["N", C, "H", "W"]
    outs = [helper.make_tensor_value_info("y", FL, None)]
    if gap_out:
        outs.append(helper.make_tensor_value_info("g", FL, None))
    m = gen_util.make_model(name, nodes, [helper.make_tensor_value_info("x", FL, xshape)], outs,
                            inits, 13, "onnx2c-make_se")
    sets = []
    for n, h, w in sizes:
        x = rng.uniform(-3, 3, (n, C, h, w)).astype(np.float32)
        c = F.conv2d(torch.from_numpy(x), torch.from_numpy(wd), torch.from_numpy(bd),
                     stride=stride, padding=p, groups=C)
        d = c * torch.clamp(c / 6 + 0.5, 0, 1) if act == "hswish" else torch.clamp(c, 0, 6)
        g = d.mean(dim=(2, 3), keepdim=True)
        r1 = torch.relu(F.conv2d(g, torch.from_numpy(w1), torch.from_numpy(b1)))
        s = torch.clamp(F.conv2d(r1, torch.from_numpy(w2), torch.from_numpy(b2)) / 6 + 0.5, 0, 1)
        y = s * d
        res = [y.numpy().astype(np.float32)]
        if gap_out:
            res.append(g.numpy().astype(np.float32))
        sets.append(([x], res))
    gen_util.write_case(os.path.join(HERE, name), m, sets)


se_case("se_dwc_5x5", 40, 5, 1, "hswish", ((1, 14, 14),), static=True, gap_out=True)
se_case("se_dw3_s2", 24, 3, 2, "relu6", ((1, 9, 11), (2, 16, 16), (1, 1, 1)))
se_case("se_dwp_5x5", 36, 5, 1, "hswish", ((1, 9, 11), (2, 16, 16), (1, 7, 7), (1, 44, 44)))
