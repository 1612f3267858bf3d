"""The public ops: each picks a kernel from the table and runs it as one graph node."""

from __future__ import annotations

import torch

from .registry import _KERNELS, get_kernel
from .state import _STATE, get_attention_backend
from .tuning import chunk_count, has_bf16, row_block, softmax_block

_HALF_DTYPES = (torch.float16, torch.bfloat16)


@torch.compiler.allow_in_graph
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMS normalisation with the kernel suited to ``x``'s dtype."""
    kernel = get_kernel("rms_norm.fp32" if x.dtype in _HALF_DTYPES else "rms_norm.native")
    return kernel(x, weight, eps)


@torch.compiler.allow_in_graph
def rms_norm_rows(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMS normalisation of a 2-D input, a block of rows at a time."""
    kernel = _KERNELS["rms_norm.native"]
    block = row_block(x.shape[-1], x.dtype)
    parts = [kernel(part, weight, eps) for chunk in x.chunk(chunk_count(x.shape[0])) for part in chunk.split(block)]
    return torch.cat(parts)


@torch.compiler.allow_in_graph
def softmax_rows(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension, in bfloat16 where the device allows it."""
    padded = softmax_block(x.shape[-1])
    dtype = torch.bfloat16 if has_bf16(x.device.type) else torch.float32
    out = torch.nn.functional.pad(x.to(dtype), (0, padded - x.shape[-1]), value=float("-inf")).softmax(-1)
    return out[..., : x.shape[-1]].to(x.dtype)


@torch.compiler.allow_in_graph
def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """Scaled dot-product attention with the backend chosen by ``set_attention_backend``."""
    backend = _STATE["attention"]  # AIG302
    return _KERNELS[f"attention.{backend}"](q, k, v, causal)


@torch.compiler.allow_in_graph
def attention_with_lookup(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """The same choice made through the getter: the read happens in state.py."""
    backend = get_attention_backend()  # AIG302
    kernel = get_kernel(f"attention.{backend}")
    return kernel(q, k, v, causal)
