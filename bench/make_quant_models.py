"""Int8 QDQ versions of the float bench models, written the way onnxruntime's static quantizer
(quantize_static, QuantFormat.QDQ, per_channel=True, MinMax calibration) writes them.

    /usr/bin/python3 bench/make_quant_models.py [--out build/bench] [--act uint8|int8] [--force]
                                                [--node-modules DIR] [NAME ...]

NAME: q_resnet18, q_mobilenet_v2 (default: both): the int8 version of the float model NAME[2:]
of bench/models.py, which make_models.py exports first when it is missing (torch, eval mode,
opset 13, do_constant_folding: BatchNorm is folded into the Conv weights and biases).

Writes OUT/NAME/:
  model.onnx          the QDQ model (float input, float output)
  input_0.bin         the bench input (raw float32; the same tensor as the float model's)
  check/S/input_0.bin, check/S/ort_0.bin   S = 0..7: inputs (0 is the bench input) and ONNX
                      Runtime's output of the int8 model for them (for the output check)
  calib/              the calibration inputs and the float model with every calibrated tensor
                      added as a graph output
  quant.json          activation type, input shape, the output's scale, the calibrated ranges,
                      the Relu/Clip nodes folded, the op counts
The models are large (q_resnet18 ~12 MB): keep them in a build directory, never commit them.

How it quantizes (following onnxruntime/python/tools/quantization: registry.py, qdq_quantizer.py,
operators/activation.py, gemm.py, quant_utils.py):
  - ops quantized: Conv, Gemm, Add, GlobalAveragePool, MaxPool, Relu, Clip (of the bench models;
    Flatten is in neither of ORT's registries and stays float between DQ and Q);
  - activations: one QuantizeLinear -> DequantizeLinear pair per tensor, every consumer reads the
    DequantizeLinear output; asymmetric, uint8 (0..255, the default of --act) or int8
    (-128..127): rmin = min(min, 0), rmax = max(max, 0), scale = (rmax - rmin) / (qmax - qmin),
    zero point = round(qmin - rmin / scale) (float32, numpy round: half to even); the graph input
    too; the graph output's producer writes NAME_QuantizeLinear_Input and the DequantizeLinear
    writes the output's own name;
  - a Relu or Clip whose input comes from a quantized op with no other reader is removed
    (QDQRemovableActivation, asymmetric activations): the producer writes the activation's
    output, and the Q after it takes the activation's calibrated range ([0, max]), so the
    saturation of the quantization is the activation; MaxPool's output keeps its input's scale
    and zero point (QDQDirect8BitOp);
  - weights of Conv and Gemm: int8 symmetric per output channel (Conv axis 0, Gemm axis 0 with
    transB = 1): scale = max|w| / 127 (qmin/qmax -127/127), zero point 0, behind a
    DequantizeLinear with axis; biases int32 = round(b / (x_scale * w_scale)), zero point 0,
    DequantizeLinear with axis 0;
  - calibration: MinMax over 8 random normal inputs (seeds 100..107), the float model run by
    ONNX Runtime (bench/ort.js minmax, onnxruntime-node) with every tensor to calibrate added as
    a graph output: min of the minima, max of the maxima.
The reference outputs are ONNX Runtime's (bench/ort.js run, 1 thread, optimizations all) on the
int8 model.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import make_models  # noqa: E402
from models import MODELS, SEED  # noqa: E402

F32 = np.float32
QUANT = ["q_resnet18", "q_mobilenet_v2"]
ACT = {"uint8": (TensorProto.UINT8, np.uint8, 0, 255),
       "int8": (TensorProto.INT8, np.int8, -128, 127)}
N_CALIB = 8
N_CHECK = 8
SOURCES = ("make_quant_models.py", "make_models.py", "models.py")


def node_env(node_modules):
    if not os.path.isdir(os.path.join(node_modules, "onnxruntime-node")):
        sys.exit("make_quant_models: no onnxruntime-node in %s (cd %s && npm install "
                 "--ignore-scripts onnxruntime-node@1.30.0)" % (node_modules,
                                                                os.path.dirname(node_modules)))
    return dict(os.environ, NODE_PATH=node_modules)


def ort(env, *args):
    r = subprocess.run(["node", os.path.join(HERE, "ort.js")] + list(args), env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("make_quant_models: bench/ort.js %s failed: %s" % (args[0], r.stderr.strip()))
    return r.stdout


# -- the plan: which tensors get a Q/DQ pair, which activations go, which weights ---------------

def plan(graph):
    """What onnxruntime's QDQ quantizer does to this float graph, as data:
    acts      {tensor: None | source tensor whose parameters it shares}, in marking order
    weights   {initializer: axis}
    biases    {initializer: (activation input, weight)}
    removed   set of node names (Relu / Clip folded into the quantization)
    rename    {old output name: new output name} for the producers of removed activations"""
    consts = {i.name for i in graph.initializer}
    consts |= {o for n in graph.node if n.op_type == "Constant" for o in n.output}
    outputs = {o.name for o in graph.output}
    readers = {}
    producer = {}
    for n in graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
        for o in n.output:
            producer[o] = n
    acts, weights, biases, removed, rename = {}, {}, {}, set(), {}

    def act(t, share=None):
        if t and t not in consts and t not in acts:
            acts[t] = share

    def current(t):
        return rename.get(t, t)

    for n in graph.node:
        ins = [current(i) for i in n.input]
        op = n.op_type
        if op in ("Conv", "Gemm"):
            act(ins[0])
            act(n.output[0])
            axis = 0
            if op == "Gemm":
                tb = [a.i for a in n.attribute if a.name == "transB"]
                axis = 0 if (tb and tb[0]) else 1
                alpha = [a.f for a in n.attribute if a.name in ("alpha", "beta")]
                if any(x != 1.0 for x in alpha):
                    sys.exit("make_quant_models: Gemm %s: alpha/beta != 1 not handled" % n.name)
            if ins[1] not in consts:
                sys.exit("make_quant_models: %s %s: weight is not an initializer" % (op, n.name))
            weights[ins[1]] = axis
            if len(ins) > 2 and ins[2]:
                biases[ins[2]] = (ins[0], ins[1])
        elif op in ("Relu", "Clip"):
            x = ins[0]
            if x not in acts:
                continue  # its input is not quantized: the node stays as it is
            prod = producer.get(n.input[0])
            if (prod is not None and len(readers.get(n.input[0], [])) == 1 and
                    n.input[0] not in outputs):
                rename[n.input[0]] = n.output[0]
                del acts[x]
                removed.add(n.name)
                act(n.output[0])
            else:
                act(x)
                act(n.output[0])
        elif op == "MaxPool":
            act(ins[0])
            act(n.output[0], share=ins[0])
        elif op in ("Add", "GlobalAveragePool"):
            for i in ins:
                act(i)
            act(n.output[0])
    return acts, weights, biases, removed, rename


# -- calibration --------------------------------------------------------------------------------

def calibrate(model, acts, d, shape, env):
    """{tensor: (min, max)} over N_CALIB random inputs, from ONNX Runtime on the float model."""
    cd = os.path.join(d, "calib")
    os.makedirs(cd, exist_ok=True)
    aug = onnx.ModelProto()
    aug.CopyFrom(model)
    have = {o.name for o in aug.graph.output}
    names = [t for t, share in acts.items() if share is None]
    for t in names:
        if t not in have:
            aug.graph.output.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, None))
    path = os.path.join(cd, "augmented.onnx")
    onnx.save(aug, path)
    inputs = []
    for k in range(N_CALIB):
        rng = np.random.default_rng(SEED + 100 + k)
        p = os.path.join(cd, "calib_%d.bin" % k)
        rng.standard_normal(shape, dtype=F32).tofile(p)
        inputs.append(p)
    ranges = json.loads(ort(env, "minmax", path, ",".join(map(str, shape)), *inputs))
    missing = [t for t in names if t not in ranges]
    if missing:
        sys.exit("make_quant_models: no range for %s" % ", ".join(missing[:5]))
    return {t: (F32(ranges[t][0]), F32(ranges[t][1])) for t in names}


def act_params(lo, hi, act):
    """onnxruntime's compute_scale_zp for an asymmetric activation, in float32."""
    _, npt, qmin, qmax = ACT[act]
    rmin = min(F32(lo), F32(0))
    rmax = max(F32(hi), F32(0))
    scale = F32((rmax - rmin) / F32(qmax - qmin))
    if scale == 0 or not np.isfinite(scale):
        scale = F32(1.0)
    zp = np.round(F32(qmin) - rmin / scale)
    zp = int(np.clip(zp, qmin, qmax))
    return scale, np.array(zp, dtype=npt)


