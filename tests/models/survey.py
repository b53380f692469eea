"""A survey of PyTorch exports with dynamic axes, in the test layout (CONTRACT.md section 3).

    /usr/bin/python3 tests/models/survey.py [--out DIR] [--big] [NAME ...]

Writes DIR/NAME/model.onnx and DIR/NAME/test_data_set_K/ (default DIR: /tmp/survey) for every
case, or only the ones named. Random weights (torch.manual_seed(0) per case), BatchNorm
statistics randomized, outputs computed by PyTorch in eval mode; every dynamic axis takes at
least two sizes; each model is exported with the inputs of its second data set, so that no dim
of size 1 is specialised by the tracer. `--big` adds the large ones (resnet50, fcn_resnet50).
Run them with `build/onnx2c-test DIR/*/`. The `survey_*` folders in tests/models/ are copies
of a few small cases.
"""
import argparse
import math
import os
import shutil
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_util import export, write_set  # noqa: E402

CASES = {}
BIG = set()


def case(name, big=False):
    def reg(f):
        CASES[name] = f
        if big:
            BIG.add(name)
        return f
    return reg


def randomize_norm(module):
    for m in module.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
                if m.affine:
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)


def images(sizes, c=3):
    return [[torch.randn(n, c, h, w)] for n, h, w in sizes]


NCHW = {0: "N", 2: "H", 3: "W"}
NB = {0: "N"}


