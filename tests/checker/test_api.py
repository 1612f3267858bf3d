"""checker.api, the front door: what it returns for source text and for files."""

from __future__ import annotations

import contextlib
import dataclasses
import doctest
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import checker.api
from checker.api import check_file, check_paths, check_source, configure, default_rules
from checker.command import cli
from checker.spec.findings import Finding

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


# -- check_paths: discovery, the session and its passes across modules, as the command line runs them

REPO = Path(__file__).resolve().parents[2]
KERNELS = "import torch\nW = torch.ones(3)\ndef scaled(x):\n    return x * W\n"
REGISTER = "import torch\nfrom .kernels import scaled\ntorch.compiler.allow_in_graph(scaled)\n"


def _json_of_the_cli(*argv: str) -> list[dict[str, object]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["--output-format", "json", "--no-cache", "--exit-zero", "-q", *argv])
    return list(json.loads(out.getvalue() or "[]"))


def _cross_module(root: Path) -> Path:
    """A package whose register.py registers a def of its kernels.py, which reads a tensor (line 4)."""
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "kernels.py").write_text(KERNELS, encoding="utf-8")
    (root / "pkg" / "register.py").write_text(REGISTER, encoding="utf-8")
    return root


@pytest.mark.parametrize("contained", [True, False], ids=["contained", "here"])
def test_a_registration_made_in_another_module_is_found(tmp_path: Path, contained: bool) -> None:
    report = check_paths([_cross_module(tmp_path)], isolated=True, contained=contained)
    assert [(Path(f.path).name, f.line, f.code) for f in report.findings] == [("kernels.py", 4, "AIG301")]


def test_a_file_named_alone_is_judged_as_its_project_sees_it(tmp_path: Path) -> None:
    (_cross_module(tmp_path) / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    report = check_paths([tmp_path / "pkg" / "kernels.py"], isolated=True)
    assert [(Path(f.path).name, f.code) for f in report.findings] == [("kernels.py", "AIG301")]


@pytest.mark.parametrize("tree", ["fixtures/bad", "fixtures/good", "fixtures"])
def test_the_same_findings_as_the_command_line(monkeypatch: pytest.MonkeyPatch, tree: str) -> None:
    monkeypatch.chdir(REPO)
    assert [finding.as_dict() for finding in check_paths([tree]).findings] == _json_of_the_cli(tree)


def test_parsing_here_finds_what_a_contained_run_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert check_paths(["fixtures/bad"], contained=False) == check_paths(["fixtures/bad"])


def test_findings_come_in_the_one_order_of_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    findings = check_paths(["fixtures/bad"], contained=False).findings
    assert len(findings) > 10 and list(findings) == sorted(findings, key=Finding.sort_key)


def test_the_report_is_frozen(tmp_path: Path) -> None:
    report = check_paths([_cross_module(tmp_path)], isolated=True, contained=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.files = ()  # type: ignore[misc]
    assert {Path(str(file.path)).name for file in report.files} == {"__init__.py", "kernels.py", "register.py"}


def test_rules_choose_as_select_does(tmp_path: Path) -> None:
    (tmp_path / "ops.py").write_text(CAPTURE, encoding="utf-8")
    rules = [rule for rule in default_rules() if rule.code == "AIG301"]
    by_rules = check_paths([tmp_path], rules=rules, isolated=True, contained=False)
    assert by_rules == check_paths([tmp_path], select=["AIG301"], isolated=True, contained=False)
    assert {f.code for f in by_rules.findings} == {"AIG301"}


def test_a_rule_of_its_own_is_for_check_source(tmp_path: Path) -> None:
    class Mine(type(default_rules()[0])):  # type: ignore[misc]
        pass

    with pytest.raises(ValueError, match="Mine is not a registered rule"):
        check_paths([tmp_path], rules=[Mine()], isolated=True)


def test_settings_and_the_keywords_they_stand_for_are_one_or_the_other(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="select"):
        check_paths([tmp_path], configure(isolated=True), select=["AIG3"])


def test_importing_the_front_door_imports_neither_libcst_nor_the_rules() -> None:
    script = (
        "import sys, checker.api; print(sorted(m for m in sys.modules if m.startswith(('libcst', 'checker.rules'))))"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def test_what_the_walk_could_not_use_is_said_before_any_file_is_checked(tmp_path: Path) -> None:
    (tmp_path / "ops.py").write_text(CAPTURE, encoding="utf-8")
    (tmp_path / "loop").symlink_to(".", target_is_directory=True)
    events: list[str] = []
    report = check_paths(
        [str(tmp_path)],
        isolated=True,
        jobs=1,
        contained=False,
        on_walked=lambda walked: events.extend(f"walked: {problem.path}" for problem in walked.problems),
        progress=lambda done, total: events.append(f"checked {done} of {total}"),
    )
    assert (
        events[0] == f"walked: {tmp_path / 'loop'}" and events[1:] and all(e.startswith("checked") for e in events[1:])
    )
    assert [problem.path for problem in report.problems] == [str(tmp_path / "loop")]
