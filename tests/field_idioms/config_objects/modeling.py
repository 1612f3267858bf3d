"""An attention module; patching.py replaces its forward."""

from __future__ import annotations

import torch


class Attention(torch.nn.Module):
    dropout = 0.0

    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
