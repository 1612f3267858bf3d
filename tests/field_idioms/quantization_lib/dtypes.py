"""Dtype tables and numeric limits shared by the quantization kernels.

Nothing in this module is changed after import: the kernels read these names as
constants, so a compiled kernel that bakes them in is still right.
"""

from __future__ import annotations

import torch

_FLOAT8_TYPES = {torch.float8_e4m3fn, torch.float8_e5m2}
SUPPORTED_FLOAT8_DTYPES = frozenset(_FLOAT8_TYPES)

#: Largest finite magnitude of each float8 format.
FP8_E4M3_MAX = torch.finfo(torch.float8_e4m3fn).max
FP8_E5M2_MAX = torch.finfo(torch.float8_e5m2).max

#: Largest magnitude a symmetric integer code of each storage dtype can hold.
INT_QMAX: dict[torch.dtype, int] = {torch.int8: 127, torch.int16: 32767}

#: Elements that share one scale in the blockwise formats.
BLOCK_SIZE = 128

#: Floor for absolute maxima, so that an all-zero block does not divide by zero.
EPS = 1e-12


def is_float8(dtype: torch.dtype) -> bool:
    """Whether ``dtype`` is one of the float8 storage types."""
    return dtype in _FLOAT8_TYPES
