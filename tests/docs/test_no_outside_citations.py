"""No tracked file cites a document outside the repository.

A clone has neither the design document nor the evidence folder beside the checkout that
the project was started from, so a citation of either is a dead end for its reader: every
fact a file relies on is cited from the project's own ``evidence/`` (or its README).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Spelled in pieces, so that this file does not cite what it forbids.
_DESIGN = "DESIGN" + r"\.md"
_SHARED = "shared"
#: The folder beside the checkout (but not a name that only starts like it, as a cache
#: folder ``-cache`` does), a path into it, or the design document by name.
OUTSIDE = re.compile(
    rf"\.\./{_SHARED}(?![\w-])|(?<![\w./-]){_SHARED}/(?:evidence|hooks|CONVENTIONS|{_DESIGN})|{_DESIGN}"
)
#: The same citations in words: the folder's name followed by FINDINGS, evidence, harness or file.
OUTSIDE_IN_WORDS = re.compile(rf"\b{_SHARED} (?:FINDINGS|evidence|harness|file\b)", re.IGNORECASE)


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout: {listed.stderr.strip()}")
    return [ROOT / name for name in listed.stdout.split("\0") if name and (ROOT / name).is_file()]


def outside_citations(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []  # not text
    return [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}"
        for number, line in enumerate(text.splitlines(), 1)
        if OUTSIDE.search(line) or OUTSIDE_IN_WORDS.search(line)
    ]


def test_the_patterns_find_what_they_are_for() -> None:
    for cited in (
        "see ../" + _SHARED + "/evidence/dynamo/FINDINGS.md",
        "(`" + _SHARED + "/evidence/dynamo/FINDINGS.md` section 1b)",
        "DESIGN" + ".md section 2",
        "as in " + _SHARED + " FINDINGS 1c",
    ):
        assert OUTSIDE.search(cited) or OUTSIDE_IN_WORDS.search(cited), cited
    for innocent in ("--cache-dir ../shared-cache", "memoisation shared by every call", "a shared machine"):
        assert not (OUTSIDE.search(innocent) or OUTSIDE_IN_WORDS.search(innocent)), innocent


def test_no_tracked_file_cites_a_document_outside_the_repository() -> None:
    found = [hit for path in tracked_files() for hit in outside_citations(path)]
    assert not found, "cite the project's evidence/dynamo/ (or the README) instead:\n" + "\n".join(found)
