"""Carrying out one ``aigcheck`` run: check the files, fix or diff them, report.

:mod:`checker.command.cli` turns the command line into :class:`~checker.configuration.options.RunOptions`;
this module merges them with the configuration (:mod:`checker.configuration.settings`), discovers
the files, has a :class:`~checker.passes.session.Session` check them, applies
``--fix``/``--diff`` and baselines, and writes the report in the chosen format
(through :mod:`checker.command.streams`) with the exit status.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from checker.command.baseline import load_baseline, write_baseline
from checker.command.progress import Progress
from checker.command.streams import is_tty, write, write_bytes
from checker.configuration.config import Config
from checker.configuration.options import RunOptions
from checker.configuration.settings import Settings, codes_for, excluded, settings, useful_workers
from checker.output import atomic
from checker.output.diffs import unified_diff
from checker.output.noqa import UnusedNoqa
from checker.output.reporters import REPORTERS, RenderOptions
from checker.output.reporters import text as text_reporter
from checker.output.reporters.base import escape_controls
from checker.output.reporters.text import split_lines
from checker.passes.cache import Cache, settings_digest
from checker.passes.engine import FileReport, decode_source, import_analysis, unanalysable
from checker.passes.forker import Forker
from checker.passes.schedule import Job, Options, default_workers
from checker.passes.session import JobFor, Session
from checker.reading.discovery import STDIN, DiscoveryProblem, Source, discover
from checker.reading.source import MAX_FILE_BYTES, Unanalysable, read_source, too_large_stream
from checker.spec.findings import Finding

PROG = "aigcheck"
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A command line that cannot be carried out; reported as ``aigcheck: error: ...``."""


@dataclass
class _Run:
    """What checking the files produced, gathered for the report."""

    findings: list[Finding] = field(default_factory=list)
    unused_noqa: list[UnusedNoqa] = field(default_factory=list)
    failed: bool = False
    #: Files whose fixes were not written (or diffed): the findings the fixes would have
    #: resolved are in no list, so no summary is printed.
    unwritten: int = 0
    fixed: int = 0
    fixed_files: int = 0
    diffs: list[str] = field(default_factory=list)
    #: With ``--fix`` on '-': the bytes to print instead of the findings.
    stdin_source: bytes | None = None
    #: Where each shown path came from, to quote its lines later: a file's real path
    #: (the shown one may be normalised), or the bytes read from stdin.
    origins: dict[str, str | bytes] = field(default_factory=dict)


def check(args: RunOptions) -> int:
    paths: list[str] = list(args.paths) or ["."]
    if args.stdin_filename is not None and STDIN not in paths:
        raise UsageError("--stdin-filename names the source read from '-'; add '-' to the paths")
    if args.fix and not args.diff and STDIN in paths and len(set(paths)) > 1:
        raise UsageError("--fix on '-' prints the fixed source instead of findings; check '-' on its own")
    if args.write_baseline is not None and args.diff:
        raise UsageError("--write-baseline records findings, --diff prints fixes; use one at a time")
    run_settings = settings(args, paths)
    config = run_settings.config
    if not args.quiet:
        for note in run_settings.selection.notes:
            write(sys.stderr, f"{PROG}: note: {note}\n")
    # Read the baseline before the run, so that a bad file stops it at once.
    baseline = load_baseline(Path(args.baseline)) if args.baseline is not None else None
    run = _Run()
    cache = _cache(args, config)
    progress = Progress(sys.stderr) if not args.quiet and is_tty(sys.stderr) else None
    with _forking(paths, cache) as forker:
        _check_paths(paths, args, run_settings, run, cache, progress, forker)
    if progress is not None:
        progress.clear()
    if args.diff:
        return _finish_diff(args, run)
    hidden = 0
    if baseline is not None:
        run.findings, known = baseline.split(run.findings)
        hidden = len(known)
    if args.write_baseline is not None:
        return _write_baseline(args, run, args.write_baseline)
    stream = sys.stdout
    if run.stdin_source is not None:
        # '-' with --fix: the source goes to stdout, for an editor to take; the report to stderr.
        write_bytes(sys.stdout, run.stdin_source)
        stream = sys.stderr
    _report(stream, args, run_settings, run, hidden)
    if run.failed:
        return EXIT_ERROR
    failing = any(finding.severity.at_least(run_settings.fail_on) for finding in run.findings)
    if args.exit_zero or not (failing or run.unused_noqa):
        return EXIT_CLEAN
    return EXIT_FINDINGS


