"""The strict-mode policy: ``off``, ``warn`` or ``raise``.

``AIGCHECK_STRICT`` in the environment gives the default (``off`` when unset). The mode
in force when a function is *registered* decides whether it is guarded at all and how
its violations are reported: Dynamo keeps whatever object was registered, so a later
change of mode cannot unwrap or wrap it (see ``Registration.mode``).
"""

from __future__ import annotations

import contextlib
import enum
import os
from collections.abc import Callable

ENV_VAR = "AIGCHECK_STRICT"


class Strict(str, enum.Enum):
    """What the guard does with a violation."""

    OFF = "off"
    WARN = "warn"
    RAISE = "raise"


def parse(mode: str | Strict, source: str = "set_strict") -> Strict:
    """``mode`` as a :class:`Strict`; a ``ValueError`` that lists the valid values otherwise."""
    if isinstance(mode, Strict):
        return mode
    try:
        return Strict(str(mode).strip().lower())
    except ValueError:
        valid = ", ".join(repr(m.value) for m in Strict)
        raise ValueError(f"{source}: invalid strict mode {mode!r}; expected one of {valid}") from None


def _default() -> Strict:
    value = os.environ.get(ENV_VAR, "")
    return parse(value, source=ENV_VAR) if value.strip() else Strict.OFF


_current: Strict = _default()
_listeners: list[Callable[[Strict], None]] = []


def set_strict(mode: str | Strict) -> None:
    """Set the strict mode for registrations made from now on: ``"off"``, ``"warn"`` or ``"raise"``.

    With :func:`~runtime_guard.install` in effect, ``warn`` and ``raise`` also check the
    registrations torch already holds that the guard does not (see :mod:`runtime_guard.late`).
    """
    _set(parse(mode))
    for listener in list(_listeners):
        listener(_current)


def on_set_strict(listener: Callable[[Strict], None]) -> None:
    """Call ``listener(mode)`` after each :func:`set_strict` (not on entering or leaving :class:`strict`)."""
    _listeners.append(listener)


def _set(mode: Strict) -> None:
    global _current
    _current = mode


def get_strict() -> Strict:
    """The strict mode in force."""
    return _current


class strict(contextlib.ContextDecorator):
    """Use ``mode`` inside a ``with`` block, or for every call of a decorated function.

    Unlike :func:`set_strict`, it concerns registrations made inside the block only.

    >>> with strict("warn"):
    ...     pass
    """

    def __init__(self, mode: str | Strict) -> None:
        self.mode = parse(mode, source="strict")
        self._saved: list[Strict] = []  # a stack, so one instance can be re-entered

    def __enter__(self) -> strict:
        self._saved.append(get_strict())
        _set(self.mode)
        return self

    def __exit__(self, *exc: object) -> None:
        _set(self._saved.pop())
