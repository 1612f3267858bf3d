"""Fingerprints that identify a finding across edits that do not touch it.

A fingerprint hashes what the finding is about, not where it is: the code, the
file, the text of the offending line (whitespace collapsed) and of the reported
expression, and the occurrence of that combination in the file. Line numbers and
messages (which cite line numbers) are left out, so inserting lines above a finding
keeps its fingerprint; editing the offending line itself makes a new one. Baselines
and SARIF ``partialFingerprints`` use them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from checker.findings import Finding


def fingerprinted(findings: Sequence[Finding], lines: Sequence[str]) -> list[Finding]:
    """The findings of one file, in order, each with its fingerprint set."""
    seen: Counter[tuple[str, str, str, str]] = Counter()
    result = []
    for finding in findings:
        line = _collapse(_line(lines, finding.line))
        key = (finding.code, finding.path.replace("\\", "/"), line, _collapse(_expression(lines, finding)))
        seen[key] += 1
        digest = hashlib.sha256("\x1f".join((*key, str(seen[key]))).encode("utf-8", "surrogatepass")).hexdigest()[:32]
        result.append(replace(finding, fingerprint=digest))
    return result


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _expression(lines: Sequence[str], finding: Finding) -> str:
    if finding.line != finding.end_line:
        return _line(lines, finding.line)[finding.column - 1 :]
    return _line(lines, finding.line)[finding.column - 1 : finding.end_column - 1]


def _collapse(text: str) -> str:
    return " ".join(text.split())
