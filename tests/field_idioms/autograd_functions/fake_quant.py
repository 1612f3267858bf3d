"""Fake quantization with a straight-through gradient, for quantization-aware training."""

from __future__ import annotations

import torch

from .options import FakeQuantSpec

#: Smallest scale; keeps an all-zero channel from dividing by zero.
_MIN_SCALE = 1e-8

_STOCHASTIC_ROUNDING = False


def enable_stochastic_rounding(enabled: bool = True) -> None:
    """Round stochastically instead of to nearest (switched on late in training)."""
    global _STOCHASTIC_ROUNDING
    _STOCHASTIC_ROUNDING = enabled


@torch.compiler.allow_in_graph
class FakeQuantize(torch.autograd.Function):
    """Round ``x / scale`` to the integer grid of ``spec`` and scale back."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, scale: torch.Tensor, spec: FakeQuantSpec) -> torch.Tensor:
        scale = scale.clamp(min=_MIN_SCALE)
        scaled = x / scale
        if _STOCHASTIC_ROUNDING:  # AIG302
            scaled = scaled + torch.rand_like(scaled) - 0.5
        codes = torch.round(scaled)
        inside = (codes >= spec.qmin) & (codes <= spec.qmax)
        ctx.save_for_backward(inside)
        return codes.clamp(spec.qmin, spec.qmax) * scale

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        (inside,) = ctx.saved_tensors
        return grad * inside, None, None


def fake_quantize(x: torch.Tensor, scale: torch.Tensor, spec: FakeQuantSpec | None = None) -> torch.Tensor:
    """Fake-quantize ``x`` (int8 grid unless ``spec`` says otherwise)."""
    return FakeQuantize.apply(x, scale, spec or FakeQuantSpec())
