"""The ``text`` format: one line per finding, optional source excerpts, a summary.

``path:line:col: AIG301 [error] message`` is the shape editors and CI log parsers
already understand (it is what flake8 and ruff print). With ``show_source`` (the
CLI turns it on for a terminal) each finding is followed by its source line and a
caret line under the reported span. With ``color`` (the CLI turns it on for a
terminal, unless ``NO_COLOR`` is set) paths are bold and severities, codes and carets
are coloured with ANSI escapes; other formats are never coloured. Control characters in
a path, a message or a source excerpt are shown escaped (``\\n``, ``\\x1b``, ``\\u202e``):
one finding is one line, and nothing of the checked files drives the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from checker.output.reporters.base import DEFAULT_OPTIONS, RenderOptions, escape_controls, ordered
from checker.spec.findings import Finding, Severity

# Python ends lines with \n, \r\n or \r only; str.splitlines() also splits on form
# feeds and other separators, which would shift every later line number.
_LINE_END = re.compile(r"\r\n|\r|\n")

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
#: Severity colours: red, yellow, cyan, each bold.
_SEVERITY_COLORS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.INFO: "\033[1;36m"}


def render(findings: Iterable[Finding], options: RenderOptions = DEFAULT_OPTIONS, /, *, color: bool = False) -> str:
    """The findings as text, ending in a newline (or empty when there is nothing to say)."""
    findings = ordered(findings)
    out: list[str] = []
    for finding in findings:
        out.append(format_finding(finding, color=color))
        if options.show_source:
            excerpt = _excerpt(finding, options.source_lines.get(finding.path), color)
            if excerpt:
                out.extend(excerpt)
                out.append("")
    if options.summary:
        out.append(summary(findings))
    return "".join(line + "\n" for line in out)


def format_finding(finding: Finding, *, color: bool = False) -> str:
    """``path:line:col: CODE [severity] message``, on one line whatever the path holds."""
    path, message = escape_controls(finding.path), escape_controls(finding.message)
    if not color:
        return f"{path}:{finding.line}:{finding.column}: {finding.code} [{finding.severity.value}] {message}"
    hue = _SEVERITY_COLORS[finding.severity]
    return (
        f"{_BOLD}{path}{_RESET}:{finding.line}:{finding.column}: {_BOLD}{finding.code}{_RESET} "
        f"{hue}[{finding.severity.value}]{_RESET} {message}"
    )


def summary(findings: Sequence[Finding]) -> str:
    """``Found 3 findings (2 errors, 1 warning) in 2 files.`` or ``No findings.``"""
    if not findings:
        return "No findings."
    counts = {severity: 0 for severity in Severity}
    for finding in findings:
        counts[finding.severity] += 1
    parts = [
        _count(counts[severity], severity.value)
        for severity in sorted(Severity, key=lambda s: s.rank, reverse=True)
        if counts[severity]
    ]
    files = len({finding.path for finding in findings})
    return f"Found {_count(len(findings), 'finding')} ({', '.join(parts)}) in {_count(files, 'file')}."


def split_lines(text: str) -> list[str]:
    """The lines of a source as Python numbers them (line 1 is index 0)."""
    return _LINE_END.split(text)


def _count(number: int, noun: str) -> str:
    # "info" is a mass noun: "2 info", like "2 errors, 1 warning".
    plural = noun if number == 1 or noun == Severity.INFO.value else noun + "s"
    return f"{number} {plural}"


def _excerpt(finding: Finding, lines: Sequence[str] | None, color: bool = False) -> list[str]:
    """The source line of ``finding`` with carets under its span, gutter-numbered.

    The line is the analysed file's, so its control characters are shown escaped, and the
    carets are placed under the escaped text; tabs are kept, as they are harmless and the
    carets line up under them in a terminal.
    """
    if lines is None or not 1 <= finding.line <= len(lines):
        return []
    source = lines[finding.line - 1].rstrip("\r\n")
    start = max(finding.column, 1)
    if finding.end_line == finding.line and finding.end_column > start:
        end = finding.end_column
    elif finding.end_line > finding.line:
        # A span over several lines: underline to the end of its first line.
        end = max(len(source) + 1, start + 1)
    else:
        end = start + 1
    # Carets under the escaped span, and one per column the span reaches past the line's end.
    spanned = source[start - 1 : end - 1]
    indent = "".join(ch if ch == "\t" else " " for ch in _shown(source[: start - 1]))
    indent += " " * max(0, start - 1 - len(source))
    gutter = str(finding.line)
    pad = " " * len(gutter)
    carets = "^" * (len(_shown(spanned)) + end - start - len(spanned))
    shown = _shown(source)
    if color:
        hue = _SEVERITY_COLORS[finding.severity]
        return [f"{_DIM} {gutter} |{_RESET} {shown}", f"{_DIM} {pad} |{_RESET} {indent}{hue}{carets}{_RESET}"]
    return [f" {gutter} | {shown}", f" {pad} | {indent}{carets}"]


def _shown(source: str) -> str:
    return escape_controls(source, keep="\t")
