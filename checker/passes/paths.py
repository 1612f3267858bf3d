"""Checking paths as a run does: discover the files, leave out those the settings
exclude, have a :class:`~checker.passes.session.Session` check the rest with its passes
across modules, and gather one report per file.

Standard input (``-`` among the paths) is read here, once, and checked in a process of
its own when contained; a FIFO or a device is never opened (its report is one AIG900).
What to fix, diff, hide or print is the caller's: :mod:`checker.command.run` does it for
the command line, from the :class:`PathsReport` this gives.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from checker.configuration.settings import Settings
from checker.output.noqa import Hit, UnusedNoqa
from checker.passes.cache import Cache
from checker.passes.engine import import_analysis, unanalysable
from checker.passes.forker import Forker
from checker.passes.schedule import Job, Options, default_workers, useful_workers
from checker.passes.session import CheckedFile, Session
from checker.reading.discovery import STDIN, DiscoveryProblem, Source, discover
from checker.reading.source import MAX_FILE_BYTES, Unanalysable, too_large_stream
from checker.spec.findings import Finding

#: Where the cache goes: nowhere (False), beside the configuration (True), or a folder.
CacheChoice = bool | str | os.PathLike[str]


@dataclass(frozen=True)
class PathsReport:
    """What checking paths produced: each checked file's report, in the order checked
    (standard input and files never opened where discovery met them, then the others)."""

    files: tuple[CheckedFile, ...] = ()
    #: What discovery could not walk (the run went on without it), in the order met.
    problems: tuple[DiscoveryProblem, ...] = ()
    #: The bytes read from standard input, when they were checked (not when too large).
    stdin: bytes | None = None
    #: The default cache folder (as shown) when it is a symbolic link, and so not used.
    refused_cache: str | None = None

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every file's findings, in the one order of findings (:meth:`Finding.sort_key`)."""
        return tuple(sorted((f for file in self.files for f in file.report.findings), key=Finding.sort_key))

    @property
    def unused_noqa(self) -> tuple[UnusedNoqa, ...]:
        return tuple(unused for file in self.files for unused in file.report.unused_noqa)


def check_paths(
    paths: Sequence[str],
    settings: Settings,
    *,
    jobs: int | None = None,
    cache: CacheChoice = False,
    fix: bool = False,
    unused_noqa: bool = False,
    contained: bool = True,
    progress: Callable[[int, int], None] | None = None,
    on_walked: Callable[[PathsReport], None] | None = None,
) -> PathsReport:
    """The reports of the files under ``paths`` (``-``: standard input), checked as
    ``settings`` say. ``contained``: parse in worker processes, so that a file that
    crashes the parser or overruns a budget costs only its own result; else every file
    is parsed in this process. ``on_walked``: called once the paths are walked, before any
    file is checked, with what is known then (``problems``, ``refused_cache``; no files),
    so that a long run can say at once what it will do without."""
    store, refused = _cache(settings, cache)
    files: list[CheckedFile] = []
    stdin: bytes | None = None
    # The forker first: it imports the analysis on a core of its own while this process
    # walks the tree (started after the walk, the cold torch run took 10% longer).
    with _forking(paths, store, contained) as forker:
        # discover() checks that every path exists before yielding anything, so a
        # mistyped path stops the run before any output.
        items = list(discover(paths, settings.name_excludes(), settings.stdin_filename or "<stdin>"))
        options = Options(useful_workers(jobs, default_workers(), items), fix, unused_noqa, contained=contained)
        problems = tuple(item for item in items if isinstance(item, DiscoveryProblem))
        if on_walked is not None:
            on_walked(PathsReport(problems=problems, refused_cache=refused))
        session = Session(options, store, progress, forker)

        def job_for(path: str) -> Job | None:
            source = Source(path, _shown(path))
            return None if settings.excluded(source) else _job(source, settings)

        to_check: list[Job] = []
        named: list[str] = []  # files named on their own: their project is searched for registrations of them
        for item in items:
            if isinstance(item, DiscoveryProblem):
                continue  # in ``problems``
            if item.path is None:
                stdin, checked = _check_stdin(item, settings, session, job_for)
                files.append(checked)
            elif item.special is not None:
                if not settings.excluded(item):
                    why = Unanalysable(item.special.reason)
                    job = _job(item, settings)
                    files.append(CheckedFile(job, unanalysable(item.display, job.codes, why)))
            elif not settings.excluded(item):
                to_check.append(_job(item, settings))
                if item.explicit:
                    named.append(item.path)
        files += session.check(to_check, job_for, named)
    return PathsReport(tuple(_used_elsewhere(files)), problems, stdin, refused)


