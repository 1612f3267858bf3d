"""Registrations made one element at a time, in a loop over a collection.

``for op in (f, g): allow_in_graph(op)`` registers what ``allow_in_graph([f, g])``
registers, element by element; so does ``op = allow_in_graph(op)`` in the body, and the
comprehension statement ``[allow_in_graph(op) for op in (f, g)]``. This module finds the
loop whose target a registered name is, and what its iterable is; what iterating that
gives is :meth:`checker.facts.registrations.collections.Collections.iterating`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import Binding, BindingKind, Scope, ScopeKind


@dataclass(frozen=True)
class Header:
    """The loop that binds a name: its statement (a ``for``, or a comprehension's ``for``),
    the iterable it iterates and the scope that iterable is read in."""

    loop: cst.For | cst.CompFor
    iterable: cst.BaseExpression
    scope: Scope


class LoopHeaders:
    """The ``for`` loops and comprehension ``for`` clauses of one module, by the name each
    binds as its whole target (``for op in ...``; an unpacked target binds nothing known)."""

    def __init__(self, module: cst.CSTNode) -> None:
        self.module = module

    def header(self, binding: Binding, site: cst.CSTNode) -> Header | None:
        """The loop ``binding`` is the target of, when ``site`` (a registration) runs once for
        each element it iterates: inside the ``for`` statement's body, or in the comprehension
        (whose scope owns the binding, so every read of it is inside); and when nothing else
        binds the name (``op = allow_in_graph(op)``, the registration's own result, aside)."""
        if binding.kind is not BindingKind.LOOP:
            return None
        loop = self._loops.get(id(binding.node))
        if loop is None:
            return None
        scope = binding.written_in
        # Each iteration binds the name afresh, so only a binding in the body can change it
        # (``op = wrap(op)``: what is registered is not the element).
        within = loop.body if isinstance(loop, cst.For) else scope.node
        for other in scope.bindings.get(binding.name, []):
            if other is not binding and _contains(within, other.node):
                if other.value is None or not _contains(other.value, site):
                    return None
        if isinstance(loop, cst.For):
            if not _contains(loop.body, site):
                return None  # after the loop the name is only its last element
        elif scope.kind is ScopeKind.COMPREHENSION and scope.parent is not None and _first_for(scope) is loop:
            scope = scope.parent  # a comprehension's first iterable is read outside it
        return Header(loop, loop.iter, scope)

    @cached_property
    def _loops(self) -> dict[int, cst.For | cst.CompFor]:
        found: dict[int, cst.For | cst.CompFor] = {}
        stack: list[cst.CSTNode] = [self.module]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.For, cst.CompFor)) and isinstance(node.target, cst.Name):
                found[id(node.target)] = node
            stack.extend(children(node))
        return found


def _first_for(scope: Scope) -> cst.CompFor | None:
    node = scope.node
    return node.for_in if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)) else None


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    stack = [tree]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(children(current))
    return False
