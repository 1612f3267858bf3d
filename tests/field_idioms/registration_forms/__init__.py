"""The same two GELU kernels registered with allow_in_graph in every spelling.

``bias_gelu_<form>`` reads the mutable ``GELU_SETTINGS`` (AIG302, evidence S§1b:
"config dict" STALE); ``bias_tanh_gelu_<form>`` reads only constants (clean). Each
``<form>`` is one way of registering, and every form must give the same findings.
"""

from .blocks import FeedForward
from .called import bias_gelu_call, bias_gelu_list, bias_gelu_rebind, bias_gelu_tuple
from .decorated import GeluKernels, bias_gelu_aig, bias_gelu_dynamo, bias_gelu_maybe, bias_gelu_public
from .imported import bias_gelu_imported
from .state import GELU_SETTINGS, use_tanh_gelu

__all__ = [
    "GELU_SETTINGS",
    "FeedForward",
    "GeluKernels",
    "bias_gelu_aig",
    "bias_gelu_call",
    "bias_gelu_dynamo",
    "bias_gelu_imported",
    "bias_gelu_list",
    "bias_gelu_maybe",
    "bias_gelu_public",
    "bias_gelu_rebind",
    "bias_gelu_tuple",
    "use_tanh_gelu",
]
