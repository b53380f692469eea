#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_pool.c compiles.

Run with Debian's python3-onnx (onnx 1.12); the outputs are committed next to this script so
the tests never need Python:

    /usr/bin/python3 tests/data/pool/make_pool.py

cases/: runnable cases with data sets (onnx2c-test, the op-case ctests).

The good models have symbolic N, C, H, W (dim_param) so the tests check the output-shape rules
as Sym arithmetic, through the generated NAME_output_shape / NAME_check, and run the kernels
against a reference written in the test.  The bad_*.onnx models break one attribute rule each.
"""
import os
import sys
import zlib

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402


def model(name, node, inputs, outputs, opset):
    gen_util.write_model(HERE, name, node, inputs, outputs, (), opset, "onnx2c-make_pool")


X = vi("x", ["N", "C", "H", "W"])
Y = vi("y", None)
I = vi("i", None, TensorProto.INT64)

# MaxPool 3x3 stride 2, pads 1, dilation 2 in W, ceil_mode, with Indices (column-major)
model("maxpool_sym.onnx",
      helper.make_node("MaxPool", ["x"], ["y", "i"], name="mp", kernel_shape=[3, 3],
                       strides=[2, 2], pads=[1, 1, 1, 1], dilations=[1, 2], ceil_mode=1,
                       storage_order=1),
      [X], [Y, I], 12)
# AveragePool SAME_UPPER 3x3 stride 2, count_include_pad
model("avgpool_same_sym.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[3, 3],
                       strides=[2, 2], auto_pad="SAME_UPPER", count_include_pad=1),
      [X], [Y], 11)
# AveragePool without pads: the window must fit, H >= 3 and W >= 2 (checked at run time)
model("avgpool_valid_sym.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[3, 2]),
      [X], [Y], 11)
# LpPool p = 3, 1-D, pads 1
model("lppool_sym.onnx",
      helper.make_node("LpPool", ["x"], ["y"], name="lp", kernel_shape=[2], p=3, pads=[1, 0]),
      [vi("x", ["N", "C", "L"])], [Y], 11)
model("globalavgpool_sym.onnx",
      helper.make_node("GlobalAveragePool", ["x"], ["y"], name="gap"), [X], [Y], 1)

# --- runnable cases (cases/NAME: model and data sets, references from numpy in float64):
# averages over rows of 32 taps and more (the 16 partial sums of templates/pool_avg.c on cores
# with vectors), at several symbolic sizes, values far from 0 so that a lost tap shows.
def avg_ref(x, k, st, pads, include_pad):
    n, c, h, w = x.shape
    xp = np.full((n, c, h + pads[0] + pads[2], w + pads[1] + pads[3]), np.nan)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x
    oh = (h + pads[0] + pads[2] - k[0]) // st[0] + 1
    ow = (w + pads[1] + pads[3] - k[1]) // st[1] + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * st[0]:i * st[0] + k[0], j * st[1]:j * st[1] + k[1]]
            s = np.nansum(win.astype(np.float64), axis=(2, 3))
            cnt = k[0] * k[1] if include_pad else np.sum(~np.isnan(win[0, 0]))
            y[:, :, i, j] = s / cnt
    return y.astype(np.float32)


def pool_case(name, node, sizes, ref):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    m = gen_util.make_model(name, [node], [X], [Y], opset=11, producer="onnx2c-make_pool")
    sets = []
    for size in sizes:
        x = (rng.uniform(-1, 1, size) * 100 + 1000).astype(np.float32)
        sets.append(([x], [ref(x)]))
    gen_util.write_case(os.path.join(HERE, "cases", name), m, sets)


pool_case("gap_rows", helper.make_node("GlobalAveragePool", ["x"], ["y"], name="gap"),
          ((2, 3, 16, 16), (1, 2, 7, 9), (1, 1, 1, 40), (1, 2, 5, 5), (1, 1, 3, 61)),
          lambda x: x.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32))
pool_case("avgpool_wide_rows",
          helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[2, 40],
                           strides=[1, 3], pads=[0, 5, 1, 7]),
          ((1, 2, 5, 90), (2, 1, 3, 37)),
          lambda x: avg_ref(x, (2, 40), (1, 3), (0, 5, 1, 7), False))
pool_case("avgpool_wide_rows_incl",
          helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[1, 33],
                           strides=[2, 1], pads=[0, 3, 0, 4], count_include_pad=1),
          ((1, 2, 5, 90), (1, 1, 2, 29)),
          lambda x: avg_ref(x, (1, 33), (2, 1), (0, 3, 0, 4), True))



def max_ref(x, k, st, pads, dil=(1, 1)):
    n, c, h, w = x.shape
    xp = np.full((n, c, h + pads[0] + pads[2], w + pads[1] + pads[3]), -np.inf, np.float32)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x
    eh, ew = (k[0] - 1) * dil[0] + 1, (k[1] - 1) * dil[1] + 1
    oh = (h + pads[0] + pads[2] - eh) // st[0] + 1
    ow = (w + pads[1] + pads[3] - ew) // st[1] + 1
    y = np.zeros((n, c, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * st[0]:i * st[0] + eh:dil[0], j * st[1]:j * st[1] + ew:dil[1]]
            y[:, :, i, j] = win.max(axis=(2, 3))
    return y


def max_ref_nan(x, k, st, pads):
    """onnx2c's MaxPool with NaNs (ONNX leaves it open): a window's taps in scan order (rows,
    then columns; the padding skipped), NaN when the first tap is, else the largest of the
    others that are not NaN (a NaN never compares greater)."""
    n, c, h, w = x.shape
    oh = (h + pads[0] + pads[2] - k[0]) // st[0] + 1
    ow = (w + pads[1] + pads[3] - k[1]) // st[1] + 1
    y = np.zeros((n, c, oh, ow), np.float32)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    taps = [x[b, ch, r, q]
                            for r in range(i * st[0] - pads[0], i * st[0] - pads[0] + k[0])
                            for q in range(j * st[1] - pads[1], j * st[1] - pads[1] + k[1])
                            if 0 <= r < h and 0 <= q < w]
                    y[b, ch, i, j] = taps[0] if np.isnan(taps[0]) else np.nanmax(taps)
    return y


def max_case(name, k, st, pads, sizes, dil=(1, 1), nan=False):
    node = helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=list(k),
                            strides=list(st), pads=list(pads), dilations=list(dil))
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    m = gen_util.make_model(name, [node], [X], [Y], opset=12, producer="onnx2c-make_pool")
    sets = []
    for size in sizes:
        x = rng.uniform(-5, 5, size).astype(np.float32)
        if nan:  # one tap in 8 NaN: first taps, others, whole windows
            x[rng.uniform(0, 1, size) < 0.125] = np.nan
            sets.append(([x], [max_ref_nan(x, k, st, pads)]))
            continue
        sets.append(([x], [max_ref(x, k, st, pads, dil)]))
    gen_util.write_case(os.path.join(HERE, "cases", name), m, sets)


# MaxPool on floats: strides 1 to 3, pads, dilations, rows wider than a vector
max_case("maxpool_3x3_s2", (3, 3), (2, 2), (0, 0, 0, 0), ((1, 3, 111, 111), (2, 2, 9, 10)))
max_case("maxpool_3x3_s2_p1", (3, 3), (2, 2), (1, 1, 1, 1), ((1, 2, 56, 57), (1, 1, 1, 1)))
# NaNs in the input: 3x3 windows of stride 1 and 2, interior (the unrolled taps) and at the
# borders (the window scan) keep the same rule (max_ref_nan)
max_case("maxpool_3x3_s1_nan", (3, 3), (1, 1), (1, 1, 1, 1), ((1, 3, 20, 70),), nan=True)
max_case("maxpool_3x3_s2_nan", (3, 3), (2, 2), (0, 1, 1, 0), ((1, 2, 31, 150),), nan=True)
max_case("maxpool_2x5_s1x3_dil", (2, 5), (1, 3), (1, 2, 0, 1), ((1, 2, 12, 200), (2, 1, 3, 9)),
         dil=(2, 2))
# pools of 2^18 taps and more run on the threads a plane at a time (built with OpenMP; the
# models_gcc_openmp test runs them on 2): planes of two images, and a small size that stays on
# one thread
max_case("maxpool_5x5_p2_planes", (5, 5), (1, 1), (2, 2, 2, 2), ((2, 12, 24, 24), (1, 3, 5, 7)))
pool_case("avgpool_5x5_p2_planes",
          helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[5, 5],
                           strides=[1, 1], pads=[2, 2, 2, 2]),
          ((2, 12, 24, 24), (1, 2, 4, 4)),
          lambda x: avg_ref(x, (5, 5), (1, 1), (2, 2, 2, 2), False))

# --- one broken rule each
X5 = vi("x", [1, 1, 5, 5])
model("bad_auto_pad.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2], auto_pad="SAME"),
      [X5], [Y], 12)
model("bad_no_kernel.onnx", helper.make_node("AveragePool", ["x"], ["y"], name="ap"),
      [X5], [Y], 11)
model("bad_kernel_len.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2]), [X5], [Y], 12)
model("bad_window.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[7, 2]), [X5], [Y], 12)
model("bad_count_include_pad.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[2, 2],
                       count_include_pad=2), [X5], [Y], 11)
model("bad_strides.onnx",
      helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2], strides=[1, 0]),
      [X5], [Y], 12)
model("bad_avg_int.onnx",
      helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[2, 2]),
      [vi("x", [1, 1, 5, 5], TensorProto.INT32)], [Y], 11)
