"""A torchvision classifier with random weights (seed 0) at 1x3x224x224, in the test layout,
for measuring big models (README "Big models"): resnet18, resnet50, vgg11_bn or vit_b_16.

    /usr/bin/python3 tests/models/make_big.py NAME OUT_DIR

Not committed (47 to 531 MB): tools/big-models.sh makes them and measures onnx2c and gcc on
them, with the weights inline and in a blob (--weights).
"""
import sys

import torch
import torchvision

from export_util import export, write_set

name, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
model = getattr(torchvision.models, name)(weights=None, num_classes=1000).eval()
x = torch.randn(1, 3, 224, 224)
export(model, [x], out + "/model.onnx", ["input"], ["logits"], opset=14)
write_set(model, [x], out, 0)
print("wrote", out)
