"""The built-in kernels, written with PyTorch ops only."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .registry import register_kernel


@register_kernel("rms_norm.native")
def rms_norm_native(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return F.rms_norm(x, x.shape[-1:], weight, eps)


@register_kernel("rms_norm.fp32")
def rms_norm_fp32(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """Accumulate in float32: the half-precision path."""
    x32 = x.float()
    normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
    return normed.to(x.dtype) * weight


@register_kernel("attention.sdpa")
def sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> torch.Tensor:
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


@register_kernel("attention.math")
def math_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> torch.Tensor:
    scores = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    if causal:
        n, m = scores.shape[-2:]
        mask = torch.ones(n, m, dtype=torch.bool, device=q.device).tril(m - n)
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(-1) @ v
