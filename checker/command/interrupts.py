"""Ctrl-C (and SIGTERM): one line, exit status 130 (143), and no process of the run left behind.

A terminal sends SIGINT to the whole process group, and the workers (and the forker) end
at once and quietly: their SIGINT is the default action. ``kill -INT`` reaches the main
process only. Either way the main process then stops every worker it has
(:func:`checker.passes.pool.stop_workers`: nothing it waits for goes on, and no new one starts)
and unwinds with ``KeyboardInterrupt``, so that a write in progress removes its temporary
file; the command line then says ``aigcheck: interrupted``. A second Ctrl-C while that
happens ends the process at once. SIGTERM (``timeout``, a CI runner cancelling a job) is
handled alike, as :class:`Terminated`, and ends with ``aigcheck: terminated`` and 143.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from checker.command.streams import write
from checker.passes.pool import allow_workers, stop_workers

#: 128 + SIGINT: what a shell shows for a command ended by Ctrl-C.
EXIT_INTERRUPTED = 130
#: The line an interrupted run ends with.
INTERRUPTED = "aigcheck: interrupted\n"
#: 128 + SIGTERM.
EXIT_TERMINATED = 143
TERMINATED = "aigcheck: terminated\n"


class Terminated(KeyboardInterrupt):
    """SIGTERM came: the run unwinds as it does for Ctrl-C, and ends with its own status."""


def ending(interrupt: KeyboardInterrupt) -> tuple[str, int]:
    """The line and exit status that end a run stopped by ``interrupt``."""
    if isinstance(interrupt, Terminated):
        return TERMINATED, EXIT_TERMINATED
    return INTERRUPTED, EXIT_INTERRUPTED


@contextmanager
def interruptible() -> Iterator[None]:
    """Handle SIGINT and SIGTERM as the module says while the block runs (only the main
    thread can)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = _Handler()
    previous = {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, before in previous.items():
            signal.signal(number, before)
        if handler.interrupted:
            stop_workers()  # any that a thread started while the run unwound
            allow_workers()


class _Handler:
    def __init__(self) -> None:
        self.interrupted = False
        self.process = os.getpid()

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self.process:
            # A child forked from the run (the forker, a worker) stopped before it set its
            # own handlers: it ends as the signal's default action ends it, quietly.
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        stop_workers()
        interrupt = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
        if self.interrupted:  # the second signal: no more waiting
            line, status = ending(interrupt)
            write(sys.stderr, line)
            os._exit(status)
        self.interrupted = True
        raise interrupt
