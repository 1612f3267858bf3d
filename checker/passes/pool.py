"""Worker processes that check one item at a time, fed by one thread each.

Like ``concurrent.futures.ProcessPoolExecutor``, :meth:`Pool.submit` gives a future. Two
things differ, and they are why the schedule uses this pool:

- Workers can fork from a :class:`~checker.passes.forker.Forker`, a process that imported the
  analysis while this one read the tree, instead of from this process: each then starts
  ready, and the import is paid once instead of once per worker (on a cold run of torch's
  tree, a tenth of the run).
- A worker that dies fails only the future of the item it had, with :class:`WorkerDied`,
  and is replaced; the other items go on. Each worker has one item at a time, so the
  item whose future fails is the one it died on (or it was killed from outside).
"""

from __future__ import annotations

import signal
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing import active_children, get_context
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Held from the moment a child's end of a line exists in this process until it is closed
#: here: a child forked meanwhile (from another thread) would keep a copy of it, and the
#: line would never report the death of the child it belongs to.
FORKING = threading.Lock()
#: Set by :func:`stop_workers`: from then on no worker is started in this process.
_STOPPING = threading.Event()


class WorkerDied(Exception):
    """The worker process checking the item ended before it answered."""


@dataclass
class Worker:
    """A worker's end of the line, and its process when it is this process's child (a
    forker reaps the workers it forks)."""

    connection: Connection
    process: BaseProcess | None = None

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except OSError:
            pass  # it is gone already
        self.connection.close()
        if self.process is not None:
            self.process.join()


#: How a worker is started from its ``start`` and ``work`` (``Forker.fork``; OSError when it cannot be).
Spawn = Callable[[Callable[[], None], Callable[[Item], Result]], Worker]


class Pool(Generic[Item, Result]):
    """``count`` workers, each of which runs ``start()`` once and then ``work(item)`` for
    each item it is given. ``spawn`` starts them (a forker pickles both, so name them at
    module level); by default, and when it fails, they fork from this process."""

    def __init__(
        self,
        count: int,
        start: Callable[[], None],
        work: Callable[[Item], Result],
        spawn: Spawn[Item, Result] | None = None,
    ) -> None:
        self._start = start
        self._work = work
        self._spawn = spawn
        self._tasks: _Tasks[tuple[Future[Result], Item]] = _Tasks()
        self._lock = threading.Lock()
        self._closed = False
        self._feeders = [threading.Thread(target=self._feed, daemon=True) for _ in range(count)]
        for feeder in self._feeders:
            feeder.start()

    def submit(self, item: Item, urgent: bool = False) -> Future[Result]:
        """The future of ``item``'s result; ``urgent`` items go to a worker before the
        others waiting (each kind in the order submitted)."""
        future: Future[Result] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            self._tasks.put((future, item), urgent)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the workers once the items given to them are done (those not yet given
        are cancelled with ``cancel_futures``)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                if cancel_futures:
                    for future, _ in self._tasks.take_all():
                        future.cancel()
                for _ in self._feeders:
                    self._tasks.put(None)
        if wait:
            for feeder in self._feeders:
                feeder.join()

    def _feed(self) -> None:
        """Give this thread's worker one item at a time; replace it when it dies."""
        worker: Worker | None = None
        try:
            while (task := self._tasks.get()) is not None:
                future, item = task
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    worker = worker or self._new_worker()
                    worker.connection.send(item)
                    answered, value = worker.connection.recv()
                except (EOFError, OSError) as error:
                    if worker is not None:
                        worker.connection.close()
                    worker = None
                    future.set_exception(WorkerDied(str(error) or type(error).__name__))
                    continue
                except Exception as error:  # the item, or the answer, would not pickle: the line is intact
                    future.set_exception(error)
                    continue
                if answered:
                    future.set_result(value)
                else:
                    future.set_exception(value)
        finally:
            if worker is not None:
                worker.stop()

    def _new_worker(self) -> Worker:
        if self._spawn is not None:
            try:
                return self._spawn(self._start, self._work)
            except OSError:
                pass  # the forker is gone: fork from this process instead
        return fork_here(self._start, self._work)


class _Tasks(Generic[Item]):
    """What waits for a worker: the urgent items, then the others, then None for each
    worker to stop."""

    def __init__(self) -> None:
        self._urgent: deque[Item] = deque()
        self._rest: deque[Item | None] = deque()
        self._ready = threading.Condition()

    def put(self, task: Item | None, urgent: bool = False) -> None:
        with self._ready:
            if urgent and task is not None:
                self._urgent.append(task)
            else:
                self._rest.append(task)
            self._ready.notify()

    def get(self) -> Item | None:
        with self._ready:
            while not (self._urgent or self._rest):
                self._ready.wait()
            return self._urgent.popleft() if self._urgent else self._rest.popleft()

    def take_all(self) -> list[Item]:
        """Every item still waiting (the stops stay)."""
        with self._ready:
            taken = [*self._urgent, *(task for task in self._rest if task is not None)]
            self._urgent.clear()
            stops = sum(task is None for task in self._rest)
            self._rest = deque([None] * stops)
            return taken


def stop_workers() -> None:
    """End every worker process of this process now (a forker ends the workers it forked),
    and start none after: how an interrupted run stops without waiting for the files they
    have. A future waiting on one fails with :class:`WorkerDied`; a new worker is refused."""
    _STOPPING.set()
    for child in active_children():
        child.terminate()


def allow_workers() -> None:
    """Undo :func:`stop_workers` for the next run in this process."""
    _STOPPING.clear()


def fork_here(start: Callable[[], None], work: Callable[[Item], Result]) -> Worker:
    """A worker that is a child of this process; OSError once :func:`stop_workers` was called."""
    if _STOPPING.is_set():
        raise OSError("the run is stopping: no worker is started")
    context = get_context()
    with FORKING:
        ours, theirs = context.Pipe()
        process = context.Process(target=serve, args=(theirs, start, work), daemon=True)
        process.start()
        theirs.close()
    return Worker(ours, process)


def serve(connection: Connection, start: Callable[[], None], work: Callable[[object], object]) -> None:
    """A worker's life: ``start()``, then answer each item with ``(True, result)``, or
    ``(False, exception)`` when ``work`` raised, until it is sent None or the line closes.
    Ctrl-C and SIGTERM end it quietly, as they end the run, and not through the handler a
    worker forked from the main process inherits (the forker's workers inherit the same)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    start()
    try:
        while (item := connection.recv()) is not None:
            try:
                answer = (True, work(item))
            except Exception as error:  # the caller's future raises it
                answer = (False, error)
            try:
                connection.send(answer)
            except Exception as error:  # it would not pickle (nothing was sent)
                connection.send((False, RuntimeError(f"the worker's answer could not be sent back: {error!r}")))
    except EOFError:
        pass  # the pool's process is gone
