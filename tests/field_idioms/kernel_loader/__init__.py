"""Fused kernels that use an optional extension when it is installed.

Every entry point works without the extension: :mod:`._compat` binds each kernel to
the extension's function, to ``None``, or to a pure-PyTorch fallback.
"""

from .activations import fused_add_rms_norm_op, swiglu
from .ops import dequantize_e2m1, dequantize_fp4_blocks, scale_rows
from .rotary import apply_rotary

__all__ = ["apply_rotary", "dequantize_e2m1", "dequantize_fp4_blocks", "fused_add_rms_norm_op", "scale_rows", "swiglu"]
