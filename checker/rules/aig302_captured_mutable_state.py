"""AIG302 captured-mutable-state."""

from __future__ import annotations

from collections.abc import Iterator

from checker.contract import CONSEQUENCE_TEXT, Consequence
from checker.facts.captures import Capture, Holder
from checker.facts.kinds import Kind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules.base import Report, Rule, report

_ALWAYS_MUTABLE = {Kind.MUTABLE: "mutable container", Kind.NDARRAY: "numpy array"}
_WHAT = {**_ALWAYS_MUTABLE, Kind.OBJECT: "object"}


class CapturedMutableState(Rule):
    """A registered function reads Python state that can change after compilation.

    ## What it does
    Reports each read, inside a function registered with `allow_in_graph`, of non-tensor
    state from outside the function that can change: a list, dict, set or numpy array;
    an attribute of `self` or of a captured object; or a global or closure variable that
    is reassigned (through `global`/`nonlocal`, in a loop, by augmented assignment, or
    bound more than once outside mutually exclusive branches) or mutated
    (`d[k] = v`, `xs.append(v)`, `obj.attr = v`) anywhere in the module. A module-level
    constant that is never rebound or mutated (an int, float, string, tuple of those, a
    `torch.dtype`) is not reported, nor is a name whose value cannot be inferred and
    that never changes in the module.

    ## Why is this bad?
    Dynamo does not guard on anything the function reads. Under `aot_eager` and
    `inductor` the value read while compiling is frozen into the graph: after the state
    changes, the compiled function silently keeps using the old value, with no warning
    and no recompile, while the `eager` backend sees the new value, so the bug hides in
    debug runs (evidence: `shared/evidence/dynamo/FINDINGS.md` sections 1b and 4, the
    rows marked STALE; `exp_captured_evasions.py`, `exp_recreated_closure.py`,
    `exp_body_behaviours.py`).

    ## Example
    ```python
    import torch

    config = {"scale": 2.0}

    @torch.compiler.allow_in_graph
    def rescale(x):
        return x * config["scale"]  # AIG302

    def set_scale(value):
        config["scale"] = value
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def rescale(x, scale: float):
        return x * scale
    ```
    """

    code = "AIG302"
    summary = "A registered function reads non-tensor state that can change after compilation."

    invalid = (
        """
        import numpy as np
        import torch

        SCALE = 1.0
        ENABLED = True
        TABLE = np.arange(4.0)

        def configure(scale):
            global SCALE
            SCALE = scale

        @torch.compiler.allow_in_graph
        def scaled(x):
            if ENABLED:  # AIG302
                x = x * SCALE  # AIG302
            return x * torch.as_tensor(TABLE)  # AIG302

        for ENABLED in (True, False):
            pass
        """,
        """
        import torch

        class Scaler:
            def __init__(self, k):
                self.k = k
                self.fn = torch.compiler.allow_in_graph(self.apply)

            def apply(self, x):
                return x * self.k  # AIG302
        """,
        """
        import torch

        STEPS = 0

        @torch.compiler.allow_in_graph
        def counted(x):
            return x * STEPS  # AIG302

        STEPS += 1
        """,
    )
    valid = (
        """
        import torch

        EPS = 1e-5
        DTYPE = torch.float16
        SHAPE = (2, 2)
        NAME = "block"

        @torch.compiler.allow_in_graph
        def normalise(x):
            return (x / (x.norm() + EPS)).to(DTYPE).reshape(SHAPE)
        """,
        """
        import torch

        try:
            from fast_ops import SCALE
        except ImportError:
            SCALE = 2.0

        @torch.compiler.allow_in_graph
        def scaled(x):
            return x * SCALE
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[Report]:
        for capture in facts.captures():
            kind = capture.inferred.kind
            if kind.is_tensor_like or (kind is Kind.TENSOR and capture.laundered):
                continue
            reason = _reason(capture)
            if reason is None:
                continue
            freeze = f"; {CONSEQUENCE_TEXT[Consequence.STATE_FROZEN]}; "
            if capture.source.holder is Holder.DEFAULT:
                yield report(
                    capture.node,
                    *words.lead(capture),
                    f"reads the {words.captured(capture)}",
                    *reason,
                    f"{freeze}default to None and build the container inside the function, or pass it as an argument",
                )
                continue
            what = f"{_WHAT[kind]} " if kind in _WHAT else ""
            where = (" (line ", capture.binding, ")") if capture.binding is not None else ()
            yield report(
                capture.node,
                *words.lead(capture),
                f"reads {what}'{capture.name}' from {words.source(capture)}",
                *where,
                *reason,
                f"{freeze}pass '{capture.name}' as an argument",
            )


def _reason(capture: Capture) -> tuple[str | object, ...] | None:
    kind = capture.inferred.kind
    if capture.source.holder is Holder.DEFAULT:
        return (f", a {_ALWAYS_MUTABLE[kind]} shared by every call",)
    if capture.change is not None:
        return words.change(capture)
    if kind in _ALWAYS_MUTABLE:
        return (", which can be changed in place",)
    return None
