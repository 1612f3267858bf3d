"""The checked project beyond one file: the modules an import names, parsed on demand.

Nothing is imported. An import resolves to a file by path alone: relative imports
from the importing file's folder, absolute ones only inside the importing file's own
top-level package (so a project's ``from pkg.utils import x`` resolves, while
``numpy`` or ``torch`` never lead outside it). Parsed modules are cached for the
process, and a checked file that was parsed earlier as another file's import is not
parsed again; a module whose facts are being built is not entered again, so import
cycles end. Which modules each module's facts consulted is recorded, so that the
cache can tell when a result depends on a file that changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import libcst as cst

from checker.mentions import may_register
from checker.source import API_ONLY, PREFILTER, decode_source, python_gate

if TYPE_CHECKING:
    from checker.facts.module import ModuleFacts

T = TypeVar("T")

#: Parsed modules kept per process (each a few MB of syntax tree at most).
_MAX_MODULES = 256


class Project:
    def __init__(self) -> None:
        self._facts: dict[Path, tuple[tuple[int, int], ModuleFacts | None]] = {}
        self._building: set[Path] = set()
        self._following: set[tuple[str, str]] = set()
        self._candidates: dict[tuple[str, str], list[tuple[Path, str]]] = {}
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
            try:
                status = Path(name).stat()
            except OSError:
                return True
            if cached is None or cached[0] != (status.st_mtime_ns, status.st_size):
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
            facts = self.facts(module_path, require_api)
            if facts is not None:
                self._consulted.setdefault(_key(importer), {})[_key(facts.path)] = facts.digest
                return facts, attribute
        return None

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
        try:
            key = path.resolve()
            status = key.stat()
        except OSError:
            return  # stdin, or a file that went away
        facts.digest = digest
        if len(self._facts) >= _MAX_MODULES:
            self._facts.clear()
        self._consulted.pop(str(key), None)
        self._facts[key] = ((status.st_mtime_ns, status.st_size), facts)

    def owner_of(self, node: cst.CSTNode) -> ModuleFacts | None:
        """The parsed module a definition node belongs to."""
        for _, facts in self._facts.values():
            if facts is not None and node in facts.tree.scope_of:
                return facts
        return None

    def facts(self, path: Path, require_api: bool = True) -> ModuleFacts | None:
        key = path.resolve()
        if key in self._building:
            return None
        try:
            status = key.stat()
        except OSError:
            return None
        stamp = (status.st_mtime_ns, status.st_size)
        cached = self._facts.get(key)
        if cached is not None and cached[1] is None and not require_api and cached[0] == stamp:
            cached = None  # skipped before for not mentioning the API; now any module will do
        if cached is None or cached[0] != stamp or self._stale(str(key)):  # a long-lived process must see edits
            if len(self._facts) >= _MAX_MODULES:
                self._facts.clear()
            self._building.add(key)
            self._consulted.pop(str(key), None)
            try:
                self._facts[key] = (stamp, self._parse(key, require_api))
            finally:
                self._building.discard(key)
        return self._facts[key][1]

    def _parse(self, path: Path, require_api: bool = True) -> ModuleFacts | None:
        from checker.facts.module import ModuleFacts

        try:
            data = path.read_bytes()
            if require_api and PREFILTER not in data:
                # A module that never mentions the API can neither be nor alias a registrar.
                return None
            text = decode_source(data)
            gate = python_gate(text)  # what would crash libcst is never handed to it
            if gate.refused is not None:
                return None
            if require_api and gate.tree is not None and not may_register(gate.tree, API_ONLY):
                return None
            module = cst.parse_module(text)
        except (OSError, SyntaxError, UnicodeError, LookupError, RecursionError, cst.ParserSyntaxError):
            return None
        facts = ModuleFacts(module, str(path), project=self)
        facts.digest = hashlib.sha256(data).hexdigest()
        return facts


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
        package = _top_package(importer)
        if package is None or not parts or parts[0] != package.name:
            return []
        base = package.parent
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


def changed(consulted: dict[str, str]) -> bool:
    """Whether any consulted file's bytes differ from when it was consulted."""
    for name, digest in consulted.items():
        try:
            data = Path(name).read_bytes()
        except OSError:
            return True
        if hashlib.sha256(data).hexdigest() != digest:
            return True
    return False
