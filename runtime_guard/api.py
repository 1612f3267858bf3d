"""``allow_in_graph`` with a strict mode, and ``install()`` to guard every registration."""

from __future__ import annotations

import inspect
import os
import sys
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import torch
import torch._dynamo
import torch._dynamo.decorators

from checker.spec.messages import DefRegisteredAgain, RegisteredWhileCompiling
from runtime_guard import captures, contained, kinds, late, regions
from runtime_guard.errors import Violation
from runtime_guard.modes import Strict, get_strict, on_set_strict
from runtime_guard.recreated import recreated
from runtime_guard.registry import Registration, deferred_error, registry
from runtime_guard.wrapper import make_wrapper

#: Dynamo's own registration, captured before ``install()`` can replace the public names.
_dynamo_allow_in_graph = torch._dynamo.decorators.allow_in_graph

#: Frames from these directories are never a registration site.
_INTERNAL = tuple(os.path.dirname(path) + os.sep for path in (__file__, torch.__file__, torch._dynamo.__file__)) + (
    os.path.dirname(os.__file__) + os.sep + "functools.py",
    os.path.dirname(os.__file__) + os.sep + "contextlib.py",
)


# Both entry points run with Dynamo off: called in a compiled region, Dynamo graph-breaks
# once at the call, as at torch's allow_in_graph, and compiles no frame of the guard.
@torch.compiler.disable
def allow_in_graph(fn: Any) -> Any:
    """Drop-in for ``torch.compiler.allow_in_graph`` that checks the contract in strict mode.

    ``off``: exactly torch's. ``warn`` / ``raise``: ``fn`` itself is registered with
    Dynamo as torch would register it (so a call form whose result is discarded works,
    and so does re-allowing after ``disallow_in_graph``), what was registered and what it
    captures are checked now, and for a plain Python function a guarded wrapper (also
    registered) is returned, which checks each call while it is traced. Callables the
    guard cannot or need not wrap (torch ops, builtins, classes, callable instances, and
    coroutine and generator functions, whose kind a wrapper would hide from ``inspect``)
    are returned as torch returns them. Lists and tuples register each element and return a
    list, like torch. ``registry.lookup(fn).checks`` says which checks run for ``fn``.
    """
    return _allow(fn, as_torch=False)


@torch.compiler.disable
def installed_allow_in_graph(fn: Any) -> Any:
    """What :func:`install` puts in the place of torch's ``allow_in_graph``: :func:`allow_in_graph`,
    except that code written for torch gets torch's result wherever a wrapper would differ
    from it where a program can tell.

    A call form on a function its module binds under its qualified name
    (``fast = torch.compiler.allow_in_graph(helper)``) returns the function itself, as
    torch does: a wrapper in its place would not pickle (pickle saves a function as its
    module and name, and refuses an object the module does not bind there) and would not
    be ``helper``. Like a call form whose result is discarded, such a registration is
    checked when it is made and by ``backend="aigcheck"``. The decorator form returns the
    guarded wrapper, which the module then binds under the function's name, so it pickles.
    """
    return _allow(fn, as_torch=True)


def _allow(fn: Any, as_torch: bool) -> Any:
    """:func:`allow_in_graph`; ``as_torch``: as :func:`installed_allow_in_graph` returns."""
    if isinstance(fn, (list, tuple)):
        return [_allow(item, as_torch) for item in fn]
    mode = get_strict()
    if mode is Strict.OFF:
        return _dynamo_allow_in_graph(fn)
    return _register_now(fn, mode, _caller(), as_torch)


def _caller() -> types.FrameType | None:
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame = frame.f_back  # type: ignore[assignment]
    return frame


def _name(fn: object) -> str:
    name = contained.attribute(fn, "__qualname__") or contained.attribute(fn, "__name__")
    return name if isinstance(name, str) else f"<{contained.type_name(type(fn))} instance>"


