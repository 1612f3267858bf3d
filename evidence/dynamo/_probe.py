"""Helpers for the D-series experiments (decorator stacks, conflicting markers,
autograd.Function captures, re-created nested defs).  Builds on _harness.py,
which holds the measurement helpers of every experiment.  Nothing here changes torch
behaviour: it compiles, calls, compares with the uncompiled function, and
reads the Dynamo graphs handed to a CompileCounterWithBackend.

"honoured" = some Dynamo graph has a ``call_function`` node whose target is the
registered object or its underlying function (``match`` decides).  For an
``autograd.Function`` class the node target is a ``trampoline_autograd_apply``
closure over the class (torch/_dynamo/variables/misc.py,
``produce_trampoline_autograd_apply``), so ``autograd_target`` checks that.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Callable

import torch
from torch._dynamo import trace_rules
from torch._dynamo.variables.misc import produce_trampoline_autograd_apply
from _harness import BACKENDS, capture, compiled, fmt_warnings, gb_summary, same, short

AIG = torch.compiler.allow_in_graph

Match = Callable[[Any], bool]


def registry_state(obj: Any) -> str:
    """Which Dynamo id-sets hold id(obj): allowed / disallowed / nonstrict / leaf."""
    sets = (
        ("allowed", trace_rules._allowed_callable_ids),
        ("disallowed", trace_rules._disallowed_callable_ids),
        ("nonstrict", trace_rules._nonstrict_trace_callable_ids),
        ("leaf", trace_rules._leaf_function_ids),
    )
    names = [name for name, ids in sets if id(obj) in ids]
    return "+".join(names) or "none"


def target_is(*objs: Any) -> Match:
    return lambda t: any(t is o for o in objs)


def autograd_target(cls: type) -> Match:
    def match(t: Any) -> bool:
        if getattr(t, "_origin", None) is not produce_trampoline_autograd_apply:
            return False
        return any(c.cell_contents is cls for c in (t.__closure__ or ()))

    return match


def _name(t: Any) -> str:
    return getattr(t, "__qualname__", None) or getattr(t, "__name__", None) or str(t)


def describe(cnt) -> list[str]:
    """One entry per Dynamo graph: its inputs, then its call nodes."""
    res = []
    for gm in cnt.graphs:
        ins = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
        calls = [f"{n.op}:{_name(n.target)}" for n in gm.graph.nodes if n.op not in ("placeholder", "output")]
        res.append(f"in={ins} " + " ; ".join(calls))
    return res


def honoured(cnt, match: Match) -> bool:
    return any(n.op == "call_function" and match(n.target) for gm in cnt.graphs for n in gm.graph.nodes)


class _FrameLog(logging.Handler):
    """Keeps Dynamo's frame-level verdicts for user frames: "WON'T CONVERT ..."
    (the whole frame fell back to eager) and "skipping: <fn> (reason: ...)"."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        first = msg.strip().splitlines()[0] if msg.strip() else ""
        if "WON'T CONVERT" in first or (first.startswith("skipping:") and "site-packages" not in first
                                         and "<frozen" not in first and "/lib/python" not in first):
            if first not in self.records:
                self.records.append(first[:220])


@contextlib.contextmanager
def frame_log():
    """Capture DEBUG/INFO records of torch._dynamo.convert_frame without printing them."""
    lg = logging.getLogger("torch._dynamo.convert_frame")
    h = _FrameLog()
    old_level, old_prop = lg.level, lg.propagate
    lg.addHandler(h)
    lg.setLevel(logging.DEBUG)
    lg.propagate = False
    try:
        yield h.records
    finally:
        lg.removeHandler(h)
        lg.setLevel(old_level)
        lg.propagate = old_prop


def _r(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        return str(x.detach().flatten()[:4].tolist())
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_r(v) for v in x) + "]"
    return repr(x)[:60]


def print_diag(cnt, box, flog) -> None:
    for g in describe(cnt):
        print(f"    graph: {g}")
    _, reasons = gb_summary()
    for r in reasons:
        print(f"    GB: {r[:300]}")
    for r in flog:
        print(f"    FRAME: {r}")
    for w in fmt_warnings(box):
        if "script_method" not in w:
            print(f"    WARN: {w[:300]}")


def probe(label: str, f: Callable, match: Match | None, make_args=lambda: (torch.arange(4.0),),
          backends=BACKENDS, fullgraph: bool = False, calls: int = 2, counter: list | None = None) -> None:
    """Compile f, call it `calls` times, compare each result with uncompiled f.

    counter: a one-element list the registered body increments; the per-call
    deltas of the *compiled* calls are printed as "body runs per call".
    """
    for backend in backends:
        cf, cnt = compiled(f, backend, fullgraph=fullgraph)
        runs: list[int] = []
        with capture() as box, frame_log() as flog:
            try:
                verdicts = []
                for _ in range(calls):
                    before = counter[0] if counter is not None else 0
                    out = cf(*make_args())
                    if counter is not None:
                        runs.append(counter[0] - before)
                        saved = counter[0]
                    ref = f(*make_args())
                    if counter is not None:
                        counter[0] = saved
                    verdicts.append("ok" if same(out, ref) else f"MISMATCH got {_r(out)} want {_r(ref)}")
                res = "ok" if all(v == "ok" for v in verdicts) else "; ".join(verdicts)
            except Exception as e:  # noqa: BLE001
                res = "RAISES " + short(e, 3)
        n_gb, _ = gb_summary()
        hon = "n/a" if match is None else ("yes" if honoured(cnt, match) else "no")
        extra = f" body runs per call={runs}" if counter is not None else ""
        print(f"[{label}] backend={backend} fullgraph={fullgraph}: {res}; graphs={cnt.frame_count} "
              f"graph_breaks={n_gb} honoured={hon}{extra}")
        print_diag(cnt, box, flog)
