#!/usr/bin/python3
"""Writes the cases of the random family (compiler/ops/random.c) and of Dropout's training mode:
ops whose values come from onnx2c's generator, which no reference can hold.

Run with Debian's python3-onnx (onnx 1.12) and python3-numpy; the outputs are committed:

    /usr/bin/python3 tests/data/random/make_random.py

cases/CASE/: a model and data sets whose outputs are numpy's draws of the same distribution,
as ONNX's backend cases hold.  onnx2c-test compares their shapes and types and checks what the
ops guarantee (runtime/draws.c): Bernoulli's 0 where p = 0 and 1 where p = 1 (the inputs have
both), values in [low, high), finite normals, classes never of probability 0 (the
log-probabilities have -inf entries), Dropout's kept values x / (1 - ratio) and a mask that
agrees with them.  Symbolic dims (_sym) have several data sets.
wrong/: reference tensors that must fail (tests/unit/test_ops_random.c puts each in a copy of
a case): bernoulli_shape.pb ([N + 1]), bernoulli_type.pb (double for a float output).
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
D = TensorProto.DOUBLE
H = TensorProto.FLOAT16
BF = TensorProto.BFLOAT16
I32 = TensorProto.INT32
I64 = TensorProto.INT64
B = TensorProto.BOOL
PROD = "onnx2c-make_random"


def case(name, nodes, inputs, outputs, sets, inits=(), opset=15):
    m = gen_util.make_model(name, nodes, inputs, outputs, inits, opset, PROD)
    gen_util.write_case(os.path.join(CASES, name), m, sets)


rng = np.random.default_rng(715)


def probs(n, dt):
    """n probabilities with 0 and 1 among them (and values near both)."""
    p = rng.uniform(0, 1, n)
    p[::5] = 0
    p[2::5] = 1
    p[3::7] = 1e-3
    return p.astype(dt)


def bern(p, dt):
    """numpy's draws of Bernoulli(p), as dt (0 where p = 0, 1 where p = 1)."""
    return rng.binomial(1, p.astype(np.float64)).astype(dt)


# Bernoulli, float to float, N symbolic
sets = []
for n in (23, 7, 40):
    p = probs(n, np.float32)
    sets.append(([p], [bern(p, np.float32)]))
case("bernoulli_sym", helper.make_node("Bernoulli", ["p"], ["y"], seed=3.0),
     [vi("p", ["N"])], [vi("y", ["N"])], sets)

# Bernoulli of double p to int32, of float16 p to bool, of float p to bfloat16 (bits)
p = probs(12, np.float64).reshape(3, 4)
case("bernoulli_f64_i32", helper.make_node("Bernoulli", ["p"], ["y"], dtype=I32),
     [vi("p", [3, 4], D)], [vi("y", [3, 4], I32)], [([p], [bern(p, np.int32)])])
p = probs(16, np.float16)
case("bernoulli_f16_bool", helper.make_node("Bernoulli", ["p"], ["y"], dtype=B, seed=-2.0),
     [vi("p", [16], H)], [vi("y", [16], B)], [([p], [bern(p, bool)])])
p = probs(10, np.float32)
y = bern(p, np.float32).view(np.uint32) >> 16  # bfloat16 bits of 0.0 and 1.0
y = helper.make_tensor("y", BF, [10], y.astype(np.uint16).tobytes(), raw=True)
m = gen_util.make_model("bernoulli_bf16", helper.make_node("Bernoulli", ["p"], ["y"], dtype=BF),
                        [vi("p", [10])], [vi("y", [10], BF)], (), 15, PROD)
gen_util.write_case(os.path.join(CASES, "bernoulli_bf16"), m, [([p], [])])
gen_util.save(os.path.join(CASES, "bernoulli_bf16", "test_data_set_0", "output_0.pb"), y)

# Bernoulli's expansion as ONNX later fixed it: Cast(Less(RandomUniformLike(p), p)), through
# a Reshape; and Greater(p, u) (u < p with the operands the other way round) to bool
sets = []
for n in (10, 25):
    p = probs(n, np.float32)
    sets.append(([p], [bern(p, np.float32).reshape(n, 1)]))
case("bernoulli_less_sym",
     [helper.make_node("RandomUniformLike", ["p"], ["u"], seed=9.0),
      helper.make_node("Less", ["u", "p"], ["b"]),
      helper.make_node("Cast", ["b"], ["f"], to=F),
      helper.make_node("Unsqueeze", ["f", "ax1"], ["y"])],
     [vi("p", ["N"])], [vi("y", ["N", 1])], sets, [const("ax1", [1], np.int64)])
