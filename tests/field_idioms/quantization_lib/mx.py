"""Microscaling (MX) tensors built on the vendor runtime's tensor base class.

Optional: imported only when ``mx_runtime`` is installed. The checker cannot see
``MXBaseTensor``, so whether ``MXTensor`` is a traceable subclass is unknown, and an
unknown class is never a violation.
"""

from __future__ import annotations

import torch
from mx_runtime import MXBaseTensor

#: Elements per shared exponent in the MX formats.
MX_BLOCK = 32


class MXTensor(MXBaseTensor):
    """Element codes plus one shared power-of-two scale per block."""

    @classmethod
    def from_codes(cls, codes: torch.Tensor, exponents: torch.Tensor, orig_dtype: torch.dtype) -> MXTensor:
        return cls(codes, exponents, MX_BLOCK, orig_dtype)


@torch.compiler.allow_in_graph
def quantize_mx(x: torch.Tensor) -> MXTensor:
    """Round ``x`` to e4m3 codes with one power-of-two scale per block."""
    blocks = x.reshape(-1, MX_BLOCK)
    exponents = torch.floor(torch.log2(blocks.abs().amax(dim=-1, keepdim=True).clamp(min=2.0**-126)))
    codes = (blocks / torch.exp2(exponents)).to(torch.float8_e4m3fn)
    return MXTensor(codes, exponents.to(torch.int8), MX_BLOCK, x.dtype)


@torch.compiler.allow_in_graph
def dequantize_mx(t: MXTensor) -> torch.Tensor:
    """The values of ``t`` as a plain tensor."""
    return t.dequantize()


torch.compiler.allow_in_graph(MXTensor)
