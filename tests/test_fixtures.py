"""The example modules under fixtures/ give exactly the findings their markers name.

``fixtures/good`` holds realistic modules that use ``allow_in_graph`` correctly in
many spellings and must produce no findings at all. ``fixtures/bad`` holds realistic
mistakes; every line where a finding is expected carries a trailing ``# AIGnnn``
comment (``# AIG301 AIG301`` for two findings of one code on one line).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from pathlib import Path

import pytest

from checker.engine import check_path, decode_source
from checker.markers import expected
from checker.rules import ALL_RULES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOD = FIXTURES / "good"
BAD = FIXTURES / "bad"
ENABLED = [rule() for rule in ALL_RULES if rule.default_enabled]
#: Fixtures under this folder are checked with doc-strict on: every rule enabled.
DOC_STRICT = BAD / "doc_strict"
EVERY_RULE = [rule() for rule in ALL_RULES]

#: Every implemented code: the bad fixtures must exercise them all.
REQUIRED_CODES = tuple(rule.code for rule in ALL_RULES)

_MARKER_COMMENT = re.compile(r"#\s*((?:AIG\d{3}\s*)+)$")
_CODE = re.compile(r"\bAIG\d{3}\b")


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def _expected(source: str) -> Counter[tuple[int, str]]:
    """``checker.markers.expected``, or a per-line fallback where the file does not tokenize."""
    try:
        return expected(source)
    except (tokenize.TokenError, SyntaxError):
        counts: Counter[tuple[int, str]] = Counter()
        for number, line in enumerate(io.StringIO(source), 1):
            match = _MARKER_COMMENT.search(line.rstrip())
            if match:
                for code in _CODE.findall(match.group(1)):
                    counts[(number, code)] += 1
        return counts


def _source(path: Path) -> str:
    return decode_source(path.read_bytes())


def _found(path: Path) -> Counter[tuple[int, str]]:
    report = check_path(path, EVERY_RULE if DOC_STRICT in path.parents else ENABLED)
    assert report.internal_error is None, report.internal_error
    return Counter((finding.line, finding.code) for finding in report.findings)


def _param(path: Path) -> pytest.param:
    return pytest.param(path, id=str(path.relative_to(FIXTURES)))


@pytest.mark.parametrize("path", [_param(p) for p in _files(GOOD)])
def test_good_fixture_gives_no_findings(path: Path) -> None:
    assert _expected(_source(path)) == Counter(), "good fixtures must not carry markers"
    assert _found(path) == Counter()


@pytest.mark.parametrize("path", [_param(p) for p in _files(BAD)])
def test_bad_fixture_gives_exactly_its_markers(path: Path) -> None:
    assert _found(path) == _expected(_source(path))


def test_there_are_enough_good_fixtures() -> None:
    assert len(_files(GOOD)) >= 5


def test_bad_fixtures_cover_every_implemented_code() -> None:
    seen = Counter(code for path in _files(BAD) for (_, code), n in _expected(_source(path)).items() for _ in range(n))
    missing = [code for code in REQUIRED_CODES if code not in seen]
    assert not missing, f"no bad fixture marks {missing}"
    implemented = {rule.code for rule in ALL_RULES}
    assert set(seen) <= implemented, f"markers for codes that are not implemented: {set(seen) - implemented}"
