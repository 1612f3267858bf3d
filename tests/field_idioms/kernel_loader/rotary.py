"""Rotary position embeddings: a Triton kernel where Triton is installed.

The Triton path is a custom op, so tracing never enters the kernel launch; the
fallback is plain PyTorch. Either way ``_rotary`` is bound to a function (or a custom
op) once, at import.
"""

from __future__ import annotations

import torch

from ._compat import HAS_TRITON, rotary_ext

if HAS_TRITON:
    import triton
    import triton.language as tl

    @triton.jit
    def _rotary_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, half, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < half
        x1 = tl.load(x_ptr + row * 2 * half + offs, mask=mask)
        x2 = tl.load(x_ptr + row * 2 * half + half + offs, mask=mask)
        c = tl.load(cos_ptr + row * half + offs, mask=mask)
        s = tl.load(sin_ptr + row * half + offs, mask=mask)
        tl.store(out_ptr + row * 2 * half + offs, x1 * c - x2 * s, mask=mask)
        tl.store(out_ptr + row * 2 * half + half + offs, x2 * c + x1 * s, mask=mask)

    @torch.library.custom_op("kernel_loader::rotary", mutates_args=())
    def _rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        out = torch.empty_like(x)
        rows = x.numel() // x.shape[-1]
        _rotary_kernel[(rows,)](x, cos, sin, out, half, BLOCK=triton.next_power_of_2(half))
        return out

    @_rotary.register_fake
    def _(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(x)

else:

    def _rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


@torch.compiler.allow_in_graph
def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs of features of ``x`` by the angles whose cosines and sines are given."""
    if rotary_ext is not None:
        return rotary_ext.apply_rotary(x, cos, sin)
    return _rotary(x.contiguous(), cos, sin)
