"""Fused normalisation and attention with pluggable kernel backends.

Importing the package imports :mod:`.native`, whose decorators fill the kernel table.
"""

from . import native  # noqa: F401  (registers the built-in kernels)
from .ops import attention, rms_norm, rms_norm_rows, softmax_rows
from .registry import available_kernels, get_kernel, register_kernel
from .state import get_attention_backend, set_attention_backend

__all__ = [
    "attention",
    "available_kernels",
    "get_attention_backend",
    "get_kernel",
    "register_kernel",
    "rms_norm",
    "rms_norm_rows",
    "set_attention_backend",
    "softmax_rows",
]
