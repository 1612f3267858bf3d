"""``check_allow_in_graph(fn, *args)``: an opcheck-style self test of one registration.

Compiles ``lambda *a: fn(*a)`` with each backend under ``fullgraph=True`` (and Inductor
with ``dynamic=True``), and checks for each: one graph holding ``fn`` as one node, the
uncompiled results and gradients, the same results on a second call with other input
values (a baked scalar or a frozen capture shows up there), and no guard violation.

Each run compiles a caller with a code object of its own: Dynamo keeps what it compiled
on the code object, so each run starts afresh without ``torch._dynamo.reset()``, which
would throw away everything else the process compiled.
"""

from __future__ import annotations

import re
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import torch
import torch._dynamo
import torch._dynamo.testing
import torch.utils._pytree as pytree

from checker.spec.catalog import BY_CODE
from runtime_guard import captures, contained, kinds
from runtime_guard.api import allow_in_graph
from runtime_guard.errors import ContractViolation, Violation
from runtime_guard.modes import strict
from runtime_guard.probe import probes
from runtime_guard.registry import registry
from runtime_guard.values import check_call, check_result
from runtime_guard.wrapper import positional_names

#: (backend, dynamic) pairs compiled by default.
DEFAULT_RUNS = (("eager", False), ("aot_eager", False), ("inductor", False), ("inductor", True))


@dataclass(frozen=True)
class Failure:
    #: The AIG code when the failure is a known contract violation, else ``None``.
    code: str | None
    message: str


@dataclass(frozen=True)
class BackendResult:
    backend: str
    dynamic: bool
    graphs: int
    nodes: int
    failures: tuple[Failure, ...]

    @property
    def ok(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class SelfTestReport:
    function: str
    #: Violations found when the function was registered for the test.
    registration: tuple[Failure, ...]
    results: tuple[BackendResult, ...]

    @property
    def failures(self) -> tuple[Failure, ...]:
        return self.registration + tuple(f for r in self.results for f in r.failures)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.code for f in self.failures if f.code is not None))


class SelfTestError(ContractViolation):
    """Raised by :func:`check_allow_in_graph`: ``.report`` has every failure, ``.codes``
    their codes; ``.code`` is the first code (``None`` when no failure has one)."""

    def __init__(self, report: SelfTestReport) -> None:
        lines = [f"check_allow_in_graph({report.function}) failed:"]
        for failure in report.registration:
            lines.append(f"  at registration: {failure.code}: {failure.message}")
        for result in report.results:
            for failure in result.failures:
                where = f"{result.backend}{', dynamic' if result.dynamic else ''}"
                lines.append(f"  {where}: {failure.code or 'failed'}: {failure.message}")
        Exception.__init__(self, "\n".join(lines))
        self.report = report
        self.codes = report.codes
        self.code = report.codes[0] if report.codes else None  # type: ignore[assignment]
        self.function = report.function
        self.site = ""
        self.detail = "\n".join(lines[1:])
        self.violation = next(  # type: ignore[assignment]
            (Violation(f.code, report.function, "", f.message) for f in report.failures if f.code is not None), None
        )

    def __reduce__(self) -> tuple[type[SelfTestError], tuple[SelfTestReport]]:  # type: ignore[override]
        return (type(self), (self.report,))


def _fresh(fn: types.FunctionType) -> types.FunctionType:
    """``fn`` with a code object of its own, which Dynamo has compiled nothing for."""
    return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _fail(violations: list[Violation]) -> list[Failure]:
    return [Failure(v.code, v.message) for v in violations]


def _clone(tree: Any, perturb: bool = False) -> Any:
    def one(value: Any) -> Any:
        if not isinstance(value, torch.Tensor):
            return value
        copy = value.detach().clone()
        if perturb and copy.is_floating_point():
            copy = copy * 0.5 + 0.25
        return copy.requires_grad_(value.requires_grad)

    return pytree.tree_map(one, tree)


