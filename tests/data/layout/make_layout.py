#!/usr/bin/python3
"""Writes the models of tests/unit/test_ops_layout.c (the layout family).  Run:

    /usr/bin/python3 tests/data/layout/make_layout.py

cases/NAME/  backend-test layout (model.onnx, test_data_set_*/input_*.pb, output_*.pb), with
             references computed here by numpy from the ONNX formulas.  Cases with symbolic
             dims have two data sets of different sizes: one generated C serves both.  They
             cover what the ONNX node tests cannot (those pass Slice starts, Pad pads and Split
             sizes as runtime inputs, which this compiler rejects): constant attribute-like
             inputs, the attribute forms of old opsets, symbolic dims, and folding.
shape_*.onnx models whose output shape the unit tests check for given dims.
err_*.onnx   models the compiler must reject with a clear message.
"""
import os
import shutil
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402

CASES = os.path.join(HERE, "cases")
F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64
IMAX, IMIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min
RNG = np.random.default_rng(11)


def make(name, nodes, inputs, outputs, inits=(), opset=13):
    return gen_util.make_model(name, nodes, inputs, outputs, inits, opset, "onnx2c-make_layout")


vi = helper.make_tensor_value_info  # vi(name, type, shape)


def i64(name, vals):
    return gen_util.const(name, vals, np.int64)


save_model = gen_util.save


def case(name, m, sets):
    """sets: list of (inputs, outputs), each a list of numpy arrays."""
    gen_util.write_case(os.path.join(CASES, name), m, sets, named=True)


def rnd(shape, dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-50, 50, shape).astype(dtype)
    return RNG.uniform(-3, 3, shape).astype(dtype)


# ---- references (ONNX formulas)

def ref_slice(x, starts, ends, axes, steps):
    idx = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        d = x.shape[a]
        s = s + d if s < 0 else s
        e = e + d if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), d), min(max(e, 0), d)
        else:
            s, e = min(max(s, 0), d - 1), min(max(e, -1), d - 1)
        n = max(0, -(-(e - s) // st)) if st > 0 else max(0, -(-(s - e) // -st))
        idx[a] = [s + k * st for k in range(n)]
    out = x
    for a in range(x.ndim):
        if isinstance(idx[a], list):
            out = np.take(out, np.array(idx[a], dtype=np.int64), axis=a)
    return out


def ref_pad(x, begin, end, mode, value=0):
    # negative pads crop first, then numpy pads
    sl = tuple(slice(-b if b < 0 else 0, x.shape[d] + e if e < 0 else None)
               for d, (b, e) in enumerate(zip(begin, end)))
    x = x[sl]
    width = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        return np.pad(x, width, mode="constant", constant_values=value)
    return np.pad(x, width, mode=mode)


def d2s(x, b, mode):
    n, c, h, w = x.shape
    if mode == "DCR":
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b)


def s2d(x, b):
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)


