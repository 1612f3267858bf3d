"""Kernel options, made once at import.

``configure`` sets any option by name, so every attribute of ``_OPTIONS`` can change
after a kernel read it while compiling (S§1b): the kernels that read it are AIG302.
``DEFAULTS`` is never written: reading it is reading a constant.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import SimpleNamespace


@dataclass
class KernelOptions:
    softcap: float = 30.0
    eps: float = 1e-6
    use_fp32_accum: bool = True


_OPTIONS = KernelOptions()
DEFAULTS = KernelOptions()

#: What the model setup leaves behind for the kernels (accelerate's PartialState style).
_state = SimpleNamespace(lm_head=None, step=0)


def configure(**options: object) -> None:
    for name, value in options.items():
        setattr(_OPTIONS, name, value)


def get_options() -> KernelOptions:
    return _OPTIONS


def debug_enabled() -> bool:
    return os.environ.get("KERNELS_DEBUG", "0") == "1"
