"""Rewrites that register the package's defs from somewhere else (7): from another module
of the package, by each import spelling; from a script beside the package, moved to a src
layout; through a helper of an installed package. Every def is still registered once, the
same object by the same registrar, and each registration line keeps its origin, so a
finding at it moves with it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import libcst as cst

from .program import (
    PACKAGE,
    SITE_PACKAGES,
    Inapplicable,
    Line,
    Outcome,
    Parsed,
    Program,
    Project,
    Rewritten,
    Top,
    dotted,
    fresh,
    lines_of,
    outcome,
    splice,
    written,
)
from .spellings import Site, registration_sites


class Spelling(NamedTuple):
    """How the registering module imports a module ``stem`` of the package, and names ``name`` in it."""

    statement: str  #: ``{package}``, ``{stem}``, ``{names}`` (for a from-import), ``{alias}``
    reference: str  #: ``{package}``, ``{stem}``, ``{alias}``, ``{name}``

    @property
    def imports_names(self) -> bool:
        return "{names}" in self.statement


SPELLINGS = {
    "from-import": Spelling("from {package}.{stem} import {names}", "{name}"),
    "relative-from-import": Spelling("from .{stem} import {names}", "{name}"),
    "import-module": Spelling("import {package}.{stem}", "{package}.{stem}.{name}"),
    "import-as": Spelling("import {package}.{stem} as {alias}", "{alias}.{name}"),
    "relative-module": Spelling("from . import {stem}", "{stem}.{name}"),
}


class Declined(Exception):
    """Why a registration is left where it is."""


class _Registering:
    """The module being written: its imports, what they bind, and its registrations."""

    def __init__(self, project: Project, spelling: Spelling) -> None:
        self.project, self.spelling = project, spelling
        self.copied: list[Line] = []  #: import statements copied from the registering modules
        self.names: dict[str, list[str]] = {}  #: module stem -> names imported from it
        self.bound: dict[str, str] = {}  #: local name -> what binds it
        self.registrations: list[Line] = []

    def _bind(self, local: str, source: str) -> None:
        if self.bound.setdefault(local, source) != source:
            raise Declined(f"{local} would name two things in the registering module")

    def reference(self, p: Parsed, name: str) -> str:
        """How this module names ``name`` of module ``p``, importing it."""
        alias = f"_{p.stem}"
        if self.spelling.imports_names:
            self._bind(name, f"{p.stem}.{name}")
            if name not in self.names.setdefault(p.stem, []):
                self.names[p.stem].append(name)
        else:
            init = self.project.parsed.get(f"{PACKAGE}/__init__.py")
            if init is not None and p.stem in init.bindings:
                # ``from .cross_entropy import cross_entropy`` there: ``pkg.cross_entropy`` is that function
                raise Declined(f"the package's __init__.py binds {p.stem}, which hides the module of that name")
            head = {"{package}": PACKAGE, "{alias}": alias, "{stem}": p.stem}
            self._bind(next(v for k, v in head.items() if self.spelling.reference.startswith(k)), f"module {p.stem}")
            self.names.setdefault(p.stem, [])
        return self.spelling.reference.format(package=PACKAGE, stem=p.stem, alias=alias, name=name)

    def registrar(self, p: Parsed, site: Site) -> str:
        """The registrar as this module spells it: a library import is copied, a name the
        module binds itself (an alias, a wrapper, a relative import) is imported from it."""
        chain = dotted(cst.parse_expression(site.registrar))
        if chain is None:
            raise Declined("the registrar is not a name or an attribute chain")
        head, _, rest = chain.partition(".")
        statements = _library_imports(p, head)
        if statements:
            text = [Line(line.text, None) for top in statements for line in lines_of(p, top)]
            # ``import torch`` and ``import torch._dynamo`` both bind the package torch
            plain = all(re.fullmatch(rf"import {head}(\.[\w.]+)?\s*(#.*)?", line.text.strip()) for line in text)
            self._bind(head, f"the library {head}" if plain else "".join(line.text for line in text))
            self.copied += [line for line in text if line.text not in {copied.text for copied in self.copied}]
            return chain
        if not p.bindings.get(head) or not p.final_before(head, len(p.lines) + 1):
            raise Declined(f"the registrar's name {head} is not bound once by module-level code")
        named = self.reference(p, head)
        return f"{named}.{rest}" if rest else named

    def module(self) -> list[Line]:
        imports = []
        for stem, names in self.names.items():
            statement = self.spelling.statement.format(
                package=PACKAGE, stem=stem, alias=f"_{stem}", names=", ".join(names)
            )
            imports += written(statement)
        return self.copied + imports + written("", "") + self.registrations


def _library_imports(p: Parsed, name: str) -> list[Top]:
    """The module-level statements binding ``name``, when every binding is an import from a
    library (``import torch`` and ``import torch._dynamo``): copied, they bind the same."""
    tops = [p.owner(p.line(binding)) for binding in p.bindings.get(name, [])]
    found: list[Top] = []
    for top in tops:
        statement = top.node.body[0] if top is not None and isinstance(top.node, cst.SimpleStatementLine) else None
        if not _imports_a_library(statement):
            return []
        found += [top] if top not in found else []  # type: ignore[list-item]
    return sorted(found, key=lambda top: top.first)


def _imports_a_library(statement: cst.BaseSmallStatement | None) -> bool:
    if isinstance(statement, cst.Import):
        return True
    if not isinstance(statement, cst.ImportFrom) or statement.relative or statement.module is None:
        return False
    return not (dotted(statement.module) or "").startswith(PACKAGE)


def _movable(p: Parsed, site: Site) -> None:
    """Raises :class:`Declined` if the registration may not move out of its module."""
    if site.top is None:
        raise Declined("it registers a name imported from another module")
    if isinstance(cst.parse_expression(site.registrar), cst.Call):
        raise Declined("its registrar is made by a call, which runs project code where it is written")
    if len(p.bindings.get(site.name, [])) != (2 if site.form == "rebinding" else 1):
        raise Declined("its name is bound more than once")


def _register_elsewhere(program: Program, spelling: Spelling, target: str, layout: Callable[[str], str]) -> Outcome:
    project = Project(program)
    writing = _Registering(project, spelling)
    changed: dict[str, list[Line]] = {}
    done: list[str] = []
    declined: list[str] = []
    for p in project.modules():
        sites, reasons = registration_sites(project, p)
        declined += reasons
        moved = []
        for site in sites:
            try:
                _movable(p, site)
                registrar, target_name = writing.registrar(p, site), writing.reference(p, site.name)
            except Declined as why:
                declined.append(f"{p.stem}.{site.name}: {why}")
                continue
            origin = p.lines[site.line - 1].origin
            writing.registrations.append(Line(f"{registrar}({target_name}){site.comment}\n", origin))
            moved.append(site.line)
            done.append(f"{p.stem}.{site.name}: {site.form} -> {target}")
        if moved:
            changed[p.path] = [line for n, line in enumerate(p.lines, 1) if n not in moved]
    if not done:
        return outcome(program, {}, done, declined, "no registration of a module-level def may move")
    relaid = {layout(path): list(changed.get(path, lines)) for path, lines in program.modules.items()}
    relaid[target] = writing.module()
    return Rewritten(Program(relaid), tuple(done), tuple(declined))


def register_elsewhere(name: str) -> Callable[[Program], Outcome]:
    """Every registration of a module-level def, moved to ``pkg/registrations.py``, which
    imports the def (and a registrar the module binds itself) by the spelling ``name``."""
    spelling = SPELLINGS[name]

    def rewrite(program: Program) -> Outcome:
        target = f"{PACKAGE}/{fresh(Project(program).parsed.values(), 'registrations')}.py"
        return _register_elsewhere(program, spelling, target, lambda path: path)

    rewrite.__doc__ = f"{register_elsewhere.__doc__} ({name})"
    return rewrite


def register_from_a_script(program: Program) -> Outcome:
    """The package moved to ``src/pkg`` (a src layout) and every registration of a module-level
    def to ``scripts/register.py``, which imports what it registers from the package."""
    return _register_elsewhere(program, SPELLINGS["from-import"], "scripts/register.py", lambda path: f"src/{path}")


# -- through an installed package -------------------------------------------------------

#: An installed package's registration helpers: the modules it ships, how a module of the
#: project imports it, and the registrar as that module then spells it.
HELPERS = {
    "wrapper": (
        {
            "aig_helpers/__init__.py": "import torch\n\n\ndef register(fn):\n    return torch.compiler.allow_in_graph(fn)\n"
        },
        "from aig_helpers import register",
        "register",
    ),
    "alias": (
        {
            "aig_helpers/__init__.py": "from .registry import register\n",
            "aig_helpers/registry.py": "from torch.compiler import allow_in_graph as register\n",
        },
        "import aig_helpers",
        "aig_helpers.register",
    ),
}


def _public(p: Parsed, project: Project, site: Site) -> bool:
    """Whether the site's registrar is torch's public ``allow_in_graph``, spelt from a name this
    module imports from torch (``torch.compiler.allow_in_graph``, ``tc.allow_in_graph``, ``aig``)."""
    expr = cst.parse_expression(site.registrar)
    if not project.registrar.direct(expr) or "_dynamo" in site.registrar:
        return False
    statement = p.import_statement((dotted(expr) or "").partition(".")[0])
    text = "".join(line.text for line in lines_of(p, statement)) if statement is not None else ""
    return re.match(r"\s*(from|import)\s+torch\b", text) is not None and "_dynamo" not in text


def _first_import(p: Parsed) -> Top | None:
    """The first module-level import statement, not ``from __future__``: the helper's import goes after it."""
    for top in p.top:
        body = top.node.body if isinstance(top.node, cst.SimpleStatementLine) else []
        if (
            any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in body)
            and "__future__" not in p.lines[top.first - 1].text
        ):
            return top
    return None


