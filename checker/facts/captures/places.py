"""Lines of one module, as facts about another module cite them.

Nodes of another module cannot be located in the checked one's findings, so a fact
that points there carries a :class:`~checker.spec.links.Place`: the module's path as seen
from the checked module, and a line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import libcst as cst

from checker.facts.scopes.tree import ScopeTree
from checker.reading.positions import locate
from checker.spec.links import Place


class Places:
    """Where the nodes of one module are, as facts about another module cite them.

    Locating costs a pass over the module, so the first question locates every node
    such a fact may cite.
    """

    def __init__(self, tree: ScopeTree, path: str) -> None:
        self.tree = tree
        self.path = path
        self._lines: dict[cst.CSTNode, int] | None = None

    def place(self, node: cst.CSTNode, checked: str) -> Place:
        """Where ``node`` is, for a fact about the module at ``checked``."""
        return Place(self.short(checked), self.line(node))

    def short(self, checked: str) -> str:
        """This module's path as facts about ``checked`` show it (:func:`seen_from`)."""
        return seen_from(self.path, checked)

    def line(self, node: cst.CSTNode) -> int:
        module = self.tree.module.node
        assert isinstance(module, cst.Module)
        if self._lines is None:
            self._lines = _lines(module, _citable(self.tree))
        if node not in self._lines:
            self._lines.update(_lines(module, [node]))
        return self._lines[node]


def seen_from(path: str, checked: str) -> str:
    """``path`` relative to the folder of ``checked`` (``helpers.py``, ``sub/helpers.py``,
    ``../utils.py``), or its file name where there is no such path."""
    try:
        relative = os.path.relpath(Path(path).resolve(), Path(checked).resolve().parent)
    except (OSError, ValueError):  # another drive on Windows, or a path that cannot be resolved
        return Path(path).name
    return Path(relative).as_posix()


def _citable(tree: ScopeTree) -> list[cst.CSTNode]:
    """The nodes a fact about another module may cite: calls, def names, bindings, mutations."""
    nodes: list[cst.CSTNode] = [call for call, _ in tree.calls]
    nodes += [definition.name for definition, _ in tree.definitions]
    for scope in tree.module.walk():
        nodes += [binding.node for bindings in scope.bindings.values() for binding in bindings]
        nodes += [read.node for read in scope.reads if read.mutation is not None]
    return nodes


def _lines(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, int]:
    return {node: span[0][0] for node, span in locate(module, nodes).items()}
