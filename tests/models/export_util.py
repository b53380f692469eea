"""Helpers for the model scripts: export a torch module to ONNX and write test data sets.

Writes the ONNX backend-test layout of CONTRACT.md section 3:
    DIR/model.onnx, DIR/test_data_set_K/input_I.pb, output_I.pb
Run with Debian's Python: /usr/bin/python3 (python3-torch, python3-onnx, python3-numpy).
The data-set writer is tests/data/gen_util.py's, shared with the op families' scripts.
"""
import os
import sys

import numpy as np
import onnx
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data"))
from gen_util import write_data_set  # noqa: E402


def export(module, example_inputs, path, input_names, output_names, dynamic_axes=None, opset=13):
    module.eval()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(module, tuple(example_inputs), path, input_names=input_names,
                          output_names=output_names, dynamic_axes=dynamic_axes or {},
                          opset_version=opset, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))


def write_set(module, inputs, case_dir, index):
    """Runs the module on inputs and writes test_data_set_<index>."""
    with torch.no_grad():
        outs = module(*inputs)
    if isinstance(outs, torch.Tensor):
        outs = (outs,)
    def arr(t):  # np.ascontiguousarray would make a 0-d tensor (a scalar input) 1-d
        return np.array(t.detach().numpy(), order="C")
    write_data_set(os.path.join(case_dir, "test_data_set_%d" % index),
                   [arr(t) for t in inputs], [arr(t) for t in outs])
