"""Writes, in the checked module, below a name: ``NS.alpha = v``, ``setattr(NS, "alpha", v)``,
``CFG.opts = dataclasses.replace(CFG.opts, ...)``, ``del NS.x``, ``CFG.opts.update(...)``,
``os.environ["K"] = v``.

Reading an attribute of an object reads what the object holds now, and a compiled
function keeps what it read while compiling (evidence/dynamo/FINDINGS.md S§1b): the read
is state only when some write changes what it reads after import. Each write is kept
with the attributes it goes through (its path), so a read of ``NS.alpha`` is matched with
the writes of ``NS.alpha`` (or of ``NS`` itself), not with those of ``NS.beta``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from checker.facts.scopes.statements import comparison_of
from checker.facts.scopes.syntax import Walker
from checker.facts.scopes.tree import Mutation, MutationKind, Scope, ScopeKind, ScopeTree, method_mutation
from checker.reading.forms import is_main_guard

#: A path element that stands for any attribute: ``setattr(NS, name, v)``, ``NS.__dict__``.
ANY = "*"
_WILDCARDS = frozenset({ANY, "__dict__"})
_SETTERS = {"setattr": MutationKind.ATTRIBUTE, "delattr": MutationKind.DELETE}


@dataclass(frozen=True, eq=False)
class Write:
    """One write below the name ``root``: ``path`` the attributes it goes through (``CFG.opts
    = v``: ``("opts",)``; ``NS.table[k] = v``: ``("table",)``), ``mutation`` what it does
    (its ``name``: the path, dotted), ``key`` the literal key of an item written or of
    ``setdefault``/``pop``, ``value`` what an assignment stores. ``later``: it runs after
    import (in a function, a top-level loop or a ``__main__`` block)."""

    root: cst.Name
    scope: Scope
    path: tuple[str, ...]
    mutation: Mutation
    node: cst.CSTNode
    value: cst.BaseExpression | None = None
    key: str | None = None
    later: bool = True


def conflicts(written: tuple[str, ...], read: tuple[str, ...]) -> bool:
    """Whether a write through ``written`` can change a read through ``read``: one path
    is the start of the other (``CFG.opts = v`` and ``CFG.opts.scale``), or it writes
    an attribute it does not name (``setattr(NS, name, v)``). A read of the name itself
    (``isinstance(x, C)``, ``C(...)``: no attributes) is changed only by writes of the
    object itself (``C[k] = v``, ``C.update(...)``), not by those of its attributes."""
    if not read:
        return not written
    for mine, theirs in zip(written, read, strict=False):
        if mine in _WILDCARDS:
            return True
        if mine != theirs:
            return False
    return True


def chain(expr: cst.BaseExpression) -> tuple[cst.Name, tuple[str, ...]] | None:
    """``CFG.opts.scale``: (``CFG``, ``("opts", "scale")``); subscripts are gone through
    (``NS.table[k].x``: ``("table", "x")``); anything else (a call) is no chain."""
    path: list[str] = []
    while not isinstance(expr, cst.Name):
        if isinstance(expr, cst.Attribute):
            path.append(expr.attr.value)
            expr = expr.value
        elif isinstance(expr, cst.Subscript):
            expr = expr.value
        else:
            return None
    return expr, tuple(reversed(path))


#: What kinds' inference names a ``SimpleNamespace(...)`` call by (``Inferred.subject``).
NAMESPACE_SUBJECTS = frozenset({"SimpleNamespace", "types.SimpleNamespace", "Namespace", "argparse.Namespace"})


def read_path(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> tuple[str, ...]:
    """The attributes a read goes through below ``node``: ``CFG.opts.scale`` read at ``CFG``
    is ``("opts", "scale")``."""
    path: list[str] = []
    while isinstance(parent := parents.get(node), cst.Attribute) and parent.value is node:
        path.append(parent.attr.value)
        node = parent
    return tuple(path)


def written(root: str, write_path: tuple[str, ...]) -> str:
    """``NS`` and ``("alpha",)``: ``NS.alpha``; an attribute the write does not name stays off."""
    return ".".join([root, *(part for part in write_path if part != ANY)])


def literal(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


class AttributeWrites:
    """Every write below a name in one module, found in one walk on first use."""

    def __init__(self, tree: ScopeTree) -> None:
        self.tree = tree
        self._writes: list[Write] | None = None

    def all(self) -> list[Write]:
        if self._writes is None:
            walker = _Walker(self.tree)
            walker.walk(self.tree.module.node)
            self._writes = walker.found
        return self._writes

    def below(self, owner: Scope, name: str, read: tuple[str, ...]) -> Iterator[Write]:
        """The writes after import below ``owner``'s ``name`` that can change a read of
        ``name`` through ``read``, in module order. For a local of a function, the writes
        of the function itself are the making of the object (``self.k = k`` in
        ``__init__``, before the lambda that reads it): only those of nested functions count."""
        for write in self.all():
            if (
                write.later
                and (owner.kind is ScopeKind.MODULE or write.scope is not owner)
                and write.root.value == name
                and self.tree.owner(write.scope, name) is owner
                and conflicts(write.path, read)
            ):
                yield write


class _Walker(Walker):
    def __init__(self, tree: ScopeTree) -> None:
        self.tree = tree
        self.found: list[Write] = []
        self._scopes: list[Scope] = [tree.module]
        self._later = 0  # top-level loops and ``__main__`` blocks around

    @property
    def _runs_later(self) -> bool:
        return self._later > 0 or self._scopes[-1].enclosing_function() is not None

    def _enter(self, node: cst.CSTNode) -> None:
        self._scopes.append(self.tree.scope_of.get(node, self._scopes[-1]))

    def _leave(self, node: cst.CSTNode) -> None:
        self._scopes.pop()

    visit_FunctionDef = visit_Lambda = visit_ClassDef = _enter  # type: ignore[assignment]
    leave_FunctionDef = leave_Lambda = leave_ClassDef = _leave  # type: ignore[assignment]

    def _loop(self, node: cst.CSTNode) -> None:
        self._later += 1

    def _loop_end(self, node: cst.CSTNode) -> None:
        self._later -= 1

    visit_For = visit_While = _loop  # type: ignore[assignment]
    leave_For = leave_While = _loop_end  # type: ignore[assignment]

    def visit_If(self, node: cst.If) -> None:
        self._later += is_main_guard(comparison_of(node.test))

    def leave_If(self, node: cst.If) -> None:
        self._later -= is_main_guard(comparison_of(node.test))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store(target.target, node, MutationKind.ATTRIBUTE, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._store(node.target, node, MutationKind.ATTRIBUTE, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target, node, MutationKind.ATTRIBUTE, None)

    def visit_Del(self, node: cst.Del) -> None:
        self._store(node.target, node, MutationKind.DELETE, None)

    def _store(
        self, target: cst.BaseExpression, node: cst.CSTNode, how: MutationKind, value: cst.BaseExpression | None
    ) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value, node, how, None)
            return
        if isinstance(target, cst.StarredElement):
            self._store(target.value, node, how, None)
            return
        if isinstance(target, cst.Attribute):
            found = chain(target)
            if found is not None:
                self._add(found[0], found[1], Mutation(how, ".".join(found[1])), node, value)
        elif isinstance(target, cst.Subscript):
            found = chain(target.value)
            if found is not None:
                key = literal(target.slice[0].slice.value) if isinstance(target.slice[0].slice, cst.Index) else None
                kind = MutationKind.DELETE if how is MutationKind.DELETE else MutationKind.ITEM
                self._add(found[0], found[1], Mutation(kind, ".".join(found[1])), node, value, key)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in _SETTERS and len(node.args) >= 2:
            self._setter(node, _SETTERS[func.value])
        elif isinstance(func, cst.Attribute) and func.attr.value == "__setattr__" and len(node.args) >= 3:
            self._setter(node, MutationKind.ATTRIBUTE, skip=1)  # ``object.__setattr__(obj, "x", v)``
        elif isinstance(func, cst.Attribute):
            mutation = method_mutation(func.attr.value)
            found = chain(func.value)
            if mutation is not None and found is not None:
                key = literal(node.args[0].value) if node.args else None
                self._add(found[0], found[1], Mutation(MutationKind.METHOD, func.attr.value), node, None, key)

    def _setter(self, call: cst.Call, how: MutationKind, skip: int = 0) -> None:
        found = chain(call.args[skip].value)
        if found is None:
            return
        attr = literal(call.args[skip + 1].value)
        path = (*found[1], attr if attr is not None else ANY)
        value = call.args[skip + 2].value if len(call.args) > skip + 2 else None
        self._add(found[0], path, Mutation(how, ".".join(path)), call, value)

    def _add(
        self,
        root: cst.Name,
        path: tuple[str, ...],
        mutation: Mutation,
        node: cst.CSTNode,
        value: cst.BaseExpression | None,
        key: str | None = None,
    ) -> None:
        self.found.append(Write(root, self._scopes[-1], path, mutation, node, value, key, self._runs_later))
