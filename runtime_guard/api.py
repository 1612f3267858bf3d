"""``allow_in_graph`` with a strict mode, and ``install()`` to guard every registration."""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar

import torch
import torch._dynamo
import torch._dynamo.decorators

from runtime_guard import captures, kinds
from runtime_guard.errors import Violation
from runtime_guard.modes import Strict, get_strict
from runtime_guard.registry import Registration, registry
from runtime_guard.wrapper import make_wrapper

F = TypeVar("F", bound=Callable[..., Any])

#: Dynamo's own registration, captured before ``install()`` can replace the public names.
_dynamo_allow_in_graph = torch._dynamo.decorators.allow_in_graph

#: Frames from these directories are never a registration site.
_INTERNAL = tuple(os.path.dirname(path) + os.sep for path in (__file__, torch.__file__, torch._dynamo.__file__)) + (
    os.path.dirname(os.__file__) + os.sep + "functools.py",
    os.path.dirname(os.__file__) + os.sep + "contextlib.py",
)


def allow_in_graph(fn: Any) -> Any:
    """Drop-in for ``torch.compiler.allow_in_graph`` that checks the contract in strict mode.

    ``off``: registers ``fn`` itself, exactly as torch does. ``warn`` / ``raise``: checks
    what was registered and what it captures now, and returns a guarded wrapper (the
    object Dynamo puts in the graph) that checks each call while it is compiled. Lists
    and tuples register each element and return a list, like torch.
    """
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(item) for item in fn]
    mode = get_strict()
    if mode is Strict.OFF:
        return _dynamo_allow_in_graph(fn)
    return _register(fn, mode, torch.compiler.is_compiling())


def _caller() -> types.FrameType | None:
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame = frame.f_back  # type: ignore[assignment]
    return frame


def _name(fn: object) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    return name if isinstance(name, str) else f"<{type(fn).__qualname__} instance>"


def _register_now(fn: Any, mode: Strict, compiling: bool) -> Any:
    existing = registry.lookup(fn)
    if existing is not None and existing.wrapper is not None:
        return existing.wrapper  # registering again (or registering the wrapper) changes nothing
    caller = _caller()
    site = f"{caller.f_code.co_filename}:{caller.f_lineno}" if caller is not None else "<unknown>"
    name = _name(fn)

    def report(code: str, detail: str) -> None:
        registry.report(Violation(code, name, site, detail), mode)

    if compiling:
        report(
            "AIG404",
            "allow_in_graph was called inside a compiled region; Dynamo graph-breaks there ('Dynamically annotating "
            "functions inside a compiled region is not supported'); register at import time",
        )
    found = kinds.judge(fn, caller)
    for finding in found:
        report(finding.code, finding.detail)
    if found or isinstance(fn, type):
        # Left exactly as torch would have it: a wrapper would change what Dynamo honours.
        # Classes too: Dynamo looks up an autograd.Function subclass itself at `Cls.apply`
        # (evidence D0.6), so it cannot be swapped for a wrapper. What its forward and
        # backward capture is still checked here, at registration.
        if not found and isinstance(fn, type) and issubclass(fn, torch.autograd.Function):
            for method in ("forward", "backward", "setup_context"):
                body = fn.__dict__.get(method)
                function = getattr(body, "__func__", body)
                for capture in captures.judge(function) if callable(function) else ():
                    report(capture.code, f"{fn.__qualname__}.{method}: {capture.detail}")
        return _dynamo_allow_in_graph(fn)

    function = captures.code_of(fn)
    registration = Registration(
        name, site, mode, code=function.__code__ if fn is function else None, captured=captures.snapshot(fn)
    )
    if registration.code is not None:
        for other in registry.with_code(registration.code):
            if not captures.same_captures(other.captured, registration.captured):
                report(
                    "AIG401",
                    f"the same def was registered before at {other.site} with other captured values (closure cells or "
                    "defaults); Dynamo guards on __code__ only, so compiled code keeps calling the first copy and "
                    "returns its results on every backend; define the function once and pass the values as arguments",
                )
                break
    for capture in captures.judge(fn):
        report(capture.code, capture.detail)

    wrapper = make_wrapper(fn, registration)
    registry.add(registration, fn, wrapper)
    _dynamo_allow_in_graph(wrapper)
    return wrapper


# Inside a compiled region Dynamo graph-breaks here and runs the registration eagerly;
# ``compiling`` was read by the caller, where Dynamo still folds it to True (AIG404).
_register = torch.compiler.disable(_register_now)


# -- install / uninstall ------------------------------------------------------------------

_PATCHED = ((torch.compiler, "allow_in_graph"), (torch._dynamo, "allow_in_graph"))
_saved: dict[tuple[object, str], object] = {}


def install() -> None:
    """Route ``torch.compiler.allow_in_graph`` and ``torch._dynamo.allow_in_graph`` through
    :func:`allow_in_graph`, so registrations made by other code are guarded too.

    Only registrations made after ``install()`` are affected, and only through those two
    names (``from torch._dynamo import allow_in_graph`` executed earlier keeps torch's).
    Calling it twice is harmless.
    """
    for owner, attribute in _PATCHED:
        if (owner, attribute) not in _saved:
            _saved[(owner, attribute)] = getattr(owner, attribute)
            setattr(owner, attribute, allow_in_graph)


def uninstall() -> None:
    """Restore what :func:`install` replaced; harmless when nothing is installed."""
    for (owner, attribute), original in list(_saved.items()):
        setattr(owner, attribute, original)
        del _saved[(owner, attribute)]


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return bool(_saved)
