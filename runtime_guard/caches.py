"""FakeTensors a traced call leaves in the program's own caches and containers (AIG301).

``evidence/dynamo/FINDINGS.md`` section S12: a registered function that fills an
``lru_cache`` or a memo dict while Dynamo traces it stores a FakeTensor there. The compile
fails, and every later call that reads the cache back fails too, eager calls included,
until the cache is cleared. After each traced call returns, the guard looks for tensors
that call created (its :class:`~runtime_guard.tracing.CaptureMode` saw every op that made
one) in what the function and its helpers reach:

- what :func:`runtime_guard.captures.captures` finds for the function (globals, closure
  cells, defaults, attributes of captured objects and modules), and the same for every
  user function it captures (a helper, a helper's helper: ``HELPER_DEPTH`` levels);
- of each: the value itself (a global rebound to the tensor), the items of a dict, list,
  deque or set, and the results a ``functools.lru_cache``/``cache`` wrapper holds. Those
  are not exposed by CPython's wrapper, but its garbage-collector traversal visits them:
  ``gc.get_referents`` returns the cache dict of an unbounded cache and every key and
  result of a bounded one. Items one level inside (a memo dict of tuples) count too.

Only tensors the call itself created, and that are fake (``FakeTensor``, or the
``FunctionalTensor`` of an AOT trace), are reported: a FakeTensor put there before the
call is not the call's, and a real tensor an eager call cached is a captured tensor,
which :class:`~runtime_guard.tracing.CaptureMode` reports when a traced call uses it. The
guard reports and changes nothing: the container keeps what the program put there.

Each container (and key, for a dict) is reported once per registration while the registry
holds the report, however many traced calls add a tensor to it; a later call of the same
function that uses such a tensor gets the same message (:func:`recall`), not an unnamed
captured tensor. The look is bounded: ``ITEMS`` items per container, newest first (a dict
keeps insertion order and a list grows at its end, so what the call added is read first),
``CONTAINERS`` containers and ``HELPERS`` functions per call; a bounded ``lru_cache``
fuller than ``ITEMS`` is not read. It runs only while a call is traced, so compiled and
eager calls pay nothing; measured, 15-50 us per traced call for the functions of
``tests/runtime_guard/test_guard_caches.py``, 0.12 ms with a 50,000-entry memo dict,
0.5 ms with a full 4,096-entry bounded ``lru_cache``.
"""

from __future__ import annotations

import collections
import functools
import gc
import itertools
import types
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch._subclasses.functional_tensor import FunctionalTensor
from torch.utils.weak import WeakIdKeyDictionary

from checker.spec.messages import LeftWhileTracing
from runtime_guard import captures, contained
from runtime_guard.captures import Capture, Origin
from runtime_guard.errors import Violation
from runtime_guard.registry import Registration, registry

#: Items of one container looked at, newest first.
ITEMS = 4096
#: Containers looked at after one call.
CONTAINERS = 256
#: Functions whose captures are looked at after one call (the registered one included).
HELPERS = 64
#: How many calls deep helpers are followed (a helper of the function is 1).
HELPER_DEPTH = 3
#: Items looked at inside one item (a memo dict of tuples of tensors).
INNER = 8

_LRU = functools._lru_cache_wrapper
_LISTS = (list, collections.deque)

#: Whether a tensor was created by the call being checked (the CaptureMode's record).
Made = Callable[[torch.Tensor], bool]


@dataclass(frozen=True)
class Container:
    """A container a function reaches: its words for the message, and the value."""

    holder: str
    name: str
    value: object


_FAKE = (FakeTensor, FunctionalTensor)
#: Items looked into for tensors one level down.
_NESTED = (tuple, list, dict)


def left_in(value: object, made: Made) -> list[tuple[str | None, torch.Tensor]]:
    """``(key, tensor)`` for each fake tensor ``made`` by the call that ``value`` holds
    (``value`` itself, an item, or an item of an item); ``key`` is a dict's, as ``repr`` words it."""
    keys, items = _items(value)
    # The common container holds no fake tensor at all: its item types say so, read in C.
    if not any(kind in _NESTED or issubclass(kind, _FAKE) for kind in set(map(type, items))):
        return []
    found: list[tuple[str | None, torch.Tensor]] = []
    for index, item in enumerate(items):
        for tensor in _tensors(item):
            if isinstance(tensor, _FAKE) and made(tensor):
                found.append((None if keys is None else contained.text(keys[index]), tensor))
    return found


