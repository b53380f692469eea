#!/usr/bin/python3
"""Writes the small ONNX models and tensors that tests/unit/test_load.c feeds the compiler.

Run from anywhere with Debian's python3-onnx (onnx 1.12); the outputs are committed next to
this script so the tests never need Python:

    /usr/bin/python3 tests/data/bad/make_bad.py

Most models are broken on purpose, one way each (the file name says how).  The checker is
never run: these are exactly the models it would reject.  The .pb files are single
onnx.TensorProto messages that store their elements in the typed fields (float_data,
int64_data, ...) or in external data, which no file of the ONNX backend test data does.
"""
import functools
import os
import struct
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import F, vi  # noqa: E402

model = functools.partial(gen_util.write_model, HERE, producer="onnx2c-make_bad")


def save(name, msg):
    gen_util.save(os.path.join(HERE, name), msg)


X4 = vi("x", [1, 1, 5, 5])
Y = vi("y", None)

# --- errors found after loading: graph structure (ir_toposort) and op rules (infer)
model("cycle.onnx",
      [helper.make_node("Relu", ["a"], ["b"], name="r1"),
       helper.make_node("Relu", ["b"], ["a"], name="r2")],
      [], [vi("b", [2])])
model("dangling.onnx", [helper.make_node("Add", ["x", "ghost"], ["y"], name="add")],
      [vi("x", [2])], [Y])
model("unknown_op.onnx", [helper.make_node("FooBar", ["x"], ["y"], name="foo")],
      [vi("x", [2])], [Y])
model("unknown_domain.onnx",
      [helper.make_node("Foo", ["x"], ["y"], name="foo", domain="com.example")],
      [vi("x", [2])], [Y], opset=[("", 13), ("com.example", 1)])
W = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
model("conv_bad_autopad.onnx",
      [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", auto_pad="BOGUS")],
      [X4], [Y], [W])
W3 = numpy_helper.from_array(np.ones((1, 1, 3), np.float32), "w")
model("conv_weight_rank.onnx", [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
      [X4], [Y], [W3])

# --- errors of the loader itself
RELU = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
model("string_input.onnx", RELU, [vi("x", [2], TensorProto.STRING)], [Y])
seq = helper.make_value_info("x", helper.make_sequence_type_proto(
    helper.make_tensor_type_proto(F, [2])))
model("sequence_input.onnx", RELU, [seq], [Y])
model("no_shape.onnx", RELU, [vi("x", None)], [Y])
model("negative_dim.onnx", RELU, [vi("x", [2, -3])], [Y])
model("no_default_opset.onnx", RELU, [vi("x", [2])], [Y], opset=[("com.example", 1)])
ref = helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky")
ref.attribute.append(helper.AttributeProto(name="alpha", ref_attr_name="a",
                                           type=helper.AttributeProto.FLOAT))
model("ref_attr.onnx", [ref], [vi("x", [2])], [Y])
bad = TensorProto(name="b", data_type=F, dims=[2, 3], float_data=[1, 2, 3, 4, 5])
model("init_count.onnx", [helper.make_node("Add", ["x", "b"], ["y"])], [vi("x", [2, 3])], [Y],
      [bad])
strs = TensorProto(name="b", data_type=TensorProto.STRING, dims=[1], string_data=[b"hi"])
model("string_init.onnx", [helper.make_node("Identity", ["b"], ["y"])], [], [Y], [strs])


# --- external data: weights.bin holds 8 bytes of padding, then the 6 floats 1..6
with open(os.path.join(HERE, "weights.bin"), "wb") as f:
    f.write(b"\0" * 8 + struct.pack("<6f", 1, 2, 3, 4, 5, 6))


def external(name, location, offset=8, length=24):
    t = TensorProto(name=name, data_type=F, dims=[2, 3])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            t.external_data.add(key=k, value=str(v))
    return t


ADD = [helper.make_node("Add", ["x", "b"], ["y"], name="add")]
for fname, loc, off in (("external_ok.onnx", "weights.bin", 8),
                        ("external_escape.onnx", "../bad/weights.bin", 8),
                        ("external_absolute.onnx", "/etc/hostname", 0),
                        ("external_missing.onnx", "no_such_weights.bin", 0),
                        ("external_short.onnx", "weights.bin", 16),
                        ("external_sub.onnx", "sub/weights.bin", 8)):
    model(fname, ADD, [vi("x", [2, 3])], [Y], [external("b", loc, off)])

# 1 GiB of weights in big.bin, which the test makes (a sparse file) next to a copy of the model:
# compiling under a smaller address-space limit runs out of memory
big = TensorProto(name="b", data_type=F, dims=[1 << 28])
big.data_location = TensorProto.EXTERNAL
for k, v in (("location", "big.bin"), ("offset", "0"), ("length", str(4 << 28))):
    big.external_data.add(key=k, value=v)
model("external_big.onnx", ADD, [vi("x", [1 << 28])], [Y], [big])

# a node whose name holds a newline, escape sequences and a comment terminator; an op that is
# not supported makes the compiler name it
model("hostile_node_name.onnx",
      [helper.make_node("FooBar", ["x"], ["y"], name="evil\nline two\x1b[31m*/\r\x7f\xc2\x85end")],
      [vi("x", [2])], [Y])
model("long_node_name.onnx", [helper.make_node("FooBar", ["x"], ["y"], name="n" * 5000)],
      [vi("x", [2])], [Y])
# opset 19 of the default domain: newer than the 17 onnx2c implements
model("opset19.onnx", RELU, [vi("x", [2])], [Y], opset=19)
# the op table's facts (compiler/ops/optable.h): Round is in opset 11 and later; Relu takes one input
model("op_before_since.onnx", [helper.make_node("Round", ["x"], ["y"], name="round")],
      [vi("x", [2])], [Y], opset=9)
model("op_too_many_inputs.onnx", [helper.make_node("Relu", ["x", "x"], ["y"], name="relu")],
      [vi("x", [2])], [Y])

# --- tensors in typed fields, one file each
save("typed_float.pb", helper.make_tensor("tf", F, [2, 3], [1.5, -2, 3, 4, 5, 6.25]))
save("typed_int64.pb", helper.make_tensor("ti", TensorProto.INT64, [3], [-1, 2**40, 7]))
save("typed_int8.pb", helper.make_tensor("i8", TensorProto.INT8, [4], [-128, -1, 0, 127]))
save("typed_bool.pb", helper.make_tensor("tb", TensorProto.BOOL, [3], [True, False, True]))
save("typed_float16.pb", helper.make_tensor("th", TensorProto.FLOAT16, [2],
                                            np.array([1.0, -2.0], np.float16)))
save("typed_double.pb", helper.make_tensor("td", TensorProto.DOUBLE, [2], [0.25, -1e300]))
save("typed_uint32.pb", helper.make_tensor("tu", TensorProto.UINT32, [2], [1, 4294967295]))
save("typed_scalar.pb", helper.make_tensor("s", TensorProto.INT64, [], [42]))
save("external_tensor.pb", external("te", "weights.bin"))
save("bad_count.pb", TensorProto(name="bc", data_type=TensorProto.INT64, dims=[4],
                                 int64_data=[1, 2]))
