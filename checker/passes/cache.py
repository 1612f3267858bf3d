"""A content-hash cache of per-file results (``.aigcheck_cache/``).

A result is reused only when everything it was computed from is unchanged. The key
hashes the file's bytes, its shown path and its place under the project root, the
rules run on it, the registrar aliases the pre-filter looked for, the settings of the
configuration and the checker itself (a digest of the sizes and modification times of
its own source files, so any change to the checker, not only a version bump,
invalidates every entry). A result can also depend on other files of the project
(modules it imports from, files that may change a name it reads), so each entry lists
them with their hashes, the files an import looked for and did not find as absent, and
for a name any module could change, the project's folder with a digest of all its files:
the entry is a miss as soon as one of them changed, appeared or went away.

Entries hold paths relative to the project root, so a copied tree, a cache restored
into a new checkout, or two checkouts sharing one ``--cache-dir`` check each
dependency against their own files. Entries are written to a temporary file and
renamed into place, so two runs racing on one cache never see a half-written entry
and a full disk leaves no temporary file behind; an unreadable, oversized or corrupt
entry is a miss and is written again. The cache's own files and folders are reached
without following symbolic links (:class:`checker.output.atomic.Folder`): a checked-out tree
may commit ``.aigcheck_cache/`` with links in it to anyone's files, and a link there is
replaced, never written through, and never read. The default folder, in the checked
tree, is not used at all when it is itself a link. Runs that
fix files or report unused suppressions bypass the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

import checker
from checker.output.atomic import Folder, open_folder
from checker.passes.engine import FileReport, LinkedReport
from checker.reading.discovery import DEFAULT_EXCLUDES
from checker.reading.packages import project_files, tree_digest
from checker.reading.source import bytes_or_none, file_digest
from checker.spec.findings import Finding, Severity
from checker.spec.links import ABSENT, Elsewhere, Links, Place, Registrar, Via

T = TypeVar("T")

CACHE_DIR_NAME = ".aigcheck_cache"
#: The layout of entries (a part of every key too); old entries are only misses.
_FORMAT = "1"
#: An entry larger than this is a miss, never read (and a result that large is not kept):
#: an entry holds one file's findings and paths, a few KB.
MAX_ENTRY_BYTES = 8 * 1024 * 1024
_GITIGNORE = "# Created by aigcheck.\n*\n"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# aigcheck cache\n"


class Cache:
    """``root``: the project root that entries' paths are relative to (the working
    directory when None); ``settings``: a digest of the configuration
    (:attr:`checker.configuration.settings.Settings.cache_digest`)."""

    def __init__(self, directory: Path, root: Path | None = None, settings: str = "", *, follow: bool = True) -> None:
        self.directory = directory
        #: Whether ``directory`` may itself be a symbolic link (one named on the command
        #: line may be; the default one, in the checked tree, may not). Nothing inside it
        #: is ever followed.
        self.follow = follow
        self._marked = False
        self.root = os.path.abspath(root if root is not None else os.curdir)
        #: Dependencies are recorded resolved (symlinks followed), so they are relative to this.
        self.real_root = os.path.realpath(self.root)
        self.settings = settings
        self.hits = 0
        self.misses = 0
        #: The digests of the project folders entries depend on, computed once per run.
        self._trees: dict[str, str] = {}

    @classmethod
    def at(cls, root: Path, settings: str = "") -> Cache:
        """The cache under ``root``, created on first write; never through a link there
        (a checked-out tree may hold one, to anywhere)."""
        return cls(root / CACHE_DIR_NAME, root, settings, follow=False)

    def is_refused_link(self) -> bool:
        """Whether the folder is a symbolic link this cache does not follow (it is then
        neither read nor written: a run should say so, and go on without it)."""
        return not self.follow and self.directory.is_symlink()

    def key(self, data: bytes, path: str, codes: Sequence[str], aliases: Sequence[str] = ()) -> str:
        """``path``: the file as shown; ``aliases``: the project's registrar aliases the pre-filter looked for."""
        # Where the file sits under the root: the same shown path from another working
        # directory is another file, whose dependencies are elsewhere relative to the root.
        placed = _relative(os.path.abspath(path), self.root)
        digest = hashlib.sha256()
        for part in (
            _FORMAT,
            checker_digest(),
            self.settings,
            path,
            placed,
            ",".join(sorted(codes)),
            ",".join(sorted(aliases)),
        ):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def holds_entries(self) -> bool:
        """Whether any entry was written (a run may then be answered from the cache): one
        directory read."""
        try:
            with self._folder() as top, top.child(_FORMAT) as entries:
                return not entries.is_empty()
        except OSError:
            return False

    def get(self, key: str) -> LinkedReport | None:
        try:
            with self._entries(key, create=False) as folder:
                data = folder.read(f"{key}.json", MAX_ENTRY_BYTES)
            outcome = self._decode(json.loads(data), key)
        except Exception:  # noqa: BLE001 - whatever is wrong with an entry (RecursionError, MemoryError too), it is a miss
            outcome = None
        if outcome is None:
            self.misses += 1
        else:
            self.hits += 1
        return outcome

    def put(self, key: str, outcome: LinkedReport) -> None:
        if outcome.report.internal_error is not None:
            return  # a crash is not a result worth keeping
        try:
            data = json.dumps(self._encode(outcome, key)).encode("utf-8", "surrogatepass")
            if len(data) > MAX_ENTRY_BYTES:
                return
            with self._entries(key, create=True) as folder:
                if folder.kind(f"{key}.json") == stat.S_IFDIR:
                    folder.remove_empty(f"{key}.json")  # a folder where the entry goes: only an empty one
                folder.write(f"{key}.json", data)
        except (OSError, ValueError):
            pass  # a cache that cannot be written only costs time

    @contextmanager
    def _folder(self, create: bool = False) -> Iterator[Folder]:
        """The cache folder, open; made and marked (once a run) with ``create``."""
        with open_folder(self.directory, follow=self.follow, create=create) as top:
            if create and not self._marked:
                if top.kind(".gitignore") != stat.S_IFREG or top.kind("CACHEDIR.TAG") != stat.S_IFREG:
                    # Never committed, never backed up (as ruff and pytest mark theirs).
                    top.write(".gitignore", _GITIGNORE.encode())
                    top.write("CACHEDIR.TAG", _CACHEDIR_TAG.encode())
                self._marked = True
            yield top

    @contextmanager
    def _entries(self, key: str, create: bool) -> Iterator[Folder]:
        """The folder of ``key``'s entry, reached from the cache folder without following a link."""
        with self._folder(create) as top, top.child(_FORMAT, create=create) as entries:
            with entries.child(key[:2], create=create) as folder:
                yield folder

    # -- entries ----------------------------------------------------------------------

    def _encode(self, outcome: LinkedReport, key: str) -> dict[str, object]:
        report, links = outcome.report, outcome.links
        return {
            "key": key,
            "path": report.path,
            "parsed": report.parsed,
            "suppressed": report.suppressed,
            "findings": [finding.as_dict() for finding in report.findings],
            "dependencies": [[_relative(path, self.real_root), digest] for path, digest in links.dependencies],
            "exports": list(links.exports),
            "handoffs": [
                [_relative(path, self.real_root), *_encode_elsewhere(elsewhere)] for path, elsewhere in links.handoffs
            ],
            "registered": list(links.registered),
        }

    def _decode(self, stored: object, key: str) -> LinkedReport | None:
        """The outcome an entry holds, or None when a file it depends on changed;
        ``ValueError`` (or another error) for an entry that is not one this checker wrote."""
        if not isinstance(stored, dict) or stored.get("key") != key:
            raise ValueError("not the entry of this key")
        dependencies = tuple(
            (self._absolute(_text(path)), _text(digest)) for path, digest in _rows(stored["dependencies"], 2)
        )
        if changed(dict(dependencies), self._trees):
            return None
        findings = tuple(_decode_finding(item) for item in _items(stored["findings"]))
        report = FileReport(
            _text(stored["path"]),
            findings,
            parsed=_typed(stored["parsed"], bool),
            suppressed=_typed(stored["suppressed"], int),
        )
        links = Links(
            exports=tuple(_text(name) for name in _items(stored["exports"])),
            dependencies=dependencies,
            handoffs=tuple(
                (self._absolute(_text(path)), _decode_elsewhere(name, registrar, where))
                for path, name, registrar, where in _rows(stored["handoffs"], 4)
            ),
            registered=tuple(_text(name) for name in _items(stored["registered"])),
        )
        return LinkedReport(report, links)

    def _absolute(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.real_root, path))


