#!/usr/bin/python3
"""Exports tiny torch.nn.LSTM and torch.nn.GRU with dynamic sequence length and batch.

Writes the ONNX backend-test layout (CONTRACT.md section 3), one generated C for every set:
    tests/models/lstm_dynamic/  LSTM(4 -> 8), inputs x[seq, batch, 4], h0, c0[1, batch, 8]
    tests/models/gru_dynamic/   GRU(4 -> 8), inputs x[seq, batch, 4], h0[1, batch, 8]
test_data_set_0 and test_data_set_1 are two different (seq, batch) sizes.
Run with Debian's Python from the repository root:

    /usr/bin/python3 tests/models/make_rnn.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_util import export, write_set  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = [(5, 3), (2, 1)]  # (seq, batch) of the two data sets


class Lstm(torch.nn.Module):
    """Flattens torch's (y, (h, c)) into three outputs."""

    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(input_size=4, hidden_size=8, num_layers=1, batch_first=False)

    def forward(self, x, h0, c0):
        y, (h, c) = self.rnn(x, (h0, c0))
        return y, h, c


class Gru(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(input_size=4, hidden_size=8, num_layers=1, batch_first=False)

    def forward(self, x, h0):
        y, h = self.rnn(x, h0)
        return y, h


def inputs(seq, batch, nstate):
    x = torch.randn(seq, batch, 4)
    return [x] + [torch.randn(1, batch, 8) * 0.5 for _ in range(nstate)]


def make(name, module, state_names, opset):
    torch.manual_seed(1)
    module = module()
    module.eval()
    case = os.path.join(HERE, name)
    names = ["x"] + state_names
    outs = ["y"] + [s.replace("0", "n") for s in state_names]
    axes = {"x": {0: "seq", 1: "batch"}, "y": {0: "seq", 1: "batch"}}
    for s in names[1:] + outs[1:]:
        axes[s] = {1: "batch"}
    export(module, inputs(3, 2, len(state_names)), os.path.join(case, "model.onnx"), names, outs,
           dynamic_axes=axes, opset=opset)
    for i, (seq, batch) in enumerate(SIZES):
        write_set(module, inputs(seq, batch, len(state_names)), case, i)


make("lstm_dynamic", Lstm, ["h0", "c0"], 14)
make("gru_dynamic", Gru, ["h0"], 13)
