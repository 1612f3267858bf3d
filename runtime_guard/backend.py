"""``torch.compile(model, backend="aigcheck")``: check each graph, then compile it.

For every graph Dynamo hands over (``evidence/dynamo/FINDINGS.md`` section S6):

- each ``call_function`` node whose target is a user function registered with
  ``allow_in_graph`` (through ``runtime_guard`` or torch's own) has its argument and
  result example values judged with :mod:`runtime_guard.values` (AIG101, AIG102,
  AIG201, AIG202);
- nodes whose stack trace runs through the body of a registered function mean Dynamo did
  not call it as one node but traced its body, after a graph break at the call: the
  registration is lost there (AIG402), and the report quotes Dynamo's reason;
- targets that are the registered function itself (a call-form registration, torch's own
  ``allow_in_graph``) are swapped for guarded wrappers, so that AOTAutograd's traces run
  the guard's checks (captured tensors AIG301/AIG303, values) while compiling; what such
  a function captures is judged once per graph (AIG301/AIG302);
- the graph is then compiled with Inductor (or ``aot_eager`` / ``eager``), with the
  ``mode`` and ``options`` given to ``torch.compile``.

Violations follow the strict mode of the registration (``warn`` for functions registered
without the guard, unless ``strict`` says otherwise) and are recorded in the registry.
:func:`reports` returns a report per graph (see :mod:`runtime_guard.reports`).
"""

from __future__ import annotations

import collections
import re
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch._guards
import torch.fx

# Imported with the backend, as torch.compile(backend="inductor") imports Inductor when it is
# called: a first compile with either backend then pays the same, not the import of Inductor.
from torch._inductor.compile_fx import compile_fx

from checker.spec.messages import BodyTraced, GraphBrokeOnResult
from runtime_guard import captures
from runtime_guard import reports as report_store
from runtime_guard.errors import ContractViolation, Violation
from runtime_guard.modes import Strict, get_strict, parse
from runtime_guard.registry import Registration, registry
from runtime_guard.reports import GraphBreak, GraphReport, Guard, RegisteredCall, last_report, reports
from runtime_guard.surfacing import through_backend
from runtime_guard.values import check_call, check_result
from runtime_guard.wrapper import make_wrapper, positional_names

__all__ = ["aigcheck", "aigcheck_backend", "check_graph", "clear_reports", "last_report", "reports"]

#: The compilers the backend can hand a checked graph to.
COMPILERS = ("inductor", "aot_eager", "eager")

_breaks_seen: collections.Counter[str] = collections.Counter()
_violations_seen = 0


def clear_reports() -> None:
    """Forget every graph report, and count graph breaks and violations from now on."""
    global _violations_seen
    report_store.clear()
    _breaks_seen.clear()
    _breaks_seen.update(torch._dynamo.utils.counters["graph_break"])
    _violations_seen = len(registry.violations())


def _user_function(target: object) -> bool:
    """A plain Python function from user code that Dynamo was told to allow in the graph."""
    if not isinstance(target, types.FunctionType):
        return False
    module = getattr(target, "__module__", None) or ""
    if module == "torch" or module.startswith("torch."):
        return False
    return torch._dynamo.trace_rules.is_callable_allowed(target)


def _mode(mode: Strict | None) -> Strict:
    if mode is not None:
        return mode
    current = get_strict()
    return Strict.WARN if current is Strict.OFF else current


@dataclass(frozen=True)
class _Body:
    """A registered function's code, to recognise its lines in a node's stack trace."""

    registration: Registration
    file: str
    name: str
    lines: range


def _body(registration: Registration, code: types.CodeType) -> _Body:
    lines = [line for _, _, line in code.co_lines() if line is not None] or [code.co_firstlineno]
    return _Body(registration, code.co_filename, code.co_name, range(code.co_firstlineno, max(lines) + 1))


class _Checker:
    """The state of checking one graph: the mode for unguarded functions, and the
    registrations made up for them (one per function per graph)."""

    def __init__(self, mode: Strict) -> None:
        self.mode = mode
        self._made: dict[int, Registration] = {}
        self._modules: dict[str, types.ModuleType] | None = None

    def registration_of(self, fn: types.FunctionType) -> Registration:
        """The registry's entry for ``fn``, or one made up for a function torch registered."""
        entry = registry.lookup(fn)
        if entry is not None:
            return entry
        made = self._made.get(id(fn))
        if made is None:
            code = fn.__code__
            site = f"{code.co_filename}:{code.co_firstlineno} (registered without the guard)"
            made = Registration(getattr(fn, "__qualname__", code.co_name), site, self.mode, code=code)
            for capture in captures.judge(fn):
                registry.report(Violation(capture.code, made.name, site, capture.detail), self.mode)
            self._made[id(fn)] = made
        return made

    def bodies(self) -> list[_Body]:
        """The bodies of every live registration the guard knows."""
        return [_body(entry, entry.code) for entry in registry if entry.code is not None]

    def unguarded_body(self, file: str, name: str, line: int) -> _Body | None:
        """The body of a module-level function at ``file`` named ``name`` that torch registered."""
        if self._modules is None:
            self._modules = {getattr(m, "__file__", None) or "": m for m in list(sys.modules.values())}
        module = self._modules.get(file)
        fn = getattr(module, name, None) if module is not None else None
        if not isinstance(fn, types.FunctionType) or not _user_function(fn) or fn.__code__.co_filename != file:
            return None
        body = _body(self.registration_of(fn), fn.__code__)
        return body if line in body.lines else None


