"""``--jobs`` is capped at the usable cores and the files to check (issue 12):
``--jobs 100000`` started that many processes and took minutes."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from processes import aigcheck, found
from projects import CAPTURING_OPS, write

from checker.command import cli

NAMES = [f"m{index}.py" for index in range(6)]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write(tmp_path, dict.fromkeys(NAMES, CAPTURING_OPS))


@pytest.mark.parametrize("paths", [pytest.param(["."], id="walked"), pytest.param(NAMES, id="named")])
def test_a_huge_jobs_count_finishes_with_the_same_findings(tree: Path, paths: list[str]) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "json", "--jobs", "100000", *paths, timeout=60)
    assert found(result) == [(name, "AIG301") for name in NAMES]
    assert result.stderr == ""


def test_help_says_jobs_are_capped() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["--help"]) == 0
    assert "capped at the available cores and the number of files to check" in " ".join(out.getvalue().split())
