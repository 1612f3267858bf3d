"""``torch.compile(model, backend="aigcheck")``: check each graph, then compile it.

For every graph Dynamo hands over (``shared/evidence/dynamo/FINDINGS.md`` section 6):

- each ``call_function`` node whose target is a user function registered with
  ``allow_in_graph`` (through ``runtime_guard`` or torch's own) has its argument and
  result example values judged with :mod:`runtime_guard.values` (AIG101, AIG102,
  AIG201, AIG202);
- a node whose stack trace runs through the body of a function registered with
  ``runtime_guard`` means Dynamo traced that body instead of calling it as one node: an
  ineffective registration at that call (AIG402);
- targets registered without a guard (torch's ``allow_in_graph``, or ``runtime_guard`` in
  ``off`` mode) are swapped for guarded wrappers, so that AOTAutograd's traces run the
  guard's checks (captured tensors AIG301/AIG303, values) while compiling; what such a
  function captures is also judged once, when first seen (AIG301/AIG302);
- the graph is then compiled with Inductor (or ``aot_eager`` / ``eager``), with the
  ``mode`` and ``options`` given to ``torch.compile``.

Graph breaks are not attributed to functions: Dynamo's ``counters["graph_break"]`` give
the reasons, and each report lists the breaks counted since the previous graph.
Violations follow the strict mode of the registration (``warn`` for functions the
backend guards itself, unless ``strict`` says otherwise) and are recorded in the
registry. :func:`reports` and :func:`last_report` return what each graph looked like.
"""

from __future__ import annotations

import collections
import re
import types
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx

from runtime_guard import captures
from runtime_guard.errors import Violation
from runtime_guard.modes import Strict, get_strict, parse
from runtime_guard.registry import Registration, registry
from runtime_guard.values import check_call, check_result
from runtime_guard.wrapper import make_wrapper, positional_names

#: The compilers the backend can hand a checked graph to.
COMPILERS = ("inductor", "aot_eager", "eager")


@dataclass(frozen=True)
class RegisteredCall:
    """One graph node that calls a registered function."""

    function: str
    node: str
    #: ``"runtime_guard"`` (a guarded wrapper), ``"swapped"`` (registered without a guard;
    #: the backend put a guarded wrapper in its place) or ``"torch"`` (left as it was).
    guard: str


@dataclass(frozen=True)
class GraphBreak:
    reason: str
    count: int


@dataclass(frozen=True)
class GraphReport:
    """What the backend saw in one graph."""

    index: int
    compiler: str
    nodes: int
    calls: tuple[RegisteredCall, ...]
    #: Functions registered with runtime_guard whose body Dynamo traced instead (AIG402).
    traced_bodies: tuple[str, ...]
    #: Graph breaks counted by Dynamo since the previous graph (not attributed to functions).
    graph_breaks: tuple[GraphBreak, ...]
    #: Violations recorded from the previous graph's end to this graph's compiled end.
    violations: tuple[Violation, ...]


_reports: list[GraphReport] = []
_breaks_seen: collections.Counter[str] = collections.Counter()
_violations_seen = 0
#: Guarded wrappers the backend made for functions registered without a guard.
_adhoc: weakref.WeakKeyDictionary[Callable[..., Any], tuple[Registration, Callable[..., Any]]] = (
    weakref.WeakKeyDictionary()
)


def reports() -> list[GraphReport]:
    """Every graph report since the last :func:`clear_reports`, oldest first."""
    return list(_reports)


def last_report() -> GraphReport | None:
    return _reports[-1] if _reports else None


def clear_reports() -> None:
    global _violations_seen
    _reports.clear()
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


def _adhoc_guard(fn: Callable[..., Any], mode: Strict) -> tuple[Registration, Callable[..., Any]]:
    """A guarded wrapper for ``fn`` (registered without one), made once per function."""
    found = _adhoc.get(fn)
    if found is not None:
        return found
    code = fn.__code__
    name = getattr(fn, "__qualname__", None) or code.co_name
    site = f"{code.co_filename}:{code.co_firstlineno} (registered without a guard)"
    registration = Registration(name, site, mode, code=code, captured=captures.snapshot(fn))
    for capture in captures.judge(fn):
        registry.report(Violation(capture.code, name, site, capture.detail), mode)
    wrapper = make_wrapper(fn, registration)
    torch._dynamo.decorators.allow_in_graph(wrapper)
    _adhoc[fn] = (registration, wrapper)
    return registration, wrapper


def _example(value: Any) -> Any:
    return torch.fx.node.map_aggregate(
        value, lambda a: a.meta.get("example_value", a) if isinstance(a, torch.fx.Node) else a
    )


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def _bodies() -> list[tuple[Registration, str, str, range]]:
    """(registration, file, name, lines) of every live runtime_guard registration with code."""
    out = []
    for entry in registry:
        code = entry.code
        if code is None or entry.wrapper is None:
            continue
        lines = [line for _, _, line in code.co_lines() if line is not None] or [code.co_firstlineno]
        out.append((entry, code.co_filename, code.co_name, range(code.co_firstlineno, max(lines) + 1)))
    return out


