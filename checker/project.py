"""The checked project beyond one file: the modules an import names, parsed on demand.

Nothing is imported. An import resolves to a file by path alone: relative imports
from the importing file's folder, absolute ones only inside the importing file's own
top-level package, regular or namespace (so a project's ``from pkg.utils import x``
resolves, while ``numpy`` or ``torch`` never lead outside it). Parsed modules are cached for the
process, and a checked file that was parsed earlier as another file's import is not
parsed again; a module whose facts are being built is not entered again, so import
cycles end. Which modules each module's facts consulted is recorded, so that the
cache can tell when a result depends on a file that changed.
"""

from __future__ import annotations

import gc
import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import libcst as cst

from checker.facts.scopes import Binding, BindingKind
from checker.mentions import class_only_names, may_register
from checker.source import API_ONLY, PREFILTER, decode_source, python_gate

if TYPE_CHECKING:
    from checker.facts.module import ModuleFacts

T = TypeVar("T")
#: A file's (mtime_ns, size): when it changes, what was read from the file is stale.
Stamp = tuple[int, int]

#: Parsed modules kept per process, the least recently used dropped first (each a few MB
#: of syntax tree); this bounds the memory of a run however large the tree.
_MAX_MODULES = 64
#: Dropped modules are reference cycles, freed only by a full collection (see ``quiet_gc``),
#: which scans every live module too. Memory comes first: collecting every 64 drops instead
#: made four copies of diffusers 10% faster and their peak RSS 25% higher.
_COLLECT_EVERY = 16


class Project:
    def __init__(self) -> None:
        self._facts: OrderedDict[Path, tuple[Stamp, ModuleFacts | None]] = OrderedDict()
        self._dropped = 0
        self._building: set[Path] = set()
        self._following: set[tuple[str, str]] = set()
        self._candidates: dict[tuple[str, str], list[tuple[Path, str]]] = {}
        self._outlines: dict[Path, tuple[Stamp, _Outline]] = {}
        #: importing module -> the modules its facts consulted (path -> sha256 of their bytes)
        self._consulted: dict[str, dict[str, str]] = {}

    def dependencies(self, path: str) -> dict[str, str]:
        """Every module the facts of ``path`` consulted, directly or through the modules
        they consulted: path -> sha256 of its bytes."""
        start = _key(path)
        found: dict[str, str] = {}
        pending = [start]
        while pending:
            for name, digest in self._consulted.get(pending.pop(), {}).items():
                if name not in found and name != start:
                    found[name] = digest
                    pending.append(name)
        return found

    def parsed(self, path: str, digest: str) -> ModuleFacts | None:
        """The facts of ``path`` if it was already parsed with these bytes (as an import)
        and no module they consulted has changed since."""
        cached = self._facts.get(Path(_key(path)))
        facts = cached[1] if cached is not None else None
        if facts is None or facts.digest != digest or self._stale(_key(path)):
            return None
        return facts

    def _stale(self, key: str) -> bool:
        """Whether a module the facts of ``key`` consulted was edited since it was parsed."""
        for name in self.dependencies(key):
            cached = self._facts.get(Path(name))
            if cached is None or cached[0] != _stamp(Path(name)):
                return True
        return False

    def lookup(self, importer: str, qualified: str, require_api: bool = True) -> tuple[ModuleFacts, str] | None:
        """The module (and the name in it) that an imported ``qualified`` name refers to.

        ``require_api``: only modules that mention the API (where registrars can be);
        values and base classes can come from any module of the package.
        """
        key = (str(Path(importer).parent), qualified)
        if key not in self._candidates:
            self._candidates[key] = _candidates(Path(importer), qualified)
        for module_path, attribute in self._candidates[key]:
            if require_api and not self._may_bind_registrar(module_path, attribute):
                continue
            facts = self.facts(module_path, require_api)
            if facts is not None:
                self._consulted.setdefault(_key(importer), {})[_key(facts.path)] = facts.digest
                return facts, attribute
        return None

    def _may_bind_registrar(self, path: Path, attribute: str) -> bool:
        """What CPython's tree of ``path`` says, before any libcst parse: a module can bind a
        registrar only if its code names the API, and not to a name only classes bind."""
        key = path.resolve()
        stamp = _stamp(key)
        if stamp is None:
            return False
        cached = self._outlines.get(key)
        if cached is None or cached[0] != stamp:
            if len(self._outlines) >= _MAX_MODULES * 4:
                self._outlines.clear()
            cached = self._outlines[key] = (stamp, _outline(key))
        outline = cached[1]
        return outline.registers and attribute not in outline.classes

    def _vetted(self, key: Path, stamp: Stamp) -> bool:
        """Whether CPython's parser already found ``key``, as it is now, safe for libcst (an outline)."""
        cached = self._outlines.get(key)
        return cached is not None and cached[0] == stamp and cached[1].registers

    def origin(self, importer: str, qualified: str) -> tuple[ModuleFacts, str, list[Binding]] | None:
        """The module that binds an imported name itself, the name there and its top-level
        bindings: re-exports (``from .impl import f`` in ``__init__.py``) are followed on,
        and a cycle of them ends with None."""
        found = self.lookup(importer, qualified, require_api=False)
        return None if found is None else self.follow(*found, self._origin_in)

    def _origin_in(self, facts: ModuleFacts, name: str) -> tuple[ModuleFacts, str, list[Binding]] | None:
        bindings = facts.tree.module.bindings.get(name, [])
        if len(bindings) == 1 and bindings[0].kind is BindingKind.IMPORT and bindings[0].imported:
            return self.origin(facts.path, bindings[0].imported)
        return facts, name, bindings

    def follow(self, facts: ModuleFacts, attribute: str, step: Callable[[ModuleFacts, str], T]) -> T | None:
        """Ask ``step`` about ``attribute`` of ``facts`` unless that is already being asked
        further up: aliases that import each other in a cycle end with None."""
        key = (facts.path, attribute)
        if key in self._following:
            return None
        self._following.add(key)
        try:
            return step(facts, attribute)
        finally:
            self._following.discard(key)

    def remember(self, path: Path, facts: ModuleFacts, digest: str) -> None:
        """Keep a module the engine parsed anyway (``digest``: sha256 of its bytes), for the
        imports of the files after it."""
        key = path.resolve()
        stamp = _stamp(key)
        if stamp is None:
            return  # stdin, or a file that went away
        facts.digest = digest
        self._consulted.pop(str(key), None)
        self._keep(key, (stamp, facts))

    def owner_of(self, node: cst.CSTNode) -> ModuleFacts | None:
        """The parsed module a definition node belongs to."""
        for _, facts in self._facts.values():
            if facts is not None and node in facts.tree.scope_of:
                return facts
        return None

    def facts(self, path: Path, require_api: bool = True) -> ModuleFacts | None:
        key = path.resolve()
        stamp = _stamp(key)
        if key in self._building or stamp is None:
            return None
        cached = self._facts.get(key)
        if cached is not None and cached[1] is None and not require_api and cached[0] == stamp:
            cached = None  # skipped before for not mentioning the API; now any module will do
        if cached is None or cached[0] != stamp or self._stale(str(key)):  # a long-lived process must see edits
            self._building.add(key)
            self._consulted.pop(str(key), None)
            try:
                cached = (stamp, self._parse(key, require_api, vetted=self._vetted(key, stamp)))
            finally:
                self._building.discard(key)
        self._keep(key, cached)
        return cached[1]

    def _keep(self, key: Path, entry: tuple[Stamp, ModuleFacts | None]) -> None:
        self._facts[key] = entry
        self._facts.move_to_end(key)
        while len(self._facts) > _MAX_MODULES:
            self._facts.popitem(last=False)
            self._dropped += 1
            if self._dropped % _COLLECT_EVERY == 0:
                gc.collect()

    def _parse(self, path: Path, require_api: bool = True, vetted: bool = False) -> ModuleFacts | None:
        """``vetted``: CPython's parser already found the file safe for libcst."""
        from checker.facts.module import ModuleFacts

        try:
            data = path.read_bytes()
            if require_api and PREFILTER not in data:
                # A module that never mentions the API can neither be nor alias a registrar.
                return None
            text = decode_source(data)
            # What would crash libcst is never handed to it.
            if not vetted and python_gate(text).refused is not None:
                return None
            module = cst.parse_module(text)
        except (OSError, SyntaxError, UnicodeError, LookupError, RecursionError, cst.ParserSyntaxError):
            return None
        facts = ModuleFacts(module, str(path), project=self)
        facts.digest = hashlib.sha256(data).hexdigest()
        return facts


