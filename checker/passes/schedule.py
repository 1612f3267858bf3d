"""Checking many files: read and pre-filter here, answer from the cache, parse the rest
on every core.

Reading and the text pre-filter stay in this process (they are cheap and most files
stop there); the files that can register something go to worker processes as soon
as they are found, so reading the rest of the tree overlaps their analysis. At most
``WINDOW`` files to parse (their bytes) and ``MAX_PENDING`` reports wait at once, so
memory stays flat however large the tree. Reports come back in the order the files
were given.
"""

from __future__ import annotations

import faulthandler
import gc
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from checker.passes.cache import Cache
from checker.passes.containment import DEFAULT_LIMITS, Alone, Limits
from checker.passes.engine import FileReport, LinkedReport, analyse_source, import_analysis, new_index, unanalysable
from checker.passes.pool import Pool, WorkerDied
from checker.reading.discovery import DiscoveryProblem, Source
from checker.reading.source import API_ONLY, Prefilter, Unanalysable, read_candidate
from checker.spec.links import Elsewhere

if TYPE_CHECKING:
    from checker.index.project import Project
    from checker.passes.forker import Forker
    from checker.rules import Rule

#: Files to parse that are read but not yet reported, at most: bounds the bytes held.
WINDOW = 64
#: Reports waiting for an older file's, at most (each a path and a few findings).
MAX_PENDING = 4096
#: Below this many files to parse, worker start-up costs more than it saves.
PARALLEL_FROM = 4
#: Python frames a worker may nest: enough for what CPython itself compiles.
WORKER_RECURSION_LIMIT = 20_000


@dataclass(frozen=True)
class Job:
    """One file on disk to check, with the codes of the rules that apply to it, and the
    registrations of its defs and classes that other files make."""

    path: str
    display: str
    codes: tuple[str, ...]
    elsewhere: tuple[Elsewhere, ...] = ()
    #: Its text registers functions it does not define: its outcome will likely hand
    #: registrations to the files that define them, whose checks wait for it.
    hands_off: bool = False

    @property
    def urgent(self) -> bool:
        """Parsed before the other files waiting: a check other checks wait for, or one
        that waited (a defining file checked again with registrations made elsewhere)."""
        return self.hands_off or bool(self.elsewhere)

    def prefilter(self, options: Options) -> Prefilter:
        """A file whose defs other files register is a candidate whatever it mentions."""
        if not self.elsewhere:
            return options.prefilter
        names = (*options.prefilter.aliases, *(registration.name for registration in self.elsewhere))
        return Prefilter(names, options.prefilter.imported)


@dataclass(frozen=True)
class Options:
    workers: int = 1
    fix: bool = False
    unused_noqa: bool = False
    prefilter: Prefilter = API_ONLY
    #: The names of the functions the project registers (see ``checker.index.project.Project``).
    registered: tuple[str, ...] = ()
    #: Parse only in worker processes, under ``limits``, so that a file that crashes the
    #: parser or overruns a budget costs only its own result (see ``checker.passes.containment``).
    contained: bool = False
    limits: Limits = DEFAULT_LIMITS

    @property
    def cacheable(self) -> bool:
        return not (self.fix or self.unused_noqa)