class WithGrad(nn.Module):
    """Runs the wrapped module with grad enabled: torch 1.13's inference fast paths of
    nn.MultiheadAttention / TransformerEncoderLayer cannot be exported; the ordinary path can."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, *args):
        with torch.enable_grad():
            return self.m(*args)


# ---------------------------------------------------------------- torchvision classifiers

def tv_classifier(ctor, sizes, dyn=NCHW, **kw):
    m = ctor(num_classes=10, **kw)
    return m, images(sizes), ["input"], ["logits"], {"input": dyn, "logits": {0: "N"}}


@case("mobilenet_v2")
def _():
    return tv_classifier(lambda **k: torchvision.models.mobilenet_v2(width_mult=0.35, **k),
                         [(1, 32, 32), (2, 48, 40), (1, 37, 33)])


@case("mobilenet_v3_small")
def _():
    return tv_classifier(torchvision.models.mobilenet_v3_small, [(1, 32, 32), (2, 40, 56), (1, 35, 29)])


@case("efficientnet_b0")
def _():
    return tv_classifier(torchvision.models.efficientnet_b0, [(1, 32, 32), (2, 40, 48), (1, 33, 47)])


@case("shufflenet_v2")
def _():
    return tv_classifier(torchvision.models.shufflenet_v2_x0_5, [(1, 32, 32), (2, 48, 40), (1, 35, 41)])


@case("squeezenet1_1")
def _():
    return tv_classifier(torchvision.models.squeezenet1_1, [(1, 48, 48), (2, 64, 56), (1, 51, 49)])


@case("resnet50", big=True)
def _():
    return tv_classifier(torchvision.models.resnet50, [(1, 32, 32), (3, 32, 32)], dyn=NB)


@case("resnet_bottleneck")
def _():
    # torchvision's ResNet with Bottleneck blocks (ResNet-50's structure, one block per stage,
    # narrow groups): dynamic batch only, like a deployed classifier
    from torchvision.models.resnet import ResNet, Bottleneck
    m = ResNet(Bottleneck, [1, 1, 1, 1], num_classes=10, groups=4, width_per_group=4)
    return m, images([(1, 32, 32), (3, 32, 32)]), ["input"], ["logits"], \
        {"input": NB, "logits": {0: "N"}}


@case("densenet")
def _():
    from torchvision.models.densenet import DenseNet
    return tv_classifier(lambda **k: DenseNet(8, (2, 3, 2, 2), 16, **k), [(1, 32, 32), (2, 40, 48)])


@case("regnet_y_400mf")
def _():
    return tv_classifier(torchvision.models.regnet_y_400mf, [(1, 32, 32), (2, 48, 40)])


@case("mnasnet0_5")
def _():
    return tv_classifier(torchvision.models.mnasnet0_5, [(1, 32, 32), (2, 48, 40)])


@case("googlenet")
def _():
    return tv_classifier(lambda **k: torchvision.models.googlenet(aux_logits=False,
                                                                  init_weights=True, **k),
                         [(1, 40, 40), (2, 64, 56)])


# ---------------------------------------------------------------- segmentation

def seg(m, sizes, key="out"):
    class Out(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)[key]
    return Out(), images(sizes), ["input"], ["out"], {"input": NCHW, "out": NCHW}


@case("lraspp_mobilenet_v3")
def _():
    from torchvision.models import segmentation as s
    return seg(s.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=4),
               [(1, 64, 64), (2, 80, 96), (1, 65, 71)])


@case("deeplabv3_mobilenet_v3")
def _():
    from torchvision.models import segmentation as s
    return seg(s.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=4,
                                              aux_loss=False), [(1, 64, 64), (2, 80, 96)])


@case("fcn_resnet50", big=True)
def _():
    from torchvision.models import segmentation as s
    return seg(s.fcn_resnet50(weights=None, weights_backbone=None, num_classes=4, aux_loss=False),
               [(1, 32, 32), (2, 48, 40)])


# ---------------------------------------------------------------- hand-written models

class TinyViT(nn.Module):
    def __init__(self, dim=16, patch=4, img=16, heads=2, layers=2):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, (img // patch) ** 2 + 1, dim))
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(dim), attn=nn.MultiheadAttention(dim, heads),
                ln2=nn.LayerNorm(dim),
                mlp=nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)))))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)             # [B, P, D]
        cls = self.cls.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos
        for b in self.blocks:
            h = b["ln1"](x).transpose(0, 1)                       # [S, B, D]
            a, _ = b["attn"](h, h, h, need_weights=False)
            x = x + a.transpose(0, 1)
            x = x + b["mlp"](b["ln2"](x))
        return self.head(self.norm(x)[:, 0])


@case("tiny_vit")
def _():
    return (WithGrad(TinyViT()), images([(1, 16, 16), (3, 16, 16)]), ["input"], ["logits"],
            {"input": NB, "logits": {0: "N"}})


@case("tiny_vit_op17")
def _():
    m, ins, i, o, d = CASES["tiny_vit"]()
    return m, ins, i, o, d, 17


class FPN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.c3 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.l1, self.l2, self.l3 = nn.Conv2d(8, 8, 1), nn.Conv2d(16, 8, 1), nn.Conv2d(32, 8, 1)
        self.out = nn.Conv2d(8, 4, 3, 1, 1)

    def forward(self, x):
        f1 = self.c1(x)
        f2 = self.c2(f1)
        f3 = self.c3(f2)
        p3 = self.l3(f3)
        p2 = self.l2(f2) + F.interpolate(p3, scale_factor=2.0, mode="nearest")
        p1 = self.l1(f1) + F.interpolate(p2, size=f1.shape[-2:], mode="nearest")
        return self.out(p1), p3


@case("fpn")
def _():
    return (FPN(), images([(1, 32, 32), (2, 48, 40)]), ["input"], ["p1", "p3"],
            {"input": NCHW})


class UNet(nn.Module):
    def __init__(self):
        super().__init__()

        def blk(a, b):
            return nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(),
                                 nn.Conv2d(b, b, 3, padding=1), nn.ReLU())
        self.e1, self.e2, self.e3 = blk(3, 8), blk(8, 16), blk(16, 32)
        self.u2 = nn.ConvTranspose2d(32, 16, 2, 2)
        self.d2 = blk(32, 16)
        self.u1 = nn.ConvTranspose2d(16, 8, 2, 2)
        self.d1 = blk(16, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(F.max_pool2d(e1, 2))
        e3 = self.e3(F.max_pool2d(e2, 2))
        d2 = self.d2(torch.cat([self.u2(e3), e2], 1))
        d1 = self.d1(torch.cat([self.u1(d2), e1], 1))
        return torch.sigmoid(self.head(d1))


@case("unet")
def _():
    return (UNet(), images([(1, 16, 16), (2, 24, 32)]), ["input"], ["mask"],
            {"input": NCHW, "mask": NCHW})


class AudioCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, 8, 9, stride=2, padding=4), nn.BatchNorm1d(8), nn.ReLU(),
            nn.MaxPool1d(2), nn.Conv1d(8, 16, 5, padding=2, dilation=1), nn.BatchNorm1d(16),
            nn.ReLU(), nn.AvgPool1d(2), nn.Conv1d(16, 16, 3, padding=2, dilation=2), nn.ReLU())
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        h = self.net(x)
        return self.fc(h.mean(dim=2)), h


@case("audio_cnn1d")
def _():
    return (AudioCNN(), [[torch.randn(1, 1, 64)], [torch.randn(2, 1, 100)], [torch.randn(1, 1, 37)]], ["wave"],
            ["logits", "feat"], {"wave": {0: "N", 2: "T"}})


class Seq2SeqEnc(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.emb = nn.Embedding(50, 12)
        self.rnn = rnn(12, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(32, 8)

    def forward(self, tokens):
        out, _ = self.rnn(self.emb(tokens))
        return self.proj(out)


def seq_tokens(sizes):
    g = torch.Generator().manual_seed(1)
    return [[torch.randint(0, 50, (b, s), generator=g)] for b, s in sizes]


@case("gru_seq2seq_enc")
def _():
    return (Seq2SeqEnc(nn.GRU), seq_tokens([(1, 5), (3, 9), (2, 1)]), ["tokens"], ["enc"],
            {"tokens": {0: "B", 1: "S"}, "enc": {0: "B", 1: "S"}})


@case("lstm_seq2seq_enc")
def _():
    return (Seq2SeqEnc(nn.LSTM), seq_tokens([(1, 5), (3, 9)]), ["tokens"], ["enc"],
            {"tokens": {0: "B", 1: "S"}, "enc": {0: "B", 1: "S"}}, 14)


class CausalDecoder(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.emb = nn.Embedding(40, d)
        layer = nn.TransformerDecoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
        self.dec = nn.TransformerDecoder(layer, 2)
        self.out = nn.Linear(d, 40)

    def forward(self, tokens, memory):
        s = tokens.shape[1]
        mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
        pos = torch.arange(s).unsqueeze(0)
        x = self.emb(tokens) + self.emb(pos % 40) * 0.1
        return self.out(self.dec(x, memory, tgt_mask=mask))


@case("transformer_decoder")
def _():
    g = torch.Generator().manual_seed(2)
    sizes = [(1, 4, 3), (2, 7, 5), (1, 1, 1)]
    ins = [[torch.randint(0, 40, (b, s), generator=g), torch.randn(b, m, 16, generator=g)]
           for b, s, m in sizes]
    return (WithGrad(CausalDecoder()), ins, ["tokens", "memory"], ["logits"],
            {"tokens": {0: "B", 1: "S"}, "memory": {0: "B", 1: "M"}, "logits": {0: "B", 1: "S"}},
            14)


class ArangePos(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.d = d
        self.lin = nn.Linear(d, d)

    def forward(self, x):                      # x [B, S, D]
        s = x.shape[1]
        pos = torch.arange(s, dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, self.d, 2, dtype=torch.float32) * (-math.log(1e4) / self.d))
        pe = torch.cat([torch.sin(pos * div), torch.cos(pos * div)], dim=1)
        return self.lin(x + pe.unsqueeze(0))


@case("arange_posenc")
def _():
    return (ArangePos(), [[torch.randn(1, 3, 8)], [torch.randn(2, 11, 8)], [torch.randn(1, 1, 8)]], ["x"], ["y"],
            {"x": {0: "B", 1: "S"}, "y": {0: "B", 1: "S"}})


class SuperRes(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 5, padding=2)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1)
        self.c3 = nn.Conv2d(16, 9, 3, padding=1)
        self.ps = nn.PixelShuffle(3)

    def forward(self, x):
        return self.ps(self.c3(torch.tanh(self.c2(torch.relu(self.c1(x))))))


@case("pixelshuffle_sr")
def _():
    return (SuperRes(), images([(1, 8, 8), (2, 12, 10), (1, 1, 7)], c=1), ["lr"], ["hr"],
            {"lr": NCHW, "hr": NCHW}, 11)


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, padding=1)
        self.gn = nn.GroupNorm(2, 8)
        self.ln = nn.LayerNorm(8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=8)

    def forward(self, x):
        h = F.gelu(self.gn(self.c(x)))
        h = F.silu(self.c2(h)) + F.hardswish(h) + F.hardsigmoid(h) + F.mish(h) * 0.1
        h = self.ln(h.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return F.elu(h) + F.leaky_relu(h, 0.1) + F.softplus(h) + F.relu6(h)


@case("activations")
def _():
    return (Activations(), images([(1, 8, 8), (2, 12, 10), (1, 5, 3)]), ["x"], ["y"],
            {"x": NCHW, "y": NCHW})


@case("activations_op17")
def _():
    m, ins, i, o, d = CASES["activations"]()
    return m, ins, i, o, d, 17


class AdaptivePool(nn.Module):
    def forward(self, x):
        return (F.adaptive_avg_pool2d(x, (2, 2)), F.adaptive_max_pool2d(x, 1),
                F.adaptive_avg_pool2d(x, 1).flatten(1))


@case("adaptive_pool")
def _():
    # with dynamic H/W torch 1.13 refuses to export adaptive_avg_pool2d to a size other than 1
    # ("input size not accessible"); with fixed H/W it becomes an AveragePool of fixed kernel
    return (AdaptivePool(), images([(1, 12, 16), (3, 12, 16)]), ["x"], ["a", "b", "c"],
            {"x": NB})


class TensorOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("sel", torch.tensor([3, 0, 2]))
        self.lin = nn.Linear(6, 6)

    def forward(self, x):                     # x [B, S, 6]
        b = x.shape[0]
        a, c = x.chunk(2, dim=2)              # [B, S, 3] x2
        p, q, r = x.split([1, 2, 3], dim=2)
        y = torch.cat([c, a], dim=2).permute(0, 2, 1)            # [B, 6, S]
        att = torch.einsum("bcs,bct->bst", y, y)                 # [B, S, S]
        att = att.masked_fill(att < 0, 0.0).clamp(max=5.0)
        cs = torch.cumsum(x, dim=1)
        top_v, top_i = torch.topk(x, 2, dim=2)
        am = x.argmax(dim=2, keepdim=True)
        g = torch.gather(x, 2, am)
        sel = torch.index_select(x, 2, self.sel)
        w = torch.where(x > 0, x, x * 0.5)
        v = self.lin(x).view(b, -1)
        f = torch.flatten(att, 1)
        return (att, cs + w, top_v, top_i, g, sel + p.expand(-1, -1, 3) + r, v, f,
                am.squeeze(2), q.sum(dim=2))


@case("tensor_ops")
def _():
    return (TensorOps(), [[torch.randn(1, 4, 6)], [torch.randn(2, 7, 6)], [torch.randn(3, 1, 6)]], ["x"],
            ["att", "cw", "topv", "topi", "g", "sel", "v", "f", "am", "qs"],
            {"x": {0: "B", 1: "S"}})


@case("tensor_ops_op12")
def _():
    m, ins, i, o, d = CASES["tensor_ops"]()
    return m, ins, i, o, d, 12  # einsum needs 12


class PadInterp(nn.Module):
    def forward(self, x):
        a = F.pad(x, (1, 2, 2, 1), mode="reflect")
        b = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)
        c = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=True)
        d = F.interpolate(x, scale_factor=0.5, mode="nearest")
        e = F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=False)
        f = F.pad(x, (1, 1, 1, 1), mode="replicate")
        g = F.interpolate(x, scale_factor=0.5, mode="bilinear", align_corners=False)
        return a, b, c, d, e, f, g


@case("pad_interp")
def _():
    return (PadInterp(), images([(1, 6, 8), (2, 10, 12), (1, 7, 5)]), ["x"],
            ["a", "b", "c", "d", "e", "f", "g"], {"x": NCHW})


@case("pad_interp_op11")
def _():
    m, ins, i, o, d = CASES["pad_interp"]()
    return m, ins, i, o, d, 11


class FlattenHead(nn.Module):
    """view(-1) / reshape to compute the flattened feature size at run time; squeeze/unsqueeze;
    a matmul against a transposed input; softmax over a dynamic axis."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        h = self.c(x)
        n, c = h.shape[0], h.shape[1]
        t = h.view(n, c, -1)                          # [N, C, HW]
        g = torch.bmm(t, t.transpose(1, 2)) / t.shape[2]
        s = torch.softmax(t, dim=-1).reshape(n, -1)
        return g, s, h.unsqueeze(1).squeeze(1).mean(dim=(2, 3), keepdim=True)


