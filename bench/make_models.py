"""Exports the benchmark models (bench/models.py) to ONNX at their bench sizes (static shapes).

    /usr/bin/python3 bench/make_models.py [--out build/bench] [--force] [NAME ...]

Writes OUT/NAME/model.onnx, and for the output check of the C driver the raw little-endian
float32 files OUT/NAME/input_I.bin and OUT/NAME/output_I.bin (PyTorch's outputs for those
inputs). A model whose model.onnx is newer than this script and models.py is skipped unless
--force. The models are large (resnet18: 47 MB): never commit them.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402

from models import MODELS, ORDER  # noqa: E402


def up_to_date(path):
    if not os.path.exists(path):
        return False
    t = os.path.getmtime(path)
    return all(os.path.getmtime(os.path.join(HERE, f)) < t
               for f in ("make_models.py", "models.py"))


def write_bin(path, t):
    np.ascontiguousarray(t.detach().numpy().astype(np.float32)).tofile(path)


def make(name, out_root, force):
    spec = MODELS[name]
    d = os.path.join(out_root, name)
    path = os.path.join(d, "model.onnx")
    if not force and up_to_date(path):
        print("make_models: %s up to date" % name)
        return
    os.makedirs(d, exist_ok=True)
    timed, export = spec.build()
    inputs = spec.inputs()
    tmp = path + ".tmp"
    graph = spec.onnx_graph()
    if graph is not None:
        onnx.save(graph, tmp)
    else:
        with torch.no_grad():
            torch.onnx.export(export, tuple(inputs), tmp, input_names=spec.input_names,
                              output_names=spec.output_names, opset_version=13,
                              do_constant_folding=True)
        onnx.checker.check_model(onnx.load(tmp))
    with torch.no_grad():
        outs = timed(*inputs)
    if isinstance(outs, torch.Tensor):
        outs = (outs,)
    for i, t in enumerate(inputs):
        write_bin(os.path.join(d, "input_%d.bin" % i), t)
    for i, t in enumerate(outs):
        write_bin(os.path.join(d, "output_%d.bin" % i), t)
    os.replace(tmp, path)
    print("make_models: wrote %s (%.1f MB)" % (path, os.path.getsize(path) / 1e6))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    names = a.names or ORDER
    for n in names:
        if n not in MODELS:
            sys.exit("make_models: unknown model %r (known: %s)" % (n, ", ".join(ORDER)))
    for n in names:
        make(n, a.out, a.force)


if __name__ == "__main__":
    main()