def _traced_bodies(gm: torch.fx.GraphModule) -> list[tuple[Registration, str, int]]:
    """Registrations whose body produced nodes of ``gm``: (registration, node name, line)."""
    bodies = _bodies()
    if not bodies:
        return []
    found: dict[int, tuple[Registration, str, int]] = {}
    for node in gm.graph.nodes:
        trace = node.meta.get("stack_trace") or ""
        for match in _FRAME.finditer(trace):
            line = int(match["line"])
            for entry, file, name, lines in bodies:
                if match["file"] == file and match["name"] == name and line in lines and id(entry) not in found:
                    found[id(entry)] = (entry, node.name, line)
    return list(found.values())


_NON_TENSOR = re.compile(
    r"torch\.\* op returned non-Tensor.*?example_value type: (?P<type>\w+); op: call_function; "
    r"target: <function (?P<name>\S+) at (?P<id>0x[0-9a-f]+)>",
    re.DOTALL,
)


def _check_breaks(reasons: collections.Counter[str], mode: Strict) -> None:
    """AIG201 for a registered function whose call graph-broke on its result type.

    Dynamo's reason names the target by ``<function NAME at 0xID>``; ``0xID`` is
    ``id(target)``, so only targets still registered with Dynamo are reported.
    """
    for reason in reasons:
        match = _NON_TENSOR.search(reason)
        if match is None or int(match["id"], 16) not in torch._dynamo.trace_rules._allowed_callable_ids:
            continue
        target_id = int(match["id"], 16)
        entry = next((e for e in registry if id(e.wrapper) == target_id or id(e._function) == target_id), None)
        if entry is not None:
            continue  # a guarded wrapper checks its own result (AIG201) while Dynamo calls it
        name, site = match["name"], "(registered without a guard)"
        registry.report(
            Violation(
                "AIG201",
                name,
                site,
                f"the return value is a {match['type']}; Dynamo graph-broke at the call ('torch.* op returned "
                "non-Tensor') and traced the body instead; return tensors, or tuples and lists of tensors",
            ),
            mode,
        )


def _mode(mode: Strict | None) -> Strict:
    if mode is not None:
        return mode
    current = get_strict()
    return Strict.WARN if current is Strict.OFF else current


def check_graph(gm: torch.fx.GraphModule, mode: Strict | None = None) -> tuple[list[RegisteredCall], list[str]]:
    """Check every registered call in ``gm`` and swap in guarded wrappers (recompiling ``gm``).

    ``mode`` applies to functions registered without a guard; ``None`` means the strict
    mode in force, or ``warn`` when it is ``off``. Returns the calls found and the names
    of functions whose body was traced instead.
    """
    mode = _mode(mode)
    calls: list[RegisteredCall] = []
    swapped = False
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        target = node.target
        entry = registry.lookup(target)
        if entry is not None and entry.wrapper is not None:
            wrapper = entry.wrapper
            function = entry.function
            if target is wrapper:
                guard = "runtime_guard"
            else:
                node.target, guard, swapped = wrapper, "swapped", True
        elif _user_function(target):
            entry, wrapper = _adhoc_guard(target, mode)
            function = target
            node.target, guard, swapped = wrapper, "swapped", True
        else:
            continue
        names = positional_names(function) if function is not None else ()
        findings = list(check_call(names, tuple(_example(node.args)), dict(_example(node.kwargs))))
        if "example_value" in node.meta:
            findings += check_result(node.meta["example_value"])
        for finding in findings:
            registry.report(Violation(finding.code, entry.name, entry.site, finding.detail), entry.mode)
        calls.append(RegisteredCall(entry.name, node.name, guard))
    traced = []
    for entry, node_name, line in _traced_bodies(gm):
        traced.append(entry.name)
        registry.report(
            Violation(
                "AIG402",
                entry.name,
                entry.site,
                f"Dynamo traced the body into the graph instead of calling it as one node (node '{node_name}' "
                f"comes from line {line}); the registration is not honoured at this call, so the function is not "
                "opaque; see the graph breaks in runtime_guard.backend.last_report() for the reason",
            ),
            entry.mode,
        )
    if swapped:
        gm.recompile()
    return calls, traced


def _compile(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], compiler: str, patches: dict[str, Any]) -> Any:
    if compiler == "eager":
        return gm.forward
    if compiler == "aot_eager":
        from torch._dynamo.backends.registry import lookup_backend

        return lookup_backend("aot_eager")(gm, example_inputs)
    from torch._inductor.compile_fx import compile_fx

    return compile_fx(gm, example_inputs, config_patches=patches or None)


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
    ``strict`` is the mode for functions registered without a guard; ``compiler`` is
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
        global _violations_seen
        breaks_now = collections.Counter(torch._dynamo.utils.counters["graph_break"])
        new_breaks = breaks_now - _breaks_seen if _breaks_seen <= breaks_now else breaks_now
        _breaks_seen.clear()
        _breaks_seen.update(breaks_now)
        if len(registry.violations()) < _violations_seen:  # cleared since
            _violations_seen = 0
        start = _violations_seen
        calls: list[RegisteredCall] = []
        traced: list[str] = []
        try:
            _check_breaks(new_breaks, _mode(adhoc_mode))
            calls, traced = check_graph(gm, adhoc_mode)
            return _compile(gm, example_inputs, compiler, patches)
        finally:
            found = registry.violations()
            _violations_seen = len(found)
            _reports.append(
                GraphReport(
                    index=len(_reports),
                    compiler=compiler,
                    nodes=len(gm.graph.nodes),
                    calls=tuple(calls),
                    traced_bodies=tuple(traced),
                    graph_breaks=tuple(GraphBreak(reason, count) for reason, count in new_breaks.items()),
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