@case("flatten_gram")
def _():
    return (FlattenHead(), images([(1, 5, 6), (2, 8, 7)]), ["x"], ["gram", "soft", "m"],
            {"x": NCHW}, 16)


class SliceOps(nn.Module):
    """flip (Slice with step -1), strided and symbolic-end slices, roll, chunk of a dynamic
    axis (Split with computed sizes), GLU."""

    def forward(self, x):                      # x [B, C, T]
        t = x.shape[2]
        a = x.flip(2)
        b = x[:, :, ::2]
        c = x[:, :, : t // 2]
        d = torch.roll(x, 1, dims=2)
        e = F.glu(x, dim=2)
        f = x[:, :, -3:]
        return a, b, c, d, e, f


@case("slice_ops")
def _():
    return (SliceOps(), [[torch.randn(1, 3, 6)], [torch.randn(2, 3, 10)], [torch.randn(1, 3, 4)]], ["x"],
            ["a", "b", "c", "d", "e", "f"], {"x": {0: "B", 2: "T"}})


class SliceBcast(nn.Module):
    """The first or last step of a dynamic axis broadcast against the whole axis (x[:, :1] has
    the dim min(T, 1)): differences from the first step, a gate from the last, the first step
    repeated by expand, a MatMul of the first row with every row."""

    def forward(self, x):                      # x [B, T, C]
        a = x - x[:, :1]
        b = x * torch.sigmoid(x[:, -1:])
        c = x[:, :1].expand(-1, x.shape[1], -1) + 1
        d = torch.matmul(x[:, :1], x.transpose(1, 2))
        return a, b, c, d


@case("slice_bcast")
def _():
    return (SliceBcast(), [[torch.randn(2, 5, 3)], [torch.randn(1, 7, 3)], [torch.randn(3, 1, 3)]], ["x"],
            ["a", "b", "c", "d"], {"x": {0: "B", 1: "T"}})


class MaskedSelect(nn.Module):
    """Boolean-mask indexing (NonZero -> GatherND), nonzero coordinates, and the mean of the
    selected values: sizes decided by the data (data dims)."""

    def forward(self, x):                      # x [B, T]
        sel = x[x > 0.5]
        nz = torch.nonzero(x < -0.5)
        return sel * 2, nz, sel.sum().reshape(1)


@case("masked_select")
def _():
    return (MaskedSelect(), [[torch.randn(2, 6)], [torch.randn(3, 11)], [torch.full((1, 4), 0.0)]], ["x"],
            ["sel", "nz", "s"], {"x": {0: "B", 1: "T"}})


class NmsPost(nn.Module):
    """A detector's post-processing: scores from logits, torchvision's batched NMS over boxes
    decoded from offsets, the kept boxes and scores gathered."""

    def forward(self, boxes, logits):          # boxes [N, 4], logits [N]
        scores = torch.sigmoid(logits)
        keep = torchvision.ops.nms(boxes, scores, 0.45)
        return boxes[keep], scores[keep], keep


def nms_boxes(n, seed):
    g = torch.Generator().manual_seed(seed)
    ctr = torch.rand(n, 2, generator=g) * 10
    wh = torch.rand(n, 2, generator=g) * 3 + 0.5
    return [torch.cat([ctr - wh / 2, ctr + wh / 2], 1), torch.randn(n, generator=g)]


@case("nms_post")
def _():
    return (NmsPost(), [nms_boxes(20, 1), nms_boxes(50, 2), nms_boxes(3, 3)], ["boxes", "logits"],
            ["kept", "kscores", "keep"], {"boxes": {0: "N"}, "logits": {0: "N"}}, 11)


class LengthMask(nn.Module):
    """A padding mask from a lengths input: arange(S)[None] < lengths[:, None], masked_fill
    with -inf before a softmax; masked mean pooling divided by lengths; max with indices;
    one_hot of the argmax."""

    def forward(self, x, lengths):             # x [B, S, D], lengths [B]
        s = x.shape[1]
        mask = torch.arange(s)[None, :] < lengths[:, None]          # [B, S]
        score = x.sum(2).masked_fill(~mask, float("-inf"))
        p = torch.softmax(score, dim=1)
        pooled = (x * mask.unsqueeze(2)).sum(1) / lengths[:, None].float()
        mv, mi = x.max(dim=1)
        oh = F.one_hot(mi, 8)
        return p, pooled, mv, oh


class Argsort(nn.Module):
    """argsort / sort along a dynamic axis: TopK with k = the axis size (a symbolic dim)."""

    def forward(self, x):                      # x [B, S]
        v, i = torch.sort(x, dim=1, descending=True)
        return v, i, torch.argsort(x, dim=1)


@case("argsort")
def _():
    return (Argsort(), [[torch.randn(1, 4)], [torch.randn(3, 9)]], ["x"], ["v", "i", "a"],
            {"x": {0: "B", 1: "S"}})


@case("length_mask")
def _():
    sets = [[torch.randn(1, 4, 5), torch.tensor([3])],
            [torch.randn(3, 7, 5), torch.tensor([7, 2, 5])]]
    return (LengthMask(), sets, ["x", "lengths"], ["p", "pooled", "mv", "oh"],
            {"x": {0: "B", 1: "S"}, "lengths": {0: "B"}})


class NormOps(nn.Module):
    """F.normalize, std/var (unbiased, count from the dynamic shape), InstanceNorm2d, PReLU,
    zeros with a dynamic shape, cosine similarity."""

    def __init__(self):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(4, affine=True)
        self.prelu = nn.PReLU(4)
        self.c = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        h = self.prelu(self.inorm(self.c(x)))
        n = F.normalize(h, dim=1)
        sd = h.std(dim=(2, 3))
        va = h.var(dim=3, unbiased=False)
        z = torch.zeros(h.shape[0], h.shape[2]) + h.mean(dim=(1, 3))
        cs = F.cosine_similarity(h[:, :2], h[:, 2:], dim=1)
        return n, sd, va, z, cs


@case("norm_ops")
def _():
    return (NormOps(), images([(1, 5, 6), (2, 8, 7), (1, 3, 9)]), ["x"], ["n", "sd", "va", "z", "cs"],
            {"x": NCHW})


class Decoder(nn.Module):
    """ConvTranspose2d stride 2 with output_padding, bicubic and nearest-exact up-sampling,
    pixel_unshuffle, AvgPool without counting the padding."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.pool = nn.AvgPool2d(3, 2, 1, count_include_pad=False, ceil_mode=True)

    def forward(self, x):
        a = self.up(x)
        b = F.interpolate(x, scale_factor=2.0, mode="bicubic", align_corners=False)
        c = F.pixel_unshuffle(a, 2)
        d = self.pool(x)
        return a, b, c, d


@case("decoder_ops")
def _():
    return (Decoder(), images([(1, 4, 6), (2, 6, 5), (1, 1, 3)], c=4), ["x"], ["a", "b", "c", "d"],
            {"x": NCHW})


class Attention(nn.Module):
    """Hand-written multi-head attention: view(b, s, h, -1), scale 1/sqrt(head dim) read from
    the shape, baddbmm-free matmuls, softmax, dropout (eval: gone), and a key-padding bias."""

    def __init__(self, d=16, h=4):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, s, self.h, -1).transpose(1, 2)
        k = k.view(b, s, self.h, -1).transpose(1, 2)
        v = v.view(b, s, self.h, -1).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        att = att - att.amax(dim=-1, keepdim=True)
        y = torch.softmax(att, dim=-1) @ v
        return self.o(y.transpose(1, 2).reshape(b, s, d))


@case("attention")
def _():
    return (Attention(), [[torch.randn(1, 3, 16)], [torch.randn(2, 6, 16)], [torch.randn(1, 1, 16)]], ["x"], ["y"],
            {"x": {0: "B", 1: "S"}, "y": {0: "B", 1: "S"}}, 15)


class YoloHead(nn.Module):
    """A YOLOv5-style detection head decode: view(bs, na, no, ny, nx).permute, a grid from
    meshgrid(arange(ny), arange(nx)) of the dynamic feature size, sigmoid, xy/wh decode,
    view(bs, -1, no) and cat over two levels."""

    def __init__(self, na=2, nc=3):
        super().__init__()
        self.na, self.no = na, nc + 5
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.SiLU())
        self.down = nn.Sequential(nn.Conv2d(8, 8, 3, 2, 1), nn.SiLU())
        self.m = nn.ModuleList([nn.Conv2d(8, na * self.no, 1), nn.Conv2d(8, na * self.no, 1)])
        self.register_buffer("anchors", torch.tensor([[[1.0, 2.0], [2.0, 1.0]],
                                                      [[3.0, 4.0], [4.0, 3.0]]]))

    def forward(self, x):
        f = [self.stem(x)]
        f.append(self.down(f[0]))
        z = []
        for i in range(2):
            p = self.m[i](f[i])
            bs, _, ny, nx = p.shape
            p = p.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
            grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
            y = p.sigmoid()
            xy = (y[..., 0:2] * 2 - 0.5 + grid) * (2 ** (i + 1))
            wh = (y[..., 2:4] * 2) ** 2 * self.anchors[i].view(1, self.na, 1, 1, 2)
            z.append(torch.cat((xy, wh, y[..., 4:]), -1).view(bs, -1, self.no))
        return torch.cat(z, 1)


@case("yolo_head")
def _():
    return (YoloHead(), images([(1, 16, 16), (2, 24, 32), (1, 13, 7)]), ["images"], ["pred"],
            {"images": NCHW, "pred": {0: "N", 1: "A"}})


class WindowAttnPartition(nn.Module):
    """Swin-style window partition / reverse with H // ws and W // ws computed from the shape,
    plus a cyclic shift (torch.roll) of the feature map."""

    def __init__(self, ws=4, c=8):
        super().__init__()
        self.ws = ws
        self.proj = nn.Conv2d(3, c, 2, 2)
        self.lin = nn.Linear(c, c)

    def forward(self, x):
        x = self.proj(x).permute(0, 2, 3, 1)           # [B, H, W, C]
        b, h, w, c = x.shape
        ws = self.ws
        x = torch.roll(x, shifts=(-2, -2), dims=(1, 2))
        win = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
        win = self.lin(win) + win.mean(dim=1, keepdim=True)
        x = win.view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        return torch.roll(x, shifts=(2, 2), dims=(1, 2))


@case("window_partition")
def _():
    return (WindowAttnPartition(), images([(1, 16, 16), (2, 24, 16)]), ["x"], ["y"],
            {"x": NCHW, "y": {0: "N", 1: "Ho", 2: "Wo"}})


class AdvIndex(nn.Module):
    """CLIP-style pooling at the argmax token: x[arange(B), tokens.argmax(-1)]; a boolean-free
    index_select by a runtime index tensor; stack; ones_like."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6)

    def forward(self, tokens, idx):
        x = self.emb(tokens)                            # [B, S, 6]
        pooled = x[torch.arange(x.shape[0]), tokens.argmax(dim=-1)]
        sel = x.index_select(1, idx)
        st = torch.stack([pooled, torch.ones_like(pooled)], dim=1)
        return pooled, sel, st


@case("adv_indexing")
def _():
    g = torch.Generator().manual_seed(3)
    sets = [[torch.randint(0, 20, (b, s), generator=g), torch.tensor(ix)]
            for b, s, ix in [(1, 4, [0, 3]), (3, 7, [6, 1, 2])]]
    return (AdvIndex(), sets, ["tokens", "idx"], ["pooled", "sel", "st"],
            {"tokens": {0: "B", 1: "S"}, "idx": {0: "K"}})


class TCN(nn.Module):
    """A temporal conv net: causal left padding with F.pad, dilated depthwise Conv1d, pointwise
    Conv1d, residual, weight-normalised conv (folded at export), and a last-step readout."""

    def __init__(self, c=8):
        super().__init__()
        self.inp = nn.Conv1d(2, c, 1)
        self.dw = nn.ModuleList([nn.Conv1d(c, c, 3, dilation=d, groups=c) for d in (1, 2, 4)])
        self.pw = nn.ModuleList([nn.Conv1d(c, c, 1) for _ in range(3)])
        self.out = nn.Linear(c, 3)

    def forward(self, x):
        h = self.inp(x)
        for i, d in enumerate((1, 2, 4)):
            y = self.dw[i](F.pad(h, (2 * d, 0)))
            h = h + self.pw[i](F.gelu(y))
        return self.out(h[:, :, -1]), h


@case("tcn")
def _():
    return (TCN(), [[torch.randn(1, 2, 9)], [torch.randn(2, 2, 20)], [torch.randn(1, 2, 1)]], ["x"], ["y", "h"],
            {"x": {0: "B", 2: "T"}}, 11)


@case("lraspp_op11")
def _():
    m, ins, i, o, d = CASES["lraspp_mobilenet_v3"]()
    return m, ins, i, o, d, 11


@case("mobilenet_v3_op16")
def _():
    m, ins, i, o, d = CASES["mobilenet_v3_small"]()
    return m, ins, i, o, d, 16


class ScriptIf(nn.Module):
    """torch.jit.script branches on data: If with two subgraphs that see outer values."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):                      # x [B, T, 8]
        h = self.lin(x)
        if bool(h.mean() > 0.0):
            y = torch.relu(h) * 2.0 + x
        else:
            y = torch.tanh(h) - 1.0
        if x.shape[1] > 3:                     # a branch on a dim: folded or decided at run time
            y = y * 0.5
        return y


@case("script_if")
def _():
    pos, neg = torch.full((2, 5, 8), 3.0), torch.full((3, 2, 8), -3.0)
    return (torch.jit.script(ScriptIf()), [[pos], [torch.randn(1, 7, 8)], [neg]], ["x"], ["y"],
            {"x": {0: "B", 1: "T"}}, 13)


class ScriptRnnLoop(nn.Module):
    """A recurrent cell run by a scripted loop over a dynamic axis (Loop, trip count from a
    Shape, the input captured from the outer graph), then a greedy decoder run for a number of
    steps given as an input tensor (trip count from data), its state carried."""

    def __init__(self):
        super().__init__()
        self.ih = nn.Linear(4, 6)
        self.hh = nn.Linear(6, 6)
        self.emb = nn.Embedding(5, 6)
        self.out = nn.Linear(6, 5)

    def forward(self, x, steps):               # x [B, T, 4], steps [] int64
        h = torch.zeros(x.shape[0], 6)
        for t in range(x.shape[1]):
            h = torch.tanh(self.ih(x[:, t]) + self.hh(h))
        tok = torch.argmax(self.out(h), 1)
        score = torch.zeros(x.shape[0])
        for _ in range(int(steps)):
            h = torch.tanh(self.hh(h) + self.emb(tok))
            logits = self.out(h)
            score = score + logits.max(1)[0]
            tok = torch.argmax(logits, 1)
        return h, tok, score


@case("script_loop")
def _():
    s = [torch.tensor(3), torch.tensor(0), torch.tensor(6)]
    return (torch.jit.script(ScriptRnnLoop()),
            [[torch.randn(2, 5, 4), s[0]], [torch.randn(3, 2, 4), s[2]], [torch.randn(1, 1, 4), s[1]]],
            ["x", "steps"], ["h", "tok", "score"], {"x": {0: "B", 1: "T"}}, 13)


class ScriptGreedy(nn.Module):
    """A scripted greedy decoder that collects its tokens in a Python list, one step per
    position of a memory input (a Loop whose trip count is the dim T; a constant count would be
    unrolled by the exporter), carrying the hidden state, the last token and the list
    (SequenceEmpty, SequenceInsert in the body, ConcatFromSequence after: torch.stack)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 6)
        self.cell = nn.Linear(12, 6)
        self.out = nn.Linear(6, 7)

    def forward(self, h, mem):                 # h [B, 6], mem [B, T, 6]
        tok = torch.zeros(h.shape[0], dtype=torch.long)
        toks: List[torch.Tensor] = []
        for t in range(mem.shape[1]):
            h = torch.tanh(self.cell(torch.cat([self.emb(tok) + mem[:, t], h], 1)))
            tok = torch.argmax(self.out(h), 1)
            toks.append(tok)
        return torch.stack(toks, 1), h


