"""What a registered name may stand for, as the reverse scan reads it (CPython's tree).

``for op in (f, g): allow_in_graph(op)``, ``OPS = (f, g); allow_in_graph(OPS)`` and
``allow_in_graph(list(OPS))`` register ``f`` and ``g`` through what the registrar is given.
The full tier knows exactly which (:mod:`checker.facts.registrations.collections`); the
cheap tier only asks "may this file register a def of that module?", so here a name stands,
generously, for every name and attribute written in the iterables of the loops that bind
it and in the values assigned to it, a few names deep.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cached_property

#: How many names deep a name is followed (``for op in OPS``, ``OPS = BASE + (g,)``).
_DEPTH = 3


class BoundValues:
    """The loop iterables and assigned values of one module's names, read when first asked."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree

    def through(self, argument: ast.expr) -> Iterator[ast.Name | ast.Attribute]:
        """The names and attributes a registered argument may stand for: for a name, those
        written where the loops and assignments that bind it get their values; for anything
        else but an attribute (``list(OPS)``, ``{...}.values()``), those written in it, and theirs."""
        if isinstance(argument, ast.Attribute):
            return
        seen: set[str] = set()
        values: list[ast.expr] = [argument]
        for _ in range(_DEPTH + 1):
            following: list[ast.expr] = []
            for value in values:
                for node in ast.walk(value):
                    if isinstance(node, ast.Attribute):
                        yield node
                    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
                        seen.add(node.id)
                        if node is not argument:
                            yield node
                        following.extend(self._values.get(node.id, ()))
            values = following

    @cached_property
    def _values(self) -> dict[str, list[ast.expr]]:
        found: dict[str, list[ast.expr]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(node.target, ast.Name):
                found.setdefault(node.target.id, []).append(node.iter)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
                if node.value is not None:
                    found.setdefault(node.target.id, []).append(node.value)
        return found
