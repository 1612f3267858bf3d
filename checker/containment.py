"""Keeping one file from killing or stalling the run.

libcst's parser is native code: on a shape the gate does not know it can crash the
process (SIGSEGV) or run for minutes, and no Python ``except`` sees either. So a run
from the command line parses only in worker processes, each under a time and a memory
budget: ``SIGALRM`` (its default action ends the process) stops a file that overruns its
time, ``RLIMIT_DATA`` a file that would take the machine's memory. When a worker dies,
the files it may have been working on are checked again one at a time, in a process of
their own (:class:`Alone`); a file that kills that one too is the culprit and gets
AIG900 with the reason its process died. So a crash costs the run one file.
"""

from __future__ import annotations

import resource
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar

from checker.source import Unanalysable

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
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None

    def run(self, item: Item) -> Result | Unanalysable:
        if self._connection is None:
            self._spawn()
        assert self._connection is not None
        try:
            self._connection.send(item)
            return self._connection.recv()
        except (EOFError, OSError):
            return self.limits.why_died(self._reap())

    def close(self) -> None:
        if self._connection is not None:
            try:
                self._connection.send(None)
            except OSError:
                pass
            self._reap()

    def _spawn(self) -> None:
        context = get_context()
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs, self._start, self._work), daemon=True)
        process.start()
        theirs.close()
        self._process, self._connection = process, ours

    def _reap(self) -> int | None:
        process, connection = self._process, self._connection
        self._process = self._connection = None
        assert process is not None and connection is not None
        connection.close()
        process.join()
        return process.exitcode


def _serve(connection: Connection, start: Callable[[], None], work: Callable[[object], object]) -> None:
    start()
    while (item := connection.recv()) is not None:
        connection.send(work(item))
