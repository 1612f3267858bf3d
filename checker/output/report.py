"""The report of a run as text: the findings in the chosen format, then what the text
format adds after them (unused suppressions, statistics, the summary lines).

:func:`render_run` builds it, a pure function of what the run found and did but for the
source lines it quotes under findings (read here, only for that excerpt); the command
line writes the two texts it gives, and decides what depends on the terminal (colour,
whether to quote source).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from checker.output.noqa import UnusedNoqa
from checker.output.reporters import REPORTERS, RenderOptions
from checker.output.reporters import text as text_reporter
from checker.output.reporters.base import escape_controls
from checker.output.reporters.text import split_lines
from checker.reading.source import MAX_FILE_BYTES, decode_source
from checker.spec.findings import Finding

#: Of a file too large to analyse (its AIG900 is on line 1), the excerpt reads only this much.
_EXCERPT_HEAD = 64 * 1024


@dataclass(frozen=True)
class Rendering:
    """How the report of a run is written (the options over the configuration)."""

    output_format: str = "text"
    #: The source line under each finding; None: on for a terminal.
    show_source: bool | None = None
    statistics: bool = False
    unused_noqa: bool = False
    #: Findings only: no summary line and no notes.
    quiet: bool = False


@dataclass(frozen=True)
class Tally:
    """What the run did besides finding, for the summary lines."""

    fixed: int = 0
    fixed_files: int = 0
    #: Known findings the baseline hid, and the baseline's name as given.
    hidden: int = 0
    baseline: str | None = None
    #: Files whose fixes were not written: the findings those fixes would have resolved
    #: are in no list, so no summary of findings is printed.
    unwritten: int = 0


@dataclass(frozen=True)
class RenderedRun:
    """The report: ``report`` for the stream findings go to, ``notes`` for stderr (what a
    machine format keeps off its stream)."""

    report: str
    notes: str


def render_run(
    findings: Sequence[Finding],
    unused_noqa: Sequence[UnusedNoqa],
    rendering: Rendering,
    tally: Tally = Tally(),
    *,
    prog: str,
    color: bool = False,
    show_source: bool = False,
    origins: Mapping[str, str | bytes] | None = None,
) -> RenderedRun:
    """The report of a run. ``show_source``: quote each finding's line, read from
    ``origins`` (a shown path's real path, or the bytes read from standard input; the
    shown path itself when absent)."""
    fmt = rendering.output_format
    options = RenderOptions(
        show_source=show_source,
        source_lines=_source_lines(findings, origins or {}) if show_source else {},
        summary=False,
    )
    shown = text_reporter.render(findings, options, color=color) if fmt == "text" else REPORTERS[fmt](findings, options)
    after: list[str] = []  # what the text format adds after the findings
    if rendering.unused_noqa:
        after.append("".join(f"{escape_controls(str(unused))}\n" for unused in sorted(unused_noqa, key=_place)))
    if rendering.statistics:
        after.append(statistics(findings))
    lines = [] if rendering.quiet else _summary(findings, unused_noqa, rendering, tally)
    if fmt == "text":
        return RenderedRun(shown + "".join(after) + "".join(line + "\n" for line in lines), "")
    # A machine format keeps its stream to itself; the rest goes to stderr.
    return RenderedRun(shown, "".join(after) + "".join(f"{prog}: note: {line}\n" for line in lines))


def _summary(
    findings: Sequence[Finding], unused_noqa: Sequence[UnusedNoqa], rendering: Rendering, tally: Tally
) -> list[str]:
    lines = [text_reporter.summary(findings)] if rendering.output_format == "text" and not tally.unwritten else []
    if rendering.unused_noqa and unused_noqa:
        lines.append(f"Found {count(len(unused_noqa), 'unused noqa comment')}.")
    if tally.fixed:
        lines.append(f"Fixed {count(tally.fixed, 'finding')} in {count(tally.fixed_files, 'file')}.")
    if tally.hidden:
        baseline = escape_controls(str(tally.baseline))
        lines.append(f"{count(tally.hidden, 'known finding')} hidden by the baseline {baseline}.")
    return lines


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


def count(number: int, noun: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{number} {noun if number == 1 else noun + 's'}"


def _place(unused: UnusedNoqa) -> tuple[str, int, int]:
    return (unused.path, unused.line, unused.column)


def _source_lines(findings: Iterable[Finding], origins: Mapping[str, str | bytes]) -> dict[str, list[str]]:
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


def _head(path: Path) -> bytes:
    """The file's bytes, or the first lines of one too large to analyse."""
    with path.open("rb") as stream:
        if os.fstat(stream.fileno()).st_size <= MAX_FILE_BYTES:
            return stream.read()
        head = stream.read(_EXCERPT_HEAD)
    return head[: head.rfind(b"\n") + 1] or head
