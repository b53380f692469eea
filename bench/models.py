"""The benchmark models, shared by make_models.py (ONNX export) and torch_bench.py (PyTorch side).

Every model is built with random weights from a fixed seed, so both sides run the same network.
Run with Debian's Python (/usr/bin/python3: torch 1.13, torchvision 0.14, onnx 1.12).

    spec = MODELS[name]
    spec.build()        -> (torch module for timing, torch module for ONNX export or None)
    spec.inputs()       -> list of input tensors at the bench size
    spec.input_names, spec.output_names
    spec.onnx_graph()   -> an onnx.ModelProto built by hand (models without a torch export)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0


def randomize_bn(module):
    """Non-trivial BatchNorm statistics, so BN is not an identity (and the check means something)."""
    g = torch.Generator().manual_seed(SEED + 1)
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                n = m.num_features
                m.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
                m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
                m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                m.bias.copy_((torch.rand(n, generator=g) - 0.5) * 0.4)


def conv_bn_relu(cin, cout, stride=1, k=3):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SegNet(nn.Module):
    """Fully convolutional segmentation net: conv-BN-ReLU encoder with three stride-2 stages (to
    1/8 of the input), a 1x1 classifier to 21 classes, bilinear upsampling to the input size."""

    def __init__(self, classes=21):
        super().__init__()
        self.body = nn.Sequential(
            conv_bn_relu(3, 32, 2), conv_bn_relu(32, 32),
            conv_bn_relu(32, 64, 2), conv_bn_relu(64, 64),
            conv_bn_relu(64, 128, 2), conv_bn_relu(128, 128), conv_bn_relu(128, 128))
        self.cls = nn.Conv2d(128, classes, 1)

    def forward(self, x):
        y = self.cls(self.body(x))
        return F.interpolate(y, size=(x.shape[2], x.shape[3]), mode="bilinear",
                             align_corners=False)


class Correlation(nn.Module):
    """SiamFC cross-correlation with a runtime template: conv2d(search, template)."""

    def forward(self, search, template):
        return F.conv2d(search, template)


class SlowPath(nn.Module):
    """Runs the wrapped module with grad enabled. torch 1.13's inference fast paths
    (aten::_transformer_encoder_layer_fwd) have no ONNX export; they are skipped when grad is on.
    Same math. Used for the export only: the timed PyTorch side runs the fast path."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        with torch.enable_grad():
            return self.inner(x)


