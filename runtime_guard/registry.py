"""Every registration the guard has seen, and every violation it has found.

Like ``torch._library``'s registrations, an entry lives as long as the object that was
registered: a ``weakref.finalize`` on the registered function removes it when the function
is collected. The registry holds neither the function nor its guarded wrapper strongly,
so registering changes no object's lifetime (torch relies on that: a dead function's id
must not stay registered for the next object that reuses it).

Each registration says which checks can run for it (:class:`Check`): a call-form
``allow_in_graph(f)`` whose result was discarded leaves ``f`` itself registered with
Dynamo and no wrapper in any graph, so only the registration-time checks and the
``aigcheck`` backend check it; ``registration.checks`` says so rather than leaving strict
mode to check nothing silently.
"""

from __future__ import annotations

import contextlib
import enum
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


class Check(enum.Enum):
    """A kind of check the guard can run for a registration."""

    #: What was registered and what it captures, judged when ``allow_in_graph`` ran.
    REGISTRATION = "registration"
    #: Arguments, captured tensors and results, checked by the guarded wrapper each time
    #: Dynamo or AOTAutograd traces a call of it, and on eager calls.
    CALLS = "calls through the guarded wrapper"
    #: Graph nodes that call the function, checked when compiled with ``backend="aigcheck"``.
    BACKEND = "graph checks under backend='aigcheck'"


@dataclass(eq=False)
class Registration:
    """One call of ``allow_in_graph`` in ``warn`` or ``raise`` mode."""

    name: str
    site: str
    mode: Strict
    code: CodeType | None
    calls_checked: int = 0
    traced_calls_left: int = TRACED_EAGER_CALLS
    #: Violations found in ``raise`` mode while raising was deferred (:meth:`Registry.deferring`):
    #: recorded rather than raised, and raised by each call through the wrapper instead.
    deferred: list[Violation] = field(default_factory=list)
    _function: weakref.ref[Callable[..., Any]] | None = field(default=None, repr=False)
    _wrapper: weakref.ref[Callable[..., Any]] | None = field(default=None, repr=False)

    @property
    def function(self) -> Callable[..., Any] | None:
        """The registered callable (``None`` once it has been collected)."""
        return self._function() if self._function is not None else None

    @property
    def wrapper(self) -> Callable[..., Any] | None:
        """The guarded wrapper ``allow_in_graph`` returned, while something still holds it."""
        return self._wrapper() if self._wrapper is not None else None

    @property
    def checks(self) -> frozenset[Check]:
        """The checks that can run for this registration now.

        A registration without a live wrapper (a call form whose result was discarded, or
        a callable the guard does not wrap) is checked at registration and by the
        ``aigcheck`` backend only; under ``inductor`` or ``aot_eager`` nothing checks its calls.
        """
        found = {Check.REGISTRATION}
        if self.wrapper is not None:
            found.add(Check.CALLS)
        if self.code is not None:
            found.add(Check.BACKEND)
        return frozenset(found)