@lru_cache(maxsize=1)
def checker_digest() -> str:
    """Identifies this checker's code: its version and every source file's size and mtime."""
    root = Path(checker.__file__).parent
    digest = hashlib.sha256(checker.__version__.encode())
    for source in sorted(root.rglob("*.py")):
        status = source.stat()
        digest.update(f"{source.relative_to(root)}:{status.st_size}:{status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def changed(consulted: dict[str, str], trees: dict[str, str] | None = None) -> bool:
    """Whether any consulted file differs from when it was consulted (path -> sha256 of
    its bytes, or ``ABSENT`` for a file that was not there; a folder -> the digest of its
    project's files). ``trees``: folder digests already computed in this run."""
    trees = {} if trees is None else trees
    for name, digest in consulted.items():
        if os.path.isdir(name):
            if name not in trees:
                trees[name] = _tree_digest(Path(name))
            if trees[name] != digest:
                return True
            continue
        present = os.path.isfile(name)
        if digest == ABSENT or not present:
            if present == (digest == ABSENT):  # appeared, or went away
                return True
            continue
        # Read without waiting: a FIFO swapped in since the look above is a change.
        if file_digest(name) != digest:
            return True
    return False


def _tree_digest(root: Path) -> str:
    """The digest :mod:`checker.index.change_scan` records for the project at ``root``."""
    return tree_digest(root, ((path, bytes_or_none(path)) for path in project_files(root, DEFAULT_EXCLUDES)))


def _relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` (``../x.py`` outside it); absolute only on another drive.
    A real path below the real root is cut without ``relpath``, which asks for the working
    directory twice a call (an entry of torch's lists hundreds of dependencies)."""
    inside = root.rstrip(os.sep) + os.sep
    if len(path) > len(inside) and path.startswith(inside) and os.path.isabs(root) and _normal(path) and _normal(root):
        return path[len(inside) :]
    try:
        return os.path.relpath(path, root)
    except ValueError:  # another drive (Windows)
        return path


def _normal(path: str) -> bool:
    """Whether ``path`` is as ``normpath`` leaves it (no ``.``, ``..`` or doubled separator)."""
    return os.path.normpath(path) == path


def _encode_elsewhere(elsewhere: Elsewhere) -> list[object]:
    registrar, where = elsewhere.registrar, elsewhere.where
    return [
        elsewhere.name,
        [registrar.spelled, registrar.via.value, registrar.index, registrar.alias, registrar.module],
        [where.path, where.line],
    ]


def _decode_elsewhere(name: object, registrar: object, where: object) -> Elsewhere:
    spelled, via, index, alias, module = _items(registrar)
    path, line = _items(where)
    return Elsewhere(
        _text(name),
        Registrar(_text(spelled), Via(via), _typed(index, int), _text(alias), _text(module)),
        Place(_text(path), _typed(line, int)),
    )


_FINDING_FIELDS = {
    "path": str,
    "line": int,
    "column": int,
    "end_line": int,
    "end_column": int,
    "code": str,
    "name": str,
    "severity": str,
    "message": str,
    "fingerprint": str,
}


def _decode_finding(item: object) -> Finding:
    if not isinstance(item, dict) or item.keys() != _FINDING_FIELDS.keys():
        raise ValueError("not a finding")
    fields: dict[str, object] = {name: _typed(item[name], kind) for name, kind in _FINDING_FIELDS.items()}
    fields["severity"] = Severity(fields["severity"])
    return Finding(**fields)  # type: ignore[arg-type]


def _items(value: object) -> list[object]:
    """A JSON list."""
    if not isinstance(value, list):
        raise ValueError("not a list")
    return value


def _rows(value: object, width: int) -> list[list[object]]:
    """A JSON list of lists of ``width`` items each."""
    items = _items(value)
    rows = [item for item in items if isinstance(item, list) and len(item) == width]
    if len(rows) != len(items):
        raise ValueError(f"not a list of {width}-item lists")
    return rows


def _text(value: object) -> str:
    return _typed(value, str)


def _typed(value: object, kind: type[T]) -> T:
    # bool is an int to isinstance; never the other way round in an entry.
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    raise ValueError(f"not a {kind.__name__}")