@contextmanager
def quiet_gc() -> Iterator[None]:
    """No automatic cyclic garbage collection while checking.

    Each full collection rescans every live object, and a run keeps up to 64 parsed
    syntax trees alive (millions of objects) while allocating fast: on diffusers'
    registration files automatic collection took 30% of the run and found almost
    nothing (about 2,000 objects), because the analysis makes next to no cyclic
    garbage. The cycles that matter, dropped modules, are collected by ``Project``.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def useful_workers(requested: int | None, cores: int, items: Sequence[Source | DiscoveryProblem]) -> int:
    """How many worker processes to start: ``requested`` (default: one per usable core), but
    never more than the usable ``cores``, nor than the files to check, since each worker
    costs a process start and an import of libcst (``--jobs 100000`` took minutes).

    A file named explicitly (or ``-``) sends the run searching its project for other
    files to check, so with one the file count is no bound.
    """
    workers = min(requested or cores, cores)
    sources = [item for item in items if isinstance(item, Source)]
    if any(source.explicit for source in sources):
        return workers
    return max(1, min(workers, len(sources)))


def check_files(
    jobs: Sequence[Job],
    options: Options,
    cache: Cache | None = None,
    progress: Callable[[int, int], None] | None = None,
    index: Callable[[], Project] | None = None,
) -> Iterator[FileReport]:
    """One report per job, in order."""
    return (outcome.report for outcome in check_outcomes(jobs, options, cache, progress, index))


class Workers:
    """Worker processes, started when a pass first has enough files to parse and kept for
    the passes after it, whose files then reach workers that have imported the analysis
    and parsed the modules the first pass needed. With a ``forker`` they fork from it,
    the analysis imported; else from this process before it imports libcst, each then
    importing it while this process goes on reading the tree."""

    def __init__(
        self,
        count: int,
        registered: tuple[str, ...] = (),
        limits: Limits = DEFAULT_LIMITS,
        forker: Forker | None = None,
    ) -> None:
        self.count = count
        self.registered = registered
        self.limits = limits
        self.forker = forker
        self._pool: Pool[tuple[bytes, Job, Options | _Lean], LinkedReport] | None = None
        self._alone: Alone[tuple[bytes, Job, Options | _Lean], LinkedReport] | None = None
        #: Two passes may share the workers from two threads (see ``checker.passes.session``).
        self._lock = threading.RLock()

    @property
    def started(self) -> bool:
        return self._pool is not None

    def start(self, wanted: int | None = None) -> None:
        """Start the pool with ``wanted`` processes (at most ``count``) if there is none: a
        run of one file needs one (the later passes use the same)."""
        with self._lock:
            if self._pool is None:
                count = max(1, min(self.count, wanted or self.count))
                start = partial(_start_worker, self.registered, self.limits)
                spawn = self.forker.fork if self.forker is not None else None
                self._pool = Pool(count, start, _work_in_worker, spawn)

    def submit(self, work: tuple[bytes, Job, Options], urgent: bool = False) -> Future[LinkedReport]:
        """The future outcome of ``work`` on a worker of the pool (started if need be)."""
        self.start()
        assert self._pool is not None
        data, job, options = work
        return self._pool.submit((data, job, _lean(options, self.registered)), urgent=urgent)

    def alone(self, work: tuple[bytes, Job, Options]) -> LinkedReport:
        """Check one file in a process of its own: how a file a dead worker had is retried."""
        with self._lock:
            if self._alone is None:
                self._alone = Alone(partial(_start_worker, self.registered, self.limits), _work_in_worker, self.limits)
            data, job, options = work
            answer = self._alone.run((data, job, _lean(options, self.registered)))
        if isinstance(answer, Unanalysable):
            return LinkedReport(unanalysable(job.display, job.codes, answer))
        return answer

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=True)
                self._pool = None
            if self._alone is not None:
                self._alone.close()
                self._alone = None


def check_outcomes(
    jobs: Sequence[Job],
    options: Options,
    cache: Cache | None = None,
    progress: Callable[[int, int], None] | None = None,
    index: Callable[[], Project] | None = None,
    workers: Workers | None = None,
    urgent_done: Callable[[Job, LinkedReport], None] | None = None,
) -> Iterator[LinkedReport]:
    """One outcome per job, in order. Files checked in this process read the project
    through the index that ``index()`` gives (a new one when None), asked only when a
    file is parsed here; each worker process keeps its own. ``workers``: processes the
    caller keeps for later calls (else this call starts its own and stops them).
    ``urgent_done(job, outcome)``: told, in this thread, of an urgent job's outcome as soon
    as a worker has it, before its turn in order comes."""
    own = workers is None
    pool = Workers(options.workers, options.registered, options.limits) if workers is None else workers
    pipeline = _Pipeline(options, cache, index or _own_index(), pool, len(jobs), urgent_done)
    done = 0

    def reported(outcome: LinkedReport) -> LinkedReport:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, len(jobs))
        return outcome

    try:
        with quiet_gc():
            for job in jobs:
                pipeline.add(job)
                yield from map(reported, pipeline.ready(block=pipeline.full))
            pipeline.finish()
            yield from map(reported, pipeline.ready(block=True))
    finally:
        pipeline.cancel()
        if own:
            pool.close()


class _Pipeline:
    """Files in flight, oldest first: each a report, a worker's future, or work kept
    back until it is clear whether starting workers pays."""

    def __init__(
        self,
        options: Options,
        cache: Cache | None,
        index: Callable[[], Project],
        workers: Workers,
        files: int,
        urgent_done: Callable[[Job, LinkedReport], None] | None = None,
    ) -> None:
        self.files = files  # how many jobs: no more workers than that are started
        self.urgent_done = urgent_done
        self.urgent: list[tuple[_Slot, Job]] = []  # urgent files not yet told of nor yielded
        self.options = options
        self.cache = cache
        self.index = index
        self.workers = workers
        self.sending = workers.started  # files to parse go to workers as they are read
        self.held: list[_Slot] = []  # parse work not yet sent anywhere
        self.slots: deque[_Slot] = deque()
        self.parsing = 0  # slots in ``slots`` that parse

    @property
    def full(self) -> bool:
        return self.parsing >= WINDOW or len(self.slots) >= MAX_PENDING

    def add(self, job: Job) -> None:
        found = _answer_without_parsing(job, self.options, self.cache)
        if isinstance(found, LinkedReport):
            self.slots.append(_Slot(outcome=found))
            return
        data, key = found
        slot = _Slot(work=(data, job, self.options), key=key)
        self.slots.append(slot)
        self.parsing += 1
        if job.urgent and self.urgent_done is not None:
            self.urgent.append((slot, job))
        if self.sending:
            slot.send(self.workers)
        elif self.options.contained:  # every parse is a worker's: start them while the tree is read
            self.held.append(slot)
            self._start_workers()
        elif self.options.workers > 1:
            self.held.append(slot)
            if len(self.held) >= PARALLEL_FROM:
                self._start_workers()
        # with one worker, and not contained, the slot is checked here when its turn comes

    def _start_workers(self) -> None:
        self.workers.start(self.files)
        self.sending = True
        for waiting in self.held:
            waiting.send(self.workers)
        self.held = []

    def finish(self) -> None:
        """No more files: what was held back goes to workers when contained, else is
        checked here, in this process."""
        if self.held and self.options.contained:
            self._start_workers()
        self.held = []

    def ready(self, block: bool) -> Iterator[LinkedReport]:
        """Outcomes of the oldest files that are done (waiting for the oldest when ``block``)."""
        while self.slots:
            slot = self.slots[0]
            self._tell_urgent()
            if not (block or slot.done()):
                return
            if slot in self.held:  # the window is full before there was enough to parse
                self._start_workers()
            self._wait_telling_urgent(slot)
            self.slots.popleft()
            if self.urgent and self.urgent[0][0] is slot:  # its turn came first: told in order
                self.urgent.pop(0)
            self.parsing -= slot.parses
            outcome = slot.result(self.index, self._retry)
            if slot.key and self.cache is not None:
                self.cache.put(slot.key, outcome)
            yield outcome

    def _tell_urgent(self) -> None:
        """Tell ``urgent_done`` of the urgent outcomes workers have finished (a hand-off they
        make can begin at once, not when the files before them in order are done)."""
        if not self.urgent:
            return
        waiting = []
        for slot, job in self.urgent:
            future = slot.future
            if future is None or not future.done():
                waiting.append((slot, job))
            elif not future.cancelled() and future.exception() is None:  # (a dead worker's is retried in turn)
                assert self.urgent_done is not None
                self.urgent_done(job, future.result())
        self.urgent = waiting

    def _wait_telling_urgent(self, slot: _Slot) -> None:
        """Wait for ``slot``'s worker, telling of urgent outcomes as they come meanwhile."""
        while slot.future is not None and not slot.future.done():
            pending = [waiting.future for waiting, _ in self.urgent if waiting.future is not None]
            if not pending:
                return  # its result() waits
            wait([slot.future, *pending], return_when=FIRST_COMPLETED)
            self._tell_urgent()

    def _retry(self, slot: _Slot) -> LinkedReport:
        """The outcome of a file whose worker died on it (it crashed the parser or overran
        a budget, or the worker was killed): the file is checked again, alone."""
        assert slot.work is not None
        return self.workers.alone(slot.work)

    def cancel(self) -> None:
        """Drop the work of files whose outcome nobody will ask for (the caller stopped early)."""
        for slot in self.slots:
            if slot.future is not None:
                slot.future.cancel()


