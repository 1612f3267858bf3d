"""AIG401: the same ``def`` registered again with other captured values.

Dynamo guards a registered function on its ``__code__`` (S§0.4), so a second closure
made by the same factory reuses the graph compiled for the first and returns the first
one's results (S§1c, D4). The guard keeps, per code object, what the first registered
function captured (closure cells, defaults, keyword-only defaults) and compares each later
registration of that code with it. Code objects are told apart by identity, as Dynamo's
guard does: the same ``def`` in two modules, or in a module and its reload, makes equal
code objects that are not the same, and Dynamo compiles each of them on its own.

The record outlives the first function: a factory's closures are often short-lived, and
the second one is just as stale after the first has been collected (the compiled graph
still calls the first). It holds nothing strongly: Python scalars are kept by value,
other objects by weak reference where they allow one and by ``id`` otherwise, so a
collected capture compares as different from any new one.
"""

from __future__ import annotations

import types
import weakref
from dataclasses import dataclass
from typing import Any, cast

from torch.utils.weak import WeakIdKeyDictionary

_SCALARS = (int, float, complex, str, bytes, bool, type(None))


@dataclass(frozen=True)
class Captured:
    """One captured value as the record keeps it."""

    #: The value itself, for Python scalars and tuples of them.
    value: object = None
    #: A weak reference, for objects that allow one.
    ref: weakref.ref[Any] | None = None
    #: ``id()``, for objects that allow no weak reference (lists, dicts).
    ident: int | None = None

    def matches(self, other: object) -> bool:
        """Whether ``other`` is the value this entry was made from."""
        if self.ref is not None:
            return self.ref() is other
        if self.ident is not None:
            return id(other) == self.ident
        return type(other) is type(self.value) and other == self.value


@dataclass(frozen=True)
class FirstRegistration:
    """Where a code object was first registered, and what that function captured."""

    site: str
    captured: tuple[Captured, ...]


_EMPTY = object()


def _scalar(value: object) -> bool:
    return issubclass(type(value), _SCALARS)  # not isinstance: no __class__ of the value runs


def _kept(value: object) -> Captured:
    # cast: the value's class was just found to be a tuple's (issubclass, so no __class__ runs).
    if _scalar(value) or (
        issubclass(type(value), tuple) and all(_scalar(v) for v in cast("tuple[object, ...]", value))
    ):
        return Captured(value=value)
    try:
        return Captured(ref=weakref.ref(value))
    except TypeError:
        return Captured(ident=id(value))


def captured_values(fn: types.FunctionType) -> list[object]:
    """What distinguishes two functions made by the same ``def``: cells, defaults, keyword defaults."""
    values: list[object] = []
    for cell in fn.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            values.append(_EMPTY)
    values += list(fn.__defaults__ or ())
    values += [value for _, value in sorted((fn.__kwdefaults__ or {}).items())]
    return values


class RecreatedClosures:
    """The first registration of each code object (weakly keyed by the code's identity)."""

    def __init__(self) -> None:
        self._first: WeakIdKeyDictionary = WeakIdKeyDictionary()

    def earlier_with_other_values(self, fn: types.FunctionType, site: str) -> str | None:
        """The site of an earlier registration of ``fn.__code__`` that captured other values,
        or ``None``; the first registration of a code is recorded."""
        values = captured_values(fn)
        first = self._first.get(fn.__code__)
        if first is None:
            self._first[fn.__code__] = FirstRegistration(site, tuple(_kept(v) for v in values))
            return None
        same = len(first.captured) == len(values) and all(
            kept.matches(value) for kept, value in zip(first.captured, values, strict=True)
        )
        return None if same else first.site


#: The process-wide record.
recreated = RecreatedClosures()
