"""Models for tests/unit/test_constraints.c: dims that only some sizes satisfy.

    /usr/bin/python3 tests/data/constraints/make_constraints.py
"""
import os
import sys

import onnx
from onnx import helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402

m = gen_util.make_model("matmul_sym", helper.make_node("MatMul", ["a", "b"], ["y"], name="mm"),
                        [vi("a", ["M", "K"]), vi("b", ["K2", "N"])], [vi("y", ["M", "N"])],
                        ir_version=None)
onnx.checker.check_model(m)
gen_util.save(os.path.join(HERE, "matmul_sym.onnx"), m)
print("wrote matmul_sym.onnx")
