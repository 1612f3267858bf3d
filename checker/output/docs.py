"""Documentation generated from the rule registry: the README's rule table and rule reference.

``python -m checker.output.docs`` rewrites both generated sections of README.md (each between
its own pair of markers); ``--check`` exits 1 when the README is stale. A test runs
the check. The SARIF reporter links each rule to its heading here via :func:`help_uri`.

The rule classes are imported by the functions that read their documentation, not
with this module: every run imports it (through the reporters), and the rules bring
libcst and the analysis, which a run answered from the cache never needs.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from checker.spec import catalog

if TYPE_CHECKING:
    from checker.rules import Rule

TABLE_START = "<!-- rule-table:start -->"
TABLE_END = "<!-- rule-table:end -->"
REFERENCE_START = "<!-- rule-reference:start -->"
REFERENCE_END = "<!-- rule-reference:end -->"
README = Path(__file__).resolve().parents[2] / "README.md"

#: Where the README is published. A placeholder until the project has a public home:
#: the lead will revisit it. SARIF ``informationUri`` and every rule's ``helpUri`` are
#: built from it, here and nowhere else.
README_URL = "https://github.com/aigcheck/aigcheck/blob/main/README.md"


def heading(rule: type[Rule]) -> str:
    """The rule's heading in the rule reference: ``AIG301 captured-tensor``."""
    return f"{rule.code} {rule.name}"


def anchor(rule: type[Rule]) -> str:
    """The anchor GitHub gives the rule's heading: ``aig301-captured-tensor``."""
    # GitHub's slugs: lower case, punctuation other than '-' and '_' dropped, spaces to '-'.
    return re.sub(r"[^\w\- ]", "", heading(rule).lower()).replace(" ", "-")


def help_uri(rule: type[Rule]) -> str:
    """The absolute URL of the rule's documentation in the published README."""
    return f"{README_URL}#{anchor(rule)}"


def rule_table() -> str:
    """The markdown table of every code: implemented rules link to their reference, planned ones are marked."""
    from checker.rules import ALL_RULES

    rows = ["| code | name | severity | what it reports |", "|---|---|---|---|"]
    entries: dict[str, str] = {}
    for rule in ALL_RULES:
        entries[rule.code] = (
            f"| [{rule.code}](#{anchor(rule)}) | `{rule.name}` | {rule.severity.value} | {rule.summary} |"
        )
    for code, name in catalog.PLANNED.items():
        entries[code] = f"| {code} | `{name}` | planned | not implemented yet |"
    rows.extend(entries[code] for code in sorted(entries))
    return "\n".join(rows)


def rule_reference() -> str:
    """Every implemented rule's full documentation under a ``###`` heading, in code order."""
    from checker.rules import ALL_RULES

    sections = []
    for rule in sorted(ALL_RULES, key=lambda r: r.code):
        # The docstrings use '##' for their sections; below a '###' heading they become '####'.
        body = re.sub(r"^## ", "#### ", rule.documentation(), flags=re.MULTILINE)
        facts = [f"Severity: {rule.severity.value}."]
        if not rule.default_enabled:
            facts.append("Off unless selected.")
        if rule.fixable:
            facts.append("Has an automatic fix.")
        sections.append(f"### {heading(rule)}\n\n*{' '.join(facts)}*\n\n{body}")
    return "\n\n".join(sections)


def plain_text(markdown: str) -> str:
    """A rule's markdown documentation as plain text (SARIF ``text`` fields).

    Headings lose their ``#``, inline code its backticks, links become ``text (url)``,
    and fenced code blocks are indented by four spaces instead of fenced.
    """
    out: list[str] = []
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            out.append(f"    {line}" if line else "")
            continue
        line = re.sub(r"^#+ ", "", line)
        line = re.sub(r"\[([^\]]*)\]\(([^)]*)\)", r"\1 (\2)", line)
        line = re.sub(r"`([^`]*)`", r"\1", line)
        out.append(line)
    return "\n".join(out)


def rewrite(text: str) -> str:
    """``text`` (the README) with both generated sections brought up to date."""
    text = _replace_between(text, TABLE_START, TABLE_END, rule_table())
    return _replace_between(text, REFERENCE_START, REFERENCE_END, rule_reference())


def _replace_between(text: str, start: str, end: str, content: str) -> str:
    before, _, rest = text.partition(start)
    if not rest:
        raise ValueError(f"README.md has no {start} marker")
    _, found, after = rest.partition(end)
    if not found:
        raise ValueError(f"README.md has no {end} marker after {start}")
    return f"{before}{start}\n{content}\n{end}{after}"


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    updated = rewrite(text)
    if "--check" in argv:
        if updated != text:
            print("README.md generated rule documentation is stale: run python -m checker.output.docs", file=sys.stderr)
            return 1
        return 0
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
