"""PyTorch's own tests of allow_in_graph, run plain, under the guard in warn mode, and in raise mode.

Each file under ``cases/`` (origin, commit and licence in its header; ``README.md``) runs
three times, each mode in one fresh process for all the files: plain; with
``--aig-strict=warn`` (the pytest plugin calls ``runtime_guard.install()`` before the files
are imported, so their registrations go through the guard); and with ``--aig-strict`` (raise). The guard must never change what a
program does, so warn must give every test the outcome plain gives it; raise may fail only
the tests listed in ``RAISE_FAILS``, each with the evidence that the test breaks the
contract. A test that fails plain is listed in ``PLAIN_FAILS`` for that torch version.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES = sorted((HERE / "cases").glob("peer_*.py"))
MODES = {"plain": (), "warn": ("--aig-strict=warn",), "raise": ("--aig-strict",)}
TORCH = torch.__version__.split("+")[0]

#: Tests that fail without the guard, per torch version, and why.
PLAIN_FAILS: dict[str, dict[str, str]] = {
    "2.13.0": {
        # torch 2.13 cannot trace SDPAParams' pybind __new__ ("Attempted to call function marked
        # as skipped ... pybind11_object.__new__"); 2.14 can. The same with the guard.
        "peer_sdpa.py::TestSDPA::test_returns_SDPAParams": "SDPAParams construction not traceable in 2.13",
        "peer_sdpa.py::TestSDPA::test_intermediate_attr_access_SDPAParams": "SDPAParams construction, as above",
        "peer_sdpa.py::TestSDPA::test_can_use_flash_attention_no_graph_break": "SDPAParams construction, as above",
    },
}

#: Tests that raise mode fails because they break the contract, and the evidence for it.
RAISE_FAILS: dict[str, str] = {}


def _plugin_options() -> tuple[str, ...]:
    """Load the plugin by name when the entry point is not installed (a checkout on PYTHONPATH)."""
    installed = any(entry.name == "aigcheck" for entry in entry_points(group="pytest11"))
    return () if installed else ("-p", "runtime_guard.pytest_plugin")


def outcomes(cases: list[Path], mode: str, folder: Path) -> dict[str, dict[str, str]]:
    """``{file: {file::class::test: passed|failed|skipped}}`` of one run of ``cases`` in a
    fresh process (a process per file and mode paid torch's start-up 15 times)."""
    report = folder / f"peer-{mode}.xml"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "TORCHINDUCTOR_COMPILE_THREADS": "1",
        "PYTORCH_PRINT_REPRO_ON_FAILURE": "0",
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
    command += [*_plugin_options(), *MODES[mode], *map(str, cases)]
    done = subprocess.run(command, cwd=HERE / "cases", env=env, capture_output=True, text=True, timeout=1800)
    if not report.exists():
        pytest.fail(f"the peer cases [{mode}] produced no report (exit {done.returncode}):\n{done.stdout[-3000:]}")
    found: dict[str, dict[str, str]] = {case.name: {} for case in cases}
    for testcase in ElementTree.parse(report).getroot().iter("testcase"):
        *_, module, test_class = testcase.get("classname", "").split(".")
        name = f"{module}.py::{test_class}::{testcase.get('name')}"
        kinds = {child.tag for child in testcase}
        found[f"{module}.py"][name] = (
            "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        )
    ran_none = [case for case, tests in found.items() if not tests]
    if ran_none:
        pytest.fail(f"{', '.join(ran_none)} [{mode}] ran no test (exit {done.returncode}):\n{done.stdout[-3000:]}")
    return found


@pytest.fixture(scope="session")
def peer_outcomes(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path, str], dict[str, str]]:
    """The outcomes of a case in a mode, from one run of all the cases per mode (made when
    first asked for)."""
    folder = tmp_path_factory.mktemp("peer")
    runs: dict[str, dict[str, dict[str, str]]] = {}

    def of(case: Path, mode: str) -> dict[str, str]:
        if mode not in runs:
            runs[mode] = outcomes(CASES, mode, folder)
        return runs[mode][case.name]

    return of


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_guard_changes_no_outcome(case: Path, peer_outcomes: Callable[[Path, str], dict[str, str]]) -> None:
    plain = peer_outcomes(case, "plain")
    failing = {name for name, outcome in plain.items() if outcome == "failed"}
    known = {name for name in PLAIN_FAILS.get(TORCH, {}) if name.startswith(f"{case.name}::")}
    assert failing == known, f"plain outcomes differ from PLAIN_FAILS for torch {TORCH}"
    assert peer_outcomes(case, "warn") == plain, "warn mode changed an outcome"
    raised = peer_outcomes(case, "raise")
    expected = {name: ("failed" if name in RAISE_FAILS else outcome) for name, outcome in plain.items()}
    assert raised == expected, "raise mode failed a test the contract does not explain (or passed a listed one)"
