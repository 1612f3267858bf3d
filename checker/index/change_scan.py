"""Where the project changes a module's top-level name: CPython's parser over the files
that mention it.

Another module can change ``config.X`` by assigning it (``config.X = v``, ``config.X +=
v``, ``del config.X``) or by changing the object in place (``config.X[k] = v``,
``config.X.append(v)``, ``from .config import X; X.update(...)``), at any level, since
nobody knows when it is imported. The module itself changes it from its functions
(``global X; X = v``, ``X.append(v)`` in a function), by augmented assignment, and from a
top-level loop or ``if __name__ == "__main__":`` block, which may run compiled code between
its steps; the rest of its top level runs at import, before anything is compiled. Writes that only fill in what is
missing (``if k not in cache: cache[k] = v``, ``setdefault``) are memoisation and leave
what was read as it was. Nothing is imported or run: the files are parsed, not executed.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from pathlib import Path

from checker.facts.captures.changes import ChangeKind
from checker.facts.scopes.tree import MUTATING_METHOD_PATTERN
from checker.index.change_walk import Below, Exposed, Found, Resolve, changes
from checker.index.environ_walk import sets_variable
from checker.reading.exhaustive import exhaustive
from checker.reading.mentions import top_level
from checker.reading.packages import files_beside, import_name, module_file, project_files, project_root, tree_digest
from checker.reading.source import WORDS, Unanalysable, bytes_or_none, decode, python_gate

#: How many modules deep re-exports of a name are followed.
_MAX_REEXPORTS = 8


@dataclass(frozen=True)
class Scanned:
    """What the project shows about one name: the first change found (the file, and what
    is there), and every file the answer depends on (path, sha256): those that mention the
    name, and those that re-export it."""

    where: tuple[str, Found] | None
    consulted: tuple[tuple[str, str], ...]
    #: The project's folder and the digest of all its files (``packages.tree_digest``):
    #: a file that starts to change the name, anywhere, changes the answer.
    project: tuple[str, str] | None = None
    #: The run's checked paths beside the package (a src layout's scripts, tests), each
    #: with the digest of its files: a file there that starts to change the name changes it too.
    beside: tuple[tuple[str, str], ...] = ()


class ChangeScans:
    """The files of each project, read once per process, and the answers asked of them.

    A file is parsed only when it mentions the name and its module (by the module's own
    name: ``config`` for ``pkg/config.py``; or a module that re-exports the name), or is
    that module.
    """

    def __init__(self, skip: Set[str]) -> None:
        self.skip = skip
        self._files: dict[Path, _Texts] = {}
        self._trees: dict[Path, str] = {}
        self._beside: dict[Path, tuple[tuple[str, str], ...]] = {}
        self._answers: dict[tuple[Path, str, bool, bool, Below | None], Scanned] = {}
        self._reexports: dict[tuple[Path, str], tuple[dict[Path, set[str]], list[tuple[Path, bytes]]]] = {}

    def change(self, module: Path, name: str, *, own: bool, rebinding: bool, below: Below | None = None) -> Scanned:
        """``below``: the read goes through attributes of the object, and only the writes
        that reach them count (:class:`~checker.index.change_walk.Below`)."""
        module = module.resolve()
        key = (module, name, own, rebinding, below)
        if key not in self._answers:
            self._answers[key] = self._scan(module, name, own, rebinding, below)
        return self._answers[key]

    def _scan(self, module: Path, name: str, own: bool, rebinding: bool, below: Below | None) -> Scanned:
        files = self._project(module)
        if (module, name) not in self._reexports:
            self._reexports[module, name] = _reexports(files, module, name)
        exposed, reexporting = self._reexports[module, name]
        prefilter = _Prefilter(exposed, project_root(module))
        where: tuple[str, Found] | None = None
        consulted = [(str(path), hashlib.sha256(data).hexdigest()) for path, data in reexporting]
        for named, data in files.spelling(prefilter.names, prefilter.modules, also=str(module)):
            mine = named == str(module)
            if mine and not own:
                continue
            if not mine and not prefilter.may_change(data) and not exhaustive():
                continue
            path = Path(named)
            if path not in exposed:
                consulted.append((named, hashlib.sha256(data).hexdigest()))
            if where is not None:
                continue
            tree = _parsed(data)
            if tree is None:
                continue
            found = next(
                changes(
                    tree, module, name, exposed, own=mine, rebinding=rebinding, module_of=_resolver(path), below=below
                ),
                None,
            )
            if found is not None:
                where = (named, found)
        root = project_root(module)
        project = (str(root), self._trees[root]) if root is not None and root in self._trees else None
        return Scanned(where, tuple(consulted), project, self._beside.get(root, ()) if root is not None else ())

    def environment(self, checked: Path, key: str) -> Scanned:
        """Where the project of ``checked`` sets the environment variable ``key``."""
        checked = checked.resolve()
        answer = (checked, key, True, True, None)
        if answer in self._answers:
            return self._answers[answer]
        files = self._project(checked)
        needle = key.encode(errors="surrogateescape")
        words = [needle] if WORDS.fullmatch(needle) else []
        where: tuple[str, Found] | None = None
        consulted = []
        for named, data in files.spelling(words, _ENVIRONMENT_WORDS):
            if needle not in data or not any(word in data for word in _ENVIRONMENT_WORDS):
                continue
            consulted.append((named, hashlib.sha256(data).hexdigest()))
            tree = _parsed(data) if where is None else None
            line = sets_variable(tree, key, own=named == str(checked)) if tree is not None else None
            if line is not None:
                where = (named, Found(ChangeKind.ENVIRONMENT, line))
        root = project_root(checked)
        project = (str(root), self._trees[root]) if root is not None and root in self._trees else None
        self._answers[answer] = Scanned(where, tuple(consulted), project)
        return self._answers[answer]

    def _project(self, module: Path) -> _Texts:
        root = project_root(module)
        if root is None:
            return _Texts((str(module),), (bytes_or_none(module),))
        if root not in self._files:
            listed = list(project_files(root, self.skip))
            datas = tuple(bytes_or_none(path) for path in listed)
            beside, self._beside[root] = files_beside(root, self.skip)
            paths = tuple(str(path.resolve()) for path in listed) + tuple(path for path, _ in beside)
            self._files[root] = _Texts(paths, datas + tuple(data for _, data in beside))
            self._trees[root] = tree_digest(root, zip(listed, datas, strict=True))
        return self._files[root]


#: The words a file that sets an environment variable spells (one of them at least).
_ENVIRONMENT_WORDS = (b"environ", b"putenv", b"unsetenv", b"setenv", b"delenv")

#: Questions about a project answered by searching each of its files, before its words are
#: indexed instead (one pass over every file, and about as costly as this many searches):
#: a project asked a few questions, as most are, never pays for the index, and one whose
#: thousands of registering files ask thousands is not searched once per question.
SCANS_BEFORE_INDEX = 32


class _Texts:
    """The files of one project (real path, bytes) in a stable order, and which of them
    spell a word (:meth:`spelling`). Kept as tuples of strings and bytes, which the cyclic
    collector does not track: a worker keeps them for its life, and its full collections
    (which free dropped modules) would otherwise cost more the larger the tree."""

    def __init__(self, paths: tuple[str, ...], datas: tuple[bytes, ...]) -> None:
        self.paths = paths
        self.datas = datas
        self._positions = {path: position for position, path in enumerate(paths)}
        self._searches = 0
        self._words: dict[bytes, tuple[int, ...]] | None = None

    def spelling(
        self, names: Sequence[bytes], alongside: Sequence[bytes], also: str | None = None
    ) -> Iterable[tuple[str, bytes]]:
        """The files (real path, bytes) that may spell one of ``names`` and one of
        ``alongside`` as whole words, in order, and ``also`` (the caller still tests each
        text: a file that does not may be among them). Every file, under the exhaustive switch."""
        words = self._index([*names, *alongside]) if not exhaustive() else None
        if words is None:
            return zip(self.paths, self.datas, strict=True)
        positions = {position for name in names for position in words.get(name, ())}
        positions &= {position for word in alongside for position in words.get(word, ())}
        if also is not None and also in self._positions:
            positions.add(self._positions[also])
        return [(self.paths[position], self.datas[position]) for position in sorted(positions)]

    def _index(self, names: Sequence[bytes]) -> dict[bytes, tuple[int, ...]] | None:
        """The index of the files' words, once enough questions have been asked (None before,
        and for a name that is not a run of ASCII ``\\w``, which the index does not hold)."""
        if not all(WORDS.fullmatch(name) for name in names):
            return None
        if self._words is None:
            self._searches += 1
            if self._searches <= SCANS_BEFORE_INDEX:
                return None
            found: dict[bytes, list[int]] = {}
            for position, data in enumerate(self.datas):
                for word in set(WORDS.findall(data)):
                    found.setdefault(word, []).append(position)
            # Tuples of ints: the collector stops tracking them (lists would be rescanned by every full collection).
            self._words = {word: tuple(positions) for word, positions in found.items()}
        return self._words


def _reexports(files: _Texts, module: Path, name: str) -> tuple[dict[Path, set[str]], list[tuple[Path, bytes]]]:
    """The modules that bind the object ``module.name`` at their top level (it, and those
    that re-export it: ``from ._impl import FLAGS``, re-exports of re-exports too), and the
    re-exporting files."""
    exposed: dict[Path, set[str]] = {module: {name}}
    reexporting: list[tuple[Path, bytes]] = []
    pending = [(module, name)]
    for _ in range(_MAX_REEXPORTS):
        if not pending:
            break
        source, bound = pending.pop()
        package = source.name == "__init__.py"
        needles = (bound.encode(), import_name(source).encode(errors="surrogateescape"))
        line = _from_import_line(import_name(source), bound, bare_relative=package)
        for named, data in files.spelling(needles[:1], [needles[1], *([b"from"] if package else [])]):
            if named == str(source):
                continue
            if not exhaustive() and (
                needles[0] not in data
                or not (needles[1] in data or package and b"from ." in data)
                or not line.search(data)
            ):
                continue
            path = Path(named)
            tree = _parsed(data)
            found = _reexported_as(tree, path, source, bound) if tree is not None else set()
            new = found - exposed.get(path, set())
            if new:
                if path not in exposed:
                    reexporting.append((path, data))
                exposed.setdefault(path, set()).update(new)
                pending += [(path, again) for again in new]
    return exposed, reexporting


def _reexported_as(tree: ast.Module, path: Path, source: Path, name: str) -> set[str]:
    """The names the top level of ``path`` binds to ``source``'s ``name`` by from-imports."""
    resolve = _resolver(path)
    bound = set()
    for node in top_level(tree.body):
        if isinstance(node, ast.ImportFrom) and resolve("." * node.level + (node.module or "")) == source:
            bound |= {alias.asname or alias.name for alias in node.names if alias.name == name}
    return bound