def _example(value: Any) -> Any:
    return torch.fx.node.map_aggregate(
        value, lambda a: a.meta.get("example_value", a) if isinstance(a, torch.fx.Node) else a
    )


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def _frames(node: torch.fx.Node) -> Iterator[tuple[str, int, str]]:
    for match in _FRAME.finditer(node.meta.get("stack_trace") or ""):
        yield match["file"], int(match["line"]), match["name"]


def _traced_bodies(gm: torch.fx.GraphModule, checker: _Checker) -> list[tuple[Registration, str, int]]:
    """Registrations whose body produced nodes of ``gm``: (registration, node name, line)."""
    bodies = checker.bodies()
    torch_dir = torch.__file__.rpartition("/")[0]
    found: dict[int, tuple[Registration, str, int]] = {}
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module"):
            continue  # a placeholder's stack trace is where the input was first used
        for file, line, name in _frames(node):
            if file.startswith(torch_dir):
                continue
            body = next((b for b in bodies if b.file == file and b.name == name and line in b.lines), None)
            body = body or checker.unguarded_body(file, name, line)
            if body is not None and id(body.registration) not in found:
                found[id(body.registration)] = (body.registration, node.name, line)
    return list(found.values())


_NON_TENSOR = re.compile(
    r"torch\.\* op returned non-Tensor.*?example_value type: (?P<type>\w+); op: call_function; "
    r"target: <function (?P<name>\S+) at (?P<id>0x[0-9a-f]+)>",
    re.DOTALL,
)


def _check_breaks(reasons: collections.Counter[str], mode: Strict) -> None:
    """AIG201 for a function torch registered whose call graph-broke on its result type.

    Dynamo's reason names the target by ``<function NAME at 0xID>``; ``0xID`` is
    ``id(target)``, so only targets still registered with Dynamo are reported. A guarded
    wrapper checks its own result while Dynamo calls it.
    """
    for reason in reasons:
        match = _NON_TENSOR.search(reason)
        if match is None or int(match["id"], 16) not in torch._dynamo.trace_rules._allowed_callable_ids:
            continue
        if any(id(e.wrapper) == int(match["id"], 16) for e in registry):
            continue
        registry.report(
            Violation(
                "AIG201",
                match["name"],
                "(registered without the guard)",
                GraphBrokeOnResult(match["type"]).text(),
            ),
            mode,
        )


@dataclass(frozen=True)
class GraphCheck:
    """What :func:`check_graph` found in one graph."""

    calls: tuple[RegisteredCall, ...]
    #: Names of registered functions whose body Dynamo traced into the graph.
    traced: tuple[str, ...]


def check_graph(gm: torch.fx.GraphModule, mode: Strict | None = None, breaks: Sequence[GraphBreak] = ()) -> GraphCheck:
    """Check every registered call in ``gm`` and swap in guarded wrappers (recompiling ``gm``).

    ``mode`` applies to functions registered without the guard; ``None`` means the strict
    mode in force, or ``warn`` when it is ``off``. ``breaks`` are Dynamo's most recent
    graph breaks, quoted when a registered function's body shows up in ``gm`` (AIG402).
    """
    checker = _Checker(_mode(mode))
    calls: list[RegisteredCall] = []
    swapped = False
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        target = node.target
        entry = registry.lookup(target)
        if entry is not None and target is entry.wrapper:
            guard, function = Guard.WRAPPER, entry.function
        elif isinstance(target, types.FunctionType) and (entry is not None or _user_function(target)):
            entry, function = checker.registration_of(target), target
            node.target, guard, swapped = make_wrapper(target, entry), Guard.SWAPPED, True
        else:
            continue
        names = positional_names(function) if function is not None else ()
        findings = list(check_call(names, tuple(_example(node.args)), dict(_example(node.kwargs))))
        if "example_value" in node.meta:
            findings += check_result(node.meta["example_value"])
        for finding in findings:
            registry.report(Violation(finding.code, entry.name, entry.site, finding.detail), entry.mode)
        calls.append(RegisteredCall(entry.name, node.name, guard))
    reason = "; ".join(b.summary for b in breaks) or "no graph break was counted just before this graph"
    traced = []
    for entry, node_name, line in _traced_bodies(gm, checker):
        traced.append(entry.name)
        registry.report(
            Violation(
                "AIG402",
                entry.name,
                entry.site,
                BodyTraced(node_name, line, reason).text(),
            ),
            entry.mode,
        )
    if swapped:
        gm.recompile()
    return GraphCheck(tuple(calls), tuple(traced))


