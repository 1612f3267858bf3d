"""AIG406 conflicting-markers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from checker.facts.module import ModuleFacts
from checker.facts.registrations.sites import Form
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import MarkersConflict


class ConflictingMarkers(Rule):
    """The registered function is also marked with another Dynamo marker.

    ## What it does
    Reports a registration of a function (or class) that is also marked
    `nonstrict_trace`, `leaf_function`, `disallow_in_graph` or
    `torch.compiler.disable` (`torch._dynamo.disable`), by decorator or by call,
    anywhere in the module; for a def imported from another module of the project, by
    the registering module or by the one that defines it. The finding is at the
    registration.

    ## Why is this bad?
    Each marker asks Dynamo for a different treatment: put the call in the graph
    unopened (`allow_in_graph`), trace it non-strictly (`nonstrict_trace`), run the
    real function eagerly (`leaf_function`), forbid it in graphs (`disallow_in_graph`),
    or skip compiling it (`disable`). Which one wins depends on the order of
    application and on torch internals, so the code does not say what it does: a
    `disable` applied above `@allow_in_graph` makes the registration dead, one applied
    below it is silently defeated under `aot_eager` and `inductor`, and
    `nonstrict_trace` or `leaf_function` win in either order. Where the winner is clear,
    aigcheck does not judge the dead registration's body (evidence: `evidence/dynamo/FINDINGS.md`
    section D2, `exp_conflicting_markers.py`; section S9 for how the markers differ).

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph  # AIG406
    @torch.compiler.disable
    def fused(x):
        return x * 2
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def fused(x):
        return x * 2
    ```
    """

    code = "AIG406"
    summary = "The registered function is also marked nonstrict_trace, leaf_function, disallow_in_graph or disable."

    invalid: ClassVar[tuple[str | Invalid, ...]] = (
        Invalid(
            """
            import torch
            from torch._dynamo import nonstrict_trace

            def fused(x):
                return x * 2

            torch.compiler.allow_in_graph(fused)  # AIG406
            torch._dynamo.disallow_in_graph(fused)

            @nonstrict_trace
            def traced(x):
                return x + 1

            torch._dynamo.allow_in_graph(traced)  # AIG406 AIG407
            """,
            messages=(MarkersConflict("torch._dynamo.allow_in_graph", "traced", "nonstrict_trace", marked=10),),
        ),
    )
    valid = (
        """
        import torch

        @torch.compiler.allow_in_graph
        def fused(x):
            return x * 2

        @torch.compiler.disable
        def logged(x):
            print(x)
        """,
    )
    invalid = invalid + (
        """
        import torch

        def make(k):
            @torch.compiler.disable
            @torch.compiler.allow_in_graph  # AIG406
            def dead(x):
                return x * k  # dead registration: its body is not judged
            return dead
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for target in facts.targets:
            if target.registration.form is Form.ELSEWHERE:
                continue  # reported at the registration, by the module that registers it
            for marker, where in facts.markers_on(target):
                registration = words.registration(target.registration)
                message = MarkersConflict(registration, target.display, marker.value, where)
                yield report(target.registration.site, message)
