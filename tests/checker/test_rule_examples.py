"""Every rule's documented and extra examples, run as tests.

Invalid examples must produce exactly the findings their ``# AIGnnn`` markers name,
with every implemented rule enabled; valid examples must produce none at all. The
messages an ``Invalid`` example pins must be the messages of some of its findings,
and every rule pins at least one message of its code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import fields, replace

import pytest

from checker.api import check_source
from checker.rules import ALL_RULES, RULES_BY_CODE, Rule
from checker.spec.findings import Finding
from checker.spec.markers import expected
from checker.spec.messages import Message


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


def _findings(source: str, rule: type[Rule]) -> tuple[Finding, ...]:
    report = check_source(source, "example.py", rules=_enabled(rule))
    assert report.internal_error is None, report.internal_error
    return report.findings


def _found(source: str, rule: type[Rule]) -> Counter[tuple[int, str]]:
    return Counter((finding.line, finding.code) for finding in _findings(source, rule))


def unmatched(pinned: Iterable[Message], findings: Iterable[Finding]) -> list[str]:
    """The pinned messages that no finding of their code carries, as ``code: text``; each
    finding answers one pin, so two equal pins need two equal findings."""
    left = Counter((finding.code, finding.message) for finding in findings)
    missing = []
    for message in pinned:
        key = (message.code, message.text())
        if left[key]:
            left[key] -= 1
        else:
            missing.append(f"{message.code}: {message.text()}")
    return missing


def _pinned_cases() -> list[pytest.param]:
    return [
        pytest.param(rule, source, messages, id=f"{rule.code}-pinned-{number}")
        for rule in ALL_RULES
        for number, (source, messages) in enumerate(rule.pinned(), 1)
    ]


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


@pytest.mark.parametrize(("rule", "source", "messages"), _pinned_cases())
def test_pinned_messages_are_messages_of_the_findings(
    rule: type[Rule], source: str, messages: tuple[Message, ...]
) -> None:
    findings = _findings(source, rule)
    assert unmatched(messages, findings) == [], [f"{f.line} {f.code}: {f.message}" for f in findings]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_every_rule_pins_a_message_of_its_code(rule: type[Rule]) -> None:
    assert any(message.code == rule.code for _, messages in rule.pinned() for message in messages)


def _wrong(message: Message) -> Message:
    """``message`` with its first text field changed."""
    name = next(f.name for f in fields(message) if isinstance(getattr(message, f.name), str))  # type: ignore[arg-type]
    return replace(message, **{name: getattr(message, name) + "-wrong"})  # type: ignore[type-var]


@pytest.mark.parametrize("code", ["AIG301", "AIG402", "AIG900"])
def test_a_wrong_pinned_message_is_unmatched(code: str) -> None:
    rule = RULES_BY_CODE[code]
    [(source, messages), *_] = rule.pinned()
    findings = _findings(source, rule)
    assert unmatched(messages, findings) == []
    wrong = _wrong(messages[0])
    assert unmatched([wrong, *messages[1:]], findings) == [f"{wrong.code}: {wrong.text()}"]


def test_a_pin_answered_once_is_unmatched_twice() -> None:
    rule = RULES_BY_CODE["AIG301"]
    [(source, (message, *_)), *_] = rule.pinned()
    findings = _findings(source, rule)
    assert [f.message for f in findings].count(message.text()) == 1
    assert unmatched([message, message], findings) == [f"{message.code}: {message.text()}"]


def test_an_invalid_example_is_also_a_plain_example() -> None:
    """An ``Invalid`` example's source runs like any other: its markers are checked too."""
    for rule in ALL_RULES:
        sources = rule.all_examples()[0]
        assert all(source in sources for source, _ in rule.pinned())