def write_cases():
    shutil.rmtree(CASES, ignore_errors=True)
    os.makedirs(CASES)

    # Slice, opset 13, constant inputs on symbolic dims: INT64_MAX end, negative start, step 2
    st, en, ax, sp = [1, -5, 0], [IMAX, 5, -1], [0, 1, 2], [1, 2, 1]
    m = make("slice_sym", [helper.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])],
             [vi("x", F, ["N", 6, "W"])], [vi("y", F, None)],
             [i64("s", st), i64("e", en), i64("a", ax), i64("p", sp)])
    sets = []
    for shp in [(3, 6, 4), (5, 6, 2)]:
        x = rnd(shp)
        sets.append(([x], [ref_slice(x, st, en, ax, sp)]))
    case("slice_sym", m, sets)

    # Slice with negative steps: full reverse with INT64_MIN end, and a start past the end
    st, en, ax, sp = [-1, 100], [IMIN, -100], [1, 0], [-2, -1]
    m = make("slice_neg_steps_sym", [helper.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])],
             [vi("x", F, ["N", "W"])], [vi("y", F, None)],
             [i64("s", st), i64("e", en), i64("a", ax), i64("p", sp)])
    sets = []
    for shp in [(3, 5), (4, 2)]:
        x = rnd(shp)
        sets.append(([x], [ref_slice(x, st, en, ax, sp)]))
    case("slice_neg_steps_sym", m, sets)

    # Slice opset 1: attributes, default axes; int64 data
    m = make("slice_op1", [helper.make_node("Slice", ["x"], ["y"], starts=[1, 0], ends=[3, -1])],
             [vi("x", I64, [4, 5])], [vi("y", I64, None)], opset=1)
    x = rnd((4, 5), np.int64)
    case("slice_op1", m, [([x], [ref_slice(x, [1, 0], [3, -1], [0, 1], [1, 1])])])

    # Pad constant: constant_value input, a negative (cropping) pad, symbolic dims
    pads = [0, 1, 2, 0, 2, -1]
    m = make("pad_constant_sym", [helper.make_node("Pad", ["x", "p", "v"], ["y"])],
             [vi("x", F, ["N", "C", "W"])], [vi("y", F, None)],
             [i64("p", pads), numpy_helper.from_array(np.array(1.5, dtype=np.float32), "v")])
    sets = []
    for shp in [(2, 3, 4), (1, 2, 3)]:
        x = rnd(shp)
        sets.append(([x], [ref_pad(x, pads[:3], pads[3:], "constant", 1.5)]))
    case("pad_constant_sym", m, sets)

    # Pad reflect and edge on symbolic dims
    for mode in ["reflect", "edge"]:
        pads = [1, 2, 0, 2]
        m = make("pad_%s_sym" % mode, [helper.make_node("Pad", ["x", "p"], ["y"], mode=mode)],
                 [vi("x", F, ["N", "W"])], [vi("y", F, None)], [i64("p", pads)])
        sets = []
        for shp in [(2, 4), (3, 5)]:
            x = rnd(shp)
            sets.append(([x], [ref_pad(x, pads[:2], pads[2:], mode)]))
        case("pad_%s_sym" % mode, m, sets)

    # Pad with pads from shape arithmetic: [0, 1, 0, W] = Concat([0, 1, 0], Shape(x)[1:2])
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Slice", ["s", "one", "two"], ["w"]),
             helper.make_node("Concat", ["c", "w"], ["p"], axis=0),
             helper.make_node("Pad", ["x", "p"], ["y"])]
    m = make("pad_shape_pads", nodes, [vi("x", F, ["N", "W"])], [vi("y", F, None)],
             [i64("one", [1]), i64("two", [2]), i64("c", [0, 1, 0])])
    sets = []
    for shp in [(2, 3), (1, 1)]:
        x = rnd(shp)
        sets.append(([x], [ref_pad(x, [0, 1], [0, shp[1]], "constant")]))
    case("pad_shape_pads", m, sets)

    # Pad opset 2: attributes pads and value, int32 data
    m = make("pad_op2", [helper.make_node("Pad", ["x"], ["y"], pads=[1, 0, 0, 2], value=7.0)],
             [vi("x", I32, [2, 3])], [vi("y", I32, None)], opset=2)
    x = rnd((2, 3), np.int32)
    case("pad_op2", m, [([x], [ref_pad(x, [1, 0], [0, 2], "constant", 7)])])

    # Pad opset 18: axes input
    m = make("pad_axes_op18", [helper.make_node("Pad", ["x", "p", "", "a"], ["y"], mode="edge")],
             [vi("x", F, [2, 3])], [vi("y", F, None)], [i64("p", [2, 1]), i64("a", [-1])],
             opset=18)
    x = rnd((2, 3))
    case("pad_axes_op18", m, [([x], [ref_pad(x, [0, 2], [0, 1], "edge")])])

    # Split: sizes from an initializer (13), attribute (11), num_outputs (18), equal parts
    m = make("split_sizes_sym", [helper.make_node("Split", ["x", "s"], ["a", "b", "c"], axis=1)],
             [vi("x", F, ["N", 6])], [vi(k, F, None) for k in "abc"], [i64("s", [1, 2, 3])])
    sets = []
    for n in [2, 3]:
        x = rnd((n, 6))
        sets.append(([x], [x[:, :1], x[:, 1:3], x[:, 3:]]))
    case("split_sizes_sym", m, sets)

    m = make("split_op11", [helper.make_node("Split", ["x"], ["a", "b"], axis=0, split=[2, 1])],
             [vi("x", I64, [3, "W"])], [vi(k, I64, None) for k in "ab"], opset=11)
    sets = []
    for w in [2, 4]:
        x = rnd((3, w), np.int64)
        sets.append(([x], [x[:2], x[2:]]))
    case("split_op11", m, sets)

    m = make("split_num_outputs_op18",
             [helper.make_node("Split", ["x"], ["a", "b", "c"], num_outputs=3)],
             [vi("x", F, ["N"])], [vi(k, F, None) for k in "abc"], opset=18)
    sets = []
    for n in [7, 9]:
        x = rnd((n,))
        k = -(-n // 3)
        sets.append(([x], [x[:k], x[k:2 * k], x[2 * k:]]))
    case("split_num_outputs_op18", m, sets)

    m = make("split_equal_sym", [helper.make_node("Split", ["x"], ["a", "b"], axis=-1)],
             [vi("x", F, ["N", "W"])], [vi(k, F, None) for k in "ab"])
    sets = []
    for shp in [(2, 4), (3, 6)]:
        x = rnd(shp)
        h = shp[1] // 2
        sets.append(([x], [x[:, :h], x[:, h:]]))
    case("split_equal_sym", m, sets)

    m = make("split_zero", [helper.make_node("Split", ["x", "s"], ["a", "b", "c"])],
             [vi("x", F, [4])], [vi(k, F, None) for k in "abc"], [i64("s", [0, 4, 0])])
    x = rnd((4,))
    case("split_zero", m, [([x], [x[:0], x, x[:0]])])

    # Folding: Shape -> Gather / Slice -> Unsqueeze -> Concat -> Reshape, then Transpose
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
             helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
             helper.make_node("Slice", ["s", "two", "three"], ["h"]),
             helper.make_node("Concat", ["n1", "three", "h", "minus1"], ["t"], axis=0),
             helper.make_node("Reshape", ["x", "t"], ["r"]),
             helper.make_node("Transpose", ["r"], ["y"], perm=[0, 2, 3, 1])]
    m = make("fold_shape_concat", nodes, [vi("x", F, ["N", 3, "H", "W"])], [vi("y", F, None)],
             [numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"), i64("ax0", [0]),
              i64("two", [2]), i64("three", [3]), i64("minus1", [-1])])
    sets = []
    for shp in [(2, 3, 4, 5), (1, 3, 2, 3)]:
        x = rnd(shp)
        sets.append(([x], [x.transpose(0, 2, 3, 1)]))
    case("fold_shape_concat", m, sets)

    # Folding dense constants: Transpose and Concat of initializers, then used at run time
    w = rnd((3, 2))
    nodes = [helper.make_node("Transpose", ["w"], ["wt"]),
             helper.make_node("Concat", ["wt", "wt"], ["w2"], axis=0),
             helper.make_node("Add", ["x", "w2"], ["y"])]
    m = make("fold_dense", nodes, [vi("x", F, [4, 3])], [vi("y", F, None)],
             [numpy_helper.from_array(w, "w")])
    x = rnd((4, 3))
    case("fold_dense", m, [([x], [x + np.concatenate([w.T, w.T], 0)])])

    # Concat of a constant and a runtime input on a symbolic axis
    c = rnd((1, 2))
    m = make("concat_const_sym", [helper.make_node("Concat", ["c", "x"], ["y"], axis=0)],
             [vi("x", F, ["N", 2])], [vi("y", F, None)], [numpy_helper.from_array(c, "c")])
    sets = []
    for n in [3, 1]:
        x = rnd((n, 2))
        sets.append(([x], [np.concatenate([c, x], 0)]))
    case("concat_const_sym", m, sets)

    # Gather: 2-D constant indices with negatives on axis 1 of a symbolic tensor
    ind = np.array([[0, -1], [2, 2]], dtype=np.int64)
    m = make("gather_axis1_sym", [helper.make_node("Gather", ["x", "i"], ["y"], axis=1)],
             [vi("x", F, ["N", 5, "W"])], [vi("y", F, None)], [numpy_helper.from_array(ind, "i")])
    sets = []
    for shp in [(2, 5, 3), (1, 5, 1)]:
        x = rnd(shp)
        sets.append(([x], [np.take(x, ind % 5, axis=1)]))
    case("gather_axis1_sym", m, sets)

    # Gather: scalar int32 runtime index
    m = make("gather_scalar_i32", [helper.make_node("Gather", ["x", "i"], ["y"])],
             [vi("x", F, [4, 3]), vi("i", I32, [])], [vi("y", F, None)])
    x = rnd((4, 3))
    i = np.array(-2, dtype=np.int32)
    case("gather_scalar_i32", m, [([x, i], [x[2]])])

    # GatherElements: int32 data, axis 1 of a symbolic tensor, negative indices
    m = make("gather_elements_sym", [helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1)],
             [vi("x", I32, ["N", 4]), vi("i", I64, ["N", 3])], [vi("y", I32, None)])
    sets = []
    for n in [2, 3]:
        x = rnd((n, 4), np.int32)
        i = RNG.integers(-4, 4, (n, 3)).astype(np.int64)
        sets.append(([x, i], [np.take_along_axis(x, i % 4, axis=1)]))
    case("gather_elements_sym", m, sets)

    # DepthToSpace (both modes) and SpaceToDepth on symbolic dims
    for mode in ["DCR", "CRD"]:
        nm = "depthtospace_%s_sym" % mode.lower()
        m = make(nm, [helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode=mode)],
                 [vi("x", F, ["N", 8, "H", "W"])], [vi("y", F, None)])
        sets = []
        for shp in [(1, 8, 2, 3), (2, 8, 3, 1)]:
            x = rnd(shp)
            sets.append(([x], [d2s(x, 2, mode)]))
        case(nm, m, sets)
    m = make("spacetodepth_sym", [helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=2)],
             [vi("x", F, ["N", "C", "H", "W"])], [vi("y", F, None)])
    sets = []
    for shp in [(1, 2, 4, 6), (2, 3, 2, 2)]:
        x = rnd(shp)
        sets.append(([x], [s2d(x, 2)]))
    case("spacetodepth_sym", m, sets)

    # Transpose: default perm on a symbolic 3-D tensor
    m = make("transpose_default_sym", [helper.make_node("Transpose", ["x"], ["y"])],
             [vi("x", F, ["N", 3, "W"])], [vi("y", F, None)])
    sets = []
    for shp in [(2, 3, 4), (1, 3, 1)]:
        x = rnd(shp)
        sets.append(([x], [x.transpose()]))
    case("transpose_default_sym", m, sets)

    concat_inplace_cases()

    # Transposes in 16 x 16 tiles: several tiles and partial ones, 3-D and NCHW -> NHWC
    m = make("transpose_tiles_sym", [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 1])],
             [vi("x", F, ["N", 37, "W"])], [vi("y", F, None)])
    sets = []
    for shp in [(2, 37, 20), (1, 37, 3)]:
        x = rnd(shp)
        sets.append(([x], [x.transpose(0, 2, 1)]))
    case("transpose_tiles_sym", m, sets)
    m = make("transpose_nhwc_sym",
             [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1])],
             [vi("x", F, ["N", 19, "H", "W"])], [vi("y", F, None)])
    sets = []
    for shp in [(1, 19, 5, 17), (2, 19, 2, 40)]:
        x = rnd(shp)
        sets.append(([x], [x.transpose(0, 2, 3, 1)]))
    case("transpose_nhwc_sym", m, sets)


