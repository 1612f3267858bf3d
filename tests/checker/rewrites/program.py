"""The model the rewrites work on: a program whose lines remember where they came from,
and a syntactic analysis of its modules (libcst's scope provider).

A :class:`Program` is a set of modules under ``pkg/``; every line keeps the line of the
original program it came from (its :class:`Origin`; ``None`` for a line a rewrite wrote).
:class:`Project` parses every module once and says what is registered where, by the
registrar spellings of :class:`Registrars`; nothing here asks the checker.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider, ScopeProvider

PACKAGE = "pkg"
#: Where a program's installed packages go (``venv/...``): checked as the environment, not as the project.
SITE_PACKAGES = "venv/lib/python3.11/site-packages"


class Origin(NamedTuple):
    """A line of the original program."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class Line(NamedTuple):
    text: str  #: with its line ending
    origin: Origin | None  #: None: a line the rewrite wrote


def written(*texts: str) -> list[Line]:
    """New lines, one per text."""
    return [Line(text + "\n", None) for text in texts]


@dataclass(frozen=True)
class Program:
    """Modules by path relative to the project root (``pkg/kernels.py``)."""

    modules: Mapping[str, tuple[Line, ...]]

    @classmethod
    def of(cls, sources: Mapping[str, str]) -> Program:
        """The original program: every line is its own origin (and ends with a line break)."""
        return cls(
            {
                path: tuple(
                    Line(text.rstrip("\n") + "\n", Origin(path, n)) for n, text in enumerate(source.splitlines(True), 1)
                )
                for path, source in sources.items()
            }
        )

    def source(self, path: str) -> str:
        return "".join(line.text for line in self.modules[path])

    def origin(self, path: str, line: int) -> Origin | None:
        lines = self.modules.get(path, ())
        return lines[line - 1].origin if 0 < line <= len(lines) else None

    def changed(self, modules: Mapping[str, Sequence[Line]]) -> Program:
        return Program({**self.modules, **{path: tuple(lines) for path, lines in modules.items()}})

    def write(self, root: Path) -> None:
        for path in self.modules:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(self.source(path), encoding="utf-8")
        if self.installs():
            (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")

    def installs(self) -> bool:
        """Whether the program comes with installed packages (under :data:`SITE_PACKAGES`)."""
        return any(installed(path) for path in self.modules)


def installed(path: str) -> bool:
    return path.startswith(SITE_PACKAGES + "/")


def module_name(path: str) -> str:
    """``pkg.kernels`` for ``pkg/kernels.py``, ``src/pkg/kernels.py`` and an installed ``.../site-packages/x``."""
    path = path.removeprefix(SITE_PACKAGES + "/").removeprefix("src/").removesuffix(".py")
    return path.removesuffix("/__init__").replace("/", ".")


class Rewritten(NamedTuple):
    program: Program
    done: tuple[str, ...]  #: what was changed, one entry per definition or module
    declined: tuple[str, ...] = ()  #: what was left alone, and why


class Inapplicable(NamedTuple):
    reason: str


Outcome = Rewritten | Inapplicable
Rewrite = Callable[[Program], Outcome]


def outcome(
    program: Program,
    changed: Mapping[str, Sequence[Line]],
    done: list[str],
    declined: list[str],
    nothing: str = "nothing to rewrite",
) -> Outcome:
    if not done:
        return Inapplicable("; ".join(declined) or nothing)
    return Rewritten(program.changed(changed), tuple(done), tuple(declined))


# -- analysis ---------------------------------------------------------------------------


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from walk(child)


def dotted(expr: cst.BaseExpression) -> str | None:
    """``torch.compiler.allow_in_graph`` for that attribute chain; None for anything else."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = dotted(expr.value)
        return None if head is None else f"{head}.{expr.attr.value}"
    return None


class Top(NamedTuple):
    """A module-level statement and its lines (decorators included), 1-based, inclusive."""

    node: cst.CSTNode
    first: int
    last: int

    @property
    def name(self) -> str:
        return self.node.name.value if isinstance(self.node, (cst.FunctionDef, cst.ClassDef)) else ""


class Parsed:
    """One module of a program, parsed, with its module-level names and their accesses."""

    def __init__(self, program: Program, path: str) -> None:
        self.path = path
        self.lines = list(program.modules[path])
        self.module = cst.parse_module("".join(line.text for line in self.lines))
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        self.pos: Mapping[cst.CSTNode, CodeRange] = wrapper.resolve(PositionProvider)
        scope = wrapper.resolve(ScopeProvider)[self.module]
        assert scope is not None
        self.bindings: dict[str, list[cst.CSTNode]] = {}
        self.accesses: dict[str, list[cst.CSTNode]] = {}
        for assignment in scope.assignments:
            node = getattr(assignment, "node", None)
            if node is None:
                continue
            self.bindings.setdefault(assignment.name, []).append(node)
            seen = self.accesses.setdefault(assignment.name, [])
            seen += [access.node for access in assignment.references if access.node not in seen]
        self.top = [self._top(statement) for statement in self.module.body]
        self.stem = Path(path).stem

    def _top(self, node: cst.CSTNode) -> Top:
        first = self.pos[node].start.line
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.decorators:
            first = self.pos[node.decorators[0]].start.line
        return Top(node, first, self.pos[node].end.line)

    def line(self, node: cst.CSTNode) -> int:
        return self.pos[node].start.line

    def inside(self, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
        """Whether ``node`` is part of ``outer``; a def or class includes its decorators."""
        a, b = self.pos[node], self.pos[outer]
        start = b.start
        if isinstance(outer, (cst.FunctionDef, cst.ClassDef)) and outer.decorators:
            start = self.pos[outer.decorators[0]].start
        return (start.line, start.column) <= (a.start.line, a.start.column) < (b.end.line, b.end.column)

    def defs(self) -> list[Top]:
        return [top for top in self.top if isinstance(top.node, (cst.FunctionDef, cst.ClassDef))]

    def owner(self, line: int) -> Top | None:
        return next((top for top in self.top if top.first <= line <= top.last), None)

    def reads(self, node: cst.CSTNode) -> dict[str, list[cst.CSTNode]]:
        """The module-level names read inside ``node``, with the reading nodes."""
        found: dict[str, list[cst.CSTNode]] = {}
        for name, accesses in self.accesses.items():
            inner = [access for access in accesses if self.inside(access, node)]
            if inner:
                found[name] = inner
        return found

    def run_time(self, node: cst.CSTNode, access: cst.CSTNode) -> bool:
        """Whether ``access`` in the def or class ``node`` is read when it is called, not when it is defined."""
        bodies = [f.body for f in walk(node) if isinstance(f, (cst.FunctionDef, cst.Lambda))]
        return any(self.inside(access, body) for body in bodies)

    def module_level(self, binding: cst.CSTNode) -> bool:
        """Whether a binding is made by module-level code, not by a function (``global``)."""
        return not any(
            isinstance(top.node, (cst.FunctionDef, cst.ClassDef))
            and binding is not top.node
            and self.inside(binding, top.node)
            for top in self.top
        )

    def final_before(self, name: str, line: int) -> bool:
        """Whether every binding of ``name`` is module-level code above ``line`` (so it never changes after)."""
        return all(self.module_level(b) and self.line(b) < line for b in self.bindings.get(name, ()))

    def import_statement(self, name: str) -> Top | None:
        """The unconditional module-level import that is ``name``'s only binding."""
        found = self.bindings.get(name, [])
        if len(found) != 1 or not isinstance(found[0], (cst.Import, cst.ImportFrom)):
            return None
        return next((top for top in self.top if any(b is found[0] for b in walk(top.node))), None)

    def reaches(self) -> dict[str, set[str]]:
        """Module-level def or class name -> every module-level name it reads, transitively."""
        direct = {top.name: set(self.reads(top.node)) for top in self.defs()}
        closed = {}
        for name in direct:
            seen, todo = set(), [name]
            while todo:
                for read in direct.get(todo.pop(), ()):
                    if read not in seen:
                        seen.add(read)
                        todo.append(read)
            closed[name] = seen
        return closed

    def needed_while_running(self, name: str, statements: Iterable[Top], reaches: dict[str, set[str]]) -> Top | None:
        """The first of ``statements`` that needs ``name`` bound while the module runs: a module-level
        statement, decorator, default or class body that reads it, or reads a def that reaches it."""
        for top in statements:
            reads = self.reads(top.node)
            if isinstance(top.node, (cst.FunctionDef, cst.ClassDef)):
                now = [n for n, accesses in reads.items() if any(not self.run_time(top.node, a) for a in accesses)]
            else:
                now = list(reads)
            if any(n == name or name in reaches.get(n, ()) for n in now):
                return top
        return None

    def words(self) -> set[str]:
        return {node.value for node in walk(self.module) if isinstance(node, cst.Name)}

    def strings(self) -> set[str]:
        """The string literals of the module, less string annotations (those are read as names)."""
        annotations = {id(node) for accesses in self.accesses.values() for node in accesses}
        annotations |= {id(node) for strings in self.exported().values() for node in strings}
        return {
            node.evaluated_value  # type: ignore[misc]
            for node in walk(self.module)
            if isinstance(node, cst.SimpleString) and id(node) not in annotations
        }

    def exported(self) -> dict[str, list[cst.SimpleString]]:
        """The names ``__all__`` lists, with their strings: a rename respells those too."""
        found: dict[str, list[cst.SimpleString]] = {}
        for node in walk(self.module):
            if isinstance(node, (cst.Assign, cst.AugAssign)) and "__all__" in {
                dotted(t.target)
                for t in getattr(node, "targets", [node])  # type: ignore[attr-defined]
            }:
                for string in walk(node.value):
                    if isinstance(string, cst.SimpleString):
                        found.setdefault(string.evaluated_value, []).append(string)  # type: ignore[arg-type]
        return found

    def relative_imports(self) -> dict[str, tuple[str, str]]:
        """Local name -> (module stem, imported name) for ``from .mod import name`` and
        ``from pkg.mod import name`` (a module of the package, however it is named)."""
        found = {}
        for node in walk(self.module):
            if not isinstance(node, cst.ImportFrom) or not node.module or isinstance(node.names, cst.ImportStar):
                continue
            module = dotted(node.module) or ""
            if node.relative:
                stem = module
            elif module.startswith(PACKAGE + "."):
                stem = module.removeprefix(PACKAGE + ".")
            else:
                continue
            for alias in node.names:
                local = alias.asname.name.value if alias.asname else alias.name.value  # type: ignore[union-attr]
                found[local] = (stem, alias.name.value)  # type: ignore[union-attr]
        return found


def fresh(parsed: Iterable[Parsed], want: str) -> str:
    """``want``, or ``want`` with underscores added until no module of the program uses it."""
    taken = set().union(*(p.words() for p in parsed))
    while want in taken:
        want += "_"
    return want


class Registrars:
    """The registrar spellings of a program: ``allow_in_graph`` reached by any attribute chain,
    names bound to it (``aig``, ``maybe_allow_in_graph``, ``opaque``), and functions that
    forward one of their parameters to it (``register_opaque``, the factory ``kernel``)."""

    def __init__(self, parsed: Sequence[Parsed]) -> None:
        self.names = {"allow_in_graph"}
        self.aliases = {"allow_in_graph"}  #: names bound to torch's allow_in_graph itself, not to a wrapper
        grown = True
        while grown:
            before = len(self.names)
            for p in parsed:
                self._grow(p)
            grown = len(self.names) > before

    def _grow(self, p: Parsed) -> None:
        for node in walk(p.module):
            if isinstance(node, cst.ImportAlias) and (dotted(node.name) or "").endswith("allow_in_graph"):  # type: ignore[arg-type]
                local = node.asname.name.value if node.asname else "allow_in_graph"  # type: ignore[union-attr]
                self.names.add(local)
                if (dotted(node.name) or "").split(".")[-1] == "allow_in_graph":  # type: ignore[arg-type]
                    self.aliases.add(local)
            elif isinstance(node, cst.Assign) and self(node.value) and not isinstance(node.value, cst.Call):
                targets = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
                self.names.update(targets)
                if self.direct(node.value):
                    self.aliases.update(targets)
        for top in p.defs():
            if isinstance(top.node, cst.FunctionDef) and self._forwards(top.node):
                self.names.add(top.name)

    def _forwards(self, fn: cst.FunctionDef) -> bool:
        params = {param.name.value for f in walk(fn) if isinstance(f, cst.FunctionDef) for param in f.params.params}
        return any(
            isinstance(call, cst.Call)
            and self(call.func)
            and any(isinstance(arg.value, cst.Name) and arg.value.value in params for arg in call.args)
            for call in walk(fn.body)
        )

    def direct(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is torch's ``allow_in_graph`` itself (which takes a list), not a wrapper."""
        name = dotted(expr)
        return name is not None and (name.endswith(".allow_in_graph") or name in self.aliases)

    def __call__(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            return self(expr.func)
        name = dotted(expr)
        return name is not None and (name.endswith(".allow_in_graph") or name in self.names)


def _arguments(call: cst.Call) -> Iterator[str]:
    """The names a registrar call registers: its arguments, the elements of a list or tuple
    argument, and the arguments of a call in them (``partial(f, ...)``, ``nonstrict_trace(f)``)."""
    todo: list[cst.BaseExpression] = [arg.value for arg in call.args]
    while todo:
        expr = todo.pop()
        if isinstance(expr, cst.Name):
            yield expr.value
        elif isinstance(expr, (cst.List, cst.Tuple)):
            todo += [element.value for element in expr.elements]
        elif isinstance(expr, cst.Call):
            todo += [arg.value for arg in expr.args]


class Project:
    """The parsed modules of a program and what is registered in them."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.parsed = {path: Parsed(program, path) for path in program.modules}
        self.registrar = Registrars(list(self.parsed.values()))

    def registered(self, p: Parsed) -> list[Top]:
        """The module-level defs and classes of ``p`` that are decorated with a registrar or
        passed to one (in a registrar's argument, by this module or by one importing them)."""
        names = {top.name for top in p.defs() if any(self.registrar(d.decorator) for d in top.node.decorators)}  # type: ignore[attr-defined]
        for q in self.parsed.values():
            imported = {local: name for local, (stem, name) in q.relative_imports().items() if stem == p.stem}
            for call in walk(q.module):
                if isinstance(call, cst.Call) and self.registrar(call.func):
                    for name in _arguments(call):
                        if q is p:
                            names.add(name)
                        elif name in imported:
                            names.add(imported[name])
        return [top for top in p.defs() if top.name in names]

    def helpers(self, p: Parsed, tops: Iterable[Top]) -> list[Top]:
        """``tops`` and the module-level functions they read, transitively, in module order."""
        by_name = {top.name: top for top in p.defs() if isinstance(top.node, cst.FunctionDef)}
        chosen = {top.name: top for top in tops}
        todo = list(chosen.values())
        while todo:
            for name in p.reads(todo.pop().node):
                if name in by_name and name not in chosen:
                    chosen[name] = by_name[name]
                    todo.append(by_name[name])
        return [top for top in p.defs() if top.name in chosen and chosen[top.name] is top]

    def modules(self) -> list[Parsed]:
        """The modules of the project (not ``__init__.py``, not an installed package's)."""
        return [p for path, p in self.parsed.items() if not path.endswith("__init__.py") and not installed(path)]


def splice(lines: Sequence[Line], edits: Iterable[tuple[int, int, int, str]]) -> list[Line]:
    """Replace columns [start, end) of 1-based lines; each line keeps its origin."""
    out = list(lines)
    for line, start, end, text in sorted(edits, reverse=True):
        old = out[line - 1]
        out[line - 1] = Line(old.text[:start] + text + old.text[end:], old.origin)
    return out


def rename_edits(p: Parsed, node: cst.CSTNode, old: str, new: str) -> list[tuple[int, int, int, str]]:
    """Edits that respell the name ``old`` at ``node``: a name, or the word inside a string annotation."""
    where = p.pos[node]
    if isinstance(node, cst.SimpleString):
        text = p.lines[where.start.line - 1].text[where.start.column : where.end.column]
        return [(where.start.line, where.start.column, where.end.column, re.sub(rf"\b{re.escape(old)}\b", new, text))]
    if isinstance(node, cst.Attribute):  # ``mod.name`` is not respelt
        return []
    return [(where.start.line, where.start.column, where.end.column, new)]


def has_global(node: cst.CSTNode) -> list[str]:
    return [item.name.value for g in walk(node) if isinstance(g, cst.Global) for item in g.names]


#: Names whose value depends on which module the code is in.
MODULE_IDENTITY = {"__name__", "__file__", "__spec__", "globals", "locals", "vars"}


def reads_module_identity(node: cst.CSTNode) -> bool:
    return any(isinstance(n, cst.Name) and n.value in MODULE_IDENTITY for n in walk(node))


def lines_of(p: Parsed, top: Top) -> list[Line]:
    return p.lines[top.first - 1 : top.last]


def without(p: Parsed, tops: Iterable[Top], put: Mapping[int, list[Line]] | None = None) -> list[Line]:
    """The module's lines less those of ``tops``; ``put`` places lines where a removed statement began."""
    gone = {n for top in tops for n in range(top.first, top.last + 1)}
    put = put or {}
    out: list[Line] = []
    for n, line in enumerate(p.lines, 1):
        out += put.get(n, [])
        if n not in gone:
            out.append(line)
    return out


def future_and_imports(p: Parsed, names: Iterable[str]) -> list[Line]:
    """``from __future__`` (when the module has it) and the import statements binding ``names``."""
    tops = {p.import_statement(name) for name in names} - {None}
    out = [line for line in p.lines if line.text.startswith("from __future__ import")]
    out = [Line(line.text, None) for line in out]
    for top in sorted(tops, key=lambda t: t.first):  # type: ignore[union-attr]
        out += [Line(line.text, None) for line in lines_of(p, top)]  # type: ignore[arg-type]
    return out


def target_name(project: Project, p: Parsed, base: str) -> str:
    """``pkg/moved.py`` when one module of the project moves code, else ``pkg/moved_<module>.py``."""
    return f"{base}.py" if len(project.modules()) == 1 else f"{base}_{p.stem}.py"
