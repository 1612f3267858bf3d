"""Optional dependencies, each with its fallback.

Names bound here are functions, modules or ``None``, fixed once the imports ran; a
kernel that reads them at compile time reads what it would read later (AIG302's
documentation: "names bound to functions, classes or modules (import fallbacks
included)" are not state).
"""

from __future__ import annotations

import importlib.util

import torch
import torch.nn.functional as F

HAS_TRITON = importlib.util.find_spec("triton") is not None

try:
    from fast_kernels import fused_add_rms_norm
except ImportError:
    fused_add_rms_norm = None

try:
    from fast_kernels import silu_and_mul
except ImportError:

    def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
        """SwiGLU's gate: ``silu(x[..., :d]) * x[..., d:]``."""
        gate, up = x.chunk(2, dim=-1)
        return F.silu(gate) * up


try:
    import fast_kernels.rotary as rotary_ext
except ImportError:
    rotary_ext = None

HAS_FAST_KERNELS = fused_add_rms_norm is not None
