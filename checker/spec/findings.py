"""Findings: what the checker reports, as plain frozen data.

Reporters are pure functions of these values; nothing here knows about libcst.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.Enum):
    """How bad a finding is, following the evidence (README.md, "Rules")."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def at_least(self, other: Severity) -> bool:
        return self.rank >= other.rank


_RANKS = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True)
class Finding:
    """One contract violation at one place. Lines and columns are 1-based."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    severity: Severity
    message: str
    #: Identifies the finding across unrelated edits (line shifts): see ``checker.output.fingerprints``.
    fingerprint: str = ""

    def sort_key(self) -> tuple[str, int, int, str, int, int, str]:
        """The one order of findings, the engine's and every reporter's: by path, start
        and code, then by end and message, which only break ties.

        The engine numbers a file's findings in this order for their fingerprints, so a
        reporter that sorted otherwise would show them in an order they were not counted in.
        """
        return (self.path, self.line, self.column, self.code, self.end_line, self.end_column, self.message)

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "fingerprint": self.fingerprint,
        }