_ASSIGN = rb"\s*(?:\[[^\]\n]*\]\s*)?(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)"
#: Attributes and items on the way below the object: ``.opts``, ``["k"]`` (``CFG.opts.scale = v``).
_DEEPER = rb"(?:\s*\.\s*\w+|\s*\[[^\]\n]*\])*"
_METHOD = _DEEPER + rb"\s*\.\s*(?:\w+\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)|" + MUTATING_METHOD_PATTERN + rb"\s*\()"
#: ``setattr(NS, ...)``, ``delattr(config.NS, ...)``: the object is the first argument.
_SETTER = rb"\b(?:setattr|delattr)\s*\(\s*(?:\w+\s*\.\s*)*"


class _Prefilter:
    """Cheap tests that a file may change the object: it mentions one of its names and
    imports one of the modules that bind it (:func:`_imports`), and it changes a name of
    it through a module (``m.X =``, ``m.X[k] =``, ``m.X.append(...)``, ``del m.X``) or
    imports the name and changes it in place (``from m import X`` and ``X[k] = v``)."""

    def __init__(self, exposed: Exposed, root: Path | None) -> None:
        names = sorted({name for bound in exposed.values() for name in bound})
        stems = sorted({import_name(path) for path in exposed})
        self.names = [name.encode() for name in names]
        self.stems = [stem.encode(errors="surrogateescape") for stem in stems]
        #: ``from . import X`` imports from a package's ``__init__.py``, which it does not name.
        self.bare_relative = any(path.name == "__init__.py" for path in exposed)
        #: The words a file that imports one of the modules spells (one of them at least).
        self.modules = [*self.stems, *([b"from"] if self.bare_relative else [])]
        self.imports = _imports(stems, root.name if root is not None else stems[0], self.bare_relative)
        word = _words(names)
        change = rb"(?:" + _ASSIGN + rb"|" + _METHOD + rb")"
        self.through_module = re.compile(
            rb"\.\s*" + word + change + rb"|\bdel\b[^\n]*\." + word + rb"|" + _SETTER + rb"\w+\s*\.\s*" + word
        )
        self.in_place = re.compile(word + change + rb"|\bdel\b[^\n]*" + word + rb"|" + _SETTER + word)
        self.imported = re.compile(rb"(?m)^[ \t\f]*(?:from[ \t]+\S+[ \t]+)?import\b[^\n]*" + word)

    def may_change(self, data: bytes) -> bool:
        if not any(name in data for name in self.names):
            return False
        if not any(stem in data for stem in self.stems) and not (self.bare_relative and b"from ." in data):
            return False
        if not self.imports.search(data):
            return False
        if self.through_module.search(data):
            return True
        return bool(self.imported.search(data) and self.in_place.search(data))


