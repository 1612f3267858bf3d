"""A standard output that is closed, full or whose reader goes away ends the run with one
line and a status that is neither 0 nor 1 (issue 19): each was a traceback and exit 1,
which reads as "findings". A reader that goes away (``aigcheck . | head -1``) is no error:
the run ends quietly with 141, as a shell reports a command ended by SIGPIPE. A closed or
full output is an error: one line, exit 2. A closed or full standard error changes
nothing: the findings still go to stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from processes import REPO, TIME_LIMIT
from projects import CAPTURING_OPS, write

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file descriptors")

#: Enough findings for more output than a pipe holds (64 KiB on Linux): about 200 KiB.
FILES = 400


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("tree"), {f"m{i:03}.py": CAPTURING_OPS for i in range(FILES)})


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "checker", "--no-cache", "--isolated", *argv]


def environment(unbuffered: bool = False) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    env.update(PYTHONPATH=str(REPO), NO_COLOR="1")
    if unbuffered:  # stdout is then a raw file, which may take part of a write
        env["PYTHONUNBUFFERED"] = "1"
    return env


def closing(descriptor: int, argv: list[str]) -> list[str]:
    """``argv`` run by a shell with ``descriptor`` closed, as ``aigcheck . >&-`` does."""
    return ["sh", "-c", f'exec "$@" {descriptor}>&-', "sh", *argv]


def run(
    tree: Path, *argv: str, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE, closed: int | None = None
) -> subprocess.CompletedProcess[str]:
    """A run whose stdout and stderr are those given, with the descriptor ``closed`` closed."""
    return subprocess.run(
        closing(closed, command(*argv)) if closed is not None else command(*argv),
        cwd=tree,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        timeout=TIME_LIMIT,
        text=True,
        check=False,
    )


def run_with_stdout(tree: Path, stdout: int | None, *argv: str, closed: bool = False) -> tuple[int, str]:
    """The exit status and stderr of a run whose stdout is ``stdout`` (or closed)."""
    result = run(tree, *argv, stdout=stdout, closed=1 if closed else None)
    return result.returncode, result.stderr


@pytest.mark.parametrize("output_format", ["text", "json"])
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_reader_that_goes_away_ends_the_run_quietly(tree: Path, output_format: str, unbuffered: bool) -> None:
    with subprocess.Popen(
        command("--output-format", output_format, "."),
        cwd=tree,
        env=environment(unbuffered),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()  # as head -1 does: one line, then the pipe is closed
        process.stdout.close()
        stderr = process.stderr.read()
        status = process.wait(TIME_LIMIT)
    assert (status, stderr) == (141, b"")


def test_a_closed_stdout_is_one_line_and_exit_2(tree: Path) -> None:
    status, stderr = run_with_stdout(tree, None, "m000.py", closed=True)
    assert status == 2
    assert stderr.count("\n") == 1
    assert stderr.startswith("aigcheck: error: cannot write to standard output: ")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [("m000.py",), (".",), ("--output-format", "sarif", "m000.py"), ("--list-rules",)])
def test_a_full_stdout_is_one_line_and_exit_2(tree: Path, argv: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        status, stderr = run_with_stdout(tree, full.fileno(), *argv)
    assert status == 2
    assert stderr.count("\n") == 1
    assert stderr.startswith("aigcheck: error: cannot write to standard output: No space left on device; ")


#: With a machine format, the statistics go to stderr.
ON_STDERR = ("--output-format", "json", "--statistics", "m000.py")


def test_a_closed_stderr_changes_nothing(tree: Path) -> None:
    result = run(tree, *ON_STDERR, closed=2)
    assert result.returncode == 1
    assert '"code": "AIG301"' in result.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_stderr_changes_nothing(tree: Path) -> None:
    with open("/dev/full", "w") as full:
        result = run(tree, *ON_STDERR, stderr=full)
    assert result.returncode == 1
    assert '"code": "AIG301"' in result.stdout
