"""Which tensors a call was given: everything reachable from its arguments.

The contract's third clause is about tensors that are *not* passed in. A tensor passed in
need not be a top-level argument: it can be a pytree leaf (lists, tuples, dicts), a field
of a dataclass or NamedTuple, an attribute of an argument object, a parameter or buffer
of a module argument, or an inner tensor of a tensor subclass (``__tensor_flatten__``).
Torch transforms called inside the function (``vmap``, ``grad``, ``jacrev``) hand the
body functorch wrappers of those tensors; :func:`unwrapped` sees through them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import torch
from torch.utils import _pytree as pytree
from torch.utils._python_dispatch import is_traceable_wrapper_subclass

_functorch = torch._C._functorch

#: How deep attributes of argument objects are followed (``cfg.inner.t`` is depth 2).
ATTRIBUTE_DEPTH = 3


def argument_tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[torch.Tensor]:
    """Every tensor reachable from ``args`` and ``kwargs`` (each object visited once)."""
    seen: set[int] = set()
    for leaf in pytree.tree_leaves((args, kwargs)):
        yield from _reachable(leaf, ATTRIBUTE_DEPTH, seen)


def _reachable(value: object, depth: int, seen: set[int]) -> Iterator[torch.Tensor]:
    if id(value) in seen or value is None or isinstance(value, (int, float, bool, str, bytes)):
        return
    seen.add(id(value))
    if isinstance(value, torch.Tensor):
        yield value
        if is_traceable_wrapper_subclass(value):
            names, _ = value.__tensor_flatten__()  # type: ignore[attr-defined]
            for name in names:
                yield from _reachable(getattr(value, name), depth, seen)
        return
    if isinstance(value, torch.nn.Module):
        yield from value.parameters()
        yield from value.buffers()
        return
    if depth <= 0:
        return
    for item in _members(value):
        yield from _reachable(item, depth - 1, seen)


def _members(value: object) -> list[object]:
    """What an argument object holds: container items, dataclass fields, attributes."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if isinstance(value, dict):
        return list(value.values())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [getattr(value, field.name, None) for field in dataclasses.fields(value)]
    if isinstance(value, type) or callable(value):
        return []  # classes and functions: what they close over is a capture, not an argument
    try:
        return list(vars(value).values())
    except TypeError:  # no __dict__ (slots, builtins)
        slots = getattr(type(value), "__slots__", ())
        return [getattr(value, name, None) for name in ([slots] if isinstance(slots, str) else slots)]


def unwrapped(tensor: torch.Tensor) -> Iterator[torch.Tensor]:
    """``tensor`` and, for a functorch wrapper (vmap's BatchedTensor, grad's
    GradTrackingTensor), every tensor it wraps, outermost first."""
    yield tensor
    while _functorch.is_functorch_wrapped_tensor(tensor):
        tensor = _functorch.get_unwrapped(tensor)
        yield tensor
