"""Small questions about libcst expressions that several facts ask."""

from __future__ import annotations

import dataclasses
import operator
import typing
from collections.abc import Callable

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


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The children of ``node`` that are code, in lexical order: ``node.children`` less
    whitespace, comments and punctuation (no name is ever inside those). libcst builds
    ``children`` by rebuilding and revalidating the node, which made every walk of a large
    module cost several times its parse; this reads the fields."""
    layout = _LAYOUTS.get(type(node)) or _learn(node)
    if layout.unvisited and any(_holds_nodes(getattr(node, field)) for field in layout.unvisited):
        layout = _learn(node)  # a field libcst visits only when set, set for the first time
    found: list[cst.CSTNode] = []
    for value in layout.values(node):
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:  # type: ignore[attr-defined]
                code = _CODE.get(type(item))
                if code or (code is None and _classify(type(item))):
                    found.append(item)
        else:
            code = _CODE.get(kind)
            if code or (code is None and _classify(kind)):
                found.append(value)  # type: ignore[arg-type]
    return found


#: Per type met in a node's fields: whether it is a node and code (not a token). A dict
#: lookup: ``isinstance`` against libcst's abstract ``CSTNode`` costs a Python call.
_CODE: dict[type, bool] = {}


def _classify(kind: type) -> bool:
    code = _CODE[kind] = issubclass(kind, cst.CSTNode) and kind not in _TOKENS
    return code


def _token_types() -> frozenset[type[cst.CSTNode]]:
    from libcst._nodes import op, whitespace

    tokens = {
        kind
        for module in (op, whitespace)
        for kind in vars(module).values()
        if isinstance(kind, type) and issubclass(kind, cst.CSTNode) and kind.__module__ == module.__name__
    }
    brackets = (cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket)
    return frozenset(tokens | {*brackets, cst.LeftCurlyBrace, cst.RightCurlyBrace})


#: Whitespace, comments, operators and brackets.
_TOKENS = _token_types()


@dataclasses.dataclass(frozen=True)
class _Layout:
    """The fields libcst visits on a node type, in its order, and its fields that may hold
    nodes but were not visited on the node learnt from."""

    visited: tuple[str, ...]
    unvisited: tuple[str, ...]
    values: Callable[[cst.CSTNode], tuple[object, ...]]


#: Per node type, learnt from the first node of the type (see ``_Layout``).
_LAYOUTS: dict[type[cst.CSTNode], _Layout] = {}


def _learn(node: cst.CSTNode) -> _Layout:
    recorder = _FieldRecorder(node)
    node.visit(recorder)
    visited = tuple(recorder.fields)
    unvisited = tuple(
        field.name for field in dataclasses.fields(node) if field.name not in visited and not _scalar(field.type)
    )
    values: Callable[[cst.CSTNode], tuple[object, ...]]
    if len(visited) > 1:
        values = operator.attrgetter(*visited)  # one call for all the fields: a tuple
    else:
        values = lambda node: tuple(getattr(node, field) for field in visited)  # noqa: E731
    layout = _LAYOUTS[type(node)] = _Layout(visited, unvisited, values)
    return layout


def _scalar(annotation: object) -> bool:
    """A field type that never holds a node: ``str``, ``Literal['*']``, ``Optional[str]``."""
    if annotation in (str, bool, int, float, type(None), cst.MaybeSentinel):
        return True
    origin = typing.get_origin(annotation)
    return origin is typing.Literal or (origin is typing.Union and all(map(_scalar, typing.get_args(annotation))))


def _holds_nodes(value: object) -> bool:
    return isinstance(value, cst.CSTNode) or (
        isinstance(value, (tuple, list)) and any(isinstance(item, cst.CSTNode) for item in value)
    )


class _FieldRecorder(cst.CSTVisitor):
    """Records the fields libcst visits on one node, empty ones included (each is announced)."""

    def __init__(self, node: cst.CSTNode) -> None:
        super().__init__()
        self.node = node
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.node  # the node's own children, not theirs

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.node and attribute not in self.fields:
            self.fields.append(attribute)


class Walker:
    """A read-only visitor, as libcst's ``CSTVisitor``: ``visit_<Type>(node)`` (returning
    False skips the node's children) and ``leave_<Type>(node)``. It walks
    :func:`children`: libcst's own visit rebuilds every node it passes."""

    def walk(self, node: cst.CSTNode) -> None:
        visit, leave = self._methods(type(node))
        if visit is None or visit(self, node) is not False:
            for child in children(node):
                self.walk(child)
        if leave is not None:
            leave(self, node)

    @classmethod
    def _methods(cls, kind: type[cst.CSTNode]) -> tuple[typing.Any, typing.Any]:
        methods = cls.__dict__.get("_by_type")
        if methods is None:
            methods = {}
            cls._by_type = methods  # type: ignore[attr-defined]  # one table per subclass
        found = methods.get(kind)
        if found is None:
            name = kind.__name__
            found = methods[kind] = (getattr(cls, f"visit_{name}", None), getattr(cls, f"leave_{name}", None))
        return found
