"""A tiny decoder-only language model in a src layout."""

from .model import TinyLM

__all__ = ["TinyLM"]