class _Slot:
    def __init__(
        self,
        outcome: LinkedReport | None = None,
        work: tuple[bytes, Job, Options] | None = None,
        key: str = "",
    ) -> None:
        self.outcome = outcome
        self.work = work
        self.key = key
        self.parses = outcome is None
        self.future: Future[LinkedReport] | None = None

    def send(self, workers: Workers) -> None:
        assert self.work is not None
        # The work is kept until the outcome is in: a dead worker's is retried.
        self.future = workers.submit(self.work, urgent=self.work[1].urgent)

    def done(self) -> bool:
        return self.outcome is not None or (self.future is not None and self.future.done())

    def result(self, index: Callable[[], Project], retry: Callable[[_Slot], LinkedReport]) -> LinkedReport:
        """The outcome, checked here with ``index()`` if no worker has it, or by ``retry``
        if the worker that had it died."""
        if self.outcome is None:
            if self.future is not None:
                try:
                    self.outcome = self.future.result()
                except WorkerDied:
                    self.outcome = retry(self)
            else:
                assert self.work is not None
                self.outcome = _work(self.work, index())
            self.work = None
        return self.outcome


def _answer_without_parsing(job: Job, options: Options, cache: Cache | None) -> LinkedReport | tuple[bytes, str]:
    """An outcome when the file needs no parsing (or the cache has it), else its bytes and cache key."""
    prefilter = job.prefilter(options)
    candidate = read_candidate(Path(job.path), prefilter)
    if candidate is None:
        return LinkedReport(FileReport(job.display))
    if isinstance(candidate, Unanalysable):
        return LinkedReport(unanalysable(job.display, job.codes, candidate))
    if cache is None or not options.cacheable:
        return candidate, ""
    registered = [repr(registration) for registration in job.elsewhere]
    key = cache.key(candidate, job.display, job.codes, [prefilter.digest, *registered])
    cached = cache.get(key)
    return cached if cached is not None else (candidate, key)


