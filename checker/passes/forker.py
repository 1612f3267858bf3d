"""A process from which workers fork with the analysis already imported.

A worker forked from the main process imports libcst and the rules itself: about 0.2 CPU-s
each, paid by every worker once the first file to parse is found. The command line
instead forks its workers from a forker, which imports the analysis once for all of
them. On a run that is likely cold (no cache, or an empty one) the forker starts before
the tree is read, so the import runs on a core that would otherwise be idle and the
workers start ready; otherwise it starts when the first file to parse is found, and a run
the cache answers imports nothing.

Each request on the control line forks one worker. The forker sends back the main
process's end of a new socket pair (``SCM_RIGHTS``), and the worker reads its ``start``
and ``work`` from its own end (see :func:`checker.passes.pool.serve`). The forker reaps the
workers it forks. When the control line closes, it waits for them to end, and then ends;
when it is stopped (``SIGTERM``: an interrupted run), it kills them first.
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from multiprocessing import get_context
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from checker.passes.pool import FORKING, Item, Result, Worker, serve

#: Seconds ``close`` waits for the forker to see the line close before it is stopped.
CLOSE_WAIT = 5.0
_REQUEST = b"+"


class Forker:
    """A child process that runs ``prepare()`` (the imports) and then forks a worker per
    :meth:`fork`; started by :meth:`start` or the first :meth:`fork`."""

    def __init__(self, prepare: Callable[[], None]) -> None:
        self._prepare = prepare
        self._process: BaseProcess | None = None
        self._control: socket.socket | None = None
        self._lock = threading.Lock()  # one start, and one request and its answer, at a time
        self._forked = 0
        #: The forker's process id, once started.
        self.pid: int | None = None

    @staticmethod
    def supported() -> bool:
        """Whether this platform can: ``fork``, and passing a descriptor to another process."""
        return sys.platform.startswith("linux") and hasattr(socket, "send_fds")

    def start(self) -> None:
        with self._lock:
            self._started()

    def fork(self, start: Callable[[], None], work: Callable[[Item], Result]) -> Worker:
        """A new worker (the answer waits for ``prepare`` to finish); OSError if the
        forker is gone."""
        with self._lock:
            control = self._started()
            control.sendall(_REQUEST)
            _, fds, _, _ = socket.recv_fds(control, 1, 1)
            if not fds:
                raise OSError("the forker ended")
            self._forked += 1
        connection = Connection(fds[0])
        connection.send((start, work))
        return Worker(connection)

    def close(self) -> None:
        """End the forker once the workers it forked have ended (they end when their
        pools close their lines). One that forked none yet is stopped at once: it may
        still be importing."""
        with self._lock:
            process, control = self._process, self._control
            self._process = self._control = None
        if process is None or control is None:
            return
        control.close()
        if self._forked:
            process.join(CLOSE_WAIT)
        if process.is_alive():
            process.terminate()
        process.join()

    def _started(self) -> socket.socket:
        """The control line, the forker started first if it is not (under ``_lock``)."""
        if self._control is None:
            with FORKING:
                self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                self._process = get_context("fork").Process(
                    target=_run, args=(theirs, self._control, self._prepare), daemon=True, name="aigcheck-forker"
                )
                self._process.start()
                theirs.close()
            self.pid = self._process.pid
        return self._control


#: In the forker: the workers it forked that it has not reaped yet.
_children: set[int] = set()


def _run(control: socket.socket, parents_end: socket.socket, prepare: Callable[[], None]) -> None:
    parents_end.close()
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it quietly, as it ends the run
    signal.signal(signal.SIGTERM, _end_workers)  # stopped (an interrupted run): its workers with it
    # No cyclic collection, as in the workers (checker.passes.schedule.quiet_gc): the import makes
    # no garbage worth it, and is 7% faster without (0.22 -> 0.20 s).
    gc.disable()
    try:
        prepare()
    except Exception:  # noqa: S110 - each worker imports again, and reports what fails
        pass
    signal.signal(signal.SIGCHLD, _reap)  # waited for, their CPU time counts in the run's
    while control.recv(1) == _REQUEST:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # not reaped before it is recorded
        pid = os.fork()
        if pid == 0:
            control.close()
            ours.close()
            _work(theirs)
        _children.add(pid)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        theirs.close()
        socket.send_fds(control, [_REQUEST], [ours.fileno()])
        ours.close()
    try:
        while True:
            _children.discard(os.wait()[0])
    except ChildProcessError:
        pass  # every worker has ended


def _reap(*_: object) -> None:
    """Wait for the workers that have ended (none becomes a zombie while the forker waits)."""
    try:
        while pid := os.waitpid(-1, os.WNOHANG)[0]:
            _children.discard(pid)
    except ChildProcessError:
        pass


def _end_workers(*_: object) -> None:
    """Kill the workers not reaped yet (a process id is never reused before it is), then end."""
    for pid in list(_children):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass  # it has just ended
    os._exit(0)


def _work(end: socket.socket) -> None:
    """A forked worker: serve its pool, then exit without the forker's exit handlers."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    _children.clear()  # the forker's, not this worker's
    code = 1
    try:
        connection = Connection(end.detach())
        start, work = connection.recv()
        serve(connection, start, work)
        code = 0
    finally:
        os._exit(code)
