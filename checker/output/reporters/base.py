"""What every reporter shares: its signature, its options and the order of findings.

A reporter is a pure function of the findings (and of the source lines it may quote):
it returns the whole output as one string and never writes anywhere itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from checker.spec.findings import Finding


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
    """Findings in the stable output order, :meth:`Finding.sort_key` (the engine's too):
    path, line, column, code, with the end and the message breaking ties, so two runs
    over the same tree always print the same bytes.
    """
    return sorted(findings, key=Finding.sort_key)


#: What ends a line, drives a terminal or reorders what it shows: C0 and C1 controls, DEL,
#: the line and paragraph separators, the bidirectional embeddings, overrides and isolates
#: (U+202A-U+202E, U+2066-U+2069: the "trojan source" characters, which make a line read
#: otherwise than it runs), and lone surrogates (the undecodable bytes of a file name).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with each control character (but those in ``keep``) written as a Python
    string literal writes it: ``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``; a byte that
    was not valid in a file name's encoding (a surrogate escape) as that byte: ``\\xff``.

    Every name and text that reaches a terminal goes through here (source excerpts,
    file names, settings echoed in an error), so that a name holding a newline cannot
    split a finding in two and nothing read from the checked tree can drive the reader's
    terminal. The JSON and SARIF formats escape such text their own way.
    """
    return _CONTROLS.sub(lambda found: found[0] if found[0] in keep else _escaped(found[0]), text)


def _escaped(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    return repr(char)[1:-1]
