"""torchvision resnet18 (random weights, seed 0) at 1x3x224x224, in the test layout.

    /usr/bin/python3 tests/models/make_resnet18.py OUT_DIR

Not committed (47 MB): tools/resnet18.sh makes it, converts it and measures the compile.
"""
import sys

import torch
import torchvision

from export_util import export, write_set

out = sys.argv[1] if len(sys.argv) > 1 else "build/resnet18"
torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None, num_classes=1000).eval()
x = torch.randn(1, 3, 224, 224)
export(model, [x], out + "/model.onnx", ["input"], ["logits"], opset=13)
write_set(model, [x], out, 0)
print("wrote", out)