def _items(value: object) -> tuple[list[object] | None, list[object]]:
    """The keys (of a dict; ``None`` for other values) and items ``value`` holds, newest
    first, at most ``ITEMS``; read through the builtin types' own methods, so no override
    of a subclass runs."""
    kind = type(value)
    held: Any = value
    items: Iterator[object]
    if issubclass(kind, torch.Tensor):
        return None, [value]
    if issubclass(kind, dict):
        keys = list(itertools.islice(reversed(dict.keys(held)), ITEMS))
        return keys, list(itertools.islice(reversed(dict.values(held)), ITEMS))
    if issubclass(kind, list):
        items = list.__reversed__(held)
    elif issubclass(kind, collections.deque):
        items = collections.deque.__reversed__(held)
    elif issubclass(kind, set):
        items = set.__iter__(held)
    elif issubclass(kind, frozenset):
        items = frozenset.__iter__(held)
    elif kind is _LRU:
        items = iter(_cached(value))
    else:
        return None, []
    return None, list(itertools.islice(items, ITEMS))


def _cached(wrapper: object) -> list[object]:
    """The keys and results an ``lru_cache`` wrapper holds, newest first (see the module docstring)."""
    info = wrapper.cache_info()  # type: ignore[attr-defined]
    if info.maxsize is not None and info.currsize > ITEMS:
        return []  # its traversal would list every entry
    own = contained.attribute(wrapper, "__dict__")
    held: list[object] = []
    for referent in reversed(gc.get_referents(wrapper)):
        if type(referent) is dict and referent is not own:  # the cache dict: results by key (an unbounded cache)
            held += itertools.islice(reversed(referent.values()), ITEMS)
        elif referent is not own:
            held.append(referent)  # a bounded cache's keys and results, and the wrapper's own fields
    return held[:ITEMS]


def _tensors(item: object) -> Iterator[object]:
    """``item``, or the first ``INNER`` items of a tuple, list or dict ``item``."""
    kind = type(item)
    if kind in (tuple, list):
        yield from itertools.islice(item, INNER)  # type: ignore[call-overload]
    elif kind is dict:
        yield from itertools.islice(item.values(), INNER)  # type: ignore[attr-defined]
    else:
        yield item


# -- what a function reaches -----------------------------------------------------------------


def _user_function(value: object) -> bool:
    if type(value) is not types.FunctionType:
        return False
    module = value.__module__
    return isinstance(module, str) and module.partition(".")[0] not in captures.LIBRARY_ROOTS


def _functions(fn: types.FunctionType) -> Iterator[tuple[types.FunctionType, list[Capture]]]:
    """``fn`` and the user functions it reaches through its captures (directly, or as the
    function an ``lru_cache`` wraps), each once, with what each captures."""
    todo: collections.deque[tuple[types.FunctionType, int]] = collections.deque([(fn, 0)])
    seen: set[int] = {id(fn)}
    while todo and len(seen) <= HELPERS:
        func, depth = todo.popleft()
        found = captures.captures(func)
        yield func, found
        if depth >= HELPER_DEPTH:
            continue
        for capture in found:
            helper = contained.attribute(capture.value, "__wrapped__") if type(capture.value) is _LRU else capture.value
            if _user_function(helper) and id(helper) not in seen:
                seen.add(id(helper))
                todo.append((helper, depth + 1))  # type: ignore[arg-type]


def containers(fn: types.FunctionType) -> Iterator[Container]:
    """The containers ``fn`` and its helpers reach, each once, named for the message."""
    seen: set[int] = set()
    for func, found in _functions(fn):
        for capture in found:
            value = capture.value
            holder = _holder(capture)
            if holder is None or id(value) in seen:
                continue
            seen.add(id(value))
            yield Container(holder, _name(capture, func), value)
            if len(seen) >= CONTAINERS:
                return


