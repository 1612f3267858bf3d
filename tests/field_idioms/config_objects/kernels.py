"""Registered kernels that read the options, the state namespace, the environment and the
patched class."""

from __future__ import annotations

import os

import torch

from . import options
from .modeling import Attention
from .options import DEFAULTS, _state


@torch.compiler.allow_in_graph
def softcap_logits(logits):
    cap = options._OPTIONS.softcap  # AIG302
    return torch.tanh(logits / cap) * cap


@torch.compiler.allow_in_graph
def rms_norm(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + DEFAULTS.eps) * weight


@torch.compiler.allow_in_graph
def project_logits(hidden):
    return _state.lm_head(hidden)  # AIG301


@torch.compiler.allow_in_graph
def scaled_by_step(x):
    return x * (1.0 + _state.step)  # AIG302


@torch.compiler.allow_in_graph
def maybe_checked(x):
    if os.environ.get("KERNELS_DEBUG") == "1":  # AIG302
        return torch.nan_to_num(x)
    return x


@torch.compiler.allow_in_graph
def attention_dropout(module, x):
    # The class is patched (its forward), but isinstance and its other attributes are not state.
    if isinstance(module, Attention):
        return torch.nn.functional.dropout(x, p=Attention.dropout)
    return x
