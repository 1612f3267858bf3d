"""``check_allow_in_graph(fn, *args)``: an opcheck-style self test of one registration.

Compiles ``lambda *a: fn(*a)`` with each backend under ``fullgraph=True`` (and Inductor
with ``dynamic=True``), and checks for each: one graph holding ``fn`` as one node, the
uncompiled results and gradients, the same results on a second call with other input
values (a baked scalar or a frozen capture shows up there), and no guard violation.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch._dynamo
import torch._dynamo.testing
import torch.utils._pytree as pytree

from checker.catalog import BY_CODE
from runtime_guard.api import allow_in_graph
from runtime_guard.errors import ContractViolation, Violation
from runtime_guard.modes import strict
from runtime_guard.registry import registry

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
                lines.append(f"  {where}: {failure.code or 'mismatch'}: {failure.message}")
        Exception.__init__(self, "\n".join(lines))
        self.report = report
        self.codes = report.codes
        self.code = report.codes[0] if report.codes else None  # type: ignore[assignment]
        self.function = report.function
        self.site = ""
        self.detail = "\n".join(lines[1:])
        first = next((f for f in report.failures if f.code is not None), None)
        self.violation = Violation(first.code, report.function, "", first.message) if first else None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[type[SelfTestError], tuple[SelfTestReport]]:  # type: ignore[override]
        return (type(self), (self.report,))


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
        total = sum(t.float().sum() for t in outs)
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


def _captured_scalars(function: Callable[..., Any]) -> list[tuple[str, Callable[[], Any], Callable[[Any], None]]]:
    """(name, read, write) for the Python numbers ``function`` reads from globals or closure cells."""
    code = getattr(function, "__code__", None)
    if code is None:
        return []
    found: list[tuple[str, Callable[[], Any], Callable[[Any], None]]] = []
    namespace = getattr(function, "__globals__", {})
    for name in code.co_names:
        # UPPER_CASE names are constants by convention (PEP 8), as the static checker
        # treats never-rebound module constants: changing them would only be noise.
        if isinstance(namespace.get(name), (int, float)) and not name.isupper():
            found.append(
                (f"global '{name}'", lambda n=name: namespace[n], lambda v, n=name: namespace.__setitem__(n, v))
            )
    for name, cell in zip(code.co_freevars, getattr(function, "__closure__", None) or (), strict=False):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, (int, float)):
            found.append(
                (
                    f"closure variable '{name}'",
                    lambda c=cell: c.cell_contents,
                    lambda v, c=cell: setattr(c, "cell_contents", v),
                )
            )
    return found


def _probe_captured_scalars(
    function: Callable[..., Any], compiled: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[Failure]:
    """Change each captured Python number, call again, and compare compiled with uncompiled.

    Dynamo does not guard on what a registered function reads (shared evidence 1b), so a
    compiled call that ignores the change has frozen the value at compile time: AIG302.
    """
    failures: list[Failure] = []
    for label, read, write in _captured_scalars(function):
        original = read()
        changed = (not original) if isinstance(original, bool) else original * 2 + 1
        write(changed)
        try:
            expected = _run(function, _clone(args), _clone(kwargs))
            actual = _run(compiled, _clone(args), _clone(kwargs))
        except Exception:  # noqa: BLE001 - the probe value itself may be invalid for the body
            continue
        finally:
            write(original)
        stale: list[Failure] = []
        _compare(f"results after changing {label}", actual[0], expected[0], stale)
        if stale:
            failures.append(
                Failure(
                    "AIG302",
                    f"the compiled call kept the value of {label} read at compile time ({stale[0].message}); "
                    f"pass it as an argument",
                )
            )
    return failures


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
    After each compiled run, every Python number ``fn`` reads from a global (other than
    an UPPER_CASE constant) or a closure cell is changed for one more call: a compiled
    call that ignores the change has frozen it at compile time (AIG302).

    Returns a :class:`SelfTestReport`; raises :class:`SelfTestError` (a
    :class:`ContractViolation`) listing every failure when anything fails.
    """
    before = len(registry.violations())
    entry = registry.lookup(fn)
    with strict("warn"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            target = entry.wrapper if entry is not None and entry.wrapper is not None else allow_in_graph(fn)
    function = getattr(target, "__wrapped__", fn)
    name = getattr(function, "__qualname__", None) or repr(function)
    found = registry.violations()
    registration = tuple(_fail(found[before:] if len(found) >= before else found))

    expected = _run(function, _clone(args), _clone(kwargs))
    expected_again = _run(function, _clone(args, True), _clone(kwargs, True))
    results: list[BackendResult] = []

    def call(*a: Any, **k: Any) -> Any:
        return target(*a, **k)

    for backend, dynamic in runs:
        torch._dynamo.reset()
        failures: list[Failure] = []
        counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
        start = len(registry.violations())
        nodes = 0
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = torch.compile(call, backend=counter, fullgraph=True, dynamic=dynamic)
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
            failures.extend(_probe_captured_scalars(function, compiled, args, kwargs))
        except Exception as error:  # noqa: BLE001 - every failure is reported
            message = str(error).strip().splitlines()
            failures.append(Failure(_code_of(error), f"{type(error).__name__}: {message[0] if message else ''}"))
        found = registry.violations()
        failures[:0] = _fail(found[start:])
        results.append(BackendResult(backend, dynamic, counter.frame_count, nodes, tuple(failures)))

    if export:
        torch._dynamo.reset()
        failures = []
        start = len(registry.violations())

        class Call(torch.nn.Module):
            def forward(self, *a: Any, **k: Any) -> Any:
                return target(*a, **k)

        try:
            program = torch.export.export(Call(), _clone(args), _clone(kwargs))
            out = program.module()(*_clone(args), **_clone(kwargs))
            _compare(
                "exported results",
                pytree.tree_map(lambda t: t.detach() if isinstance(t, torch.Tensor) else t, out),
                expected[0],
                failures,
            )
        except Exception as error:  # noqa: BLE001
            message = str(error).strip().splitlines()
            failures.append(Failure(_code_of(error), f"{type(error).__name__}: {message[0] if message else ''}"))
        failures[:0] = _fail(registry.violations()[start:])
        results.append(BackendResult("export", False, 1, 0, tuple(failures)))

    torch._dynamo.reset()
    report = SelfTestReport(name, registration, tuple(results))
    if not report.ok:
        raise SelfTestError(report)
    return report
