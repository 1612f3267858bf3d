"""One order of findings: the engine's and every reporter's agree, even on ties.

Two findings that start at the same place with the same code tie on the place and
the code; what breaks the tie must be the same everywhere, or the order a file's
findings get their fingerprints in (the engine's) is not the order they are shown in.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst
import pytest

from checker.api import check_source
from checker.output.reporters import REPORTERS, ordered
from checker.rules.base import Rule, RuleFinding, report
from checker.spec.findings import Finding, Severity
from checker.spec.messages import Message

if TYPE_CHECKING:
    from checker.facts.module import ModuleFacts

SOURCE = b"import torch\n\ntorch.compiler.allow_in_graph\n"
#: By message the whole expression comes first; by where it ends, the part of it does.
WHOLE = "first by message: the whole of 'torch.compiler.allow_in_graph'."
PART = "second by message: its part 'torch.compiler'."


@dataclass(frozen=True)
class Said(Message):
    """A stand-in's message: its text as given."""

    said: str

    def text(self) -> str:
        return self.said


class SameStart(Rule):
    """A stand-in: reports an attribute and the attribute inside it, which start at one place."""

    code = "AIG999"
    name = "same-start"
    severity = Severity.WARNING
    default_enabled = True
    summary = "Two findings at one place."

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        statement = facts.module.body[-1]
        assert isinstance(statement, cst.SimpleStatementLine)
        expression = statement.body[0]
        assert isinstance(expression, cst.Expr) and isinstance(expression.value, cst.Attribute)
        yield report(expression.value, Said(WHOLE))
        yield report(expression.value.value, Said(PART))


def engine_order() -> list[Finding]:
    findings = list(check_source(SOURCE, "m.py", rules=[SameStart()]).findings)
    # The tie this test is about: same place and code, different ends and messages.
    assert [(f.line, f.column, f.code) for f in findings] == [(3, 1, "AIG999")] * 2
    assert {f.message for f in findings} == {WHOLE, PART}
    return findings


def test_ordered_is_the_engine_order() -> None:
    findings = engine_order()
    assert ordered(reversed(findings)) == findings


@pytest.mark.parametrize("format_name", ["text", "json", "sarif", "github"])
def test_reporter_shows_the_engine_order(format_name: str) -> None:
    findings = engine_order()
    output = REPORTERS[format_name](list(reversed(findings)))
    assert all(output.count(f.message) == 1 for f in findings), output
    shown = sorted(findings, key=lambda f: output.index(f.message))
    assert [f.message for f in shown] == [f.message for f in findings]
