"""Custom ops for the fp4 (e2m1) format and row scaling.

Tracing does not enter a custom op: Dynamo and AOTAutograd run its fake
implementation, and the real one runs eagerly with real tensors. What the real
implementation reads (a lookup table, the debug switch) is therefore not captured by
the registered functions that call the op (the checker does not follow a registered
body into a custom op: checker/spec/torch_api.py, OPAQUE_DECORATORS).
"""

from __future__ import annotations

import torch

#: The eight non-negative e2m1 values; the sign is the code's top bit.
_E2M1_VALUES = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
_E2M1_TABLE = torch.cat((_E2M1_VALUES, -_E2M1_VALUES))

_DEBUG = {"check_codes": False}


def set_debug_checks(enabled: bool) -> None:
    """Validate codes in the real kernels (slow)."""
    _DEBUG["check_codes"] = enabled


@torch.library.custom_op("kernel_loader::dequantize_e2m1", mutates_args=())
def dequantize_e2m1(codes: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """Decode 4-bit codes (one per uint8) and multiply by ``scale``."""
    if _DEBUG["check_codes"] and bool((codes > 15).any()):
        raise ValueError("dequantize_e2m1: codes must be below 16")
    table = _E2M1_TABLE.to(device=codes.device, dtype=scale.dtype)
    return table[codes.long()] * scale


@dequantize_e2m1.register_fake
def _(codes: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return torch.empty(codes.shape, dtype=scale.dtype, device=codes.device)


torch.library.define("kernel_loader::scale_rows", "(Tensor x, Tensor scale) -> Tensor")


@torch.library.impl("kernel_loader::scale_rows", ("cpu", "cuda"))
def _scale_rows(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x * scale.to(x.dtype)[:, None]


@torch.library.register_fake("kernel_loader::scale_rows")
def _scale_rows_fake(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


@torch.compiler.allow_in_graph
def dequantize_fp4_blocks(codes: torch.Tensor, block_scales: torch.Tensor, block_size: int = 16) -> torch.Tensor:
    """Decode e2m1 codes with one scale per ``block_size`` codes."""
    scale = block_scales.repeat_interleave(block_size, dim=-1)
    return dequantize_e2m1(codes, scale)


@torch.compiler.allow_in_graph
def scale_rows(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``x * scale[:, None]`` through the registered op."""
    return torch.ops.kernel_loader.scale_rows(x, scale)
