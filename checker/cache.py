"""A content-hash cache of per-file results (``.aigcheck_cache/``).

A file's report depends on its bytes, its shown path, the rules run on it, the
registrar aliases the pre-filter looked for and the checker itself, so the key
hashes all five; it can also depend on the project's
other modules that registrars were imported from, so each entry lists those files
with their hashes and is a miss as soon as one of them changed; the checker's part is a digest of the
sizes and modification times of its own source files, so any change to the checker
(not only a version bump) invalidates every entry. Entries are written to a
temporary file and renamed into place, so two runs racing on one cache never see a
half-written entry; an unreadable or corrupt entry is a miss. Runs that fix files or
report unused suppressions bypass the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import checker
from checker.engine import FileReport, Outcome
from checker.findings import Finding, Severity
from checker.links import Elsewhere, Links, Place, Registrar, Via

CACHE_DIR_NAME = ".aigcheck_cache"
_FORMAT = "1"


class Cache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.hits = 0
        self.misses = 0

    @classmethod
    def at(cls, root: Path) -> Cache:
        """The cache under ``root``, created on first write."""
        return cls(root / CACHE_DIR_NAME)

    def key(self, data: bytes, path: str, codes: Sequence[str], aliases: Sequence[str] = ()) -> str:
        """``aliases``: the project's registrar aliases the pre-filter looked for."""
        digest = hashlib.sha256()
        for part in (_FORMAT, checker_digest(), path, ",".join(sorted(codes)), ",".join(sorted(aliases))):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def get(self, key: str) -> Outcome | None:
        try:
            stored = json.loads(self._entry(key).read_text(encoding="utf-8"))
            outcome = _decode(stored)
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return outcome

    def put(self, key: str, outcome: Outcome) -> None:
        if outcome.report.internal_error is not None:
            return  # a crash is not a result worth keeping
        entry = self._entry(key)
        try:
            self._prepare(entry.parent)
            with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", dir=entry.parent, prefix=".tmp-", delete=False
            ) as stream:
                json.dump(_encode(outcome), stream)
            os.replace(stream.name, entry)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _entry(self, key: str) -> Path:
        return self.directory / _FORMAT / key[:2] / f"{key}.json"

    def _prepare(self, folder: Path) -> None:
        if not self.directory.exists():
            self.directory.mkdir(parents=True, exist_ok=True)
            # Never committed, never backed up (as ruff and pytest mark theirs).
            (self.directory / ".gitignore").write_text("# Created by aigcheck.\n*\n", encoding="utf-8")
            (self.directory / "CACHEDIR.TAG").write_text(
                "Signature: 8a477f597d28d172789f06886806bc55\n# aigcheck cache\n", encoding="utf-8"
            )
        folder.mkdir(parents=True, exist_ok=True)


@lru_cache(maxsize=1)
def checker_digest() -> str:
    """Identifies this checker's code: its version and every source file's size and mtime."""
    root = Path(checker.__file__).parent
    digest = hashlib.sha256(checker.__version__.encode())
    for source in sorted(root.rglob("*.py")):
        stat = source.stat()
        digest.update(f"{source.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _encode(outcome: Outcome) -> dict[str, object]:
    report, links = outcome.report, outcome.links
    return {
        "path": report.path,
        "parsed": report.parsed,
        "suppressed": report.suppressed,
        "findings": [finding.as_dict() for finding in report.findings],
        "dependencies": [list(dependency) for dependency in links.dependencies],
        "exports": list(links.exports),
        "handoffs": [[path, *_encode_elsewhere(elsewhere)] for path, elsewhere in links.handoffs],
        "registered": list(links.registered),
    }


def _encode_elsewhere(elsewhere: Elsewhere) -> list[object]:
    registrar, where = elsewhere.registrar, elsewhere.where
    return [
        elsewhere.name,
        [registrar.spelled, registrar.via.value, registrar.index, registrar.alias, registrar.module],
        [where.path, where.line],
    ]


def _decode_elsewhere(name: object, registrar: list[object], where: list[object]) -> Elsewhere:
    spelled, via, index, alias, module = registrar
    path, line = where
    return Elsewhere(
        str(name),
        Registrar(str(spelled), Via(via), int(index), str(alias), str(module)),  # type: ignore[call-overload]
        Place(str(path), int(line)),  # type: ignore[call-overload]
    )


def _decode(stored: dict[str, object]) -> Outcome:
    findings = []
    for item in stored["findings"]:  # type: ignore[union-attr]
        fields = dict(item)  # type: ignore[call-overload]
        fields["severity"] = Severity(fields["severity"])
        findings.append(Finding(**fields))
    dependencies = tuple((str(path), str(digest)) for path, digest in stored["dependencies"])  # type: ignore[union-attr]
    if changed(dict(dependencies)):
        raise ValueError("a file this result depends on has changed")
    report = FileReport(
        str(stored["path"]),
        tuple(findings),
        parsed=bool(stored["parsed"]),
        suppressed=int(stored["suppressed"]),
    )
    links = Links(
        exports=tuple(str(name) for name in stored["exports"]),  # type: ignore[attr-defined]
        dependencies=dependencies,
        handoffs=tuple(
            (str(path), _decode_elsewhere(name, registrar, where))
            for path, name, registrar, where in stored["handoffs"]  # type: ignore[attr-defined]
        ),
        registered=tuple(str(name) for name in stored["registered"]),  # type: ignore[attr-defined]
    )
    return Outcome(report, links)


def changed(consulted: dict[str, str]) -> bool:
    """Whether any consulted file's bytes differ from when it was consulted (path -> sha256)."""
    for name, digest in consulted.items():
        try:
            data = Path(name).read_bytes()
        except OSError:
            return True
        if hashlib.sha256(data).hexdigest() != digest:
            return True
    return False
