"""AIG202 baked-scalar-return."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import Body
from checker.facts.scopes.tree import Scope
from checker.rules import _wording as words
from checker.rules._results import returned
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import Function, ReturnsBakedNumber


class BakedScalarReturn(Rule):
    """A registered function returns a Python number that Dynamo freezes into the graph.

    ## What it does
    Reports a returned Python `float`, or an `int`/`float` inside a returned tuple or
    list, whose value is not a literal or a pure function of the arguments and their
    shapes (`x.shape[0] * 2`, `len(xs)`, a `float` parameter): for example
    `float(counter)` or `len(CACHE)`, a number computed from captured state, a clock or
    a random number (`time.time()`, `random.random()`). A number whose type cannot be
    told is not reported, nor one read from tensor data with `.item()`, `.tolist()` or
    `float(t)`, which graph-breaks instead (AIG502).

    ## Why is this bad?
    Dynamo records the number its fake-tensor call returned as a constant of the graph
    and returns that constant on every later call, on every backend, `eager`
    included: the function keeps returning the value from compile time, with no
    warning (evidence: `evidence/dynamo/FINDINGS.md` section S3, the
    `float(counter)` and `(x*1, int(counter))` rows; `exp_output_types.py`; clocks and
    random numbers: `evidence/dynamo/FINDINGS.md` section D16, `exp_number_results.py`,
    torch 2.13.0 and 2.14.1). Numbers fixed by the arguments are safe because Dynamo
    guards on those and recompiles.

    ## Example
    ```python
    import torch

    TEMPERATURE = 1.0

    @torch.compiler.allow_in_graph
    def soften(x):
        return x / TEMPERATURE, float(TEMPERATURE)  # AIG202
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def soften(x, temperature: float):
        return x / temperature, temperature
    ```
    """

    code = "AIG202"
    summary = "Returns a Python number (or a tuple/list holding one) that is frozen at compile time."

    invalid = (
        Invalid(
            """
            import torch

            calls = 0

            @torch.compiler.allow_in_graph
            def counted(x):
                return float(calls)  # AIG202

            SEEN = []

            @torch.compiler.allow_in_graph
            def with_count(x):
                return [x * 2, len(SEEN)]  # AIG202 AIG302

            def remember(x):
                SEEN.append(x)
            """,
            messages=(
                ReturnsBakedNumber(Function("counted"), "a float", inside=False),
                ReturnsBakedNumber(Function("with_count"), "an int", inside=True),
            ),
        ),
        """
        import random
        import time

        import torch

        @torch.compiler.allow_in_graph
        def timed(x):
            return x * 2, time.perf_counter()  # AIG202

        @torch.compiler.allow_in_graph
        def jitter(x):
            return random.random()  # AIG202
        """,
    )
    valid = (
        """
        import torch

        @torch.compiler.allow_in_graph
        def shaped(x, scale: float):
            rows = x.shape[0]
            return x * scale, rows * 2, len(x.shape), scale, 0.5
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for function, body, value, scope in returned(facts):
            if isinstance(value, (cst.Tuple, cst.List)):
                for element in _elements(value):
                    yield from self._judge(facts, function, body, element, scope, inside=True)
            else:
                yield from self._judge(facts, function, body, value, scope, inside=False)

    def _judge(
        self, facts: ModuleFacts, function: Function, body: Body, value: cst.BaseExpression, scope: Scope, inside: bool
    ) -> Iterator[RuleFinding]:
        found = facts.values.type_of(value, scope)
        if found is None or not found.is_number:
            return
        if not inside and found.qualified != "builtins.float":
            return  # a top-level int graph-breaks instead (AIG201)
        if facts.values.fixed_by_arguments(value, body, scope) or facts.values.data_dependent(value, scope):
            return
        yield report(value, ReturnsBakedNumber(function, words.value_type(found), inside))


def _elements(value: cst.Tuple | cst.List) -> Iterator[cst.BaseExpression]:
    for element in value.elements:
        if isinstance(element.value, (cst.Tuple, cst.List)):
            yield from _elements(element.value)
        elif isinstance(element, cst.Element):
            yield element.value
