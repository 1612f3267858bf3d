"""The two tiers read a ``__main__`` guard alike (issue 21).

The cheap tier (``change_walk``, CPython ``ast``) and the full tier (``facts.scopes.statements``,
libcst) each describe an ``if`` test, and one predicate (``checker.reading.forms.is_main_guard``)
decides whether it is ``__name__ == "__main__"``. The table of spellings
(``test_shared_predicates.MAIN_GUARDS``) holds both descriptions to the same answer; here, a
module written with any spelling of the guard gets the same AIG302 as one written the usual way.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_shared_predicates import MAIN_GUARDS

from checker.command import cli

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
    "guard",
    [spelling for spelling, expected in MAIN_GUARDS.items() if expected and spelling != '__name__ == "__main__"'],
)
def test_every_spelling_gets_the_same_finding(
    guard: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    usual = _findings(tmp_path, capsys, '__name__ == "__main__"')
    assert any("AIG302" in line and "(line 12)" in line for line in usual), usual
    assert _findings(tmp_path, capsys, guard) == usual