def concat_inplace_cases():
    """Concat inputs that the plan places inside the output (their producers write there and
    the Concat copies nothing of them), and the ones it must not: a graph input, an input given
    twice, an input of two Concats, a nested Concat, a block that is not contiguous or not at a
    multiple of 64 bytes, an input read after the Concat, in-place ops before and after,
    aliases (Reshape) on both sides.  Blocks of 16 floats a row, so that most start at a
    multiple of 64 bytes."""
    H, W = "H", "W"
    nd = helper.make_node
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
    relu = lambda v: np.maximum(v, 0)  # noqa: E731

    # Fire-like, symbolic H x W (offsets are expressions): two branches written inside y0;
    # e1 read again after the Concat; y0 read by an op that runs in place over it
    m = make("concat_inplace_fire_sym", [
        nd("Sigmoid", ["x"], ["s"]), nd("Relu", ["s"], ["e1"]), nd("Neg", ["s"], ["e2"]),
        nd("Concat", ["e1", "e2"], ["y0"], axis=1), nd("Exp", ["y0"], ["y1"]),
        nd("Tanh", ["y1"], ["y"]), nd("Add", ["e1", "e1"], ["z"])],
        [vi("x", F, [1, 16, H, W])], [vi("y", F, None), vi("z", F, None)])
    sets = []
    for shp in [(1, 16, 4, 5), (1, 16, 2, 7)]:
        x = rnd(shp)
        sv = sig(x)
        y0 = np.concatenate([relu(sv), -sv], axis=1)
        sets.append(([x], [np.tanh(np.exp(y0)), relu(sv) * 2]))
    case("concat_inplace_fire_sym", m, sets)

    # a graph input beside a temporary; the same input twice; in-place chains before the
    # Concat (u over t) and after it (w over the Concat's second block, the group's last use)
    m = make("concat_inplace_mixed", [
        nd("Relu", ["x"], ["t"]), nd("Sigmoid", ["t"], ["u"]), nd("Neg", ["x"], ["d"]),
        nd("Concat", ["x", "u", "d", "d"], ["y0"], axis=1), nd("Exp", ["y0"], ["y"]),
        nd("Abs", ["u"], ["w"]), nd("Sqrt", ["w"], ["z"])],
        [vi("x", F, [1, 16, 3])], [vi("y", F, None), vi("z", F, None)])
    x = rnd((1, 16, 3))
    u = sig(relu(x))
    case("concat_inplace_mixed", m,
         [([x], [np.exp(np.concatenate([x, u, -x, -x], axis=1)), np.sqrt(np.abs(u))])])

    # nested Concats, an input of two Concats, a Reshape (alias) as an input and of the
    # output, axis 0 with a symbolic leading dim (always one block per input)
    m = make("concat_inplace_nested_sym", [
        nd("Relu", ["x"], ["a"]), nd("Neg", ["x"], ["b"]), nd("Sigmoid", ["x"], ["c"]),
        nd("Concat", ["a", "b"], ["ab"], axis=0), nd("Concat", ["ab", "c"], ["abc"], axis=0),
        nd("Concat", ["c", "a"], ["ca"], axis=0), nd("Reshape", ["b", "shp"], ["br"]),
        nd("Exp", ["br"], ["bre"]), nd("Concat", ["bre", "br"], ["brr"], axis=1),
        nd("Reshape", ["brr", "shp2"], ["brr2"]), nd("Tanh", ["brr2"], ["y3"]),
        nd("Exp", ["abc"], ["y1"]), nd("Abs", ["ca"], ["y2"])],
        [vi("x", F, ["N", 16])], [vi("y1", F, None), vi("y2", F, None), vi("y3", F, None)],
        [i64("shp", [-1, 2]), i64("shp2", [-1])])
    sets = []
    for n_ in (3, 1):
        x = rnd((n_, 16))
        a, b, c = relu(x), -x, sig(x)
        br = b.reshape(-1, 2)
        brr = np.concatenate([np.exp(br), br], axis=1)
        sets.append(([x], [np.exp(np.concatenate([a, b, c], axis=0)),
                           np.abs(np.concatenate([c, a], axis=0)), np.tanh(brr.reshape(-1))]))
    case("concat_inplace_nested_sym", m, sets)

    # blocks that are not contiguous in the output (axis 2 under a dim of 2; batch N on
    # axis 1): copied
    m = make("concat_inplace_strided_sym", [
        nd("Relu", ["x"], ["a"]), nd("Neg", ["x"], ["b"]),
        nd("Concat", ["a", "b"], ["y0"], axis=2), nd("Concat", ["a", "b"], ["y1"], axis=1),
        nd("Exp", ["y0"], ["y"]), nd("Sigmoid", ["y1"], ["z"])],
        [vi("x", F, ["N", 2, 3])], [vi("y", F, None), vi("z", F, None)])
    sets = []
    for n_ in (1, 2):
        x = rnd((n_, 2, 3))
        a, b = relu(x), -x
        sets.append(([x], [np.exp(np.concatenate([a, b], axis=2)),
                           sig(np.concatenate([a, b], axis=1))]))
    case("concat_inplace_strided_sym", m, sets)


