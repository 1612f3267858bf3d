"""The kernel table: a name -> implementation mapping filled by decorators at import.

Entries are functions, written once each when the kernel modules are imported (a
second registration of a name is an error), so a compiled caller that looks one up
never sees a different function later.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import torch

Kernel = Callable[..., torch.Tensor]
K = TypeVar("K", bound=Kernel)

_KERNELS: dict[str, Kernel] = {}


def register_kernel(name: str) -> Callable[[K], K]:
    """Add the decorated function to the table under ``name``."""

    def decorator(fn: K) -> K:
        if name in _KERNELS:
            raise KeyError(f"register_kernel: {name!r} is already registered")
        _KERNELS[name] = fn
        return fn

    return decorator


def get_kernel(name: str) -> Kernel:
    """The kernel registered under ``name``."""
    try:
        return _KERNELS[name]
    except KeyError:
        raise KeyError(f"get_kernel: no kernel {name!r}; available: {sorted(_KERNELS)}") from None


def available_kernels() -> list[str]:
    """Every registered kernel name, sorted."""
    return sorted(_KERNELS)
