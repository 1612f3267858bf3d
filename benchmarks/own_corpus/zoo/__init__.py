"""A small model zoo: transformer blocks, attention kernels and a registry of builders."""

from .blocks import MLP, TransformerBlock
from .registry import build, register_model

__all__ = ["MLP", "TransformerBlock", "build", "register_model"]
