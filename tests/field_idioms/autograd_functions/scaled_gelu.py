"""GELU times a scale, written in the ``setup_context`` style of autograd.Function.

``forward`` takes no ``ctx`` here: the inputs are ``x`` and ``scale``.
"""

from __future__ import annotations

import math
from typing import Any

import torch

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@torch.compiler.allow_in_graph
class ScaledGelu(torch.autograd.Function):
    """``scale * gelu(x)`` with an exact-erf backward."""

    @staticmethod
    def forward(x: torch.Tensor, scale: float) -> torch.Tensor:
        return scale * 0.5 * x * (1.0 + torch.erf(x * _SQRT_HALF))

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[torch.Tensor, float], output: torch.Tensor) -> None:
        x, scale = inputs
        ctx.save_for_backward(x)
        ctx.scale = scale

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (x,) = ctx.saved_tensors
        cdf = 0.5 * (1.0 + torch.erf(x * _SQRT_HALF))
        pdf = torch.exp(-0.5 * x * x) * _INV_SQRT_2PI
        return grad * ctx.scale * (cdf + x * pdf), None


def scaled_gelu(x: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    """``scale * gelu(x)``."""
    return ScaledGelu.apply(x, scale)
