"""A torchvision classifier with random weights (seed 0) at 1x3x224x224, in the test layout,
for measuring big models (README "Big models"): resnet18, resnet50, vgg11_bn, vit_b_16 (any
torchvision.models classifier by name).

    /usr/bin/python3 tests/models/make_big.py NAME OUT_DIR

Not committed (47 to 531 MB): tools/big-models.sh makes them and measures onnx2c and gcc on
them, with the weights inline and in a blob (--weights).
"""
import os
import sys

import onnx
import torch
import torchvision

from export_util import write_set

name, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
model = getattr(torchvision.models, name)(weights=None, num_classes=1000).eval()
x = torch.randn(1, 3, 224, 224)
os.makedirs(out, exist_ok=True)
# traced with gradients on (unlike export_util.export): under no_grad torch 1.13's
# MultiheadAttention takes its fused path, which has no ONNX export (ViT)
torch.onnx.export(model, (x,), out + "/model.onnx", input_names=["input"],
                  output_names=["logits"], opset_version=14, do_constant_folding=True)
onnx.checker.check_model(out + "/model.onnx")
write_set(model, [x], out, 0)
print("wrote", out)
