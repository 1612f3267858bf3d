"""Fingerprints survive unrelated edits and change when the finding's own line does."""

from __future__ import annotations

from pathlib import Path

from checker.api import check_source
from checker.rules import ALL_RULES

RULES = [rule() for rule in ALL_RULES]
SOURCE = """import torch

W = torch.ones(4)

@torch.compiler.allow_in_graph
def f(x):
    return x * W + W
"""


def fingerprints(source: str) -> list[str]:
    return [finding.fingerprint for finding in check_source(source.encode(), "m.py", rules=RULES).findings]


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
    other = [f.fingerprint for f in check_source(SOURCE.encode(), "n.py", rules=RULES).findings]
    assert set(other).isdisjoint(fingerprints(SOURCE))


def test_fingerprints_do_not_depend_on_where_the_run_starts(tmp_path, monkeypatch) -> None:
    from checker.api import check_file

    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (project / "pkg" / "m.py").write_text(SOURCE)
    absolute = [f.fingerprint for f in check_file(project / "pkg" / "m.py", rules=RULES).findings]
    monkeypatch.chdir(project / "pkg")
    relative = [f.fingerprint for f in check_file(Path("m.py"), rules=RULES, display_path="m.py").findings]
    assert absolute == relative and len(absolute) == 2


def test_unparsable_files_are_told_apart_by_their_error(tmp_path) -> None:
    first = check_source(b"# allow_in_graph\nx = (\n", "m.py", rules=RULES).findings
    second = check_source(b"# allow_in_graph\nx = 1 +\n", "m.py", rules=RULES).findings
    assert first[0].fingerprint != second[0].fingerprint
