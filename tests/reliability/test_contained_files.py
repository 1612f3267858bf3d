"""No single file can kill or stall the run: a file that crashes libcst's native parser,
overruns the time budget or the memory budget gets AIG900 with the reason, and every
other file is still checked (issue 12, item 3)."""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path

import libcst
import pytest

import checker.reading.libcst_text
from checker.command import cli
from checker.passes.containment import Limits
from checker.passes.schedule import Job, Options, check_files
from checker.rules import ALL_RULES

CODES = tuple(rule.code for rule in ALL_RULES if rule.default_enabled)
CAPTURE = "import torch\nW = torch.ones(2)\n\n@torch.compiler.allow_in_graph\ndef f{n}(x):\n    return x * W\n"
#: Valid Python on which libcst's native parser dies with SIGSEGV (measured: 9,000 operands).
CRASHES_LIBCST = (
    "import torch\n\n@torch.compiler.allow_in_graph\ndef g(x, a):\n    return x if {chain} else x\n".format(
        chain=" and ".join(["a"] * 9000)
    )
)


def _tree(tmp_path: Path, culprit: str, *, others: int = 5) -> Path:
    tree = tmp_path / "pkg"
    tree.mkdir()
    for n in range(others):
        (tree / f"m{n}.py").write_text(CAPTURE.format(n=n))
    (tree / "culprit.py").write_text(culprit)
    return tree


def _run_cli(*args: str) -> tuple[int, list[dict[str, object]]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = cli.main(["--isolated", "--no-cache", "--output-format", "json", *args])
    return status, json.loads(out.getvalue())


def _by_file(findings: list[dict[str, object]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in findings:
        found.setdefault(Path(str(finding["path"])).name, []).append(str(finding["code"]))
    return found


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_that_crashes_the_native_parser_costs_only_its_own_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    # The chain is handed to libcst as it is (the guard against this shape is off), so
    # the parser really crashes, in the worker that has the file.
    monkeypatch.setattr(checker.reading.libcst_text, "MAX_BOOL_OPERANDS", 10**9)
    tree = _tree(tmp_path, CRASHES_LIBCST)
    status, findings = _run_cli("-j", jobs, str(tree))
    assert status == 1
    assert _by_file(findings) == {**{f"m{n}.py": ["AIG301"] for n in range(5)}, "culprit.py": ["AIG900"]}
    (crash,) = [finding for finding in findings if finding["code"] == "AIG900"]
    assert "the parser crashed on this file (SIGSEGV, twice)" in str(crash["message"])


def test_the_guard_hands_libcst_a_chain_it_can_parse(tmp_path: Path) -> None:
    """With the guard on, the same file is analysed: its registration is checked."""
    tree = _tree(
        tmp_path,
        CRASHES_LIBCST.replace("return x if", "return x * W if").replace(
            "import torch\n", "import torch\nW = torch.ones(2)\n", 1
        ),
    )
    status, findings = _run_cli(str(tree))
    assert status == 1
    assert _by_file(findings)["culprit.py"] == ["AIG301"]


def _stalls_on_marked_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """libcst's parser, made to stall on a file holding ``STALL`` (as it does, for
    minutes, on some shapes; worker processes fork from this one and inherit it)."""
    parse = libcst.parse_module

    def parse_module(source: str, *args: object, **kwargs: object) -> libcst.Module:
        if "STALL" in source:
            time.sleep(600)
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", parse_module)


def _jobs(tree: Path) -> list[Job]:
    return [Job(str(path), path.name, CODES) for path in sorted(tree.glob("*.py"))]


def _only_the_culprit_lost(tree: Path, options: Options, others: int = 5) -> str:
    """Check ``tree`` with ``options``: the culprit's AIG900 message (every other file
    kept its AIG301)."""
    reports = {report.path: report for report in check_files(_jobs(tree), options)}
    assert [f.code for f in reports["culprit.py"].findings] == ["AIG900"]
    assert all([f.code for f in reports[f"m{n}.py"].findings] == ["AIG301"] for n in range(others))
    return reports["culprit.py"].findings[0].message


@pytest.mark.parametrize("workers", [1, 2])
def test_a_file_that_overruns_the_time_budget_gets_aig900_and_the_rest_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    _stalls_on_marked_files(monkeypatch)
    tree = _tree(tmp_path, CAPTURE.format(n="_stalls") + "# STALL\n")
    options = Options(workers=workers, contained=True, limits=Limits(seconds=2))
    assert "took longer than the 2 s budget" in _only_the_culprit_lost(tree, options)


def test_a_file_that_needs_more_memory_than_the_budget_gets_aig900(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parse = libcst.parse_module

    def parse_module(source: str, *args: object, **kwargs: object) -> libcst.Module:
        if "HUGE" in source:
            _ = bytearray(2 * 1024**3)  # more than the budget below allows
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", parse_module)
    tree = _tree(tmp_path, CAPTURE.format(n="_huge") + "# HUGE\n")
    options = Options(workers=2, contained=True, limits=Limits(memory=1024**3))
    assert "needed more than the 1 GiB memory budget" in _only_the_culprit_lost(tree, options)


def test_a_worker_lost_with_several_files_in_hand_costs_only_the_culprit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files that were with a worker when another file killed it are checked again, alone."""
    monkeypatch.setattr(checker.reading.libcst_text, "MAX_BOOL_OPERANDS", 10**9)
    tree = _tree(tmp_path, CRASHES_LIBCST, others=40)
    assert "crashed" in _only_the_culprit_lost(tree, Options(workers=2, contained=True), others=40)


def test_standard_input_that_crashes_the_native_parser_is_aig900_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'-' is checked in a worker of its own too: the crash costs its result, not the run."""
    monkeypatch.setattr(checker.reading.libcst_text, "MAX_BOOL_OPERANDS", 10**9)
    tree = _tree(tmp_path, "x = 1\n", others=1)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(CRASHES_LIBCST.encode())))
    status, findings = _run_cli("--stdin-filename", str(tree / "piped.py"), "-", str(tree / "m0.py"))
    assert status == 1
    assert _by_file(findings) == {"m0.py": ["AIG301"], "piped.py": ["AIG900"]}


def test_the_memory_budget_never_raises_a_limit_the_user_set(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = (
        "import resource\n"
        "from checker.passes.containment import Limits\n"
        "resource.setrlimit(resource.RLIMIT_DATA, (2 * 1024**3, resource.RLIM_INFINITY))\n"
        "Limits(memory=4 * 1024**3).apply()\n"
        "print(resource.getrlimit(resource.RLIMIT_DATA)[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert int(done.stdout) == 2 * 1024**3
