"""Fingerprints survive unrelated edits and change when the finding's own line does."""

from __future__ import annotations

from checker.engine import check_source
from checker.rules import ALL_RULES

RULES = [rule() for rule in ALL_RULES]
SOURCE = """import torch

W = torch.ones(4)

@torch.compiler.allow_in_graph
def f(x):
    return x * W + W
"""


def fingerprints(source: str) -> list[str]:
    return [finding.fingerprint for finding in check_source(source.encode(), "m.py", RULES).findings]


def test_line_shifts_keep_fingerprints() -> None:
    before = fingerprints(SOURCE)
    after = fingerprints("# a new comment\n\n" + SOURCE.replace("W = torch", "# the weights\nW = torch"))
    assert len(before) == 2 and before == after


def test_two_reads_on_one_line_get_different_fingerprints() -> None:
    first, second = fingerprints(SOURCE)
    assert first != second


def test_editing_the_offending_line_changes_the_fingerprint() -> None:
    assert fingerprints(SOURCE.replace("x * W + W", "x * W + W * 2")) != fingerprints(SOURCE)


def test_the_path_is_part_of_the_fingerprint() -> None:
    other = [f.fingerprint for f in check_source(SOURCE.encode(), "n.py", RULES).findings]
    assert set(other).isdisjoint(fingerprints(SOURCE))
