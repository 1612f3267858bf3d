"""Ctrl-C: one line, exit status 130, and no process of the run left behind.

A terminal sends SIGINT to the whole process group, and the workers (and the forker) end
at once and quietly: their SIGINT is the default action. ``kill -INT`` reaches the main
process only. Either way the main process then stops every worker it has
(:func:`checker.pool.stop_workers`: nothing it waits for goes on, and no new one starts)
and unwinds with ``KeyboardInterrupt``, so that a write in progress removes its temporary
file; the command line then says ``aigcheck: interrupted``. A second Ctrl-C while that
happens ends the process at once.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from checker.pool import allow_workers, stop_workers
from checker.streams import write

#: 128 + SIGINT: what a shell shows for a command ended by Ctrl-C.
EXIT_INTERRUPTED = 130
#: The line an interrupted run ends with.
INTERRUPTED = "aigcheck: interrupted\n"


@contextmanager
def interruptible() -> Iterator[None]:
    """Handle SIGINT as the module says while the block runs (only the main thread can)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = _Handler()
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if handler.interrupted:
            stop_workers()  # any that a thread started while the run unwound
            allow_workers()


class _Handler:
    def __init__(self) -> None:
        self.interrupted = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        stop_workers()
        if self.interrupted:  # the second Ctrl-C: no more waiting
            write(sys.stderr, INTERRUPTED)
            os._exit(EXIT_INTERRUPTED)
        self.interrupted = True
        raise KeyboardInterrupt