def _words(names: list[str]) -> bytes:
    return (
        rb"(?<![\w])(?:" + b"|".join(re.escape(name.encode(errors="surrogateescape")) for name in names) + rb")(?![\w])"
    )


def _imports(stems: list[str], package: str, bare_relative: bool) -> re.Pattern[bytes]:
    """A cheap test that a file imports one of the modules named ``stems`` of the top-level
    package ``package``, or from it: an import line naming one that is relative or names the
    package (imports are followed only inside the importing file's own package); with
    ``bare_relative``, ``from . import`` too."""
    inside = rb"(?:from[ \t]+\.|[^\n]*(?<![\w])" + re.escape(package.encode(errors="surrogateescape")) + rb"(?![\w]))"
    pattern = rb"^[ \t\f]*(?=" + inside + rb")(?:from|import)\b[^\n]*" + _words(stems)
    if bare_relative:
        pattern += rb"|^[ \t\f]*from[ \t]+\.+[ \t]+import\b"
    return re.compile(rb"(?m)" + pattern)


def _from_import_line(stem: str, name: str, *, bare_relative: bool) -> re.Pattern[bytes]:
    """A cheap test for ``from ...stem import name`` (``from . import name`` too for a
    package), the names in parentheses across lines too."""
    source = rb"[.\w]*(?<![\w])" + re.escape(stem.encode(errors="surrogateescape"))
    if bare_relative:
        source = rb"(?:" + source + rb"|\.+)"
    names = rb"(?:\([^)]*?|[^\n(]*?)(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])"
    return re.compile(rb"(?m)^[ \t\f]*from[ \t]+" + source + rb"[ \t]+import\b" + names)


def _parsed(data: bytes) -> ast.Module | None:
    decoded = decode(data)  # as the full tier decodes it
    if isinstance(decoded, Unanalysable):
        return None
    gate = python_gate(decoded.text)
    return gate.tree if gate.refused is None else None


def _resolver(path: Path) -> Resolve:
    def module_of(dotted: str) -> Path | None:
        if dotted and not dotted.strip("."):  # ``from . import X``: the package itself
            found = module_file(path, dotted + "__init__")
        else:
            found = module_file(path, dotted)
        return found.resolve() if found is not None else None

    return module_of
