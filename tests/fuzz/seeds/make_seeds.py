#!/usr/bin/env python3
"""make_seeds.py — crafted models seeding tools/fuzz.sh (issue 9): names that attack the
generated C at every name position, and attributes at the int64 limits.  Each model is small;
the fuzzer mutates from them (with tests/fuzz/onnx.dict).  Run with Debian's python3-onnx:
    /usr/bin/python3 tests/fuzz/seeds/make_seeds.py
Refused or compiled, onnx2c must stay safe on each (tests/unit/test_names.c checks the names
in depth; this is only the fuzzer's starting point)."""
import os
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
I64MAX, I64MIN = 2**63 - 1, -2**63

PAYLOADS = {
    "close": "add */ { } { __builtin_puts(\"X\"); } if (0) //",
    "splice": "a*\\\n/ X(); /*",
    "trigraph": "a*??/\n/ X(); /*",
    "macro": "x */\n#define abs(v) 0\n/* ",
    "quote": "\" \\\" ??= '",
    "collide": "in_1",
}


def names_model(p):
    """X[N,2,4,4] -> MaxPool -> Add W -> Relu -> Y, every name carrying the payload."""
    n = lambda k: f"{p}{k}"
    nodes = [
        helper.make_node("MaxPool", [n("X")], [n("P")], name=n("mp"), kernel_shape=[2, 2]),
        helper.make_node("Add", [n("P"), n("W")], [n("T")], name=n("add")),
        helper.make_node("Relu", [n("T")], [n("Y")], name=n("relu")),
    ]
    w = helper.make_tensor(n("W"), TensorProto.FLOAT, [2, 1, 1], [0.5, -1.25])
    shape = [n("N"), 2, 3, 3]
    g = helper.make_graph(
        nodes, n("graph"),
        [helper.make_tensor_value_info(n("X"), TensorProto.FLOAT, [n("N"), 2, 4, 4])],
        [helper.make_tensor_value_info(n("Y"), TensorProto.FLOAT, shape)],
        [w], value_info=[helper.make_tensor_value_info(n("T"), TensorProto.FLOAT, shape)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def conv_model(**attrs):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, "H", "W"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 3, 3], [0.1] * 9)
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)
    g = helper.make_graph([node], "g", [x], [y], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def slice_model(starts, ends, steps):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [helper.make_tensor(k, TensorProto.INT64, [1], [v])
             for k, v in (("s", starts), ("e", ends), ("a", 0), ("t", steps))]
    node = helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"], name="slice")
    g = helper.make_graph([node], "g", [x], [y], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def main():
    for k, p in PAYLOADS.items():
        onnx.save(names_model(p), os.path.join(HERE, f"names_{k}.onnx"))
    onnx.save(conv_model(pads=[2**62] * 4), os.path.join(HERE, "conv_pads_2_62.onnx"))
    onnx.save(conv_model(dilations=[2**62, 1]), os.path.join(HERE, "conv_dilation_2_62.onnx"))
    onnx.save(conv_model(pads=[I64MAX, 0, 0, 0]), os.path.join(HERE, "conv_pads_max.onnx"))
    onnx.save(conv_model(strides=[I64MAX, 1]), os.path.join(HERE, "conv_stride_max.onnx"))
    onnx.save(slice_model(-1, -I64MAX, -1), os.path.join(HERE, "slice_flip.onnx"))
    onnx.save(slice_model(0, I64MAX, I64MIN), os.path.join(HERE, "slice_step_min.onnx"))
    onnx.save(slice_model(I64MIN, I64MAX, I64MAX), os.path.join(HERE, "slice_limits.onnx"))


if __name__ == "__main__":
    main()
