"""Helpers a registered body calls through an import, defined in another module of the project.

``from .helpers import normalize`` then ``normalize(x)``, or ``from . import helpers``
then ``helpers.normalize(x)``: the call leads to a top-level def of ``helpers.py``.
Modules are reached only through ``Project.lookup``, which records that the checked
file's result depends on them, and re-exports are followed through ``Project.origin``,
which ends import cycles. Nodes of another module cannot be located in the checked
one, so what the messages cite there is written out as text (``helpers.py:4``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst

from checker.facts.inference import Inference
from checker.facts.scopes import BindingKind, Scope, ScopeTree
from checker.facts.targets import Body
from checker.positions import locate

if TYPE_CHECKING:
    from checker.facts.captures import CaptureFinder
    from checker.facts.module import ModuleFacts


def imported_helpers(inference: Inference, call: cst.Call, scope: Scope) -> list[tuple[Body, CaptureFinder]]:
    """The top-level defs of other project modules that ``call`` reaches through an import,
    with the capture finder of their module."""
    project = inference.project
    if project is None:
        return []
    found: list[tuple[Body, CaptureFinder]] = []
    for qualified in sorted(inference.qualified_names(call.func, scope)):
        if qualified.startswith("builtins."):
            continue
        origin = project.origin(inference.path, qualified)
        if origin is None:
            continue  # not a module of the project (numpy, torch, a missing file)
        facts, _, bindings = origin
        for binding in bindings:
            definition = binding.definition
            if binding.kind is BindingKind.FUNCTION and isinstance(definition, cst.FunctionDef):
                found.append((Body(definition, facts.tree.scope_of[definition]), _finder_of(facts)))
    return found


def _finder_of(facts: ModuleFacts) -> CaptureFinder:
    """The capture finder of a module a helper leads to, told which bodies the module
    registers: those are checked there, so not followed into from elsewhere."""
    finder = facts._capture_finder
    if finder.registered_here is None:
        finder.registered_here = frozenset(body.node for target in facts.targets for body in target.bodies)
    return finder


class Places:
    """Where the nodes of one module are, as messages about another module write it.

    Locating costs a pass over the module, so the first question locates every node
    such a message may cite.
    """

    def __init__(self, tree: ScopeTree, path: str) -> None:
        self.tree = tree
        self.path = path
        self._lines: dict[cst.CSTNode, int] | None = None

    def place(self, node: cst.CSTNode, checked: str) -> str:
        """``helpers.py:4``, in a message about the module at ``checked``."""
        return f"{self.short(checked)}:{self.line(node)}"

    def short(self, checked: str) -> str:
        """This module's path relative to the folder of ``checked`` (``helpers.py``,
        ``sub/helpers.py``, ``../utils.py``), or its file name where there is no such path."""
        try:
            relative = os.path.relpath(Path(self.path).resolve(), Path(checked).resolve().parent)
        except (OSError, ValueError):  # another drive on Windows, or a path that cannot be resolved
            return Path(self.path).name
        return Path(relative).as_posix()

    def line(self, node: cst.CSTNode) -> int:
        module = self.tree.module.node
        assert isinstance(module, cst.Module)
        if self._lines is None:
            self._lines = _lines(module, _citable(self.tree))
        if node not in self._lines:
            self._lines.update(_lines(module, [node]))
        return self._lines[node]


def _citable(tree: ScopeTree) -> list[cst.CSTNode]:
    """The nodes a message about another module may cite: calls, def names, bindings, mutations."""
    nodes: list[cst.CSTNode] = [call for call, _ in tree.calls]
    nodes += [definition.name for definition, _ in tree.definitions]
    for scope in tree.module.walk():
        nodes += [binding.node for bindings in scope.bindings.values() for binding in bindings]
        nodes += [read.node for read in scope.reads if read.mutation is not None]
    return nodes


def _lines(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, int]:
    return {node: span[0][0] for node, span in locate(module, nodes).items()}
