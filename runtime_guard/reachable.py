"""Which tensors a call was given: everything reachable from its arguments.

The contract's third clause is about tensors that are *not* passed in. A tensor passed in
need not be a top-level argument: it can be a pytree leaf (lists, tuples, dicts, and the
nodes registered with ``torch.utils._pytree``), a field of a dataclass or NamedTuple, an
attribute of an argument object, a parameter or buffer of a module argument, or an inner
tensor of a tensor subclass (``__tensor_flatten__``). Torch transforms called inside the
function (``vmap``, ``grad``, ``jacrev``) hand the body functorch wrappers of those
tensors; :func:`unwrapped` sees through them.

The walks run without recursion and enter each object once, so a list that contains
itself or nests 3,000 deep is walked like any other. The walk of the arguments looks at
``LIMIT`` objects at most; past it, or when an argument's own code fails as it is read
(a ``__dict__`` property that raises), it says the call's tensors are not all known
(:attr:`Passed.complete`), and the guard then reports no tensor of that call as captured.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils import _pytree as pytree
from torch.utils._python_dispatch import is_traceable_wrapper_subclass

_functorch = torch._C._functorch

#: How deep attributes of argument objects are followed (``cfg.inner.t`` is depth 2);
#: containers (lists, tuples, dicts, pytree nodes) cost no depth.
ATTRIBUTE_DEPTH = 3
#: Objects the walk of one call's arguments looks at, at most.
LIMIT = 100_000

_ATOMS = (int, float, bool, str, bytes, type(None))
_CONTAINERS = (list, tuple, set, frozenset, deque)


@dataclass(frozen=True)
class Passed:
    """The tensors reachable from one call's arguments."""

    tensors: list[torch.Tensor]
    #: False when the walk stopped at ``LIMIT`` or at an object it could not read: then a
    #: tensor the body uses may have been passed in where the walk did not look.
    complete: bool


def argument_tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Passed:
    """Every tensor reachable from ``args`` and ``kwargs`` (each object looked at once)."""
    tensors: list[torch.Tensor] = []
    complete = True
    seen: dict[int, object] = {}  # holds what it has seen, so that no id is reused meanwhile
    todo: list[tuple[object, int]] = [(args, ATTRIBUTE_DEPTH), (kwargs, ATTRIBUTE_DEPTH)]
    while todo:
        value, depth = todo.pop()
        if id(value) in seen or issubclass(type(value), _ATOMS):
            continue
        if len(seen) >= LIMIT:
            return Passed(tensors, False)
        seen[id(value)] = value
        try:
            todo += _held(value, depth, tensors)
        except Exception:  # noqa: BLE001 - an argument whose own code fails as it is read
            complete = False
    return Passed(tensors, complete)


def _held(value: object, depth: int, tensors: list[torch.Tensor]) -> list[tuple[object, int]]:
    """What ``value`` holds, with the attribute depth left for each; tensors go to ``tensors``."""
    kind = type(value)
    if issubclass(kind, torch.Tensor):
        tensors.append(value)  # type: ignore[arg-type]
        if is_traceable_wrapper_subclass(value):
            names, _ = value.__tensor_flatten__()  # type: ignore[attr-defined]
            return [(getattr(value, name), depth) for name in names]
        return []
    if issubclass(kind, torch.nn.Module):
        tensors += value.parameters()  # type: ignore[attr-defined]
        tensors += value.buffers()  # type: ignore[attr-defined]
        return []
    children = _children(value)
    if children is not None:
        return [(child, depth) for child in children]
    if depth <= 0:
        return []
    return [(member, depth - 1) for member in _members(value)]


def _children(value: object) -> list[object] | None:
    """The items of a container or pytree node, or ``None`` for other objects."""
    kind = type(value)
    if issubclass(kind, dict):
        return list(dict.values(value))  # type: ignore[arg-type]
    if issubclass(kind, _CONTAINERS):
        return list(value)  # type: ignore[call-overload]
    node = pytree.SUPPORTED_NODES.get(kind)
    return list(node.flatten_fn(value)[0]) if node is not None else None


def _members(value: object) -> list[object]:
    """What an argument object holds: dataclass fields, attributes."""
    if isinstance(value, type) or callable(value):
        return []  # classes and functions: what they close over is a capture, not an argument
    if dataclasses.is_dataclass(value):
        return [getattr(value, field.name, None) for field in dataclasses.fields(value)]
    try:
        return list(vars(value).values())
    except TypeError:  # no __dict__ (slots, builtins)
        slots = getattr(type(value), "__slots__", ())
        return [getattr(value, name, None) for name in ([slots] if isinstance(slots, str) else slots)]


def tensor_leaves(tree: object) -> list[torch.Tensor]:
    """The tensors among the pytree leaves of ``tree`` (an op's arguments or results), each
    once, without recursion; a container whose own code fails is skipped."""
    found: list[torch.Tensor] = []
    seen: dict[int, object] = {}
    todo = [tree]
    while todo:
        value = todo.pop()
        if id(value) in seen:
            continue
        seen[id(value)] = value
        if issubclass(type(value), torch.Tensor):
            found.append(value)  # type: ignore[arg-type]
            continue
        try:
            children = _children(value)
        except Exception:  # noqa: BLE001 - a container subclass whose own code fails
            continue
        if children:
            todo += reversed(children)
    return found


def unwrapped(tensor: torch.Tensor) -> Iterator[torch.Tensor]:
    """``tensor`` and, for a functorch wrapper (vmap's BatchedTensor, grad's
    GradTrackingTensor), every tensor it wraps, outermost first."""
    yield tensor
    while _functorch.is_functorch_wrapped_tensor(tensor):
        tensor = _functorch.get_unwrapped(tensor)
        yield tensor
