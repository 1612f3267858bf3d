"""Immutable option types passed to the ``forward`` of the custom ops.

Enum members, NamedTuples and frozen dataclasses work as arguments of a registered
function although the documentation does not list them (evidence D9, S§2): AIG105
reports them only under ``doc-strict``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple


class Reduction(enum.Enum):
    """How per-token losses are combined."""

    MEAN = "mean"
    SUM = "sum"
    NONE = "none"


class SoftcapConfig(NamedTuple):
    """Logit soft-capping: ``cap * tanh(logits / cap)``."""

    cap: float = 30.0
    upcast: bool = True


@dataclass(frozen=True)
class FakeQuantSpec:
    """The integer grid that fake quantization rounds to."""

    qmin: int = -128
    qmax: int = 127
    per_channel: bool = False
