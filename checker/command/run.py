"""Carrying out one ``aigcheck`` run: check the files, fix or diff them, report.

:mod:`checker.command.cli` turns the command line into :class:`~checker.configuration.options.RunOptions`;
this module builds the run's one :class:`~checker.configuration.settings.Settings` from them and
the configuration, has :func:`checker.api.check_paths` check the files, applies
``--fix``/``--diff`` and baselines, and writes the report (:func:`checker.output.report.render_run`,
through :mod:`checker.command.streams`) with the exit status. The command line ends here.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from checker.api import PathsReport, check_paths
from checker.command.baseline import load_baseline, write_baseline
from checker.command.progress import Progress
from checker.command.streams import is_tty, write, write_bytes
from checker.configuration.options import RunOptions
from checker.configuration.settings import Settings, settings
from checker.output import atomic
from checker.output.diffs import unified_diff
from checker.output.noqa import UnusedNoqa
from checker.output.report import Tally, count, render_run
from checker.output.reporters.base import escape_controls
from checker.passes.engine import FileReport
from checker.reading.discovery import STDIN
from checker.reading.source import decode_source, read_source
from checker.spec.findings import Finding

PROG = "aigcheck"
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A command line that cannot be carried out; reported as ``aigcheck: error: ...``."""


@dataclass
class _Run:
    """What the run did with the reports, gathered for the report."""

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
    """Carry out the run ``args`` ask for; its exit status. Below here, only the
    :class:`~checker.configuration.settings.Settings` built from them travel."""
    paths: list[str] = list(args.paths) or ["."]
    if args.stdin_filename is not None and STDIN not in paths:
        raise UsageError("--stdin-filename names the source read from '-'; add '-' to the paths")
    if args.fix and not args.diff and STDIN in paths and len(set(paths)) > 1:
        raise UsageError("--fix on '-' prints the fixed source instead of findings; check '-' on its own")
    if args.write_baseline is not None and args.diff:
        raise UsageError("--write-baseline records findings, --diff prints fixes; use one at a time")
    run_settings = settings(args)
    if not args.quiet:
        for note in run_settings.selection.notes:
            write(sys.stderr, f"{PROG}: note: {note}\n")
    # Read the baseline before the run, so that a bad file stops it at once.
    baseline = load_baseline(Path(args.baseline)) if args.baseline is not None else None
    progress = Progress(sys.stderr) if not args.quiet and is_tty(sys.stderr) else None
    checked = check_paths(
        paths,
        settings=run_settings,
        jobs=args.jobs,
        cache=False if args.no_cache else args.cache_dir if args.cache_dir is not None else True,
        fix=args.fixing,
        unused_noqa=args.report_unused_noqa,
        progress=progress,
        on_walked=_warn,
    )
    if progress is not None:
        progress.clear()
    run = _Run()
    _take(checked, args, run)
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


def _warn(walked: PathsReport) -> None:
    """Say what could not be used or walked, before the run checks any file."""
    if walked.refused_cache is not None:
        write(
            sys.stderr,
            f"{PROG}: warning: {escape_controls(walked.refused_cache)} is a symbolic link; the cache is off for this run"
            " (remove the link, or name a folder with --cache-dir)\n",
        )
    for problem in walked.problems:
        write(sys.stderr, f"{PROG}: warning: {escape_controls(str(problem))}\n")


def _take(checked: PathsReport, args: RunOptions, run: _Run) -> None:
    """Take each file's report into the run."""
    for file in checked.files:
        data = checked.stdin if file.path is None else None
        if file.path is not None:
            run.origins[file.report.path] = file.path
        elif data is not None:
            run.origins[file.report.path] = data
        _absorb(file.path, data, file.report, args, run)


def _absorb(path: str | None, data: bytes | None, report: FileReport, args: RunOptions, run: _Run) -> None:
    """Take one file's report into the run: errors, findings, fixes. ``path``: where the
    file was read (None: ``data``, from standard input)."""
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
        if _apply(path, data, report, args, run):
            run.fixed += report.fixed
            run.fixed_files += 1
    elif data is not None and args.fix and not args.diff:
        run.stdin_source = data  # nothing to fix: the source goes back unchanged


def _apply(path: str | None, data: bytes | None, report: FileReport, args: RunOptions, run: _Run) -> bool:
    """Show (``--diff``) or write (``--fix``) one file's fixed source; whether that worked.

    A file on disk is diffed or written only while it holds the bytes the fix was
    computed from: one saved since it was read is skipped, and says so."""
    fixed = str(report.fixed_source)
    shown = escape_controls(report.path)
    try:
        new = fixed.encode(report.encoding)  # a BOM and a coding cookie's charset survive
        if args.diff:
            original = data if data is not None else _unchanged(Path(str(path)), report.fixed_from)
            run.diffs.append(unified_diff(decode_source(original), fixed, report.path))
        elif data is not None:
            run.stdin_source = new
        else:
            atomic.replace_file(str(path), new, expected=report.fixed_from)
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
        write(sys.stderr, f"{PROG}: would fix {count(run.fixed, 'finding')} in {count(run.fixed_files, 'file')}\n")
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
        write(sys.stderr, f"{PROG}: wrote {count(len(run.findings), 'finding')} to {shown}\n")
    return EXIT_CLEAN


def _report(stream: TextIO, args: RunOptions, run_settings: Settings, run: _Run, hidden: int) -> None:
    """The report, on ``stream``, and what a machine format keeps off it, on stderr."""
    rendering = run_settings.rendering
    tally = Tally(run.fixed, run.fixed_files, hidden, args.baseline, run.unwritten)
    rendered = render_run(
        run.findings,
        run.unused_noqa,
        rendering,
        tally,
        prog=PROG,
        color=rendering.output_format == "text" and _use_color(stream),
        show_source=rendering.show_source if rendering.show_source is not None else is_tty(stream),
        origins=run.origins,
    )
    write(stream, rendered.report)
    write(sys.stderr, rendered.notes)


def _use_color(stream: TextIO) -> bool:
    """ANSI colour on a terminal; ``NO_COLOR`` turns it off and ``FORCE_COLOR`` on,
    in that order of precedence, as CPython's own colouring does."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return os.environ.get("TERM") != "dumb" and is_tty(stream)
