"""Memoised launch parameters: Python values only, keyed by the problem size."""

import functools

_WORKSPACE: dict[tuple[int, int], int] = {}


@functools.lru_cache(maxsize=128)
def tile_shape(n: int) -> tuple[int, int]:
    rows = 1
    while rows * 2 <= min(n, 64):
        rows *= 2
    return rows, max(1, n // rows)


def workspace_bytes(rows: int, cols: int) -> int:
    key = (rows, cols)
    size = _WORKSPACE.get(key)
    if size is None:
        size = rows * cols * 4
        _WORKSPACE[key] = size
    return size
