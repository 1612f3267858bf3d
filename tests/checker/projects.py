"""Small multi-module projects for tests, with the expected findings written on their lines.

A test writes its modules with :func:`write`, marks each line where a finding is
expected with ``# AIGnnn`` as the rule examples do (``return x * W  # AIG301``),
runs the checker with :func:`check` (one file, ``checker.api.check_file``) or
:func:`run` (the command line, JSON output), and compares with :func:`assert_marked`.
The markers are read by ``checker.spec.markers``, as for the rule examples and fixtures.
"""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from checker.api import check_file, default_rules
from checker.command import cli
from checker.rules import Rule
from checker.spec.findings import Finding, Severity
from checker.spec.markers import expected

#: A module registering one function that reads a module-level tensor: one AIG301, on line 7.
CAPTURING_OPS = """\
import torch

W = torch.ones(3)

@torch.compiler.allow_in_graph
def f(x):
    return x * W
"""

#: The default selection of rules.
RULES: list[Rule] = default_rules()


class Place(NamedTuple):
    """Where a finding is, or is expected: the file relative to the project root."""

    path: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code}"


def write(root: Path, files: Mapping[str, str]) -> Path:
    """Write each text at its path under ``root`` and return ``root``.

    Texts are dedented and lose one leading newline, so that line 1 is the first line
    of the text as written, whether or not a line break follows the opening quotes.
    """
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).removeprefix("\n"), encoding="utf-8")
    return root


def marked(root: Path, *paths: str) -> Counter[Place]:
    """The findings the ``# AIGnnn`` markers expect in ``paths`` (every ``.py`` file under ``root`` if none)."""
    names = paths or sorted(path.relative_to(root).as_posix() for path in root.rglob("*.py"))
    return Counter(
        {
            Place(name, line, code): count
            for name in names
            for (line, code), count in expected((root / name).read_text(encoding="utf-8")).items()
        }
    )


def place(root: Path, finding: Finding) -> Place:
    """Where ``finding`` is, relative to ``root``; a relative path is taken from the working directory."""
    path = Path(finding.path)
    relative = (path if path.is_absolute() else Path.cwd() / path).resolve().relative_to(root.resolve())
    return Place(relative.as_posix(), finding.line, finding.code)


def assert_marked(root: Path, findings: Iterable[Finding], *paths: str, without: Collection[str] = ()) -> None:
    """The findings are exactly the markers of ``paths`` (all files if none), less those of codes in ``without``."""
    __tracebackhide__ = True
    findings = list(findings)
    want = Counter({where: n for where, n in marked(root, *paths).items() if where.code not in without})
    got = Counter(place(root, finding) for finding in findings)
    missing, unexpected = want - got, got - want
    report = ["the findings are not the ones the # AIGnnn markers expect"]
    report += [f"  marked, not found: {where}" for where in sorted(missing.elements())]
    report += [
        f"  found, not marked: {place(root, finding)}  {finding.message}"
        for finding in findings
        if unexpected[place(root, finding)] > 0
    ]
    assert not missing and not unexpected, "\n".join(report)


def check(root: Path, path: str, rules: Sequence[Rule] = RULES) -> list[Finding]:
    """Check ``root/path`` alone (``check_file``, with its own project index), assert it
    gives exactly its markers, return the findings."""
    __tracebackhide__ = True
    report = check_file(root / path, rules=rules)
    assert report.internal_error is None, report.internal_error
    assert_marked(root, report.findings, path)
    return list(report.findings)


def run(*argv: str) -> tuple[int, list[Finding]]:
    """``aigcheck --output-format json *argv`` in-process: the exit status and the findings, in reported order.

    Nothing is compared with markers here: a test that edits the project between runs
    says what it expects of each run.
    """
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["--output-format", "json", *argv])
    return status, [_finding(item) for item in json.loads(out.getvalue() or "[]")]


def _finding(item: dict[str, object]) -> Finding:
    """A finding back from its JSON object (``Finding.as_dict``)."""
    return Finding(**{**item, "severity": Severity(item["severity"])})  # type: ignore[arg-type]
