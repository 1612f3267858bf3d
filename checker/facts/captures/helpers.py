"""Captures in the helpers a registered body calls, followed a few calls deep.

A helper is a def of this module, or through an import a top-level def of another
module of the project. A capture in another module's helper is reported at the call
in this module that leads there; what it cites there is carried as places.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Protocol

import libcst as cst

from checker.facts.captures.capture import HELPER_DEPTH, Capture, Holder, Link
from checker.facts.captures.module_attributes import ImportedGlobals
from checker.facts.captures.own import OwnCaptures
from checker.facts.captures.places import Places
from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Kind
from checker.facts.registrations.targets import Body
from checker.facts.scopes.tree import Scope, ScopeKind, ScopeTree
from checker.spec.links import Place


@dataclass(frozen=True, eq=False)
class Helper:
    """A function a registered body calls, with the capture finder of its module."""

    body: Body
    finder: CaptureFinder


class ImportedHelpers(Protocol):
    """What following helpers asks of the other modules of the project."""

    def helpers(self, importer: str, qualified: str) -> Sequence[Helper]:
        """The top-level defs of the project module that binds ``qualified`` (imported by
        the module at ``importer``; re-exports followed), each with its module's finder."""
        ...


class CaptureIndex(ImportedHelpers, ImportedGlobals, Protocol):
    """What capture finding asks of the other modules of the project."""


