#!/usr/bin/python3
"""Conv cases of the direct kernels, at several symbolic sizes, with PyTorch's outputs:
depthwise (templates/conv_dw.c) in dw/, stride 1 with few output channels per group
(templates/conv_wide.c) in wide/, 3x3 stride 1 by Winograd F(2x2, 3x3)
(templates/conv_wino.c) in wino/.

Run with Debian's python3-onnx, python3-torch (outputs are committed; the tests never need
Python):

    /usr/bin/python3 tests/data/matconv/make_direct_conv.py

Each case is one depthwise Conv (group = channels, one output channel per group; constant
weight and bias) with symbolic N, H, W, optionally followed by the ops the compiler fuses into
it (Clip as ReLU6, Add of a residual, Relu), in tests/data/matconv/dw/<name>/: model.onnx and
test_data_set_K at the sizes listed, so one generated C file runs every size.  Geometries cover
the fast 3-wide path (3x3, 1x3, 2x3 kernels; strides 1, 2, 3; pads 0, 1, asymmetric; images
narrower than the kernel), the generic per-tap path (5x5, dilated, 3x1, 7x7; templates/conv_dwp.c
on cores with vectors, which the gcc runs take: strides 1 to 3, dilation 2, asymmetric pads,
images of several 64-output steps) and 1-D.

wide/: Conv with 1 to 4 output channels per group, stride 1: pads (none, symmetric,
asymmetric, bottom/right only), dilation, groups with several input channels, 1-D, a fused
residual + Relu, images large enough for several bands, and the correlation form (the weight a
runtime input of symbolic shape).
"""
import os
import shutil
import sys
import zlib

import numpy as np
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(ROOT))
import gen_util  # noqa: E402

HERE = os.path.join(ROOT, "dw")
FL = TensorProto.FLOAT