#: How the message calls a tensor held directly, by where the function holds it.
_DIRECTLY = {
    Origin.GLOBAL: "global",
    Origin.ATTRIBUTE: "attribute",
    Origin.CELL: "closure cell",
    Origin.DEFAULT: "default",
    Origin.KWDEFAULT: "default",
    Origin.INSTANCE: "instance",
}


def _holder(capture: Capture) -> str | None:
    """How the message calls a container (``dict``, ``lru_cache of``, ``global`` for a tensor
    the module scope holds), ``None`` for values that hold no tensor the call could add."""
    kind = type(capture.value)
    if kind is _LRU:
        return "lru_cache of"
    if issubclass(kind, torch.Tensor):
        return _DIRECTLY[capture.origin]
    for base in (dict, list, collections.deque, set, frozenset):
        if issubclass(kind, base):
            return base.__name__
    return None


def _name(capture: Capture, func: types.FunctionType) -> str:
    """``pkg.kernels._MEMO``; an lru_cache by its function's name; a value the module scope
    does not hold, by where the function holds it."""
    value = capture.value
    if type(value) is _LRU:
        module, qualname = contained.attribute(value, "__module__"), contained.attribute(value, "__qualname__")
        if isinstance(module, str) and isinstance(qualname, str):
            return f"{module}.{qualname}"
    owner = capture.owner
    if owner is not None and isinstance(owner.value, types.ModuleType):
        return f"{owner.value.__name__}.{capture.name.rpartition('.')[2]}"
    root = capture
    while root.owner is not None:
        root = root.owner
    module = func.__globals__.get("__name__", func.__module__)
    if root.origin is Origin.GLOBAL:
        return f"{module}.{capture.name}"
    return f"'{capture.name}' ({root.origin.value} of {module}.{func.__qualname__})"


# -- reporting -----------------------------------------------------------------------------

#: The message reported for each tensor found left behind, and the registration it concerns.
_left: WeakIdKeyDictionary = WeakIdKeyDictionary()
#: The message and violation reported for each ``(container, key)``, per registration.
_reported: weakref.WeakKeyDictionary[Registration, dict[tuple[str, str | None], tuple[LeftWhileTracing, Violation]]] = (
    weakref.WeakKeyDictionary()
)


def left_behind(fn: Callable[..., Any], made: Made, registration: Registration) -> list[Violation]:
    """The violations for what a traced call of ``fn`` left in containers: one per container
    (and key) while the registry holds it, however many traced calls add a tensor there
    (aot_eager traces three times, the later ones with FunctionalTensors). Never a failure
    of the call: a container whose own code fails is not read."""
    func = captures.code_of(fn)
    if func is None:
        return []
    reported = _reported.setdefault(registration, {})
    found: list[Violation] = []
    for container, key, tensor in contained.findings(_found(func, made)):  # a failing capture ends the look
        earlier = reported.get((container.name, key))
        if earlier is None or not registry.recorded(earlier[1]):
            message = LeftWhileTracing(
                type(tensor).__name__, tuple(tensor.shape), str(tensor.dtype), container.holder, container.name, key
            )
            earlier = message, Violation(message.code, registration.name, registration.site, message.text())
            reported[(container.name, key)] = earlier
            found.append(earlier[1])
        _left[tensor] = (registration, earlier[0])
    return found


def _found(fn: types.FunctionType, made: Made) -> Iterator[tuple[Container, str | None, torch.Tensor]]:
    """What ``fn``'s containers hold that the call made; a container whose own code fails as
    it is read (a ``repr`` of a key, a failing ``cache_info``) is skipped."""
    for container in containers(fn):
        try:
            found = left_in(container.value, made)
        except Exception:  # noqa: BLE001 - torch would not have read it; the call is torch's to judge
            continue
        for key, tensor in found:
            yield container, key, tensor


def recall(tensor: torch.Tensor, registration: Registration) -> LeftWhileTracing | None:
    """The message ``registration`` reported when one of its traced calls left ``tensor``
    in a container, for a later call that uses it."""
    try:
        left = _left.get(tensor)
    except Exception:  # noqa: BLE001 - a tensor subclass whose hash or weakref fails
        return None
    return left[1] if left is not None and left[0] is registration else None
