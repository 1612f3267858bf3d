"""AIG103 autograd-ctx-parameter."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import TargetKind
from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import BindingKind, Scope, ScopeKind, all_params
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import ParameterIsCtx
from checker.spec.messages.values import ReceivesCtx

#: ctx attributes that hold tensors saved by an autograd forward.
_SAVED = frozenset({"saved_tensors", "saved_variables", "to_save"})
#: The methods of an autograd.Function that receive its ctx first.
_GIVEN_CTX = frozenset({"forward", "backward", "setup_context", "jvp", "vjp"})


class AutogradCtxParameter(Rule):
    """A registered function takes an autograd `ctx` and reads saved tensors from it.

    ## What it does
    Reports a parameter of a registered plain function (not the `forward`/`backward`
    of a registered `autograd.Function` class, which receive `ctx` from `apply`) whose
    body reads `ctx.saved_tensors` or `ctx.saved_variables` from it: typically a
    `backward` helper registered on its own and handed the autograd context. Also
    reports an `autograd.Function`'s `forward`, `backward` or `setup_context` passing
    its own `ctx` to a registered function, whatever that function does with it.

    ## Why is this bad?
    The context is not a Proxy-able value and the tensors saved on it reach the body
    without being arguments. In torch 2.13 an `autograd.Function` that hands its `ctx`
    to such helpers fails on every backend with an internal `AssertionError:
    lift_tracked_freevar_to_input should not be called on root SubgraphTracer` that
    names neither the helper nor the context (evidence: `evidence/dynamo/FINDINGS.md`
    section D8, `exp_ctx_argument.py`), and so does a registered helper that is handed
    the `ctx` and never touches it (section D19, `exp_registration_forms.py`; the same
    helper without the `ctx` works). Register the `autograd.Function` subclass
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
        Invalid(
            """
            import torch

            @torch.compiler.allow_in_graph
            def scale(ctx, x, w):
                return x * w

            class Scale(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, w):
                    ctx.save_for_backward(w)
                    return scale(ctx, x, w)  # AIG103

                @staticmethod
                def backward(ctx, grad):
                    (w,) = ctx.saved_tensors
                    return grad * w, None
            """,
            messages=(ReceivesCtx("ctx", "Scale.forward", "scale"),),
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
        """
        import torch

        @torch.compiler.allow_in_graph
        def scale(x, w):
            return x * w

        def log_shapes(ctx, x):
            return x

        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(w)
                log_shapes(ctx, x)
                return scale(x, w)

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
        for call, scope, target in facts.registered_calls():
            if target.kind is TargetKind.AUTOGRAD_FUNCTION:
                continue  # ``Fn.apply(...)``
            given = _given_ctx(scope, facts)
            if given is None:
                continue
            ctx, method = given
            passed = next((arg.value for arg in call.args if _is_name(arg.value, ctx)), None)
            if passed is not None and _is_the_parameter(facts, scope, ctx):
                yield report(passed, ReceivesCtx(ctx, method, target.display))


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


def _given_ctx(scope: Scope, facts: ModuleFacts) -> tuple[str, str] | None:
    """The ctx parameter's name and ``Class.method`` when ``scope`` is (or is inside) the
    forward, backward or setup_context of an autograd.Function subclass of the module."""
    function = scope.enclosing_function()
    while function is not None:
        owner = function.parent
        node = function.node
        if isinstance(node, cst.FunctionDef) and owner is not None and owner.kind is ScopeKind.CLASS:
            if node.name.value not in _GIVEN_CTX or not isinstance(owner.node, cst.ClassDef):
                return None
            if not facts.inference.class_model(owner.node).is_autograd_function:
                return None
            params = all_params(node.params)
            return (params[0].name.value, f"{owner.name}.{node.name.value}") if params else None
        function = owner.enclosing_function() if owner is not None else None
    return None


def _is_name(expr: cst.BaseExpression, name: str) -> bool:
    return type(expr) is cst.Name and expr.value == name


def _is_the_parameter(facts: ModuleFacts, scope: Scope, ctx: str) -> bool:
    """Whether ``ctx`` read in ``scope`` is bound only as the method's parameter (never rebound)."""
    bindings = facts.tree.bindings(scope, ctx)
    return len(bindings) == 1 and bindings[0].kind is BindingKind.PARAMETER
