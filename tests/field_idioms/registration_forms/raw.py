"""Kernels defined without registration; :mod:`.imported` registers some of them.

``bias_gelu_unregistered`` is never registered: nothing is reported for it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .state import GELU_COEF, GELU_SETTINGS, SQRT_2_OVER_PI


def bias_gelu_imported(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_imported(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


def bias_gelu_attr(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_attr(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


def bias_gelu_attr_list(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_attr_list(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


def bias_gelu_attr_tuple(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_attr_tuple(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


def bias_gelu_imported_list(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_imported_list(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


def bias_gelu_unregistered(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation (eager only)."""
    approximate = GELU_SETTINGS["approximate"]
    return F.gelu(x + bias, approximate=approximate)
