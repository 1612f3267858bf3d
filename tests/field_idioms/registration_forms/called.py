"""Call spellings: a statement, a rebinding of a local def, a list and a tuple."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .state import GELU_COEF, GELU_SETTINGS, SQRT_2_OVER_PI


def bias_gelu_call(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_call(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


# The result is discarded: allow_in_graph registers the function itself (evidence S§0.1).
torch.compiler.allow_in_graph(bias_gelu_call)
torch.compiler.allow_in_graph(bias_tanh_gelu_call)


def bias_gelu_rebind(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_rebind(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


bias_gelu_rebind = torch.compiler.allow_in_graph(bias_gelu_rebind)
bias_tanh_gelu_rebind = torch.compiler.allow_in_graph(bias_tanh_gelu_rebind)


def bias_gelu_list(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_list(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


torch.compiler.allow_in_graph([bias_gelu_list, bias_tanh_gelu_list])


def bias_gelu_tuple(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


def bias_tanh_gelu_tuple(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


torch.compiler.allow_in_graph((bias_gelu_tuple, bias_tanh_gelu_tuple))
