"""Loss scaling for float16 training."""

from __future__ import annotations

import torch

from . import config


@torch.compiler.allow_in_graph
def scale_loss(loss: torch.Tensor) -> torch.Tensor:
    """The loss multiplied by the current loss scale."""
    return loss * config.LOSS_SCALE  # AIG302


@torch.compiler.allow_in_graph
def unscale_grads(grads: list[torch.Tensor]) -> list[torch.Tensor]:
    """Gradients divided by the current loss scale."""
    inverse = 1.0 / config.LOSS_SCALE  # AIG302
    return [grad * inverse for grad in grads]


@torch.compiler.allow_in_graph
def clamp_fp16(x: torch.Tensor) -> torch.Tensor:
    """``x`` clamped to the finite float16 range (a constant nothing rebinds)."""
    return x.clamp(-config.FP16_MAX, config.FP16_MAX)
