"""Attention kernels, kept opaque to Dynamo so that the fused path stays one node."""

import math

import torch
import torch.nn.functional as F

from .compile_utils import maybe_allow_in_graph

_HEAD_DIM = 64
# Rotary frequencies computed once at import and shared by every layer.
_INV_FREQ = 1.0 / (10000 ** (torch.arange(0, _HEAD_DIM, 2).float() / _HEAD_DIM))
_CAUSAL_MASKS: dict[int, torch.Tensor] = {}


@maybe_allow_in_graph
def scaled_dot_product(q, k, v, mask=None, scale: float | None = None):
    scale = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.matmul(F.softmax(scores, dim=-1), v)


def _causal_mask(n: int) -> torch.Tensor:
    if n not in _CAUSAL_MASKS:  # AIG301
        _CAUSAL_MASKS[n] = torch.ones(n, n, dtype=torch.bool).tril()  # AIG301
    return _CAUSAL_MASKS[n]  # AIG301


@torch.compiler.allow_in_graph
def causal_attention(q, k, v):
    mask = _causal_mask(q.shape[-2])
    return scaled_dot_product(q, k, v, mask)


@torch.compiler.allow_in_graph
def apply_rotary(x, positions):
    freqs = torch.outer(positions.float(), _INV_FREQ)  # AIG301
    cos, sin = freqs.cos(), freqs.sin()
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


@torch.compiler.allow_in_graph
def alibi_bias(n_heads: int, seq_len: int, device=None):
    slopes = 2.0 ** (-8.0 * torch.arange(1, n_heads + 1, device=device) / n_heads)
    distance = torch.arange(seq_len, device=device)[None, :] - torch.arange(seq_len, device=device)[:, None]
    return slopes[:, None, None] * distance.abs().neg()[None]


@maybe_allow_in_graph
def sliding_window_attention(q, k, v, window: int):
    n = q.shape[-2]
    idx = torch.arange(n, device=q.device)
    band = (idx[None, :] - idx[:, None]).abs() <= window
    return scaled_dot_product(q, k, v, band)


@torch.compiler.allow_in_graph
def rotary_with_table(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)
