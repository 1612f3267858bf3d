"""An urgent job's outcome (its file hands registrations to the files that define what it
registers) is told as soon as a worker has it, not when the files before it are done: the
hand-off it starts then runs beside the rest of the first pass instead of after it."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path

from checker.passes.engine import FileReport, LinkedReport
from checker.passes.schedule import Job, Options, check_outcomes

SOURCE = b"import torch\ntorch.compiler.allow_in_graph(f)\n"


class _HeldWorkers:
    """Workers whose outcomes the test hands out, one file at a time."""

    started = True

    def __init__(self) -> None:
        self.futures: dict[str, Future[LinkedReport]] = {}

    def start(self, wanted: int | None = None) -> None:
        pass

    def submit(self, work: tuple[bytes, Job, Options], urgent: bool = False) -> Future[LinkedReport]:
        future: Future[LinkedReport] = Future()
        self.futures[work[1].display] = future
        return future

    def close(self) -> None:
        pass


def test_an_urgent_outcome_is_told_before_the_files_ahead_of_it_are_done(tmp_path: Path) -> None:
    jobs = []
    for name, urgent in (("a_slow.py", False), ("z_registers.py", True)):
        (tmp_path / name).write_bytes(SOURCE)
        jobs.append(Job(str(tmp_path / name), name, ("AIG301",), hands_off=urgent))
    workers = _HeldWorkers()
    told: list[tuple[str, str]] = []
    told_event = threading.Event()

    def urgent_done(job: Job, outcome: LinkedReport) -> None:
        told.append((job.display, outcome.report.path))
        told_event.set()

    yielded: list[str] = []
    outcomes = check_outcomes(jobs, Options(contained=True), workers=workers, urgent_done=urgent_done)  # type: ignore[arg-type]
    consumer = threading.Thread(target=lambda: yielded.extend(outcome.report.path for outcome in outcomes))
    consumer.start()
    try:
        while len(workers.futures) < 2:  # both files sent
            threading.Event().wait(0.01)
        workers.futures["z_registers.py"].set_result(LinkedReport(FileReport("z_registers.py")))
        assert told_event.wait(10)
        assert told == [("z_registers.py", "z_registers.py")]
        assert yielded == []  # the slow file ahead of it is not done: nothing is yielded yet
    finally:
        workers.futures["a_slow.py"].set_result(LinkedReport(FileReport("a_slow.py")))
        consumer.join(10)
    assert yielded == ["a_slow.py", "z_registers.py"]  # in order, as ever
    assert told == [("z_registers.py", "z_registers.py")]  # told once


def test_a_job_that_is_not_urgent_is_not_told(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(SOURCE)
    workers = _HeldWorkers()
    told: list[Job] = []
    jobs = [Job(str(tmp_path / "a.py"), "a.py", ("AIG301",))]
    outcomes = check_outcomes(jobs, Options(contained=True), workers=workers, urgent_done=lambda job, _: told.append(job))  # type: ignore[arg-type]
    consumer = threading.Thread(target=lambda: list(outcomes))
    consumer.start()
    while not workers.futures:
        threading.Event().wait(0.01)
    workers.futures["a.py"].set_result(LinkedReport(FileReport("a.py")))
    consumer.join(10)
    assert told == []
