"""MLPerf Tiny-style float models at batch 1, exported in the test layout (CONTRACT.md section 3).

    /usr/bin/python3 tests/models/make_tiny.py [NAME ...]     write the cases (all, or the named)
    /usr/bin/python3 tests/models/make_tiny.py --stats [NAME ...]
                                      print parameter bytes and MACs of the committed cases

Writes tests/models/tiny_NAME/model.onnx and test_data_set_0, _1 (two random inputs, reference
outputs from PyTorch). The layer shapes are those of the MLPerf Tiny v1.0 reference models
(random weights and random BatchNorm statistics; the exporter folds BatchNorm into the Conv
before it). Fixed shapes: no dynamic axes. What each model is: tests/models/README.md.

    tiny_kws      DS-CNN keyword spotting, input [1,1,49,10], 12 classes
    tiny_vww      MobileNetV1 alpha 0.25 visual wake words, input [1,3,96,96], 2 classes
    tiny_resnet8  ResNet-8 image classification (CIFAR-10), input [1,3,32,32], 10 classes
    tiny_ad       FC autoencoder anomaly detection, input [1,640], output [1,640]

Parameter bytes are the bytes of the float initializers of model.onnx (what the compiler
stores); MACs count the multiply-accumulates of Conv (grouped and depthwise included), Gemm
and MatMul, from the graph's shapes. tools/tiny-table.sh reads them through --stats.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))


# -- statistics of an exported model ---------------------------------------------------------

def _shapes(model):
    """name -> list of dims, for every value with a known static shape."""
    m = shape_inference.infer_shapes(model)
    out = {}
    for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
        t = vi.type.tensor_type
        if t.HasField("shape"):
            out[vi.name] = [d.dim_value for d in t.shape.dim]
    for init in m.graph.initializer:
        out[init.name] = list(init.dims)
    return m, out


def param_bytes(model):
    """Bytes of the float initializers (the weights the generated C stores)."""
    total = 0
    for init in model.graph.initializer:
        if init.data_type == onnx.TensorProto.FLOAT:
            total += 4 * int(np.prod(init.dims, dtype=np.int64))
    return total


def macs(model):
    """Multiply-accumulates of one inference: Conv = out elements * (Cin/group) * kh * kw,
    Gemm/MatMul = M * N * K."""
    m, shp = _shapes(model)
    total = 0
    for n in m.graph.node:
        if n.op_type == "Conv":
            w, y = shp[n.input[1]], shp[n.output[0]]
            total += int(np.prod(y, dtype=np.int64)) * int(np.prod(w[1:], dtype=np.int64))
        elif n.op_type == "Gemm":
            a, y = shp[n.input[0]], shp[n.output[0]]
            trans_a = any(at.name == "transA" and at.i for at in n.attribute)
            k = a[0] if trans_a else a[1]
            total += y[0] * y[1] * k
        elif n.op_type == "MatMul":
            a, y = shp[n.input[0]], shp[n.output[0]]
            total += int(np.prod(y, dtype=np.int64)) * a[-1]
    return total


def stats(name):
    model = onnx.load(os.path.join(HERE, name, "model.onnx"))
    return param_bytes(model), macs(model)


# -- the models ------------------------------------------------------------------------------

def _torch_models():
    import torch
    import torch.nn as nn

    def bn_relu(c, dims=2):
        bn = nn.BatchNorm2d(c) if dims == 2 else nn.BatchNorm1d(c)
        return [bn, nn.ReLU()]

    def dw_sep(cin, cout, stride):
        """Depthwise 3x3 + BN + ReLU, pointwise 1x1 + BN + ReLU (MobileNetV1 / DS-CNN block)."""
        return [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin), *bn_relu(cin),
                nn.Conv2d(cin, cout, 1), *bn_relu(cout)]

    class KWS(nn.Module):
        """DS-CNN: Conv 64 10x4 s2 (49x10 -> 25x5), 4 x (dw 3x3 + pw 1x1 64), avg pool, FC 12.
        The reference pads 'same' (4/5 rows, 1/1 columns); here 5/1 on both sides: the same
        output shape and MACs. The average pools over the whole map (GlobalAveragePool: torch
        exports AvgPool2d with a zero Pad before it)."""

        def __init__(self):
            super().__init__()
            layers = [nn.Conv2d(1, 64, (10, 4), 2, (5, 1)), *bn_relu(64)]
            for _ in range(4):
                layers += dw_sep(64, 64, 1)
            self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.fc = nn.Linear(64, 12)

        def forward(self, x):
            return torch.softmax(self.fc(self.features(x)), dim=1)

    class VWW(nn.Module):
        """MobileNetV1 alpha 0.25 at 96x96: conv 3x3 s2 8 ch, 13 depthwise-separable blocks,
        avg pool 3x3, FC 2."""
        BLOCKS = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1),
                  (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)]

        def __init__(self):
            super().__init__()
            layers, c = [nn.Conv2d(3, 8, 3, 2, 1), *bn_relu(8)], 8
            for cout, s in self.BLOCKS:
                layers += dw_sep(c, cout, s)
                c = cout
            self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.fc = nn.Linear(256, 2)

        def forward(self, x):
            return torch.softmax(self.fc(self.features(x)), dim=1)

    class Stage(nn.Module):
        """conv 3x3 (stride s) + BN + ReLU, conv 3x3 + BN, + shortcut (1x1 conv stride s
        when the shape changes), ReLU."""

        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), *bn_relu(cout),
                                      nn.Conv2d(cout, cout, 3, 1, 1), nn.BatchNorm2d(cout))
            self.short = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else None
            self.relu = nn.ReLU()

        def forward(self, x):
            s = x if self.short is None else self.short(x)
            return self.relu(self.body(x) + s)

    class ResNet8(nn.Module):
        """CIFAR-10 ResNet-8: conv 3x3 16, stages 16 (s1), 32 (s2), 64 (s2), avg pool 8, FC 10."""

        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), *bn_relu(16),
                                          Stage(16, 16, 1), Stage(16, 32, 2), Stage(32, 64, 2),
                                          nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            return torch.softmax(self.fc(self.features(x)), dim=1)

    class AD(nn.Module):
        """FC autoencoder: 640 -> 128 x4 -> 8 -> 128 x4 -> 640; every hidden Dense is followed
        by BatchNorm and ReLU, the last one is linear."""

        def __init__(self):
            super().__init__()
            widths = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
            layers = []
            for a, b in zip(widths, widths[1:]):
                layers += [nn.Linear(a, b), *bn_relu(b, dims=1)]
            self.net = nn.Sequential(*layers, nn.Linear(128, 640))

        def forward(self, x):
            return self.net(x)

    return torch, nn, {
        "tiny_kws": (KWS, [1, 1, 49, 10]),
        "tiny_vww": (VWW, [1, 3, 96, 96]),
        "tiny_resnet8": (ResNet8, [1, 3, 32, 32]),
        "tiny_ad": (AD, [1, 640]),
    }


NAMES = ["tiny_kws", "tiny_vww", "tiny_resnet8", "tiny_ad"]


def randomize(torch, nn, module, shape):
    """Random weights at He scale (std sqrt(2 / fan_in)) and random BatchNorm statistics near
    those of the data: measured on 8 random inputs, then the means shifted by up to 0.2
    standard deviations and the variances scaled by 0.7-1.4, with random BN affine parameters.
    So activations stay O(1) through the depth and the outputs depend on the input (with
    statistics drawn from nothing, BN biases swamp the signal and every input gives the same
    output)."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.normal_(0.0, (2.0 / fan_in) ** 0.5)
                if m.bias is not None:
                    m.bias.uniform_(-0.1, 0.1)
        bns = [m for m in module.modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d))]
        for m in bns:
            m.momentum = None  # cumulative average over the calibration batch
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.2, 0.2)
        module.train()
        module(torch.randn(8, *shape[1:]))
        module.eval()
        for m in bns:
            sd = m.running_var.sqrt()
            m.running_mean.add_(0.2 * sd * (2 * torch.rand_like(sd) - 1))
            m.running_var.mul_(0.7 + 0.7 * torch.rand_like(sd))


def build(name):
    from export_util import export, write_set
    torch, nn, models = _torch_models()
    torch.manual_seed(0)
    cls, shape = models[name]
    m = cls()
    randomize(torch, nn, m, shape)
    case = os.path.join(HERE, name)
    if os.path.isdir(case):
        shutil.rmtree(case)
    sets = [[torch.randn(*shape)] for _ in range(2)]
    export(m, sets[0], os.path.join(case, "model.onnx"), ["input"], ["output"], None, 13)
    for k, ins in enumerate(sets):
        write_set(m, ins, case, k)
    p, n = stats(name)
    print("wrote %-13s parameters %9d bytes  MACs %10d" % (case, p, n))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--stats"]:
        for n in args[1:] or NAMES:
            p, k = stats(n)
            print("%s %d %d" % (n, p, k))
    else:
        for n in args or NAMES:
            build(n)
