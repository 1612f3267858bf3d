"""Small questions about libcst expressions that several facts ask."""

from __future__ import annotations

import libcst as cst


def operands(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a unary, binary, boolean or comparison expression (else none)."""
    if isinstance(expr, cst.UnaryOperation):
        return [expr.expression]
    if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
        return [expr.left, expr.right]
    if isinstance(expr, cst.Comparison):
        return [expr.left, *(target.comparator for target in expr.comparisons)]
    return []


def describe(expr: cst.CSTNode) -> str:
    """How messages spell an expression: ``self.step``, ``make(...)``, ``<lambda>``."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return f"{describe(expr.value)}.{expr.attr.value}"
    if isinstance(expr, cst.Call):
        return f"{describe(expr.func)}(...)"
    if isinstance(expr, cst.Lambda):
        return "<lambda>"
    return cst.Module([]).code_for_node(expr)[:40]
