#!/usr/bin/python3
"""Writes the small models of tests/unit/test_ops_shape.c, next to this script (run from any
folder: /usr/bin/python3 tests/data/shape/make_shape.py).

Every model has symbolic dims, so the shape arithmetic must fold into symbolic expressions:
  reshape_mul.onnx      x[N,3,H,W] -> Shape(end=2) * [1,0] + [0,-1] -> Reshape -> y[N,3*H*W]
  reshape_gather.onnx   x[N,3,H,W] -> Shape -> Gather(0) -> Unsqueeze -> Concat([-1]) -> Reshape
  reshape_div.onnx      x[N,W] -> Reshape([-1,4]) -> y[N*W/4,4]: N*W must be a multiple of 4
  moves.onnx            Flatten, Squeeze(Unsqueeze), Identity, Dropout(+mask) of x[N,C,W]
  expand_tile.onnx      Expand(x[N,1], Shape(z[N,W])), Tile(x, [2,3])
  fill_range.onnx       ConstantOfShape(Shape(x)) = 7 (int64), Range(0, Size(x), 1)
  range_float.onnx      Range(1.0, Cast(W, float), 2.0) and Range(Cast(W, float), -1.0, -1.0), x[N,W]
  constants.onnx        Constant value_float, value_floats, value_int, value_ints, value tensor
  bad_reshape_runtime.onnx  Reshape whose target shape is a runtime input (data-dependent)
  bad_reshape_two_neg.onnx  Reshape target with two -1
  bad_constant_sparse.onnx  Constant with sparse_value
  bad_squeeze_not_one.onnx  Squeeze of an axis of size 3
  bad_range_float_step.onnx Range(0.0, Cast(W, float), 0.5): a symbolic float length needs integers
  dropout_train.onnx    Dropout(x[N], ratio r, training_mode t) -> y, mask; r and t runtime inputs,
                        seed 7
  dropout_train_f16.onnx  Dropout(x[N] float16, ratio 0.5 constant, training_mode t) -> y, mask
  dropout_train_inplace.onnx  Relu(x[N]) -> Dropout(r, t) -> Add(d, d): the Dropout's output
                        in a buffer of its own (plan.c aliases only an inference Dropout)
  bad_dropout_ratio.onnx  Dropout with training_mode true and ratio 1 (constants)
  dropout_train_shared.onnx  Relu(x) read by a training Dropout and by an Add after it
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402

OPSET = 15


def save(name, nodes, inputs, outputs, inits=(), check=False):
    m = gen_util.make_model(name, nodes, inputs, outputs, inits, OPSET, "make_shape.py")
    if check:  # outputs carry no declared shape, which the checker of some onnx versions rejects
        onnx.checker.check_model(m)
    gen_util.save(os.path.join(HERE, name + ".onnx"), m)


vi = h.make_tensor_value_info  # vi(name, type, shape)


def c64(name, vals):
    return nh.from_array(np.array(vals, dtype=np.int64), name)


save("reshape_mul",
     [h.make_node("Shape", ["x"], ["s"], end=2),
      h.make_node("Mul", ["s", "keep"], ["m"]),
      h.make_node("Add", ["m", "neg"], ["t"]),
      h.make_node("Reshape", ["x", "t"], ["y"])],
     [vi("x", TP.FLOAT, ["N", 3, "H", "W"])], [vi("y", TP.FLOAT, None)],
     [c64("keep", [1, 0]), c64("neg", [0, -1])])

save("reshape_gather",
     [h.make_node("Shape", ["x"], ["s"]),
      h.make_node("Gather", ["s", "zero"], ["n"], axis=0),
      h.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
      h.make_node("Concat", ["n1", "minus1"], ["t"], axis=0),
      h.make_node("Reshape", ["x", "t"], ["y"])],
     [vi("x", TP.FLOAT, ["N", 3, "H", "W"])], [vi("y", TP.FLOAT, None)],
     [nh.from_array(np.array(0, dtype=np.int64), "zero"), c64("axes0", [0]), c64("minus1", [-1])])

save("reshape_div",
     [h.make_node("Reshape", ["x", "t"], ["y"])],
     [vi("x", TP.FLOAT, ["N", "W"])], [vi("y", TP.FLOAT, None)], [c64("t", [-1, 4])])

save("moves",
     [h.make_node("Flatten", ["x"], ["f"], axis=2),
      h.make_node("Unsqueeze", ["x", "ax"], ["u"]),
      h.make_node("Squeeze", ["u", "ax"], ["sq"]),
      h.make_node("Identity", ["sq"], ["id"]),
      h.make_node("Dropout", ["id"], ["d", "mask"])],
     [vi("x", TP.FLOAT, ["N", "C", "W"])],
     [vi("f", TP.FLOAT, None), vi("u", TP.FLOAT, None), vi("d", TP.FLOAT, None),
      vi("mask", TP.BOOL, None)],
     [c64("ax", [1])])

save("expand_tile",
     [h.make_node("Shape", ["z"], ["zs"]),
      h.make_node("Expand", ["x", "zs"], ["e"]),
      h.make_node("Tile", ["x", "reps"], ["t"])],
     [vi("x", TP.FLOAT, ["N", 1]), vi("z", TP.FLOAT, ["N", "W"])],
     [vi("e", TP.FLOAT, None), vi("t", TP.FLOAT, None)],
     [c64("reps", [2, 3])])

save("fill_range",
     [h.make_node("Shape", ["x"], ["s"]),
      h.make_node("ConstantOfShape", ["s"], ["c"],
                  value=nh.from_array(np.array([7], dtype=np.int64), "v")),
      h.make_node("Size", ["x"], ["n"]),
      h.make_node("Range", ["zero", "n", "one"], ["r"])],
     [vi("x", TP.FLOAT, ["N", "W"])],
     [vi("c", TP.INT64, None), vi("r", TP.INT64, None)],
     [nh.from_array(np.array(0, dtype=np.int64), "zero"),
      nh.from_array(np.array(1, dtype=np.int64), "one")])


def f32(name, v):
    return nh.from_array(np.array(v, dtype=np.float32), name)


save("range_float",
     [h.make_node("Shape", ["x"], ["s"]),
      h.make_node("Gather", ["s", "one"], ["w"], axis=0),
      h.make_node("Cast", ["w"], ["wf"], to=TP.FLOAT),
      h.make_node("Range", ["st", "wf", "de"], ["r"]),
      h.make_node("Range", ["wf", "m1", "m1"], ["q"])],
     [vi("x", TP.FLOAT, ["N", "W"])],
     [vi("r", TP.FLOAT, None), vi("q", TP.FLOAT, None)],
     [nh.from_array(np.array(1, dtype=np.int64), "one"), f32("st", 1.0), f32("de", 2.0),
      f32("m1", -1.0)])

save("bad_range_float_step",
     [h.make_node("Shape", ["x"], ["s"]),
      h.make_node("Gather", ["s", "one"], ["w"], axis=0),
      h.make_node("Cast", ["w"], ["wf"], to=TP.FLOAT),
      h.make_node("Range", ["st", "wf", "de"], ["r"], name="rg")],
     [vi("x", TP.FLOAT, ["N", "W"])], [vi("r", TP.FLOAT, None)],
     [nh.from_array(np.array(1, dtype=np.int64), "one"), f32("st", 0.0), f32("de", 0.5)])

save("constants",
     [h.make_node("Constant", [], ["a"], value_float=1.5),
      h.make_node("Constant", [], ["b"], value_floats=[1.0, -2.0, 3.25]),
      h.make_node("Constant", [], ["c"], value_int=-7),
      h.make_node("Constant", [], ["d"], value_ints=[4, 5]),
      h.make_node("Constant", [], ["e"],
                  value=nh.from_array(np.array([[1, 2], [3, 4]], dtype=np.int32), "e")),
      h.make_node("Shape", ["x"], ["xs"]),
      h.make_node("Add", ["xs", "d"], ["f"])],
     [vi("x", TP.FLOAT, ["N", "W"])],
     [vi("a", TP.FLOAT, None), vi("b", TP.FLOAT, None), vi("c", TP.INT64, None),
      vi("d", TP.INT64, None), vi("e", TP.INT32, None), vi("f", TP.INT64, None)])

save("bad_reshape_runtime",
     [h.make_node("Reshape", ["x", "t"], ["y"], name="rs")],
     [vi("x", TP.FLOAT, ["N", 4]), vi("t", TP.INT64, [2])], [vi("y", TP.FLOAT, None)])

save("bad_reshape_two_neg",
     [h.make_node("Reshape", ["x", "t"], ["y"], name="rs")],
     [vi("x", TP.FLOAT, ["N", 4])], [vi("y", TP.FLOAT, None)], [c64("t", [-1, -1])])

sp = h.make_sparse_tensor(nh.from_array(np.array([1.0], dtype=np.float32), "vals"),
                          nh.from_array(np.array([0], dtype=np.int64), "idx"), [2])
save("bad_constant_sparse",
     [h.make_node("Constant", [], ["y"], name="k", sparse_value=sp)],
     [], [vi("y", TP.FLOAT, None)], check=False)

save("bad_squeeze_not_one",
     [h.make_node("Squeeze", ["x", "ax"], ["y"], name="sq")],
     [vi("x", TP.FLOAT, ["N", 3])], [vi("y", TP.FLOAT, None)], [c64("ax", [1])])

save("dropout_train",
     [h.make_node("Dropout", ["x", "r", "t"], ["y", "mask"], name="drop", seed=7)],
     [vi("x", TP.FLOAT, ["N"]), vi("r", TP.FLOAT, []), vi("t", TP.BOOL, [])],
     [vi("y", TP.FLOAT, None), vi("mask", TP.BOOL, None)])

save("dropout_train_f16",
     [h.make_node("Dropout", ["x", "r", "t"], ["y", "mask"], name="drop")],
     [vi("x", TP.FLOAT16, ["N"]), vi("t", TP.BOOL, [])],
     [vi("y", TP.FLOAT16, None), vi("mask", TP.BOOL, None)],
     [nh.from_array(np.array(0.5, dtype=np.float32), "r")])

save("dropout_train_inplace",
     [h.make_node("Relu", ["x"], ["a"], name="relu"),
      h.make_node("Dropout", ["a", "r", "t"], ["d"], name="drop", seed=7),
      h.make_node("Add", ["d", "d"], ["y"], name="add")],
     [vi("x", TP.FLOAT, ["N"]), vi("r", TP.FLOAT, []), vi("t", TP.BOOL, [])],
     [vi("y", TP.FLOAT, None)])

save("bad_dropout_ratio",
     [h.make_node("Dropout", ["x", "r", "t"], ["y"], name="drop")],
     [vi("x", TP.FLOAT, ["N"])], [vi("y", TP.FLOAT, None)],
     [nh.from_array(np.array(1.0, dtype=np.float32), "r"),
      nh.from_array(np.array(True), "t")])

save("dropout_train_shared",
     [h.make_node("Relu", ["x"], ["a"], name="relu"),
      h.make_node("Dropout", ["a", "r", "t"], ["d"], name="drop"),
      h.make_node("Add", ["d", "a"], ["y"], name="add")],
     [vi("x", TP.FLOAT, ["N"]), vi("r", TP.FLOAT, []), vi("t", TP.BOOL, [])],
     [vi("y", TP.FLOAT, None)])