class OutTensor(nn.Module):
    """Returns the "out" entry of a torchvision segmentation model's dict output."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)["out"]


def conv_bn_leaky(cin, cout, stride=1, k=3, slope=0.1, groups=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.LeakyReLU(slope, inplace=True))


def conv_dw(cin, cout, stride):
    """Depthwise 3x3 then pointwise 1x1, each BN + LeakyReLU (MobileNet-0.25 style)."""
    return nn.Sequential(conv_bn_leaky(cin, cin, stride, 3, groups=cin),
                         conv_bn_leaky(cin, cout, 1, 1))


class SSH(nn.Module):
    """Single-stage headless context module: 3x3, 5x5 (two 3x3) and 7x7 (three 3x3) receptive
    fields side by side, concatenated, ReLU."""

    def __init__(self, cin, cout):
        super().__init__()
        self.c3 = nn.Sequential(nn.Conv2d(cin, cout // 2, 3, 1, 1, bias=False),
                                nn.BatchNorm2d(cout // 2))
        self.c5a = conv_bn_leaky(cin, cout // 4)
        self.c5b = nn.Sequential(nn.Conv2d(cout // 4, cout // 4, 3, 1, 1, bias=False),
                                 nn.BatchNorm2d(cout // 4))
        self.c7a = conv_bn_leaky(cout // 4, cout // 4)
        self.c7b = nn.Sequential(nn.Conv2d(cout // 4, cout // 4, 3, 1, 1, bias=False),
                                 nn.BatchNorm2d(cout // 4))

    def forward(self, x):
        a = self.c3(x)
        b1 = self.c5a(x)
        b = self.c5b(b1)
        c = self.c7b(self.c7a(b1))
        return F.relu(torch.cat([a, b, c], 1))


class FaceDetector(nn.Module):
    """RetinaFace-style detector: a MobileNet-0.25-like backbone (strides 8, 16, 32), a 3-level
    FPN (1x1 laterals, nearest upsampling, 3x3 merges), an SSH context module per level, and per
    level 1x1 heads for 2 anchors: class (2), box (4), landmarks (10), each reshaped to
    (1, anchors, k) and concatenated over the levels; softmax over the class scores."""

    def __init__(self, fpn=64, anchors=2):
        super().__init__()
        self.stage1 = nn.Sequential(conv_bn_leaky(3, 8, 2), conv_dw(8, 16, 1), conv_dw(16, 32, 2),
                                    conv_dw(32, 32, 1), conv_dw(32, 64, 2), conv_dw(64, 64, 1))
        self.stage2 = nn.Sequential(conv_dw(64, 128, 2), *[conv_dw(128, 128, 1) for _ in range(5)])
        self.stage3 = nn.Sequential(conv_dw(128, 256, 2), conv_dw(256, 256, 1))
        leaky = 0.1 if fpn <= 64 else 0.0
        self.lat = nn.ModuleList([conv_bn_leaky(c, fpn, 1, 1, leaky) for c in (64, 128, 256)])
        self.merge = nn.ModuleList([conv_bn_leaky(fpn, fpn, 1, 3, leaky) for _ in range(2)])
        self.ssh = nn.ModuleList([SSH(fpn, fpn) for _ in range(3)])
        self.cls = nn.ModuleList([nn.Conv2d(fpn, anchors * 2, 1) for _ in range(3)])
        self.box = nn.ModuleList([nn.Conv2d(fpn, anchors * 4, 1) for _ in range(3)])
        self.ldm = nn.ModuleList([nn.Conv2d(fpn, anchors * 10, 1) for _ in range(3)])

    def forward(self, x):
        c1 = self.stage1(x)
        c2 = self.stage2(c1)
        c3 = self.stage3(c2)
        p3 = self.lat[2](c3)
        p2 = self.lat[1](c2) + F.interpolate(p3, size=c2.shape[2:], mode="nearest")
        p2 = self.merge[1](p2)
        p1 = self.lat[0](c1) + F.interpolate(p2, size=c1.shape[2:], mode="nearest")
        p1 = self.merge[0](p1)
        feats = [s(p) for s, p in zip(self.ssh, (p1, p2, p3))]

        def head(convs, k):
            return torch.cat([c(f).permute(0, 2, 3, 1).reshape(f.shape[0], -1, k)
                              for c, f in zip(convs, feats)], 1)
        boxes = head(self.box, 4)
        scores = F.softmax(head(self.cls, 2), dim=-1)
        landmarks = head(self.ldm, 10)
        return boxes, scores, landmarks


class Spec:
    def __init__(self, name, build, shapes, input_names, output_names, onnx_graph=None,
                 desc=""):
        self.name = name
        self._build = build
        self.shapes = shapes
        self.input_names = input_names
        self.output_names = output_names
        self._onnx_graph = onnx_graph
        self.desc = desc

    def build(self):
        """(module to time, module to export). Seeded: the same weights on every call."""
        torch.manual_seed(SEED)
        timed, export = self._build()
        timed.eval()
        if export is not None:
            export.eval()
        return timed, export

    def inputs(self):
        g = torch.Generator().manual_seed(SEED + 2)
        return [torch.randn(*s, generator=g) for s in self.shapes]

    def onnx_graph(self):
        return self._onnx_graph() if self._onnx_graph else None


def _torchvision(fn, wrap=None, **kw):
    """A builder of torchvision.models.FN(weights=None, **kw) (FN may name a submodule:
    "segmentation.lraspp_mobilenet_v3_large"), BatchNorm randomised, optionally wrapped."""
    def build():
        import torchvision
        f = torchvision.models
        for part in fn.split("."):
            f = getattr(f, part)
        m = f(weights=None, **kw)
        randomize_bn(m)
        if wrap:
            m = wrap(m)
        return m, m
    return build


def _ours(cls):
    """A builder of a model class of this file, BatchNorm randomised."""
    def build():
        m = cls()
        randomize_bn(m)
        return m, m
    return build


def _correlation():
    return Correlation(), None


def _correlation_onnx():
    import onnx
    from onnx import TensorProto, helper
    node = helper.make_node("Conv", ["search", "template"], ["response"], name="xcorr")
    graph = helper.make_graph(
        [node], "siamfc_xcorr",
        [helper.make_tensor_value_info("search", TensorProto.FLOAT, [1, 256, 22, 22]),
         helper.make_tensor_value_info("template", TensorProto.FLOAT, [1, 256, 6, 6])],
        [helper.make_tensor_value_info("response", TensorProto.FLOAT, [1, 1, 17, 17])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="onnx2c-bench")
    onnx.checker.check_model(model)
    return model


def _transformer():
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, dropout=0.0,
                                       batch_first=True)
    m = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    return m, SlowPath(m)


C224, S256 = [(1, 3, 224, 224)], [(1, 3, 256, 256)]
LRASPP = _torchvision("segmentation.lraspp_mobilenet_v3_large", OutTensor, weights_backbone=None)

MODELS = {
    "resnet18": Spec("resnet18", _torchvision("resnet18"), C224, ["input"], ["logits"],
                     desc="torchvision resnet18(weights=None)"),
    "mobilenet_v2": Spec("mobilenet_v2", _torchvision("mobilenet_v2"), C224, ["input"],
                         ["logits"], desc="torchvision mobilenet_v2(weights=None)"),
    "segnet": Spec("segnet", _ours(SegNet), S256, ["input"], ["logits"],
                   desc="conv-BN-ReLU encoder to 1/8, 1x1 classifier (21), bilinear x8"),
    "correlation": Spec("correlation", _correlation, [(1, 256, 22, 22), (1, 256, 6, 6)],
                        ["search", "template"], ["response"], onnx_graph=_correlation_onnx,
                        desc="SiamFC xcorr: Conv(search 1x256x22x22, runtime template 1x256x6x6)"),
    "transformer": Spec("transformer", _transformer, [(1, 128, 256)], ["src"], ["out"],
                        desc="nn.TransformerEncoder: 2 layers, d_model 256, 8 heads, ff 1024"),
    "squeezenet": Spec("squeezenet", _torchvision("squeezenet1_1"), C224, ["input"], ["logits"],
                       desc="torchvision squeezenet1_1(weights=None)"),
    "mobilenet_v3": Spec("mobilenet_v3", _torchvision("mobilenet_v3_small"), C224, ["input"],
                         ["logits"],
                         desc="torchvision mobilenet_v3_small(weights=None): squeeze-excitation, "
                              "hard-swish"),
    "lraspp": Spec("lraspp", LRASPP, S256, ["input"], ["logits"],
                   desc="torchvision lraspp_mobilenet_v3_large(weights=None, "
                        "weights_backbone=None), 21 classes"),
    "facedet": Spec("facedet", _ours(FaceDetector), [(1, 3, 320, 320)], ["input"],
                    ["boxes", "scores", "landmarks"],
                    desc="RetinaFace-style detector: MobileNet-0.25-like backbone, 3-level FPN, "
                         "SSH context modules, class/box/landmark heads for 2 anchors "
                         "concatenated over the levels (4200 anchors)"),
}

ORDER = ["resnet18", "mobilenet_v2", "segnet", "correlation", "transformer", "squeezenet",
         "mobilenet_v3", "lraspp", "facedet"]
