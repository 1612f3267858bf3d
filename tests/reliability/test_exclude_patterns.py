"""Exclude and per-file-ignores patterns with many ``**/`` match in time linear in the path
(issue 12): the configuration's matcher tried every way of keeping or dropping each
``**/``, 2**30 of them for 30, and hung."""

from __future__ import annotations

from pathlib import Path

import pytest
from processes import aigcheck, found
from projects import CAPTURING_OPS, write

#: Thirty ``**/`` before the name: as many directories as you like, none included.
PATTERN = "**/" * 30 + "x"
DEEP = "/".join(["d"] * 40)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write(
        tmp_path, {f"{DEEP}/x/ops.py": CAPTURING_OPS, f"{DEEP}/y/ops.py": CAPTURING_OPS, "x/top.py": CAPTURING_OPS}
    )


def test_a_config_exclude_with_thirty_double_stars(tree: Path) -> None:
    write(tree, {"pyproject.toml": f"[tool.aigcheck]\nexclude = ['{PATTERN}']\n"})
    result = aigcheck(tree, "--output-format", "json", ".", timeout=60)
    # The deep x and the top-level one (no directory before it) are excluded, y is not.
    assert found(result) == [(f"{DEEP}/y/ops.py", "AIG301")]


def test_a_per_file_ignore_with_thirty_double_stars(tree: Path) -> None:
    write(tree, {"pyproject.toml": f'[tool.aigcheck.per-file-ignores]\n"{PATTERN}/*" = ["AIG301"]\n'})
    result = aigcheck(tree, "--output-format", "json", ".", timeout=60)
    assert found(result) == [(f"{DEEP}/y/ops.py", "AIG301")]


def test_a_command_line_exclude_with_thirty_double_stars(tree: Path) -> None:
    # On the command line a pattern is an fnmatch glob of names and paths: "**/" needs a directory.
    result = aigcheck(tree, "--isolated", "--output-format", "json", "--exclude", PATTERN, ".", timeout=60)
    assert found(result) == [(f"{DEEP}/y/ops.py", "AIG301"), ("x/top.py", "AIG301")]