p = probs(30, np.float64)
case("bernoulli_greater_f64",
     [helper.make_node("RandomUniformLike", ["p"], ["u"]),
      helper.make_node("Greater", ["p", "u"], ["y"])],
     [vi("p", [30], D)], [vi("y", [30], B)], [([p], [bern(p, bool)])])

# RandomUniform: float, double, float16 (high 0.3 is no float16: the largest below it ends the
# range), and RandomUniformLike of an int64 input (float output, its shape symbolic)
case("uniform_f32", helper.make_node("RandomUniform", [], ["y"], shape=[3, 4, 5], low=-2.0,
                                     high=3.0, seed=11.0),
     [], [vi("y", [3, 4, 5])], [([], [rng.uniform(-2, 3, (3, 4, 5)).astype(np.float32)])])
case("uniform_f64", helper.make_node("RandomUniform", [], ["y"], shape=[200], low=1.0, high=1.5,
                                     dtype=D),
     [], [vi("y", [200], D)], [([], [rng.uniform(1, 1.5, 200)])])
case("uniform_f16", helper.make_node("RandomUniform", [], ["y"], shape=[64, 8], low=-1.0,
                                     high=0.3, dtype=H, seed=0.5),
     [], [vi("y", [64, 8], H)], [([], [rng.uniform(-1, 0.3, (64, 8)).astype(np.float16)])])
sets = []
for n in (4, 9):
    x = rng.integers(-5, 5, (n, 3)).astype(np.int64)
    sets.append(([x], [rng.uniform(10, 20, (n, 3)).astype(np.float32)]))
case("uniform_like_sym",
     helper.make_node("RandomUniformLike", ["x"], ["y"], dtype=F, low=10.0, high=20.0, seed=4.0),
     [vi("x", ["N", 3], I64)], [vi("y", ["N", 3])], sets)

# RandomNormal: float through a Reshape, double -Like (N symbolic), float16
case("normal_f32", [helper.make_node("RandomNormal", [], ["z"], shape=[1000], mean=2.0,
                                     scale=0.5, seed=1.0),
                    helper.make_node("Reshape", ["z", "shape"], ["y"])],
     [], [vi("y", [10, 100])], [([], [rng.normal(2, 0.5, (10, 100)).astype(np.float32)])],
     [const("shape", [10, 100], np.int64)])
sets = []
for n in (5, 300):
    x = rng.standard_normal(n)
    sets.append(([x], [rng.normal(-1, 3, n)]))
case("normal_like_f64_sym", helper.make_node("RandomNormalLike", ["x"], ["y"], mean=-1.0, scale=3.0),
     [vi("x", ["N"], D)], [vi("y", ["N"], D)], sets)
case("normal_f16", helper.make_node("RandomNormal", [], ["y"], shape=[2, 50], dtype=H, scale=100.0),
     [], [vi("y", [2, 50], H)], [([], [rng.normal(0, 100, (2, 50)).astype(np.float16)])])


def multinomial(x, s):
    """numpy's draws: s classes per row of log-probabilities x."""
    w = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return np.array([rng.choice(x.shape[1], s, p=r) for r in w])


def logits(b, c, dt):
    x = rng.normal(0, 2, (b, c))
    x[rng.uniform(0, 1, (b, c)) < 0.4] = -np.inf
    x[:, 1] = 0.5  # every row has a class
    return x.astype(dt)


# Multinomial: int32 samples of float rows (B symbolic), int64 of double rows, of float16 rows
sets = []
for b in (3, 6):
    x = logits(b, 9, np.float32)
    sets.append(([x], [multinomial(x, 17).astype(np.int32)]))
case("multinomial_sym", helper.make_node("Multinomial", ["x"], ["y"], sample_size=17, seed=5.0),
     [vi("x", ["B", 9])], [vi("y", ["B", 17], I32)], sets, opset=7)
x = logits(4, 30, np.float64)
case("multinomial_f64_i64", helper.make_node("Multinomial", ["x"], ["y"], sample_size=50, dtype=I64),
     [vi("x", [4, 30], D)], [vi("y", [4, 50], I64)], [([x], [multinomial(x, 50)])], opset=7)
x = logits(2, 5, np.float16)
case("multinomial_f16", helper.make_node("Multinomial", ["x"], ["y"]),
     [vi("x", [2, 5], H)], [vi("y", [2, 1], I32)], [([x], [multinomial(x, 1).astype(np.int32)])],
     opset=7)


