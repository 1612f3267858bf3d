"""Where the project changes a module's top-level name: CPython's parser over the files
that mention it.

Another module can change ``config.X`` by assigning it (``config.X = v``, ``config.X +=
v``, ``del config.X``) or by changing the object in place (``config.X[k] = v``,
``config.X.append(v)``, ``from .config import X; X.update(...)``), at any level, since
nobody knows when it is imported. The module itself changes it only from its functions
(``global X; X = v``, ``X.append(v)`` in a function), or by augmented assignment; its top
level runs at import, before anything is compiled. Writes that only fill in what is
missing (``if k not in cache: cache[k] = v``, ``setdefault``) are memoisation and leave
what was read as it was. Nothing is imported or run: the files are parsed, not executed.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Callable, Iterator, Set
from dataclasses import dataclass
from pathlib import Path

from checker.facts.changes import ChangeKind
from checker.facts.scopes import MUTATING_METHODS, Declaration, Mutation, MutationKind, is_mutating_method
from checker.packages import module_file, project_files, project_root
from checker.source import decode_source, python_gate

#: ``try``/``except`` statements (``except*`` from Python 3.11).
_TRY = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
#: Where an import names (a module file, or None outside the project).
Resolve = Callable[[str], Path | None]


@dataclass(frozen=True)
class Found:
    """One change of the name, at ``line`` of the scanned file."""

    kind: ChangeKind
    line: int
    declaration: Declaration | None = None
    function: str = ""
    mutation: Mutation | None = None


@dataclass(frozen=True)
class Scanned:
    """What the project shows about one name: the first change found (the file, and what
    is there), and every file that mentions the name (path, sha256), which the answer
    depends on."""

    where: tuple[str, Found] | None
    consulted: tuple[tuple[str, str], ...]


class ChangeScans:
    """The files of each project, read once per process, and the answers asked of them.

    A file is parsed only when it mentions both the name and its module (by the module's
    own name: ``config`` for ``pkg/config.py``), or is that module.
    """

    def __init__(self, skip: Set[str]) -> None:
        self.skip = skip
        self._files: dict[Path, list[tuple[Path, bytes]]] = {}
        self._answers: dict[tuple[Path, str, bool, bool], Scanned] = {}

    def change(self, module: Path, name: str, *, own: bool, rebinding: bool) -> Scanned:
        module = module.resolve()
        key = (module, name, own, rebinding)
        if key not in self._answers:
            self._answers[key] = self._scan(module, name, own, rebinding)
        return self._answers[key]

    def _scan(self, module: Path, name: str, own: bool, rebinding: bool) -> Scanned:
        changed = _changed(name)
        stem = module.parent.name if module.name == "__init__.py" else module.stem
        imports = _imports(stem)
        where: tuple[str, Found] | None = None
        consulted = []
        for path, data in self._project(module):
            mine = path == module
            if mine and not own:
                continue
            if not mine and not (changed.search(data) and imports.search(data)):
                continue
            consulted.append((str(path), hashlib.sha256(data).hexdigest()))
            if where is not None:
                continue
            tree = _parsed(data)
            if tree is None:
                continue
            found = next(
                changes(tree, name, own=mine, rebinding=rebinding, module_of=_resolver(path), target=module), None
            )
            if found is not None:
                where = (str(path), found)
        return Scanned(where, tuple(consulted))

    def _project(self, module: Path) -> list[tuple[Path, bytes]]:
        root = project_root(module)
        if root is None:
            return [(module, _read(module))]
        if root not in self._files:
            self._files[root] = [(path.resolve(), _read(path)) for path in project_files(root, self.skip)]
        return self._files[root]


_ASSIGN = rb"\s*(?:\[[^\]\n]*\]\s*)?(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)"
_METHOD = (
    rb"\s*\.\s*(?:\w+\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)|(?:"
    + b"|".join(name.encode() for name in sorted(MUTATING_METHODS))
    + rb"|[A-Za-z]\w*_)\s*\()"
)


def _changed(name: str) -> re.Pattern[bytes]:
    """A cheap test that a file may change ``name``: it assigns it (``X =``, ``m.X +=``,
    ``X[k] =``), sets an attribute or calls a method on it, or deletes something of it."""
    word = rb"(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])"
    return re.compile(word + rb"(?:" + _ASSIGN + rb"|" + _METHOD + rb")|\bdel\b[^\n]*" + word)


def _imports(stem: str) -> re.Pattern[bytes]:
    """A cheap test that a file imports the module named ``stem``, or from it."""
    word = rb"(?<![\w])" + re.escape(stem.encode()) + rb"(?![\w])"
    return re.compile(
        rb"(?m)^[ \t]*(?:from[ \t]+[\w.]*" + word + rb"[\w.]*[ \t]+import|(?:from|import)\b[^\n]*" + word + rb")"
    )


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _parsed(data: bytes) -> ast.Module | None:
    try:
        gate = python_gate(decode_source(data))
    except (SyntaxError, UnicodeError, LookupError):
        return None
    return gate.tree if gate.refused is None else None


def _resolver(path: Path) -> Resolve:
    def module_of(dotted: str) -> Path | None:
        found = module_file(path, dotted)
        return found.resolve() if found is not None else None

    return module_of


def changes(
    tree: ast.Module, name: str, *, own: bool, rebinding: bool, module_of: Resolve, target: Path
) -> Iterator[Found]:
    """The changes of ``target``'s top-level ``name`` in one parsed file. ``own``: the file
    is ``target`` itself. ``module_of`` resolves a dotted import name to a module file."""
    scan = _Scan(name, own, rebinding, module_of, target)
    scan.body(tree.body, function=None)
    return iter(scan.found)


class _Scan:
    def __init__(self, name: str, own: bool, rebinding: bool, module_of: Resolve, target: Path) -> None:
        self.name = name
        self.own = own
        self.rebinding = rebinding
        self.module_of = module_of
        self.module = target
        self.found: list[Found] = []
        #: Local names bound to the target module, and to the object ``target.name``.
        self.modules: dict[str, str] = {}
        self.objects: set[str] = set()
        #: (container, key) pairs known to be missing where the scan is.
        self.missing: list[tuple[str, str]] = []
        self._resolved: dict[str, bool] = {}

    # -- walking ------------------------------------------------------------------

    def body(self, statements: list[ast.stmt], function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        guards = 0
        for statement in statements:
            self.statement(statement, function)
            present = _returns_when_present(statement)
            if present is not None:
                self.missing.append(present)
                guards += 1
        del self.missing[len(self.missing) - guards :]

    def statement(self, node: ast.stmt, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.imports(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.expressions([*node.decorator_list, *node.args.defaults, *node.args.kw_defaults], function)
            self.body(node.body, node)
        elif isinstance(node, ast.ClassDef):
            self.expressions([*node.decorator_list, *node.bases], function)
            self.body(node.body, function)
        elif isinstance(node, ast.If):
            self.expressions([node.test], function)
            missing = _missing_key(node.test)
            if missing is not None:
                self.missing.append(missing)
            self.body(node.body, function)
            if missing is not None:
                self.missing.pop()
            self.body(node.orelse, function)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)):
            self.stores(node, function)
            self.expressions([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)], function)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.target(node.target, node, function)
            self.expressions([node.iter], function)
            self.body(node.body, function)
            self.body(node.orelse, function)
        elif isinstance(node, ast.While):
            self.expressions([node.test], function)
            self.body(node.body, function)
            self.body(node.orelse, function)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expressions([item.context_expr], function)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, node, function)
            self.body(node.body, function)
        elif isinstance(node, _TRY):
            self.body(node.body, function)
            looked_up = _item_reads(node.body)
            for handler in node.handlers:
                missing = looked_up if _catches_key_error(handler) else []
                self.missing += missing
                self.body(handler.body, function)
                del self.missing[len(self.missing) - len(missing) :]
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
                    method = node.func.attr
                    if is_mutating_method(method) and self.is_object(node.func.value, function):
                        mutation = Mutation(MutationKind.METHOD, method, memoises=method == "setdefault")
                        self.mutated(node, mutation, function)

    # -- what a statement does ------------------------------------------------------

    def imports(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                self.modules[bound] = alias.name if alias.asname else bound
            return
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            qualified = f"{module}.{alias.name}" if not module.endswith(".") else f"{module}{alias.name}"
            bound = alias.asname or alias.name
            if self.resolves(qualified):
                self.modules[bound] = qualified
            elif alias.name == self.name and module and self.resolves(module):
                self.objects.add(bound)

    def stores(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Delete, function: object) -> None:
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        if isinstance(node, ast.AnnAssign) and node.value is None:
            return
        for target in targets:
            self.target(target, node, function)

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
            return
        if isinstance(target, ast.Attribute) and target.attr == self.name and self.is_module(target.value):
            if self.rebinding:
                kind = ChangeKind.AUGMENTED if augmented else ChangeKind.ASSIGNED
                self.found.append(Found(kind, statement.lineno))
            return
        if isinstance(target, (ast.Subscript, ast.Attribute)) and self.is_object(target.value, function):
            if deleting:
                mutation = Mutation(MutationKind.DELETE)
            elif isinstance(target, ast.Attribute):
                mutation = Mutation(MutationKind.ATTRIBUTE, target.attr)
            else:
                key = (ast.unparse(target.value), ast.unparse(target.slice))
                mutation = Mutation(MutationKind.ITEM, memoises=key in self.missing and not augmented)
            self.mutated(statement, mutation, function)

    def mutated(self, node: ast.AST, mutation: Mutation, function: object) -> None:
        if mutation.memoises:
            return
        if self.own and function is None:
            return  # the module's own top level runs at import time
        self.found.append(Found(ChangeKind.MUTATED, getattr(node, "lineno", 0), mutation=mutation))

    # -- what an expression refers to -----------------------------------------------------

    def is_module(self, expr: ast.expr) -> bool:
        """``config``, ``cfg``, ``pkg.config``: the target module."""
        dotted = _dotted(expr, self.modules)
        return dotted is not None and self.resolves(dotted)

    def is_object(self, expr: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
        """``config.X``, or a name bound to it: ``X`` in the module itself (not shadowed by a
        local of the function), or imported from it."""
        if isinstance(expr, ast.Attribute) and expr.attr == self.name:
            return self.is_module(expr.value)
        if isinstance(expr, ast.Name):
            if expr.id in self.objects:
                return True
            return self.own and expr.id == self.name and not _local_in(function, self.name)
        return False

    def resolves(self, dotted: str) -> bool:
        if dotted not in self._resolved:
            found = self.module_of(dotted)
            self._resolved[dotted] = found is not None and found == self.module
        return self._resolved[dotted]


def _dotted(expr: ast.expr, modules: dict[str, str]) -> str | None:
    if isinstance(expr, ast.Name):
        return modules.get(expr.id)
    if isinstance(expr, ast.Attribute):
        head = _dotted(expr.value, modules)
        return None if head is None else f"{head}.{expr.attr}"
    return None


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


def _item_reads(statements: list[ast.stmt]) -> list[tuple[str, str]]:
    """``cache[key]`` looked up in a ``try`` body: (cache, key) pairs."""
    return [
        (ast.unparse(node.value), ast.unparse(node.slice))
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
    ]


def _catches_key_error(handler: ast.ExceptHandler) -> bool:
    """``except KeyError:`` (alone or in a tuple): the key was missing."""
    kind = handler.type
    names = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return any(isinstance(name, ast.Name) and name.id in ("KeyError", "LookupError") for name in names)


def _missing_key(test: ast.expr) -> tuple[str, str] | None:
    """``key not in cache`` (or ``cache.get(key) is None``): (cache, key) while it holds."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        (operator,), (right,) = test.ops, test.comparators
        if isinstance(operator, ast.NotIn):
            return ast.unparse(right), ast.unparse(test.left)
        left = test.left
        if (
            isinstance(operator, ast.Is)
            and isinstance(right, ast.Constant)
            and right.value is None
            and isinstance(left, ast.Call)
            and isinstance(left.func, ast.Attribute)
            and left.func.attr == "get"
            and left.args
        ):
            return ast.unparse(left.func.value), ast.unparse(left.args[0])
    return None


def _returns_when_present(statement: ast.stmt) -> tuple[str, str] | None:
    """``if key in cache: return ...`` with no else: (cache, key), missing after it."""
    if not isinstance(statement, ast.If) or statement.orelse or not statement.body:
        return None
    test = statement.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)):
        return None
    if not isinstance(statement.body[-1], (ast.Return, ast.Raise)):
        return None
    return ast.unparse(test.comparators[0]), ast.unparse(test.left)
