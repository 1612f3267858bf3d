"""Workers forked from a forker: they start with what it prepared, a pool falls back to
forking itself when the forker is gone, and closing leaves no process behind."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import time

import pytest

from checker.command import cli
from checker.passes.forker import Forker
from checker.passes.pool import Pool

pytestmark = pytest.mark.skipif(not Forker.supported(), reason="forking from a forker needs Linux")

#: Set by ``prepare`` in the forker's process (and so in the workers it forks).
PREPARED_IN: int | None = None


def prepare() -> None:
    global PREPARED_IN
    PREPARED_IN = os.getpid()


def nothing() -> None:
    pass


def where(_: object) -> tuple[int, int, int | None]:
    """This worker's process, its parent, and the process that prepared it."""
    return os.getpid(), os.getppid(), PREPARED_IN


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _gone_or_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1].startswith("Z")
    except FileNotFoundError:
        return True


def _wait_until(condition, seconds: float = 10.0) -> bool:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_workers_fork_from_the_forker_with_what_it_prepared() -> None:
    forker = Forker(prepare)
    pool: Pool[int, tuple[int, int, int | None]] = Pool(2, nothing, where, forker.fork)
    try:
        answers = {pool.submit(n).result(timeout=30) for n in range(8)}
    finally:
        pool.shutdown()
        forker.close()
    forker_pids = {parent for _, parent, _ in answers}
    assert len(forker_pids) == 1 and os.getpid() not in forker_pids
    assert {prepared for _, _, prepared in answers} == forker_pids  # prepared in the forker, not here
    assert PREPARED_IN is None
    assert all(_wait_until(lambda pid=pid: _gone(pid)) for pid, _, _ in answers)
    assert _gone(next(iter(forker_pids)))


def test_a_pool_whose_forker_is_gone_forks_its_workers_itself() -> None:
    forker = Forker(prepare)
    forker.start()
    try:
        assert forker.pid is not None
        os.kill(forker.pid, signal.SIGKILL)
        assert _wait_until(lambda: _gone_or_zombie(forker.pid))
        pool: Pool[int, tuple[int, int, int | None]] = Pool(1, nothing, where, forker.fork)
        try:
            _, parent, prepared = pool.submit(0).result(timeout=30)
        finally:
            pool.shutdown()
    finally:
        forker.close()
    assert (parent, prepared) == (os.getpid(), None)


def test_a_forker_that_forked_nothing_is_stopped_at_once() -> None:
    forker = Forker(lambda: time.sleep(60))  # still preparing when the run ends
    forker.start()
    forker.close()
    assert forker.pid is not None and _gone(forker.pid)


def test_a_run_whose_forker_cannot_start_forks_its_workers_itself(tmp_path, monkeypatch) -> None:
    def cannot(self: Forker) -> None:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(Forker, "_started", cannot)
    for n in range(4):
        (tmp_path / f"m{n}.py").write_text(
            "import torch\nW = torch.ones(2)\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n"
        )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["--isolated", "--no-cache", "--output-format", "json", "-j", "2", str(tmp_path)])
    assert status == 1
    assert sorted(item["code"] for item in json.loads(out.getvalue())) == ["AIG301"] * 4
