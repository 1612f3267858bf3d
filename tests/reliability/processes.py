"""Running ``python -m checker`` in a child process with a time limit, so that a check
that hangs fails its test instead of blocking the suite, or in this process from another
working directory (:func:`in_process`)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from checker.command import cli

REPO = Path(__file__).resolve().parents[2]
#: Seconds a run may take: a cold start imports libcst; a hang takes forever.
TIME_LIMIT = 60


def aigcheck(
    cwd: Path, *argv: str, timeout: float = TIME_LIMIT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The finished run of ``aigcheck argv`` in ``cwd`` (without the cache), with ``env``
    added to the environment.

    Raises ``TimeoutExpired`` when it takes longer than ``timeout``, after stopping it and
    its worker processes (the run gets a process group of its own).
    """
    command = [sys.executable, "-m", "checker", "--no-cache", *argv]
    with subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
            process.communicate()
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def found(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    """(path, code) of each finding of a run with ``--output-format json``."""
    assert result.returncode in (0, 1), result.stderr
    return [(finding["path"], finding["code"]) for finding in json.loads(result.stdout)]


def in_process(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """``aigcheck argv`` run in this process from ``cwd``, exactly as given: exit status,
    stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(list(argv))
    finally:
        os.chdir(before)
    return status, out.getvalue(), err.getvalue()
