"""The state of the pass that builds a ``ScopeTree``, and what its handlers share.

The walker knows the scope it is in, the branches and loops around the code it
visits, and the cache keys known to be missing there; it binds and reads names,
records assignment targets (and the objects they change), and hands each node to the
handler of its type. The handlers of statements and of expressions build on it
(:mod:`checker.facts.scopes.statements`, :mod:`checker.facts.scopes.expressions`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import libcst as cst

from checker.facts.scopes.memo_guards import KeyDerivation, Lookup, fills_beside, fills_missing, got_lookup
from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import (
    AttributeStore,
    Binding,
    BindingKind,
    Mutation,
    MutationKind,
    Read,
    Scope,
    ScopeKind,
    ScopeTree,
    Store,
    all_params,
)

#: A node type -> the method that visits it, called with the walker and the node.
Handlers = dict[type[cst.CSTNode], Callable[[Any, Any], None]]


class ScopeWalker:
    """One pass over one module. ``handlers`` maps a node type to the method that visits
    it; a node without one is walked generically, a ``Name`` counted as a read."""

    handlers: ClassVar[Handlers] = {}

    def __init__(self, module: cst.Module) -> None:
        root = Scope(ScopeKind.MODULE, module, None, "<module>")
        self.tree = ScopeTree(root, {module: root}, [], [], set(), {})
        self.scope = root
        self._branches: list[tuple[cst.CSTNode, int]] = []
        self._loops = 0
        #: (container, key) pairs known to be missing here: ``if key not in cache:``
        self._missing: list[Lookup] = []
        #: A loop target or augmented assignment (its binding node) -> what it is computed from.
        self._sources: dict[cst.CSTNode, cst.BaseExpression] = {}
        self._main = 0  # depth of ``if __name__ == "__main__":`` blocks

    # -- scopes -------------------------------------------------------------

    def _enter(self, kind: ScopeKind, node: cst.CSTNode, name: str) -> Scope:
        scope = Scope(kind, node, self.scope, name)
        self.scope.children.append(scope)
        self.tree.scope_of[node] = scope
        return scope

    def _enter_body(self, kind: ScopeKind, node: cst.CSTNode, name: str) -> tuple[Scope, list, int]:
        """Enter a def, lambda or class body: branches and loops outside it do not apply inside."""
        saved = (self.scope, self._branches, self._loops)
        self.scope = self._enter(kind, node, name)
        self._branches, self._loops = [], 0
        return saved

    def _leave_body(self, saved: tuple[Scope, list, int]) -> None:
        self.scope, self._branches, self._loops = saved

    def _in_branch(self, statement: cst.CSTNode, branch: int, node: cst.CSTNode | None) -> None:
        if node is None:
            return
        self._branches.append((statement, branch))
        self._visit(node)
        self._branches.pop()

    def _in_loop(self, node: cst.CSTNode | None) -> None:
        if node is None:
            return
        self._loops += 1
        self._visit(node)
        self._loops -= 1

    def _redirect(self, scope: Scope) -> None:
        """Move bindings of ``global``/``nonlocal`` names to the scope that owns them."""
        for binding in scope.redirected:
            owner = (
                self.tree.module
                if binding.name in scope.declared_global
                else self.tree.free_owner(scope.parent, binding.name)
            )
            if owner is not None:
                owner.bindings.setdefault(binding.name, []).append(binding)

    def _bind(self, name: str, node: cst.CSTNode, kind: BindingKind, **details: object) -> Binding:
        scope = self.scope
        if kind is BindingKind.WALRUS:
            while scope.kind is ScopeKind.COMPREHENSION and scope.parent is not None:
                scope = scope.parent
        binding = Binding(name, node, kind, self.scope, **details)  # type: ignore[arg-type]
        binding.branches = tuple(self._branches)
        binding.in_loop = self._loops > 0
        binding.in_main = self._main > 0
        if name in scope.declared_global or name in scope.declared_nonlocal:
            scope.redirected.append(binding)
        else:
            scope.bindings.setdefault(name, []).append(binding)
        return binding

    def _read(self, node: cst.Name, mutation: Mutation | None = None) -> Read:
        read = Read(node.value, node, self.scope, mutation, self._loops > 0, self._main > 0)
        self.scope.reads.append(read)
        return read

    def _visit(self, node: cst.CSTNode) -> None:
        handler = self.handlers.get(type(node))
        if handler is not None:
            handler(self, node)
            return
        if isinstance(node, cst.Name):
            self._read(node)
            return
        for child in children(node):
            self._visit(child)

    def _defaults(self, params: cst.Parameters) -> list[Read]:
        before = len(self.scope.reads)
        for param in all_params(params):
            if param.default is not None:
                self._visit(param.default)
        return self.scope.reads[before:]

    def _parameters(self, params: cst.Parameters) -> None:
        for param in all_params(params):
            self._bind(param.name.value, param.name, BindingKind.PARAMETER, annotation=_annotation(param.annotation))

    def _target(
        self,
        target: cst.BaseExpression,
        kind: BindingKind,
        value: cst.BaseExpression | None,
        annotation: cst.BaseExpression | None = None,
    ) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, target, kind, value=value, annotation=annotation)
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = _unpacked(target, value)
            for element, element_value in zip(target.elements, values, strict=True):
                self._target(element.value, kind, element_value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value, kind, None)
        elif isinstance(target, cst.Attribute):
            self._mutated_base(target.value, Mutation(MutationKind.ATTRIBUTE, target.attr.value))
            if isinstance(target.value, cst.Name):
                self.scope.attribute_stores.append(AttributeStore(target.value.value, target.attr.value, value, target))
        elif isinstance(target, cst.Subscript):
            self._item_store(target, value)
            for index in target.slice:
                self._visit(index)
        else:
            self._visit(target)

    def _mutated_base(self, base: cst.BaseExpression, how: Mutation) -> Read | None:
        if isinstance(base, cst.Name):
            return self._read(base, mutation=how)
        self._visit(base)
        return None

    # -- caches -------------------------------------------------------------

    def _item_store(self, target: cst.Subscript, value: cst.BaseExpression | None) -> None:
        """``cache[key] = value``: a fill of what is missing under a lookup of the key, or of
        another cache filled by the same lookup, memoises (is written once per key)."""
        exact = fills_missing(target, self._missing)
        beside = not exact and fills_beside(target, self._missing)
        key, base = target.slice[0].slice, target.value  # one index by name: fills_missing and fills_beside ask
        from_key = (
            (exact or beside)
            and isinstance(key, cst.Index)
            and isinstance(base, cst.Name)
            and self._from_key(value, key.value, base.value)
        )
        memo = exact or beside  # filled once per key either way; a memo of the key if from_key
        read = self._mutated_base(target.value, Mutation(MutationKind.ITEM, memoises=memo))
        if read is not None:
            self.tree.stores[read.node] = Store(value, self.scope, memo and from_key)

    def _method_store(self, read: Read, call: cst.Call) -> None:
        """``cache.setdefault(key, value)`` memoises; ``parts.append(v)`` stores ``v``."""
        args = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        if not args:
            return
        assert read.mutation is not None
        if not read.mutation.memoises:
            self.tree.stores[read.node] = Store(args[-1], self.scope)
            return
        value = args[1] if len(args) > 1 else cst.Name("None")
        self.tree.stores[read.node] = Store(value, self.scope, self._from_key(value, args[0], read.name))

    def _from_key(self, value: cst.BaseExpression | None, key: cst.BaseExpression, cache: str) -> bool:
        return KeyDerivation(self.scope, self.tree.stores, self._sources).from_key(value, key, cache)

    def _got(self, name: str) -> Lookup | None:
        """The lookup the latest binding of the local ``name`` made (``v = cache.get(key)``)."""
        bindings = self.scope.bindings.get(name)
        return got_lookup(bindings[-1].value) if bindings else None


def _annotation(annotation: cst.Annotation | None) -> cst.BaseExpression | None:
    return None if annotation is None else annotation.annotation


def _unpacked(target: cst.Tuple | cst.List, value: cst.BaseExpression | None) -> list[cst.BaseExpression | None]:
    """Pair ``a, b = x, y`` element-wise; unknown when shapes differ or star is used."""
    count = len(target.elements)
    if (
        isinstance(value, (cst.Tuple, cst.List))
        and len(value.elements) == count
        and not any(isinstance(e, cst.StarredElement) for e in (*value.elements, *target.elements))
    ):
        return [element.value for element in value.elements]
    return [None] * count
