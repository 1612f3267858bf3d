"""The checked project beyond one file: the modules an import names, parsed on demand.

Nothing is imported. An import resolves to a file by path alone: relative imports
from the importing file's folder, absolute ones only inside the importing file's own
top-level package (so a project's ``from pkg.utils import x`` resolves, while
``numpy`` or ``torch`` never lead outside it). Parsed modules are cached for the
process; a module whose facts are being built is not entered again, so import cycles
end. Every file consulted for a check is recorded, so that the cache can tell when a
result depends on a file that changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import libcst as cst

from checker.source import PREFILTER, decode_source

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
        #: Files consulted since the last ``start``: path -> sha256 of their bytes.
        self.consulted: dict[str, str] = {}

    def start(self) -> None:
        """Begin a new file's check: forget what the previous one consulted."""
        self.consulted = {}

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
        if cached is None or cached[0] != stamp:  # a long-lived process must see edits
            if len(self._facts) >= _MAX_MODULES:
                self._facts.clear()
            self._building.add(key)
            try:
                self._facts[key] = (stamp, self._parse(key, require_api))
            finally:
                self._building.discard(key)
        found = self._facts[key][1]
        if found is not None:
            self.consulted[str(key)] = found.digest
        return found

    def _parse(self, path: Path, require_api: bool = True) -> ModuleFacts | None:
        from checker.facts.module import ModuleFacts

        try:
            data = path.read_bytes()
            if require_api and PREFILTER not in data:
                # A module that never mentions the API can neither be nor alias a registrar.
                return None
            module = cst.parse_module(decode_source(data))
        except (OSError, SyntaxError, UnicodeError, LookupError, RecursionError, cst.ParserSyntaxError):
            return None
        facts = ModuleFacts(module, str(path), project=self)
        facts.digest = hashlib.sha256(data).hexdigest()
        return facts


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
