#!/usr/bin/python3
"""Writes the cases of the control family (compiler/ops/control.c): If, Loop and Scan, their
subgraphs compiled in place.

Run with Debian's python3-onnx (onnx 1.12) and python3-numpy; the outputs are committed:

    /usr/bin/python3 tests/data/control/make_control.py

cases/CASE/: one model with symbolic input dims and several data sets at different sizes (and
taking each branch, running zero or more iterations), so one generated C file serves them all.
References are computed here with numpy, step by step as the ONNX spec describes the op.
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
PROD = "onnx2c-make_control"
rng = np.random.default_rng(2027)


def case(name, nodes, inputs, outputs, sets, inits=(), opset=13):
    m = gen_util.make_model(name, nodes, inputs, outputs, inits, opset, PROD)
    gen_util.write_case(os.path.join(CASES, name), m, sets)


def graph(name, nodes, inputs, outputs, inits=()):
    return helper.make_graph(nodes, name, inputs, outputs, list(inits))


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# If on a runtime condition; both branches read x and w from the outer graph; the else branch
# has an initializer of its own and names its output as the then branch does (a sibling's
# names may repeat)
then_g = graph("then", [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "w"], ["y_t"])],
               [], [vi("y_t", None)])
else_g = graph("else", [helper.make_node("Neg", ["x"], ["r"]), helper.make_node("Add", ["r", "bias"], ["y_e"])],
               [], [vi("y_e", None)], [const("bias", [0.5, -1.0, 2.0], np.float32)])
w = np.array([1.0, 2.0, 3.0], np.float32)
sets = []
for n, c in ((2, True), (5, False), (1, True), (3, False)):
    x = f32(n, 3)
    y = np.maximum(x, 0) * w if c else -x + np.array([0.5, -1.0, 2.0], np.float32)
    sets.append(([np.array(c), x], [y.astype(np.float32), (x * 2).astype(np.float32)]))
case("if_capture_sym",
     [helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
      helper.make_node("Add", ["x", "x"], ["z"])],
     [vi("cond", [], B), vi("x", ["N", 3])], [vi("y", None), vi("z", None)], sets,
     [const("w", w, np.float32)])

# A Loop over the rows of x (M from a Shape: it always runs N times): a running sum carried,
# each step's state gathered as a scan output, and an If inside the body (even iterations add
# the row, odd ones subtract it); the iteration number is cast to float and used
body = graph(
    "body",
    [helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
     helper.make_node("Mod", ["i", "two"], ["par"]),
     helper.make_node("Equal", ["par", "zero"], ["even"]),
     helper.make_node("If", ["even"], ["d"],
                      then_branch=graph("t", [helper.make_node("Identity", ["row"], ["d_t"])], [], [vi("d_t", None)]),
                      else_branch=graph("e", [helper.make_node("Neg", ["row"], ["d_e"])], [], [vi("d_e", None)])),
     helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Mul", ["d", "fi"], ["dd"]),
     helper.make_node("Add", ["acc", "dd"], ["acc_out"]),
     helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Identity", ["acc_out"], ["scan"])],
    [vi("i", [], I64), vi("cond_in", [], B), vi("acc", None)],
    [vi("cond_out", [], B), vi("acc_out", None), vi("scan", None)],
    [const("two", 2, np.int64), const("zero", 0, np.int64)])
sets = []
for n, c in ((4, 3), (1, 2), (6, 5)):
    x = f32(n, c)
    acc = np.zeros(c, np.float32)
    scans = []
    for i in range(n):
        acc = acc + (x[i] if i % 2 == 0 else -x[i]) * np.float32(i)
        scans.append(acc.copy())
    sets.append(([x], [acc.astype(np.float32), np.array(scans, np.float32).reshape(n, c)]))
case("loop_rows_sym",
     [helper.make_node("Shape", ["x"], ["sh"]),
      helper.make_node("Gather", ["sh", "zero_i"], ["m"], axis=0),
      helper.make_node("Shape", ["x"], ["sh1"]),
      helper.make_node("Slice", ["sh1", "one_v", "two_v"], ["cdim"]),
      helper.make_node("ConstantOfShape", ["cdim"], ["acc0"], value=helper.make_tensor("v", F, [1], [0.0])),
      helper.make_node("Loop", ["m", "", "acc0"], ["acc_n", "scans"], body=body)],
     [vi("x", ["N", "C"])], [vi("acc_n", None), vi("scans", None)], sets,
     [const("zero_i", 0, np.int64), const("one_v", [1], np.int64), const("two_v", [2], np.int64)])

# A Loop that stops on its condition: halve v until its max is below a threshold, at most N
# times (M from the input's first dim), the values seen as scan outputs: their count is a data
# dim bounded by N
body = graph(
    "body",
    [helper.make_node("Mul", ["v", "half"], ["v2"]),
     helper.make_node("ReduceMax", ["v2"], ["mx"], keepdims=0),
     helper.make_node("Greater", ["mx", "thr"], ["go"]),
     helper.make_node("Identity", ["v2"], ["seen"])],
    [vi("i", [], I64), vi("c", [], B), vi("v", None)],
    [vi("go", [], B), vi("v2", None), vi("seen", None)],
    [const("half", 0.5, np.float32), const("thr", 1.0, np.float32)])
sets = []
for n, v0 in ((8, np.array([40.0, 3.0], np.float32)), (3, np.array([100.0, 1.0], np.float32)),
              (5, np.array([0.5, 0.25], np.float32)), (4, np.array([2.5, -7.0], np.float32))):
    x = f32(n, 2)
    v = v0.copy()
    seen = []
    cond = True
    for i in range(n):
        if not cond:
            break
        v = v * np.float32(0.5)
        seen.append(v.copy())
        cond = bool(v.max() > 1.0)
    sets.append(([x, v0], [v, np.array(seen, np.float32).reshape(len(seen), 2)]))
case("loop_until_sym",
     [helper.make_node("Shape", ["x"], ["sh"]),
      helper.make_node("Gather", ["sh", "zero_i"], ["m"], axis=0),
      helper.make_node("Loop", ["m", "yes", "v0"], ["v_n", "seen_all"], body=body)],
     [vi("x", ["N", 2]), vi("v0", [2])], [vi("v_n", None), vi("seen_all", None)], sets,
     [const("zero_i", 0, np.int64), const("yes", True, np.bool_)])

# Two loop-carried values the body passes on swapped (the copies must not overwrite each
# other), M a runtime input, no scan outputs
body = graph(
    "body",
    [helper.make_node("Identity", ["a"], ["b_out"]), helper.make_node("Identity", ["b"], ["a_out"]),
     helper.make_node("Identity", ["c"], ["c_out"])],
    [vi("i", [], I64), vi("c", [], B), vi("a", None), vi("b", None)],
    [vi("c_out", [], B), vi("a_out", None), vi("b_out", None)])
sets = []
for n, m in ((3, 3), (2, 0), (4, 5)):
    a, b = f32(n), f32(n)
    ra, rb = (b, a) if m % 2 else (a, b)
    sets.append(([np.array(m, np.int64), a, b], [ra, rb]))
case("loop_swap_sym", [helper.make_node("Loop", ["m", "", "a", "b"], ["a_n", "b_n"], body=body)],
     [vi("m", [], I64), vi("a", ["N"]), vi("b", ["N"])], [vi("a_n", None), vi("b_n", None)], sets)

# Scan along axis 1 in reverse with a state (a cumulative sum from the end), a second scan input
# forward along axis 0, scan outputs stacked on axis 1 and (reversed) on axis 0
body = graph(
    "body",
    [helper.make_node("Add", ["s", "xe"], ["s2"]), helper.make_node("Mul", ["s2", "ye"], ["o1"]),
     helper.make_node("Identity", ["s2"], ["o2"])],
    [vi("s", None), vi("xe", None), vi("ye", None)], [vi("s2", None), vi("o1", None), vi("o2", None)])
sets = []
for n, t in ((2, 4), (3, 1), (1, 6)):
    s0, x, y = f32(n), f32(n, t), f32(t, n)
    s = s0.copy()
    o1 = np.zeros((n, t), np.float32)
    o2 = np.zeros((t, n), np.float32)
    for it in range(t):
        k = t - 1 - it          # x is scanned in reverse along axis 1
        s = s + x[:, k]
        o1[:, it] = s * y[it]   # y forward along axis 0, o1 stacked forward on axis 1
        o2[t - 1 - it] = s      # o2 stacked in reverse on axis 0
    sets.append(([s0, x, y], [s, o1, o2]))
case("scan_axes_sym",
     [helper.make_node("Scan", ["s0", "x", "y"], ["s_n", "o1", "o2"], body=body, num_scan_inputs=2,
                       scan_input_axes=[1, 0], scan_input_directions=[1, 0], scan_output_axes=[1, 0],
                       scan_output_directions=[0, 1])],
     [vi("s0", ["N"]), vi("x", ["N", "T"]), vi("y", ["T", "N"])],
     [vi("s_n", None), vi("o1", None), vi("o2", None)], sets, opset=11)

# If branches that give different shapes: x[:, :2] or x itself (C columns), then a Relu and a
# ReduceSum over the columns after the If: the If's dim 1 is a data dim bounded by max(2, C)
then_g = graph("then", [helper.make_node("Slice", ["x", "s0", "s2", "ax1"], ["y_t"])], [], [vi("y_t", None)],
               [const("s0", [0], np.int64), const("s2", [2], np.int64), const("ax1", [1], np.int64)])
else_g = graph("else", [helper.make_node("Neg", ["x"], ["y_e"])], [], [vi("y_e", None)])
sets = []
for n, c, cond in ((2, 5, True), (3, 4, False), (1, 1, True), (4, 1, False)):
    x = f32(n, c)
    y = np.maximum(x[:, :2], 0) if cond else np.maximum(-x, 0)
    sets.append(([np.array(cond), x], [y, y.sum(1, keepdims=True)]))
case("if_shapes_sym",
     [helper.make_node("If", ["cond"], ["y0"], then_branch=then_g, else_branch=else_g),
      helper.make_node("Relu", ["y0"], ["y"]),
      helper.make_node("ReduceSum", ["y", "ax1o"], ["s"], keepdims=1)],
     [vi("cond", [], B), vi("x", ["N", "C"])], [vi("y", None), vi("s", None)], sets,
     [const("ax1o", [1], np.int64)])


# A Conv before a Loop whose output only the body reads, through a residual Add with a body
# value and a Relu: nothing may be fused into the Conv (the body value does not exist yet there)
body = graph(
    "body",
    [helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Mul", ["acc", "half"], ["h"]),
     helper.make_node("Add", ["conv", "h"], ["a"]),
     helper.make_node("Sub", ["a", "fi"], ["a2"]),
     helper.make_node("Relu", ["a2"], ["acc2"]),
     helper.make_node("Identity", ["c"], ["c2"])],
    [vi("i", [], I64), vi("c", [], B), vi("acc", None)], [vi("c2", [], B), vi("acc2", None)],
    [const("half", 0.5, np.float32)])
w = (rng.standard_normal((2, 1, 3, 3)) * 0.5).astype(np.float32)
sets = []
for hgt, wid, m in ((5, 6, 3), (3, 3, 1), (4, 7, 0)):
    x = rng.standard_normal((1, 1, hgt, wid)).astype(np.float32)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 2, hgt, wid), np.float32)
    for o in range(2):
        for r in range(hgt):
            for q in range(wid):
                conv[0, o, r, q] = np.sum(xp[0, 0, r:r + 3, q:q + 3] * w[o, 0])
    acc = np.zeros((1, 2, hgt, wid), np.float32)
    for i in range(m):
        acc = np.maximum(conv + acc * np.float32(0.5) - np.float32(i), 0).astype(np.float32)
    sets.append(([np.array(m, np.int64), x], [acc]))
case("loop_no_fusion_sym",
     [helper.make_node("Conv", ["x", "w"], ["conv"], pads=[1, 1, 1, 1]),
      helper.make_node("Shape", ["conv"], ["sh"]),
      helper.make_node("ConstantOfShape", ["sh"], ["z0"], value=helper.make_tensor("v", F, [1], [0.0])),
      helper.make_node("Loop", ["m", "", "z0"], ["y"], body=body)],
     [vi("m", [], I64), vi("x", [1, 1, "H", "W"])], [vi("y", None)], sets, [const("w", w, np.float32)])

# Loops nested: the outer over the rows of x, the inner over the columns (M from Shape) summing
# row[j] * (i + j) with the outer's iteration number read from inside; the outer carries the
# total and stacks each row's sum
inner = graph(
    "inner",
    [helper.make_node("Gather", ["row", "j"], ["e"], axis=0),
     helper.make_node("Add", ["i", "j"], ["ij"]),
     helper.make_node("Cast", ["ij"], ["fij"], to=F),
     helper.make_node("Mul", ["e", "fij"], ["p"]),
     helper.make_node("Add", ["s", "p"], ["s2"]),
     helper.make_node("Identity", ["ci"], ["ci2"])],
    [vi("j", [], I64), vi("ci", [], B), vi("s", [])], [vi("ci2", [], B), vi("s2", [])])
outer = graph(
    "outer",
    [helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
     helper.make_node("Loop", ["cm", "", "fz"], ["rs"], body=inner),
     helper.make_node("Add", ["tot", "rs"], ["tot2"]),
     helper.make_node("Identity", ["co"], ["co2"]),
     helper.make_node("Identity", ["rs"], ["rs_out"])],
    [vi("i", [], I64), vi("co", [], B), vi("tot", [])], [vi("co2", [], B), vi("tot2", []), vi("rs_out", [])])
sets = []
for n, c in ((3, 4), (1, 1), (2, 5)):
    x = rng.standard_normal((n, c)).astype(np.float32)
    sums = np.array([sum(np.float32(x[i, j]) * np.float32(i + j) for j in range(c)) for i in range(n)], np.float32)
    sets.append(([x], [np.float32(sums.sum()).reshape(()), sums]))
case("loop_nested_sym",
     [helper.make_node("Shape", ["x"], ["sh"]),
      helper.make_node("Gather", ["sh", "zero_i"], ["rm"], axis=0),
      helper.make_node("Gather", ["sh", "one_i"], ["cm"], axis=0),
      helper.make_node("Loop", ["rm", "", "fz"], ["total", "row_sums"], body=outer)],
     [vi("x", ["N", "C"])], [vi("total", []), vi("row_sums", None)], sets,
     [const("zero_i", 0, np.int64), const("one_i", 1, np.int64), const("fz", np.float32(0), np.float32)])

# ---- models for tests/unit/test_ops_control.c (no data sets: read by the unit tests)

def model(name, nodes, inputs, outputs, inits=(), opset=13):
    gen_util.save(os.path.join(HERE, name + ".onnx"),
                  gen_util.make_model(name, nodes, inputs, outputs, inits, opset, PROD))


# a constraint inside a branch (x + y broadcasts N against M) binds only when it runs
model("if_guarded",
      [helper.make_node("If", ["cond"], ["z"],
                        then_branch=graph("t", [helper.make_node("Add", ["x", "y"], ["z_t"])], [], [vi("z_t", None)]),
                        else_branch=graph("e", [helper.make_node("Neg", ["x"], ["z_e"])], [], [vi("z_e", None)]))],
      [vi("cond", [], B), vi("x", ["N"]), vi("y", ["M"])], [vi("z", None)])
# hostile or unsupported shapes of control flow: each a clear error
model("if_no_branches", [helper.make_node("If", ["cond"], ["z"])], [vi("cond", [], B)], [vi("z", None)])
model("relu_with_graph",
      [helper.make_node("Relu", ["x"], ["y"], body=graph("g", [], [], [vi("x", None)]))],
      [vi("x", ["N"])], [vi("y", None)])
model("if_ranks_differ",
      [helper.make_node("If", ["cond"], ["z"],
                        then_branch=graph("t", [helper.make_node("Identity", ["x"], ["z_t"])], [], [vi("z_t", None)]),
                        else_branch=graph("e", [helper.make_node("Unsqueeze", ["x", "ax"], ["z_e"])], [],
                                          [vi("z_e", None)], [const("ax", [0], np.int64)]))],
      [vi("cond", [], B), vi("x", ["N"])], [vi("z", None)])
model("loop_bad_body",
      [helper.make_node("Loop", ["m", "", "x"], ["y"],
                        body=graph("b", [helper.make_node("Identity", ["i"], ["o"])], [vi("i", [], I64)],
                                   [vi("o", None)]))],
      [vi("m", [], I64), vi("x", ["N"])], [vi("y", None)])
model("if_undefined_output",
      [helper.make_node("If", ["cond"], ["z"],
                        then_branch=graph("t", [], [], [vi("nowhere", None)]),
                        else_branch=graph("e", [helper.make_node("Neg", ["x"], ["z_e"])], [], [vi("z_e", None)]))],
      [vi("cond", [], B), vi("x", ["N"])], [vi("z", None)])
# a list grown by a loop of M iterations, M runtime data: its length needs --max
body = helper.make_graph(
    [helper.make_node("SequenceInsert", ["acc", "x"], ["acc2"]), helper.make_node("Identity", ["c"], ["c2"])],
    "body", [vi("i", [], I64), vi("c", [], B), helper.make_tensor_sequence_value_info("acc", TensorProto.FLOAT, None)],
    [vi("c2", [], B), helper.make_tensor_sequence_value_info("acc2", TensorProto.FLOAT, None)])
model("seq_loop_runtime_m",
      [helper.make_node("SequenceEmpty", [], ["s0"], dtype=TensorProto.FLOAT),
       helper.make_node("Loop", ["m", "", "s0"], ["s"], body=body),
       helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0, new_axis=1)],
      [vi("m", [], I64), vi("x", ["N"])], [vi("y", None)])
# an If whose branches give an optional with a value and an empty one: decided at run time
model("if_optional_differs",
      [helper.make_node("If", ["cond"], ["o"],
                        then_branch=graph("t", [helper.make_node("Optional", ["x"], ["o_t"])], [], [vi("o_t", None)]),
                        else_branch=graph("e", [helper.make_node("Optional", [], ["o_e"],
                                                                  type=helper.make_tensor_type_proto(F, []))],
                                          [], [vi("o_e", None)])),
       helper.make_node("OptionalHasElement", ["o"], ["h"])],
      [vi("cond", [], B), vi("x", ["N"])], [vi("h", [], B)], opset=15)
# a top-level node naming a value of a branch by what could be the loader's key for it ("name"
# + 0x1f + region): a name of its own, produced nowhere (branches' names are not seen outside)
model("scope_escape",
      [helper.make_node("If", ["cond"], ["z"],
                        then_branch=graph("t", [helper.make_node("Neg", ["x"], ["z_t"])], [], [vi("z_t", None)]),
                        else_branch=graph("e", [helper.make_node("Abs", ["x"], ["z_e"])], [], [vi("z_e", None)])),
       helper.make_node("Identity", ["z_t\x1f1"], ["w"])],
      [vi("cond", [], B), vi("x", ["N"])], [vi("z", None), vi("w", None)])
