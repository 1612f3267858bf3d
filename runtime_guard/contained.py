"""Reading user objects without letting their code fail the guard.

The guard looks at objects that torch never looks at when it calls a function eagerly:
attributes of the registered callable, the arguments and results of its calls, what it
captures. Those objects may run code of their own when looked at (``__getattr__``,
properties, ``__repr__``, a metaclass's properties), which may raise anything or return
anything. Torch would not have run that code, so nothing it does may reach the caller:
these helpers read with a fallback, and :func:`findings` ends a check at the first
failure, keeping what the check found before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")

#: ``type``'s own descriptors: reading a class's names through them runs no metaclass code.
_MODULE = type.__dict__["__module__"]
_QUALNAME = type.__dict__["__qualname__"]
_NAME = type.__dict__["__name__"]

#: How long a ``repr`` quoted in a message may be.
TEXT_LIMIT = 60


def findings(check: Iterator[T]) -> Iterator[T]:
    """What ``check`` yields, until code of a user object it ran raises; the check ends there."""
    try:
        yield from check
    except Exception:  # noqa: BLE001, S110 - torch would not have run that code; the call is torch's to judge
        return


def attribute(obj: object, name: str, default: object = None) -> object:
    """``getattr(obj, name, default)``, and ``default`` when the lookup raises anything."""
    try:
        return getattr(obj, name, default)
    except Exception:  # noqa: BLE001 - a __getattr__ or property that fails
        return default


def module_of(kind: type) -> str:
    """The ``__module__`` a class's namespace holds (``""`` when it is not a string)."""
    try:
        module = _MODULE.__get__(kind, type)
    except Exception:  # noqa: BLE001 - a class without one
        return ""
    return module if isinstance(module, str) else ""


def type_name(kind: type) -> str:
    """``module.qualname`` of a class (just ``qualname`` without a module), read without
    running metaclass code."""
    qualname = _QUALNAME.__get__(kind, type)
    module = module_of(kind)
    return f"{module}.{qualname}" if module else qualname


def text(value: object, limit: int = TEXT_LIMIT) -> str:
    """``repr(value)``, at most ``limit`` characters; ``<T object>`` when the repr raises or
    is not a string."""
    try:
        shown = repr(value)
    except Exception:  # noqa: BLE001 - a __repr__ that fails
        shown = None
    if not isinstance(shown, str):
        return f"<{_NAME.__get__(type(value), type)} object>"
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
