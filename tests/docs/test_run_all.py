"""``evidence/dynamo/run_all.sh``: the documented way to re-run the evidence.

The script is run from a copy of the evidence folder holding planted experiments and a
stand-in ``torch`` module (only its version is read), so the tests need no torch and
touch no committed output. The committed outputs are checked as they are.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "evidence" / "dynamo"
SH = shutil.which("sh")
pytestmark = pytest.mark.skipif(SH is None, reason="no POSIX sh")

#: Prints the places of this machine that outputs must not name, and a traceback
#: through the standard library (as torch's tracebacks go through site-packages).
PRINTS_PATHS = """\
import json, os, sys, tempfile, traceback
print("file", __file__, os.path.abspath(__file__))
print("cwd", os.getcwd())
print("python", sys.executable, sys.prefix)
print("tmp", tempfile.gettempdir(), "home", os.path.expanduser("~"))
try:
    json.loads("{")
except ValueError:
    traceback.print_exc()
"""
FAILS = "import sys\nprint('half done')\nsys.exit(3)\n"


@pytest.fixture
def evidence(tmp_path: Path) -> Path:
    """A copy of the evidence folder's scripts with planted experiments, as repo/evidence/dynamo."""
    folder = tmp_path / "repo" / "evidence" / "dynamo"
    folder.mkdir(parents=True)
    for name in ("run_all.sh", "_portable_output.py"):
        shutil.copy(EVIDENCE / name, folder / name)
    (folder / "exp_prints_paths.py").write_text(PRINTS_PATHS)
    return folder


def stand_in_torch(folder: Path, version: str) -> None:
    # The version probe runs in the experiments' folder, whose torch.py it imports first.
    (folder / "torch.py").write_text(f"__version__ = {version!r}\n")


def run_all(folder: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``sh <relative path>/run_all.sh <relative python> argv`` from ``cwd``."""
    script = os.path.relpath(folder / "run_all.sh", cwd)
    python = os.path.relpath(sys.executable, cwd)
    return subprocess.run([SH or "sh", script, python, *argv], cwd=cwd, capture_output=True, text=True, timeout=120)


def machine_paths(folder: Path) -> list[str]:
    """The absolute paths of this machine that an output could name."""
    places = [folder.parents[1], Path(sys.prefix), Path(sys.executable).parent, Path.home(), tempfile.gettempdir()]
    return sorted({str(p) for place in places for p in (Path(place), Path(place).resolve())}, key=len, reverse=True)


def test_a_relative_interpreter_from_another_folder_runs_every_experiment(evidence: Path, tmp_path: Path) -> None:
    stand_in_torch(evidence, "2.13.0+cpu")
    (evidence / "exp_second.py").write_text("print('second ran')\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_all(evidence, cwd=elsewhere)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (evidence / "out_second.txt").read_text() == "second ran\n"
    assert "file exp_prints_paths.py exp_prints_paths.py" in (evidence / "out_prints_paths.txt").read_text()


def test_outputs_name_no_path_of_this_machine(evidence: Path, tmp_path: Path) -> None:
    stand_in_torch(evidence, "2.13.0+cpu")
    result = run_all(evidence, "exp_prints_paths.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    output = (evidence / "out_prints_paths.txt").read_text()
    assert 'json/decoder.py", line' in output, output  # the traceback is kept, its paths shortened
    named = [path for path in machine_paths(evidence) if path in output]
    assert not named, output


def test_another_torch_version_writes_its_own_outputs(evidence: Path) -> None:
    (evidence / "out_prints_paths.txt").write_text("the committed 2.13 record\n")
    stand_in_torch(evidence, "2.14.1+cu130")
    result = run_all(evidence, cwd=evidence.parents[1])
    assert result.returncode == 0, result.stdout + result.stderr
    assert (evidence / "out_prints_paths.txt").read_text() == "the committed 2.13 record\n"
    assert (evidence / "out_prints_paths_2.14.txt").is_file()


def test_a_failing_experiment_fails_the_run_and_keeps_its_record(evidence: Path) -> None:
    stand_in_torch(evidence, "2.13.0")
    (evidence / "exp_fails.py").write_text(FAILS)
    (evidence / "out_fails.txt").write_text("the committed record\n")
    result = run_all(evidence, cwd=evidence)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "run_all.sh: failed: exp_fails.py" in result.stderr
    assert "exp_prints_paths.py" not in result.stderr  # the others ran and passed
    assert (evidence / "out_prints_paths.txt").is_file()
    assert (evidence / "out_fails.txt").read_text() == "the committed record\n"
    assert (evidence / "out_fails.tmp").read_text() == "half done\n"


def test_an_interpreter_without_torch_is_one_line_with_a_remedy(evidence: Path) -> None:
    (evidence / "torch.py").write_text("raise ImportError('No module named torch')\n")
    result = run_all(evidence, cwd=evidence)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cannot import torch" in result.stderr, result.stderr
    assert not list(evidence.glob("out_*"))


def test_the_committed_outputs_name_no_path_of_this_machine() -> None:
    outputs = sorted(EVIDENCE.glob("out_*.txt"))
    assert outputs
    paths = [*machine_paths(EVIDENCE), "/work/", "/home/", "/root/", "/tmp/"]
    named = [f"{out.name}: {path}" for out in outputs for path in paths if path in out.read_text()]
    assert not named, named
