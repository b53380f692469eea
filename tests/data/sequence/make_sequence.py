#!/usr/bin/python3
"""Writes the cases of the sequence family (compiler/ops/sequence.c): sequences of tensors of
one shape inside a graph, and a Loop that grows one.

Run with Debian's python3-onnx (onnx 1.12) and python3-numpy; the outputs are committed:

    /usr/bin/python3 tests/data/sequence/make_sequence.py

cases/CASE/: one model with symbolic input dims and several data sets at different sizes, so
one generated C file serves them all; references computed here with numpy as the ONNX spec
describes each op.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import F, const, vi  # noqa: E402

CASES = os.path.join(HERE, "cases")
I64 = TensorProto.INT64
B = TensorProto.BOOL
PROD = "onnx2c-make_sequence"
rng = np.random.default_rng(2028)


def case(name, nodes, inputs, outputs, sets, inits=(), opset=13):
    m = gen_util.make_model(name, nodes, inputs, outputs, inits, opset, PROD)
    gen_util.write_case(os.path.join(CASES, name), m, sets)


# x's rows as a sequence (SplitToSequence, keepdims 0); its length; the last row (SequenceAt
# -1); y inserted at the front, the element at 1 erased, the rest joined (ConcatFromSequence,
# new_axis 0); a and b stacked on a new last axis; x split in parts of 2 rows, joined on axis 1
sets = []
for n, c in ((3, 4), (1, 2), (4, 3)):
    x = rng.standard_normal((n, c)).astype(np.float32)
    y = rng.standard_normal(c).astype(np.float32)
    a = rng.standard_normal(c).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    rows = [y] + [x[i] for i in range(n)]
    del rows[1]
    x2 = np.concatenate([x, x], 0)                       # [2n, c]
    parts = [x2[2 * i:2 * i + 2] for i in range(n)]
    sets.append(([x, y, a, b], [np.array(n, np.int64), x[-1], np.concatenate(rows, 0),
                                np.stack([a, b], 1), np.concatenate(parts, 1)]))
case("seq_ops_sym",
     [helper.make_node("SplitToSequence", ["x"], ["s"], axis=0, keepdims=0),
      helper.make_node("SequenceLength", ["s"], ["len"]),
      helper.make_node("SequenceAt", ["s", "m1"], ["last"]),
      helper.make_node("SequenceInsert", ["s", "y", "zero"], ["s2"]),
      helper.make_node("SequenceErase", ["s2", "one"], ["s3"]),
      helper.make_node("ConcatFromSequence", ["s3"], ["cat"], axis=0, new_axis=0),
      helper.make_node("SequenceConstruct", ["a", "b"], ["ab"]),
      helper.make_node("ConcatFromSequence", ["ab"], ["stack"], axis=-1, new_axis=1),
      helper.make_node("Concat", ["x", "x"], ["x2"], axis=0),
      helper.make_node("SplitToSequence", ["x2", "two"], ["p"], axis=0),
      helper.make_node("ConcatFromSequence", ["p"], ["joined"], axis=1)],
     [vi("x", ["N", "C"]), vi("y", ["C"]), vi("a", ["C"]), vi("b", ["C"])],
     [vi("len", [], I64), vi("last", None), vi("cat", None), vi("stack", None), vi("joined", None)],
     sets, [const("m1", -1, np.int64), const("zero", 0, np.int64), const("one", 1, np.int64),
            const("two", 2, np.int64)])

# A Loop that builds a list as torch.jit.script exports `out.append(...)`: SequenceEmpty
# carried, SequenceInsert in the body (each row of x times the iteration number), then
# ConcatFromSequence stacking on a new axis 1; M from the input's first dim bounds the length
body = helper.make_graph(
    [helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
     helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
     helper.make_node("Mul", ["row", "fi"], ["r2"]),
     helper.make_node("SequenceInsert", ["acc", "r2"], ["acc2"]),
     helper.make_node("Identity", ["c"], ["c2"])],
    "body", [vi("i", [], I64), vi("c", [], B),
             helper.make_tensor_sequence_value_info("acc", TensorProto.FLOAT, None)],
    [vi("c2", [], B), helper.make_tensor_sequence_value_info("acc2", TensorProto.FLOAT, None)])
sets = []
for n, c in ((3, 2), (1, 4), (5, 3)):
    x = rng.standard_normal((n, c)).astype(np.float32)
    out = np.stack([x[i] * np.float32(i) for i in range(n)], 1)
    sets.append(([x], [out]))
case("seq_loop_sym",
     [helper.make_node("Shape", ["x"], ["sh"]),
      helper.make_node("Gather", ["sh", "zero"], ["m"], axis=0),
      helper.make_node("SequenceEmpty", [], ["s0"], dtype=TensorProto.FLOAT),
      helper.make_node("Loop", ["m", "", "s0"], ["s"], body=body),
      helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1, new_axis=1)],
     [vi("x", ["N", "C"])], [vi("y", None)], sets, [const("zero", 0, np.int64)])

# An If that gives a sequence: [x] or [x, 2x] (a length the branch decides: a data dim bounded
# by 2), passed through Identity, joined on axis 0
then_g = helper.make_graph([helper.make_node("SequenceConstruct", ["x"], ["s_t"])], "t", [],
                           [helper.make_tensor_sequence_value_info("s_t", TensorProto.FLOAT, None)])
else_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["x2"]),
                            helper.make_node("SequenceConstruct", ["x", "x2"], ["s_e"])], "e", [],
                           [helper.make_tensor_sequence_value_info("s_e", TensorProto.FLOAT, None)])
sets = []
for n, c in ((3, True), (2, False), (1, False)):
    x = rng.standard_normal(n).astype(np.float32)
    y = x if c else np.concatenate([x, 2 * x])
    sets.append(([np.array(c), x], [y]))
case("seq_if_sym",
     [helper.make_node("If", ["cond"], ["s"], then_branch=then_g, else_branch=else_g),
      helper.make_node("Identity", ["s"], ["s2"]),
      helper.make_node("ConcatFromSequence", ["s2"], ["y"], axis=0)],
     [vi("cond", [], B), vi("x", ["N"])], [vi("y", None)], sets, opset=16)

# SequenceMap over x's rows (a sequence) with a tensor input y: each row plus y, and that row's
# sum; the two output sequences joined (stacked on axis 0)
body = helper.make_graph(
    [helper.make_node("Add", ["r", "yy"], ["a"]),
     helper.make_node("ReduceSum", ["a"], ["s"], keepdims=0)],
    "body", [vi("r", None), vi("yy", None)], [vi("a", None), vi("s", None)])
sets = []
for n, c in ((3, 4), (1, 2), (5, 3)):
    x = rng.standard_normal((n, c)).astype(np.float32)
    y = rng.standard_normal(c).astype(np.float32)
    a = x + y
    sets.append(([x, y], [a, a.sum(1).astype(np.float32)]))
case("seq_map_sym",
     [helper.make_node("SplitToSequence", ["x"], ["s"], axis=0, keepdims=0),
      helper.make_node("SequenceMap", ["s", "y"], ["sa", "ss"], body=body),
      helper.make_node("ConcatFromSequence", ["sa"], ["rows"], axis=0, new_axis=1),
      helper.make_node("ConcatFromSequence", ["ss"], ["sums"], axis=0, new_axis=1)],
     [vi("x", ["N", "C"]), vi("y", ["C"])], [vi("rows", None), vi("sums", None)], sets, opset=17)

# Optionals whose holding a value is known at compile time: Optional(x) and an empty one,
# OptionalHasElement of each, OptionalGetElement through an If whose branches both give one
then_g = helper.make_graph([helper.make_node("Optional", ["x"], ["o_t"])], "t", [],
                           [helper.make_tensor_value_info("o_t", F, None)])
else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["nx"]), helper.make_node("Optional", ["nx"], ["o_e"])],
                           "e", [], [helper.make_tensor_value_info("o_e", F, None)])
sets = []
for n, c in ((3, True), (2, False), (1, True)):
    x = rng.standard_normal(n).astype(np.float32)
    g = np.maximum(x if c else -x, 0)
    sets.append(([np.array(c), x], [np.array(True), np.array(False), g]))
case("optional_sym",
     [helper.make_node("Optional", ["x"], ["o"]),
      helper.make_node("OptionalHasElement", ["o"], ["has"]),
      helper.make_node("Optional", [], ["none"], type=helper.make_tensor_type_proto(F, [])),
      helper.make_node("OptionalHasElement", ["none"], ["has_none"]),
      helper.make_node("If", ["cond"], ["oi"], then_branch=then_g, else_branch=else_g),
      helper.make_node("OptionalGetElement", ["oi"], ["gi"]),
      helper.make_node("Relu", ["gi"], ["g"])],
     [vi("cond", [], B), vi("x", ["N"])], [vi("has", [], B), vi("has_none", [], B), vi("g", None)],
     sets, opset=15)

# An If whose branches both give an empty optional: known empty after it (the If's markers
# still open and close its blocks)
then_g = helper.make_graph([helper.make_node("Optional", [], ["o_t"], type=helper.make_tensor_type_proto(F, []))],
                           "t", [], [helper.make_tensor_value_info("o_t", F, None)])
else_g = helper.make_graph([helper.make_node("Optional", [], ["o_e"], type=helper.make_tensor_type_proto(F, []))],
                           "e", [], [helper.make_tensor_value_info("o_e", F, None)])
sets = []
for n, c in ((3, True), (2, False)):
    x = rng.standard_normal(n).astype(np.float32)
    sets.append(([np.array(c), x], [np.array(False), x * 2]))
case("optional_empty_if_sym",
     [helper.make_node("If", ["cond"], ["oi"], then_branch=then_g, else_branch=else_g),
      helper.make_node("OptionalHasElement", ["oi"], ["has"]),
      helper.make_node("Add", ["x", "x"], ["y"])],
     [vi("cond", [], B), vi("x", ["N"])], [vi("has", [], B), vi("y", None)], sets, opset=15)

# SequenceInsert at a runtime position in [-L, L] (negative counts from the back: -1 goes before
# the last element), then SequenceAt at that same position reads the inserted tensor back
sets = []
for n, pos in ((3, -1), (3, -3), (2, 2), (4, 1), (1, 0)):
    x = rng.standard_normal((n, 2)).astype(np.float32)
    y = rng.standard_normal(2).astype(np.float32)
    rows = [x[i] for i in range(n)]
    rows.insert(pos + n if pos < 0 else pos, y)
    back = [x[i] for i in range(n)]
    back.insert(n - 1, y)                   # a constant position -1
    sets.append(([x, y, np.array(pos, np.int64)], [np.stack(rows, 0), np.stack(back, 0)]))
case("seq_insert_pos_sym",
     [helper.make_node("SplitToSequence", ["x"], ["s"], axis=0, keepdims=0),
      helper.make_node("SequenceInsert", ["s", "y", "pos"], ["s2"]),
      helper.make_node("ConcatFromSequence", ["s2"], ["z"], axis=0, new_axis=1),
      helper.make_node("SequenceInsert", ["s", "y", "m1"], ["s3"]),
      helper.make_node("ConcatFromSequence", ["s3"], ["z2"], axis=0, new_axis=1)],
     [vi("x", ["N", 2]), vi("y", [2]), vi("pos", [], I64)], [vi("z", None), vi("z2", None)], sets,
     [const("m1", -1, np.int64)])
