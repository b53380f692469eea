#!/usr/bin/python3
"""liveness_bound.py — the liveness bound of a model's activations, independent of onnx2c.

    /usr/bin/python3 tools/liveness_bound.py [-v] [--int8] MODEL.onnx...
    /usr/bin/python3 tools/liveness_bound.py --self-test    (small graphs of known bounds)

Prints per model: "MODEL bound B node I NAME (OP) io IO" where B is the peak, over the nodes in
ONNX order, of the bytes of tensors live at once, I/NAME/OP the first node where the peak is
reached, and IO the bytes of the graph's inputs plus outputs. -v prints every node's figure.

The definition (issue 10): a tensor made by a node is live from that node to its last consumer
(inclusive; a tensor nobody reads lives at its node only). Graph inputs, graph outputs,
initializers and Constant outputs are not counted (they are the caller's, or weights). A Relu,
Clip, zero Pad (constant mode, value 0 or absent) or Add may write over an input that dies at
that node: the output then takes no bytes beyond that input's (for Relu, Clip and Add the input
must have the output's size; a zero Pad's output may be larger). Shapes come from
onnx.shape_inference (the com.microsoft QLinear* ops, which it does not know, take their
input's shape; QLinearAdd/Mul the broadcast of both, QLinearConcat the concatenation,
QLinearGlobalAveragePool N x C x 1...); every value must have a static shape.

--int8: the int8 liveness bound (issue 11): every activation counted at one byte an element,
whatever its type (a quantized model's float tensors between DequantizeLinear and
QuantizeLinear included), i.e. the bound of the same network with every tensor int8.
"""
import sys

import numpy as np
import onnx
from onnx import mapping, numpy_helper, shape_inference

IN_PLACE = {"Relu", "Clip", "Pad", "Add"}


def _bytes(vi):
    t = vi.type.tensor_type
    dims = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
    if any(d < 0 for d in dims) or not t.HasField("shape"):
        raise ValueError("value '%s' has no static shape" % vi.name)
    return int(np.prod(dims, dtype=np.int64)) * np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]).itemsize


def _zero_pad(node, consts):
    """A constant-mode Pad whose pad value is zero or absent."""
    mode = next((a.s.decode() for a in node.attribute if a.name == "mode"), "constant")
    if mode != "constant":
        return False
    value = next((a.f for a in node.attribute if a.name == "value"), 0.0)  # opset < 11
    if len(node.input) > 2 and node.input[2]:
        v = consts.get(node.input[2])
        if v is None:
            return False
        value = float(np.asarray(v).ravel()[0]) if np.asarray(v).size else 0.0
    return value == 0.0


def _attr(n, name, default=None):
    for a in n.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _eval(n, x):
    """The outputs of a node whose inputs are all constants, for the ops exporters use to compute
    shapes and pads (torch's ZeroPad2d at opset 13: ConstantOfShape, Concat, Reshape, Slice,
    Transpose, Cast); None for any other op."""
    op = n.op_type
    if op == "ConstantOfShape":
        t = _attr(n, "value")
        v = numpy_helper.to_array(t).ravel()[0] if t is not None else np.float32(0)
        return np.full(tuple(int(d) for d in x[0]), v)
    if op == "Concat":
        return np.concatenate(x, axis=_attr(n, "axis"))
    if op == "Reshape":
        shape = [int(d) for d in x[1]]
        shape = [x[0].shape[i] if d == 0 else d for i, d in enumerate(shape)]
        return x[0].reshape(shape)
    if op == "Slice":
        r = x[0]
        axes = x[3] if len(x) > 3 else range(len(x[1]))
        steps = x[4] if len(x) > 4 else [1] * len(x[1])
        idx = [slice(None)] * r.ndim
        for st, en, ax, sp in zip(x[1], x[2], axes, steps):
            idx[int(ax)] = slice(int(st), int(en), int(sp))
        return r[tuple(idx)]
    if op == "Transpose":
        return np.transpose(x[0], _attr(n, "perm"))
    if op == "Cast":
        return x[0].astype(mapping.TENSOR_TYPE_TO_NP_TYPE[_attr(n, "to")])
    if op in ("Unsqueeze", "Squeeze"):
        axes = _attr(n, "axes") if len(x) < 2 else [int(a) for a in x[1]]
        if op == "Squeeze":
            return np.squeeze(x[0], axis=tuple(axes) if axes else None)
        r = x[0]
        for a in sorted(a % (r.ndim + len(axes)) for a in axes):
            r = np.expand_dims(r, a)
        return r
    if op == "Gather":
        return np.take(x[0], x[1], axis=_attr(n, "axis", 0))
    if op == "DequantizeLinear":  # a constant weight's: a constant
        sc = np.asarray(x[1], np.float32)
        zp = np.asarray(x[2]).astype(np.float32) if len(x) > 2 else np.float32(0)
        if sc.ndim == 1 and sc.size > 1:
            ax = _attr(n, "axis", 1) % x[0].ndim
            shp = [1] * x[0].ndim
            shp[ax] = sc.size
            sc, zp = sc.reshape(shp), (zp.reshape(shp) if np.ndim(zp) else zp)
        return ((x[0].astype(np.float32) - zp) * sc).astype(np.float32)
    if op in ("Add", "Sub", "Mul", "Neg", "Identity"):
        return {"Add": lambda: x[0] + x[1], "Sub": lambda: x[0] - x[1],
                "Mul": lambda: x[0] * x[1], "Neg": lambda: -x[0], "Identity": lambda: x[0]}[op]()
    return None