def _used_elsewhere(files: Sequence[CheckedFile]) -> list[CheckedFile]:
    """The files, their unused suppressions less those another file's check used (an
    installed package's file makes its findings at the registering lines, suppressed there)."""
    used: dict[str, set[Hit]] = {}
    for file in files:
        for use in file.report.used_elsewhere:
            used.setdefault(use.path, set()).add(use.hit)
    if not used:
        return list(files)
    return [
        replace(file, report=replace(file.report, unused_noqa=_less(file.report.unused_noqa, used[file.report.path])))
        if file.report.unused_noqa and file.report.path in used
        else file
        for file in files
    ]


def _less(unused: Sequence[UnusedNoqa], used: set[Hit]) -> tuple[UnusedNoqa, ...]:
    return tuple(left for each in unused if (left := each.less(used)) is not None)


def _job(source: Source, settings: Settings) -> Job:
    return Job(str(source.path), source.display, settings.codes_for(source))


def _shown(path: str) -> str:
    """A path as findings show it: relative to the working directory when inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _check_stdin(
    source: Source, settings: Settings, session: Session, job_for: Callable[[str], Job | None]
) -> tuple[bytes | None, CheckedFile]:
    """'-': read once, never cached, checked in this process; with ``--stdin-filename``,
    with the registrations other files of its project make of its defs. The bytes read
    (None when too large to analyse), and the file's report."""
    codes = settings.codes_for(source)
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)  # no more: '-' may be /dev/zero
    if len(data) > MAX_FILE_BYTES:
        return None, CheckedFile(
            Job("", source.display, codes), unanalysable(source.display, codes, too_large_stream())
        )
    named = settings.stdin_filename
    elsewhere = session.registered_elsewhere(named, job_for) if named else ()
    ordered = tuple(rule.code for rule in settings.selection.rules if rule.code in codes)
    job = Job("", source.display, ordered, elsewhere)
    return data, CheckedFile(job, session.check_bytes(data, job))


def _cache(settings: Settings, where: CacheChoice) -> tuple[Cache | None, str | None]:
    """The run's cache (None: none), and the default folder as shown when it is a link
    this run does not follow."""
    if where is False:
        return None, None
    if where is not True:
        return Cache(Path(where), settings.config.root, settings.cache_digest), None
    cache = Cache.at(settings.config.root, settings.cache_digest)
    if cache.is_refused_link():
        return None, _shown(str(cache.directory))
    return cache, None


@contextmanager
def _forking(paths: Sequence[str], cache: Cache | None, contained: bool) -> Iterator[Forker | None]:
    """The forker of the run's workers (see :mod:`checker.passes.forker`), when they parse
    files on disk. A run without a cache, or with an empty one, is likely to parse:
    its forker starts now, importing the analysis on a core of its own while this
    process reads the tree (with a single core, there is none to spare)."""
    if not contained or not Forker.supported() or all(path == STDIN for path in paths):
        yield None
        return
    forker = Forker(import_analysis)
    if default_workers() > 1 and (cache is None or not cache.holds_entries()):
        try:
            forker.start()
        except OSError:
            pass  # no process to spare: each worker then forks from this one and imports the analysis
    try:
        yield forker
    finally:
        forker.close()
