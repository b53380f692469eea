"""Models for tests/unit/test_constraints.c: dims that only some sizes satisfy.

    /usr/bin/python3 tests/data/constraints/make_constraints.py
"""
import os

import onnx
from onnx import TensorProto, helper

here = os.path.dirname(os.path.abspath(__file__))
a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["M", "K"])
b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["K2", "N"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", "N"])
g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")], "matmul_sym", [a, b], [y])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(here, "matmul_sym.onnx"))
print("wrote matmul_sym.onnx")
