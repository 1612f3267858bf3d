"""Session-wide settings for the test suite, and a short summary of its skips."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

# Inductor compiles in worker processes by default; one thread keeps the runtime-guard
# tests' real CPU compiles light on small CI machines (set before torch is imported).
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")

#: Reasons shown one a line; the rest are counted on one more.
SKIP_REASONS_SHOWN = 5


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The skips by file and reason, most frequent first, in a few lines: the metamorphic
    tests alone skip hundreds of cases for a few dozen reasons, and ``-ra`` gave each
    place a line. ``-rs`` still lists them all (and this summary then stays out)."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped or terminalreporter.hasopt("skipped"):
        return
    reasons = Counter(_where_and_why(report, terminalreporter.startpath) for report in skipped)
    plural = "" if len(reasons) == 1 else "s"
    terminalreporter.write_sep("-", f"{len(skipped)} skipped, for {len(reasons)} reason{plural} (-rs lists each)")
    ranked = reasons.most_common()
    for (path, reason), count in ranked[:SKIP_REASONS_SHOWN]:
        terminalreporter.write_line(f"{count:5d}  {path}: {reason}")
    rest = ranked[SKIP_REASONS_SHOWN:]
    if rest:
        terminalreporter.write_line(f"{sum(count for _, count in rest):5d}  for {len(rest)} other reasons")


def _where_and_why(report: pytest.TestReport | pytest.CollectReport, start: Path) -> tuple[str, str]:
    """The file a skip was raised in, relative to ``start`` where it is inside, and its
    reason (a skip's report carries ``(path, line, 'Skipped: reason')``)."""
    longrepr = report.longrepr
    if not (isinstance(longrepr, tuple) and len(longrepr) == 3):
        return report.nodeid.split("::")[0], str(longrepr)
    path, _, reason = longrepr
    if Path(path).is_relative_to(start):
        path = Path(path).relative_to(start).as_posix()
    return path, reason.removeprefix("Skipped: ")
