#!/usr/bin/python3
"""Writes the Range cases of data dims with a pending bound (CONTRACT.md section 2b,
compiler/ir.c ir_data_declared): a Range whose operands are tensor data and whose own output
declares no shape makes a data dim; a declared shape it reaches (a graph output, a value_info)
gives it its bound, exact (NAME_run returns -4 where the value differs), else --max must.

Run with Debian's python3-onnx and python3-numpy; the outputs are committed:

    /usr/bin/python3 tests/data/shape/make_range_data.py

cases/CASE/ (runnable, several data sets from one generated C; tests/unit/test_ops_shape.c
and ctest's op_cases_* run them):
  range_decl_sym        x [N], n int64 scalar: y = Cast(Range(0, n, 1), float) * 0.5 + 1,
                        declared [N] (the bound N, set by set equal to n), z = x * 2
  range_value_info_sym  x [N], start, limit, delta int32 scalars: c = Cast(Range(...), float)
                        has a value_info [N]; y = Neg(c) declares no shape
Single models (tests/unit/test_ops_shape.c):
  range_max.onnx        y = Range(start, limit, delta) * 2, int64 runtime scalars, nothing
                        declared: refused without --max range_r_0=V, bounded by it with
  bad_range_two_decls.onnx  Range(0, n, 1) reaching y1 declared [4] and y2 declared [5]
"""
import os
import sys

import numpy as np
from onnx import TensorProto as TP, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import const, vi  # noqa: E402

OPSET = 13
PROD = "make_range_data.py"
CASES = os.path.join(HERE, "cases")
I64, I32, F = TP.INT64, TP.INT32, TP.FLOAT


def case(name, nodes, inputs, outputs, sets, inits=()):
    m = gen_util.make_model(name, nodes, inputs, outputs, inits, OPSET, PROD)
    gen_util.write_case(os.path.join(CASES, name), m, sets)


def save(name, nodes, inputs, outputs, inits=()):
    gen_util.write_model(HERE, name + ".onnx", nodes, inputs, outputs, inits, OPSET, PROD)


rng = np.random.default_rng(2031)

# Range(0, n) into arithmetic into a declared output [N]: the data dim's bound is N
sets = []
for n, lim in ((4, 4), (7, 7), (0, -2), (1, 1)):
    x = rng.standard_normal(n).astype(np.float32)
    r = np.arange(0, lim, 1, dtype=np.int64)
    sets.append(([x, np.array(lim, np.int64)],
                 [(r.astype(np.float32) * np.float32(0.5) + np.float32(1)), x * np.float32(2)]))
case("range_decl_sym",
     [h.make_node("Range", ["zero", "n", "one"], ["r"], name="range"),
      h.make_node("Cast", ["r"], ["rf"], to=F),
      h.make_node("Mul", ["rf", "half"], ["m"]),
      h.make_node("Add", ["m", "onef"], ["y"]),
      h.make_node("Mul", ["x", "two"], ["z"])],
     [vi("x", ["N"]), vi("n", [], I64)], [vi("y", ["N"]), vi("z", ["N"])], sets,
     [const("zero", 0, np.int64), const("one", 1, np.int64), const("half", 0.5, np.float32),
      const("onef", 1.0, np.float32), const("two", 2.0, np.float32)])

# int32 Range of three runtime scalars; the value_info of an intermediate declares its length
sets = []
for st, li, de in ((2, 8, 2), (10, 0, -2), (-5, -4, 7)):
    r = np.arange(st, li, de, dtype=np.int32)
    x = rng.standard_normal(len(r)).astype(np.float32)
    sets.append(([x, np.array(st, np.int32), np.array(li, np.int32), np.array(de, np.int32)],
                 [-r.astype(np.float32), x + np.float32(1)]))
m = gen_util.make_model(
    "range_value_info_sym",
    [h.make_node("Range", ["start", "limit", "delta"], ["r"], name="range"),
     h.make_node("Cast", ["r"], ["c"], to=F),
     h.make_node("Neg", ["c"], ["y"]),
     h.make_node("Add", ["x", "onef"], ["z"])],
    [vi("x", ["N"]), vi("start", [], I32), vi("limit", [], I32), vi("delta", [], I32)],
    [vi("y", None), vi("z", ["N"])], [const("onef", 1.0, np.float32)], OPSET, PROD)
m.graph.value_info.append(vi("c", ["N"]))
gen_util.write_case(os.path.join(CASES, "range_value_info_sym"), m, sets)

# nothing declared: --max on the data dim range_r_0
save("range_max",
     [h.make_node("Range", ["start", "limit", "delta"], ["r"], name="range"),
      h.make_node("Mul", ["r", "two"], ["y"])],
     [vi("start", [], I64), vi("limit", [], I64), vi("delta", [], I64)], [vi("y", None, I64)],
     [const("two", 2, np.int64)])

# one data dim declared 4 at one output and 5 at another
save("bad_range_two_decls",
     [h.make_node("Range", ["zero", "n", "one"], ["r"], name="range"),
      h.make_node("Identity", ["r"], ["y1"]),
      h.make_node("Add", ["r", "one"], ["y2"], name="add")],
     [vi("n", [], I64)], [vi("y1", [4], I64), vi("y2", [5], I64)],
     [const("zero", 0, np.int64), const("one", 1, np.int64)])
