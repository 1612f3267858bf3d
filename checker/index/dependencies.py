"""What each checked module's result depends on, for the cache: the modules its facts
consulted, and every file its imports looked for, there or not, each with the sha256 of
its bytes then (or ``ABSENT``). A result is reused only while all of them are unchanged.
"""

from __future__ import annotations

from pathlib import Path

from checker.index.outlines import Stamp, file_stamp
from checker.reading.packages import looked_for, real_path
from checker.reading.source import file_digest
from checker.spec.links import ABSENT

#: path -> sha256 of its bytes (or ``ABSENT``), per importing module.
Record = dict[str, dict[str, str]]


class Dependencies:
    """The records of one project index. Every path is named by its real path (:meth:`key`)."""

    def __init__(self) -> None:
        #: importing module -> the modules its facts consulted
        self._consulted: Record = {}
        #: importing module -> every file its imports looked for; for the cache only:
        #: parsed facts are not stale because a file nobody parsed appeared.
        self._looked: Record = {}
        self._looked_names: dict[str, set[str]] = {}
        self._looked_paths: dict[tuple[str, str], list[str]] = {}
        self._digests: dict[str, tuple[Stamp | None, str]] = {}
        self._keys: dict[str, str] = {}

    def key(self, path: str) -> str:
        """The file's real path (each path resolved once: a resolve costs a system call per
        folder of the path)."""
        key = self._keys.get(path)
        if key is None:
            key = self._keys[path] = str(real_path(Path(path)))
        return key

    def of(self, path: str) -> dict[str, str]:
        """Every file the result of ``path`` depends on, directly or through the modules
        its facts consulted."""
        return self._closure(path, (self._looked, self._consulted))

    def consulted_through(self, path: str) -> dict[str, str]:
        """The modules the facts of ``path`` consulted, directly or through each other."""
        return self._closure(path, (self._consulted,))

    def consulted(self, importer: str, path: str, digest: str) -> None:
        """The facts of ``importer`` read the module ``path`` (a key already) with these bytes."""
        self._consulted.setdefault(self.key(importer), {})[path] = digest

    def looked(self, importer: str, path: str, digest: str) -> None:
        """The result of ``importer`` depends on the file ``path`` (a key already) as it is now."""
        self._looked.setdefault(self.key(importer), {})[path] = digest

    def look(self, importer: str, qualified: str) -> None:
        """Record the files an import of ``qualified`` in ``importer`` looks for, as they are now."""
        importer_key = self.key(importer)
        names = self._looked_names.setdefault(importer_key, set())
        if qualified in names:
            return
        names.add(qualified)
        where = (str(Path(importer).parent), qualified)
        if where not in self._looked_paths:
            self._looked_paths[where] = [self.key(str(path)) for path in looked_for(Path(importer), qualified)]
        record = self._looked.setdefault(importer_key, {})
        for path in self._looked_paths[where]:
            if path != importer_key:
                record[path] = self.digest(path)

    def digest(self, path: str) -> str:
        """sha256 of the file's bytes, or ``ABSENT``; read again only when its stamp changed."""
        stamp = file_stamp(Path(path))
        known = self._digests.get(path)
        if known is None or known[0] != stamp:
            # Only a regular file is a module (a FIFO there is never waited on).
            known = self._digests[path] = (stamp, file_digest(path) or ABSENT)
        return known[1]

    def forget(self, key: str) -> None:
        """A module about to be parsed again records afresh what it consults."""
        self._consulted.pop(key, None)
        self._looked.pop(key, None)
        self._looked_names.pop(key, None)

    def _closure(self, path: str, records: tuple[Record, ...]) -> dict[str, str]:
        start = self.key(path)
        found: dict[str, str] = {}
        pending = [start]
        while pending:
            module = pending.pop()
            # Where two records name one file, the last wins: the digest of the bytes parsed.
            merged = {name: digest for record in records for name, digest in record.get(module, {}).items()}
            for name, digest in merged.items():
                if name not in found and name != start:
                    found[name] = digest
                    if digest != ABSENT:
                        pending.append(name)
        return found
