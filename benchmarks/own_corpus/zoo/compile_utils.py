"""Helpers that keep the zoo importable on torch builds without torch.compiler."""

import torch


def maybe_allow_in_graph(obj):
    """Register ``obj`` with Dynamo where this torch has the API; hand it back unchanged otherwise."""
    if hasattr(torch, "compiler") and hasattr(torch.compiler, "allow_in_graph"):
        return torch.compiler.allow_in_graph(obj)
    return obj


def is_compiling() -> bool:
    return hasattr(torch, "compiler") and torch.compiler.is_compiling()