class CaptureFinder:
    """The captures of one module's bodies: each body's own (:class:`OwnCaptures`) and,
    through its calls, its helpers'. ``opaque`` gives the bodies of the module
    that tracing does not enter from a registered function (registered ones, judged as
    registrations of their own; custom ops): asked once a helper leads to one, and
    not followed into."""

    def __init__(
        self,
        tree: ScopeTree,
        inference: Inference,
        opaque: Callable[[], frozenset[cst.CSTNode]],
        index: CaptureIndex | None = None,
    ) -> None:
        self.tree = tree
        self.inference = inference
        self.index = index
        self._opaque = opaque
        self._own = OwnCaptures(tree, inference, index)
        # Each capture rule asks again, and following helpers may parse and locate in other modules.
        self._followed: dict[tuple[cst.CSTNode, bool], list[Capture]] = {}
        self._helper_calls: dict[tuple[cst.CSTNode, bool], list[tuple[cst.Call, Helper]]] = {}

    @cached_property
    def opaque(self) -> frozenset[cst.CSTNode]:
        return self._opaque()

    @cached_property
    def places(self) -> Places:
        """Where this module's nodes are, for facts about a module whose helpers lead here."""
        return Places(self.tree, self.inference.path)

    def captures(self, body: Body) -> list[Capture]:
        """Captures of ``body`` and, with the call chain, of the helpers it calls."""
        key = (body.node, body.bound_self)
        if key not in self._followed:
            self._followed[key] = self.own_captures(body) + self._through_helpers(self, body, body, (), {body.node})
        return self._followed[key]

    def _through_helpers(
        self,
        finder: CaptureFinder,
        body: Body,
        root: Body,
        chain: tuple[Link, ...],
        visited: set[cst.CSTNode],
    ) -> list[Capture]:
        """``finder`` is that of the module ``body`` is in: this one or one it leads to.
        ``visited`` holds nodes of every module on the way, so cycles across modules end too."""
        if len(chain) >= HELPER_DEPTH:
            return []
        found: list[Capture] = []
        for call, helper in finder.helper_calls(body):
            owner = helper.finder
            if helper.body.node in visited or helper.body.node in owner.opaque:
                continue
            visited.add(helper.body.node)
            link = (*chain, self._link(finder, call, helper))
            found += self._relocated(owner, owner.own_captures(helper.body), root, link)
            found += self._through_helpers(owner, helper.body, root, link, visited)
        return found

    def helper_calls(self, body: Body) -> list[tuple[cst.Call, Helper]]:
        """Calls in ``body`` of functions defined outside it: in this module, or at the top
        level of another module of the project; each with the finder of its module."""
        key = (body.node, body.bound_self)
        if key not in self._helper_calls:
            self._helper_calls[key] = self._helper_calls_uncached(body)
        return self._helper_calls[key]

    def _helper_calls_uncached(self, body: Body) -> list[tuple[cst.Call, Helper]]:
        helpers: list[tuple[cst.Call, Helper]] = []
        for scope in body.scope.walk():
            for call, call_scope in self.tree.calls_in(scope):
                callee = self.inference.infer(call.func, call_scope)
                if callee.kind is Kind.UNKNOWN or (callee.kind is Kind.FUNCTION and callee.definition is None):
                    # an imported name (a function of another module comes without its body): look there
                    helpers += [(call, found) for found in self._imported(call, call_scope)]
                elif callee.kind is Kind.FUNCTION and isinstance(callee.definition, cst.FunctionDef):
                    local = self._local_helper(body, call, callee.definition)
                    if local is not None:
                        helpers.append((call, Helper(local, self)))
        return helpers

    def _imported(self, call: cst.Call, scope: Scope) -> list[Helper]:
        if self.index is None:
            return []
        found: list[Helper] = []
        for qualified in sorted(self.inference.qualified_names(call.func, scope)):
            if not qualified.startswith("builtins."):
                found += self.index.helpers(self.inference.path, qualified)
        return found

    def _local_helper(self, body: Body, call: cst.Call, definition: cst.FunctionDef) -> Body | None:
        helper_scope = self.tree.scope_of.get(definition)
        if helper_scope is None:
            return None  # a method of a class from another module
        if body.scope.encloses(helper_scope):
            return None
        in_class = helper_scope.parent is not None and helper_scope.parent.kind is ScopeKind.CLASS
        bound = in_class and isinstance(call.func, cst.Attribute) and not self._is_static(definition)
        return Body(definition, helper_scope, bound_self=bound)

    def _link(self, finder: CaptureFinder, call: cst.Call, helper: Helper) -> Link:
        """The link for ``call`` (written in ``finder``'s module) to ``helper``."""
        checked = self.inference.path
        name = helper.body.name
        here = finder is self
        call_at = None if here else finder.places.place(call, checked)
        defined = None
        if helper.finder is not self and isinstance(helper.body.node, cst.FunctionDef):
            defined = helper.finder.places.place(helper.body.node.name, checked)
        return Link(name, call if here else None, call_at, defined)

    def _relocated(
        self, owner: CaptureFinder, captures: list[Capture], root: Body, chain: tuple[Link, ...]
    ) -> list[Capture]:
        """The captures of a helper of ``owner``'s module, as reported for this module's ``root``."""
        if owner is self:
            return [replace(capture, root=root, chain=chain) for capture in captures]
        # Reported at the last call in this module on the way (the first link always is one).
        anchor = next(link.call for link in reversed(chain) if link.call is not None)
        path = owner.places.short(self.inference.path)
        return [_foreign(capture, anchor, path, owner.places.line, root, chain) for capture in captures]

    def _is_static(self, definition: cst.FunctionDef) -> bool:
        outer = self.tree.scope_of[definition].parent
        return outer is not None and "builtins.staticmethod" in self.inference.decorator_names(definition, outer)

    def closure_names(self, body: Body) -> list[str]:
        """Names the body, or its default values, read from an enclosing function's scope."""
        return self._own.closure_names(body)

    def own_captures(self, body: Body) -> list[Capture]:
        """The captures of ``body`` itself, helpers not followed."""
        return self._own.captures(body)


def _foreign(
    capture: Capture,
    anchor: cst.CSTNode,
    path: str,
    line: Callable[[cst.CSTNode], int],
    root: Body,
    chain: tuple[Link, ...],
) -> Capture:
    """A capture of another module's helper, reported at ``anchor``, its places as data."""
    source = capture.source
    if source.holder is not Holder.DEFAULT:
        cited = line(capture.binding) if capture.binding is not None else None
        source = replace(source, module=path, line=cited)
    change = capture.change
    if change is not None and change.node is not None:
        change = replace(change, node=None, place=Place(path, line(change.node)))
    return replace(capture, node=anchor, source=source, binding=None, change=change, root=root, chain=chain)
