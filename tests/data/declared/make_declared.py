#!/usr/bin/python3
"""Writes the models of tests/unit/test_declared.c next to this script (run from any folder:
/usr/bin/python3 tests/data/declared/make_declared.py).

No dependency on the onnx package: the few protobuf fields needed are written by hand
(field numbers from compiler/onnx_subset.proto).
  reshape_decl.onnx        x[N,6], s int64[3] (runtime) -> Reshape -> y declared [N,2,3]
  reshape_nodecl.onnx      the same, y declared without a shape
  reshape_unknown_dim.onnx the same, y declared [N,Q,3] where Q is no dim of the inputs
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


def value_info(name, elem, shape):
    t = f_int(1, elem)
    if shape is not None:
        dims = b""
        for d in shape:
            dims += f_bytes(1, f_int(1, d) if isinstance(d, int) else f_bytes(2, d))
        t += f_bytes(2, dims)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, t))


def model(path, yshape):
    FLOAT, INT64 = 1, 7
    node = f_bytes(1, "x") + f_bytes(1, "s") + f_bytes(2, "y") + f_bytes(3, "reshape") + \
        f_bytes(4, "Reshape")
    graph = f_bytes(1, node) + f_bytes(2, "declared") + \
        f_bytes(11, value_info("x", FLOAT, ["N", 6])) + \
        f_bytes(11, value_info("s", INT64, [3])) + \
        f_bytes(12, value_info("y", FLOAT, yshape))
    m = f_int(1, 8) + f_bytes(8, f_bytes(1, "") + f_int(2, 15)) + f_bytes(7, graph)
    with open(os.path.join(HERE, path), "wb") as f:
        f.write(m)


model("reshape_decl.onnx", ["N", 2, 3])
model("reshape_nodecl.onnx", None)
model("reshape_unknown_dim.onnx", ["N", "Q", 3])
