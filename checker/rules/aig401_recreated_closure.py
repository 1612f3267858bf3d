"""AIG401 recreated-closure."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import ClosureRecreated


class RecreatedClosure(Rule):
    """The registered callable is a closure that a function creates anew on each call.

    ## What it does
    Reports a registration whose target is a nested `def` or a `lambda` created inside
    a function (a factory, `__init__`, `forward`) that reads variables of the function
    that creates it, directly or through default values. A nested function that closes
    over nothing behaves the same however often it is re-created and is not reported,
    nor is a registration that another marker overrides (AIG406 reports that). A
    registered call (`allow_in_graph(make_op(f))`) is followed into the factory it calls,
    through builders that call factories and `functools.wraps(f)(g)`, in this module or
    in another module of the project (the finding then names where the closure is).

    ## Why is this bad?
    Dynamo guards the call on the function's `__code__`, not on the function object.
    Every closure made by the same factory shares one `__code__`, so once one closure is
    compiled into a graph, calls through another closure from the same factory reuse the
    first one's captured values: wrong results on every backend, `eager` included, with
    no error (evidence: `evidence/dynamo/FINDINGS.md` section S1c;
    `exp_recreated_closure.py`).

    ## Example
    ```python
    import torch

    def make_scale(k):
        @torch.compiler.allow_in_graph  # AIG401
        def scale(x):
            return x * k
        return scale
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scale(x, k: float):
        return x * k

    def make_scale(k):
        return lambda x: scale(x, k)
    ```
    """

    code = "AIG401"
    summary = "The registered callable is a closure re-created by a function (factory, __init__, forward)."

    invalid = (
        Invalid(
            """
            import torch
            from torch import nn

            class Gate(nn.Module):
                def __init__(self, k):
                    super().__init__()
                    self.k = k
                    self.fn = torch.compiler.allow_in_graph(lambda x: x * self.k)  # AIG401

            def make(k):
                def inner(x, k=k):
                    return x * k
                return inner

            shifted = torch.compiler.allow_in_graph(make(3.0))  # AIG401
            """,
            messages=(
                ClosureRecreated("inner", "make", ("k",), returned_by="make(...)"),
                ClosureRecreated("", "__init__", ("self",)),
            ),
        ),
        Invalid(
            """
            import functools

            import torch

            def base(x):
                return x * 2

            def make_op(f):
                return functools.wraps(f)(lambda x: f(x) + 1)

            def build(f):
                return make_op(f)

            op = torch.compiler.allow_in_graph(build(base))  # AIG401
            """,
            messages=(ClosureRecreated("", "make_op", ("f",), returned_by="build(...)"),),
        ),
    )
    valid = (
        """
        import torch

        def setup():
            @torch.compiler.allow_in_graph
            def pure(x):
                return x * 2 + 1
            return pure

        def register_all():
            torch.compiler.allow_in_graph(module_level)

        def module_level(x):
            return x + 1
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for target in facts.honoured_targets:
            made = target.closure_elsewhere
            if made is not None:  # what another module's factory returns
                if made.names:
                    message = ClosureRecreated(made.nested_def, made.creator, made.names, target.display, made.place)
                    yield report(target.node, message)
                continue
            if not target.created_in_function:
                continue
            names = facts.closure_names(target)
            if not names:
                continue
            creator = target.bodies[0].scope.parent.enclosing_function()  # type: ignore[union-attr]
            definition = target.definition
            nested_def = "" if isinstance(definition, cst.Lambda) else definition.name.value  # type: ignore[union-attr]
            returned_by = target.display if isinstance(target.node, cst.Call) else ""
            message = ClosureRecreated(nested_def, creator.name, tuple(names), returned_by)  # type: ignore[union-attr]
            yield report(target.node, message)
