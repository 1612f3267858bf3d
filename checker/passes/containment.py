"""Keeping one file from killing or stalling the run.

libcst's parser is native code: on a shape the gate does not know it can crash the
process (SIGSEGV) or run for minutes, and no Python ``except`` sees either. So a run
from the command line parses only in worker processes, each under a time and a memory
budget: ``SIGALRM`` (its default action ends the process) stops a file that overruns its
time, ``RLIMIT_DATA`` a file that would take the machine's memory. When a worker dies,
the file it was working on is checked again, in a process of its own (:class:`Alone`);
a file that kills that one too is the culprit and gets AIG900 with the reason its
process died. So a crash costs the run one file.
"""

from __future__ import annotations

import resource
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from checker.passes.pool import Worker, fork_here
from checker.reading.source import Unanalysable

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass(frozen=True)
class Limits:
    """What one file may cost a worker process: wall-clock seconds, and the bytes of data
    (heap and private mappings, ``RLIMIT_DATA``) the whole process may hold meanwhile."""

    seconds: int = 60
    memory: int = 4 * 1024**3

    def apply(self) -> None:
        """Cap this process's data at ``memory`` (never above a limit already set)."""
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        cap = min(limit for limit in (self.memory, soft, hard) if limit != resource.RLIM_INFINITY)
        resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))

    @contextmanager
    def timed(self) -> Iterator[None]:
        """End this process (``SIGALRM``'s default action) if the block outlasts ``seconds``."""
        previous = signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(self.seconds)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)

    def over_memory(self) -> Unanalysable:
        return Unanalysable(
            f"analysing the file needed more than the {_size(self.memory)} memory budget; it was not checked"
        )

    def why_died(self, exitcode: int | None) -> Unanalysable:
        """The reason to give for a file whose process ended with ``exitcode``, twice."""
        if exitcode == -signal.SIGALRM:
            return Unanalysable(f"analysing the file took longer than the {self.seconds} s budget; it was not checked")
        if exitcode == -signal.SIGKILL:
            return Unanalysable(
                "the process analysing the file was killed (SIGKILL: most likely the machine ran out of memory); "
                "it was not checked"
            )
        if exitcode is not None and exitcode < 0:
            name = signal.Signals(-exitcode).name
            return Unanalysable(
                f"the parser crashed on this file ({name}, twice); it was not checked. "
                "Please report the file's shape to aigcheck"
            )
        return Unanalysable(f"the process analysing the file exited with status {exitcode}; it was not checked")


#: The budgets of a run that sets none.
DEFAULT_LIMITS = Limits()


def _size(memory: int) -> str:
    return f"{memory / 1024**3:g} GiB" if memory >= 1024**3 else f"{memory / 1024**2:g} MiB"


class Alone(Generic[Item, Result]):
    """One worker process that checks one file at a time, and says why it died when a
    file kills it (a new process then takes the next file). Started on first use;
    ``start`` runs in it once, ``work`` for each item."""

    def __init__(self, start: Callable[[], None], work: Callable[[Item], Result], limits: Limits) -> None:
        self._start = start
        self._work = work
        self.limits = limits
        self._worker: Worker | None = None

    def run(self, item: Item) -> Result | Unanalysable:
        if self._worker is None:
            self._worker = fork_here(self._start, self._work)
        try:
            self._worker.connection.send(item)
            answered, value = self._worker.connection.recv()
        except (EOFError, OSError):
            return self.limits.why_died(self._reap())
        if not answered:
            raise value
        return value

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

    def _reap(self) -> int | None:
        worker, self._worker = self._worker, None
        assert worker is not None and worker.process is not None
        worker.connection.close()
        worker.process.join()
        return worker.process.exitcode