def case(name, C, k, strides, pads, dil=None, post=None, sizes=((1, 9, 11),), one_d=False,
         M=None, group=None, out_dir=None, runtime_w=False, static=False):
    """pads: ONNX order (begin..., end...); post: None, 'relu6', 'res_relu', 'leaky' (LeakyRelu
    0.1), 'hsig' (HardSigmoid(0.2, 0.5)), 'hswish' (HardSwish
    as exporters write it before opset 14: HardSigmoid(1/6, 1/2) and Mul(c, h)), 'hswish_rev'
    (HardSigmoid(0.2, 0.4), Mul(h, c)), 'hswish_shared' (hswish, and c read by a Relu too: a
    second output z, no fusion).  Depthwise unless
    M (output channels) and group are given.  runtime_w: the weight is input 1 (no bias), of
    symbolic shape, given per size.  static: the input's shape is the (one) size given."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    sp = 1 if one_d else 2
    dil = dil or [1] * sp
    group = group or C
    M = M or C
    w = rng.uniform(-1, 1, (M, C // group) + tuple(k)).astype(np.float32)
    b = rng.uniform(-1, 1, (M,)).astype(np.float32)
    xshape = ["N", C, "W"] if one_d else ["N", C, "H", "W"]
    if static:
        assert len(sizes) == 1 and not one_d
        sz = sizes[0][1] if runtime_w else sizes[0]
        xshape = [sz[0], C, sz[1], sz[2]]
    attrs = dict(group=group, strides=list(strides), pads=list(pads), dilations=list(dil))
    if not runtime_w:
        attrs["kernel_shape"] = list(k)
    nodes = [helper.make_node("Conv", ["x", "w"] if runtime_w else ["x", "w", "b"],
                              ["c" if post else "y"], name="conv", **attrs)]
    inputs = [helper.make_tensor_value_info("x", FL, xshape)]
    if runtime_w:
        inputs.append(helper.make_tensor_value_info("w", FL, [M, C // group] + (
            list(sizes[0][0]) if static else ["KH", "KW"][2 - sp:])))
    if post == "relu6":
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"], name="relu6"))
    elif post == "leaky":
        nodes.append(helper.make_node("LeakyRelu", ["c"], ["y"], name="leaky", alpha=0.1))
    elif post == "hsig":
        nodes.append(helper.make_node("HardSigmoid", ["c"], ["y"], name="hsig", alpha=0.2, beta=0.5))
    elif post and post.startswith("hswish"):
        ha, hb = (0.2, 0.4) if post == "hswish_rev" else (1 / 6, 0.5)
        nodes.append(helper.make_node("HardSigmoid", ["c"], ["h"], name="hsig", alpha=ha, beta=hb))
        nodes.append(helper.make_node("Mul", ["h", "c"] if post == "hswish_rev" else ["c", "h"],
                                      ["y"], name="mul"))
        if post == "hswish_shared":
            nodes.append(helper.make_node("Relu", ["c"], ["z"], name="relu"))
    elif post == "res_relu":
        rshape = ["N", M, "OH", "OW"]
        if static:
            rshape = [sizes[0][0], M] + [
                (sizes[0][1 + a] + pads[a] + pads[2 + a] - dil[a] * (k[a] - 1) - 1) // strides[a]
                + 1 for a in range(2)]
        inputs.append(helper.make_tensor_value_info("r", FL, rshape))
        nodes.append(helper.make_node("Add", ["c", "r"], ["s"], name="res"))
        nodes.append(helper.make_node("Relu", ["s"], ["y"], name="relu"))
    inits = [] if runtime_w else [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    if post == "relu6":
        inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                  numpy_helper.from_array(np.array(6, np.float32), "hi")]
    outs = [helper.make_tensor_value_info("y", FL, None)]
    if post == "hswish_shared":
        outs.append(helper.make_tensor_value_info("z", FL, None))
    m = gen_util.make_model(name, nodes, inputs, outs, inits, 13, "onnx2c-make_dwconv")
    sets = []
    for size in sizes:
        if runtime_w:
            ks, size = size
            w = rng.uniform(-1, 1, (M, C // group) + tuple(ks)).astype(np.float32)
            b = np.zeros((M,), np.float32)
        if one_d:
            n, wd = size
            x = rng.uniform(-3, 3, (n, C, wd)).astype(np.float32)
            xt = torch.from_numpy(x)
            y = F.conv1d(F.pad(xt, (pads[0], pads[1])), torch.from_numpy(w), torch.from_numpy(b),
                         stride=strides[0], dilation=dil[0], groups=group)
        else:
            n, h, wd = size
            x = rng.uniform(-3, 3, (n, C, h, wd)).astype(np.float32)
            xt = torch.from_numpy(x)
            # ONNX pads: (top, left, bottom, right); F.pad: (left, right, top, bottom)
            xp = F.pad(xt, (pads[1], pads[3], pads[0], pads[2]))
            y = F.conv2d(xp, torch.from_numpy(w), torch.from_numpy(b), stride=tuple(strides),
                         dilation=tuple(dil), groups=group)
        feeds = [x, w] if runtime_w else [x]
        extra = []
        if post == "relu6":
            y = torch.clamp(y, 0, 6)
        elif post == "leaky":
            c = y.numpy().astype(np.float32)
            y = torch.from_numpy(np.where(c < 0, c * np.float32(0.1), c).astype(np.float32))
        elif post == "hsig":
            c = y.numpy().astype(np.float32)
            y = torch.from_numpy(np.clip(np.float32(0.2) * c + np.float32(0.5), 0, 1)
                                 .astype(np.float32))
        elif post and post.startswith("hswish"):
            c = y.numpy().astype(np.float32)
            h = np.clip(np.float32(ha) * c + np.float32(hb), 0, 1).astype(np.float32)
            y = torch.from_numpy(c * h)
            if post == "hswish_shared":
                extra = [np.maximum(c, 0)]
        elif post == "res_relu":
            r = rng.uniform(-1, 1, tuple(y.shape)).astype(np.float32)
            y = torch.relu(y + torch.from_numpy(r))
            feeds.append(r)
        sets.append((feeds, [y.numpy().astype(np.float32)] + extra))
    gen_util.write_case(os.path.join(out_dir or HERE, name), m, sets)


for sub in ("dw", "wide", "wino", "epi"):
    if os.path.isdir(os.path.join(ROOT, sub)):
        shutil.rmtree(os.path.join(ROOT, sub))
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
# rows of several 16-output vectors and a partial one (x86-64 with AVX-512: templates/v16_taps.c)
case("k3_s2_big_res_relu", 3, (3, 3), (2, 2), (1, 1, 1, 1), post="res_relu",
     sizes=((1, 70, 67), (1, 33, 50)))
case("k3_s1_big_relu6", 2, (3, 3), (1, 1), (1, 1, 1, 1), post="relu6", sizes=((1, 35, 83), (2, 6, 34)))
# the other activations in those vectors (HardSwish, LeakyRelu: the face detector's), and their
# border columns after them
case("k3_s1_big_hswish", 3, (3, 3), (1, 1), (1, 1, 1, 1), post="hswish",
     sizes=((1, 35, 83), (2, 6, 34), (1, 2, 17)))
case("k3_s2_big_leaky", 3, (3, 3), (2, 2), (1, 1, 1, 1), post="leaky",
     sizes=((1, 70, 67), (1, 33, 50), (1, 3, 36)))
case("k3_s2_big_hsig_rev", 2, (3, 3), (2, 2), (1, 1, 1, 1), post="hswish_rev",
     sizes=((1, 41, 80),))
# the generic per-tap path
case("k5_s1_p2", 4, (5, 5), (1, 1), (2, 2, 2, 2), post="relu6", sizes=SIZES)
case("k3_dil2_p2", 3, (3, 3), (1, 1), (2, 2, 2, 2), dil=(2, 2), sizes=SIZES)
case("k3x1_s2", 3, (3, 1), (2, 2), (1, 0, 1, 0), sizes=SIZES)
case("k7_s2_p3", 2, (7, 7), (2, 2), (3, 3, 3, 3), sizes=SIZES)
# the phase-plane path (templates/conv_dwp.c: kernels not 3 wide, on cores with vectors): 5x5
# at strides 1 and 2 (MobileNetV3), dilated 5x5 (LR-ASPP), mixed strides and asymmetric pads,
# images of several 64-output steps
case("k5_s2_p2_res_relu", 6, (5, 5), (2, 2), (2, 2, 2, 2), post="res_relu", sizes=SIZES)
case("k5_dil2_p4", 3, (5, 5), (1, 1), (4, 4, 4, 4), dil=(2, 2), sizes=SIZES)
case("k4x5_s3x2_asym", 3, (4, 5), (3, 2), (1, 2, 0, 3),
     sizes=((1, 9, 11), (2, 14, 14), (1, 7, 40), (1, 3, 2)))
case("k5_s1_big", 3, (5, 5), (1, 1), (2, 2, 2, 2), sizes=((1, 40, 37), (2, 23, 70), (1, 5, 5)))
# the channels-in-lanes path (templates/conv_dwc.c: static images of at most 4096 padded
# pixels, on cores with vectors): blocks of 16 channels and a partial one, strides 1 to 3,
# dilation, asymmetric pads, rows of several 8-output steps and a 1-wide output; planes of
# 16-pixel transposes with a remainder, a residual and ReLU6 on them (s_k3_c24_40x37_res_relu);
# s_k3_c18_64x64_relu6 is past 4096 pixels: the row path (and at stride 1 from 56 wide x86 takes
# the rows, O2C_DWC_ROWS3_X86)
case("s_k3_c20_14x14_relu6", 20, (3, 3), (1, 1), (1, 1, 1, 1), post="relu6", sizes=((1, 14, 14),),
     static=True)
case("s_k3_s2_c16_29x28", 16, (3, 3), (2, 2), (1, 1, 1, 1), sizes=((1, 29, 28),), static=True)
case("s_k3_s2_c17_13x12", 17, (3, 3), (2, 2), (1, 1, 1, 1), sizes=((1, 13, 12),), static=True)
case("s_k5_c7_res_relu", 7, (5, 5), (1, 1), (2, 2, 2, 2), post="res_relu",
     sizes=((2, 9, 23),), static=True)
case("s_k5_dil2_c33", 33, (5, 5), (1, 1), (4, 4, 4, 4), dil=(2, 2), sizes=((1, 16, 16),),
     static=True)
case("s_k4x3_s3x2_asym", 18, (4, 3), (3, 2), (1, 2, 0, 1), sizes=((1, 13, 11),), static=True)
case("s_k3_1x1", 3, (3, 3), (1, 1), (1, 1, 1, 1), sizes=((1, 1, 1),), static=True)
case("s_k3_c24_40x37_res_relu", 24, (3, 3), (1, 1), (1, 1, 1, 1), post="res_relu",
     sizes=((1, 40, 37),), static=True)
case("s_k3_c18_64x64_relu6", 18, (3, 3), (1, 1), (1, 1, 1, 1), post="relu6", sizes=((1, 64, 64),),
     static=True)
# the other activations on the lanes' transposed vectors (conv_dwc.c's dwc_act16): HardSwish,
# LeakyRelu, HardSigmoid, HardSwish with other constants (below 56 wide at stride 1 and 28 at
# stride 2, where x86 keeps the lanes)
case("s_k3_c20_14x14_hswish", 20, (3, 3), (1, 1), (1, 1, 1, 1), post="hswish",
     sizes=((1, 14, 14),), static=True)
case("s_k3_s2_c17_22x20_leaky", 17, (3, 3), (2, 2), (1, 1, 1, 1), post="leaky",
     sizes=((1, 22, 20),), static=True)
case("s_k3_c18_12x13_hsig", 18, (3, 3), (1, 1), (1, 1, 1, 1), post="hsig",
     sizes=((1, 12, 13),), static=True)
case("s_k5_c16_10x11_hsig_rev", 16, (5, 5), (1, 1), (2, 2, 2, 2), post="hswish_rev",
     sizes=((1, 10, 11),), static=True)
# stride 2 from 28 outputs wide: conv_dw.c's rows on x86 (O2C_DWC_ROWS3_X86), lanes elsewhere
case("s_k3_s2_c18_56x57_relu6", 18, (3, 3), (2, 2), (1, 1, 1, 1), post="relu6",
     sizes=((1, 56, 57),), static=True)
# with OpenMP, past 65536 multiply-adds: the threads by blocks of channels
# (stride 2, a residual, a partial block)
case("s_k3_s2_c20_60x50_res_relu", 20, (3, 3), (2, 2), (1, 1, 1, 1), post="res_relu",
     sizes=((1, 60, 50),), static=True)
# 1-D
case("conv1d_k3_p1", 4, (3,), (1,), (1, 1), sizes=((1, 9), (2, 1), (1, 33)), one_d=True)
case("conv1d_k5_s2", 4, (5,), (2,), (2, 2), sizes=((1, 9), (2, 1), (1, 33)), one_d=True)

# --- wide/: stride 1, 1 to 4 output channels per group
WIDE = os.path.join(ROOT, "wide")
WS = ((1, 9, 11), (2, 14, 14), (1, 3, 3), (1, 7, 40))
WB = WS + ((1, 130, 110),)  # several bands of output rows (M >= 2)
case("m1_k3_p0", 3, (3, 3), (1, 1), (0, 0, 0, 0), M=1, group=1, out_dir=WIDE, sizes=WS)
case("m2_k3_p1_relu6", 3, (3, 3), (1, 1), (1, 1, 1, 1), M=2, group=1, post="relu6",
     out_dir=WIDE, sizes=WB)
case("m4_k5_asym", 2, (5, 3), (1, 1), (2, 0, 1, 2), M=4, group=1, out_dir=WIDE, sizes=WB)
case("m4_k3_p0_bands", 2, (3, 3), (1, 1), (0, 0, 0, 0), M=4, group=1, out_dir=WIDE, sizes=WB)
case("m1_bottom_only", 2, (3, 3), (1, 1), (0, 0, 2, 0), M=1, group=1, out_dir=WIDE, sizes=WS)
case("m1_bottom_right", 2, (3, 3), (1, 1), (0, 0, 1, 2), M=1, group=1, out_dir=WIDE, sizes=WS)
case("m3_dil2_p2", 2, (3, 3), (1, 1), (2, 2, 2, 2), dil=(2, 2), M=3, group=1, out_dir=WIDE,
     sizes=WS)
case("m2_g2_res_relu", 4, (3, 3), (1, 1), (1, 1, 1, 1), M=4, group=2, post="res_relu",
     out_dir=WIDE, sizes=WB)
case("m1_k1_pad", 3, (1, 1), (1, 1), (1, 0, 0, 1), M=1, group=1, out_dir=WIDE, sizes=WS)
case("conv1d_m2_k5", 3, (5,), (1,), (2, 1), M=2, group=1, one_d=True, out_dir=WIDE,
     sizes=((1, 9), (2, 5), (1, 70)))
# static shapes: the node's own kernel function, its sizes as constants (a 2-group residual
# one over several bands, and SiamFC's correlation of a runtime 6x6 template)
case("t_m2_g2_k5_res_relu", 4, (5, 5), (1, 1), (2, 1, 2, 1), M=4, group=2, post="res_relu",
     out_dir=WIDE, sizes=((2, 130, 61),), static=True)
case("t_xcorr_runtime_6x6", 16, (6, 6), (1, 1), (0, 0, 0, 0), M=1, group=1, runtime_w=True,
     out_dir=WIDE, sizes=(((6, 6), (1, 22, 22)),), static=True)
# correlation: runtime template of symbolic size, as (kernel size, image size)
case("xcorr_runtime", 8, (6, 6), (1, 1), (0, 0, 0, 0), M=1, group=1, runtime_w=True,
     out_dir=WIDE, sizes=(((6, 6), (1, 22, 22)), ((3, 5), (1, 9, 13)), ((1, 1), (1, 4, 4)),
                          ((8, 8), (1, 30, 31))))
case("xcorr_runtime_pad", 4, (3, 3), (1, 1), (1, 2, 1, 0), M=2, group=1, runtime_w=True,
     out_dir=WIDE, sizes=(((3, 3), (1, 9, 9)), ((5, 2), (1, 12, 7)), ((1, 1), (1, 2, 2))))

# --- wino/: 3x3, stride 1, group 1, at least 32 channels in and 16 out: Winograd F(2x2, 3x3)
# (the c16 and c20 cases were written when 16 in took it; they run unfold + GEMM now)
WINO = os.path.join(ROOT, "wino")
ZS = ((1, 9, 11), (2, 14, 14), (1, 1, 1), (1, 2, 3), (1, 7, 40))
case("c16_p1_relu6", 16, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="relu6",
     out_dir=WINO, sizes=ZS + ((1, 61, 70),))  # 31 x 35 tiles: 3 chunks of 512
case("c20_m20_p0", 20, (3, 3), (1, 1), (0, 0, 0, 0), M=20, group=1, out_dir=WINO,
     sizes=((1, 3, 3), (1, 5, 17), (2, 9, 4), (1, 4, 4)))
case("c16_m18_asym", 16, (3, 3), (1, 1), (0, 1, 2, 0), M=18, group=1, out_dir=WINO,
     sizes=ZS[:2] + ZS[3:])
case("c16_p2", 16, (3, 3), (1, 1), (2, 2, 2, 2), M=16, group=1, out_dir=WINO, sizes=ZS)
case("c16_res_relu", 16, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="res_relu",
     out_dir=WINO, sizes=((1, 9, 11), (1, 50, 47), (2, 3, 2)))  # 25 x 24 tiles: 2 chunks
case("c300_m17_p1", 300, (3, 3), (1, 1), (1, 1, 1, 1), M=17, group=1, out_dir=WINO,
     sizes=((1, 6, 7), (1, 13, 10)))
# from 32 input channels (16 take unfold + GEMM since): the same geometries again
case("c32_p1_relu6", 32, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="relu6",
     out_dir=WINO, sizes=ZS + ((1, 61, 70),))
case("c32_m18_asym", 32, (3, 3), (1, 1), (0, 1, 2, 0), M=18, group=1, out_dir=WINO,
     sizes=ZS[:2] + ZS[3:])
case("c32_p2", 32, (3, 3), (1, 1), (2, 2, 2, 2), M=16, group=1, out_dir=WINO, sizes=ZS)
case("c32_res_relu", 32, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="res_relu",
     out_dir=WINO, sizes=((1, 9, 11), (1, 50, 47), (2, 3, 2)))
case("t_c32_m16_12x10_relu6", 32, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="relu6",
     out_dir=WINO, sizes=((2, 12, 10),), static=True)
# static shapes with few tiles: the products transposed (tiles as the engine's rows)
case("t_c20_m36_7x7_res_relu", 20, (3, 3), (1, 1), (1, 1, 1, 1), M=36, group=1, post="res_relu",
     out_dir=WINO, sizes=((1, 7, 7),), static=True)  # 16 tiles
case("t_c300_m40_5x9", 300, (3, 3), (1, 1), (0, 1, 2, 0), M=40, group=1, out_dir=WINO,
     sizes=((1, 5, 9),), static=True)  # 3 x 4 tiles, two K blocks
case("t_c300_m40_9x20", 300, (3, 3), (1, 1), (0, 1, 2, 0), M=40, group=1, out_dir=WINO,
     sizes=((1, 9, 20),), static=True)  # 5 x 10 tiles: chunks of 32 and 18
case("t_c16_m16_12x10_relu6", 16, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="relu6",
     out_dir=WINO, sizes=((2, 12, 10),), static=True)  # 30 tiles, batch 2
# built with OpenMP, many tiles: each thread its share of whole 32-tile panels, in chunks of
# its part of the scratch (272 tiles: 128 + 144, a short last chunk); the small size serially
case("c48_m48_32x34_res_relu", 48, (3, 3), (1, 1), (1, 1, 1, 1), M=48, group=1,
     post="res_relu", out_dir=WINO, sizes=((1, 32, 34), (1, 9, 11)))
# a weight too large for that (C x M = 136 x 128): threads share each chunk's 16 points, each
# transforming the input for its own points and multiplying them (on 3 threads a share splits
# a row of points); by tiles (symbolic) and transposed (static, 30 tiles).  Its transformed
# weight is larger than a 32-tile chunk's scratch, so chunks grow to 64 tiles (1 x 20 x 18:
# 90 tiles, 64 + 26)
case("c136_m128_res_relu", 136, (3, 3), (1, 1), (1, 1, 1, 1), M=128, group=1,
     post="res_relu", out_dir=WINO, sizes=((1, 12, 14), (2, 9, 7), (1, 20, 18)))
case("t_c136_m128_10x12", 136, (3, 3), (1, 1), (1, 1, 1, 1), M=128, group=1, out_dir=WINO,
     sizes=((1, 10, 12),), static=True)

# --- epi/: HardSwish as exporters write it before opset 14 (HardSigmoid + Mul), which the lower
# pass fuses into the producer's epilogue: the unfold + GEMM path (1x1 direct, strided 3x3), a
# depthwise one by phase planes, a Winograd one, and a shared output that must not fuse
EPI = os.path.join(ROOT, "epi")
case("k1_m24_hswish", 8, (1, 1), (1, 1), (0, 0, 0, 0), M=24, group=1, post="hswish",
     out_dir=EPI, sizes=((1, 9, 11), (2, 14, 14), (1, 1, 1)))
case("k3_s2_m16_hswish_rev", 3, (3, 3), (2, 2), (1, 1, 1, 1), M=16, group=1, post="hswish_rev",
     out_dir=EPI, sizes=((1, 9, 11), (2, 14, 14), (1, 1, 1)))
case("dw_k5_hswish", 6, (5, 5), (1, 1), (2, 2, 2, 2), post="hswish", out_dir=EPI, sizes=SIZES)
case("wino_c32_hswish", 32, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="hswish",
     out_dir=EPI, sizes=((1, 9, 11), (1, 20, 18)))
case("dw_k3_hswish_shared", 5, (3, 3), (2, 2), (1, 1, 1, 1), post="hswish_shared", out_dir=EPI,
     sizes=SIZES)

# --- ind/: one group, static shapes, at most 288 rows (C * KH * KW) or as below: the indirect GEMM
# over the padded image (templates/conv_ind.c, on cores with 64-byte vectors): partial panels
# of 8 output channels and of 32 positions, several 32-position panels a row, dilation with
# asymmetric pads, two K blocks (288 rows) with a residual, batch 2, a 1x3 kernel, a padded 1x1,
# HardSwish in the epilogue
IND = os.path.join(ROOT, "ind")
case("i_c16_m24_40x37_relu6", 16, (3, 3), (1, 1), (1, 1, 1, 1), M=24, group=1, post="relu6",
     out_dir=IND, sizes=((1, 40, 37),), static=True)
case("i_c8_m20_k5_dil2_asym", 8, (5, 5), (1, 1), (4, 3, 2, 4), dil=(2, 2), M=20, group=1,
     out_dir=IND, sizes=((1, 23, 41),), static=True)
case("i_c32_m8_2blocks_res_relu", 32, (3, 3), (1, 1), (1, 1, 1, 1), M=8, group=1,
     post="res_relu", out_dir=IND, sizes=((2, 14, 35),), static=True)
case("i_c24_m16_k1x3", 24, (1, 3), (1, 1), (0, 1, 0, 1), M=16, group=1, out_dir=IND,
     sizes=((1, 9, 70),), static=True)
case("i_c12_m9_k1_pad1", 12, (1, 1), (1, 1), (1, 1, 1, 1), M=9, group=1, out_dir=IND,
     sizes=((1, 6, 5),), static=True)
case("i_c16_m16_hswish", 16, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="hswish",
     out_dir=IND, sizes=((1, 21, 33),), static=True)
# the tiles over the whole grid (rows of Wq, a tile across rows, the columns past OW dropped)
# against tiles by rows (OW = 64: whole tiles); strides by phase planes: 3x3 and 7x7 stride 2
# (odd sizes, batch 2), stride 2 without pads (the image's last column unread), stride 3,
# strides 1 x 2 with dilations 2 x 3
case("i_c16_m16_5x64_rows", 16, (3, 3), (1, 1), (1, 1, 1, 1), M=16, group=1, post="relu6",
     out_dir=IND, sizes=((1, 5, 64),), static=True)
case("i_s2_c3_m16_45x47_relu6", 3, (3, 3), (2, 2), (1, 1, 1, 1), M=16, group=1, post="relu6",
     out_dir=IND, sizes=((1, 45, 47),), static=True)
case("i_s2_c3_m24_k7_relu6", 3, (7, 7), (2, 2), (3, 3, 3, 3), M=24, group=1, post="relu6",
     out_dir=IND, sizes=((2, 38, 41),), static=True)
case("i_s2_c8_m12_nopad", 8, (3, 3), (2, 2), (0, 0, 0, 0), M=12, group=1, out_dir=IND,
     sizes=((1, 20, 24),), static=True)
case("i_s3_c4_m10_asym", 4, (3, 3), (3, 3), (1, 0, 2, 1), M=10, group=1, out_dir=IND,
     sizes=((1, 25, 31),), static=True)
case("i_s12_c6_m16_k3x5_dil", 6, (3, 5), (1, 2), (2, 3, 2, 3), dil=(2, 3), M=16, group=1,
     out_dir=IND, sizes=((1, 17, 40),), static=True)
# past 288 rows where few output channels (at most 64) or wide output rows (20 and more, up
# to 256 channels) make the image's reads cheaper than the unfold: three K blocks (576 = 256 +
# 256 + 64) at stride 2 with a residual, batch 2; a 5x5 kernel over 1000 rows into 72 channels
# (nine row panels) 26 wide; 2700 rows (11 K blocks) into 8 channels on a short image
case("i_wide_s2_c64_m24_res_relu", 64, (3, 3), (2, 2), (1, 1, 1, 1), M=24, group=1,
     post="res_relu", out_dir=IND, sizes=((2, 42, 45),), static=True)
case("i_wide_c40_m72_k5_relu6", 40, (5, 5), (1, 1), (2, 2, 2, 2), M=72, group=1, post="relu6",
     out_dir=IND, sizes=((1, 24, 26),), static=True)
case("i_wide_c300_m8_9x13", 300, (3, 3), (1, 1), (1, 1, 1, 1), M=8, group=1, out_dir=IND,
     sizes=((1, 9, 13),), static=True)

# --- unf/: unfold + GEMM (templates/conv_im2col.c, the unfolded tile packed as the engine's B
# operand) and the 1x1 direct GEMM, large enough for the engine's threads (the tests with
# OpenMP run them on 2): rows past one K block (C x 9 = 360: 256 + 104), positions past one
# column panel and not a multiple of 32, several tiles of positions, a residual in the epilogue;
# a 1x1 over more than 1024 positions (the threads each take their own columns, the last panel
# partial); 1x1s whose B the engine packs itself (K = 192 > 160, or M = 144 > 128 rows), each
# thread its own column panels at their own place in the engine's buffer (two panels at 7x7)
UNF = os.path.join(ROOT, "unf")
case("u_c40_m24_k3_dil2_res_relu", 40, (3, 3), (1, 1), (2, 2, 2, 2), dil=(2, 2), M=24, group=1,
     post="res_relu", out_dir=UNF, sizes=((1, 33, 31), (2, 17, 20), (1, 3, 2)))
case("u_s2_c40_m20_k3", 40, (3, 3), (2, 2), (1, 1, 1, 1), M=20, group=1, post="relu6",
     out_dir=UNF, sizes=((1, 45, 41), (1, 8, 9)))
case("u_k1_c16_m24_res_relu", 16, (1, 1), (1, 1), (0, 0, 0, 0), M=24, group=1, post="res_relu",
     out_dir=UNF, sizes=((1, 40, 37), (2, 33, 40), (1, 1, 3)))
case("u_k1_c192_m40_res", 192, (1, 1), (1, 1), (0, 0, 0, 0), M=40, group=1, post="res_relu",
     out_dir=UNF, sizes=((1, 16, 20), (1, 7, 7), (2, 5, 9)))
case("u_k1_c24_m144_relu6", 24, (1, 1), (1, 1), (0, 0, 0, 0), M=144, group=1, post="relu6",
     out_dir=UNF, sizes=((1, 16, 17), (1, 7, 7), (1, 3, 1)))
# B read in place past K = 160 (the 64-byte kernel): two K blocks (320 = 256 + 64); at 14x14
# (seven column panels) the threads share the tiles; at 7x7 and 5x9 (two panels) each thread
# takes its own rows (12 row panels), B read in place and the partial panel packed by each
# 13x13 and 15x15: six and eight panels that split unevenly among 2 threads (96 and 73, 128 and
# 97 columns), so each takes its own rows; 16x16 splits evenly (own columns)
case("u_k1_c64_m96_uneven", 64, (1, 1), (1, 1), (0, 0, 0, 0), M=96, group=1, post="relu6",
     out_dir=UNF, sizes=((1, 13, 13), (1, 15, 15), (1, 16, 16)))
case("u_k1_c320_m96_res", 320, (1, 1), (1, 1), (0, 0, 0, 0), M=96, group=1, post="res_relu",
     out_dir=UNF, sizes=((1, 14, 14), (1, 7, 7), (2, 5, 9)))
# short output rows unfolded by gathers (stride 1 below 16 wide; 7 x 9 on 2 threads: the
# threads share one tile's rows, at 12 x 15 each takes its own tiles), and strided ones when the
# threads share a tile (4 x 8 outputs, 1080 rows; 7 x 7) or each take their own (11 x 11)
case("u_c40_m24_k3_dil2_7x9", 40, (3, 3), (1, 1), (2, 2, 2, 2), dil=(2, 2), M=24, group=1,
     post="res_relu", out_dir=UNF, sizes=((1, 7, 9), (1, 5, 5), (2, 12, 15)))
case("u_s2_c120_m8_k3_short", 120, (3, 3), (2, 2), (1, 1, 1, 1), M=8, group=1, out_dir=UNF,
     sizes=((1, 8, 16), (1, 14, 14), (1, 22, 21)))
# an empty image with a padded output: a 1x1 over zero columns (or rows) writes its bias on the
# padding (the gathers, for short rows, must not read a channel's first element: there is none)
case("u_k1_c40_m24_pad1_empty", 40, (1, 1), (1, 1), (1, 1, 1, 1), M=24, group=1, out_dir=UNF,
     sizes=((1, 5, 0), (1, 0, 3), (2, 3, 4)))


def expand_dw_case(name, C, M, sizes):
    """A 1x1 Conv (C -> M, ReLU6) whose output only a depthwise 3x3 Conv (pad 1, ReLU6) reads:
    the compiler marks the 1x1 (GEMM_PACKED_ROWS), and on threads its rows (the channels) are
    split as the depthwise splits them, where its output fits the caches."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    w1 = rng.uniform(-1, 1, (M, C, 1, 1)).astype(np.float32)
    b1 = rng.uniform(-1, 1, (M,)).astype(np.float32)
    w2 = rng.uniform(-1, 1, (M, 1, 3, 3)).astype(np.float32)
    b2 = rng.uniform(-1, 1, (M,)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="expand",
                              kernel_shape=[1, 1]),
             helper.make_node("Clip", ["c1", "lo", "hi"], ["e"], name="relu6_e"),
             helper.make_node("Conv", ["e", "w2", "b2"], ["c2"], name="dw", group=M,
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["c2", "lo", "hi"], ["y"], name="relu6_d")]
    inits = [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"),
                                                         (b2, "b2"))]
    inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
              numpy_helper.from_array(np.array(6, np.float32), "hi")]
    m = gen_util.make_model(name, nodes, [helper.make_tensor_value_info("x", FL,
                                                                        ["N", C, "H", "W"])],
                            [helper.make_tensor_value_info("y", FL, None)], inits, 13,
                            "onnx2c-make_dwconv")
    sets = []
    for n, h, wd in sizes:
        x = rng.uniform(-1, 1, (n, C, h, wd)).astype(np.float32)
        e = torch.clamp(F.conv2d(torch.from_numpy(x), torch.from_numpy(w1), torch.from_numpy(b1)),
                        0, 6)
        y = torch.clamp(F.conv2d(e, torch.from_numpy(w2), torch.from_numpy(b2), padding=1,
                                 groups=M), 0, 6)
        sets.append(([x], [y.numpy().astype(np.float32)]))
    gen_util.write_case(os.path.join(UNF, name), m, sets)


# 96 output channels (12 row panels) at 16x16 and 36x36 (8 and 41 column panels, which split
# evenly; under GEMM_ROWS_MAX) and 2 x 10x10 (4 panels, unevenly): on threads each takes its own
# rows, the channels the depthwise gives it
expand_dw_case("u_k1_c24_m96_to_dw", 24, 96, ((1, 16, 16), (2, 10, 10), (1, 36, 36)))
