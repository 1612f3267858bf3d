"""A configuration file that is not a regular file, is too large or nests too deeply is a
configuration error (exit status 2, with a remedy), never a hang, a memory blow-up or a
traceback (issue 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from processes import aigcheck
from projects import write

#: The largest configuration file read, as README.md states it ("is over 4 MiB").
MAX_CONFIG_BYTES = 4 * 1024 * 1024

#: ``x = [[[...]]]`` nested 5,000 deep: tomllib recurses once per level (and more).
DEEP = "[tool.aigcheck]\nx = " + "[" * 5000 + "]" * 5000 + "\n"
REMEDY = "name a pyproject.toml with a [tool.aigcheck] table with --config, or pass --isolated to use none"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write(tmp_path, {"ops.py": "x = 1\n"})


def refused(tree: Path, *argv: str) -> str:
    """The one error line of a run that the configuration stops."""
    result = aigcheck(tree, *argv, "ops.py")
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    return line


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_config_dev_zero(tree: Path) -> None:
    assert refused(tree, "--config", "/dev/zero") == (
        f"aigcheck: error: /dev/zero: not a regular file: a character device; {REMEDY}"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_config_fifo(tree: Path) -> None:
    os.mkfifo(tree / "pipe.toml")
    assert refused(tree, "--config", "pipe.toml") == f"aigcheck: error: pipe.toml: not a regular file: a FIFO; {REMEDY}"


def test_config_directory(tree: Path) -> None:
    (tree / "conf").mkdir()
    assert refused(tree, "--config", "conf") == f"aigcheck: error: conf: not a regular file: a directory; {REMEDY}"


@pytest.mark.parametrize("found", [pytest.param(False, id="named"), pytest.param(True, id="found-walking-up")])
def test_an_oversized_pyproject(tree: Path, found: bool) -> None:
    padding = "# padding\n" * (MAX_CONFIG_BYTES // 10 + 1)
    write(tree, {"pyproject.toml": f"[tool.aigcheck]\nselect = ['AIG301']\n{padding}"})
    argv = () if found else ("--config", "pyproject.toml")
    assert refused(tree, *argv) == (
        f"aigcheck: error: pyproject.toml: the file is larger than the 4 MiB a configuration may be; {REMEDY}"
    )


@pytest.mark.parametrize("found", [pytest.param(False, id="named"), pytest.param(True, id="found-walking-up")])
def test_a_deeply_nested_array(tree: Path, found: bool) -> None:
    write(tree, {"pyproject.toml": DEEP})
    argv = () if found else ("--config", "pyproject.toml")
    assert refused(tree, *argv) == (
        "aigcheck: error: pyproject.toml: invalid TOML: arrays or inline tables are nested too deeply to read; "
        "flatten them, or pass --isolated to ignore the file"
    )


def test_a_pyproject_under_the_limit_is_read(tree: Path) -> None:
    write(tree, {"pyproject.toml": "[tool.aigcheck]\nselect = ['AIG301']\n" + "# padding\n" * 100_000})
    assert aigcheck(tree, "ops.py").returncode == 0
