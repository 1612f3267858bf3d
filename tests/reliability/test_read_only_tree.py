"""A tree on a read-only file system (a CI cache restored read-only, a mounted image, a
container's read-only layer) is checked as a writable one is (issue 19): the same
findings, nothing written and nothing said about the cache that cannot be made there;
``--fix`` and ``--write-baseline`` say in one line that they cannot write, exit 2, and
leave every file as it was.

The tree is bind-mounted read-only; the tests are skipped where mounting is not
permitted. (Tests run as root, so ``chmod`` alone would not stop a write.)"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import REPO, TIME_LIMIT, aigcheck
from projects import write

#: AIG407 (fixable) on line 4; AIG301 on line 9.
SOURCE = (
    "import torch\n\n\n@torch._dynamo.allow_in_graph\ndef f(x):\n    return x\n\n"
    "W = torch.ones(2)\n@torch.compiler.allow_in_graph\ndef g(x):\n    return x * W\n"
)


@contextlib.contextmanager
def read_only(folder: Path, where: Path) -> Iterator[Path]:
    """``folder`` seen read-only at ``where``."""
    if shutil.which("mount") is None or sys.platform != "linux":
        pytest.skip("no mount(8) here")
    where.mkdir()
    bound = subprocess.run(["mount", "--bind", str(folder), str(where)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount: {bound.stderr.decode(errors='replace').strip()}")
    try:
        again = subprocess.run(["mount", "-o", "remount,ro,bind", str(where)], capture_output=True)
        if again.returncode != 0:
            pytest.skip(f"cannot remount read-only: {again.stderr.decode(errors='replace').strip()}")
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    source = write(tmp_path / "source", {"pyproject.toml": "[tool.aigcheck]\n", "pkg/m.py": SOURCE})
    with read_only(source, tmp_path / "mounted") as mounted:
        yield mounted


def listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def run_with_cache(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``aigcheck argv`` with the default cache (``processes.aigcheck`` turns it off)."""
    return subprocess.run(
        [sys.executable, "-m", "checker", *argv],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        check=False,
    )


def test_checking_finds_the_same_and_writes_nothing(tree: Path) -> None:
    before = listing(tree)
    result = run_with_cache(tree, "--output-format", "json", ".")
    assert (result.returncode, result.stderr) == (1, "")
    assert sorted((item["path"], item["line"], item["code"]) for item in json.loads(result.stdout)) == [
        ("pkg/m.py", 4, "AIG407"),
        ("pkg/m.py", 11, "AIG301"),
    ]
    assert listing(tree) == before


def test_fix_says_it_cannot_write_and_changes_nothing(tree: Path) -> None:
    result = aigcheck(tree, "--fix", "pkg/m.py")
    assert result.returncode == 2
    assert (tree / "pkg/m.py").read_text() == SOURCE
    assert [line for line in result.stderr.splitlines() if "error" in line] == [
        "aigcheck: error: cannot write the fixes of pkg/m.py: Read-only file system; pkg/m.py is unchanged"
    ]


def test_write_baseline_says_it_cannot_write(tree: Path) -> None:
    result = aigcheck(tree, "--write-baseline", "baseline.json", ".")
    assert result.returncode == 2
    assert not (tree / "baseline.json").exists()
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "Read-only file system" in result.stderr
