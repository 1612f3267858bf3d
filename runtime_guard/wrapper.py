"""The guarded wrapper that Dynamo is given in place of the user's function.

When it runs (``shared/evidence/dynamo/FINDINGS.md`` section 7):

- while compiling (``torch.compiler.is_compiling()``): Dynamo's fake call and the two
  AOT traces call it with Fake/Functional tensors. Every such call checks the arguments
  (AIG101/AIG102), runs the body under :class:`~runtime_guard.tracing.CaptureMode`
  (AIG301/AIG303) and checks the result (AIG201/AIG202). Under aot_eager and inductor
  the wrapper never runs again after compiling, so the compiled steady state pays nothing.
- eager calls (uncompiled code, the eager backend's graph): the first
  ``TRACED_EAGER_CALLS`` calls are checked like the compile-time ones; after that only
  a type-set fast path over the arguments and the result remains, with the full
  argument/result check only when a value is not of an exactly accepted type.
- when Dynamo cannot put the call in the graph (an unproxyable argument) it traces the
  wrapper's own bytecode instead (S§8 "guard under fallback"); the argument check then
  runs eagerly behind ``torch.compiler.disable`` so that it sees the real values.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import torch

from runtime_guard import captures
from runtime_guard.errors import Violation
from runtime_guard.registry import Registration, registry
from runtime_guard.tracing import CaptureMode, Foreign, tensor_names
from runtime_guard.values import FAST_RESULTS, Finding, check_call, check_result, fast_ok

_is_compiling = torch.compiler.is_compiling
_is_dynamo_compiling = torch.compiler.is_dynamo_compiling


def _report(registration: Registration, code: str, detail: str) -> None:
    registry.report(Violation(code, registration.name, registration.site, detail), registration.mode)


def _report_all(registration: Registration, findings: list[Finding]) -> None:
    for finding in findings:
        _report(registration, finding.code, finding.detail)


def positional_names(fn: Callable[..., Any]) -> tuple[str, ...]:
    """Parameter names for argument paths (``argument 'xs'``); empty when there is no signature."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _check_arguments(
    registration: Registration, names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    _report_all(registration, list(check_call(names, args, kwargs)))


# Under Dynamo's own tracing of the wrapper this graph-breaks and runs eagerly, on real values.
_check_arguments_eagerly = torch.compiler.disable(_check_arguments)


def _checked_call(
    fn: Callable[..., Any],
    registration: Registration,
    names: tuple[str, ...],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    """One fully checked call: arguments, the body under CaptureMode, the result."""
    _check_arguments(registration, names, args, kwargs)
    named = [(c.name, c.value) for c in captures.captures(fn)]

    def foreign(found: Foreign) -> None:
        _report(registration, found.code, found.detail)

    with CaptureMode(args, kwargs, tensor_names(named), foreign):
        out = fn(*args, **kwargs)
    _report_all(registration, list(check_result(out)))
    return out


def make_wrapper(fn: Callable[..., Any], registration: Registration) -> Callable[..., Any]:
    """The guarded wrapper of ``fn``; ``functools.wraps`` keeps its name, docs and ``__wrapped__``."""
    names = positional_names(fn)
    fast_results = FAST_RESULTS

    def guarded(*args: Any, **kwargs: Any) -> Any:
        registration.calls_checked += 1
        if _is_compiling():
            if _is_dynamo_compiling():
                # Dynamo is tracing this bytecode: the call was not put in the graph.
                _check_arguments_eagerly(registration, names, args, kwargs)
                return fn(*args, **kwargs)
            return _checked_call(fn, registration, names, args, kwargs)
        if registration.traced_calls_left > 0:
            registration.traced_calls_left -= 1
            return _checked_call(fn, registration, names, args, kwargs)
        if not fast_ok(args, kwargs):
            _check_arguments(registration, names, args, kwargs)
        out = fn(*args, **kwargs)
        if type(out) not in fast_results:
            _report_all(registration, list(check_result(out)))
        return out

    try:
        functools.update_wrapper(guarded, fn)
    except (AttributeError, TypeError):  # objects whose attributes cannot be read or copied
        guarded.__wrapped__ = fn  # type: ignore[attr-defined]
    # Dynamo guards an allowed function on its __code__, not on the object (S§0.4): wrappers
    # sharing one code object would all be taken for the first one compiled. Each wrapper
    # gets its own copy, named after the function for Dynamo's messages.
    name = getattr(fn, "__name__", None) or type(fn).__name__
    guarded.__code__ = guarded.__code__.replace(co_name=name, co_qualname=f"{registration.name} (guarded)")
    return guarded
