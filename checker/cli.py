"""The ``aigcheck`` command line.

Settings come from ``[tool.aigcheck]`` in the nearest ``pyproject.toml``
(:mod:`checker.config`), overridden by the options; rules are chosen as
:mod:`checker.selection` describes.

Exit status: 0 when nothing at or above ``--fail-on`` (default ``warning``) was found,
1 when something was (or, with ``--report-unused-noqa``, a suppression comment is
unused; with ``--diff``, when there is something to fix), 2 for a usage or
configuration error or when the checker itself failed on a file (the other files are
still checked and every finding is still printed). ``--exit-zero`` turns 1 into 0.

Findings go to stdout; warnings, notes and internal errors go to stderr, so a machine
format (``json``, ``sarif``, ``github``) leaves stdout parseable: with one, what the
text format adds after the findings (unused suppressions, statistics) goes to stderr.
The checked tree is only ever read, except that ``--fix`` writes fixed files back.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TextIO

from checker import __version__
from checker.baseline import BaselineError, load_baseline, write_baseline
from checker.config import Config, ConfigError, discover_config, load_config
from checker.discovery import DEFAULT_EXCLUDES, STDIN, DiscoveryProblem, MissingPathError, Source, discover
from checker.engine import FileReport, check_path, check_source, decode_source
from checker.findings import Finding, Severity
from checker.noqa import UnusedNoqa
from checker.reporters import REPORTERS, RenderOptions
from checker.reporters import text as text_reporter
from checker.reporters.text import split_lines
from checker.rules import Rule
from checker.selection import Catalogue, Layer, Selection, SelectionError, resolve_selection

PROG = "aigcheck"
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
#: Findings at or above this severity make the exit status 1, unless ``--fail-on`` says otherwise.
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
    except (UsageError, SelectionError, MissingPathError, ConfigError, BaselineError) as error:
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
        epilog="Exit status: 0 clean, 1 findings at or above --fail-on (default: warning), "
        "2 usage, configuration or internal error. Settings are read from [tool.aigcheck] "
        "in the nearest pyproject.toml; options override them.",
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
        help="how findings are printed (default: text, or output-format in the configuration)",
    )
    rules = parser.add_argument_group("rule selection (codes, names or code prefixes, comma-separated)")
    rules.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="the rules to run, replacing the configuration's choice (default: every rule that is on by default)",
    )
    rules.add_argument("--extend-select", action="append", default=[], metavar="CODES", help="rules to run as well")
    rules.add_argument(
        "--ignore", action="append", default=[], metavar="CODES", help="rules not to run; wins over --select"
    )
    rules.add_argument(
        "--doc-strict",
        action="store_true",
        default=None,
        help="also run the documented-only rules (AIG105), like doc-strict = true",
    )
    config = parser.add_argument_group("configuration")
    files = config.add_mutually_exclusive_group()
    files.add_argument("--config", metavar="FILE", help="read [tool.aigcheck] from FILE instead of searching for it")
    files.add_argument(
        "--isolated", "--no-config", dest="isolated", action="store_true", help="ignore every configuration file"
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="skip files and directories matching this glob while walking directories "
        "(added to the defaults such as .venv and build; files named explicitly are checked unless --force-exclude)",
    )
    parser.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the excludes to files named explicitly too (for pre-commit, which names every file)",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name findings use for source read from '-' (default: <stdin>)",
    )
    status = parser.add_argument_group("exit status")
    status.add_argument(
        "--fail-on",
        choices=[severity.value for severity in Severity],
        help="the least severity that makes the exit status 1 (default: warning)",
    )
    status.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    output = parser.add_argument_group("output")
    source = output.add_mutually_exclusive_group()
    source.add_argument(
        "--show-source",
        dest="show_source",
        action="store_true",
        default=None,
        help="show the source line under each finding (default: on for a terminal)",
    )
    source.add_argument("--no-show-source", dest="show_source", action="store_false")
    output.add_argument("--statistics", action="store_true", help="count the findings of each rule after them")
    output.add_argument(
        "--report-unused-noqa",
        action="store_true",
        help="report '# noqa' comments that suppress nothing (they make the exit status 1)",
    )
    output.add_argument("-q", "--quiet", action="store_true", help="print findings only: no summary line and no notes")
    fixing = parser.add_argument_group("fixes and baselines")
    fixing.add_argument("--fix", action="store_true", help="apply the fixes of fixable rules, writing the files back")
    fixing.add_argument("--diff", action="store_true", help="print what --fix would change as a diff; write nothing")
    baseline = fixing.add_mutually_exclusive_group()
    baseline.add_argument("--baseline", metavar="FILE", help="hide the findings recorded in FILE")
    baseline.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0")
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


@dataclass(frozen=True)
class Settings:
    """The configuration file merged with the options: what one run does."""

    config: Config
    selection: Selection
    output_format: str
    fail_on: Severity


def settings(args: argparse.Namespace, paths: Sequence[str]) -> Settings:
    """The options over the configuration; :class:`ConfigError` or :class:`SelectionError` if unusable."""
    if args.isolated:
        config = Config()
    elif args.config is not None:
        config = load_config(Path(args.config))
    else:
        config = discover_config(paths, args.stdin_filename)
    layers = [
        Layer(config.select, config.extend_select, config.ignore, origin=f"{config.shown}: [tool.aigcheck] "),
        Layer(args.select, args.extend_select, args.ignore),
    ]
    selection = resolve_selection(layers, doc_strict=bool(args.doc_strict or config.doc_strict))
    fail_on = Severity(args.fail_on) if args.fail_on is not None else config.fail_on or FAIL_ON
    return Settings(config, selection, args.output_format or config.output_format or "text", fail_on)


@dataclass
class _Run:
    """What checking the files produced, gathered for the report."""

    findings: list[Finding] = field(default_factory=list)
    unused_noqa: list[UnusedNoqa] = field(default_factory=list)
    failed: bool = False
    fixed: int = 0
    fixed_files: int = 0
    diffs: list[str] = field(default_factory=list)
    #: With ``--fix`` on '-': the bytes to print instead of the findings.
    stdin_source: bytes | None = None
    #: Where each shown path came from, to quote its lines later: a file's real path
    #: (the shown one may be normalised), or the bytes read from stdin.
    origins: dict[str, str | bytes] = field(default_factory=dict)


def _check(args: argparse.Namespace) -> int:
    paths: list[str] = args.paths or ["."]
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
            _write(sys.stderr, f"{PROG}: note: {note}\n")
    # Read the baseline before the run, so that a bad file stops it at once.
    baseline = load_baseline(Path(args.baseline)) if args.baseline is not None else None
    # discover() checks that every path exists before yielding anything, so a
    # mistyped path stops the run before any output.
    items = discover(paths, [*config.name_excludes(), *args.exclude], args.stdin_filename or "<stdin>")
    run = _Run()
    for item in items:
        if isinstance(item, DiscoveryProblem):
            _write(sys.stderr, f"{PROG}: warning: {item}\n")
        elif item.path is None or not _excluded(item, args, config):
            _check_one(item, args, run_settings, run)
    if args.diff:
        return _finish_diff(args, run)
    hidden = 0
    if baseline is not None:
        run.findings, known = baseline.split(run.findings)
        hidden = len(known)
    if args.write_baseline is not None:
        return _write_baseline(args, run)
    stream = sys.stdout
    if run.stdin_source is not None:
        # '-' with --fix: the source goes to stdout, for an editor to take; the report to stderr.
        _write_bytes(sys.stdout, run.stdin_source)
        stream = sys.stderr
    _report(stream, args, run_settings, run, hidden)
    if run.failed:
        return EXIT_ERROR
    failing = any(finding.severity.at_least(run_settings.fail_on) for finding in run.findings)
    if args.exit_zero or not (failing or run.unused_noqa):
        return EXIT_CLEAN
    return EXIT_FINDINGS


def _check_one(source: Source, args: argparse.Namespace, run_settings: Settings, run: _Run) -> None:
    rules = _rules_for(source, args, run_settings)
    fix = args.fix or args.diff
    unused = args.report_unused_noqa
    data: bytes | None = None
    if source.path is None:
        data = sys.stdin.buffer.read()
        run.origins[source.display] = data
        report = check_source(data, source.display, rules, fix=fix, unused_noqa=unused)
    else:
        run.origins[source.display] = source.path
        report = check_path(Path(source.path), rules, display_path=source.display, fix=fix, unused_noqa=unused)
    if report.internal_error is not None:
        run.failed = True
        _write(sys.stderr, f"{PROG}: internal error while checking {report.path}:\n{report.internal_error}")
        if not report.internal_error.endswith("\n"):
            _write(sys.stderr, "\n")
    run.findings.extend(report.findings)
    run.unused_noqa.extend(report.unused_noqa)
    if fix and report.fixed_source is not None:
        if _apply(source, data, report, args, run):
            run.fixed += report.fixed
            run.fixed_files += 1
    elif data is not None and args.fix and not args.diff:
        run.stdin_source = data  # nothing to fix: the source goes back unchanged


def _excluded(source: Source, args: argparse.Namespace, config: Config) -> bool:
    """Whether a file from discovery is excluded after all.

    Discovery applied the name patterns to what it walked; the configuration's
    anchored patterns (relative to its directory) are applied here. A file named
    explicitly is excluded only with ``--force-exclude``, by any pattern or default.
    """
    path = str(source.path)
    if not source.explicit:
        return config.excludes(path)
    if not args.force_exclude:
        return False
    shown = source.display.replace(os.sep, "/")
    names = [part for part in shown.split("/") if part not in ("", ".", "..")]
    patterns = [pattern.rstrip("/") or pattern for pattern in (*config.name_excludes(), *args.exclude)]
    return (
        config.excludes(path)
        or any(name in DEFAULT_EXCLUDES for name in names)
        or any(fnmatchcase(candidate, pattern) for pattern in patterns for candidate in (*names, shown))
    )


def _rules_for(source: Source, args: argparse.Namespace, run_settings: Settings) -> list[Rule]:
    """The selected rules less those ``per-file-ignores`` turns off for this file."""
    rules = list(run_settings.selection.rules)
    named = source.path if source.path is not None else args.stdin_filename
    if named is None:
        return rules
    ignored = run_settings.config.ignored_codes(named)
    return [rule for rule in rules if rule.code not in ignored]


def _apply(source: Source, data: bytes | None, report: FileReport, args: argparse.Namespace, run: _Run) -> bool:
    """Show (``--diff``) or write (``--fix``) one file's fixed source; whether that worked."""
    fixed = str(report.fixed_source)
    try:
        original = data if data is not None else Path(str(source.path)).read_bytes()
        new = fixed.encode(report.encoding)  # a BOM and a coding cookie's charset survive
        if args.diff:
            run.diffs.append(unified_diff(decode_source(original), fixed, source.display))
        elif data is not None:
            run.stdin_source = new
        else:
            Path(str(source.path)).write_bytes(new)
    except (OSError, SyntaxError, LookupError, UnicodeError) as error:
        run.failed = True
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        _write(sys.stderr, f"{PROG}: error: cannot write the fixes of {source.display}: {reason}\n")
        return False
    return True


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def unified_diff(before: str, after: str, path: str) -> str:
    """A unified diff of one file, as ``patch -p0`` reads it."""
    out = []
    for line in difflib.unified_diff(_LINE.findall(before), _LINE.findall(after), path, path):
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _finish_diff(args: argparse.Namespace, run: _Run) -> int:
    _write(sys.stdout, "".join(run.diffs))
    if not args.quiet and run.fixed:
        _write(sys.stderr, f"{PROG}: would fix {_count(run.fixed, 'finding')} in {_count(run.fixed_files, 'file')}\n")
    if run.failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if run.diffs and not args.exit_zero else EXIT_CLEAN