@case("script_greedy")
def _():
    return (torch.jit.script(ScriptGreedy()),
            [[torch.randn(2, 6), torch.randn(2, 4, 6)], [torch.randn(3, 6), torch.randn(3, 7, 6)],
             [torch.randn(1, 6), torch.randn(1, 1, 6)]],
            ["h", "mem"], ["toks", "hn"], {"h": {0: "B"}, "mem": {0: "B", 1: "T"}}, 13)


# ---------------------------------------------------------------- driver

def build(name, root):
    torch.manual_seed(0)
    r = CASES[name]()
    m, sets, in_names, out_names, dyn = r[:5]
    opset = r[5] if len(r) > 5 else 13
    randomize_norm(m)
    m.eval()
    d = os.path.join(root, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    export(m, sets[1], os.path.join(d, "model.onnx"), in_names, out_names, dyn, opset)
    for k, ins in enumerate(sets):
        write_set(m, ins, d, k)
    return opset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/survey")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    names = a.names or [n for n in CASES if a.big or n not in BIG]
    failed = []
    for n in names:
        try:
            op = build(n, a.out)
            print("%-24s opset %d ok" % (n, op), flush=True)
        except Exception as ex:  # report and go on: the survey is about the rest
            failed.append(n)
            print("%-24s EXPORT FAILED: %s" % (n, str(ex).splitlines()[0] if str(ex) else ex),
                  flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