def _own_index() -> Callable[[], Project]:
    """An index made on first use (a run answered from the cache imports no analysis)."""
    made: list[Project] = []

    def index() -> Project:
        if not made:
            made.append(new_index())
        return made[0]

    return index


@dataclass(frozen=True)
class _Lean:
    """Options as a worker is sent them with each file, less the project's registered names
    when they are the names it started with: a generated tree registers thousands, and
    every file's item would carry them twice (and the worker sort them out again)."""

    options: Options


def _lean(options: Options, registered: tuple[str, ...]) -> Options | _Lean:
    """``options`` to send to workers started with ``registered``."""
    if not registered or options.registered is not registered or options.prefilter.imported is not registered:
        return options
    return _Lean(replace(options, registered=(), prefilter=Prefilter(options.prefilter.aliases)))


#: The project index of a worker process, made when it starts, and the names it started with.
_worker_index: Project | None = None
_worker_names: tuple[str, ...] = ()
#: The options a worker was sent, made whole once each (their prefilters' sets with them).
_worker_options: dict[_Lean, Options] = {}


def _whole(sent: Options | _Lean) -> Options:
    """The options a worker was sent, with its own registered names put back."""
    if isinstance(sent, Options):
        return sent
    whole = _worker_options.get(sent)
    if whole is None:
        lean = sent.options
        prefilter = Prefilter(lean.prefilter.aliases, _worker_names)
        whole = _worker_options[sent] = replace(lean, registered=_worker_names, prefilter=prefilter)
    return whole


def _start_worker(registered: tuple[str, ...], limits: Limits) -> None:
    global _worker_index, _worker_names
    limits.apply()
    faulthandler.disable()  # a crash here is expected and reported: no dump on stderr (under pytest)
    # CPython compiles expressions nested about 2,900 deep (a long + chain); the analysis
    # recurses as deep. Were the C stack to run out first, the crash would cost this file only.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), WORKER_RECURSION_LIMIT))
    gc.disable()  # as in the parent: see quiet_gc
    import_analysis()
    # What the worker starts with stays for its life: out of the full collections that free
    # dropped modules (``Project``), which then go over only the work in hand.
    gc.freeze()
    _worker_index = new_index(registered)
    _worker_names = registered


def _work_in_worker(item: tuple[bytes, Job, Options | _Lean]) -> LinkedReport:
    assert _worker_index is not None, "a worker starts with _start_worker"
    data, job, sent = item
    options = _whole(sent)
    with options.limits.timed():
        try:
            return _work((data, job, options), _worker_index)
        except MemoryError:
            return LinkedReport(unanalysable(job.display, job.codes, options.limits.over_memory()))


def check_one(data: bytes, job: Job, options: Options, index: Project) -> LinkedReport:
    """The outcome of one file's bytes, checked in this process (``job``'s path is not read)."""
    return _work((data, job, options), index)


def _work(item: tuple[bytes, Job, Options], index: Project) -> LinkedReport:
    data, job, options = item
    return analyse_source(
        data,
        job.display,
        rules_for(job.codes),
        fix=options.fix,
        unused_noqa=options.unused_noqa,
        prefilter=job.prefilter(options),
        elsewhere=job.elsewhere,
        index=index,
    )


def rules_for(codes: Sequence[str]) -> list[Rule]:
    """Fresh instances of the rules ``codes`` name (imported on first use: they import libcst)."""
    from checker.rules import RULES_BY_CODE

    return [RULES_BY_CODE[code]() for code in codes]
