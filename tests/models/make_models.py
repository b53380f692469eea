"""Small PyTorch models with dynamic axes, exported in the test layout (CONTRACT.md section 3).

    /usr/bin/python3 tests/models/make_models.py [NAME ...]

Writes tests/models/NAME/model.onnx and test_data_set_K/ (one set per size) for every model,
or only the ones named. Random weights (torch.manual_seed per model), outputs computed by
PyTorch; see tests/models/README.md for what each model is.
"""
import os
import shutil
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

from export_util import export, write_set

HERE = os.path.dirname(os.path.abspath(__file__))


def randomize_bn(module):
    """Non-trivial BatchNorm statistics and affine parameters, so BN is really tested."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)


def conv_bn_relu(cin, cout, stride=1, k=3):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


# 1. siamese_unfold ---------------------------------------------------------------------------

class SiameseUnfold(nn.Module):
    """SiamFC-style cross-correlation of a template with a search image via unfold + matmul."""

    def __init__(self, kh=4, kw=4):
        super().__init__()
        self.kh, self.kw = kh, kw

    def forward(self, z, x):
        b, c = x.shape[0], x.shape[1]
        cols = F.unfold(x, (self.kh, self.kw))                 # [B, C*kh*kw, L]
        zf = z.reshape(b, 1, c * self.kh * self.kw)             # [B, 1, C*kh*kw]
        r = torch.matmul(zf, cols)                              # [B, 1, L]
        return r.reshape(b, 1, x.shape[2] - self.kh + 1, x.shape[3] - self.kw + 1)


def make_siamese_unfold():
    m = SiameseUnfold()
    sizes = [(1, 12, 12), (2, 16, 10), (3, 7, 9)]
    ins = [[torch.randn(b, 8, 4, 4), torch.randn(b, 8, h, w)] for b, h, w in sizes]
    dyn = {"z": {0: "B"}, "x": {0: "B", 2: "H", 3: "W"}, "response": {0: "B", 2: "Ho", 3: "Wo"}}
    return m, ins, ["z", "x"], ["response"], dyn, 13


# 2. resnet_small_dynbatch -------------------------------------------------------------------

class NarrowResNet(torchvision.models.resnet.ResNet):
    """torchvision's ResNet-18 structure (BasicBlock, [2,2,2,2]) with widths 8/16/32/64."""

    def __init__(self, widths=(8, 16, 32, 64), num_classes=10):
        B = torchvision.models.resnet.BasicBlock
        super().__init__(B, [2, 2, 2, 2], num_classes=num_classes)
        self.inplanes = widths[0]
        self.conv1 = nn.Conv2d(3, widths[0], kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.layer1 = self._make_layer(B, widths[0], 2)
        self.layer2 = self._make_layer(B, widths[1], 2, stride=2)
        self.layer3 = self._make_layer(B, widths[2], 2, stride=2)
        self.layer4 = self._make_layer(B, widths[3], 2, stride=2)
        self.fc = nn.Linear(widths[3], num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")


def make_resnet_small_dynbatch():
    m = NarrowResNet()
    randomize_bn(m)
    ins = [[torch.randn(n, 3, 64, 64)] for n in (1, 3)]
    dyn = {"input": {0: "N"}, "logits": {0: "N"}}
    return m, ins, ["input"], ["logits"], dyn, 13


# 3. segnet_dynamic --------------------------------------------------------------------------

class SegNet(nn.Module):
    """Fully convolutional: 3 stride-2 stages, 1x1 classifier, bilinear upsample to input size."""

    def __init__(self, classes=4):
        super().__init__()
        self.body = nn.Sequential(conv_bn_relu(3, 8, 2), conv_bn_relu(8, 8),
                                  conv_bn_relu(8, 16, 2), conv_bn_relu(16, 16),
                                  conv_bn_relu(16, 16, 2))
        self.cls = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        y = self.cls(self.body(x))
        return F.interpolate(y, size=x.shape[2:], mode="bilinear", align_corners=False)


def make_segnet_dynamic():
    m = SegNet()
    randomize_bn(m)
    ins = [[torch.randn(*s)] for s in [(1, 3, 32, 32), (2, 3, 48, 40), (1, 3, 21, 35)]]
    dyn = {"input": {0: "N", 2: "H", 3: "W"}, "logits": {0: "N", 2: "H", 3: "W"}}
    return m, ins, ["input"], ["logits"], dyn, 13


# 4. retinaface_small ------------------------------------------------------------------------

class RetinaFaceSmall(nn.Module):
    """RetinaFace-style: backbone -> 3 levels (strides 8/16/32) -> FPN (nearest upsample to the
    lower level's size, add, 3x3 merge) -> per-level 1x1 heads for boxes, landmarks, scores."""

    def __init__(self, anchors=2, ch=16):
        super().__init__()
        self.A = anchors
        self.stem = nn.Sequential(conv_bn_relu(3, 8, 2), conv_bn_relu(8, 8, 2),
                                  conv_bn_relu(8, 16, 2))               # stride 8
        self.c4 = conv_bn_relu(16, 24, 2)                                # stride 16
        self.c5 = conv_bn_relu(24, 32, 2)                                # stride 32
        self.lat = nn.ModuleList([conv_bn_relu(c, ch, 1, k=1) for c in (16, 24, 32)])
        self.merge = nn.ModuleList([conv_bn_relu(ch, ch) for _ in range(2)])
        self.box = nn.ModuleList([nn.Conv2d(ch, anchors * 4, 1) for _ in range(3)])
        self.ldm = nn.ModuleList([nn.Conv2d(ch, anchors * 10, 1) for _ in range(3)])
        self.cls = nn.ModuleList([nn.Conv2d(ch, anchors * 2, 1) for _ in range(3)])

    def forward(self, x):
        n = x.shape[0]
        f3 = self.stem(x)
        f4 = self.c4(f3)
        f5 = self.c5(f4)
        p5 = self.lat[2](f5)
        p4 = self.lat[1](f4)
        p4 = self.merge[1](p4 + F.interpolate(p5, size=p4.shape[2:], mode="nearest"))
        p3 = self.lat[0](f3)
        p3 = self.merge[0](p3 + F.interpolate(p4, size=p3.shape[2:], mode="nearest"))
        feats = [p3, p4, p5]
        boxes = torch.cat([h(f).permute(0, 2, 3, 1).reshape(n, -1, 4)
                           for h, f in zip(self.box, feats)], dim=1)
        ldms = torch.cat([h(f).permute(0, 2, 3, 1).reshape(n, -1, 10)
                          for h, f in zip(self.ldm, feats)], dim=1)
        scores = torch.cat([h(f).permute(0, 2, 3, 1).reshape(n, -1, 2)
                            for h, f in zip(self.cls, feats)], dim=1)
        return boxes, ldms, F.softmax(scores, dim=-1)


def make_retinaface_small():
    m = RetinaFaceSmall()
    randomize_bn(m)
    ins = [[torch.randn(*s)] for s in [(1, 3, 64, 64), (2, 3, 96, 64), (1, 3, 32, 128)]]
    dyn = {"input": {0: "N", 2: "H", 3: "W"}, "boxes": {0: "N", 1: "M"},
           "landmarks": {0: "N", 1: "M"}, "scores": {0: "N", 1: "M"}}
    return m, ins, ["input"], ["boxes", "landmarks", "scores"], dyn, 13


# 5. transformer_encoder ---------------------------------------------------------------------

class SlowPath(nn.Module):
    """Runs the wrapped module with grad enabled. torch 1.13's inference fast paths
    (aten::_transformer_encoder_layer_fwd, aten::_native_multi_head_attention) have no ONNX
    export; they are skipped when grad is on and the weights require grad. Same math."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        with torch.enable_grad():
            return self.inner(x)


def make_transformer_encoder():
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                       batch_first=True)
    m = SlowPath(nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False))
    ins = [[torch.randn(b, s, 16)] for b, s in [(1, 5), (2, 9), (3, 1)]]
    dyn = {"src": {0: "B", 1: "S"}, "out": {0: "B", 1: "S"}}
    return m, ins, ["src"], ["out"], dyn, 13


MODELS = {
    "siamese_unfold": make_siamese_unfold,
    "resnet_small_dynbatch": make_resnet_small_dynbatch,
    "segnet_dynamic": make_segnet_dynamic,
    "retinaface_small": make_retinaface_small,
    "transformer_encoder": make_transformer_encoder,
}


def build(name):
    torch.manual_seed(0)
    m, sets, in_names, out_names, dyn, opset = MODELS[name]()
    m.eval()
    case = os.path.join(HERE, name)
    if os.path.isdir(case):
        shutil.rmtree(case)
    # Export with the second size so no size-1 dim gets specialised by the tracer.
    export(m, sets[1], os.path.join(case, "model.onnx"), in_names, out_names, dyn, opset)
    for k, ins in enumerate(sets):
        write_set(m, ins, case, k)
    print("wrote", case)


if __name__ == "__main__":
    for n in sys.argv[1:] or list(MODELS):
        build(n)
