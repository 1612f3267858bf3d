"""Launch parameters, computed once per shape and remembered.

The caches here are memoisation: an entry is written only when its key is missing,
and a key always maps to the same value, so a compiled caller that read one at
compile time reads the same value later (AIG302's documentation: "Not state: ...
memoisation caches").
"""

from __future__ import annotations

import functools

import torch

_ROW_BLOCKS: dict[tuple[int, torch.dtype], int] = {}
_CHUNK_CACHE: dict[int, int] = {}


def _pick_row_block(n_cols: int, dtype: torch.dtype) -> int:
    """Rows per block: keep a block of elements near 64 KiB."""
    bytes_per_row = n_cols * dtype.itemsize
    return max(1, min(64, (64 * 1024) // max(1, bytes_per_row)))


def row_block(n_cols: int, dtype: torch.dtype) -> int:
    """Rows processed per block for rows of ``n_cols`` elements of ``dtype``."""
    key = (n_cols, dtype)
    if key not in _ROW_BLOCKS:
        _ROW_BLOCKS[key] = _pick_row_block(n_cols, dtype)
    return _ROW_BLOCKS[key]


def chunk_count(n_rows: int) -> int:
    """How many chunks to split ``n_rows`` rows into."""
    try:
        return _CHUNK_CACHE[n_rows]
    except KeyError:
        count = _CHUNK_CACHE[n_rows] = max(1, n_rows // 4096)
        return count


@functools.lru_cache(maxsize=128)
def softmax_block(n_cols: int) -> int:
    """The power of two at or above ``n_cols``, capped at 8192."""
    return min(8192, 1 << max(0, n_cols - 1).bit_length())


@functools.cache
def has_bf16(device_type: str) -> bool:
    """Whether kernels may compute in bfloat16 on ``device_type``."""
    if device_type == "cuda":
        return torch.cuda.is_bf16_supported()
    return True
