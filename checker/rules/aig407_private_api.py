"""AIG407 private-api."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.facts.registrations.sites import Form
from checker.facts.scopes.tree import BindingKind, Scope
from checker.rules.base import Fix, Invalid, Rule, RuleFinding, report
from checker.spec.messages import UsesPrivateApi

_PRIVATE = frozenset({"torch._dynamo.allow_in_graph", "torch._dynamo.decorators.allow_in_graph"})
_PUBLIC_MODULE = "torch.compiler"


class PrivateApi(Rule):
    """`torch._dynamo.allow_in_graph` is used where `torch.compiler.allow_in_graph` is public.

    ## What it does
    Reports each spelling of the private `torch._dynamo.allow_in_graph` (or
    `torch._dynamo.decorators.allow_in_graph`): an attribute chain such as
    `@torch._dynamo.allow_in_graph`, an alias assigned from one, and
    `from torch._dynamo import allow_in_graph`. `--fix` rewrites them to
    `torch.compiler.allow_in_graph` (`--diff` shows the change without writing) where
    that is safe: the chain starts at the `torch` module, or the import names
    `allow_in_graph` alone. A function that is itself named `allow_in_graph` and forwards
    to the private one is a shim of the API (torch.compiler's own is), not a use of it.

    ## Why is this bad?
    `torch._dynamo` is private: `torch.compiler.allow_in_graph` is the documented
    entry point and forwards to the same function (torch/compiler/__init__.py, source
    reading), so the public spelling behaves identically and survives refactors of
    Dynamo's internals (evidence: `evidence/dynamo/FINDINGS.md` section D0 for the
    mechanism both spellings share).

    ## Example
    ```python
    import torch

    @torch._dynamo.allow_in_graph  # AIG407
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

    code = "AIG407"
    summary = "torch._dynamo.allow_in_graph is used where torch.compiler.allow_in_graph is public (autofix)."
    fixable = True

    valid = (
        """
        import torch

        def allow_in_graph(fn):
            # A shim of the API itself, as torch.compiler's is: the public spelling would recurse.
            return torch._dynamo.allow_in_graph(fn)
        """,
    )
    invalid = (
        Invalid(
            """
            try:
                from torch._dynamo import allow_in_graph as maybe_allow_in_graph  # AIG407
            except ImportError:
                def maybe_allow_in_graph(fn):
                    return fn

            import torch._dynamo as dynamo

            register = dynamo.allow_in_graph  # AIG407
            """,
            messages=(
                UsesPrivateApi(fixable=True),
                UsesPrivateApi(fixable=False),
            ),
        ),
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        reported: set[cst.CSTNode] = set()
        for node, fix in self._spellings(facts):
            if node not in reported:
                reported.add(node)
                yield report(node, UsesPrivateApi(fixable=fix is not None), fix=fix)

    def _spellings(self, facts: ModuleFacts) -> Iterator[tuple[cst.CSTNode, Fix | None]]:
        for registration in facts.registrations:
            if registration.form is Form.ELSEWHERE or _implements_the_api(registration.scope):
                continue  # another module's spelling is reported there
            # A decorator form's site is its Decorator, a call form's its Call (registrations.py).
            if registration.form is Form.DECORATOR:
                expr = cast(cst.Decorator, registration.site).decorator
            else:
                expr = cast(cst.Call, registration.site).func
            if isinstance(expr, cst.Attribute) and self._private(facts, expr, registration.scope):
                yield expr, _attribute_fix(facts, expr, registration.scope)
        for scope in facts.tree.module.walk():
            for bindings in scope.bindings.values():
                for binding in bindings:
                    if binding.kind is BindingKind.IMPORT and binding.imported in _PRIVATE and binding.statement:
                        yield binding.statement, _import_fix(binding.statement)
                    elif isinstance(binding.value, cst.Attribute) and self._private(
                        facts, binding.value, binding.written_in
                    ):
                        yield binding.value, _attribute_fix(facts, binding.value, binding.written_in)

    def _private(self, facts: ModuleFacts, expr: cst.BaseExpression, scope: Scope) -> bool:
        return bool(facts.inference.qualified_names(expr, scope) & _PRIVATE)


def _implements_the_api(scope: Scope) -> bool:
    """Inside a function itself named ``allow_in_graph``: a shim of the API (torch.compiler's
    own is one), where the public spelling would call itself."""
    function = scope.enclosing_function()
    return function is not None and function.name == "allow_in_graph"


def _attribute_fix(facts: ModuleFacts, expr: cst.Attribute, scope: Scope) -> Fix | None:
    """``torch._dynamo.allow_in_graph`` -> ``torch.compiler.allow_in_graph`` when the root is ``torch``."""
    root: cst.BaseExpression = expr
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name) or facts.inference.qualified_names(root, scope) != {"torch"}:
        return None
    public = cst.Attribute(cst.Attribute(cst.Name(root.value), cst.Name("compiler")), cst.Name("allow_in_graph"))
    return Fix(expr, public)


def _import_fix(statement: cst.ImportFrom) -> Fix | None:
    """``from torch._dynamo import allow_in_graph [as x]`` -> ``from torch.compiler import ...``."""
    names = statement.names
    if isinstance(names, cst.ImportStar) or len(names) != 1 or statement.relative:
        return None
    if not (isinstance(names[0].name, cst.Name) and names[0].name.value == "allow_in_graph"):
        return None
    module = cst.Attribute(cst.Name("torch"), cst.Name("compiler"))
    return Fix(statement, statement.with_changes(module=module))
