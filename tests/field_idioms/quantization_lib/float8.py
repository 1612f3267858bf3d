"""Float8 tensors with a per-tensor scale.

The flatten protocol comes from :class:`~quantization_lib.base.WrapperTensor`; this
module adds the payload layout and the ops that stay in float8.
"""

from __future__ import annotations

import torch

from quantization_lib.base import WrapperTensor

aten = torch.ops.aten


class Float8Tensor(WrapperTensor):
    """A float8 payload and its scale, seen from outside as a tensor of ``orig_dtype``."""

    _inner_names = ("_data", "_scale")
    _meta_names = ("_orig_dtype",)

    def __new__(cls, data: torch.Tensor, scale: torch.Tensor, orig_dtype: torch.dtype) -> Float8Tensor:
        return WrapperTensor.__new__(cls, data.shape, orig_dtype, data.device)

    def __init__(self, data: torch.Tensor, scale: torch.Tensor, orig_dtype: torch.dtype) -> None:
        self._data = data
        self._scale = scale
        self._orig_dtype = orig_dtype

    def __repr__(self) -> str:
        return f"Float8Tensor(dtype={self._data.dtype}, scale={self._scale}, orig_dtype={self._orig_dtype})"

    def dequantize(self) -> torch.Tensor:
        return self._data.to(self._orig_dtype) * self._scale


@Float8Tensor.implements(aten.detach.default, aten.clone.default, aten.alias.default)
def _same_payload(func, args, kwargs):
    """Ops that leave the values alone apply to the payload and keep the scale."""
    src = args[0]
    return Float8Tensor(func(src._data, *args[1:], **kwargs), src._scale, src._orig_dtype)


@Float8Tensor.implements(aten.t.default, aten.transpose.int)
def _layout(func, args, kwargs):
    src = args[0]
    return Float8Tensor(func(src._data, *args[1:], **kwargs), src._scale, src._orig_dtype)
