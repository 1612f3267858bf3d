"""Qualified names: the dotted names an expression may stand for, through imports and aliases.

``F.relu`` after ``import torch.nn.functional as F`` is ``torch.nn.functional.relu``;
a name no scope binds is a builtin. Lookups are memoised per (expression, scope) and
give up (no names) on cycles and depth.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.scopes.tree import BindingKind, Scope, ScopeTree

#: How many lookups of one question may be in progress before it gives up.
MAX_DEPTH = 12


class QualifiedNames:
    """Answers "which dotted names may this expression be?" for one module."""

    def __init__(self, tree: ScopeTree) -> None:
        self.tree = tree
        self._names: dict[tuple[cst.CSTNode, Scope], frozenset[str]] = {}
        self._naming: set[tuple[cst.CSTNode, Scope]] = set()

    def qualified_names(self, expr: cst.BaseExpression, scope: Scope) -> frozenset[str]:
        """Dotted names ``expr`` may stand for, through imports and aliases."""
        key = (expr, scope)
        if key in self._names:
            return self._names[key]
        if key in self._naming or len(self._naming) > MAX_DEPTH:
            return frozenset()
        self._naming.add(key)
        try:
            result = frozenset(self._qualified(expr, scope))
        finally:
            self._naming.discard(key)
        self._names[key] = result
        return result

    def _qualified(self, expr: cst.BaseExpression, scope: Scope) -> Iterator[str]:
        if isinstance(expr, cst.Name):
            owner = self.tree.owner(scope, expr.value)
            if owner is None:
                yield f"builtins.{expr.value}"
                return
            for binding in owner.bindings.get(expr.value, []):
                if binding.kind is BindingKind.IMPORT and binding.imported:
                    yield binding.imported
                elif binding.value is not None and binding.kind in (
                    BindingKind.ASSIGN, BindingKind.ANNOTATION, BindingKind.WALRUS
                ):  # fmt: skip
                    yield from self.qualified_names(binding.value, binding.written_in)
        elif isinstance(expr, cst.Attribute):
            for prefix in self.qualified_names(expr.value, scope):
                yield f"{prefix}.{expr.attr.value}"
        elif isinstance(expr, cst.IfExp):
            yield from self.qualified_names(expr.body, scope)
            yield from self.qualified_names(expr.orelse, scope)
        elif isinstance(expr, cst.Call) and _is_getattr_of_literal(expr):
            attribute = _string_value(expr.args[1].value)
            if "builtins.getattr" in self.qualified_names(expr.func, scope):
                for prefix in self.qualified_names(expr.args[0].value, scope):
                    yield f"{prefix}.{attribute}"
                if len(expr.args) > 2:
                    yield from self.qualified_names(expr.args[2].value, scope)

    def decorator_names(self, node: cst.FunctionDef | cst.ClassDef, scope: Scope) -> set[str]:
        """Qualified names of a definition's decorators (``@x(...)`` counts as ``x``)."""
        names: set[str] = set()
        for decorator in node.decorators:
            expr = decorator.decorator
            if isinstance(expr, cst.Call):
                expr = expr.func
            names |= self.qualified_names(expr, scope)
        return names


def _is_getattr_of_literal(call: cst.Call) -> bool:
    return len(call.args) >= 2 and _string_value(call.args[1].value) is not None


def _string_value(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None