def register_through_an_installed_helper(kind: str) -> Callable[[Program], Outcome]:
    """Every registration by torch's public ``allow_in_graph`` respelt as a helper of an
    installed package (``aig_helpers``, in the program's environment) that is it or calls it."""
    modules, statement, spelt = HELPERS[kind]

    def rewrite(program: Program) -> Outcome:
        project = Project(program)
        if any("aig_helpers" in p.words() for p in project.parsed.values()):
            return Inapplicable("the program names aig_helpers itself")
        changed: dict[str, list[Line]] = {}
        done, declined = [], []
        for p in project.modules():
            sites, reasons = registration_sites(project, p)
            declined += reasons
            edits, here = [], []
            for site in sites:
                if not _public(p, project, site):
                    declined.append(f"{p.stem}.{site.name}: the registrar is not torch's public allow_in_graph")
                    continue
                text = p.lines[site.line - 1].text
                at = (
                    text.find("@" + site.registrar) + 1 if site.form == "decorator" else text.find(site.registrar + "(")
                )
                edits.append((site.line, at, at + len(site.registrar), spelt))
                here.append(f"{p.stem}.{site.name}: {site.registrar} -> {spelt}")
            anchor = _first_import(p)
            if edits and anchor is not None:
                lines = splice(p.lines, edits)
                changed[p.path] = lines[: anchor.last] + written(statement) + lines[anchor.last :]
                done += here
            elif edits:
                declined.append(f"{p.stem}: no module-level import to add the helper's after")
        installed = {
            f"{SITE_PACKAGES}/{path}": [Line(text + "\n", None) for text in source.splitlines()]
            for path, source in modules.items()
        }
        return outcome(
            program,
            {**changed, **installed} if changed else {},
            done,
            declined,
            "nothing is registered by torch's public allow_in_graph",
        )

    rewrite.__doc__ = f"{register_through_an_installed_helper.__doc__} ({kind})"
    return rewrite