class Registry:
    """The registrations of this process, and the violations found so far."""

    def __init__(self) -> None:
        # id of the registered function, and id of its wrapper, to the registration.
        self._entries: dict[int, Registration] = {}
        self._wrappers: dict[int, Registration] = {}
        self._violations: list[Violation] = []
        self._seen: set[Violation] = set()
        # One list per active deferring() block, innermost last.
        self._deferrals: list[list[Violation]] = []

    def add(self, registration: Registration, function: Callable[..., Any]) -> None:
        """Keep ``registration`` until ``function`` is collected."""
        key = id(function)
        registration._function = weakref.ref(function)
        self._entries[key] = registration
        weakref.finalize(function, self._forget, key, registration)

    def attach_wrapper(self, registration: Registration, wrapper: Callable[..., Any]) -> None:
        """Record the guarded wrapper of ``registration`` (held weakly)."""
        key = id(wrapper)
        registration._wrapper = weakref.ref(wrapper)
        self._wrappers[key] = registration
        weakref.finalize(wrapper, self._forget_wrapper, key, registration)

    def _forget(self, key: int, registration: Registration) -> None:
        if self._entries.get(key) is registration:
            del self._entries[key]

    def _forget_wrapper(self, key: int, registration: Registration) -> None:
        if self._wrappers.get(key) is registration:
            del self._wrappers[key]

    def __iter__(self) -> Iterator[Registration]:
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def ids(self) -> set[int]:
        """The ids of every live registered function and guarded wrapper."""
        return set(self._entries) | set(self._wrappers)

    def lookup(self, obj: object) -> Registration | None:
        """The live registration whose function or wrapper is ``obj``."""
        for table, attribute in ((self._entries, "function"), (self._wrappers, "wrapper")):
            entry = table.get(id(obj))
            if entry is not None and getattr(entry, attribute) is obj:
                return entry
        return None

    def violations(self) -> list[Violation]:
        """Every distinct violation found, in ``warn`` and ``raise`` mode alike, oldest first."""
        return list(self._violations)

    def recorded(self, violation: Violation) -> bool:
        """Whether ``violation`` was found since the last :meth:`clear_violations`."""
        return violation in self._seen

    def clear_violations(self) -> None:
        """Forget every violation recorded so far (registrations stay)."""
        self._violations.clear()
        self._seen.clear()

    @contextlib.contextmanager
    def deferring(self) -> Iterator[list[Violation]]:
        """Inside the block, ``raise`` mode records a violation instead of raising it, on
        the registration it concerns (see :attr:`Registration.deferred`) and in the list
        the block yields (outer blocks' lists get it too). ``pytest --aig-strict`` collects
        under it, so that a mistake found at import fails the tests that use the function,
        not the collection; ``install()`` checks earlier registrations under it."""
        found: list[Violation] = []
        self._deferrals.append(found)
        try:
            yield found
        finally:
            # By identity: the lists of two blocks are equal while both are empty.
            self._deferrals[:] = [other for other in self._deferrals if other is not found]

    @property
    def deferring_now(self) -> bool:
        """Whether a :meth:`deferring` block is active."""
        return bool(self._deferrals)

    def report(self, violation: Violation, mode: Strict, registration: Registration | None = None) -> Violation:
        """Record ``violation`` and apply ``mode``: raise :class:`ContractViolation` or
        warn with :class:`ContractWarning` (once per distinct violation; a compile calls
        the function three times and would otherwise say everything three times).
        ``raise`` inside a :meth:`deferring` block records it on ``registration`` instead."""
        new = violation not in self._seen
        if new:
            self._seen.add(violation)
            self._violations.append(violation)
        if mode is Strict.RAISE and self._deferrals:
            if registration is not None and violation not in registration.deferred:
                registration.deferred.append(violation)
            for found in self._deferrals:
                if violation not in found:
                    found.append(violation)
            return violation
        if mode is Strict.RAISE:
            raise ContractViolation(violation)
        if mode is Strict.WARN and new:
            warnings.warn(ContractWarning(violation), stacklevel=_user_stacklevel())
        return violation


def deferred_error(violations: list[Violation]) -> ContractViolation:
    """The error that raises deferred ``violations``: the first, the others as notes."""
    error = ContractViolation(violations[0])
    for other in violations[1:]:
        if hasattr(error, "add_note"):  # Python 3.11+
            error.add_note(other.message)
    return error


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside the guard and torch."""
    internal = (os.path.dirname(__file__), os.path.dirname(torch.__file__))
    frame, level = sys._getframe(1), 1  # level 1 is Registry.report itself
    while frame.f_back is not None and frame.f_code.co_filename.startswith(internal):
        frame, level = frame.f_back, level + 1
    return level


#: The process-wide registry (``runtime_guard.registry``).
registry = Registry()