def _run(call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Any]]:
    """Outputs, and the gradients of the inputs that require grad (of the sum of the outputs)."""
    out = call(*args, **kwargs)
    leaves = [t for t in pytree.tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor) and t.requires_grad]
    outs = [t for t in pytree.tree_leaves(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    grads: list[Any] = []
    if leaves and outs:
        total = cast(torch.Tensor, sum(t.float().sum() for t in outs))  # outs is not empty: never the 0 start
        grads = list(torch.autograd.grad(total, leaves, allow_unused=True))
    detached = pytree.tree_map(lambda t: t.detach() if isinstance(t, torch.Tensor) else t, out)
    return detached, grads


def _compare(what: str, actual: Any, expected: Any, failures: list[Failure]) -> None:
    try:
        torch.testing.assert_close(actual, expected, equal_nan=True)
    except (AssertionError, TypeError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        failures.append(Failure(None, f"{what} differ from the uncompiled call: {first}"))


_CODE = re.compile(r"\b(AIG\d{3})\b")


def _code_of(error: BaseException) -> str | None:
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ContractViolation):
            return seen.code
        seen = seen.__cause__ or seen.__context__
    match = _CODE.search(str(error))
    return match[1] if match and match[1] in BY_CODE else None


def _probe(
    function: Callable[..., Any], compiled: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[Failure]:
    """Change each Python number ``function`` reads, call again, compare compiled with uncompiled
    (:mod:`runtime_guard.probe`); a compiled call that ignores the change froze it: AIG302."""
    failures: list[Failure] = []
    for probe in probes(function):
        original = probe.read()
        try:
            probe.write(probe.changed())
            expected = _run(function, _clone(args), _clone(kwargs))
            actual = _run(compiled, _clone(args), _clone(kwargs))
        except Exception:  # noqa: BLE001 - the probe value itself may be invalid for the body
            continue
        finally:
            probe.write(original)
        stale: list[Failure] = []
        _compare(f"results after changing {probe.label}", actual[0], expected[0], stale)
        if stale:
            failures.append(
                Failure(
                    "AIG302",
                    f"the compiled call kept the value of {probe.label} read at compile time ({stale[0].message}); "
                    f"pass it as an argument",
                )
            )
    return failures


def _raised(what: str, error: BaseException, codes: tuple[str, ...] = ()) -> Failure:
    """A failure for an exception: its contract code if it carries one, else the first code
    the arguments or the result already broke (why torch could not compile the call)."""
    lines = str(error).strip().splitlines()
    code = _code_of(error) or (codes[0] if codes else None)
    return Failure(code, f"{what} raised {type(error).__name__}: {lines[0] if lines else ''}")


def _user_function(fn: Callable[..., Any], target: Callable[..., Any]) -> Callable[..., Any]:
    """The function the user registered, whether ``fn`` is it or the guard's wrapper of it:
    the self test judges and probes that function, never the wrapper, whose own reads
    (``registration.calls_checked``) are the guard's bookkeeping."""
    for candidate in (target, fn):
        entry = registry.lookup(candidate)
        if entry is not None and entry.function is not None:
            return entry.function
    return fn


def _registration_failures(fn: Callable[..., Any]) -> list[Failure]:
    """What the registration-time checks say about ``fn``, fresh for this report."""
    found = [Failure(k.code, k.detail) for k in kinds.judge(fn, None)]
    if not found:
        found += [Failure(c.code, c.detail) for c in captures.judge(fn)]
    return found


def check_allow_in_graph(
    fn: Callable[..., Any],
    *args: Any,
    runs: tuple[tuple[str, bool], ...] = DEFAULT_RUNS,
    export: bool = False,
    **kwargs: Any,
) -> SelfTestReport:
    """Compile ``fn(*args, **kwargs)`` with eager, aot_eager and inductor (``fullgraph=True``;
    inductor also with ``dynamic=True``) and check the registration holds.

    ``fn`` is registered for the test (strict ``warn``) unless the guard already has it.
    After each compiled run, every Python number ``fn`` reads (closure cells, globals,
    attributes of captured modules and objects; UPPER_CASE constants only when something
    rebinds them) is changed for one more call: a compiled call that ignores the change
    froze it at compile time (AIG302).

    Nothing ``fn`` or torch raises escapes: a reference call that raises, or a call torch
    cannot compile, is a failure of the report, with the contract's code where one applies
    (an argument torch cannot proxy is AIG101, a result it graph-breaks on AIG201).
    Returns a :class:`SelfTestReport`; raises :class:`SelfTestError` (a
    :class:`ContractViolation`) listing every failure when anything fails.
    """
    entry = registry.lookup(fn)
    before = len(registry.violations())
    with strict("warn"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        target = entry.wrapper if entry is not None and entry.wrapper is not None else allow_in_graph(fn)
    function = _user_function(fn, target)
    qualname = contained.attribute(function, "__qualname__")
    name = qualname if isinstance(qualname, str) and qualname else contained.text(function)
    # Registered now: what the registration reported. Registered before: judged afresh
    # (the registry reports each violation once, and may have been cleared since).
    recorded = registry.violations()[before:] if entry is None else []
    registration = tuple(_fail(recorded) if entry is None else _registration_failures(function))
    # What the contract says about these very values, before torch is asked anything.
    value_codes = tuple(f.code for f in check_call(positional_names(function), args, kwargs))

    def call(*a: Any, **k: Any) -> Any:
        return target(*a, **k)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = _run(function, _clone(args), _clone(kwargs))
            expected_again = _run(function, _clone(args, True), _clone(kwargs, True))
    except Exception as error:  # noqa: BLE001 - reported, never raised
        failure = _raised("the reference (uncompiled) call", error, value_codes)
        report = SelfTestReport(name, registration, (BackendResult("uncompiled", False, 0, 0, (failure,)),))
        raise SelfTestError(report) from None
    result_codes = tuple(f.code for f in check_result(expected[0]))
    codes = value_codes + result_codes
    results: list[BackendResult] = []
    for backend, dynamic in runs:
        failures: list[Failure] = []
        counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
        start = len(registry.violations())
        nodes = 0
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = torch.compile(
                    _fresh(cast(types.FunctionType, call)), backend=counter, fullgraph=True, dynamic=dynamic
                )
                actual = _run(compiled, _clone(args), _clone(kwargs))
                actual_again = _run(compiled, _clone(args, True), _clone(kwargs, True))
            nodes = sum(
                1
                for gm in counter.graphs
                for node in gm.graph.nodes
                if node.op == "call_function" and node.target is target
            )
            if counter.frame_count != 1 or nodes != 1:
                failures.append(
                    Failure(
                        "AIG402",
                        f"expected one graph with {name} as one node; got {counter.frame_count} graph(s) "
                        f"and {nodes} node(s)",
                    )
                )
            _compare("results", actual[0], expected[0], failures)
            _compare("gradients", actual[1], expected[1], failures)
            _compare("results on a second call with other input values", actual_again[0], expected_again[0], failures)
            failures.extend(_probe(function, compiled, args, kwargs))
        except Exception as error:  # noqa: BLE001 - every failure is reported
            failures.append(_raised("torch.compile of the call", error, codes))
        found = registry.violations()
        failures[:0] = _fail(found[start:])
        results.append(BackendResult(backend, dynamic, counter.frame_count, nodes, tuple(failures)))

    if export:
        results.append(_export(target, args, kwargs, expected[0], codes))
    report = SelfTestReport(name, registration, tuple(results))
    if not report.ok:
        raise SelfTestError(report)
    return report


def _export(
    target: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], expected: Any, codes: tuple[str, ...]
) -> BackendResult:
    """``torch.export.export`` of a module calling ``target``, compared with the reference."""
    failures: list[Failure] = []
    start = len(registry.violations())

    class Call(torch.nn.Module):
        def forward(self, *a: Any, **k: Any) -> Any:
            return target(*a, **k)

    Call.forward = _fresh(cast(types.FunctionType, Call.forward))  # type: ignore[method-assign]

    try:
        program = torch.export.export(Call(), _clone(args), _clone(kwargs))
        out = program.module()(*_clone(args), **_clone(kwargs))
        detached = pytree.tree_map(lambda t: t.detach() if isinstance(t, torch.Tensor) else t, out)
        _compare("exported results", detached, expected, failures)
    except Exception as error:  # noqa: BLE001
        failures.append(_raised("torch.export of the call", error, codes))
    failures[:0] = _fail(registry.violations()[start:])
    return BackendResult("export", False, 1, 0, tuple(failures))
