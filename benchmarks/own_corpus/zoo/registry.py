"""Model builders by name, and the zoo's default settings."""

import torch

from .blocks import TransformerBlock

_MODELS = {}
_DEFAULT_DTYPE = torch.float32


def register_model(name):
    def wrap(builder):
        _MODELS[name] = builder
        return builder

    return wrap


def set_default_dtype(dtype):
    global _DEFAULT_DTYPE
    _DEFAULT_DTYPE = dtype


@torch.compiler.allow_in_graph
def cast_inputs(x):
    return x.to(_DEFAULT_DTYPE)  # AIG302


@register_model("tiny")
def tiny(dim: int = 64):
    return torch.nn.Sequential(*(TransformerBlock(dim, 4) for _ in range(2)))


def build(name, **kwargs):
    return _MODELS[name](**kwargs)
