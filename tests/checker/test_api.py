"""checker.api, the front door: what it returns for source text and for files."""

from __future__ import annotations

import doctest
from pathlib import Path

import checker.api
from checker.api import check_file, check_source, default_rules

CAPTURE = "import torch\nW = torch.ones(3)\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n"


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(checker.api).failed == 0


def test_source_as_text_and_as_bytes_give_the_same_findings() -> None:
    assert check_source(CAPTURE).findings == check_source(CAPTURE.encode()).findings


def test_the_default_rules_leave_out_those_off_by_default() -> None:
    codes = {rule.code for rule in default_rules()}
    assert "AIG301" in codes and "AIG105" not in codes


def test_a_file_is_shown_by_the_name_asked_for(tmp_path: Path) -> None:
    (tmp_path / "ops.py").write_text(CAPTURE, encoding="utf-8")
    report = check_file(tmp_path / "ops.py", display_path="ops.py")
    assert [(finding.path, finding.line, finding.code) for finding in report.findings] == [("ops.py", 5, "AIG301")]


def test_a_registering_file_that_does_not_parse_is_one_aig900(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_bytes(b"import torch\ntorch.compiler.allow_in_graph(f\n")
    assert [finding.code for finding in check_file(tmp_path / "bad.py").findings] == ["AIG900"]


def test_a_file_that_never_names_the_api_is_not_parsed() -> None:
    assert check_source("def f(:\n").findings == ()
