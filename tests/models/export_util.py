"""Helpers for the model scripts: export a torch module to ONNX and write test data sets.

Writes the ONNX backend-test layout of CONTRACT.md section 3:
    DIR/model.onnx, DIR/test_data_set_K/input_I.pb, output_I.pb
Run with Debian's Python: /usr/bin/python3 (python3-torch, python3-onnx, python3-numpy).
"""
import os

import numpy as np
import onnx
import onnx.numpy_helper
import torch


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
    d = os.path.join(case_dir, "test_data_set_%d" % index)
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        outs = module(*inputs)
    if isinstance(outs, torch.Tensor):
        outs = (outs,)
    for i, t in enumerate(inputs):
        arr = t.detach().numpy()
        with open(os.path.join(d, "input_%d.pb" % i), "wb") as f:
            f.write(onnx.numpy_helper.from_array(np.ascontiguousarray(arr)).SerializeToString())
    for i, t in enumerate(outs):
        arr = t.detach().numpy()
        with open(os.path.join(d, "output_%d.pb" % i), "wb") as f:
            f.write(onnx.numpy_helper.from_array(np.ascontiguousarray(arr)).SerializeToString())
