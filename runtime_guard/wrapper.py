"""The guarded wrapper ``allow_in_graph`` returns in strict mode, next to the function itself.

Both the function and the wrapper are registered with Dynamo: calls through the name the
decorator bound (the wrapper) are checked, and a call-form ``allow_in_graph(f)`` whose
result was discarded keeps ``f`` registered exactly as torch would.

When the wrapper runs (``evidence/dynamo/FINDINGS.md`` section S7):

- while a graph is traced in this thread (Dynamo's fake call, the two AOT traces): every
  call checks the arguments (AIG101/AIG102), runs the body under
  :class:`~runtime_guard.tracing.CaptureMode` (AIG301/AIG303), looks for fake tensors
  the call left in the program's caches and containers (AIG301,
  :mod:`runtime_guard.caches`) and checks the result (AIG201/AIG202). Under aot_eager
  and inductor the wrapper never runs again after compiling, so the compiled steady
  state pays nothing.
- eager calls (uncompiled code, the eager backend's graph): the first
  ``TRACED_EAGER_CALLS`` calls are checked like the traced ones; after that only a
  type-set fast path over the arguments and the result remains.
- a registration whose violations were deferred (``raise`` mode while
  ``registry.deferring()``, as ``pytest --aig-strict`` collects) raises them on every
  call, eager or traced.
- when Dynamo cannot put the call in the graph (an unproxyable argument) it traces the
  wrapper's own bytecode instead (S§10a). The wrapper then does nothing but call the
  function, so Dynamo traces exactly what it traces without the guard; the ``aigcheck``
  backend reports the lost registration (AIG402).

The wrapper changes nothing Dynamo decides: its code object is a copy per code object of
the function, so two wrappers share a compiled graph exactly when the two functions would
(S§0.4: Dynamo guards a registered function on the identity of its ``__code__``; a
re-created closure is reported as AIG401 and behaves as it does without the guard). The
copies are kept by the identity of the code object, as Dynamo's guard compares: code
objects compare equal by value, and the same ``def`` in two modules, or in a module and
its reload, makes two equal code objects that Dynamo compiles separately.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

import torch
import torch._guards
from torch._dynamo.comptime import comptime
from torch.utils.weak import WeakIdKeyDictionary

from checker.spec.messages import LeftWhileTracing
from runtime_guard import caches, captures
from runtime_guard.errors import Violation
from runtime_guard.registry import Registration, deferred_error, registry
from runtime_guard.surfacing import surfaced
from runtime_guard.tracing import CaptureMode, Foreign, tensor_names
from runtime_guard.values import Finding, check_call, check_result, fast_ok, fast_result

_is_compiling = torch.compiler.is_compiling
_is_dynamo_compiling = torch.compiler.is_dynamo_compiling
_tracing_context = torch._guards.TracingContext.try_get


def _report(registration: Registration, code: str, detail: str) -> Violation:
    violation = Violation(code, registration.name, registration.site, detail)
    return registry.report(violation, registration.mode, registration)


def _report_all(registration: Registration, findings: list[Finding]) -> None:
    for finding in findings:
        _report(registration, finding.code, finding.detail)


def positional_names(fn: Callable[..., Any]) -> tuple[str, ...]:
    """Parameter names for argument paths (``argument 'xs'``); empty when there is no signature."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except Exception:  # noqa: BLE001 - no signature, or a __signature__ / __wrapped__ that fails
        return ()
    return tuple(p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def checked_call(
    fn: Callable[..., Any],
    registration: Registration,
    names: tuple[str, ...],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    traced: bool = False,
) -> Any:
    """One fully checked call: arguments, the body under CaptureMode, the result; for a
    ``traced`` call, also the fake tensors it left in containers (:mod:`runtime_guard.caches`)."""
    _report_all(registration, list(check_call(names, args, kwargs)))

    def foreign(found: Foreign) -> Violation:
        return _report(registration, found.code, found.detail)

    def recall(tensor: torch.Tensor) -> LeftWhileTracing | None:
        return caches.recall(tensor, registration)

    mode = CaptureMode(args, kwargs, tensor_names(captures.named_tensors(fn)), foreign, recall)
    with mode:
        out = fn(*args, **kwargs)
    if traced:
        for left in caches.left_behind(fn, mode.made, registration):
            registry.report(left, registration.mode, registration)
    _report_all(registration, list(check_result(out)))
    return out


def _unregistered_alias(fn: types.FunctionType) -> types.FunctionType:
    """A second function object with ``fn``'s code, globals, cells and defaults."""
    alias = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    alias.__kwdefaults__ = fn.__kwdefaults__
    alias.__qualname__ = fn.__qualname__
    return alias


def _check_traced_frame(ctx: Any) -> None:
    """Check the arguments of a wrapper whose own frame Dynamo traces (S§10a: the call
    graph-broke, usually on an unproxyable argument). Dynamo compiles that frame as a
    frame of its own, so its locals are the real arguments of the call."""
    try:
        frame = ctx._i_will_not_complain_if_bc_breaks_InstructionTranslator().f_locals
        registration, names = frame["registration"], frame["names"]
        args, kwargs = frame["args"], frame["kwargs"]
    except (AttributeError, KeyError, TypeError):  # another torch: no check rather than a failure
        return
    if isinstance(registration, Registration):
        with surfaced(registration, whole_frame=True):
            _report_all(registration, list(check_call(names, args, kwargs)))


#: One copy of the wrapper's code per code object of the wrapped functions, keyed by
#: identity (a WeakKeyDictionary would share one copy between equal code objects).
_codes: WeakIdKeyDictionary = WeakIdKeyDictionary()


def _code_for(template: types.CodeType, fn: types.FunctionType) -> types.CodeType:
    """The wrapper code for functions made from ``fn.__code__``: shared by all of them, and
    named after the function for Dynamo's messages."""
    copy = _codes.get(fn.__code__)
    if copy is None:
        copy = template.replace(co_name=fn.__code__.co_name, co_qualname=f"{fn.__qualname__} (guarded)")
        _codes[fn.__code__] = copy
    return copy


def make_wrapper(fn: types.FunctionType, registration: Registration) -> Callable[..., Any]:
    """The guarded wrapper of ``fn``; ``functools.wraps`` keeps its name, docs and ``__wrapped__``."""
    names = positional_names(fn)
    body = _unregistered_alias(fn)

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if _is_dynamo_compiling():
            # Dynamo traces this bytecode: the call graph-broke and Dynamo compiles this
            # frame on its own, as it would compile the function's frame without the guard.
            # It traces the body through an alias it does not know as registered (the
            # function itself is, and would graph-break a second time); comptime runs the
            # argument check while Dynamo traces, adding no node and no graph break.
            comptime(_check_traced_frame)
            return body(*args, **kwargs)
        if registration.deferred and not registry.deferring_now:
            # Found in raise mode while raising was deferred (a pytest collection): each
            # call fails instead, so the tests that use the function fail and no other.
            with surfaced(registration):  # raised as itself, not wrapped by Dynamo
                raise deferred_error(registration.deferred)
        registration.calls_checked += 1
        # Traced in this thread: is_compiling() alone is true in every thread while one
        # compiles (D13); the tracing context is per thread.
        if _is_compiling() and _tracing_context() is not None:
            with surfaced(registration):  # raised as itself, not wrapped by Dynamo
                return checked_call(fn, registration, names, args, kwargs, traced=True)
        if registration.traced_calls_left > 0:
            registration.traced_calls_left -= 1
            return checked_call(fn, registration, names, args, kwargs)
        if not fast_ok(args, kwargs):
            _report_all(registration, list(check_call(names, args, kwargs)))
        out = fn(*args, **kwargs)
        if not fast_result(out):
            _report_all(registration, list(check_result(out)))
        return out

    functools.update_wrapper(guarded, fn)
    guarded.__code__ = _code_for(guarded.__code__, fn)
    return guarded
