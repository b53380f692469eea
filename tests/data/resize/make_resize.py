#!/usr/bin/python3
"""Writes the small ONNX models of tests/unit/test_ops_resize.c and tests/data/resize/node/.

Run with Debian's python3-onnx (onnx 1.12) and libonnx-testdata; the outputs are committed next
to this script so the tests never need Python:

    /usr/bin/python3 tests/data/resize/make_resize.py

- *_sym.onnx: Resize / Upsample on [N, C, H, W] with symbolic dims, for the JIT tests.
- bad_*.onnx: one broken rule each (runtime scales, both scales and sizes, ...).
- node/CASE/: the ONNX backend node cases of Resize and Upsample with their scales / sizes / roi
  inputs turned into initializers (in the backend suite they are runtime inputs, which makes
  the output shape data-dependent, so onnx2c rejects them); X and the expected output are the
  suite's own, so `onnx2c-test --root tests/data/resize/node` checks the kernels against ONNX's
  reference results.
"""
import glob
import os
import shutil
import sys

import numpy as np
from onnx import TensorProto, helper, load

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import F, vi  # noqa: E402

NODE = "/usr/share/libonnx-testdata/data/node"


def model(name, nodes, inputs, outputs, opset, inits=()):
    gen_util.write_model(HERE, name, nodes, inputs, outputs, inits, opset, "onnx2c-make_resize")


def floats(name, v):
    return helper.make_tensor(name, F, [len(v)], v)


def ints(name, v):
    return helper.make_tensor(name, TensorProto.INT64, [len(v)], v)


X = vi("x", ["N", "C", "H", "W"])
Y = vi("y", None)

# scales 2.0 on H and W: [N, C, 2H, 2W]
model("nearest_x2_sym.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs", mode="nearest")],
      [X], [Y], 13, [floats("scales", [1, 1, 2, 2])])
model("linear_x2_sym.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs", mode="linear")],
      [X], [Y], 13, [floats("scales", [1, 1, 2, 2])])
model("cubic_x2_sym.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs", mode="cubic",
                        coordinate_transformation_mode="align_corners")],
      [X], [Y], 13, [floats("scales", [1, 1, 2, 2])])
# scales 0.5 and 1.5: [N, C, H/2, 3W/2]
model("linear_half_sym.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs", mode="linear",
                        coordinate_transformation_mode="pytorch_half_pixel")],
      [X], [Y], 13, [floats("scales", [1, 1, 0.5, 1.5])])
# the segmentation-net pattern: resize back to the size of another input (sizes from Shape)
model("linear_to_shape_sym.onnx",
      [helper.make_node("Shape", ["ref"], ["s"], name="shape"),
       helper.make_node("Resize", ["x", "", "", "s"], ["y"], name="rs", mode="linear")],
      [vi("x", ["N", "C", "Hin", "Win"]), vi("ref", ["N", "C", "H", "W"])], [Y], 13)
# Upsample-9, nearest x2 on H and W
model("upsample_x2_sym.onnx",
      [helper.make_node("Upsample", ["x", "scales"], ["y"], name="up", mode="nearest")],
      [X], [Y], 9, [floats("scales", [1, 1, 2, 2])])

# --- one broken rule each
model("bad_runtime_scales.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs")],
      [X, vi("scales", [4])], [Y], 13)
model("bad_both.onnx",
      [helper.make_node("Resize", ["x", "", "scales", "sizes"], ["y"], name="rs")],
      [X], [Y], 13, [floats("scales", [1, 1, 2, 2]), ints("sizes", [1, 1, 2, 2])])
model("bad_scale_irrational.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs")],
      [X], [Y], 13, [floats("scales", [1, 1, 1.2345678, 1])])
model("bad_mode.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs", mode="area")],
      [X], [Y], 13, [floats("scales", [1, 1, 2, 2])])
