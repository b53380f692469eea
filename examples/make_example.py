"""The bundled example model: a tiny image classifier with dynamic batch, height and width.

    /usr/bin/python3 examples/make_example.py

Writes examples/tinynet.onnx (committed; regenerate only when changing the model).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "models"))
from export_util import export  # noqa: E402


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16, 4)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return torch.softmax(self.fc(x), dim=1)


torch.manual_seed(0)
here = os.path.dirname(os.path.abspath(__file__))
export(TinyNet(), [torch.randn(1, 3, 32, 32)], os.path.join(here, "tinynet.onnx"), ["image"], ["probs"],
       dynamic_axes={"image": {0: "batch", 2: "height", 3: "width"}, "probs": {0: "batch"}})
print("wrote examples/tinynet.onnx")
