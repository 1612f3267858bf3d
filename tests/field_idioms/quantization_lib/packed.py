"""Int4 weights packed two to a byte, held in an ``nn.Parameter`` subclass."""

from __future__ import annotations

import torch
from torch import nn

#: Int4 codes are stored offset by 8 so that they fit an unsigned nibble.
_INT4_OFFSET = 8


class PackedInt4Parameter(nn.Parameter):
    """A frozen parameter holding two signed int4 values per ``uint8`` byte."""

    def __new__(cls, packed: torch.Tensor) -> PackedInt4Parameter:
        if packed.dtype != torch.uint8:
            raise TypeError(f"PackedInt4Parameter: expected uint8 storage, got {packed.dtype}")
        return super().__new__(cls, packed, requires_grad=False)


@torch.compiler.allow_in_graph
def unpack_int4(packed: PackedInt4Parameter) -> torch.Tensor:
    """The int4 values of ``packed`` as int8, low nibble first."""
    low = (packed & 0x0F).to(torch.int8) - _INT4_OFFSET
    high = (packed >> 4).to(torch.int8) - _INT4_OFFSET
    return torch.stack((low, high), dim=-1).flatten(-2)


class Int4Linear(nn.Module):
    """A linear layer with int4 weights and a float scale per output row."""

    def __init__(self, packed: torch.Tensor, scale: torch.Tensor) -> None:
        super().__init__()
        self.weight = PackedInt4Parameter(packed)
        self.scale = nn.Parameter(scale, requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = unpack_int4(self.weight).to(x.dtype) * self.scale
        return torch.nn.functional.linear(x, weight)
