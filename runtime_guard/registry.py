"""Every guarded registration, and every violation the guard has found.

Like ``torch._library``'s registrations, an entry lives as long as the object Dynamo
was given: a ``weakref.finalize`` on the wrapper removes it when the wrapper is
collected (the wrapper holds the user's function, so the function outlives it).
"""

from __future__ import annotations

import itertools
import os
import sys
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

import torch

from runtime_guard.errors import ContractViolation, ContractWarning, Violation
from runtime_guard.modes import Strict

#: How many eager calls of each function run the TorchFunctionMode before only the
#: cheap argument and result checks remain (compile-time calls always run it).
TRACED_EAGER_CALLS = 3


@dataclass(eq=False)
class Registration:
    """One call of ``allow_in_graph`` in ``warn`` or ``raise`` mode."""

    name: str
    site: str
    mode: Strict
    code: CodeType | None
    #: What the function captured when it was registered (closure cells, defaults),
    #: compared with later registrations of the same ``__code__`` (AIG401).
    captured: tuple[Any, ...] = ()
    calls_checked: int = 0
    traced_calls_left: int = TRACED_EAGER_CALLS
    _function: Callable[..., Any] | None = field(default=None, repr=False)
    _wrapper: weakref.ref[Callable[..., Any]] | None = field(default=None, repr=False)

    @property
    def function(self) -> Callable[..., Any] | None:
        """The registered callable (``None`` once its wrapper has been collected)."""
        return self._function if self.wrapper is not None else None

    @property
    def wrapper(self) -> Callable[..., Any] | None:
        """The guarded wrapper that Dynamo was given."""
        return self._wrapper() if self._wrapper is not None else None


class Registry:
    """The guarded registrations of this process, and the violations found so far."""

    def __init__(self) -> None:
        self._entries: dict[int, Registration] = {}
        self._keys = itertools.count()
        self._violations: list[Violation] = []
        self._seen: set[Violation] = set()

    def add(self, registration: Registration, function: Callable[..., Any], wrapper: Callable[..., Any]) -> None:
        """Keep ``registration`` until ``wrapper`` is collected."""
        key = next(self._keys)
        # The function is held through the wrapper's lifetime only: the entry keeps a
        # strong reference that the finalizer drops together with the entry.
        registration._function = function
        registration._wrapper = weakref.ref(wrapper)
        self._entries[key] = registration
        weakref.finalize(wrapper, self._entries.pop, key, None)

    def __iter__(self) -> Iterator[Registration]:
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, obj: object) -> Registration | None:
        """The registration whose wrapper or function is ``obj``."""
        for entry in self._entries.values():
            if entry.wrapper is obj or entry._function is obj:
                return entry
        return None

    def with_code(self, code: CodeType) -> list[Registration]:
        """Live registrations of functions whose ``__code__`` is ``code``."""
        return [entry for entry in self._entries.values() if entry.code is code and entry.wrapper is not None]

    def violations(self) -> list[Violation]:
        """Every distinct violation found, in ``warn`` and ``raise`` mode alike, oldest first."""
        return list(self._violations)

    def clear_violations(self) -> None:
        self._violations.clear()
        self._seen.clear()

    def report(self, violation: Violation, mode: Strict) -> None:
        """Record ``violation`` and apply ``mode``: raise :class:`ContractViolation` or
        warn with :class:`ContractWarning` (once per distinct violation; a compile calls
        the function three times and would otherwise say everything three times)."""
        new = violation not in self._seen
        if new:
            self._seen.add(violation)
            self._violations.append(violation)
        if mode is Strict.RAISE:
            raise ContractViolation(violation)
        if mode is Strict.WARN and new:
            warnings.warn(ContractWarning(violation), stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside the guard and torch."""
    internal = (os.path.dirname(__file__), os.path.dirname(torch.__file__))
    frame, level = sys._getframe(1), 1  # level 1 is Registry.report itself
    while frame.f_back is not None and frame.f_code.co_filename.startswith(internal):
        frame, level = frame.f_back, level + 1
    return level


#: The process-wide registry (``runtime_guard.registry``).
registry = Registry()
