"""The ``aigcheck`` command line.

Exit status: 0 when nothing at or above ``warning`` was found, 1 when something was,
2 for a usage error or when the checker itself failed on a file (the other files are
still checked and every finding is still printed). Findings go to stdout; warnings,
notes and internal errors go to stderr, so ``--output-format json`` leaves stdout
parseable. The checked tree is only ever read.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from checker import __version__
from checker.discovery import STDIN, DiscoveryProblem, MissingPathError, Source, discover
from checker.engine import FileReport, check_path, check_source, decode_source
from checker.findings import Finding, Severity
from checker.reporters import REPORTERS, RenderOptions
from checker.reporters.text import split_lines
from checker.rules import Rule
from checker.selection import Catalogue, SelectionError, select_rules

PROG = "aigcheck"
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
#: Findings at or above this severity make the exit status 1.
FAIL_ON = Severity.WARNING


class UsageError(Exception):
    """A command line that cannot be carried out; reported as ``aigcheck: error: ...``."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``aigcheck`` with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        # argparse exits for --help, --version and malformed options; main() returns.
        if exit_.code is None:
            return EXIT_CLEAN
        return exit_.code if isinstance(exit_.code, int) else EXIT_ERROR
    try:
        if args.list_rules:
            _write(sys.stdout, list_rules())
            return EXIT_CLEAN
        if args.explain is not None:
            _write(sys.stdout, explain(args.explain))
            return EXIT_CLEAN
        return _check(args)
    except (UsageError, SelectionError, MissingPathError) as error:
        _write(sys.stderr, f"{PROG}: error: {error}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (``aigcheck . | head``): not worth a traceback. Point
        # stdout at devnull so that the interpreter's final flush does not fail again.
        _silence_stdout()
        return EXIT_ERROR


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (public so that documentation can be generated from it)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check Python code against the torch.compiler.allow_in_graph contract.",
        epilog="Exit status: 0 clean, 1 findings at or above warning, 2 usage or internal error.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories to check (default: .); '-' reads the source from stdin",
    )
    parser.add_argument(
        "--output-format",
        choices=sorted(REPORTERS),
        default="text",
        help="how findings are printed (default: text)",
    )
    parser.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="rules to run: codes, names or code prefixes, comma-separated (default: all)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="rules not to run, in the same form; wins over --select",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="skip files and directories matching this glob while walking directories "
        "(added to the defaults such as .venv and build; files named explicitly are always checked)",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name findings use for source read from '-' (default: <stdin>)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--show-source",
        dest="show_source",
        action="store_true",
        default=None,
        help="show the source line under each finding (default: on for a terminal)",
    )
    source.add_argument("--no-show-source", dest="show_source", action="store_false")
    parser.add_argument("-q", "--quiet", action="store_true", help="print findings only: no summary line and no notes")
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument("--explain", metavar="CODE", help="show a rule's documentation (code or name) and exit")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def list_rules() -> str:
    """A table of every code: implemented rules with their summary, planned codes marked."""
    catalogue = Catalogue.from_registry()
    rows = [(code, rule.name, rule.severity.value, rule.summary) for code, rule in catalogue.implemented.items()]
    rows += [(code, name, "planned", "Not implemented yet.") for code, name in catalogue.planned.items()]
    rows.sort()
    header = ("CODE", "NAME", "SEVERITY", "SUMMARY")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in [header, *rows]
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def explain(token: str) -> str:
    """The documentation of the rule ``token`` names; :class:`UsageError` if none."""
    catalogue = Catalogue.from_registry()
    code = catalogue.lookup(token)
    if code is None:
        raise UsageError(f"--explain: unknown rule '{token}'; {catalogue.choices(prefixes=False)}")
    if code in catalogue.planned:
        return (
            f"{code} ({catalogue.planned[code]}) is planned but not implemented yet, "
            "so it has no documentation; see DESIGN.md section 2 for what it will check.\n"
        )
    rule = catalogue.implemented[code]
    return f"{rule.code} {rule.name} ({rule.severity.value})\n\n{rule.documentation()}\n"


def _check(args: argparse.Namespace) -> int:
    paths: list[str] = args.paths or ["."]
    if args.stdin_filename is not None and STDIN not in paths:
        raise UsageError("--stdin-filename names the source read from '-'; add '-' to the paths")
    selection = select_rules(args.select, args.ignore)
    if not args.quiet:
        for note in selection.notes:
            _write(sys.stderr, f"{PROG}: note: {note}\n")
    rules = selection.rules
    # discover() checks that every path exists before yielding anything, so a
    # mistyped path stops the run before any output.
    items = discover(paths, args.exclude, args.stdin_filename or "<stdin>")
    findings: list[Finding] = []
    # Where each shown path came from, to quote its lines later: a file's real
    # path (the shown one may be normalised), or the bytes read from stdin.
    origins: dict[str, str | bytes] = {}
    internal_error = False
    for item in items:
        if isinstance(item, DiscoveryProblem):
            _write(sys.stderr, f"{PROG}: warning: {item}\n")
            continue
        report = _check_one(item, rules, origins)
        if report.internal_error is not None:
            internal_error = True
            _write(sys.stderr, f"{PROG}: internal error while checking {report.path}:\n{report.internal_error}")
            if not report.internal_error.endswith("\n"):
                _write(sys.stderr, "\n")
        findings.extend(report.findings)
    show_source = args.show_source if args.show_source is not None else _is_tty(sys.stdout)
    options = RenderOptions(
        show_source=show_source,
        source_lines=_source_lines(findings, origins) if show_source else {},
        summary=not args.quiet,
    )
    _write(sys.stdout, REPORTERS[args.output_format](findings, options))
    if internal_error:
        return EXIT_ERROR
    if any(finding.severity.at_least(FAIL_ON) for finding in findings):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _check_one(source: Source, rules: Sequence[Rule], origins: dict[str, str | bytes]) -> FileReport:
    if source.path is None:
        data = sys.stdin.buffer.read()
        origins[source.display] = data
        return check_source(data, source.display, rules)
    origins[source.display] = source.path
    return check_path(Path(source.path), rules, display_path=source.display)


def _source_lines(findings: Iterable[Finding], origins: dict[str, str | bytes]) -> dict[str, list[str]]:
    """The lines of each file with findings, re-read only for the excerpt (a TTY run)."""
    lines: dict[str, list[str]] = {}
    for path in {finding.path for finding in findings}:
        origin = origins.get(path, path)
        try:
            data = origin if isinstance(origin, bytes) else Path(origin).read_bytes()
            lines[path] = split_lines(decode_source(data))
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            continue  # AIG900 files: the finding already says why; no excerpt.
    return lines


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file descriptor (captured output): nothing will flush to it


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _write(stream: TextIO, text: str) -> None:
    """Write ``text``, escaping what the stream's encoding cannot show.

    File names need not be valid Unicode on POSIX; such a name must not crash the
    report of every other file.
    """
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
    stream.flush()
