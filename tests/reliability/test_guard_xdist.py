"""The guard's warnings and errors survive a round trip between processes.

pytest-xdist sends a worker's warnings to the controller as the class and its ``args``, and
rebuilds them with ``cls(*args)``; pickling (multiprocessing, a spawned worker) goes through
``__reduce__``. Both must give back the same warning or error.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import runtime_guard as rg

REPO = Path(__file__).resolve().parents[2]

VIOLATION = rg.Violation("AIG202", "ratio", "demo.py:4", "the return value is a float (0.5); return it as a tensor")


def _same(
    rebuilt: rg.ContractWarning | rg.ContractViolation, original: rg.ContractWarning | rg.ContractViolation
) -> None:
    assert type(rebuilt) is type(original) and str(rebuilt) == str(original)
    assert rebuilt.violation == original.violation and rebuilt.code == "AIG202"


def test_a_warning_is_rebuilt_from_its_args() -> None:
    warning = rg.ContractWarning(VIOLATION)
    _same(type(warning)(*warning.args), warning)


def test_warnings_and_errors_pickle() -> None:
    for reported in (rg.ContractWarning(VIOLATION), rg.ContractViolation(VIOLATION, torch_error="boom")):
        rebuilt = pickle.loads(pickle.dumps(reported))
        _same(rebuilt, reported)
    error = pickle.loads(pickle.dumps(rg.ContractViolation(VIOLATION, torch_error="boom")))
    assert error.torch_error == "boom" and "torch's own error: boom" in str(error)


SUITE = """
import torch

@torch.compiler.allow_in_graph
def ratio(x):
    return x.shape[0] / 8

def test_ratio_{index}():
    f = torch.compile(lambda x: x * ratio(x + 0), backend="eager")
    assert f(torch.ones(4)).tolist() == [0.5] * 4
"""


def test_pytest_xdist_with_strict_warn(tmp_path: Path) -> None:
    for index in range(2):
        (tmp_path / f"test_ratio_{index}.py").write_text(textwrap.dedent(SUITE.format(index=index)))
    # Installed, the pytest11 entry point loads the plugin (in the workers too); otherwise -p does.
    installed = any(entry.name == "aigcheck" for entry in entry_points(group="pytest11"))
    load = [] if installed else ["-p", "runtime_guard.pytest_plugin"]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *load]
    result = subprocess.run(
        [*command, "-n", "2", "--aig-strict=warn", str(tmp_path)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "INTERNALERROR" not in output and "2 passed" in output
    assert "ContractWarning" in output and "AIG202" in output
