#!/usr/bin/python3
"""Writes the small ONNX models that tests/unit/test_ops_reduce.c feeds the compiler.

Run with Debian's python3-onnx (onnx 1.12) and numpy; the outputs are committed next to this
script so the tests never need Python:

    /usr/bin/python3 tests/data/reduce/make_reduce.py

cases/NAME/  backend-test layout (model.onnx, test_data_set_*/input_*.pb, output_*.pb), with
             references computed here by numpy from the ONNX formulas.  Cases with symbolic
             dims have two data sets of different sizes: one generated C serves both.
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
F, D, I8, U8, I32, I64 = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT8,
                          TensorProto.UINT8, TensorProto.INT32, TensorProto.INT64)
NP = {F: np.float32, D: np.float64, I8: np.int8, U8: np.uint8, I32: np.int32, I64: np.int64}


def make(name, node, inputs, outputs, inits=(), opset=13, extra_nodes=()):
    return gen_util.make_model(name, list(extra_nodes) + [node], inputs, outputs, inits, opset,
                               "onnx2c-make_reduce")


vi = helper.make_tensor_value_info  # vi(name, type, shape)
save_model = gen_util.save


def case(name, m, sets):
    """sets: list of (inputs, outputs), each a list of numpy arrays."""
    gen_util.write_case(os.path.join(CASES, name), m, sets, named=True)


RNG = np.random.default_rng(7)


def data(t, shape, lo=-5, hi=5):
    if t in (F, D):
        return RNG.uniform(lo, hi, shape).astype(NP[t])
    info = np.iinfo(NP[t])
    return RNG.integers(max(lo, info.min), min(hi, info.max) + 1, shape).astype(NP[t])


# ONNX reduction formulas (y = finalize(fold(x))); empty sets give the spec's identities.
def ref(op, x, axes, keepdims):
    ax = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    t = x.dtype
    wide = np.float64 if t.kind == "f" else np.int64
    if op == "ReduceSum":
        y = np.sum(x, axis=ax, keepdims=keepdims, dtype=wide)
    elif op == "ReduceSumSquare":
        y = np.sum(x.astype(wide) ** 2, axis=ax, keepdims=keepdims)
    elif op == "ReduceMean":
        s = np.sum(x, axis=ax, keepdims=keepdims, dtype=wide)
        n = int(np.prod([x.shape[a] for a in ax]))
        if t.kind == "f":
            y = s / n
        else:  # C integer division truncates toward zero; an empty mean is 0
            y = np.fix(s / n).astype(wide) if n else np.zeros_like(s)
    elif op == "ReduceProd":
        y = np.prod(x.astype(wide), axis=ax, keepdims=keepdims)
    elif op == "ReduceMax":
        init = -np.inf if t.kind == "f" else np.iinfo(t).min
        y = np.max(x, axis=ax, keepdims=keepdims, initial=init)
    elif op == "ReduceMin":
        init = np.inf if t.kind == "f" else np.iinfo(t).max
        y = np.min(x, axis=ax, keepdims=keepdims, initial=init)
    elif op == "ReduceL1":
        y = np.sum(np.abs(x.astype(wide)), axis=ax, keepdims=keepdims)
    elif op == "ReduceL2":
        y = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=ax, keepdims=keepdims))
    elif op == "ReduceLogSum":
        with np.errstate(divide="ignore"):
            y = np.log(np.sum(x.astype(np.float64), axis=ax, keepdims=keepdims))
    elif op == "ReduceLogSumExp":
        m = np.max(x.astype(np.float64), axis=ax, keepdims=True)
        y = m + np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True))
        if not keepdims:
            y = np.squeeze(y, axis=ax)
    else:
        raise ValueError(op)
    return np.asarray(y).astype(t)


def reduce_case(name, op, t, shapes, axes, keepdims=1, dims=None, opset=13, axes_input=False,
                lo=-5, hi=5):
    """One reduction over x of type t; shapes: the concrete shape of each data set; dims: the
    declared input shape (names for symbolic dims) or None for the first concrete shape."""
    attrs = {"keepdims": keepdims}
    inputs = [vi("x", t, dims or list(shapes[0]))]
    inits = []
    node_in = ["x"]
    if axes is not None:
        if axes_input:
            inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
            node_in.append("axes")
        else:
            attrs["axes"] = axes
    node = helper.make_node(op, node_in, ["y"], **attrs)
    m = make(name, node, inputs, [vi("y", t, None)], inits, opset)
    sets = []
    for s in shapes:
        x = data(t, s, lo, hi)
        sets.append(([x], [ref(op, x, axes, keepdims)]))
    case(name, m, sets)


def arg_case(name, op, t, shapes, axis, keepdims, last, dims=None, lo=-2, hi=2):
    node = helper.make_node(op, ["x"], ["y"], axis=axis, keepdims=keepdims, select_last_index=last)
    m = make(name, node, [vi("x", t, dims or list(shapes[0]))], [vi("y", I64, None)])
    sets = []
    for s in shapes:
        x = data(t, s, lo, hi)  # few distinct values: many ties
        f = np.argmax if op == "ArgMax" else np.argmin
        if last:
            xf = np.flip(x, axis=axis)
            y = x.shape[axis] - 1 - f(xf, axis=axis)
        else:
            y = f(x, axis=axis)
        if keepdims:
            y = np.expand_dims(y, axis)
        sets.append(([x], [y.astype(np.int64)]))
    case(name, m, sets)


def write_cases():
    shutil.rmtree(CASES, ignore_errors=True)
    os.makedirs(CASES)
    sym = [(2, 3, 4), (5, 3, 1)]
    # symbolic dims, several axis groups, axes attribute and input
    reduce_case("sum_sym_axes02", "ReduceSum", F, sym, [0, 2], 0, ["N", 3, "W"], axes_input=True)
    reduce_case("mean_sym_neg", "ReduceMean", F, sym, [-1], 1, ["N", 3, "W"])
    reduce_case("max_sym_all", "ReduceMax", F, sym, None, 0, ["N", 3, "W"])
    reduce_case("l2_sym_mid", "ReduceL2", D, sym, [1], 1, ["N", 3, "W"])
    reduce_case("lse_large", "ReduceLogSumExp", F, [(3, 5)], [1], 0, lo=500, hi=1000)
    reduce_case("logsum_sym", "ReduceLogSum", F, sym, [0, 1], 1, ["N", 3, "W"], lo=0.1, hi=3)
    reduce_case("noop_sym", "ReduceSum", F, sym, None, 1, ["N", 3, "W"])  # overwritten below
    # element types
    reduce_case("max_i8", "ReduceMax", I8, [(2, 3, 4)], [1], 1, lo=-128, hi=127)
    reduce_case("min_u8", "ReduceMin", U8, [(2, 3, 4)], [0, 2], 0, lo=0, hi=255)
    reduce_case("sum_i32", "ReduceSum", I32, [(2, 3, 4)], [2], 0, lo=-1000, hi=1000,
                axes_input=True)
    reduce_case("prod_i64", "ReduceProd", I64, [(2, 3, 4)], [1], 1, lo=-9, hi=9)
    reduce_case("mean_i32", "ReduceMean", I32, [(2, 3, 4)], [1, 2], 0, lo=-100, hi=100)
    reduce_case("l1_i64", "ReduceL1", I64, [(2, 3, 4)], [-1], 1, lo=-100, hi=100)
    reduce_case("sumsq_f64", "ReduceSumSquare", D, [(2, 3, 4)], [0], 0)
    reduce_case("sumsq_u8", "ReduceSumSquare", U8, [(2, 3, 4)], [0, 1, 2], 1, lo=0, hi=9)
    # empty reductions: the spec's identities
    reduce_case("min_empty", "ReduceMin", F, [(2, 0, 3)], [1], 1)
    reduce_case("max_empty_i32", "ReduceMax", I32, [(2, 0, 3)], [1], 0)
    reduce_case("sum_empty", "ReduceSum", F, [(2, 0, 3)], [1], 0, axes_input=True)
    reduce_case("prod_empty", "ReduceProd", F, [(2, 0, 3)], [1], 1)
    reduce_case("logsum_empty", "ReduceLogSum", F, [(2, 0, 3)], [1], 1)
    # opset 18: axes as an input for every reduction
    reduce_case("max_op18", "ReduceMax", F, [(2, 3, 4)], [1], 0, opset=18, axes_input=True)
    # noop_with_empty_axes: y = x
    shutil.rmtree(os.path.join(CASES, "noop_sym"))
    node = helper.make_node("ReduceSum", ["x"], ["y"], keepdims=1, noop_with_empty_axes=1)
    m = make("noop_sym", node, [vi("x", F, ["N", 3, "W"])], [vi("y", F, None)])
    xs = [data(F, s) for s in sym]
    case("noop_sym", m, [([x], [x]) for x in xs])
    # ArgMax / ArgMin
    arg_case("argmax_i32_last", "ArgMax", I32, [(3, 4, 5)], 1, 1, 1)
    arg_case("argmin_sym", "ArgMin", D, sym, -1, 0, 0, ["N", 3, "W"])
    arg_case("argmax_u8_first", "ArgMax", U8, [(3, 6)], 0, 0, 0, lo=0, hi=2)
    # folding: ReduceProd(Shape(x)) of a symbolic shape feeds a Reshape to 1-D
    nodes = [helper.make_node("Shape", ["x"], ["s"])]
    node_p = helper.make_node("ReduceProd", ["s"], ["p"], keepdims=1)
    node_r = helper.make_node("Reshape", ["x", "p"], ["y"])
    m = gen_util.make_model("fold_prod_shape", nodes + [node_p, node_r],
                            [vi("x", F, ["N", 3, "W"])], [vi("y", F, None)])
    case("fold_prod_shape", m, [([x], [x.reshape(-1)]) for x in xs])
    # sums along the contiguous last axis in 8 lanes: blocks of 8 and a remainder
    reduce_case("mean_lanes_sym", "ReduceMean", F, [(2, 3, 37), (1, 2, 8), (1, 1, 5)], [-1], 1,
                ["N", "C", "W"])
    reduce_case("l1_lanes", "ReduceL1", F, [(3, 41)], [1], 0)
    reduce_case("sumsq_lanes_f64", "ReduceSumSquare", D, [(2, 19)], [-1], 1)


def write_models():
    def reduce_model(name, op, dims, t=F, opset=13, **attrs):
        node = helper.make_node(op, ["x"], ["y"], **attrs)
        save_model(os.path.join(HERE, name), make(name, node, [vi("x", t, dims)], [vi("y", t, None)],
                                                  opset=opset))

    # shapes: x[N, C, W]
    reduce_model("shape_keep_neg.onnx", "ReduceMean", ["N", "C", "W"], axes=[-1], keepdims=1)
    reduce_model("shape_drop_two.onnx", "ReduceMax", ["N", "C", "W"], axes=[0, -1], keepdims=0)
    reduce_model("shape_all_drop.onnx", "ReduceL2", ["N", "C", "W"], keepdims=0)
    reduce_model("shape_all_keep.onnx", "ReduceLogSumExp", ["N", "C", "W"])
    node = helper.make_node("ArgMax", ["x"], ["y"], axis=-2, keepdims=0)
    save_model(os.path.join(HERE, "shape_argmax.onnx"),
               make("shape_argmax", node, [vi("x", F, ["N", "C", "W"])], [vi("y", I64, None)]))
    # errors
    reduce_model("err_axis_range.onnx", "ReduceSumSquare", ["N", "C", "W"], axes=[3])
    reduce_model("err_axis_twice.onnx", "ReduceMin", ["N", "C", "W"], axes=[1, -2])
    reduce_model("err_opset18_attr.onnx", "ReduceMax", ["N", "C", "W"], opset=18, axes=[1])
    node = helper.make_node("ArgMin", ["x"], ["y"], axis=-4)
    save_model(os.path.join(HERE, "err_arg_axis.onnx"),
               make("err_arg_axis", node, [vi("x", F, ["N", "C", "W"])], [vi("y", I64, None)]))
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"])
    save_model(os.path.join(HERE, "axes_runtime_data.onnx"),
               make("axes_runtime_data", node, [vi("x", F, ["N", "C", "W"]), vi("axes", I64, [1])],
                    [vi("y", F, None)]))
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"])
    save_model(os.path.join(HERE, "err_axes_float.onnx"),
               make("err_axes_float", node, [vi("x", F, ["N", "C", "W"])], [vi("y", F, None)],
                    [numpy_helper.from_array(np.array([1.0], np.float32), "axes")]))


if __name__ == "__main__":
    write_cases()
    write_models()
