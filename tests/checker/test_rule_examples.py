"""Every rule's documented and extra examples, run as tests.

Invalid examples must produce exactly the findings their ``# AIGnnn`` markers name,
with every implemented rule enabled; valid examples must produce none at all.
"""

from __future__ import annotations

from collections import Counter

import pytest

from checker.passes.engine import check_source
from checker.rules import ALL_RULES, Rule
from checker.spec.markers import expected


def _enabled(rule: type[Rule]) -> list[Rule]:
    """The default selection, plus the rule under test when it is off by default."""
    return [r() for r in ALL_RULES if r.default_enabled or r is rule]


def _cases(kind: str) -> list[pytest.param]:
    cases = []
    for rule in ALL_RULES:
        invalid, valid = rule.all_examples()
        examples = invalid if kind == "invalid" else valid
        for number, source in enumerate(examples, 1):
            cases.append(pytest.param(rule, source, id=f"{rule.code}-{kind}-{number}"))
    return cases


def _found(source: str, rule: type[Rule]) -> Counter[tuple[int, str]]:
    report = check_source(source.encode(), "example.py", _enabled(rule))
    assert report.internal_error is None, report.internal_error
    return Counter((finding.line, finding.code) for finding in report.findings)


@pytest.mark.parametrize(("rule", "source"), _cases("invalid"))
def test_invalid_example_gives_exactly_its_markers(rule: type[Rule], source: str) -> None:
    markers = expected(source)
    assert any(code == rule.code for _, code in markers), f"{rule.code} example has no {rule.code} marker"
    assert _found(source, rule) == markers


@pytest.mark.parametrize(("rule", "source"), _cases("valid"))
def test_valid_example_gives_nothing(rule: type[Rule], source: str) -> None:
    assert _found(source, rule) == Counter()


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_every_rule_is_documented_with_examples(rule: type[Rule]) -> None:
    doc = rule.documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in doc, f"{rule.code} lacks {section}"
    invalid, valid = rule.doc_examples()
    assert invalid and valid
    if rule.code != "AIG900":  # about the checker itself, not about torch
        assert "evidence" in doc.lower(), f"{rule.code} cites no evidence"
