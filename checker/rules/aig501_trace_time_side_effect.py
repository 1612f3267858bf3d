"""AIG501 trace-time-side-effect."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.captures.bodies import EventKind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._events import events_of
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import Function, SideEffectAtTraceTime


class TraceTimeSideEffect(Rule):
    """A registered function has Python side effects whose count depends on the backend.

    ## What it does
    Reports, inside a registered function: `print(...)`, logging calls (the `logging`
    module, or a logger made by `getLogger(...)`/`get_logger(...)`, as transformers and
    diffusers do), `warnings.warn(...)`, `open(...)`, writes to `sys.stdout`/`sys.stderr`,
    to a file `open(...)` returned and to a `tqdm` progress bar, assignments through
    `global`/`nonlocal`, and changes to captured containers (`CACHE.append(...)`,
    `STATS["n"] = ...`). A logger, stream, file or bar made in another module of the
    project is what it is there, in every import spelling (`from .utils import logger`,
    `from . import utils; utils.logger`, a re-export); one whose making is not resolved
    (a call of an unknown factory, a library outside the project) is not reported.
    A memo fill of a value computed from the key alone (`if k not in C: C[k] = k * 2`,
    `C.setdefault(k, f(k))`, every memo spelling of AIG302) is not reported: filled at
    trace time, it stores what any later call would store, so how often it runs does
    not matter (S§12; a cache of tensors is AIG301). A fill of a value computed from
    another input (`C[k] = k * scale`) is, since the count decides what the cache keeps.

    ## Why is this bad?
    The body does not run once per call. Dynamo runs it on FakeTensors while compiling;
    under `eager` it then runs on every call (1+N times), while under `aot_eager` and
    `inductor` it runs three times at compile time and never again (3+0): logs and
    counters silently differ between backends, and state the body updates is frozen
    into the compiled graph (evidence: `evidence/dynamo/FINDINGS.md` sections S4
    and S7; `exp_body_behaviours.py`, `exp_call_count_types.py`).

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scaled(x):
        print("scaling", x.shape)  # AIG501
        return x * 2
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scaled(x):
        return x * 2

    def run(x):
        print("scaling", x.shape)
        return scaled(x)
    ```
    """

    code = "AIG501"
    summary = "print, logging, warnings, file I/O, global/nonlocal assignment or captured-state mutation in the body."

    invalid = (
        Invalid(
            """
            import logging
            import sys
            import warnings

            import torch
            from tqdm import tqdm

            from .utils import logging as hf_logging

            log = logging.getLogger(__name__)
            hub_log = hf_logging.get_logger(__name__)
            trace = open("trace.log", "w")
            err = sys.stderr
            bar = tqdm(total=10)
            SEEN = []
            calls = 0

            @torch.compiler.allow_in_graph
            def traced(x):
                global calls
                calls += 1  # AIG501 AIG302
                SEEN.append(x.shape)  # AIG501 AIG302
                log.debug("traced %s", x.shape)  # AIG501
                hub_log.warning_once("slow path")  # AIG501
                warnings.warn("slow path")  # AIG501
                trace.write("traced")  # AIG501
                err.write("traced")  # AIG501
                bar.set_description("tracing")  # AIG501
                logging.getLogger(__name__).info("traced")  # AIG501
                return x
            """,
            messages=(
                SideEffectAtTraceTime(Function("traced"), "changes captured 'SEEN' (calls its .append() method)"),
                SideEffectAtTraceTime(Function("traced"), "calls trace.write()"),
                SideEffectAtTraceTime(Function("traced"), "calls sys.stderr.write()"),
                SideEffectAtTraceTime(Function("traced"), "calls bar.set_description()"),
            ),
        ),
        """
        import torch

        _SCALED = {}

        @torch.compiler.allow_in_graph
        def scaled(x, k: int, scale: float):
            if k not in _SCALED:
                _SCALED[k] = k * scale  # AIG501
            return x * _SCALED[k]
        """,
    )
    valid = (
        """
        import sys

        import torch

        from somewhere import make_sink

        sink = make_sink()

        class Recorder:
            def info(self, message):
                return message

        recorder = Recorder()

        @torch.compiler.allow_in_graph
        def quiet(x):
            if sys.stderr.isatty():  # asks, writes nothing
                x = x * 1
            recorder.info("a plain object's method")
            sink.write("made by a call nothing resolves: unknown")
            return x
        """,
        """
        import torch

        @torch.compiler.allow_in_graph
        def local_closure(x):
            total = x

            def add(y):
                nonlocal total  # the body's own local: nothing outside the call changes
                total = total + y

            add(x)
            return total
        """,
        """
        import torch

        @torch.compiler.allow_in_graph
        def local_state(x):
            parts = []
            parts.append(x * 2)
            total = 0
            total += 1
            return torch.stack(parts) * total
        """,
        """
        import torch

        _SIZES = {}

        @torch.compiler.allow_in_graph
        def padded(x, k: int):
            size = _SIZES.get(k)
            if size is None:
                size = _SIZES[k] = k + 1  # a memo of the key: filled again, it stores the same
            return x * size * _SIZES.setdefault(k + 1, k + 2)
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for function, event in events_of(facts, EventKind.SIDE_EFFECT):
            yield report(event.node, SideEffectAtTraceTime(function, words.event(event)))
