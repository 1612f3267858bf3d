"""Quantize and dequantize kernels.

Each kernel is registered with ``torch.compiler.allow_in_graph`` so that
``torch.compile`` keeps it as one node. The float8 and int8 kernels take and return
the wrapper subclasses of this package, which implement the flatten protocol (through
their base class), so they are tensors to Dynamo (evidence S§11). They read the dtype
tables and limits of :mod:`.dtypes`, which nothing changes after import.
"""

from __future__ import annotations

import torch

from .dtypes import _FLOAT8_TYPES, BLOCK_SIZE, EPS, FP8_E4M3_MAX, INT_QMAX
from .float8 import Float8Tensor
from .int8 import Int8RowwiseTensor


@torch.compiler.allow_in_graph
def quantize_fp8(x: torch.Tensor, float8_dtype: torch.dtype = torch.float8_e4m3fn) -> Float8Tensor:
    """Scale ``x`` into the range of ``float8_dtype`` with one scale for the tensor."""
    if float8_dtype not in _FLOAT8_TYPES:
        raise ValueError(f"quantize_fp8: {float8_dtype} is not a float8 dtype")
    fmax = torch.finfo(float8_dtype).max
    scale = x.abs().amax().clamp(min=EPS) / fmax
    data = (x / scale).clamp(-fmax, fmax).to(float8_dtype)
    return Float8Tensor(data, scale, x.dtype)


@torch.compiler.allow_in_graph
def dequantize_fp8(t: Float8Tensor) -> torch.Tensor:
    """The values of ``t`` in its original dtype."""
    return t._data.to(t._orig_dtype) * t._scale


@torch.compiler.allow_in_graph
def requantize_fp8(t: Float8Tensor, new_scale: torch.Tensor) -> Float8Tensor:
    """Move ``t`` to ``new_scale`` without leaving float8 for longer than one op."""
    values = t._data.to(torch.float32) * (t._scale / new_scale)
    return Float8Tensor(values.clamp(-FP8_E4M3_MAX, FP8_E4M3_MAX).to(t._data.dtype), new_scale, t._orig_dtype)


@torch.compiler.allow_in_graph
def quantize_int8_rowwise(x: torch.Tensor) -> Int8RowwiseTensor:
    """Symmetric int8 codes with one scale per row of ``x``."""
    qmax = INT_QMAX[torch.int8]
    row_scale = x.abs().amax(dim=-1, keepdim=True).clamp(min=EPS) / qmax
    qdata = torch.round(x / row_scale).clamp(-qmax, qmax).to(torch.int8)
    return Int8RowwiseTensor(qdata, row_scale, x.dtype)


@torch.compiler.allow_in_graph
def blockwise_scales(x: torch.Tensor, block_size: int = BLOCK_SIZE) -> torch.Tensor:
    """One float8 scale per ``block_size`` consecutive elements of ``x``."""
    blocks = x.reshape(-1, block_size)
    return blocks.abs().amax(dim=-1).clamp(min=EPS) / FP8_E4M3_MAX


# Constructing a Float8Tensor inside a compiled region stays one node: the class's
# __new__ returns a tensor (S§5, "a class whose __new__ returns a Tensor") and the
# subclass is traceable (S§11).
torch.compiler.allow_in_graph(Float8Tensor)
