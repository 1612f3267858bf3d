"""The README's rule table and rule reference are generated from the registry and must not drift."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checker.output import docs
from checker.rules import ALL_RULES, PLANNED, RULES_BY_CODE


def test_readme_is_current() -> None:
    text = docs.README.read_text(encoding="utf-8")
    assert docs.rewrite(text) == text, "README.md rule documentation is stale: run python -m checker.output.docs"


def test_table_lists_every_rule_with_a_link_to_its_reference() -> None:
    table = docs.rule_table()
    for rule in ALL_RULES:
        assert f"| [{rule.code}](#{docs.anchor(rule)}) | `{rule.name}` | {rule.severity.value} |" in table
    for code, name in PLANNED.items():
        if code not in RULES_BY_CODE:
            assert f"| {code} | `{name}` | planned |" in table


def test_reference_has_every_rule_under_its_heading_with_its_documentation() -> None:
    reference = docs.rule_reference()
    headings = re.findall(r"^### (.+)$", reference, re.MULTILINE)
    assert headings == [f"{rule.code} {rule.name}" for rule in sorted(ALL_RULES, key=lambda r: r.code)]
    for rule in ALL_RULES:
        section = reference.split(f"### {rule.code} {rule.name}\n", 1)[1].split("\n### ", 1)[0]
        assert f"Severity: {rule.severity.value}." in section
        # The documentation, verbatim but for its '##' sections, nested under the rule's heading.
        assert rule.documentation().replace("\n## ", "\n#### ") in section
        assert "\n## " not in section


def test_every_table_link_lands_on_a_readme_heading() -> None:
    readme = docs.README.read_text(encoding="utf-8")
    anchors = {_github_slug(title) for title in re.findall(r"^#+ (.+)$", readme, re.MULTILINE)}
    links = re.findall(r"\]\(#([^)]+)\)", docs.rule_table())
    assert len(links) == len(ALL_RULES)
    assert set(links) <= anchors


@pytest.mark.parametrize(
    ("code", "expected"),
    [("AIG301", "aig301-captured-tensor"), ("AIG404", "aig404-registration-in-compiled-region")],
)
def test_anchor_and_help_uri(code: str, expected: str) -> None:
    rule = RULES_BY_CODE[code]
    assert docs.anchor(rule) == expected
    assert docs.help_uri(rule) == f"{docs.README_URL}#{expected}"
    assert docs.help_uri(rule).startswith("https://")


def test_plain_text() -> None:
    markdown = (
        "Reads `W`; see [the docs](https://example.org/x).\n\n"
        "## Example\n"
        "```python\n"
        "def f(x):\n"
        "\n"
        "    return x * W  # AIG301\n"
        "```\n"
        "Done."
    )
    assert docs.plain_text(markdown) == (
        "Reads W; see the docs (https://example.org/x).\n\n"
        "Example\n"
        "    def f(x):\n"
        "\n"
        "        return x * W  # AIG301\n"
        "Done."
    )


class TestRewrite:
    def test_replaces_only_between_the_markers(self) -> None:
        text = (
            f"intro\n{docs.TABLE_START}\nold table\n{docs.TABLE_END}\nmiddle\n"
            f"{docs.REFERENCE_START}\nold reference\n{docs.REFERENCE_END}\nend\n"
        )
        assert docs.rewrite(text) == (
            f"intro\n{docs.TABLE_START}\n{docs.rule_table()}\n{docs.TABLE_END}\nmiddle\n"
            f"{docs.REFERENCE_START}\n{docs.rule_reference()}\n{docs.REFERENCE_END}\nend\n"
        )

    @pytest.mark.parametrize(
        ("text", "missing"),
        [
            pytest.param("no markers\n", docs.TABLE_START, id="none"),
            pytest.param(f"{docs.TABLE_START}\n{docs.TABLE_END}\n", docs.REFERENCE_START, id="no-reference"),
            pytest.param(
                f"{docs.TABLE_START}\n{docs.TABLE_END}\n{docs.REFERENCE_START}\n", docs.REFERENCE_END, id="unclosed"
            ),
        ],
    )
    def test_missing_markers_are_an_error(self, text: str, missing: str) -> None:
        with pytest.raises(ValueError, match=re.escape(missing)):
            docs.rewrite(text)

    def test_check_fails_on_a_stale_readme_and_the_script_fixes_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        readme = tmp_path / "README.md"
        readme.write_text(
            f"{docs.TABLE_START}\n{docs.TABLE_END}\n{docs.REFERENCE_START}\n{docs.REFERENCE_END}\n", encoding="utf-8"
        )
        monkeypatch.setattr(docs, "README", readme)
        assert docs.main(["--check"]) == 1
        assert "stale: run python -m checker.output.docs" in capsys.readouterr().err
        assert docs.main([]) == 0
        assert docs.main(["--check"]) == 0


def _github_slug(title: str) -> str:
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
