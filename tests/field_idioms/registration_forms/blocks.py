"""A transformer feed-forward block, marked the way diffusers marks its blocks."""

from __future__ import annotations

import torch
from torch import nn

from .decorated import bias_tanh_gelu_public
from .utils import maybe_allow_in_graph


# Registering an nn.Module subclass affects only its construction: the forward is
# traced as usual (evidence D10).
@maybe_allow_in_graph  # AIG402
class FeedForward(nn.Module):
    """``proj_out(gelu(proj_in(x) + bias))``."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.proj_in = nn.Linear(dim, hidden, bias=False)
        self.bias = nn.Parameter(torch.zeros(hidden))
        self.proj_out = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj_out(bias_tanh_gelu_public(self.proj_in(x), self.bias))
