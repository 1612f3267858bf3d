"""The names under which a checked file reaches a registrar that an installed package binds.

The text tier lets a file through when it spells the API, or an alias of it that a checked
module binds (its exports, learned by the first pass). An installed package's registrar
(``from aig_helpers import register`` where aig_helpers has ``def register(fn): return
torch.compiler.allow_in_graph(fn)``) is neither: its module is never checked, so no pass
would learn the name, and a file that only spells ``@register`` would be skipped while the
full tier, which resolves the import by reading the package, registers.

So each checked file's import statements (its text: no parse) are read for modules of an
installed package, and only those modules are read, never imported: the names they bind that
may be registrars (:func:`checker.reading.mentions.registrar_names`, where the module spells
the API), re-exports followed by name to the module that binds them (``from .ops import
register`` in the package's ``__init__.py``), and the submodules a checked file imports by
name. The names of the environment's folders are listed once a run (one listing each: the
folders are never walked), each module's text is read once per process while its file is
unchanged, and each answer about it is kept for the run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from checker.index.outlines import PerFile
from checker.reading.environment import NEVER_INSTALLED, ImportRoots, import_roots, is_installed
from checker.reading.exhaustive import exhaustive
from checker.reading.forms import REGISTRAR_WORD
from checker.reading.mentions import registrar_names
from checker.reading.source import PREFILTER, Decoded, decode, python_gate, read_source

#: How many modules deep a re-export is followed to the module that binds the name.
_MAX_REEXPORTS = 8
#: Installed modules whose texts' answers are kept per process (all are let go when it is reached).
_KEPT = 1024

#: ``from m import a, b as c`` (the names in parentheses across lines too), at any indentation.
_FROM = re.compile(rb"from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n;#]*)")
#: The same, relative modules too (``from .ops import register``, ``from . import ops``).
_FROM_ANY = re.compile(rb"from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n;#]*)")
#: ``import m.sub as s, n`` (generous: what a from-import imports, and prose, match too).
_IMPORT = re.compile(rb"import[ \t]+([A-Za-z_][^\n;#]*)")
_COMMENT = re.compile(rb"#[^\n]*")
_DOTTED = re.compile(rb"[A-Za-z_][\w.]*")


def imported_registrars(path: str, data: bytes) -> frozenset[str]:
    """The names the file at ``path`` (its bytes ``data``) may register with through an
    installed package: a name it imports that may be a registrar of the package (``from
    aig_helpers import register``, re-exports followed), and the attribute that may be one
    where it reads a module of the package (``h.register`` after ``import aig_helpers as h``,
    ``aig_helpers.ops.register``). Names that spell the API are left out: the text tier finds
    those already. None without installed packages, for a file that is itself installed (its
    imports stay inside its own package, which the run checks), or under the exhaustive
    switch (every file is parsed)."""
    roots = import_roots()
    if not roots.enabled or not roots.installed or exhaustive() or b"import" not in data:
        return frozenset()
    if is_installed(path):
        return frozenset()
    return _Reader.of(roots).registrars(data)


class _Reader:
    """What one run reads of its environment: the top-level names its folders hold, and the
    answers about their modules (a run's files share most imports)."""

    _current: _Reader | None = None

    def __init__(self, roots: ImportRoots) -> None:
        self.roots = roots
        self.folders = roots.installed
        self.tops = frozenset(name.encode() for folder in self.folders for name in _top_names(folder))
        self._modules: dict[str, Path | None] = {}
        self._submodules: dict[tuple[Path, str], Path | None] = {}
        self._reached: dict[tuple[Path, str], bool] = {}
        self._first: dict[tuple[Path, str], tuple[Path, str] | None] = {}
        self._whole: dict[Path, frozenset[str]] = {}
        self._own: dict[Path, frozenset[str]] = {}
        self._from: dict[Path, Mapping[str, str]] = {}

    @classmethod
    def of(cls, roots: ImportRoots) -> _Reader:
        """The reader of the run whose import roots are ``roots`` (a new run, a new reader)."""
        if cls._current is None or cls._current.roots is not roots:
            cls._current = cls(roots)
        return cls._current

    def registrars(self, data: bytes) -> frozenset[str]:
        """What :func:`imported_registrars` says of a checked file's bytes."""
        if b"\\\n" in data or b"\\\r" in data:  # a statement continued on the next line
            data = data.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ")
        found: set[str] = set()
        modules: dict[str, Path] = {}  # a name bound to an installed module -> its file
        for module, names in _from_imports(data, self.tops):
            module_path = self.module(module)
            if module_path is None:
                continue
            for name, bound in names:
                if name == "*":
                    found |= self.whole(module_path)
                elif self.reaches(module_path, name):
                    found.add(bound)
                elif (submodule := self.submodule(module_path, name)) is not None:
                    modules[bound] = submodule  # ``from aig_helpers import ops``, then ``ops.register``
        for module, bound in _plain_imports(data, self.tops):
            module_path = self.module(module if bound != module.partition(".")[0] else bound)
            if module_path is not None:
                modules[bound] = module_path
        for bound, module_path in modules.items():
            found |= self.reached_through(module_path, _attribute_chains(data, bound))
        return frozenset(name for name in found if REGISTRAR_WORD not in name)

    def module(self, module: str) -> Path | None:
        """The file of ``module`` in the first folder that holds its top-level package. (The
        full tier resolves from the importer, where the project's own package of that name
        comes first; a module of the project is checked by the first pass, and reading the
        installed one too only lets more through.)"""
        if module not in self._modules:
            self._modules[module] = self._find(module.split("."))
        return self._modules[module]

    def _find(self, parts: list[str]) -> Path | None:
        for folder in self.folders:
            if (folder / parts[0] / "__init__.py").is_file() or (folder / f"{parts[0]}.py").is_file():
                return _module_at(folder.joinpath(*parts))
        return None

    def submodule(self, package: Path, name: str) -> Path | None:
        """The module ``name`` of the package whose ``__init__.py`` is ``package``, if it is one."""
        if package.name != "__init__.py":
            return None
        key = (package, name)
        if key not in self._submodules:
            self._submodules[key] = _module_at(package.parent / name)
        return self._submodules[key]

    def reached_through(self, module: Path, chains: set[tuple[str, ...]]) -> set[str]:
        """The attributes of the chains read from ``module`` that may be registrars, going down
        through its submodules (``ops`` of ``aig_helpers``)."""
        found = set()
        for chain in chains:
            current: Path | None = module
            for attribute in chain:
                if current is None:
                    break
                if self.reaches(current, attribute):
                    found.add(attribute)
                    break
                current = self.submodule(current, attribute)
        return found

    def reaches(self, module: Path, name: str, depth: int = 0) -> bool:
        """Whether ``name`` of ``module`` may be a registrar: bound there by :func:`registrar_names`,
        or re-exported there (``from .ops import register``) from a module where it is."""
        key = (module, name)
        if key not in self._reached:
            self._reached[key] = False  # (a cycle of re-exports ends here)
            own = name in self.own(module)
            further = self.bindings(module).get(name) if not own else None
            source = self.first(module, further) if further is not None and depth < _MAX_REEXPORTS else None
            self._reached[key] = own or (source is not None and self.reaches(*source, depth + 1))
        return self._reached[key]

    def own(self, module: Path) -> frozenset[str]:
        """The registrar names the module binds itself (:func:`_own_registrars`)."""
        if module not in self._own:
            self._own[module] = _own.get(module)
        return self._own[module]

    def bindings(self, module: Path) -> Mapping[str, str]:
        """What the module's from-imports bind (:func:`_from_imports_of`)."""
        if module not in self._from:
            self._from[module] = _from_bindings.get(module)
        return self._from[module]

    def first(self, module: Path, qualified: str) -> tuple[Path, str] | None:
        """The module file and name that ``qualified`` (``.ops.register``), imported by
        ``module``, names: ``ops.py`` or ``ops/__init__.py`` beside it, and ``register``.
        (Paths as found, not resolved: a resolve costs a system call per folder.)"""
        key = (module, qualified)
        if key not in self._first:
            dots = len(qualified) - len(qualified.lstrip("."))
            *parts, name = qualified[dots:].split(".")
            if dots:
                base = module.parent
                for _ in range(dots - 1):
                    base = base.parent
                package = base / "__init__.py"
                found = _module_at(base.joinpath(*parts)) if parts else package if package.is_file() else None
            else:
                found = self.module(".".join(parts)) if parts else None
            self._first[key] = (found, name) if found is not None else None
        return self._first[key]

    def whole(self, module: Path) -> frozenset[str]:
        """The registrar names a module imported whole (``from m import *``) binds: its own,
        and those it re-exports from a module that binds them itself (one step)."""
        if module not in self._whole:
            found = set(self.own(module))
            for bound, qualified in self.bindings(module).items():
                source = self.first(module, qualified)
                if source is not None and source[1] in self.own(source[0]):
                    found.add(bound)
            self._whole[module] = frozenset(found)
        return self._whole[module]


def _module_at(base: Path) -> Path | None:
    """The module file of the dotted path ``base`` names: ``base.py`` or ``base/__init__.py``."""
    return next(
        (candidate for candidate in (base.with_suffix(".py"), base / "__init__.py") if candidate.is_file()), None
    )


def _top_names(folder: Path) -> list[str]:
    """The top-level names an import folder holds (packages and modules), from one listing."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    names = (entry.name.removesuffix(".py") for entry in entries if entry.is_dir() or entry.name.endswith(".py"))
    return [name for name in names if name.isidentifier() and name not in NEVER_INSTALLED]


def _attribute_chains(data: bytes, bound: str) -> set[tuple[str, ...]]:
    """The attribute chains the text reads from the name ``bound`` (``h.ops.register``:
    ``("ops", "register")``)."""
    chains = set()
    for match in re.finditer(re.escape(bound.encode()) + rb"((?:[ \t]*\.[ \t]*\w+)+)", data):
        before = data[match.start() - 1 : match.start()]
        if not (before.isalnum() or before in (b"_", b".")):
            chains.add(tuple(part.strip().decode(errors="replace") for part in match.group(1).split(b".")[1:]))
    return chains


def _from_imports(data: bytes, tops: frozenset[bytes]) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """Each ``from m import ...`` of the text whose ``m`` is of an installed package (its top
    level among ``tops``): the module, and (name, bound) pairs. (``findall``: most files
    import nothing installed, and a match object per import costs more than the search.)"""
    for module, names in _FROM.findall(data):
        if module.partition(b".")[0] in tops:
            yield module.decode(), _listed(names)


def _plain_imports(data: bytes, tops: frozenset[bytes]) -> Iterator[tuple[str, str]]:
    """Each ``import m[.sub] [as s]`` of the text whose ``m`` is of an installed package: the
    module, and the name it binds (``s``, or the top-level ``m``)."""
    for listed in _IMPORT.findall(data):
        for item in listed.split(b","):
            words = item.split()
            if not words or words[0].partition(b".")[0] not in tops or not _DOTTED.fullmatch(words[0]):
                continue
            module = words[0].decode()
            yield module, words[2].decode() if len(words) == 3 and words[1] == b"as" else module.partition(".")[0]


def _listed(names: bytes) -> list[tuple[str, str]]:
    """The (name, bound) pairs of what a from-import imports (``a, b as c``, or in parentheses)."""
    found = []
    for item in _COMMENT.sub(b"", names).strip(b"() \t\r\n").split(b","):
        words = item.split()
        if len(words) == 1 or (len(words) == 3 and words[1] == b"as"):
            found.append((words[0].decode(errors="replace"), words[-1].decode(errors="replace")))
    return found


def installed_registrar_names(path: Path) -> frozenset[str]:
    """The names the installed module at ``path`` may bind a registrar to (besides a name that
    spells the API): :func:`_own_registrars`, kept per file while it is unchanged. A name of
    an installed module outside it needs no libcst parse to be told no registrar."""
    return _own.get(path)


def _own_registrars(path: Path) -> frozenset[str]:
    """The registrar names the module binds itself (:func:`registrar_names`), if it spells the
    API; the module is parsed only when its text may bind one (:func:`_may_bind_registrars`:
    diffusers' attention processors spell the API only to decorate their classes)."""
    data = read_source(path)  # (OSError: a module that cannot be read binds none)
    if data is None or PREFILTER not in data or not _may_bind_registrars(data):
        return frozenset()
    decoded = decode(data)
    if not isinstance(decoded, Decoded):
        return frozenset()
    tree = python_gate(decoded.text).tree
    return registrar_names(tree, decoded.text) if tree is not None else frozenset()


def _from_imports_of(path: Path) -> Mapping[str, str]:
    """What the module's ``from m import x [as y]`` statements bind (y -> ``m.x``; ``.x`` for
    ``from . import x``), found in its text (no parse: a package's ``__init__.py`` is often
    large), anywhere in it (generous: an import in a function counts too)."""
    data = read_source(path)  # (OSError: a module that cannot be read binds none)
    if data is None or b"import" not in data:
        return {}
    if b"\\\n" in data or b"\\\r" in data:
        data = data.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ")
    found = {}
    for module, names in _FROM_ANY.findall(data):
        source = module.decode(errors="replace")
        for name, bound in _listed(names):
            if name != "*":
                found[bound] = f"{source}{name}" if source.endswith(".") else f"{source}.{name}"
    return found


#: Per module file, while it is unchanged: the registrar names it binds itself, and what its
#: from-imports bind (the answers a run draws from them are the run's).
_own: PerFile[frozenset[str]] = PerFile(_KEPT, _own_registrars, frozenset())
_from_bindings: PerFile[Mapping[str, str]] = PerFile(_KEPT, _from_imports_of, {})


#: A line binding a name: ``def name``, ``name =``, ``name: T =`` (group 1 or 2), at any indentation.
_BINDING = re.compile(rb"[ \t\f]*(?:(?:async[ \t]+)?def[ \t]+(\w+)|(\w+)[ \t]*(?::[^=\n]*)?=(?!=))")


#: ``... as name``: an import that renames what it binds.
_RENAMED = re.compile(rb"\bas[ \t]+(\w+)")


def _may_bind_registrars(data: bytes) -> bool:
    """Whether the text may bind a registrar to a name that does not spell the API: a line
    that spells the API renames it (``import ... as mark``), or is neither a decorator, a
    comment nor an import (which binds the API's own name) and binds a name itself (an
    assignment) or lies in a def's body (a wrapper). Generous, and text only: a parse
    decides (:func:`registrar_names`)."""
    start = data.find(PREFILTER)
    while start != -1:
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", start)
        line = data[line_start : line_end if line_end != -1 else len(data)]
        stripped = line.lstrip()
        renamed = _RENAMED.search(line)
        if renamed is not None and PREFILTER not in renamed.group(1):
            return True  # ``from torch.compiler import allow_in_graph as mark``
        if not stripped.startswith((b"@", b"#", b"from ", b"import ")) and (
            _BINDING.match(line) or _in_a_def(data, line_start, line)
        ):
            return True
        start = data.find(PREFILTER, line_end) if line_end != -1 else -1
    return False


def _in_a_def(data: bytes, line_start: int, line: bytes) -> bool:
    """Whether the line at ``line_start`` lies indented below a ``def`` or an assignment (the
    lines above it read back to each one less indented than it)."""
    indent = len(line) - len(line.lstrip())
    end = line_start - 1
    while indent and end > 0:
        begin = data.rfind(b"\n", 0, end) + 1
        above = data[begin:end]
        stripped = above.lstrip()
        if stripped and not stripped.startswith(b"#") and len(above) - len(stripped) < indent:
            if stripped.startswith((b"def ", b"async def ")) or _BINDING.match(above):
                return True  # a wrapper's body, or an assignment continued (``mark = (``)
            indent = len(above) - len(stripped)
        end = begin - 1
    return False
