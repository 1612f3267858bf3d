"""AIG104 unproxyable-call-argument."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.kinds.kind import Kind
from checker.facts.module import ModuleFacts
from checker.facts.scopes.tree import Scope
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec import contract
from checker.spec import torch_api as api
from checker.spec.contract import Verdict
from checker.spec.messages import ArgumentUnproxyable, Passed


class UnproxyableCallArgument(Rule):
    """A call of a registered function passes a value Dynamo cannot put in the graph.

    ## What it does
    Reports an argument, at any call of a registered function in the checked code
    (`Fn.apply(...)` for a registered `autograd.Function`), also in files that only
    import a function their project registers elsewhere, whose value is statically
    known to graph-break or fail: a lambda or function, an `nn.Module` (`self.linear`,
    `self` inside a module's method), an instance of a plain class or non-frozen
    dataclass of the module, a numpy array, or a builtin torch function such as
    `torch.sin`.

    ## Why is this bad?
    Functions, modules and plain objects make Dynamo graph-break with `Failed to
    convert args/kwargs to proxy` and trace the body instead, losing the registration;
    an ndarray fails compilation (`expected np.ndarray (got FakeTensor)`) and a builtin
    such as `torch.sin` raises `InternalTorchDynamoError` (evidence:
    `evidence/dynamo/FINDINGS.md` section S2; `exp_input_types.py`).

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def apply_act(x, act):
        return act(x)

    def forward(x):
        return apply_act(x, lambda t: t.relu())  # AIG104
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def relu_act(x):
        return x.relu()

    def forward(x):
        return relu_act(x)
    ```
    """

    code = "AIG104"
    summary = "A call of a registered function passes a function, module, plain object or ndarray."

    invalid = (
        Invalid(
            """
            import numpy as np
            import torch
            from torch import nn

            class Plan:
                pass

            @torch.compiler.allow_in_graph
            def fused(x, extra):
                return x

            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = nn.Linear(4, 4)

                def forward(self, x):
                    y = fused(x, self.proj)  # AIG104
                    y = fused(y, extra=self)  # AIG104
                    return fused(y, Plan())  # AIG104

            TABLE = np.zeros(4)
            out = fused(torch.ones(4), TABLE)  # AIG104
            out = fused(out, torch.sin)  # AIG104
            """,
            messages=(
                ArgumentUnproxyable(Passed.INSTANCE, "fused", "plain class"),
                ArgumentUnproxyable(Passed.BUILTIN, "fused", "torch.sin"),
            ),
        ),
    )
    valid = (
        """
        import enum
        from dataclasses import dataclass

        import torch

        class Mode(enum.Enum):
            FAST = 1

        @dataclass(frozen=True)
        class Options:
            scale: float

        @torch.compiler.allow_in_graph
        def fused(x, extra):
            return x

        def forward(x):
            return fused(x, Mode.FAST) + fused(x, Options(2.0)) + fused(x, [x, None]) + fused(x, torch.float16)
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for call, scope, target in facts.registered_calls():
            for arg in call.args:
                problem = _problem(facts, arg.value, scope)
                if problem is not None:
                    passed, detail = problem
                    yield report(arg.value, ArgumentUnproxyable(passed, target.display, detail))


def _problem(facts: ModuleFacts, expr: cst.BaseExpression, scope: Scope) -> tuple[Passed, str] | None:
    """What is wrong with passing ``expr`` (and its detail), or None when it is fine or unknown."""
    with facts.inference.following_imports():  # an instance of a class imported from the project
        return _judged(facts, expr, scope)


def _judged(facts: ModuleFacts, expr: cst.BaseExpression, scope: Scope) -> tuple[Passed, str] | None:
    for name in facts.inference.qualified_names(expr, scope):
        if api.is_torch_tensor_call(name) and not isinstance(expr, cst.Call):
            return Passed.BUILTIN, name
    inferred = facts.inference.infer(expr, scope)
    kind = inferred.kind
    if kind is Kind.FUNCTION and (inferred.definition is not None or isinstance(expr, cst.Lambda)):
        return Passed.FUNCTION, ""
    if kind is Kind.MODULE:
        return Passed.MODULE, ""
    if kind is Kind.NDARRAY:
        return Passed.NDARRAY, ""
    if kind is Kind.OBJECT and isinstance(inferred.definition, cst.ClassDef):
        category = facts.inference.class_model(inferred.definition).category
        if contract.user_class(category).verdict is Verdict.GRAPH_BREAK:
            return Passed.INSTANCE, category.value
    return None
