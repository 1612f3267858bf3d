"""The scope builder's handlers of expressions: the scopes of lambdas and
comprehensions, walrus bindings, calls (a mutating method changes its receiver), and
annotations, which are not evaluated when the function runs.
"""

from __future__ import annotations

import libcst as cst

from checker.facts.scopes.tree import BindingKind, ScopeKind, method_mutation
from checker.facts.scopes.walker import Handlers, ScopeWalker

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


class ExpressionHandlers(ScopeWalker):
    """Visits the expressions that bind names, open a scope or change an object."""

    def _lambda(self, node: cst.Lambda) -> None:
        self.tree.default_reads[node] = self._defaults(node.params)
        outer = self._enter_body(ScopeKind.LAMBDA, node, "<lambda>")
        self._parameters(node.params)
        self._visit(node.body)
        self._leave_body(outer)

    def _named_expr(self, node: cst.NamedExpr) -> None:
        self._visit(node.value)
        if isinstance(node.target, cst.Name):
            self._bind(node.target.value, node.target, BindingKind.WALRUS, value=node.value)

    def _comprehension(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> None:
        first = node.for_in
        self._visit(first.iter)
        outer = self.scope
        self.scope = self._enter(ScopeKind.COMPREHENSION, node, "<comprehension>")
        comp: cst.CompFor | None = first
        while comp is not None:
            if comp is not first:
                self._visit(comp.iter)
            self._target(comp.target, BindingKind.LOOP, None)
            for condition in comp.ifs:
                self._visit(condition.test)
            comp = comp.inner_for_in
        if isinstance(node, cst.DictComp):
            self._visit(node.key)
            self._visit(node.value)
        else:
            self._visit(node.elt)
        self.scope = outer

    def _call(self, node: cst.Call) -> None:
        self.tree.calls.append((node, self.scope))
        func = node.func
        mutation = method_mutation(func.attr.value) if isinstance(func, cst.Attribute) else None
        read = None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and mutation is not None:
            read = self._read(func.value, mutation=mutation)
        else:
            self._visit(func)
        for arg in node.args:
            self._visit(arg.value)
        if read is not None:
            self._method_store(read, node)

    def _attribute(self, node: cst.Attribute) -> None:
        self._visit(node.value)

    def _skip(self, node: cst.CSTNode) -> None:
        """Annotations and other text that is not evaluated when the function runs."""


EXPRESSION_HANDLERS: Handlers = {
    cst.Lambda: ExpressionHandlers._lambda,
    cst.NamedExpr: ExpressionHandlers._named_expr,
    cst.Call: ExpressionHandlers._call,
    cst.Attribute: ExpressionHandlers._attribute,
    cst.Annotation: ExpressionHandlers._skip,
    cst.Arg: lambda self, node: self._visit(node.value),
    **{kind: ExpressionHandlers._comprehension for kind in _COMPREHENSIONS},
}
