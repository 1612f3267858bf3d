"""The two tiers read a ``__main__`` guard alike (issue 21).

The cheap tier (``change_walk``, CPython ``ast``) and the full tier (``facts.scopes.statements``,
libcst) each describe an ``if`` test, and one predicate (``checker.reading.forms.is_main_guard``)
decides whether it is ``__name__ == "__main__"``. One table of spellings holds both
descriptions to the same answer, and a module written with the reversed spelling gets the
same AIG302 as one written the usual way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from checker.command import cli
from checker.facts.scopes import statements as scope_statements
from checker.reading import mentions
from checker.reading.forms import is_main_guard

#: ``if`` tests, and whether each is a ``__main__`` guard.
SPELLINGS = {
    '__name__ == "__main__"': True,
    '"__main__" == __name__': True,
    "__name__ == '__main__'": True,
    "'__main__' == __name__": True,
    '(__name__ == "__main__")': True,
    '(("__main__" == __name__))': True,
    '(__name__) == ("__main__")': True,
    '__name__ == """__main__"""': True,
    '__name__ == r"__main__"': True,
    '__name__ == u"__main__"': True,
    '__name__ == "__ma" "in__"': True,
    "\"__ma\" 'in__' == __name__": True,
    '__name__ != "__main__"': False,
    '__name__ == "main"': False,
    '__name__ == b"__main__"': False,
    '__name__ == f"__main__"': False,
    '__name__ == "__ma" f"in__"': False,
    "__name__ == __name__": False,
    '"__main__" == "__main__"': False,
    'name == "__main__"': False,
    '__spec__ == "__main__"': False,
    '__name__ == "__main__" == __name__': False,
    '__name__ == "__main__" and DEBUG': False,
    'not __name__ != "__main__"': False,
    '"__main__" in __name__': False,
    '__name__.__eq__("__main__")': False,
}


def _ast_test(test: str) -> ast.expr:
    statement = ast.parse(f"if {test}:\n    pass\n").body[0]
    assert isinstance(statement, ast.If)
    return statement.test


def _cst_test(test: str) -> cst.BaseExpression:
    statement = cst.parse_module(f"if {test}:\n    pass\n").body[0]
    assert isinstance(statement, cst.If)
    return statement.test


@pytest.mark.parametrize(("test", "expected"), SPELLINGS.items(), ids=list(SPELLINGS))
def test_cheap_tier(test: str, expected: bool) -> None:
    assert is_main_guard(mentions.comparison_of(_ast_test(test))) is expected


@pytest.mark.parametrize(("test", "expected"), SPELLINGS.items(), ids=list(SPELLINGS))
def test_full_tier(test: str, expected: bool) -> None:
    assert is_main_guard(scope_statements.comparison_of(_cst_test(test))) is expected


MODULE = """\
import torch

SCALE = 1.0


@torch.compiler.allow_in_graph
def rescale(x):
    return x * SCALE


if {guard}:
    SCALE = 2.0
"""


def _findings(tmp_path: Path, capsys: pytest.CaptureFixture[str], guard: str) -> list[str]:
    (tmp_path / "script.py").write_text(MODULE.format(guard=guard), encoding="utf-8")
    assert cli.main(["script.py", "--no-cache", "--isolated"]) == 1
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(
    "guard", [spelling for spelling, expected in SPELLINGS.items() if expected and spelling != '__name__ == "__main__"']
)
def test_every_spelling_gets_the_same_finding(
    guard: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    usual = _findings(tmp_path, capsys, '__name__ == "__main__"')
    assert any("AIG302" in line and "(line 12)" in line for line in usual), usual
    assert _findings(tmp_path, capsys, guard) == usual
