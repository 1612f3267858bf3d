"""Registration of kernels defined in :mod:`.raw`: rebinding imported names, a call on a
module attribute, and lists and tuples of either (allow_in_graph iterates a list or a
tuple and registers each element: evidence S§5)."""

from __future__ import annotations

import torch

from . import raw
from .raw import bias_gelu_imported, bias_gelu_imported_list, bias_tanh_gelu_imported, bias_tanh_gelu_imported_list

bias_gelu_imported = torch.compiler.allow_in_graph(bias_gelu_imported)
bias_tanh_gelu_imported = torch.compiler.allow_in_graph(bias_tanh_gelu_imported)

torch.compiler.allow_in_graph(raw.bias_gelu_attr)
torch.compiler.allow_in_graph(raw.bias_tanh_gelu_attr)

torch.compiler.allow_in_graph([raw.bias_gelu_attr_list, raw.bias_tanh_gelu_attr_list])
torch.compiler.allow_in_graph((raw.bias_gelu_attr_tuple, raw.bias_tanh_gelu_attr_tuple))
torch.compiler.allow_in_graph([bias_gelu_imported_list, bias_tanh_gelu_imported_list])
