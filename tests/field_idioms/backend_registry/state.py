"""The process-wide choice of attention backend.

``set_attention_backend`` changes it at any time, after compilation too: a compiled
function that read it while compiling keeps the old choice under aot_eager and
inductor (evidence S§1b, "config dict").
"""

from __future__ import annotations

from .registry import available_kernels

_STATE: dict[str, str] = {"attention": "sdpa"}


def set_attention_backend(name: str) -> None:
    """Use the ``attention.<name>`` kernel from now on."""
    if f"attention.{name}" not in available_kernels():
        raise ValueError(f"set_attention_backend: unknown backend {name!r}")
    _STATE["attention"] = name


def get_attention_backend() -> str:
    """The name of the attention backend in use."""
    return _STATE["attention"]
