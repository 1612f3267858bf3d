from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from projects import RULES, assert_marked, write

import checker.index.outlines
import checker.index.pipeline
import checker.index.project
import checker.index.python_trees
from checker.index.project import Project
from checker.index.python_trees import PythonTrees
from checker.passes.engine import check_path
from checker.reading.source import python_gate

ALIAS = """
try:
    from torch.compiler import allow_in_graph as maybe_allow_in_graph
except ImportError:
    def maybe_allow_in_graph(fn):
        return fn
"""
OPS = """
import torch
from pkg import maybe_allow_in_graph

W = torch.ones(3)

@maybe_allow_in_graph
def scaled(x):
    return x * W  # AIG301
"""


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The texts CPython's parser is given by the project index and the pipeline, counted
    (each module that calls the gate has it patched: the count holds with or without the memo)."""
    counted: Counter[str] = Counter()

    def counting(text: str):  # type: ignore[no-untyped-def]
        counted[text] += 1
        return python_gate(text)

    for module in (checker.index.outlines, checker.index.pipeline, checker.index.project, checker.index.python_trees):
        if hasattr(module, "python_gate"):
            monkeypatch.setattr(module, "python_gate", counting)
    return counted


def test_one_parse_serves_a_module_outline_imports_and_gate(tmp_path: Path, gated: Counter[str]) -> None:
    # The package's __init__ is asked its imports (the re-export is followed) and its outline
    # (it spells the API); utils.py its outline and its facts; ops.py is the checked file.
    files = {"pkg/__init__.py": "from .utils import maybe_allow_in_graph\n", "pkg/utils.py": ALIAS, "pkg/ops.py": OPS}
    write(tmp_path, files)
    index = Project()
    report = check_path(tmp_path / "pkg/ops.py", RULES, index=index)
    assert report.internal_error is None, report.internal_error
    assert_marked(tmp_path, report.findings, "pkg/ops.py")
    texts = {name: (tmp_path / name).read_text() for name in files}
    assert gated[texts["pkg/__init__.py"]] == 1
    assert gated[texts["pkg/utils.py"]] == 1
    assert all(count == 1 for count in gated.values()), gated.values()

    # A changed module is read again, and parsed again: its old tree answers nothing.
    changed = ALIAS + "\nOTHER = 1\n"
    (tmp_path / "pkg/utils.py").write_text(changed)
    report = check_path(tmp_path / "pkg/ops.py", RULES, index=index)
    assert_marked(tmp_path, report.findings, "pkg/ops.py")
    assert gated[changed] == 1


def test_a_verdict_is_kept_per_text_within_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []

    def counting(text: str):  # type: ignore[no-untyped-def]
        parsed.append(text)
        return python_gate(text)

    monkeypatch.setattr(checker.index.python_trees, "python_gate", counting)
    trees = PythonTrees(characters=12)
    first = trees.gate("a = 1\n")
    assert trees.gate("a = 1\n") is first and parsed == ["a = 1\n"]
    assert first.tree is not None
    trees.gate("b = 22\n")  # 6 + 7 characters: over the bound, the least recently asked goes
    assert "a = 1\n" not in trees and "b = 22\n" in trees
    assert trees.take("b = 22\n").tree is not None and "b = 22\n" not in trees  # taken: no longer kept
    trees.gate("x" * 13)  # longer than the bound: never kept
    assert len(trees) == 0
    assert parsed == ["a = 1\n", "b = 22\n", "x" * 13]


def test_a_refusal_is_kept_as_the_gate_made_it() -> None:
    trees = PythonTrees()
    nested = "x = " + "(" * 300 + ")" * 300 + "\n"
    assert trees.gate(nested) == python_gate(nested)
    assert trees.gate(nested).refused is not None