@dataclass(frozen=True)
class _Outline:
    registers: bool
    classes: frozenset[str] = frozenset()


def _outline(path: Path) -> _Outline:
    try:
        data = path.read_bytes()
        if PREFILTER not in data:
            return _Outline(registers=False)  # a module that never mentions the API cannot register
        gate = python_gate(decode_source(data))
    except (OSError, SyntaxError, UnicodeError, LookupError):
        return _Outline(registers=False)
    if gate.refused is not None:
        return _Outline(registers=False)
    if gate.tree is None:
        return _Outline(registers=True)  # newer syntax than this interpreter's: libcst decides
    return _Outline(may_register(gate.tree, API_ONLY), class_only_names(gate.tree))


def _stamp(path: Path) -> Stamp | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def _key(path: str) -> str:
    return str(Path(path).resolve())


def _candidates(importer: Path, qualified: str) -> list[tuple[Path, str]]:
    """(module file, attribute) pairs ``qualified`` may name, the longest module first."""
    dots = len(qualified) - len(qualified.lstrip("."))
    parts = qualified[dots:].split(".") if qualified[dots:] else []
    if dots:
        base = importer.parent
        for _ in range(dots - 1):
            base = base.parent
    else:
        base = _package_root(importer, parts[0]) if parts else None
        if base is None:
            return []
    found = []
    for cut in range(len(parts), -1, -1):
        module, attribute = parts[:cut], ".".join(parts[cut:])
        if not attribute or "." in attribute:
            continue
        folder = base.joinpath(*module)
        for candidate in (folder.with_suffix(".py") if module else None, folder / "__init__.py"):
            if candidate is not None and candidate.is_file() and candidate.resolve() != importer.resolve():
                found.append((candidate, attribute))
    return found


def module_name(path: str) -> str | None:
    """The dotted name a file is imported as (``pkg/sub/mod.py`` -> ``pkg.sub.mod``), from
    its ``__init__.py`` chain; None outside a package."""
    file = Path(path).resolve()
    package = _top_package(file)
    if package is None:
        return None
    parts = file.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_root(importer: Path, name: str) -> Path | None:
    """The folder holding package ``name`` when ``importer`` is inside it: its regular
    package's, or for a namespace package (no ``__init__.py``), the parent of the
    nearest enclosing folder called ``name``. Other packages are never looked into."""
    package = _top_package(importer)
    if package is not None and package.name == name:
        return package.parent
    for folder in importer.resolve().parents:
        if folder.name == name:
            return folder.parent
    return None


def _top_package(path: Path) -> Path | None:
    """The outermost folder of the regular package that holds ``path`` (``__init__.py`` chain)."""
    folder = path.resolve().parent
    top = None
    while (folder / "__init__.py").is_file():
        top = folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return top
