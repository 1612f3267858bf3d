"""The changes of one module's top-level name in one file, read from CPython's tree.

The name is the object it is bound to: in its own module, and in every module that
re-exports it (``from ._impl import FLAGS`` in ``pkg/__init__.py``), so that
``from pkg import FLAGS; FLAGS["fast"] = False`` changes it too. Rebinding a re-export
rebinds only the re-exporting module's name, so only the defining module's counts.
A store that fills a memo (``cache[key] = v`` under ``if key not in cache:``, and the other
forms of :mod:`checker.index.memo_forms`) is no change: it is written once per key.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Set
from dataclasses import dataclass
from pathlib import Path

from checker.facts.captures.attribute_writes import ANY, conflicts
from checker.facts.captures.changes import ChangeKind
from checker.facts.kinds.kind import Kind
from checker.facts.scopes.tree import Declaration, Mutation, MutationKind, method_mutation
from checker.index.memo_forms import (
    Lookup,
    catches_key_error,
    fills,
    got_lookup,
    item_reads,
    missing_key,
    present_key,
    returns_when_present,
)
from checker.reading.forms import is_main_guard
from checker.reading.mentions import comparison_of, dotted_name
from checker.spec.torch_api import is_torch_module_class, is_torch_tensor_call

#: ``try``/``except`` statements (``except*`` from Python 3.11).
TRY_STATEMENTS = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
#: Where an import names (a module file, or None outside the project).
Resolve = Callable[[str], Path | None]
#: Module file -> the names it binds to the object (its own name, or re-exports of it).
Exposed = Mapping[Path, Set[str]]


@dataclass(frozen=True)
class Found:
    """One change of the name, at ``line`` of the scanned file."""

    kind: ChangeKind
    line: int
    declaration: Declaration | None = None
    function: str = ""
    mutation: Mutation | None = None
    #: For ``WRITTEN``: the attributes below the object the write goes through.
    path: tuple[str, ...] = ()
    #: What an assignment below the object stores, when it is a tensor or a module.
    holds: Kind | None = None


@dataclass(frozen=True)
class Below:
    """A read below the object, through ``attributes`` (``NS.alpha``: ``("alpha",)``; the
    name alone: ``()``): only the writes that reach it count, as ``WRITTEN``
    (``attribute_writes.conflicts``); ``holding``: only assignments of a tensor or a module there."""

    attributes: tuple[str, ...]
    holding: bool = False


def changes(
    tree: ast.Module,
    target: Path,
    name: str,
    exposed: Exposed,
    *,
    own: bool,
    rebinding: bool,
    module_of: Resolve,
    below: Below | None = None,
) -> Iterator[Found]:
    """The changes of ``target``'s top-level ``name`` (``exposed``: the names of the object in
    it and the modules that re-export it) in one parsed file. ``own``: the file is ``target`` itself. ``rebinding``:
    rebinding the name counts, not only changing the object in place. ``module_of``
    resolves a dotted import name to a module file. ``below``: the read goes through
    attributes of the object, and only the writes that reach them count."""
    scan = _Scan(name, exposed, own, rebinding and not (below is not None and below.holding), module_of, target)
    scan.below = below
    scan.body(tree.body, function=None)
    return iter(scan.found)


class _Scan:
    def __init__(
        self, name: str, exposed: Exposed, own: bool, rebinding: bool, module_of: Resolve, target: Path
    ) -> None:
        self.name = name
        self.exposed = exposed
        self.own = own
        self.rebinding = rebinding
        self.module_of = module_of
        self.module = target
        self.below: Below | None = None
        self.found: list[Found] = []
        #: Every local name an import binds, to what it names (``nn``: ``torch.nn``).
        self.imported: dict[str, str] = {}
        #: Local names bound to project modules (their dotted names), and to the object.
        self.modules: dict[str, str] = {}
        self.objects: set[str] = set()
        #: (container, key) pairs known to be missing where the scan is.
        self.missing: list[Lookup] = []
        #: Local names bound to a lookup (``v = cache.get(key)``): name -> (container, key).
        self.got: dict[str, Lookup] = {}
        #: How deep the scan is in top-level code that runs after the definitions: a loop, a
        #: ``__main__`` block (``in_main``: the latter).
        self.later = 0
        self.in_main = False
        self._resolved: dict[str, Path | None] = {}

    # -- walking ------------------------------------------------------------------

    def body(self, statements: list[ast.stmt], function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        guards = 0
        for statement in statements:
            self.statement(statement, function)
            present = returns_when_present(statement, self.got.get)
            if present is not None:
                self.missing.append(present)
                guards += 1
        del self.missing[len(self.missing) - guards :]

    def statement(self, node: ast.stmt, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.imports(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.expressions([*node.decorator_list, *node.args.defaults, *node.args.kw_defaults], function)
            outer, self.got = self.got, {}
            self.body(node.body, node)
            self.got = outer
        elif isinstance(node, ast.ClassDef):
            self.expressions([*node.decorator_list, *node.bases], function)
            self.body(node.body, function)
        elif isinstance(node, ast.If) and function is None and is_main_guard(comparison_of(node.test)):
            self.later += 1
            self.in_main = True
            self.body(node.body, function)
            self.later -= 1
            self.in_main = False
            self.body(node.orelse, function)
        elif isinstance(node, ast.If):
            self.expressions([node.test], function)
            missing, present = missing_key(node.test, self.got.get), present_key(node.test, self.got.get)
            if missing is not None:
                self.missing.append(missing)
            self.body(node.body, function)
            if missing is not None:
                self.missing.pop()
            if present is not None:  # ``if key in cache: ... else:``: missing in the else
                self.missing.append(present)
            self.body(node.orelse, function)
            if present is not None:
                self.missing.pop()
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)):
            self.stores(node, function)
            self.expressions([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)], function)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.expressions([node.iter], function)
            self.later += 1
            self.target(node.target, node, function)
            self.body(node.body, function)
            self.later -= 1
            self.body(node.orelse, function)
        elif isinstance(node, ast.While):
            self.expressions([node.test], function)
            self.later += 1
            self.body(node.body, function)
            self.later -= 1
            self.body(node.orelse, function)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expressions([item.context_expr], function)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, node, function)
            self.body(node.body, function)
        elif isinstance(node, TRY_STATEMENTS):
            self.body(node.body, function)
            looked_up = item_reads(node.body)
            for handler in node.handlers:
                absent = looked_up if catches_key_error(handler) else []
                self.missing += absent
                self.body(handler.body, function)
                del self.missing[len(self.missing) - len(absent) :]
            self.body(node.orelse, function)
            self.body(node.finalbody, function)
        elif isinstance(node, ast.Match):
            self.expressions([node.subject], function)
            for case in node.cases:
                self.body(case.body, function)
        else:
            self.expressions([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)], function)

    def expressions(
        self, nodes: list[ast.expr | None], function: ast.FunctionDef | ast.AsyncFunctionDef | None
    ) -> None:
        for root in nodes:
            if root is None:
                continue
            for node in ast.walk(root):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    mutation = method_mutation(node.func.attr)
                    path = self.rooted(node.func.value, function) if mutation is not None else None
                    if mutation is not None and path is not None:
                        self.mutated(node, mutation, function, path)
                if isinstance(node, ast.Call) and _setter(node.func) and len(node.args) >= 2:
                    self.set_by_name(node, function)

    def set_by_name(self, call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        """``setattr(obj, "x", v)``, ``delattr(config.NS, name)``."""
        path = self.rooted(call.args[0], function)
        if path is None:
            return
        attr = call.args[1]
        named = attr.value if isinstance(attr, ast.Constant) and isinstance(attr.value, str) else ANY
        how = MutationKind.DELETE if _setter(call.func) == "delattr" else MutationKind.ATTRIBUTE
        full = (*path, named)
        self.mutated(call, Mutation(how, ".".join(full)), function, full, call.args[2] if len(call.args) > 2 else None)

    # -- what a statement does ------------------------------------------------------

    def imports(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                self.modules[bound] = self.imported[bound] = alias.name if alias.asname else bound
            return
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            if not node.level:
                self.imported[alias.asname or alias.name] = f"{module}.{alias.name}"
            qualified = f"{module}.{alias.name}" if not module.endswith(".") else f"{module}{alias.name}"
            bound = alias.asname or alias.name
            if self.resolve(qualified) is not None:
                self.modules[bound] = qualified
            elif alias.name in self.exposed.get(self.resolve(module) or Path(), ()):
                self.objects.add(bound)

    def stores(
        self,
        node: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Delete,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
    ) -> None:
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        if isinstance(node, ast.AnnAssign) and node.value is None:
            return
        for target in targets:
            self.target(target, node, function)
            if isinstance(target, ast.Name):  # ``v = cache.get(key)``, or another value
                lookup = got_lookup(node.value) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
                if lookup is not None:
                    self.got[target.id] = lookup
                else:
                    self.got.pop(target.id, None)

    def target(
        self, target: ast.expr, statement: ast.stmt, function: ast.FunctionDef | ast.AsyncFunctionDef | None
    ) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.target(element, statement, function)
            return
        if isinstance(target, ast.Starred):
            self.target(target.value, statement, function)
            return
        augmented = isinstance(statement, ast.AugAssign)
        deleting = isinstance(statement, ast.Delete)
        if isinstance(target, ast.Name) and target.id == self.name and self.own:
            if augmented and self.rebinding:
                self.found.append(Found(ChangeKind.AUGMENTED, statement.lineno))
            elif function is not None and self.rebinding and _declares_global(function, self.name):
                self.found.append(Found(ChangeKind.DECLARED, statement.lineno, Declaration.GLOBAL, function.name))
            elif function is None and self.later and self.rebinding:
                kind = ChangeKind.REBOUND if self.in_main and not self.later - 1 else ChangeKind.LOOP
                self.found.append(Found(kind, statement.lineno))
            return
        if isinstance(target, ast.Attribute) and target.attr == self.name and self.is_module(target.value):
            if self.rebinding:
                kind = ChangeKind.AUGMENTED if augmented else ChangeKind.ASSIGNED
                self.found.append(Found(kind, statement.lineno))
            return
        path = self.rooted(target.value, function) if isinstance(target, (ast.Subscript, ast.Attribute)) else None
        if isinstance(target, (ast.Subscript, ast.Attribute)) and path is not None:
            if isinstance(target, ast.Attribute):
                path = (*path, target.attr)
            if deleting:
                mutation = Mutation(MutationKind.DELETE, ".".join(path))
            elif isinstance(target, ast.Attribute):
                mutation = Mutation(MutationKind.ATTRIBUTE, ".".join(path))
            else:
                key = (ast.unparse(target.value), ast.unparse(target.slice))
                mutation = Mutation(
                    MutationKind.ITEM, ".".join(path), memoises=fills(key, self.missing) and not augmented
                )
            value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            self.mutated(statement, mutation, function, path, value)

    def mutated(
        self,
        node: ast.AST,
        mutation: Mutation,
        function: object,
        path: tuple[str, ...] = (),
        value: ast.expr | None = None,
    ) -> None:
        """A change of the object in place; ``path``: the attributes below it the change goes
        through (``config.CFG.opts = v``: ``("opts",)``), ``value`` what an assignment stores."""
        if mutation.memoises:
            return
        if self.own and function is None and not self.later:
            return  # the module's own straight-line top level runs at import time
        line = getattr(node, "lineno", 0)
        below = self.below
        if below is None:
            self.found.append(Found(ChangeKind.MUTATED, line, mutation=mutation))
        elif conflicts(path, below.attributes):
            holds = self.holds(value) if mutation.kind is MutationKind.ATTRIBUTE else None
            if below.holding and (holds is None or len(path) < len(below.attributes)):
                return
            name = function.name if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else ""
            self.found.append(Found(ChangeKind.WRITTEN, line, None, name, mutation, path, holds))

    def holds(self, value: ast.expr | None) -> Kind | None:
        """A tensor or a module, by the call that makes it (``nn.Linear(3, 3)``, ``torch.zeros(3)``)."""
        if not isinstance(value, ast.Call):
            return None
        qualified = dotted_name(value.func, self.imported)
        if qualified is None:
            return None
        if is_torch_module_class(qualified):
            return Kind.MODULE
        return Kind.TENSOR if is_torch_tensor_call(qualified) else None

    # -- what an expression refers to -----------------------------------------------------

    def is_module(self, expr: ast.expr) -> bool:
        """``config``, ``cfg``, ``pkg.config``: the target module."""
        return self.module_of_expr(expr) == self.module

    def rooted(self, expr: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> tuple[str, ...] | None:
        """The attributes ``expr`` goes through below the object (``config.CFG.opts``:
        ``("opts",)``; the object itself: ``()``), or None when it is not below it."""
        path: list[str] = []
        while not self.is_object(expr, function):
            if isinstance(expr, ast.Attribute):
                path.append(expr.attr)
                expr = expr.value
            elif isinstance(expr, ast.Subscript):
                expr = expr.value
            else:
                return None
        return tuple(reversed(path))

    def module_of_expr(self, expr: ast.expr) -> Path | None:
        dotted = dotted_name(expr, self.modules)
        return None if dotted is None else self.resolve(dotted)

    def is_object(self, expr: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
        """``config.X`` (or ``pkg.X``, a re-export), or a name bound to it: ``X`` in the module
        itself (not shadowed by a local of the function), or imported from one that binds it."""
        if isinstance(expr, ast.Attribute):
            module = self.module_of_expr(expr.value)
            return module is not None and expr.attr in self.exposed.get(module, ())
        if isinstance(expr, ast.Name):
            if expr.id in self.objects:
                return True
            return self.own and expr.id == self.name and not _local_in(function, self.name)
        return False

    def resolve(self, dotted: str) -> Path | None:
        if dotted not in self._resolved:
            self._resolved[dotted] = self.module_of(dotted)
        return self._resolved[dotted]


def _setter(func: ast.expr) -> str | None:
    """``setattr``/``delattr`` (builtins by their name)."""
    return func.id if isinstance(func, ast.Name) and func.id in ("setattr", "delattr") else None


def _declares_global(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    return any(isinstance(node, ast.Global) and name in node.names for node in ast.walk(function))


def _local_in(function: ast.FunctionDef | ast.AsyncFunctionDef | None, name: str) -> bool:
    """Whether ``name`` is a local of ``function`` (a parameter, or assigned without ``global``)."""
    if function is None or _declares_global(function, name):
        return False
    arguments = function.args
    if name in {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}:
        return True
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
    return False