def _write_baseline(args: argparse.Namespace, run: _Run) -> int:
    if run.failed:
        _write(sys.stderr, f"{PROG}: error: not writing {args.write_baseline}: some files could not be checked\n")
        return EXIT_ERROR
    try:
        write_baseline(Path(args.write_baseline), run.findings)
    except OSError as error:
        raise UsageError(f"cannot write the baseline {args.write_baseline}: {error.strerror or error}") from None
    if not args.quiet:
        _write(sys.stderr, f"{PROG}: wrote {_count(len(run.findings), 'finding')} to {args.write_baseline}\n")
    return EXIT_CLEAN


def _report(stream: TextIO, args: argparse.Namespace, run_settings: Settings, run: _Run, hidden: int) -> None:
    """The findings in the chosen format, then what the text format adds after them."""
    findings = run.findings
    fmt = run_settings.output_format
    show_source = args.show_source if args.show_source is not None else _is_tty(stream)
    options = RenderOptions(
        show_source=show_source,
        source_lines=_source_lines(findings, run.origins) if show_source else {},
        summary=False,
    )
    if fmt == "text":
        _write(stream, text_reporter.render(findings, options, color=_use_color(stream)))
    else:
        _write(stream, REPORTERS[fmt](findings, options))
    # A machine format keeps its stream to itself; the rest goes to stderr.
    extra = stream if fmt == "text" else sys.stderr
    if args.report_unused_noqa:
        _write(extra, "".join(f"{unused}\n" for unused in sorted(run.unused_noqa, key=_place)))
    if args.statistics:
        _write(extra, statistics(findings))
    if args.quiet:
        return
    lines = [text_reporter.summary(findings)] if fmt == "text" else []
    if args.report_unused_noqa and run.unused_noqa:
        lines.append(f"Found {_count(len(run.unused_noqa), 'unused noqa comment')}.")
    if run.fixed:
        lines.append(f"Fixed {_count(run.fixed, 'finding')} in {_count(run.fixed_files, 'file')}.")
    if hidden:
        lines.append(f"{_count(hidden, 'known finding')} hidden by the baseline {args.baseline}.")
    if fmt == "text":
        _write(stream, "".join(line + "\n" for line in lines))
    else:
        _write(sys.stderr, "".join(f"{PROG}: note: {line}\n" for line in lines))


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
        try:
            data = origin if isinstance(origin, bytes) else Path(origin).read_bytes()
            lines[path] = split_lines(decode_source(data))
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            continue  # AIG900 files: the finding already says why; no excerpt.
    return lines


def _use_color(stream: TextIO) -> bool:
    """ANSI colour on a terminal; ``NO_COLOR`` turns it off and ``FORCE_COLOR`` on,
    in that order of precedence, as CPython's own colouring does."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return os.environ.get("TERM") != "dumb" and _is_tty(stream)


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
    if not text:
        return
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
    stream.flush()


def _write_bytes(stream: TextIO, data: bytes) -> None:
    """Write source bytes as they are (their encoding is the file's, not the terminal's)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        _write(stream, data.decode("utf-8", "replace"))
        return
    stream.flush()
    buffer.write(data)
    buffer.flush()