def _untouched(fn: object) -> bool:
    """Callables torch already puts in the graph, or that have no Python body to check."""
    if isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType, types.MethodWrapperType)):
        return True
    if isinstance(fn, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return True
    module = contained.attribute(fn, "__module__")
    return isinstance(fn, types.FunctionType) and isinstance(module, str) and module.partition(".")[0] == "torch"


def _register_now(fn: Any, mode: Strict, caller: types.FrameType | None, as_torch: bool) -> Any:
    existing = registry.lookup(fn)
    if existing is not None:
        return _register_again(fn, existing, as_torch)
    if _untouched(fn):
        return _dynamo_allow_in_graph(fn)
    site = f"{caller.f_code.co_filename}:{caller.f_lineno}" if caller is not None else "<unknown>"
    registration = Registration(_name(fn), site, mode, code=None)
    report = _reporter(registration)
    # Asked of the calling frame, so other threads compiling do not count (AIG404).
    python_function = _check(fn, caller, regions.compiled(caller), report)
    registered = _dynamo_allow_in_graph(fn)  # raises as torch raises (a non-callable, a staticmethod)
    if python_function:
        registration.code = fn.__code__
        earlier = _earlier_with_other_values(fn, site)
        if earlier is not None:
            again = DefRegisteredAgain(earlier)
            report(again.code, again.text())
    if not _weakly_referable(fn):
        return registered
    registry.add(registration, fn)
    return _guarded(fn, registration) if python_function and _wrapped(fn, as_torch) else registered


def _reporter(registration: Registration) -> Callable[[str, str], None]:
    def report(code: str, detail: str) -> None:
        violation = Violation(code, registration.name, registration.site, detail)
        registry.report(violation, registration.mode, registration)

    return report


def _register_again(fn: Any, existing: Registration, as_torch: bool) -> Any:
    """A second registration of a function or wrapper the guard has: torch's registration is
    repeated (it may have been undone by ``disallow_in_graph``), the checks are not."""
    registered = _dynamo_allow_in_graph(fn)
    if registered is existing.wrapper or existing.code is None or not _wrapped(fn, as_torch):
        return registered
    return _guarded(fn, existing)


#: Code flags of functions whose calls return a coroutine, generator or async generator.
_SUSPENDABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


def _wrapped(fn: types.FunctionType, as_torch: bool) -> bool:
    """Whether the guard returns a wrapper for the Python function ``fn``.

    Not for a coroutine, generator or async generator function: a plain wrapper would lose
    its kind for ``inspect`` (and for asyncio, pytest and every framework dispatching on
    it), and its calls return an object no graph can hold, so there is nothing to check per
    call. Not, under :func:`install`, for a function its module binds under its name.
    """
    if fn.__code__.co_flags & _SUSPENDABLE:
        return False
    return not (as_torch and _bound_by_its_module(fn))


def _bound_by_its_module(fn: types.FunctionType) -> bool:
    """Whether pickle finds ``fn`` itself under its module and qualified name (read from the
    module's and classes' namespaces, so no user ``__getattr__`` runs)."""
    try:
        owner: object = sys.modules.get(fn.__module__) if isinstance(fn.__module__, str) else None
        for part in fn.__qualname__.split("."):
            if isinstance(owner, types.ModuleType):
                owner = vars(owner).get(part)
            elif isinstance(owner, type):
                owner = type.__dict__["__dict__"].__get__(owner).get(part)
            else:
                return False
    except Exception:  # noqa: BLE001 - a module or class that misbehaves: not found
        return False
    return owner is fn


def _guarded(fn: types.FunctionType, registration: Registration) -> Any:
    """The live wrapper of ``registration``, or a new one (the first registration's was
    discarded, in a call form), registered with Dynamo too."""
    wrapper = registration.wrapper
    if wrapper is None:
        wrapper = make_wrapper(fn, registration)
        registry.attach_wrapper(registration, wrapper)
    return _dynamo_allow_in_graph(wrapper)


def _earlier_with_other_values(fn: types.FunctionType, site: str) -> str | None:
    try:
        return recreated.earlier_with_other_values(fn, site)
    except Exception:  # noqa: BLE001 - a captured value whose own __eq__ fails: not known to differ
        return None


def _check(fn: Any, caller: types.FrameType | None, compiling: bool, report: Callable[[str, str], None]) -> bool:
    """The registration-time checks; whether ``fn`` is a function the guard wraps.

    A check that fails on code of the callable itself (a ``__getattr__`` that raises
    anything, a metaclass property) finds nothing; torch registers such a callable, so the
    guard must not fail on it.
    """
    if compiling:
        compiling_now = RegisteredWhileCompiling()
        report(compiling_now.code, compiling_now.text())
    try:
        found = kinds.judge(fn, caller)
    except Exception:  # noqa: BLE001
        found = []
    for finding in found:
        report(finding.code, finding.detail)
    if isinstance(fn, type) and issubclass(fn, torch.autograd.Function):
        # Dynamo looks an autograd.Function subclass up itself at `Cls.apply` (D0.6), so
        # it is registered as it is; what its forward and backward capture is checked here.
        for method in ("forward", "backward", "setup_context"):
            body = fn.__dict__.get(method)
            target = getattr(body, "__func__", body)
            for capture in captures.judge(target) if callable(target) else ():
                report(capture.code, f"{fn.__qualname__}.{method}: {capture.detail}")
        return False
    if found or captures.code_of(fn) is None:
        return False
    for capture in captures.judge(fn):
        report(capture.code, capture.detail)
    return isinstance(fn, types.FunctionType)


def _weakly_referable(fn: object) -> bool:
    try:
        weakref.ref(fn)
    except TypeError:
        return False
    return True


# -- install / uninstall ------------------------------------------------------------------

_PATCHED = ((torch.compiler, "allow_in_graph"), (torch._dynamo, "allow_in_graph"))
_saved: dict[tuple[object, str], object] = {}


def install() -> None:
    """Route ``torch.compiler.allow_in_graph`` and ``torch._dynamo.allow_in_graph`` through
    :func:`allow_in_graph`, so registrations made by other code are guarded too.

    Registrations made after ``install()`` through those two names are guarded
    (``from torch._dynamo import allow_in_graph`` executed earlier keeps torch's).
    What they return is torch's result wherever a program could tell a wrapper from it
    (see :func:`installed_allow_in_graph`). Calling it twice is harmless.

    Registrations torch already holds (made before, or in ``off`` mode) are checked now
    in ``warn`` and ``raise`` mode, and again by ``set_strict`` to one of those modes:
    their kind and captures, reported with their codes, once each; one
    :class:`~runtime_guard.late.LateGuardWarning` names them, since their calls are not
    guarded. In ``raise`` mode the first violation is raised after all are checked.
    """
    for owner, attribute in _PATCHED:
        if (owner, attribute) not in _saved:
            _saved[(owner, attribute)] = getattr(owner, attribute)
            setattr(owner, attribute, installed_allow_in_graph)
    mode = get_strict()
    if mode is not Strict.OFF:
        _check_earlier(mode, "install()")


def _on_set_strict(mode: Strict) -> None:
    if installed() and mode is not Strict.OFF:
        _check_earlier(mode, f"set_strict({mode.value!r})", stacklevel=4)


on_set_strict(_on_set_strict)


def _check_earlier(mode: Strict, started_by: str, stacklevel: int = 3) -> None:
    """Check, keep and name the registrations torch holds that the guard does not."""
    with registry.deferring() as found:
        adopted = [(fn, _adopt(fn, mode)) for fn in late.earlier_registrations(registry.ids())]
    named = sorted((registration.name, _defined_at(fn)) for fn, registration in adopted if registration is not None)
    if named:
        warnings.warn(late.warning(started_by, named), stacklevel=stacklevel)
    if found and mode is Strict.RAISE and not registry.deferring_now:
        raise deferred_error(found)


def _defined_at(fn: object) -> str:
    code = captures.code_of(fn)
    return f"{code.__code__.co_filename}:{code.__code__.co_firstlineno}" if code is not None else "<unknown>"


def _adopt(fn: object, mode: Strict) -> Registration | None:
    """The registration-time checks of a registration made before the guard started,
    kept in the registry (checks: REGISTRATION, and BACKEND for a Python function)."""
    if registry.lookup(fn) is not None or not _weakly_referable(fn):
        return None
    registration = Registration(_name(fn), f"{_defined_at(fn)} (before the guard started)", mode, code=None)
    if _check(fn, None, False, _reporter(registration)):
        registration.code = fn.__code__  # type: ignore[attr-defined]
    registry.add(registration, fn)  # type: ignore[arg-type]
    return registration


def uninstall() -> None:
    """Restore what :func:`install` replaced; harmless when nothing is installed."""
    for (owner, attribute), original in list(_saved.items()):
        setattr(owner, attribute, original)
        del _saved[(owner, attribute)]


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return bool(_saved)
