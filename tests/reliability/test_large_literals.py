"""A large data literal is analysed within the file budget, its file's findings kept (issue 19).

libcst builds several objects per element of a literal (the number, the comma, the
whitespace around it): a 2 MB list of one-digit numbers (1,000,000 of them) with one
registration took more than the 4 GiB budget of a worker, twice, and the file lost its
AIG301 to an AIG900 (54 s, measured at 41ef54e). A literal of many elements that are all constants says
nothing element by element to any rule, so libcst is given one element in its place,
with every line and column kept (``checker/reading/libcst_text.py``); what the container is (a
list, a tuple of constants, a dict) is kept, so every finding stays the same.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

import pytest
from processes import aigcheck, found

import checker.reading.libcst_text
from checker.api import check_source, default_rules
from checker.reading.libcst_text import for_libcst
from checker.rules import ALL_RULES, Rule
from checker.spec.markers import expected

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import pathological  # noqa: E402 - the benchmarks folder is not a package

RULES = default_rules()


def test_a_2_mb_data_file_keeps_its_finding(tmp_path: Path) -> None:
    text = pathological.data_literal(2_000_000)
    (tmp_path / "data.py").write_text(text, encoding="utf-8")
    result = aigcheck(tmp_path, "--isolated", "--output-format", "json", "data.py")
    assert found(result) == [("data.py", "AIG301")], result.stderr


def test_libcst_is_given_one_element_of_a_large_literal_at_the_same_places() -> None:
    text = pathological.data_literal(200_000)
    prepared = for_libcst(text, ast.parse(text))
    assert prepared.text.count(",") < 10  # before: every one of the 100,000 elements
    assert prepared.text.splitlines()[-1] == text.splitlines()[-1]
    assert len(prepared.text) == len(text) and prepared.text.count("\n") == text.count("\n")


#: Literals of each kind the analysis tells apart, read by registered functions, with
#: the findings each gives marked: they must come out the same when the literals are
#: summarised.
KINDS = """\
import torch

W = torch.ones(3)
NUMBERS = [1, 2, -3, 4.5, 6j, 7, 8, 9, 10, 11]
CONSTANTS = (1, "two", None, True, (3, 4), b"five", ...)
MIXED = (1, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
TABLE = {"a": 1, "b": (2, 3), 4: {5, 6}, "c": None}
SHAPE = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
A, B = 1, 2


@torch.compiler.allow_in_graph
def reads_all(x):
    return x * W * NUMBERS[0] + CONSTANTS[0] + MIXED[0] + TABLE["a"] + len(SHAPE) + A + B  # AIG301 AIG302 AIG302 AIG302


@torch.compiler.allow_in_graph
def returns(x):
    return x, (1.0, 2.5, 3.0, 4.0, 5.0, 6.0), [4.0, -5.0, 6.0, 7.0, 8.0]


def change():
    NUMBERS.append(7)
    TABLE["c"] = 8
    MIXED[1].append(9)
    SHAPE.add(10)
"""


def _findings(source: str) -> Counter[tuple[int, str]]:
    report = check_source(source.encode(), "example.py", rules=[rule() for rule in ALL_RULES])
    assert report.internal_error is None, report.internal_error
    return Counter((finding.line, finding.code) for finding in report.findings)


def _examples() -> list[pytest.param]:
    cases = [pytest.param(KINDS, id="kinds")]
    for rule in ALL_RULES:
        invalid, valid = rule.all_examples()
        cases += [pytest.param(source, id=f"{rule.code}-invalid-{n}") for n, source in enumerate(invalid, 1)]
        cases += [pytest.param(source, id=f"{rule.code}-valid-{n}") for n, source in enumerate(valid, 1)]
    return cases


@pytest.mark.parametrize("source", _examples())
def test_findings_are_the_same_with_every_literal_summarised(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _findings(source)
    monkeypatch.setattr(checker.reading.libcst_text, "MAX_LITERAL_ELEMENTS", 1)
    assert _findings(source) == whole


def test_the_literals_of_each_kind_give_their_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker.reading.libcst_text, "MAX_LITERAL_ELEMENTS", 1)
    # All but the tuple holding a list, and the tuples unpacked or too short to hold one constant.
    summarised = [own for _, own in for_libcst(KINDS).summarised]
    assert summarised == [
        "[1, 2, -3, 4.5, 6j, 7, 8, 9, 10, 11]",
        '(1, "two", None, True, (3, 4), b"five", ...)',
        "[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]",
        '{"a": 1, "b": (2, 3), 4: {5, 6}, "c": None}',
        "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}",
        "(1.0, 2.5, 3.0, 4.0, 5.0, 6.0)",
        "[4.0, -5.0, 6.0, 7.0, 8.0]",
    ]
    assert _findings(KINDS) == expected(KINDS)


def test_a_fix_keeps_a_summarised_literal_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        "import torch\n\nDATA = [\n    1, 2, 3,  # a comment, kept\n    4,\n]\n\n\n"
        "@torch._dynamo.allow_in_graph\ndef f(x):\n    return x + DATA[0]\n"
    )
    monkeypatch.setattr(checker.reading.libcst_text, "MAX_LITERAL_ELEMENTS", 1)
    rules: list[Rule] = [rule() for rule in ALL_RULES if rule.code == "AIG407"]
    report = check_source(source.encode(), "fixme.py", rules=rules, fix=True)
    assert report.fixed_source == source.replace("torch._dynamo.allow_in_graph", "torch.compiler.allow_in_graph")
