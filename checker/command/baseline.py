"""Baselines: the findings a project has accepted for now, hidden from later runs.

A legacy tree adopts aigcheck by writing its current findings to a baseline file
(``--write-baseline FILE``) and checking against it from then on (``--baseline FILE``):
only findings that are not in the baseline are reported. Findings are matched by
fingerprint (:mod:`checker.output.fingerprints`), which survives lines inserted or removed
elsewhere in the file, so the baseline does not go stale at every edit.

The file is JSON::

    {"version": 1, "tool": "aigcheck", "findings": [
        {"fingerprint": "...", "code": "AIG301", "path": "pkg/a.py", "line": 4, "message": "..."}]}

Only ``fingerprint`` is read back; the other keys are there for the person reviewing
the file. Paths, in the file and in fingerprints, are relative to the project root
(:func:`checker.output.fingerprints.project_path`), so a baseline written in one checkout
hides the same findings in a copy, checked from any directory with any form of path.
Baselines written before paths were project-relative are read the same way: their
``path`` keys were only ever for the reader.
"""

from __future__ import annotations

import json
import os
import stat
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from checker.output.atomic import replace_file
from checker.output.fingerprints import project_path
from checker.output.reporters.base import ordered
from checker.spec.findings import Finding

VERSION = 1
#: A baseline larger than this is refused: one of a large tree's findings is a few MB.
MAX_BASELINE_BYTES = 64 * 1024 * 1024
TOOL = "aigcheck"


class BaselineError(Exception):
    """A baseline file that cannot be used: unreadable, not JSON, or not a baseline of this version."""


@dataclass(frozen=True)
class Baseline:
    """The accepted findings' fingerprints, as a multiset."""

    fingerprints: Counter[str] = field(default_factory=Counter)

    def __len__(self) -> int:
        return self.fingerprints.total()

    def split(self, findings: Iterable[Finding]) -> tuple[list[Finding], list[Finding]]:
        """``(new, known)``: the findings not in the baseline and those it hides, in input order.

        Each baseline entry hides at most one finding: two entries with the same
        fingerprint hide two findings, and a third one is new.
        """
        left = Counter(self.fingerprints)
        new: list[Finding] = []
        known: list[Finding] = []
        for finding in findings:
            if finding.fingerprint and left[finding.fingerprint] > 0:
                left[finding.fingerprint] -= 1
                known.append(finding)
            else:
                new.append(finding)
        return new, known


def write_baseline(path: Path, findings: Sequence[Finding]) -> None:
    """Write ``findings`` as a baseline file, in the stable report order.

    Raises ``ValueError`` for a finding without a fingerprint (it could never be
    matched) and ``OSError`` when the file cannot be written (it is then unchanged).
    """
    entries = []
    for finding in ordered(findings):
        if not finding.fingerprint:
            raise ValueError(f"{finding.path}:{finding.line}: {finding.code} has no fingerprint to put in a baseline")
        entries.append(
            {
                "fingerprint": finding.fingerprint,
                "code": finding.code,
                "path": project_path(finding.path),
                "line": finding.line,
                "message": finding.message,
            }
        )
    document = {"version": VERSION, "tool": TOOL, "findings": entries}
    # ASCII-only JSON: any path, even one that is not valid Unicode, round-trips.
    # Written whole or not at all: a full disk leaves the old baseline as it was.
    replace_file(path, (json.dumps(document, indent=2) + "\n").encode("utf-8"))


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file; ``BaselineError`` says what is wrong with one that cannot be used."""
    try:
        text = _read_limited(path).decode("utf-8")
    except FileNotFoundError:
        raise BaselineError(f"baseline {path}: no such file (create it with --write-baseline)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BaselineError(f"baseline {path}: cannot read it: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaselineError(f"baseline {path}: not valid JSON: {error}") from None
    if not isinstance(document, dict) or document.get("tool") != TOOL or "version" not in document:
        raise BaselineError(
            f'baseline {path}: not an aigcheck baseline (expected {{"version": {VERSION}, "tool": "{TOOL}", ...}})'
        )
    if document["version"] != VERSION or isinstance(document["version"], bool):
        raise BaselineError(
            f"baseline {path}: version {document['version']!r} is not supported (this aigcheck reads version {VERSION});"
            " write it again with --write-baseline"
        )
    entries = document.get("findings")
    if not isinstance(entries, list):
        raise BaselineError(f"baseline {path}: 'findings' must be a list")
    fingerprints: Counter[str] = Counter()
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str) or not entry["fingerprint"]:
            raise BaselineError(f"baseline {path}: finding {number} has no 'fingerprint' string")
        fingerprints[entry["fingerprint"]] += 1
    return Baseline(fingerprints)


def _read_limited(path: Path) -> bytes:
    """The bytes of a regular file of at most ``MAX_BASELINE_BYTES``. Opened without
    blocking and checked before reading, so a FIFO or a device is refused at once."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise BaselineError(
                f"baseline {path}: cannot read it: not a regular file; name the JSON file --write-baseline wrote"
            )
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            data = stream.read(MAX_BASELINE_BYTES + 1) if status.st_size <= MAX_BASELINE_BYTES else b""
    finally:
        os.close(descriptor)
    if len(data) > MAX_BASELINE_BYTES or status.st_size > MAX_BASELINE_BYTES:
        raise BaselineError(
            f"baseline {path}: larger than {MAX_BASELINE_BYTES // (1024 * 1024)} MB, so not a baseline aigcheck wrote;"
            " write it again with --write-baseline"
        )
    return data
