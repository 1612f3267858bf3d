"""Activation settings and constants shared by the kernels."""

from __future__ import annotations

import math

#: Changed in place by ``use_tanh_gelu``, at any time.
GELU_SETTINGS = {"approximate": "none"}

#: Constants of the tanh approximation; never rebound.
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_COEF = 0.044715


def use_tanh_gelu(enabled: bool = True) -> None:
    """Switch every GELU to the tanh approximation (or back)."""
    GELU_SETTINGS["approximate"] = "tanh" if enabled else "none"
