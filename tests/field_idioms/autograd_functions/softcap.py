"""Soft-capped logits with a hand-written backward."""

from __future__ import annotations

import torch

from .options import SoftcapConfig


@torch.compiler.allow_in_graph
class Softcap(torch.autograd.Function):
    """``cap * tanh(logits / cap)``, saving only the tanh for backward."""

    @staticmethod
    def forward(ctx, logits: torch.Tensor, config: SoftcapConfig) -> torch.Tensor:
        x = logits.float() if config.upcast else logits
        capped = torch.tanh(x / config.cap)
        ctx.save_for_backward(capped)
        ctx.cap = config.cap
        return (capped * config.cap).to(logits.dtype)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (capped,) = ctx.saved_tensors
        return (grad * (1.0 - capped * capped)).to(grad.dtype), None


def softcap(logits: torch.Tensor, cap: float = 30.0, upcast: bool = True) -> torch.Tensor:
    """Soft-cap ``logits`` at ``cap``."""
    return Softcap.apply(logits, SoftcapConfig(cap, upcast))