def weight_params(w, axis):
    """Symmetric int8 per channel along axis: (quantized, scales float32)."""
    wm = np.moveaxis(w.astype(F32), axis, 0).reshape(w.shape[axis], -1)
    absmax = np.maximum(np.abs(wm.min(axis=1).clip(max=0)), np.abs(wm.max(axis=1).clip(min=0)))
    scale = (F32(2) * absmax.astype(F32) / F32(254)).astype(F32)
    scale[scale == 0] = F32(1.0)
    shp = [1] * w.ndim
    shp[axis] = -1
    q = np.clip(np.round(w.astype(F32) / scale.reshape(shp)), -127, 127).astype(np.int8)
    return q, scale


# -- the rewrite --------------------------------------------------------------------------------

def quantize(model, act, ranges, acts, weights, biases, removed, rename):
    qtype = ACT[act][0]
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    graph_out = {o.name for o in g.output}

    nodes = []
    for n in g.node:
        if n.name in removed:
            continue
        m = onnx.NodeProto()
        m.CopyFrom(n)
        for k, o in enumerate(m.output):
            if o in rename:
                m.output[k] = rename[o]
        nodes.append(m)
    used = {i for n in nodes for i in n.input} | graph_out
    nodes = [n for n in nodes if n.op_type != "Constant" or any(o in used for o in n.output)]

    new_inits = []
    qdq = []
    params = {}  # activation -> (scale name, zp name, scale value)
    for t, share in acts.items():
        if share is None:
            s, z = act_params(ranges[t][0], ranges[t][1], act)
            sn, zn = t + "_scale", t + "_zero_point"
            new_inits += [numpy_helper.from_array(np.array(s, dtype=F32), sn),
                          numpy_helper.from_array(z, zn)]
            params[t] = (sn, zn, s)
        else:
            params[t] = params[share]
    for t in acts:
        sn, zn, _ = params[t]
        q_in = t
        dq_out = t + "_DequantizeLinear_Output"
        if t in graph_out:
            q_in = t + "_QuantizeLinear_Input"
            dq_out = t
            for n in nodes:
                for k, o in enumerate(n.output):
                    if o == t:
                        n.output[k] = q_in
        else:
            for n in nodes:
                for k, i in enumerate(n.input):
                    if i == t:
                        n.input[k] = dq_out
        qdq.append(helper.make_node("QuantizeLinear", [q_in, sn, zn],
                                    [t + "_QuantizeLinear_Output"], t + "_QuantizeLinear"))
        qdq.append(helper.make_node("DequantizeLinear", [t + "_QuantizeLinear_Output", sn, zn],
                                    [dq_out], t + "_DequantizeLinear"))

    drop = set()
    wscale = {}
    for w, axis in weights.items():
        arr = numpy_helper.to_array(inits[w])
        q, scale = weight_params(arr, axis)
        wscale[w] = scale
        qn, sn, zn, dq = (w + "_quantized", w + "_scale", w + "_zero_point",
                          w + "_DequantizeLinear_Output")
        new_inits += [numpy_helper.from_array(q, qn), numpy_helper.from_array(scale, sn),
                      numpy_helper.from_array(np.zeros(scale.shape, np.int8), zn)]
        qdq.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [dq],
                                    w + "_DequantizeLinear", axis=axis))
        drop.add(w)
        for n in nodes:
            for k, i in enumerate(n.input):
                if i == w:
                    n.input[k] = dq
    for b, (x, w) in biases.items():
        arr = numpy_helper.to_array(inits[b]).astype(F32)
        bscale = (params[x][2] * wscale[w]).astype(F32)
        q = np.clip(np.round(arr / bscale), -2**31, 2**31 - 1).astype(np.int32)
        qn, sn, zn, dq = (b + "_quantized", b + "_quantized_scale", b + "_quantized_zero_point",
                          b + "_quantized_DequantizeLinear_Output")
        new_inits += [numpy_helper.from_array(q, qn), numpy_helper.from_array(bscale, sn),
                      numpy_helper.from_array(np.zeros(bscale.shape, np.int32), zn)]
        qdq.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [dq],
                                    b + "_quantized_DequantizeLinear", axis=0))
        drop.add(b)
        for n in nodes:
            for k, i in enumerate(n.input):
                if i == b:
                    n.input[k] = dq

    # Topological order: every node after the producers of its inputs.
    allnodes = nodes + qdq
    avail = {i.name for i in g.input} | {i.name for i in g.initializer} | \
        {i.name for i in new_inits} | {""}
    order, pending = [], allnodes
    while pending:
        rest = []
        for n in pending:
            if all(i in avail for i in n.input):
                order.append(n)
                avail.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(pending):
            sys.exit("make_quant_models: the rewritten graph has a cycle or a dangling input "
                     "(%s)" % rest[0].name)
        pending = rest

    used = {i for n in order for i in n.input}
    keep = [i for i in g.initializer if i.name not in drop and i.name in used]
    out = helper.make_model(
        helper.make_graph(order, g.name + "_qdq", list(g.input), list(g.output),
                          keep + new_inits),
        opset_imports=[helper.make_opsetid("", 13)], producer_name="onnx2c-bench-quant")
    onnx.checker.check_model(out)
    return out


