"""Compatibility helpers: registration that degrades gracefully."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import torch

FnT = TypeVar("FnT", bound=Callable[..., object])

try:
    from torch._dynamo import allow_in_graph as maybe_allow_in_graph  # AIG407
except ImportError:  # a torch build without Dynamo

    def maybe_allow_in_graph(fn: FnT) -> FnT:
        """Nothing to register with."""
        return fn


def register_opaque(fn: FnT) -> FnT:
    """Keep ``fn`` as one node under ``torch.compile``; eager calls are unaffected."""
    return torch.compiler.allow_in_graph(fn)
