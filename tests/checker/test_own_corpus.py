"""benchmarks/own_corpus gives exactly its markers, less the misses it names.

The corpus is four small packages written in the styles found in the wild (a model zoo,
a fused-ops package, a diffusion pipeline, a src-layout package with scripts), checked
whole in one run as ``benchmarks/realworld.py`` checks it. Every line where a finding is
expected carries ``# AIGnnn``; a marker the checker does not meet yet says so on its line,
``# AIG302 missed: why``, and must stay missed until the note is removed, so the corpus
cannot rot either way.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from checker.api import check_paths

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "own_corpus"
_CODE = re.compile(r"\bAIG\d{3}\b")
_MISSED = re.compile(r"\bmissed:")


class Place(NamedTuple):
    path: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code}"


class Markers(NamedTuple):
    expected: Counter[Place]
    missed: Counter[Place]


def markers() -> Markers:
    """Every marker of the corpus, and those of them a ``missed:`` note names."""
    expected: Counter[Place] = Counter()
    missed: Counter[Place] = Counter()
    for path in sorted(CORPUS.rglob("*.py")):
        name = path.relative_to(CORPUS).as_posix()
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if token.type == tokenize.COMMENT:
                target = missed if _MISSED.search(token.string) else expected
                for code in _CODE.findall(token.string):
                    target[Place(name, token.start[0], code)] += 1
    return Markers(expected, missed)


@functools.cache
def found() -> Counter[Place]:
    """One run over the whole corpus; the corpus imports only torch, numpy and the standard library."""
    report = check_paths([CORPUS], isolated=True, installed_packages=False, contained=False)
    return Counter(
        Place(Path(finding.path).resolve().relative_to(CORPUS).as_posix(), finding.line, finding.code)
        for finding in report.findings
    )


def test_findings_are_the_markers_less_the_known_misses() -> None:
    want = markers().expected
    got = found()
    report = ["benchmarks/own_corpus: the findings are not the ones the # AIGnnn markers expect"]
    report += [f"  marked, not found: {where}" for where in sorted((want - got).elements())]
    report += [f"  found, not marked: {where}" for where in sorted((got - want).elements())]
    assert got - markers().missed == want, "\n".join(report)


def test_known_misses_are_still_missed() -> None:
    fixed = sorted(where for where in markers().missed if found()[where])
    assert fixed == [], f"found now, drop 'missed:' from the marker: {', '.join(map(str, fixed))}"


def test_the_corpus_has_both_clean_and_violating_packages() -> None:
    packages = {path.relative_to(CORPUS).parts[0] for path in CORPUS.rglob("*.py")}
    marked = {where.path.split("/")[0] for where in markers().expected}
    assert len(packages) >= 3
    assert marked == packages, "every package holds at least one real violation"
