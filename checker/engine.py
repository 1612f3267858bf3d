"""The engine: one file in, findings out.

It reads bytes, applies the text pre-filter, decodes (PEP 263), parses once with
libcst, builds the module's facts once and runs every selected rule over them. Any
failure to read or parse becomes an AIG900 finding and the run goes on; a crash of
the checker itself is returned as ``internal_error`` so the caller can say so and
exit 2 without losing the other files' findings.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from checker.findings import Finding, Severity
from checker.noqa import NoqaIndex
from checker.rules import Rule
from checker.rules.aig900_parse_error import ParseError

#: A file that does not contain this text cannot register anything.
PREFILTER = b"allow_in_graph"
#: Files larger than this are reported (AIG900) rather than parsed.
MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class FileReport:
    """What checking one file produced."""

    path: str
    findings: tuple[Finding, ...] = ()
    parsed: bool = False
    internal_error: str | None = None
    suppressed: int = field(default=0, compare=False)


def check_path(path: Path, rules: Sequence[Rule], display_path: str | None = None) -> FileReport:
    """Check one file on disk; unreadable files become AIG900."""
    shown = display_path or str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return _unanalysable(shown, rules, f"cannot read the file: {reason}")
    return check_source(data, shown, rules)


def check_source(data: bytes, path: str, rules: Sequence[Rule]) -> FileReport:
    """Check the bytes of one Python file, shown as ``path`` in findings."""
    if PREFILTER not in data:
        return FileReport(path)
    if len(data) > MAX_FILE_BYTES:
        size = len(data) / (1024 * 1024)
        limit = MAX_FILE_BYTES // (1024 * 1024)
        return _unanalysable(
            path, rules, f"the file is {size:.1f} MiB, larger than the {limit} MiB analysis limit; it was not checked"
        )
    try:
        text = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return _unanalysable(path, rules, f"cannot decode the file: {error}")
    try:
        return _check_text(text, path, rules)
    except RecursionError:
        return _unanalysable(path, rules, "the file is nested too deeply to analyse")
    except Exception:  # noqa: BLE001 - a checker bug must not stop the run
        return FileReport(path, internal_error=traceback.format_exc())


def decode_source(data: bytes) -> str:
    """Decode like the interpreter does: BOM, then a PEP 263 cookie, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def _check_text(text: str, path: str, rules: Sequence[Rule]) -> FileReport:
    import libcst as cst  # imported lazily: most files never get here

    from checker.facts.module import ModuleFacts
    from checker.positions import locate

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        message, line, column = _syntax_error(text, error)
        return _unanalysable(path, rules, f"syntax error: {message}", line, column)
    facts = ModuleFacts(module, path)
    raw = [(rule, report) for rule in rules for report in rule.check(facts)]
    if not raw:
        return FileReport(path, parsed=True)
    spans = locate(module, [node for _, report in raw for node in (report.node, *report.cited)])
    noqa = NoqaIndex.from_text(text)
    findings: set[Finding] = set()
    suppressed = 0
    for rule, report in raw:
        (line, column), (end_line, end_column) = spans[report.node]
        finding = Finding(
            path, line, column, end_line, end_column, rule.code, rule.name, rule.severity,
            report.render(lambda node: spans[node][0][0]),
        )
        if noqa.suppresses(line, rule.code, rule.name):
            suppressed += 1
        else:
            findings.add(finding)
    return FileReport(path, tuple(sorted(findings)), parsed=True, suppressed=suppressed)


def _syntax_error(text: str, error: Exception) -> tuple[str, int, int]:
    """Message and 1-based position of a syntax error, in the interpreter's words when it agrees.

    libcst's reported position can be a line late; CPython's parser pinpoints the
    token. Syntax newer than this interpreter fails only in libcst, so its own
    message is the fallback.
    """
    try:
        ast.parse(text)
    except SyntaxError as python_error:
        if python_error.lineno is not None:
            return python_error.msg, python_error.lineno, python_error.offset or 1
    except (ValueError, RecursionError, MemoryError):
        pass
    message = str(getattr(error, "message", error)).strip()
    match = re.search(r"error at (\d+):(\d+)", message)
    if match:
        return message, int(match.group(1)), int(match.group(2))
    return message, getattr(error, "editor_line", 1), getattr(error, "editor_column", 1)


def _unanalysable(path: str, rules: Sequence[Rule], reason: str, line: int = 1, column: int = 1) -> FileReport:
    if not any(isinstance(rule, ParseError) for rule in rules):
        return FileReport(path)
    finding = Finding(
        path, line, column, line, column, ParseError.code, ParseError.name, Severity.ERROR, f"{reason}"
    )
    return FileReport(path, (finding,))
