"""The README's rule table is generated from the registry and must not drift."""

from checker import docs
from checker.rules import ALL_RULES


def test_readme_rule_table_is_current() -> None:
    text = docs.README.read_text(encoding="utf-8")
    assert docs.rewrite(text) == text, "README.md rule table is stale: run python -m checker.docs"


def test_table_lists_every_rule() -> None:
    table = docs.rule_table()
    for rule in ALL_RULES:
        assert f"| {rule.code} | `{rule.name}` | {rule.severity.value} |" in table
