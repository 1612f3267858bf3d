"""What every reporter shares: its signature, its options and the order of findings.

A reporter is a pure function of the findings (and of the source lines it may quote):
it returns the whole output as one string and never writes anywhere itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from checker.findings import Finding


@dataclass(frozen=True)
class RenderOptions:
    """How to render. Formats ignore what does not apply to them.

    ``source_lines`` maps a finding's path to the lines of its file, for the source
    excerpt shown under each finding when ``show_source`` is set. ``summary`` turns
    the closing count line of the text format on or off.
    """

    show_source: bool = False
    source_lines: Mapping[str, Sequence[str]] = field(default_factory=dict)
    summary: bool = True


#: The defaults, shared so that a default argument never builds a new object.
DEFAULT_OPTIONS = RenderOptions()


class Reporter(Protocol):
    """A function from findings to the complete output of one run."""

    def __call__(self, findings: Iterable[Finding], options: RenderOptions = ..., /) -> str: ...


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Findings in the stable output order: path, line, column, code.

    The remaining fields only break ties, so two runs over the same tree always
    print the same bytes.
    """
    return sorted(
        findings,
        key=lambda f: (f.path, f.line, f.column, f.code, f.end_line, f.end_column, f.message),
    )


#: What ends a line or drives a terminal: C0 and C1 controls, DEL, the line and paragraph separators.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with each control character (but those in ``keep``) written as a Python
    string literal writes it: ``\\n``, ``\\t``, ``\\x1b``, ``\\u2028``.

    A line-oriented format shows file names this way (the JSON and SARIF formats escape
    them their own way), so a name holding a newline cannot split a finding in two and
    one holding an escape sequence cannot drive the reader's terminal.
    """
    return _CONTROLS.sub(lambda found: found[0] if found[0] in keep else repr(found[0])[1:-1], text)
