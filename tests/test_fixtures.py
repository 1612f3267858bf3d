"""The example modules under fixtures/ give exactly the findings their markers name.

``fixtures/good`` holds realistic modules that use ``allow_in_graph`` correctly in
many spellings and must produce no findings at all. ``fixtures/bad`` holds realistic
mistakes; every line where a finding is expected carries a trailing ``# AIGnnn``
comment (``# AIG301 AIG301`` for two findings of one code on one line).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import tokenize
from collections import Counter
from pathlib import Path

import pytest

from checker.command import cli
from checker.rules import ALL_RULES
from checker.spec.markers import expected

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOD = FIXTURES / "good"
BAD = FIXTURES / "bad"
#: Fixtures under this folder are checked with --doc-strict: every rule enabled.
DOC_STRICT = BAD / "doc_strict"

#: Every implemented code: the bad fixtures must exercise them all.
REQUIRED_CODES = tuple(rule.code for rule in ALL_RULES)

_MARKER_COMMENT = re.compile(r"#\s*((?:AIG\d{3}\s*)+)$")
_CODE = re.compile(r"\bAIG\d{3}\b")


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def _expected(source: str) -> Counter[tuple[int, str]]:
    """``checker.spec.markers.expected``, or a per-line fallback where the file does not tokenize."""
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
    """The file's text as the interpreter decodes it: BOM, then a PEP 263 cookie, else UTF-8."""
    data = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


@functools.cache
def _run(root: Path, doc_strict: bool) -> dict[Path, Counter[tuple[int, str]]]:
    """The findings of one CLI run over a whole fixture tree, per file: modules register
    each other's functions and call each other's helpers, as in a real project."""
    argv = ["--isolated", "--no-cache", "--exit-zero", "-q", "--output-format", "json", str(root)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["--doc-strict", *argv] if doc_strict else argv)
    assert status == 0, out.getvalue()
    found: dict[Path, Counter[tuple[int, str]]] = {}
    for finding in json.loads(out.getvalue()):
        found.setdefault(Path(finding["path"]).resolve(), Counter())[(finding["line"], finding["code"])] += 1
    return found


def _found(path: Path) -> Counter[tuple[int, str]]:
    strict = DOC_STRICT in path.parents
    return _run(DOC_STRICT if strict else FIXTURES / path.relative_to(FIXTURES).parts[0], strict).get(
        path.resolve(), Counter()
    )


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
