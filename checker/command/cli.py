"""The ``aigcheck`` command line.

Settings come from ``[tool.aigcheck]`` in the nearest ``pyproject.toml``
(:mod:`checker.configuration.config`), overridden by the options; rules are chosen as
:mod:`checker.configuration.selection` describes.

Exit status: 0 when nothing at or above ``--fail-on`` (default ``warning``) was found,
1 when something was (or, with ``--report-unused-noqa``, a suppression comment is
unused; with ``--diff``, when there is something to fix), 2 for a usage or
configuration error or when the checker itself failed on a file (the other files are
still checked and every finding is still printed), or when stdout cannot be written
(closed, full: one line on stderr). ``--exit-zero`` turns 1 into 0. A reader of stdout
that goes away (``aigcheck . | head -1``) ends the run quietly with 141, as a shell
reports a command ended by SIGPIPE. Ctrl-C ends it with one line and 130, SIGTERM
with one line and 143 (:mod:`checker.command.interrupts`).

Findings go to stdout; warnings, notes and internal errors go to stderr, so a machine
format (``json``, ``sarif``, ``github``) leaves stdout parseable: with one, what the
text format adds after the findings (unused suppressions, statistics) goes to stderr.
The checked tree is only ever read, except that ``--fix`` writes fixed files back.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from checker import __version__
from checker.command.baseline import BaselineError
from checker.command.interrupts import ending, interruptible
from checker.command.run import EXIT_CLEAN, EXIT_ERROR, PROG, UsageError, check
from checker.command.streams import OutputError, silence_stdout, write
from checker.configuration.config import ConfigError
from checker.configuration.options import RunOptions
from checker.configuration.selection import Catalogue, SelectionError
from checker.output.reporters import REPORTERS
from checker.output.reporters.base import escape_controls
from checker.passes.cache import CACHE_DIR_NAME
from checker.reading.discovery import MissingPathError
from checker.spec.findings import Severity

#: The reader of stdout went away: the status a shell gives a command ended by SIGPIPE
#: (128 + 13), which is neither success nor "findings".
EXIT_READER_GONE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``aigcheck`` with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    with interruptible():
        try:
            return _main(argv)
        except KeyboardInterrupt as interrupt:
            line, status = ending(interrupt)
            write(sys.stderr, line)
            return status


def _main(argv: Sequence[str] | None) -> int:
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
            write(sys.stdout, list_rules())
            return EXIT_CLEAN
        if args.explain is not None:
            write(sys.stdout, explain(args.explain))
            return EXIT_CLEAN
        return check(options(args))
    except (UsageError, SelectionError, MissingPathError, ConfigError, BaselineError) as error:
        # The message may quote a path, a code or a key as written: escaped, on one line.
        write(sys.stderr, f"{PROG}: error: {escape_controls(str(error))}\n")
        return EXIT_ERROR
    except OutputError as error:
        # What stdout still holds must not fail again in the interpreter's final flush.
        silence_stdout()
        if error.reader_gone:  # ``aigcheck . | head -1``: the reader has what it wanted
            return EXIT_READER_GONE
        write(sys.stderr, f"{PROG}: error: {error}\n")
        return EXIT_ERROR


class _Parser(argparse.ArgumentParser):
    """argparse, with what it quotes of the command line (``unrecognized arguments: ...``)
    shown escaped."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {escape_controls(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (public so that documentation can be generated from it)."""
    parser = _Parser(
        prog=PROG,
        description="Check Python code against the torch.compiler.allow_in_graph contract.",
        epilog="Exit status: 0 clean, 1 findings at or above --fail-on (default: warning), "
        "2 usage, configuration or internal error, 130 interrupted, 141 the reader of stdout went away, "
        "143 terminated. Settings are read from [tool.aigcheck] in the nearest pyproject.toml; options override them.",
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
    imports = parser.add_argument_group("installed packages (read, never imported)")
    imports.add_argument(
        "--python-environment",
        metavar="PATH",
        help="the virtual environment (or site-packages folder) whose installed packages imports are resolved in "
        "(default: python-environment in the configuration, else $VIRTUAL_ENV, else .venv or venv at the project root)",
    )
    imports.add_argument(
        "--no-installed-packages",
        dest="installed_packages",
        action="store_false",
        default=None,
        help="resolve no import from installed packages, like installed-packages = false",
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
    speed = parser.add_argument_group("speed")
    speed.add_argument(
        "--jobs",
        "-j",
        type=_positive,
        metavar="N",
        help="check files in N processes (default: one per available core); "
        "capped at the available cores and the number of files to check",
    )
    speed.add_argument("--no-cache", action="store_true", help="neither read nor write the cache of per-file results")
    speed.add_argument(
        "--cache-dir",
        metavar="DIR",
        help=f"keep the cache in DIR (default: {CACHE_DIR_NAME} beside the configuration file, or here)",
    )
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument("--explain", metavar="CODE", help="show a rule's documentation (code or name) and exit")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def options(args: argparse.Namespace) -> RunOptions:
    """The parsed command line as the frozen options of one run."""
    return RunOptions(
        paths=tuple(args.paths),
        select=tuple(args.select) if args.select is not None else None,
        extend_select=tuple(args.extend_select),
        ignore=tuple(args.ignore),
        doc_strict=args.doc_strict,
        config=args.config,
        isolated=args.isolated,
        exclude=tuple(args.exclude),
        force_exclude=args.force_exclude,
        stdin_filename=args.stdin_filename,
        python_environment=args.python_environment,
        installed_packages=args.installed_packages,
        output_format=args.output_format,
        fail_on=args.fail_on,
        exit_zero=args.exit_zero,
        show_source=args.show_source,
        statistics=args.statistics,
        report_unused_noqa=args.report_unused_noqa,
        quiet=args.quiet,
        fix=args.fix,
        diff=args.diff,
        baseline=args.baseline,
        write_baseline=args.write_baseline,
        jobs=args.jobs,
        no_cache=args.no_cache,
        cache_dir=args.cache_dir,
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def list_rules() -> str:
    """A table of every code: implemented rules with their summary, planned codes marked."""
    from checker.rules import RULES_BY_CODE  # for the summaries; imported here, as the rules bring libcst

    rows = [(code, rule.name, rule.severity.value, rule.summary) for code, rule in RULES_BY_CODE.items()]
    planned = Catalogue.from_registry().planned
    rows += [(code, name, "planned", "Not implemented yet.") for code, name in planned.items()]
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
            "so it has no documentation yet (checker/spec/catalog.py reserves its code).\n"
        )
    from checker.rules import RULES_BY_CODE

    rule = RULES_BY_CODE[code]
    return f"{rule.code} {rule.name} ({rule.severity.value})\n\n{rule.documentation()}\n"
