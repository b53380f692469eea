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


def _resnet18():
    import torchvision
    m = torchvision.models.resnet18(weights=None)
    randomize_bn(m)
    return m, m


def _mobilenet_v2():
    import torchvision
    m = torchvision.models.mobilenet_v2(weights=None)
    randomize_bn(m)
    return m, m


def _segnet():
    m = SegNet()
    randomize_bn(m)
    return m, m


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


MODELS = {
    "resnet18": Spec("resnet18", _resnet18, [(1, 3, 224, 224)], ["input"], ["logits"],
                     desc="torchvision resnet18(weights=None)"),
    "mobilenet_v2": Spec("mobilenet_v2", _mobilenet_v2, [(1, 3, 224, 224)], ["input"],
                         ["logits"], desc="torchvision mobilenet_v2(weights=None)"),
    "segnet": Spec("segnet", _segnet, [(1, 3, 256, 256)], ["input"], ["logits"],
                   desc="conv-BN-ReLU encoder to 1/8, 1x1 classifier (21), bilinear x8"),
    "correlation": Spec("correlation", _correlation, [(1, 256, 22, 22), (1, 256, 6, 6)],
                        ["search", "template"], ["response"], onnx_graph=_correlation_onnx,
                        desc="SiamFC xcorr: Conv(search 1x256x22x22, runtime template 1x256x6x6)"),
    "transformer": Spec("transformer", _transformer, [(1, 128, 256)], ["src"], ["out"],
                        desc="nn.TransformerEncoder: 2 layers, d_model 256, 8 heads, ff 1024"),
}

ORDER = ["resnet18", "mobilenet_v2", "segnet", "correlation", "transformer"]
