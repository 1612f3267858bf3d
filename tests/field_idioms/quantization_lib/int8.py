"""Int8 tensors with one scale per row (the weight-only int8 layout)."""

from __future__ import annotations

import torch

from .base import WrapperTensor


class Int8RowwiseTensor(WrapperTensor):
    """Int8 codes with a float scale per row; dequantizes to ``orig_dtype``."""

    _inner_names = ("_qdata", "_row_scale")
    _meta_names = ("_orig_dtype",)

    def __new__(cls, qdata: torch.Tensor, row_scale: torch.Tensor, orig_dtype: torch.dtype) -> Int8RowwiseTensor:
        return WrapperTensor.__new__(cls, qdata.shape, orig_dtype, qdata.device)

    def __init__(self, qdata: torch.Tensor, row_scale: torch.Tensor, orig_dtype: torch.dtype) -> None:
        self._qdata = qdata
        self._row_scale = row_scale
        self._orig_dtype = orig_dtype

    def dequantize(self) -> torch.Tensor:
        return self._qdata.to(self._orig_dtype) * self._row_scale.to(self._orig_dtype)
