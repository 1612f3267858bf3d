"""Checking many files: read and pre-filter here, answer from the cache, parse the rest
on every core.

Reading and the text pre-filter stay in this process (they are cheap and most files
stop there); only the files that can register something are sent to worker
processes, in batches so that memory stays flat however large the tree. Reports
come back in the order the files were given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from checker.cache import Cache
from checker.engine import FileReport, check_source, unanalysable
from checker.rules import RULES_BY_CODE, Rule
from checker.source import API_ONLY, Prefilter, Unanalysable, read_candidate

#: Files parsed per round trip to the workers; bounds the bytes held at once.
BATCH = 128
#: Below this many files to parse, worker start-up costs more than it saves.
PARALLEL_FROM = 4


@dataclass(frozen=True)
class Job:
    """One file on disk to check, with the codes of the rules that apply to it."""

    path: str
    display: str
    codes: tuple[str, ...]


@dataclass(frozen=True)
class Options:
    workers: int = 1
    fix: bool = False
    unused_noqa: bool = False
    prefilter: Prefilter = API_ONLY

    @property
    def cacheable(self) -> bool:
        return not (self.fix or self.unused_noqa)


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def check_files(
    jobs: Sequence[Job],
    options: Options,
    cache: Cache | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[FileReport]:
    """One report per job, in order."""
    pool: Executor | None = None
    done = 0
    try:
        iterator = iter(jobs)
        while batch := list(islice(iterator, BATCH)):
            reports: list[FileReport | None] = [None] * len(batch)
            pending: list[tuple[int, bytes, str]] = []
            for index, job in enumerate(batch):
                found = _answer_without_parsing(job, options, cache)
                if isinstance(found, FileReport):
                    reports[index] = found
                else:
                    data, key = found
                    pending.append((index, data, key))
            if len(pending) >= PARALLEL_FROM and options.workers > 1 and pool is None:
                pool = ProcessPoolExecutor(max_workers=min(options.workers, len(pending)))
            work = [(data, batch[index].display, batch[index].codes, options) for index, data, _ in pending]
            results = pool.map(_work, work) if pool is not None and len(pending) > 1 else map(_work, work)
            for (index, _, key), report in zip(pending, results, strict=True):
                reports[index] = report
                if cache is not None and key:
                    cache.put(key, report)
            for report in reports:
                done += 1
                if progress is not None:
                    progress(done, len(jobs))
                yield report  # type: ignore[misc]
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _answer_without_parsing(job: Job, options: Options, cache: Cache | None) -> FileReport | tuple[bytes, str]:
    """A report when the file needs no parsing (or the cache has it), else its bytes and cache key."""
    candidate = read_candidate(Path(job.path), options.prefilter)
    if candidate is None:
        return FileReport(job.display)
    if isinstance(candidate, Unanalysable):
        return unanalysable(job.display, rules_for(job.codes), candidate)
    if cache is None or not options.cacheable:
        return candidate, ""
    key = cache.key(candidate, job.display, job.codes, options.prefilter.aliases)
    cached = cache.get(key)
    return cached if cached is not None else (candidate, key)


def _work(item: tuple[bytes, str, tuple[str, ...], Options]) -> FileReport:
    data, display, codes, options = item
    return check_source(
        data, display, rules_for(codes), fix=options.fix, unused_noqa=options.unused_noqa, prefilter=options.prefilter
    )


def rules_for(codes: Sequence[str]) -> list[Rule]:
    return [RULES_BY_CODE[code]() for code in codes]