def _check_paths(
    paths: Sequence[str],
    args: RunOptions,
    run_settings: Settings,
    run: _Run,
    cache: Cache | None,
    progress: Progress | None,
    forker: Forker | None,
) -> None:
    """Discover and check the files, gathering what they give in ``run``."""
    config = run_settings.config
    # discover() checks that every path exists before yielding anything, so a
    # mistyped path stops the run before any output.
    items = list(discover(paths, [*config.name_excludes(), *args.exclude], args.stdin_filename or "<stdin>"))
    # Contained: parsing happens in worker processes, so that a file that crashes libcst's
    # native parser or overruns a budget costs only its own result.
    options = Options(
        useful_workers(args.jobs, default_workers(), items),
        fix=args.fixing,
        unused_noqa=args.report_unused_noqa,
        contained=True,
    )
    session = Session(options, cache, progress, forker)

    def job_for(path: str) -> Job | None:
        source = Source(path, _shown(path))
        return None if excluded(source, args, config) else _job(source, args, run_settings)

    jobs: list[Job] = []
    named: list[str] = []  # files named on their own: their project is searched for registrations of them
    for item in items:
        if isinstance(item, DiscoveryProblem):
            write(sys.stderr, f"{PROG}: warning: {escape_controls(str(item))}\n")
        elif item.path is None:
            _check_stdin(item, args, run_settings, run, session, job_for)
        elif item.special is not None:
            if not excluded(item, args, config):
                _not_opened(item, args, run_settings, run)
        elif not excluded(item, args, config):
            jobs.append(_job(item, args, run_settings))
            if item.explicit:
                named.append(item.path)

    for checked in session.check(jobs, job_for, named):
        source = Source(checked.job.path, checked.job.display)
        run.origins[source.display] = checked.job.path
        _absorb(source, None, checked.report, args, run)


@contextmanager
def _forking(paths: Sequence[str], cache: Cache | None) -> Iterator[Forker | None]:
    """The forker of the run's workers (see :mod:`checker.passes.forker`), when there are files
    on disk to check. A run without a cache, or with an empty one, is likely to parse:
    its forker starts now, importing the analysis on a core of its own while this
    process reads the tree (with a single core, there is none to spare)."""
    if not Forker.supported() or all(path == STDIN for path in paths):
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


def _job(source: Source, args: RunOptions, run_settings: Settings) -> Job:
    return Job(str(source.path), source.display, codes_for(source, args, run_settings))


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _check_stdin(
    source: Source, args: RunOptions, run_settings: Settings, run: _Run, session: Session, job_for: JobFor
) -> None:
    """'-': read once, never cached, checked in this process; with ``--stdin-filename``,
    with the registrations other files of its project make of its defs."""
    codes = codes_for(source, args, run_settings)
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)  # no more: '-' may be /dev/zero
    if len(data) > MAX_FILE_BYTES:
        _absorb(source, None, unanalysable(source.display, codes, too_large_stream()), args, run)
        return
    run.origins[source.display] = data
    elsewhere = session.registered_elsewhere(args.stdin_filename, job_for) if args.stdin_filename else ()
    ordered = tuple(rule.code for rule in run_settings.selection.rules if rule.code in codes)
    report = session.check_bytes(data, Job("", source.display, ordered, elsewhere))
    _absorb(source, data, report, args, run)


def _not_opened(source: Source, args: RunOptions, run_settings: Settings, run: _Run) -> None:
    """A FIFO, device or socket to check: an AIG900, and never opened."""
    assert source.special is not None
    why = Unanalysable(source.special.reason)
    _absorb(source, None, unanalysable(source.display, codes_for(source, args, run_settings), why), args, run)


