"""Helpers shared by the tests/data/*/make_*.py scripts (and tests/models/export_util.py).

A script in tests/data/FAMILY/ imports this module after putting tests/data on the path:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import gen_util  # noqa: E402

Run with Debian's Python: /usr/bin/python3 (python3-onnx 1.12, python3-numpy).  Every path is
given by the caller (resolved from its __file__), so the scripts run from any folder.

The case layout is the ONNX backend-test one (CONTRACT.md section 3), which onnx2c-test reads:

    CASE/model.onnx
    CASE/test_data_set_K/input_I.pb    one onnx.TensorProto per graph input, in graph order
    CASE/test_data_set_K/output_I.pb   one per graph output
"""
import os
import shutil

import numpy as np
from onnx import NodeProto, TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def save(path, msg):
    """Writes a protobuf message (a model, a tensor) as its serialized bytes."""
    with open(path, "wb") as f:
        f.write(msg.SerializeToString())


def make_model(name, nodes, inputs, outputs, inits=(), opset=13, producer=None, ir_version=8):
    """A graph NAME of nodes (a list, or one node) in a model.  opset: the default domain's
    version, or a list of (domain, version).  producer: producer_name, unset when None.
    ir_version: set when not None (else onnx's default)."""
    if isinstance(nodes, NodeProto):
        nodes = [nodes]
    g = helper.make_graph(list(nodes), name, inputs, outputs, initializer=list(inits))
    opsets = [("", opset)] if isinstance(opset, int) else opset
    kw = {} if producer is None else {"producer_name": producer}
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets], **kw)
    if ir_version is not None:
        m.ir_version = ir_version
    return m


def write_model(folder, name, nodes, inputs, outputs, inits=(), opset=13, producer=None,
                ir_version=8):
    """folder/NAME (NAME ends in .onnx): make_model with the graph named NAME without .onnx."""
    save(os.path.join(folder, name),
         make_model(name.replace(".onnx", ""), nodes, inputs, outputs, inits, opset, producer,
                    ir_version))


def vi(name, shape, t=F):
    """A value info (shape None: no shape; dims are ints or dim_param names)."""
    return helper.make_tensor_value_info(name, t, shape)


def const(name, values, dtype=None):
    """An initializer holding np.array(values, dtype)."""
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def write_data_set(folder, inputs, outputs, input_names=None, output_names=None):
    """folder/input_I.pb and output_I.pb of numpy arrays, the tensors named by the lists given
    (unnamed without them)."""
    os.makedirs(folder, exist_ok=True)
    for kind, arrays, names in (("input", inputs, input_names), ("output", outputs, output_names)):
        for i, a in enumerate(arrays):
            t = numpy_helper.from_array(a) if names is None else numpy_helper.from_array(a, names[i])
            save(os.path.join(folder, "%s_%d.pb" % (kind, i)), t)


def write_case(case_dir, model, sets, named=False):
    """case_dir (emptied first) with model.onnx and test_data_set_K for the K-th (inputs,
    outputs) of sets.  named: the tensors carry the graph's input and output names."""
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    save(os.path.join(case_dir, "model.onnx"), model)
    names = ([v.name for v in model.graph.input], [v.name for v in model.graph.output])
    for k, (ins, outs) in enumerate(sets):
        write_data_set(os.path.join(case_dir, "test_data_set_%d" % k), ins, outs,
                       *(names if named else (None, None)))


def sat(v, dt):
    """v saturated to int8 or uint8 (dt)."""
    lo, hi = (-128, 127) if dt == np.int8 else (0, 255)
    return np.clip(v, lo, hi).astype(dt)


def rand_q8(rng, shape, dt):
    """Uniform int8 or uint8 (dt) values of the numpy Generator rng."""
    lo, hi = (-128, 128) if dt == np.int8 else (0, 256)
    return rng.integers(lo, hi, size=shape).astype(dt)
