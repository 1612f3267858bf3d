"""Decorator spellings."""

from __future__ import annotations

import torch
import torch._dynamo
import torch.compiler as tc
import torch.nn.functional as F
from torch._dynamo import allow_in_graph as aig  # AIG407

from .state import GELU_COEF, GELU_SETTINGS, SQRT_2_OVER_PI
from .utils import maybe_allow_in_graph, register_opaque


@torch.compiler.allow_in_graph
def bias_gelu_public(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


@torch.compiler.allow_in_graph
def bias_tanh_gelu_public(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


@tc.allow_in_graph
def bias_gelu_tc(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


@tc.allow_in_graph
def bias_tanh_gelu_tc(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


@aig
def bias_gelu_aig(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


@aig
def bias_tanh_gelu_aig(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


@torch._dynamo.allow_in_graph  # AIG407
def bias_gelu_dynamo(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


@torch._dynamo.allow_in_graph  # AIG407
def bias_tanh_gelu_dynamo(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


@maybe_allow_in_graph
def bias_gelu_maybe(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


@maybe_allow_in_graph
def bias_tanh_gelu_maybe(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


@register_opaque
def bias_gelu_wrapper(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


@register_opaque
def bias_tanh_gelu_wrapper(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


def _opaque(fn):
    """This module's own shorthand for the registration."""
    return torch.compiler.allow_in_graph(fn)


@_opaque
def bias_gelu_local(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU of ``x + bias`` with the configured approximation."""
    approximate = GELU_SETTINGS["approximate"]  # AIG302
    return F.gelu(x + bias, approximate=approximate)


@_opaque
def bias_tanh_gelu_local(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The tanh approximation of GELU of ``x + bias``, written out."""
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))


class GeluKernels:
    """The kernels as static methods: ``@staticmethod`` outermost is honoured (evidence D1.1)."""

    @staticmethod
    @torch.compiler.allow_in_graph
    def bias_gelu_static(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """GELU of ``x + bias`` with the configured approximation."""
        approximate = GELU_SETTINGS["approximate"]  # AIG302
        return F.gelu(x + bias, approximate=approximate)

    @staticmethod
    @torch.compiler.allow_in_graph
    def bias_tanh_gelu_static(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """The tanh approximation of GELU of ``x + bias``, written out."""
        y = x + bias
        return 0.5 * y * (1.0 + torch.tanh(SQRT_2_OVER_PI * (y + GELU_COEF * y * y * y)))