def _cache(args: RunOptions, config: Config) -> Cache | None:
    if args.no_cache:
        return None
    settings = settings_digest(config)
    if args.cache_dir is not None:
        return Cache(Path(args.cache_dir), config.root, settings)
    cache = Cache.at(config.root, settings)
    if cache.is_refused_link():
        name = escape_controls(_shown(str(cache.directory)))
        write(
            sys.stderr,
            f"{PROG}: warning: {name} is a symbolic link; the cache is off for this run"
            " (remove the link, or name a folder with --cache-dir)\n",
        )
        return None
    return cache


def _absorb(source: Source, data: bytes | None, report: FileReport, args: RunOptions, run: _Run) -> None:
    """Take one file's report into the run: errors, findings, fixes."""
    fix = args.fixing
    if report.internal_error is not None:
        run.failed = True
        write(
            sys.stderr,
            f"{PROG}: internal error while checking {escape_controls(report.path)}:\n"
            + escape_controls(report.internal_error, keep="\n"),
        )
        if not report.internal_error.endswith("\n"):
            write(sys.stderr, "\n")
    run.findings.extend(report.findings)
    run.unused_noqa.extend(report.unused_noqa)
    if fix and report.fixed_source is not None:
        if _apply(source, data, report, args, run):
            run.fixed += report.fixed
            run.fixed_files += 1
    elif data is not None and args.fix and not args.diff:
        run.stdin_source = data  # nothing to fix: the source goes back unchanged


def _apply(source: Source, data: bytes | None, report: FileReport, args: RunOptions, run: _Run) -> bool:
    """Show (``--diff``) or write (``--fix``) one file's fixed source; whether that worked.

    A file on disk is diffed or written only while it holds the bytes the fix was
    computed from: one saved since it was read is skipped, and says so."""
    fixed = str(report.fixed_source)
    shown = escape_controls(source.display)
    try:
        new = fixed.encode(report.encoding)  # a BOM and a coding cookie's charset survive
        if args.diff:
            original = data if data is not None else _unchanged(Path(str(source.path)), report.fixed_from)
            run.diffs.append(unified_diff(decode_source(original), fixed, source.display))
        elif data is not None:
            run.stdin_source = new
        else:
            atomic.replace_file(str(source.path), new, expected=report.fixed_from)
    except atomic.ChangedMeanwhile:
        what = f"no diff of {shown}" if args.diff else f"not fixing {shown}"
        again = "--diff" if args.diff else "--fix"
        _unwritten(run, f"{what}: it changed while it was checked; run {PROG} {again} again")
        return False
    except (OSError, SyntaxError, LookupError, UnicodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        _unwritten(run, f"cannot write the fixes of {shown}: {reason}; {shown} is unchanged")
        return False
    return True


def _unchanged(path: Path, fixed_from: str) -> bytes:
    """The file's bytes, when they are still those the fix was computed from."""
    data = read_source(path)
    if data is None or atomic.digest(data) != fixed_from:
        raise atomic.ChangedMeanwhile(str(path))
    return data


def _unwritten(run: _Run, message: str) -> None:
    run.failed = True
    run.unwritten += 1
    write(sys.stderr, f"{PROG}: error: {message}\n")


def _finish_diff(args: RunOptions, run: _Run) -> int:
    write(sys.stdout, "".join(run.diffs))
    if not args.quiet and run.fixed:
        write(sys.stderr, f"{PROG}: would fix {_count(run.fixed, 'finding')} in {_count(run.fixed_files, 'file')}\n")
    if run.failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if run.diffs and not args.exit_zero else EXIT_CLEAN


def _write_baseline(args: RunOptions, run: _Run, target: str) -> int:
    shown = escape_controls(str(target))
    if run.failed:
        write(sys.stderr, f"{PROG}: error: not writing {shown}: some files could not be checked\n")
        return EXIT_ERROR
    try:
        write_baseline(Path(target), run.findings)
    except OSError as error:
        raise UsageError(
            f"cannot write the baseline {shown}: {error.strerror or error}; {shown} is unchanged"
        ) from None
    if not args.quiet:
        write(sys.stderr, f"{PROG}: wrote {_count(len(run.findings), 'finding')} to {shown}\n")
    return EXIT_CLEAN


def _report(stream: TextIO, args: RunOptions, run_settings: Settings, run: _Run, hidden: int) -> None:
    """The findings in the chosen format, then what the text format adds after them."""
    findings = run.findings
    fmt = run_settings.output_format
    show_source = args.show_source if args.show_source is not None else is_tty(stream)
    options = RenderOptions(
        show_source=show_source,
        source_lines=_source_lines(findings, run.origins) if show_source else {},
        summary=False,
    )
    if fmt == "text":
        write(stream, text_reporter.render(findings, options, color=_use_color(stream)))
    else:
        write(stream, REPORTERS[fmt](findings, options))
    # A machine format keeps its stream to itself; the rest goes to stderr.
    extra = stream if fmt == "text" else sys.stderr
    if args.report_unused_noqa:
        write(extra, "".join(f"{escape_controls(str(unused))}\n" for unused in sorted(run.unused_noqa, key=_place)))
    if args.statistics:
        write(extra, statistics(findings))
    if args.quiet:
        return
    lines = [text_reporter.summary(findings)] if fmt == "text" and not run.unwritten else []
    if args.report_unused_noqa and run.unused_noqa:
        lines.append(f"Found {_count(len(run.unused_noqa), 'unused noqa comment')}.")
    if run.fixed:
        lines.append(f"Fixed {_count(run.fixed, 'finding')} in {_count(run.fixed_files, 'file')}.")
    if hidden:
        lines.append(f"{_count(hidden, 'known finding')} hidden by the baseline {escape_controls(str(args.baseline))}.")
    if fmt == "text":
        write(stream, "".join(line + "\n" for line in lines))
    else:
        write(sys.stderr, "".join(f"{PROG}: note: {line}\n" for line in lines))


def statistics(findings: Sequence[Finding]) -> str:
    """One line per rule with findings, most frequent first: ``3  AIG301  captured-tensor  [error]``."""
    counts = Counter((finding.code, finding.name, finding.severity.value) for finding in findings)
    if not counts:
        return ""
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    number = len(str(rows[0][1]))
    name = max(len(key[1]) for key, _ in rows)
    return "".join(
        f"{count:>{number}}  {code}  {rule:<{name}}  [{severity}]\n" for (code, rule, severity), count in rows
    )


def _place(unused: UnusedNoqa) -> tuple[str, int, int]:
    return (unused.path, unused.line, unused.column)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun if number == 1 else noun + 's'}"