def _fold(model):
    """The model with every node of constant inputs that _eval knows replaced by an
    initializer, so that shape inference sees the pads and shapes they compute."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    consts = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    keep, folded = [], []
    for n in g.node:
        if n.op_type == "Constant" and _attr(n, "value") is not None:
            consts[n.output[0]] = numpy_helper.to_array(_attr(n, "value"))
            keep.append(n)
            continue
        ins = [i for i in n.input if i]
        y = None
        if len(n.output) == 1 and all(i in consts for i in ins):
            try:
                y = _eval(n, [np.asarray(consts[i]) for i in ins])
            except (ValueError, TypeError, IndexError, KeyError):
                y = None
        if y is None:
            keep.append(n)
            continue
        consts[n.output[0]] = np.asarray(y)
        folded.append(numpy_helper.from_array(np.asarray(y), n.output[0]))
    if folded:
        del g.node[:]
        g.node.extend(keep)
        g.initializer.extend(folded)
    return m


def _ms_shapes(g, shapes):
    """Shapes of the com.microsoft QLinear* outputs (onnx.shape_inference does not know them),
    in node order, into shapes (name -> (dims, elem_type))."""
    for n in g.node:
        if n.domain != "com.microsoft" or not n.output or n.output[0] in shapes:
            continue
        ins = [shapes.get(t) for t in n.input]
        if n.op_type in ("QLinearAdd", "QLinearMul") and ins[0] and len(ins) > 3 and ins[3]:
            dims = list(np.broadcast_shapes(tuple(ins[0][0]), tuple(ins[3][0])))
        elif n.op_type == "QLinearConcat":
            xs = [ins[i] for i in range(2, len(ins), 3)]
            axis = _attr(n, "axis")
            dims = list(xs[0][0])
            dims[axis % len(dims)] = sum(x[0][axis % len(dims)] for x in xs)
            ins = [xs[0]]
        elif n.op_type == "QLinearGlobalAveragePool" and ins[0]:
            dims = list(ins[0][0][:2]) + [1] * (len(ins[0][0]) - 2)
        elif ins and ins[0]:
            dims = list(ins[0][0])
        else:
            continue
        shapes[n.output[0]] = (dims, ins[0][1])


def _infer(model):
    """onnx.shape_inference, with the com.microsoft outputs' shapes (_ms_shapes) fed back as
    value_info until nothing new is learnt (what follows them gets its shapes too)."""
    from onnx import helper as h
    m = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    for _ in range(len(m.graph.node) + 1):
        shapes = {}
        for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
            t = vi.type.tensor_type
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
            if t.HasField("shape") and all(d >= 0 for d in dims):
                shapes[vi.name] = (dims, t.elem_type)
        for i in m.graph.initializer:
            shapes[i.name] = (list(i.dims), i.data_type)
        known = set(shapes)
        _ms_shapes(m.graph, shapes)
        new = [k for k in shapes if k not in known]
        if not new:
            return m
        keep = [vi for vi in m.graph.value_info if vi.name not in new]
        del m.graph.value_info[:]
        m.graph.value_info.extend(keep)
        m.graph.value_info.extend(h.make_tensor_value_info(k, shapes[k][1], shapes[k][0]) for k in new)
        m = shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
    return m


def bound(model, verbose=False, int8=False):
    m = _infer(_fold(model))
    g = m.graph
    consts = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    for n in g.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = numpy_helper.to_array(a.t)
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        t = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
        if t.HasField("shape") and all(d >= 0 for d in dims):
            shapes[vi.name] = (dims, t.elem_type)
    for i in g.initializer:
        shapes[i.name] = (list(i.dims), i.data_type)
    _ms_shapes(g, shapes)
    size = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        if vi.name in consts:
            continue
        if vi.name not in shapes:
            raise ValueError("value '%s' has no static shape" % vi.name)
        dims, et = shapes[vi.name]
        n = int(np.prod(dims, dtype=np.int64))
        size[vi.name] = n if int8 else n * np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[et]).itemsize
    for name, (dims, et) in shapes.items():  # com.microsoft outputs without value_info
        if name not in size and name not in consts:
            n = int(np.prod(dims, dtype=np.int64))
            size[name] = n if int8 else n * np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[et]).itemsize
    caller = {vi.name for vi in g.input} | {vi.name for vi in g.output}
    io = sum(size[vi.name] for vi in list(g.input) + list(g.output) if vi.name not in consts)

    nodes = [n for n in g.node if n.op_type != "Constant"]
    born, last = {}, {}
    for i, n in enumerate(nodes):
        for t in n.output:
            if t and t not in caller:
                born[t] = last[t] = i
        for t in n.input:
            if t in born:
                last[t] = i
    peak, at = 0, None
    for i, n in enumerate(nodes):
        live = sum(size[t] for t in born if born[t] <= i <= last[t])
        # an in-place op writes its output over an input that dies here
        outs = [t for t in n.output if t in born]
        if n.op_type in IN_PLACE and len(outs) == 1 and (n.op_type != "Pad" or _zero_pad(n, consts)):
            out = outs[0]
            dying = [t for t in n.input if t in born and last[t] == i and
                     (size[t] == size[out] or (n.op_type == "Pad" and size[t] <= size[out]))]
            if dying:
                live -= max(size[t] for t in dying)
        if verbose:
            print("  %4d %-24s %-20s %10d" % (i, n.op_type, n.name[-20:], live))
        if live > peak:
            peak, at = live, (i, n.name, n.op_type)
    return peak, at, io


def self_test():
    """Graphs whose bound is known by hand; tools/embedded.sh runs this before measuring."""
    from onnx import TensorProto as TP
    from onnx import helper as h

    def model(nodes, inputs, outputs, inits=()):
        vi = lambda name, shape: h.make_tensor_value_info(name, TP.FLOAT, shape)
        g = h.make_graph(nodes, "t", [vi(*x) for x in inputs], [vi(*x) for x in outputs],
                         list(inits))
        return h.make_model(g, opset_imports=[h.make_opsetid("", 13)])

    x, y = ("x", [1, 4, 8, 8]), ("y", [1, 4, 8, 8])  # 1 KB each
    w = numpy_helper.from_array(np.ones((4, 4, 1, 1), np.float32), "w")
    conv = lambda i, o: h.make_node("Conv", [i, "w"], [o])
    pads = numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "p")
    cases = [
        # conv a (1 KB), Relu in place over a, conv to the output: 1 KB
        ([conv("x", "a"), h.make_node("Relu", ["a"], ["b"]), conv("b", "y")], [x], [y], [w], 1024),
        # a Sigmoid is not in place: a and b at once
        ([conv("x", "a"), h.make_node("Sigmoid", ["a"], ["b"]), conv("b", "y")], [x], [y], [w], 2048),
        # a is read again after the Relu: it does not die there, a, b and c at once at the Add
        ([conv("x", "a"), h.make_node("Relu", ["a"], ["b"]), conv("b", "c"),
          h.make_node("Add", ["a", "c"], ["d"]), conv("d", "y")], [x], [y], [w], 3072),
        # zero Pad to 10x10 (1600 B) over its dying input (1024 + 1600 without), max pool
        # 3x3 to the output
        ([conv("x", "a"), h.make_node("Pad", ["a", "p"], ["b"]),
          h.make_node("MaxPool", ["b"], ["y"], kernel_shape=[3, 3])], [x], [y], [w, pads], 1600),
        # the graph's input and output alone: nothing counted
        ([h.make_node("Relu", ["x"], ["y"])], [x], [y], [], 0),
        # the same zero Pad, its pads computed from constants as torch's opset-13 ZeroPad2d
        # does (ConstantOfShape, Concat, Reshape, Slice, Transpose, Cast): folded, then 1600
        ([conv("x", "a"),
          h.make_node("ConstantOfShape", ["n4"], ["z"],
                      value=numpy_helper.from_array(np.zeros(1, np.int64))),
          h.make_node("Concat", ["lr", "z"], ["cat"], axis=0),
          h.make_node("Reshape", ["cat", "s42"], ["r"]),
          h.make_node("Slice", ["r", "st", "en", "ax", "sp"], ["sl"]),
          h.make_node("Transpose", ["sl"], ["tr"], perm=[1, 0]),
          h.make_node("Reshape", ["tr", "s8"], ["r8"]),
          h.make_node("Cast", ["r8"], ["pp"], to=TP.INT64),
          h.make_node("Pad", ["a", "pp"], ["b"]),
          h.make_node("MaxPool", ["b"], ["y"], kernel_shape=[3, 3])], [x], [y],
         [w] + [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in
                [("n4", [4]), ("lr", [1, 1, 1, 1]), ("s42", [-1, 2]), ("st", [-1]),
                 ("en", [-(2 ** 62)]), ("ax", [0]), ("sp", [-1]), ("s8", [-1])]], 1600),
    ]
    for k, (nodes, ins, outs, inits, want) in enumerate(cases):
        got = bound(model(nodes, ins, outs, inits))[0]
        if got != want:
            print("liveness_bound: self-test %d: bound %d, want %d" % (k, got, want))
            return 1
    print("liveness_bound: self-test ok (%d graphs)" % len(cases))
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    verbose, int8 = "-v" in argv, "--int8" in argv
    paths = [a for a in argv if a not in ("-v", "--int8")]
    if not paths:
        sys.stderr.write("usage: liveness_bound.py [-v] [--int8] MODEL.onnx...\n")
        return 2
    for p in paths:
        peak, at, io = bound(onnx.load(p), verbose, int8)
        i, name, op = at if at else (-1, "-", "-")
        print("%s bound %d node %d %s (%s) io %d" % (p, peak, i, name or "?", op, io))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