def _compile(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], compiler: str, patches: dict[str, Any]) -> Any:
    if compiler == "eager":
        return gm.forward
    if compiler == "aot_eager":
        from torch._dynamo.backends.registry import lookup_backend

        # torch's CompilerFn says list[Tensor]; Dynamo's example inputs (SymInts among them) go on as given.
        return lookup_backend("aot_eager")(gm, example_inputs)  # type: ignore[arg-type]
    return compile_fx(gm, example_inputs, config_patches=patches or None)


def _compile_id() -> str:
    found = torch._guards.CompileContext.current_compile_id()
    return str(found) if found is not None else "?"


_last_breaks: tuple[GraphBreak, ...] = ()


def _new_breaks() -> tuple[GraphBreak, ...]:
    """Graph breaks counted since the previous graph."""
    now = collections.Counter(torch._dynamo.utils.counters["graph_break"])
    new = now - _breaks_seen if _breaks_seen <= now else now  # counters were cleared since
    _breaks_seen.clear()
    _breaks_seen.update(now)
    return tuple(GraphBreak(reason, count) for reason, count in new.items())


def aigcheck_backend(
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    dynamic: bool | None = None,
    *,
    strict: str | Strict | None = None,
    compiler: str = "inductor",
) -> Callable[..., Any]:
    """A configured ``aigcheck`` backend: ``torch.compile(m, backend=aigcheck_backend(mode="max-autotune"))``.

    ``mode``, ``options`` and ``dynamic`` mean what they mean to ``torch.compile`` with
    Inductor (``dynamic`` only picks the mode's options; pass it to ``torch.compile`` too).
    ``strict`` is the mode for functions registered without the guard; ``compiler`` is
    ``"inductor"`` (default), ``"aot_eager"`` or ``"eager"``.
    """
    if compiler not in COMPILERS:
        raise ValueError(f"aigcheck: unknown compiler {compiler!r}; expected one of {', '.join(COMPILERS)}")
    adhoc_mode = parse(strict, source="aigcheck") if strict is not None else None
    patches: dict[str, Any] = {}
    if compiler == "inductor":
        if mode and mode != "default":
            from torch._inductor import list_mode_options

            patches.update(list_mode_options(mode, dynamic))
        patches.update(options or {})
    elif mode or options:
        raise ValueError(f"aigcheck: mode and options apply to Inductor only, not to compiler={compiler!r}")

    def backend(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
        global _violations_seen, _last_breaks
        breaks = _new_breaks()
        # A graph break at a registered call shows up in the graph after it (the body's
        # frame, or the resume function): quote the breaks counted with the previous graph too.
        recent = breaks or _last_breaks
        _last_breaks = breaks
        if len(registry.violations()) < _violations_seen:  # cleared since
            _violations_seen = 0
        start = _violations_seen
        checked = GraphCheck((), ())
        try:
            _check_breaks(collections.Counter({b.reason: b.count for b in breaks}), _mode(adhoc_mode))
            checked = check_graph(gm, adhoc_mode, recent)
            return _compile(gm, example_inputs, compiler, patches)
        except ContractViolation as error:
            raise through_backend(error) from error.__cause__  # not BackendCompilerFailed (D18)
        finally:
            found = registry.violations()
            _violations_seen = len(found)
            report_store.add(
                GraphReport(
                    index=report_store.count(),
                    compile_id=_compile_id(),
                    compiler=compiler,
                    nodes=len(gm.graph.nodes),
                    calls=checked.calls,
                    traced_bodies=checked.traced,
                    graph_breaks=breaks,
                    violations=tuple(found[start:]),
                )
            )

    backend.__name__ = "aigcheck"
    return backend


def aigcheck(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], **kwargs: Any) -> Any:
    """The ``aigcheck`` Dynamo backend (entry point ``torch_dynamo_backends``).

    ``torch.compile(m, backend="aigcheck", mode=..., options=...)`` passes ``mode`` and
    ``options`` here as keyword arguments; they go to Inductor.
    """
    return aigcheck_backend(**kwargs)(gm, example_inputs)
