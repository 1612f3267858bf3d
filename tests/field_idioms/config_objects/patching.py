"""xformers-style monkeypatching of an attention class imported from the model module."""

from __future__ import annotations

from .modeling import Attention


def _fast_forward(self, q, k, v):
    return q


def enable_fast_attention() -> None:
    Attention.forward = _fast_forward