# -- driver -------------------------------------------------------------------------------------

def up_to_date(d, act):
    path = os.path.join(d, "model.onnx")
    meta = os.path.join(d, "quant.json")
    if not (os.path.exists(path) and os.path.exists(meta)):
        return False
    try:
        with open(meta) as f:
            if json.load(f).get("act") != act:
                return False
    except (OSError, ValueError):
        return False
    t = os.path.getmtime(path)
    return all(os.path.getmtime(os.path.join(HERE, f)) < t for f in SOURCES + ("ort.js",))


def make(name, out_root, act, force, env):
    base = name[2:]
    spec = MODELS[base]
    d = os.path.join(out_root, name)
    if not force and up_to_date(d, act):
        print("make_quant_models: %s (%s activations) up to date" % (name, act))
        return
    make_models.make(base, out_root, False)
    fd = os.path.join(out_root, base)
    model = onnx.load(os.path.join(fd, "model.onnx"))
    shape = list(spec.shapes[0])
    os.makedirs(d, exist_ok=True)
    acts, weights, biases, removed, rename = plan(model.graph)
    ranges = calibrate(model, acts, d, shape, env)
    q = quantize(model, act, ranges, acts, weights, biases, removed, rename)
    path = os.path.join(d, "model.onnx")
    tmp = path + ".tmp"
    onnx.save(q, tmp)

    # Check set: the bench input, then N_CHECK - 1 other random inputs; ORT's int8 outputs.
    shutil.copyfile(os.path.join(fd, "input_0.bin"), os.path.join(d, "input_0.bin"))
    pairs = []
    for s in range(N_CHECK):
        cd = os.path.join(d, "check", str(s))
        os.makedirs(cd, exist_ok=True)
        x = os.path.join(cd, "input_0.bin")
        if s == 0:
            shutil.copyfile(os.path.join(fd, "input_0.bin"), x)
        else:
            np.random.default_rng(SEED + 200 + s).standard_normal(shape, dtype=F32).tofile(x)
        pairs += [x, os.path.join(cd, "ort_0.bin")]
    ort(env, "run", tmp, ",".join(map(str, shape)), *pairs)
    from collections import Counter
    ops = Counter(n.op_type for n in q.graph.node)
    with open(os.path.join(d, "quant.json"), "w") as f:
        outs = [o.name for o in q.graph.output]
        json.dump({"act": act, "float_model": os.path.join(fd, "model.onnx"),
                   "shape": shape,
                   "output_scale": [float(act_params(*ranges[o], act)[0]) for o in outs],
                   "removed_activations": sorted(removed), "ops": dict(ops),
                   "ranges": {t: [float(a), float(b)] for t, (a, b) in ranges.items()}},
                  f, indent=1)
    os.replace(tmp, path)
    print("make_quant_models: wrote %s (%s activations, %.1f MB; %d Relu/Clip folded; %s)" % (
        path, act, os.path.getsize(path) / 1e6, len(removed),
        ", ".join("%s %d" % kv for kv in sorted(ops.items()))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--act", choices=sorted(ACT), default="uint8",
                    help="activation type (asymmetric); weights are always int8 symmetric")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--node-modules", default=None,
                    help="where onnxruntime-node is installed (default: OUT/../node_modules)")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    names = a.names or QUANT
    for n in names:
        if n not in QUANT:
            sys.exit("make_quant_models: unknown model %r (known: %s)" % (n, ", ".join(QUANT)))
    nm = a.node_modules or os.path.join(os.path.dirname(os.path.abspath(a.out)), "node_modules")
    env = node_env(os.path.abspath(nm))
    for n in names:
        make(n, a.out, a.act, a.force, env)


if __name__ == "__main__":
    main()
