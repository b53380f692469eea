#!/usr/bin/python3
"""Writes the RNN-family models that tests/unit/test_ops_rnn.c compiles and runs.

Run with Debian's python3-onnx (onnx 1.12) and numpy; the outputs are committed next to this
script so the tests never need Python:

    /usr/bin/python3 tests/data/rnn/make_rnn.py

Each case NAME/ is in the ONNX backend-test layout (model.onnx, test_data_set_0 and _1) with
symbolic seq and batch (dim_param), the two sets at different sizes, so one generated C serves
both.  They cover what the ONNX node tests do not: bidirectional and reverse directions,
sequence_lens (entries shorter than seq, and 0), layout 1, peepholes, clip, input_forget,
linear_before_reset, the activation list with alpha/beta, opset 7, double.  The reference
below follows the ONNX LSTM/GRU/RNN formulas directly in float64.
The bad_*.onnx models break one rule each.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
RNG = np.random.default_rng(7)

# --- activations (alpha/beta defaults of the ONNX ops of the same name)
ACTS = {
    "Sigmoid": (0, 0, lambda x, a, b: 1 / (1 + np.exp(-x))),
    "Tanh": (0, 0, lambda x, a, b: np.tanh(x)),
    "Relu": (0, 0, lambda x, a, b: np.maximum(x, 0)),
    "Affine": (1.0, 0.0, lambda x, a, b: a * x + b),
    "LeakyRelu": (0.01, None, lambda x, a, b: np.where(x >= 0, x, a * x)),
    "ThresholdedRelu": (1.0, None, lambda x, a, b: np.where(x > a, x, 0)),
    "ScaledTanh": (1.0, 1.0, lambda x, a, b: a * np.tanh(b * x)),
    "HardSigmoid": (0.2, 0.5, lambda x, a, b: np.clip(a * x + b, 0, 1)),
    "Elu": (1.0, None, lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1))),
    "Softsign": (0, 0, lambda x, a, b: x / (1 + np.abs(x))),
    "Softplus": (0, 0, lambda x, a, b: np.log1p(np.exp(x))),
}
USES = {"Affine": (1, 1), "LeakyRelu": (1, 0), "ThresholdedRelu": (1, 0), "ScaledTanh": (1, 1),
        "HardSigmoid": (1, 1), "Elu": (1, 0)}
DEFAULT_ACTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def act_funcs(op, ndir, names, alphas, betas):
    """One function per activation; alpha/beta are taken in order by those that use them."""
    names = names or DEFAULT_ACTS[op] * ndir
    alphas, betas = list(alphas or []), list(betas or [])
    out = []
    for nm in names:
        da, db, f = ACTS[nm]
        ua, ub = USES.get(nm, (0, 0))
        a = alphas.pop(0) if ua and alphas else da
        b = betas.pop(0) if ub and betas else db
        out.append(lambda x, f=f, a=a, b=b: f(x, a, b))
    return out


def reference(op, attrs, X, W, R, B=None, lens=None, h0=None, c0=None, P=None):
    """Y, Y_h, Y_c of the ONNX formulas, in float64."""
    layout = attrs.get("layout", 0)
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    X = X.astype(np.float64)
    seq, batch, _ = X.shape
    direction = attrs.get("direction", "forward")
    ndir = 2 if direction == "bidirectional" else 1
    H = R.shape[-1]
    G = GATES[op]
    nper = len(DEFAULT_ACTS[op])
    acts = act_funcs(op, ndir, attrs.get("activations"), attrs.get("activation_alpha"),
                     attrs.get("activation_beta"))
    clip = attrs.get("clip")
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    Y = np.zeros((seq, ndir, batch, H))
    Yh = np.zeros((ndir, batch, H))
    Yc = np.zeros((ndir, batch, H))
    for d in range(ndir):
        f = acts[d * nper:(d + 1) * nper]
        w, r = W[d].astype(np.float64), R[d].astype(np.float64)
        wb = B[d][:G * H] if B is not None else np.zeros(G * H)
        rb = B[d][G * H:] if B is not None else np.zeros(G * H)
        rev = direction == "reverse" or d == 1
        for b in range(batch):
            n = seq if lens is None else int(lens[b])
            h = h0[d, b].astype(np.float64) if h0 is not None else np.zeros(H)
            c = c0[d, b].astype(np.float64) if c0 is not None else np.zeros(H)
            steps = range(n - 1, -1, -1) if rev else range(n)
            for t in steps:
                x = X[t, b]
                gx = w @ x + wb
                if op == "LSTM":
                    gr = r @ h + rb
                    g = gx + gr
                    pi, po, pf = (P[d][:H], P[d][H:2 * H], P[d][2 * H:]) if P is not None else (0, 0, 0)
                    i = f[0](cl(g[:H] + pi * c))
                    fg = 1 - i if attrs.get("input_forget") else f[0](cl(g[2 * H:3 * H] + pf * c))
                    ct = f[1](cl(g[3 * H:]))
                    c = fg * c + i * ct
                    o = f[0](cl(g[H:2 * H] + po * c))
                    h = o * f[2](c)
                elif op == "GRU":
                    z = f[0](cl(gx[:H] + r[:H] @ h + rb[:H]))
                    rr = f[0](cl(gx[H:2 * H] + r[H:2 * H] @ h + rb[H:2 * H]))
                    if attrs.get("linear_before_reset"):
                        hh = f[1](cl(gx[2 * H:] + rr * (r[2 * H:] @ h + rb[2 * H:])))
                    else:
                        hh = f[1](cl(gx[2 * H:] + r[2 * H:] @ (rr * h) + rb[2 * H:]))
                    h = (1 - z) * hh + z * h
                else:
                    h = f[0](cl(gx + r @ h + rb))
                Y[t, d, b] = h
            Yh[d, b] = h
            Yc[d, b] = c
    if layout:
        Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    return Y, Yh, Yc


def case(name, op, attrs, I, H, sizes, opset=14, dtype=np.float32, optional=(), outputs=(1, 1, 1),
         runtime_weights=False, lens_fn=None):
    """optional: which of B, sequence_lens, initial_h, initial_c, P are given."""
    ndir = 2 if attrs.get("direction") == "bidirectional" else 1
    G = GATES[op]
    tt = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
    layout = attrs.get("layout", 0)
    W = (RNG.standard_normal((ndir, G * H, I)) * 0.6).astype(dtype)
    R = (RNG.standard_normal((ndir, G * H, H)) * 0.6).astype(dtype)
    consts = {"W": W, "R": R}
    if "B" in optional:
        consts["B"] = (RNG.standard_normal((ndir, 2 * G * H)) * 0.3).astype(dtype)
    if "P" in optional:
        consts["P"] = (RNG.standard_normal((ndir, 3 * H)) * 0.3).astype(dtype)
    names = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
    if op != "LSTM":
        names = names[:6]
    given = {"X": True, "W": True, "R": True, "B": "B" in optional, "sequence_lens": "lens" in optional,
             "initial_h": "h0" in optional, "initial_c": "c0" in optional, "P": "P" in optional}
    node_inputs = [nm if given[nm] else "" for nm in names]
    while node_inputs and node_inputs[-1] == "":
        node_inputs.pop()
    outs = ["Y", "Y_h", "Y_c"][:3 if op == "LSTM" else 2]
    node_outputs = [nm if outputs[k] else "" for k, nm in enumerate(outs)]
    while node_outputs and node_outputs[-1] == "":
        node_outputs.pop()
    node = helper.make_node(op, node_inputs, node_outputs, name="cell", hidden_size=H, **attrs)
    xs = ["batch", "seq", I] if layout else ["seq", "batch", I]
    hs = ["batch", ndir, H] if layout else [ndir, "batch", H]
    ys = ["batch", "seq", ndir, H] if layout else ["seq", ndir, "batch", H]
    ginputs = [helper.make_tensor_value_info("X", tt, xs)]
    inits = []
    for nm in ["W", "R", "B", "P"]:
        if nm in consts:
            if runtime_weights:
                ginputs.append(helper.make_tensor_value_info(nm, tt, list(consts[nm].shape)))
            else:
                inits.append(numpy_helper.from_array(consts[nm], nm))
    if given["sequence_lens"]:
        ginputs.append(helper.make_tensor_value_info("sequence_lens", TensorProto.INT32, ["batch"]))
    for nm in ["initial_h", "initial_c"]:
        if given[nm]:
            ginputs.append(helper.make_tensor_value_info(nm, tt, hs))
    goutputs = [helper.make_tensor_value_info(nm, tt, ys if nm == "Y" else hs)
                for nm in node_outputs if nm]
    m = gen_util.make_model(name, node, ginputs, goutputs, inits, opset, "onnx2c-make_rnn", 7)
    sets = []
    for seq, batch in sizes:
        X = RNG.standard_normal((batch, seq, I) if layout else (seq, batch, I)).astype(dtype)
        feeds = {"X": X}
        if given["sequence_lens"]:
            feeds["sequence_lens"] = lens_fn(seq, batch).astype(np.int32)
        hshape = (batch, ndir, H) if layout else (ndir, batch, H)
        for nm in ["initial_h", "initial_c"]:
            if given[nm]:
                feeds[nm] = (RNG.standard_normal(hshape) * 0.5).astype(dtype)
        Y, Yh, Yc = reference(op, attrs, X, W, R, consts.get("B"), feeds.get("sequence_lens"),
                              feeds.get("initial_h"), feeds.get("initial_c"), consts.get("P"))
        res = {"Y": Y, "Y_h": Yh, "Y_c": Yc}
        sets.append(([feeds[v.name] if v.name in feeds else consts[v.name] for v in ginputs],
                     [res[v.name].astype(dtype) for v in goutputs]))
    gen_util.write_case(os.path.join(HERE, name), m, sets)


def lens_short(seq, batch):
    """Entries of every length down to 0: exercises the zero tail of Y and the held Y_h."""
    return np.array([max(seq - k, 0) for k in range(batch)])


# --- good cases (sizes are (seq, batch) of the two sets)
case("lstm_bidir_peep", "LSTM", {"direction": "bidirectional"}, 3, 4, [(4, 3), (2, 2)],
     optional=("B", "lens", "h0", "c0", "P"), lens_fn=lens_short)
case("lstm_reverse_layout1", "LSTM",
     {"direction": "reverse", "layout": 1, "clip": 0.7, "input_forget": 1}, 2, 3,
     [(3, 2), (5, 1)], optional=("B", "h0", "c0"))
case("lstm_acts_bidir", "LSTM",
     {"direction": "bidirectional",
      "activations": ["HardSigmoid", "Elu", "Softplus", "Sigmoid", "ScaledTanh", "ThresholdedRelu"],
      "activation_alpha": [0.3, 0.8, 0.7, 0.1], "activation_beta": [0.4, 1.2]},
     3, 2, [(3, 2), (1, 3)], optional=("B",))
case("lstm_opset7_double", "LSTM", {}, 2, 3, [(3, 2), (2, 4)], opset=7, dtype=np.float64,
     optional=("B", "lens"), outputs=(0, 0, 1), runtime_weights=True,
     lens_fn=lambda seq, batch: np.array([(k % seq) + 1 for k in range(batch)]))
case("gru_bidir_lbr", "GRU", {"direction": "bidirectional", "linear_before_reset": 1}, 3, 4,
     [(4, 3), (2, 2)], optional=("B", "lens", "h0"), lens_fn=lens_short)
case("gru_reverse_layout1", "GRU",
     {"direction": "reverse", "layout": 1, "clip": 1.5, "activations": ["Sigmoid", "Softsign"]},
     2, 3, [(3, 2), (4, 1)], optional=("B", "h0"), runtime_weights=True)
case("rnn_bidir_acts", "RNN",
     {"direction": "bidirectional", "activations": ["Relu", "LeakyRelu"],
      "activation_alpha": [0.2]}, 3, 4, [(4, 3), (2, 2)], optional=("B", "lens", "h0"),
     lens_fn=lens_short)
case("rnn_reverse_affine", "RNN",
     {"direction": "reverse", "activations": ["Affine"], "activation_alpha": [0.5],
      "activation_beta": [0.1], "clip": 2.0}, 2, 3, [(3, 2), (2, 3)], opset=7,
     optional=("B",))


# --- one broken rule each
def bad(name, op, attrs, xs=("seq", "batch", 3), wshape=(1, 16, 3), rshape=(1, 16, 4), H=4,
        xt=TensorProto.FLOAT, opset=14):
    ins = [helper.make_tensor_value_info("X", xt, list(xs)),
           helper.make_tensor_value_info("W", TensorProto.FLOAT, list(wshape)),
           helper.make_tensor_value_info("R", TensorProto.FLOAT, list(rshape))]
    node = helper.make_node(op, ["X", "W", "R"], ["Y"], name="cell", hidden_size=H, **attrs)
    gen_util.write_model(HERE, name + ".onnx", node, ins,
                         [helper.make_tensor_value_info("Y", xt, None)], (), opset,
                         "onnx2c-make_rnn", 7)


bad("bad_direction", "LSTM", {"direction": "sideways"})
bad("bad_activation", "LSTM", {"activations": ["Sigmoid", "Tanh", "Gelu"]})
bad("bad_act_count", "LSTM", {"activations": ["Sigmoid", "Tanh"]})
bad("bad_w_rows", "LSTM", {}, wshape=(1, 12, 3))
bad("bad_w_dirs", "LSTM", {"direction": "bidirectional"})
bad("bad_input_size", "LSTM", {}, wshape=(1, 16, 5))
bad("bad_layout", "GRU", {"layout": 2}, wshape=(1, 12, 3), rshape=(1, 12, 4))
bad("bad_clip", "RNN", {"clip": -1.0}, wshape=(1, 4, 3), rshape=(1, 4, 4))
bad("bad_type", "RNN", {}, wshape=(1, 4, 3), rshape=(1, 4, 4), xt=TensorProto.INT32)
bad("bad_x_rank", "GRU", {}, xs=("seq", 3), wshape=(1, 12, 3), rshape=(1, 12, 4))