def _source_lines(findings: Iterable[Finding], origins: dict[str, str | bytes]) -> dict[str, list[str]]:
    """The lines of each file with findings, re-read only for the excerpt (a TTY run)."""
    lines: dict[str, list[str]] = {}
    for path in {finding.path for finding in findings}:
        origin = origins.get(path, path)
        if isinstance(origin, str) and not os.path.isfile(origin):
            continue  # a FIFO or a device (AIG900) is never opened, not even for an excerpt
        try:
            data = origin if isinstance(origin, bytes) else _head(Path(origin))
            lines[path] = split_lines(decode_source(data))
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            continue  # AIG900 files: the finding already says why; no excerpt.
    return lines


#: Of a file too large to analyse (its AIG900 is on line 1), the excerpt reads only this much.
_EXCERPT_HEAD = 64 * 1024


def _head(path: Path) -> bytes:
    """The file's bytes, or the first lines of one too large to analyse."""
    with path.open("rb") as stream:
        if os.fstat(stream.fileno()).st_size <= MAX_FILE_BYTES:
            return stream.read()
        head = stream.read(_EXCERPT_HEAD)
    return head[: head.rfind(b"\n") + 1] or head


def _use_color(stream: TextIO) -> bool:
    """ANSI colour on a terminal; ``NO_COLOR`` turns it off and ``FORCE_COLOR`` on,
    in that order of precedence, as CPython's own colouring does."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return os.environ.get("TERM") != "dumb" and is_tty(stream)