def write_models():
    def save(name, nodes, inputs, inits=(), opset=13):
        save_model(os.path.join(HERE, name + ".onnx"),
                   make(name, nodes, inputs, [vi("y", F, None)], inits, opset))

    # shapes
    save("shape_slice_sym",
         [helper.make_node("Slice", ["x", "s", "e"], ["y"])],
         [vi("x", F, ["N", "W"])], [i64("s", [1, -3]), i64("e", [IMAX, IMAX])])
    save("shape_concat_sym",
         [helper.make_node("Concat", ["x", "z"], ["y"], axis=1)],
         [vi("x", F, ["N", "W"]), vi("z", F, ["N", 2])])
    # errors
    save("err_concat_dim",
         [helper.make_node("Concat", ["x", "z"], ["y"], axis=0)],
         [vi("x", F, [2, 3]), vi("z", F, [2, 4])])
    save("slice_runtime_data",
         [helper.make_node("Slice", ["x", "s", "e"], ["y"])],
         [vi("x", F, [4]), vi("s", I64, [1]), vi("e", I64, [1])])
    save("err_transpose_perm",
         [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0])], [vi("x", F, [2, 3])])
    save("err_split_sum",
         [helper.make_node("Split", ["x", "s"], ["y", "y2"])], [vi("x", F, [3])],
         [i64("s", [1, 1])])
    save("err_pad_reflect",
         [helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect")], [vi("x", F, [3])],
         [i64("p", [3, 0])])
    save("err_gather_range",
         [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Gather", ["s", "i"], ["y"])],
         [vi("x", F, [2, 3])], [i64("i", [2])])


if __name__ == "__main__":
    write_cases()
    write_models()
