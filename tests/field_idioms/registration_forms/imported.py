"""Registration of kernels defined in :mod:`.raw`: rebinding imported names, and a call
on a module attribute."""

from __future__ import annotations

import torch

from . import raw
from .raw import bias_gelu_imported, bias_tanh_gelu_imported

bias_gelu_imported = torch.compiler.allow_in_graph(bias_gelu_imported)
bias_tanh_gelu_imported = torch.compiler.allow_in_graph(bias_tanh_gelu_imported)

torch.compiler.allow_in_graph(raw.bias_gelu_attr)
torch.compiler.allow_in_graph(raw.bias_tanh_gelu_attr)
