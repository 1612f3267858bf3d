"""Fused elementwise and normalisation ops with a Python fallback for every kernel."""

from torch.compiler import allow_in_graph as _allow_in_graph

from .config import CONFIG, KernelConfig, set_block_size
from .ops import blocked_softmax, chunked_mean, fused_bias_gelu, layer_scale, rms_norm, swish

# The plain ops are registered here, in one place, rather than decorated.
for _op in (layer_scale, swish, chunked_mean):
    _allow_in_graph(_op)

__all__ = [
    "CONFIG",
    "KernelConfig",
    "blocked_softmax",
    "fused_bias_gelu",
    "chunked_mean",
    "layer_scale",
    "rms_norm",
    "set_block_size",
    "swish",
]
