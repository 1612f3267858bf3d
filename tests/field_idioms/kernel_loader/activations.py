"""Activation and normalisation entry points over the optional fused kernels."""

from __future__ import annotations

import torch

from . import _compat
from ._compat import HAS_FAST_KERNELS, silu_and_mul


@torch.compiler.allow_in_graph
def swiglu(x: torch.Tensor) -> torch.Tensor:
    """The extension's fused kernel, or the PyTorch fallback bound in its place."""
    if x.shape[-1] % 2:
        raise ValueError(f"swiglu: the last dimension must be even, got {x.shape[-1]}")
    return silu_and_mul(x)


@torch.compiler.allow_in_graph
def fused_add_rms_norm_op(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6
) -> tuple[torch.Tensor, torch.Tensor]:
    """``rms_norm(x + residual) * weight`` and the new residual, fused where possible."""
    if HAS_FAST_KERNELS and x.is_cuda:
        return _compat.fused_add_rms_norm(x, residual, weight, eps)
    hidden = x + residual
    variance = hidden.float().pow(2).mean(-1, keepdim=True)
    return (hidden.float() * torch.rsqrt(variance + eps)).to(x.dtype) * weight, hidden
