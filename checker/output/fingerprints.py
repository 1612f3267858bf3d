"""Fingerprints that identify a finding across edits that do not touch it.

A fingerprint hashes what the finding is about, not where it is: the code, the
file's path relative to its project root (the nearest folder above it holding a
``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``, else the folder of its
top-level package, so the directory a run starts from does not matter), the text of
the offending line (whitespace collapsed) and of the reported expression, and the
occurrence of that combination in the file.
Line numbers and messages that cite them are left out, so inserting lines above a
finding keeps its fingerprint; editing the offending line itself makes a new one.
Files that cannot be parsed (AIG900) have no line text, so their message counts.
Baselines and SARIF ``partialFingerprints`` use them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from checker.reading.packages import top_package
from checker.spec.findings import Finding


def fingerprinted(findings: Sequence[Finding], lines: Sequence[str]) -> list[Finding]:
    """The findings of one file, in order, each with its fingerprint set."""
    seen: Counter[tuple[str, str, str, str]] = Counter()
    result = []
    for finding in findings:
        line = _collapse(_line(lines, finding.line))
        expression = _collapse(_expression(lines, finding)) if lines else finding.message
        key = (finding.code, project_path(finding.path), line, expression)
        seen[key] += 1
        digest = hashlib.sha256("\x1f".join((*key, str(seen[key]))).encode("utf-8", "surrogatepass")).hexdigest()[:32]
        result.append(replace(finding, fingerprint=digest))
    return result


def project_path(path: str) -> str:
    """``path`` relative to its project root, POSIX-style; as given when it is not on disk."""
    candidate = Path(path)
    try:
        if not candidate.is_file():
            return path.replace("\\", "/")
        absolute = candidate.resolve()
    except OSError:
        return path.replace("\\", "/")
    root = _project_root(absolute.parent)
    if root is None:  # no marker above it: the folder its top-level package is in
        package = top_package(absolute)
        root = package.parent if package is not None else None
    return absolute.relative_to(root).as_posix() if root is not None else path.replace("\\", "/")


_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


@lru_cache(maxsize=1024)
def _project_root(directory: Path) -> Path | None:
    for folder in (directory, *directory.parents):
        if any((folder / marker).exists() for marker in _ROOT_MARKERS):
            return folder
    return None


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _expression(lines: Sequence[str], finding: Finding) -> str:
    if finding.line != finding.end_line:
        return _line(lines, finding.line)[finding.column - 1 :]
    return _line(lines, finding.line)[finding.column - 1 : finding.end_column - 1]


def _collapse(text: str) -> str:
    return " ".join(text.split())
