"""AIG103 autograd-ctx-parameter."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import TargetKind
from checker.facts.scopes.syntax import children
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import ParameterIsCtx

#: ctx attributes that hold tensors saved by an autograd forward.
_SAVED = frozenset({"saved_tensors", "saved_variables", "to_save"})


class AutogradCtxParameter(Rule):
    """A registered function takes an autograd `ctx` and reads saved tensors from it.

    ## What it does
    Reports a parameter of a registered plain function (not the `forward`/`backward`
    of a registered `autograd.Function` class, which receive `ctx` from `apply`) whose
    body reads `ctx.saved_tensors` or `ctx.saved_variables` from it: typically a
    `backward` helper registered on its own and handed the autograd context.

    ## Why is this bad?
    The context is not a Proxy-able value and the tensors saved on it reach the body
    without being arguments. In torch 2.13 an `autograd.Function` that hands its `ctx`
    to such helpers fails on every backend with an internal `AssertionError:
    lift_tracked_freevar_to_input should not be called on root SubgraphTracer` that
    names neither the helper nor the context (evidence: `evidence/dynamo/FINDINGS.md`
    section D8, `exp_ctx_argument.py`). Register the `autograd.Function` subclass
    itself, or pass the saved tensors explicitly.

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scale_backward(ctx, grad):  # AIG103
        (weight,) = ctx.saved_tensors
        return grad * weight
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scale_backward(grad, weight):
        return grad * weight
    ```
    """

    code = "AIG103"
    summary = "A registered function takes an autograd ctx and reads saved tensors from it."

    invalid = (
        Invalid(
            """
            import torch

            @torch.compiler.allow_in_graph
            def gain_backward(grad, context):  # AIG103
                (gain,) = context.saved_variables
                return grad * gain
            """,
            messages=(ParameterIsCtx("context", "saved_variables"),),
        ),
    )
    valid = (
        """
        import torch

        @torch.compiler.allow_in_graph
        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(w)
                return x * w

            @staticmethod
            def backward(ctx, grad):
                (w,) = ctx.saved_tensors
                return grad * w, None
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        saved: dict[cst.CSTNode, dict[str, str]] = {}  # one walk per body, whatever its parameters
        for target, body, param in facts.arguments():
            if target.kind is TargetKind.AUTOGRAD_FUNCTION:
                continue
            if body.node not in saved:
                saved[body.node] = _saved_reads(body.node)
            read = saved[body.node].get(param.name.value)
            if read is not None:
                yield report(param, ParameterIsCtx(param.name.value, read))


def _saved_reads(root: cst.CSTNode) -> dict[str, str]:
    """For each name, the first ``name.saved_tensors`` (or sibling attribute) under ``root``, in source order."""
    found: dict[str, str] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if type(node) is cst.Attribute and type(node.value) is cst.Name and node.attr.value in _SAVED:
            found.setdefault(node.value.value, node.attr.value)
        stack.extend(reversed(children(node)))
    return found