model("bad_scales_len.onnx",
      [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs")],
      [X], [Y], 13, [floats("scales", [2, 2])])

# --- the backend node cases with constant scales / sizes / roi
out = os.path.join(HERE, "node")
shutil.rmtree(out, ignore_errors=True)
for d in sorted(glob.glob(NODE + "/test_resize_*") + glob.glob(NODE + "/test_upsample_*")):
    m = load(d + "/model.onnx")
    g = m.graph
    case = os.path.join(out, os.path.basename(d))
    for s in sorted(glob.glob(d + "/test_data_set_*")):
        dst = os.path.join(case, os.path.basename(s))
        os.makedirs(dst)
        shutil.copy(s + "/input_0.pb", dst)
        shutil.copy(s + "/output_0.pb", dst)
    tensors = []
    for i, v in enumerate(g.input[1:], 1):
        t = TensorProto()
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "rb") as f:
            t.ParseFromString(f.read())
        t.name = v.name
        tensors.append(t)
    del g.input[1:]
    g.initializer.extend(tensors)
    gen_util.save(os.path.join(case, "model.onnx"), m)


# --- cases with data sets at symbolic sizes, past the thresholds from which the kernels share
# their output rows among the OpenMP threads (linear over H and W: 2^15 outputs, its own
# kernel resize_bilin; nearest: 2^16) and below them.  References: numpy, per axis an
# interpolation matrix from the ONNX formulas (linear: taps floor(x), floor(x) + 1 clamped to
# the input, weights 1 - r, r; nearest asymmetric / floor: floor(o / scale)).
def axis_matrix(n_in, n_out, scale, ctm, mode):
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        if ctm == "half_pixel":
            x = (o + 0.5) / scale - 0.5
        elif ctm == "align_corners":
            # the resized length as ONNX's reference takes it: scale * in, not rounded
            x = 0.0 if n_in * scale == 1 else o * (n_in - 1) / (n_in * scale - 1)
        else:  # asymmetric
            x = o / scale
        if mode == "nearest":
            m[o, min(max(int(np.floor(x)), 0), n_in - 1)] = 1.0
            continue
        x0 = int(np.floor(x))
        r = x - x0
        m[o, min(max(x0, 0), n_in - 1)] += 1 - r
        m[o, min(max(x0 + 1, 0), n_in - 1)] += r
    return m


def resize_case(name, mode, ctm, scales, shape, sizes, dtype=np.float32):
    attrs = dict(mode=mode, coordinate_transformation_mode=ctm)
    if mode == "nearest":
        attrs["nearest_mode"] = "floor"
    t = F if dtype == np.float32 else TensorProto.DOUBLE
    m = gen_util.make_model(name, [helper.make_node("Resize", ["x", "", "scales"], ["y"],
                                                    name="rs", **attrs)],
                            [vi("x", shape, t)], [vi("y", None, t)], [floats("scales", scales)], 13,
                            producer="onnx2c-make_resize")
    rng = np.random.default_rng(len(name))
    sets = []
    for s in sizes:
        x = rng.uniform(-2, 2, s).astype(dtype)
        oh, ow = int(np.floor(s[2] * scales[2])), int(np.floor(s[3] * scales[3]))
        mh = axis_matrix(s[2], oh, scales[2], ctm, mode)
        mw = axis_matrix(s[3], ow, scales[3], ctm, mode)
        y = np.einsum("ah,nchw,bw->ncab", mh, x.astype(np.float64), mw)
        sets.append(([x], [y.astype(dtype)]))
    gen_util.write_case(os.path.join(HERE, "cases", name), m, sets)


resize_case("bilinear_x8_sym", "linear", "half_pixel", [1, 1, 8, 8], ["N", "C", "H", "W"],
            [[1, 5, 12, 10], [2, 3, 4, 5], [1, 21, 4, 4]])
resize_case("bilinear_down_align_sym", "linear", "align_corners", [1, 1, 0.5, 1.5],
            ["N", 7, "H", "W"], [[2, 7, 130, 40], [1, 7, 6, 9]])
resize_case("bilinear_x2_f64", "linear", "half_pixel", [1, 1, 2, 2], [1, 4, "H", "W"],
            [[1, 4, 50, 90], [1, 4, 1, 3]], dtype=np.float64)
resize_case("nearest_x2_par_sym", "nearest", "asymmetric", [1, 1, 2, 2], ["N", 16, "H", "W"],
            [[1, 16, 40, 40], [2, 16, 3, 5]])
