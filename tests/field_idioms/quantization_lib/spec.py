"""Per-layer quantization settings."""

from __future__ import annotations

import torch

from .dtypes import BLOCK_SIZE, is_float8


class QuantizationSpec:
    """What a layer's weights are stored as, and with which block size."""

    def __init__(self, dtype: torch.dtype, block_size: int = BLOCK_SIZE) -> None:
        if not (is_float8(dtype) or dtype == torch.int8):
            raise ValueError(f"QuantizationSpec: unsupported storage dtype {dtype}")
        self.dtype = dtype
        self.block_size = block_size

    def __repr__(self) -> str:
        return f"QuantizationSpec(dtype={self.dtype}, block_size={self.block_size})"


# Registering a plain class: building one inside a compiled region returns an object
# Dynamo cannot put in the graph (graph break "torch.* op returned non-Tensor", S§5, "a
# class whose instances are objects").
torch.compiler.allow_in_graph(QuantizationSpec)  # AIG201
