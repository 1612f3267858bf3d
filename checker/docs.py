"""Documentation generated from the rule registry (the README's rule table).

``python -m checker.docs`` rewrites the table between the markers in README.md;
``--check`` exits 1 when the README is stale. A test runs the check.
"""

from __future__ import annotations

import sys
from pathlib import Path

from checker.rules import ALL_RULES, PLANNED

START = "<!-- rule-table:start -->"
END = "<!-- rule-table:end -->"
README = Path(__file__).resolve().parent.parent / "README.md"


def rule_table() -> str:
    """The markdown table of every code: implemented rules first-class, planned ones marked."""
    rows = ["| code | name | severity | what it reports |", "|---|---|---|---|"]
    entries: dict[str, str] = {}
    for rule in ALL_RULES:
        entries[rule.code] = f"| {rule.code} | `{rule.name}` | {rule.severity.value} | {rule.summary} |"
    for code, name in PLANNED.items():
        entries[code] = f"| {code} | `{name}` | planned | not implemented yet |"
    rows.extend(entries[code] for code in sorted(entries))
    return "\n".join(rows)


def rewrite(text: str) -> str:
    before, _, rest = text.partition(START)
    _, _, after = rest.partition(END)
    if not rest:
        raise ValueError(f"README.md has no {START} marker")
    return f"{before}{START}\n{rule_table()}\n{END}{after}"


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    updated = rewrite(text)
    if "--check" in argv:
        if updated != text:
            print("README.md rule table is stale: run python -m checker.docs", file=sys.stderr)
            return 1
        return 0
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
