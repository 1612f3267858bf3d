"""Ctrl-C ends a run with one line, ``aigcheck: interrupted``, exit status 130, and no
process of the run left behind (issue 19): it printed a 29-line traceback, and a worker
could go on checking after the run had gone. A terminal sends SIGINT to the whole process
group; ``kill -INT`` to the main process only: both are tried, on a tree large enough
that its workers are busy when the signal comes. SIGTERM (``timeout``, a CI runner
cancelling a job) ends it the same way, with ``aigcheck: terminated`` and 143: before,
the main process died at once and its workers went on with their files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import REPO, TIME_LIMIT
from projects import write

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the process group")

#: Forty registered defs capturing a module-level tensor: each file takes a worker a while.
SLOW = "import torch\n\nW = torch.ones(3)\n" + "".join(
    f"\n@torch.compiler.allow_in_graph\ndef g{i}(x, y=[1]):\n    return x * W + {i}\n" for i in range(40)
)
FILES = 400
#: The command line, and the same with its workers forked from the main process instead
#: of from a forker (the fallback, and what other platforms do).
WITH_FORKER = [sys.executable, "-m", "checker"]
WITHOUT_FORKER = [
    sys.executable,
    "-c",
    "import runpy, checker.passes.forker as forker; forker.Forker.supported = staticmethod(lambda: False); "
    "runpy.run_module('checker', run_name='__main__')",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("slow"), {f"m{i:03}.py": SLOW for i in range(FILES)})


def alive_in_group(group: int) -> list[int]:
    """The processes of ``group`` that have not ended (zombies are over: only their exit
    status is left for a parent to collect)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended meanwhile
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state not in ("Z", "X"):
            alive.append(int(entry))
    return alive


def wait_for(condition: object, what: str) -> None:
    """Poll ``condition()`` until it holds (a hang fails the test at TIME_LIMIT)."""
    deadline = time.monotonic() + TIME_LIMIT
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


#: Each signal, and the line and exit status it ends the run with.
ENDINGS = {signal.SIGINT: ("aigcheck: interrupted\n", 130), signal.SIGTERM: ("aigcheck: terminated\n", 143)}


@pytest.mark.parametrize("to_group", [True, False], ids=["process-group", "main-process"])
@pytest.mark.parametrize("command", [WITH_FORKER, WITHOUT_FORKER], ids=["forker", "no-forker"])
@pytest.mark.parametrize("number", list(ENDINGS), ids=lambda number: signal.Signals(number).name)
def test_a_signal_prints_one_line_and_leaves_no_process(
    tree: Path, to_group: bool, command: list[str], number: signal.Signals
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    with subprocess.Popen(
        [*command, "--no-cache", "--isolated", "--jobs", "1", "."],
        cwd=tree,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        text=True,
    ) as process:
        group = process.pid
        try:
            # The main process, and its worker (and the forker) busy with the files.
            processes = 3 if command is WITH_FORKER else 2
            wait_for(lambda: len(alive_in_group(group)) >= processes, "the worker to start")
            (os.killpg if to_group else os.kill)(group, number)
            stdout, stderr = process.communicate(timeout=TIME_LIMIT)
        finally:
            if alive_in_group(group):
                os.killpg(group, signal.SIGKILL)
    line, status = ENDINGS[number]
    assert (process.returncode, stderr, stdout) == (status, line, "")
    wait_for(lambda: not alive_in_group(group), "every process of the run to end")


@pytest.mark.parametrize("number", list(ENDINGS), ids=lambda number: signal.Signals(number).name)
def test_a_child_forked_before_it_set_its_handlers_ends_quietly(number: signal.Signals) -> None:
    """The forker and the workers set their own handlers first thing, but a signal can come
    before that (a run that ends at once stops its forker as it starts): the run's handler
    they inherited ends them as the signal's default does, with no traceback."""
    from checker.command.interrupts import interruptible

    read, written = os.pipe()
    with interruptible():
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            os.close(read)
            os.dup2(written, 2)
            os.write(written, b"\0")  # started (a signal before CPython's after-fork step is lost)
            time.sleep(TIME_LIMIT)
            os._exit(0)
        os.close(written)
        assert os.read(read, 1) == b"\0"
        os.kill(child, number)
        _, status = os.waitpid(child, 0)
    with os.fdopen(read, "rb") as stream:
        said = stream.read()
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == number
    assert said == b""