def dropout(x, ratio):
    keep = rng.uniform(0, 1, x.shape) >= ratio
    return (x * keep / (1 - ratio)).astype(x.dtype), keep


# Dropout in training mode with constant ratio and training_mode: the output through Identity,
# the mask through a Cast to float (mask and output still paired); N symbolic
sets = []
for n in (50, 8):
    x = rng.standard_normal((n, 4)).astype(np.float32)
    x[0, 0] = 0  # kept or dropped: 0 either way
    y, keep = dropout(x, 0.3)
    sets.append(([x], [y, keep.astype(np.float32)]))
case("dropout_const_sym",
     [helper.make_node("Dropout", ["x", "r", "t"], ["d", "m"], seed=12),
      helper.make_node("Identity", ["d"], ["y"]),
      helper.make_node("Cast", ["m"], ["mask"], to=F)],
     [vi("x", ["N", 4])], [vi("y", ["N", 4]), vi("mask", ["N", 4])], sets,
     [const("r", 0.3, np.float32), const("t", True, bool)], opset=13)
# opset 6 (is_test = 0: training; the mask in the data's type), the mask alone
x = rng.standard_normal(40).astype(np.float32)
_, keep = dropout(x, 0.4)
case("dropout_op6_mask", helper.make_node("Dropout", ["x"], ["y", "m"], ratio=0.4, is_test=0),
     [vi("x", [40])], [vi("m", [40])], [([x], [keep.astype(np.float32)])], opset=6)

# wrong/: references that must fail (shape, type) against cases/bernoulli_sym's data set 0
wrong = os.path.join(HERE, "wrong")
os.makedirs(wrong, exist_ok=True)
from onnx import numpy_helper  # noqa: E402
gen_util.save(os.path.join(wrong, "bernoulli_shape.pb"), numpy_helper.from_array(np.zeros(24, np.float32)))
gen_util.save(os.path.join(wrong, "bernoulli_type.pb"), numpy_helper.from_array(np.zeros(23, np.float64)))

# models for the checks the compiler describes (Output.checks), not runnable cases:
# uniform_add.onnx: a draw through Add (no property kept: its values are compared, and fail);
# det.onnx: nothing random (every output compared)
gen_util.write_model(HERE, "uniform_add.onnx",
                     [helper.make_node("RandomUniform", [], ["u"], shape=[4]),
                      helper.make_node("Add", ["u", "one"], ["y"])],
                     [], [vi("y", [4])], [const("one", 1.0, np.float32)], 15, PROD)
gen_util.write_model(HERE, "det.onnx", [helper.make_node("Relu", ["x"], ["y"])],
                     [vi("x", [4])], [vi("y", [4])], (), 15, PROD)

# bad_*.onnx: models to refuse, one line naming the node (test_ops_random.c, errors)
def bad(name, node, inputs, outputs, opset=15):
    gen_util.write_model(HERE, "bad_%s.onnx" % name, node, inputs, outputs, (), opset, PROD)


bad("uniform_int", helper.make_node("RandomUniform", [], ["y"], name="r", shape=[2], dtype=I32),
    [], [vi("y", [2], I32)])
bad("uniform_range", helper.make_node("RandomUniform", [], ["y"], name="r", shape=[2], low=1.0, high=1.0),
    [], [vi("y", [2])])
bad("uniform_f16_empty", helper.make_node("RandomUniform", [], ["y"], name="r", shape=[2], dtype=H,
                                          low=1.0001, high=1.0002), [], [vi("y", [2], H)])
bad("normal_noshape", helper.make_node("RandomNormal", [], ["y"], name="r"), [], [vi("y", [2])])
bad("like_int", helper.make_node("RandomNormalLike", ["x"], ["y"], name="r"),
    [vi("x", [2], I64)], [vi("y", [2], I64)])
bad("bernoulli_int", helper.make_node("Bernoulli", ["x"], ["y"], name="r"),
    [vi("x", [2], I32)], [vi("y", [2], I32)])
bad("multinomial_rank", helper.make_node("Multinomial", ["x"], ["y"], name="r"),
    [vi("x", [5])], [vi("y", None, I32)], opset=7)
bad("multinomial_dtype", helper.make_node("Multinomial", ["x"], ["y"], name="r", dtype=F),
    [vi("x", [1, 5])], [vi("y", None)], opset=7)
bad("multinomial_classes", helper.make_node("Multinomial", ["x"], ["y"], name="r"),
    [vi("x", [1, 0])], [vi("y", None, I32)], opset=7)
