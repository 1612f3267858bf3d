"""A module that changes under the run is a clean miss, never a stall or a crash (issue 19).

Discovery and every import look at a file before reading it; between the look and the
read, the file can become a FIFO (a read would wait forever for a writer), vanish or
become a folder. Each case is made certain here: a ``sitecustomize`` on the child's path
makes ``os.path.isfile`` and ``Path.is_file`` answer yes for the swapped path, as they did
a moment before the swap. Every read of a file other than the one checked must still
refuse what is not a regular file, and the checked files keep their findings.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from processes import REPO, aigcheck, found
from projects import write

from checker.passes import cache

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

#: A run of these few files takes about a second; a read that waits on a FIFO never ends
#: (or ends at the 60 s budget of a worker, the file then lost).
LIMIT = 30

#: Installed on the child's path: the paths in ``AIGCHECK_TEST_SWAPPED`` look like
#: regular files to every check, whatever they are now.
SITECUSTOMIZE = """\
import os
import pathlib

_swapped = set(filter(None, os.environ.get("AIGCHECK_TEST_SWAPPED", "").split(os.pathsep)))
_isfile = os.path.isfile
_is_file = pathlib.Path.is_file


def _looks_regular(path):
    return os.path.abspath(os.fspath(path)) in _swapped


os.path.isfile = lambda path: _looks_regular(path) or _isfile(path)
pathlib.Path.is_file = lambda self: _looks_regular(self) or _is_file(self)
"""

#: a.py registers f, which reads a tensor of its own (AIG301) and names imported from
#: b.py (the swapped module) and from c.py (a dict: a change of it anywhere in the
#: project is looked for, so every file of the project is read).
PROJECT = {
    "pkg/__init__.py": "",
    "pkg/a.py": """\
        import torch

        from . import b
        from .b import SCALE
        from .c import TABLE, helper

        W = torch.ones(3)


        @torch.compiler.allow_in_graph
        def f(x):
            return helper(x) * W * SCALE + b.OFFSET + TABLE["k"]  # AIG301
        """,
    "pkg/b.py": "SCALE = 2.0\nOFFSET = 1.0\n",
    "pkg/c.py": "TABLE = {'k': 1.0}\n\n\ndef helper(x):\n    return x\n",
}


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _gone(path: Path) -> None:
    path.unlink()


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


SWAPS: dict[str, Callable[[Path], None]] = {"a-fifo": _fifo, "gone": _gone, "a-folder": _folder}


def _run(tree: Path, swapped: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    hook = tree.parent / f"{tree.name}-hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = {"PYTHONPATH": f"{hook}{os.pathsep}{REPO}", "AIGCHECK_TEST_SWAPPED": str(swapped)}
    return aigcheck(tree, "--isolated", "--output-format", "json", *paths, timeout=LIMIT, env=env)


@pytest.fixture(params=sorted(SWAPS))
def swapped(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    write(tmp_path, PROJECT)
    path = tmp_path / "pkg" / "b.py"
    SWAPS[request.param](path)
    return path


def test_a_named_file_whose_import_was_swapped(swapped: Path) -> None:
    tree = swapped.parent.parent
    result = _run(tree, swapped, "pkg/a.py")
    assert found(result) == [("pkg/a.py", "AIG301")], result.stderr
    assert result.stderr == ""


def test_a_walked_tree_whose_module_was_swapped(swapped: Path) -> None:
    tree = swapped.parent.parent
    result = _run(tree, swapped, "pkg")
    findings = found(result)
    assert ("pkg/a.py", "AIG301") in findings, result.stderr
    # b.py itself, when discovery took it for a file: refused or gone, one line each.
    assert {code for path, code in findings if path != "pkg/a.py"} <= {"AIG900"}
    assert "Traceback" not in result.stderr
    assert all(finding["code"] != "AIG900" or finding["path"] != "pkg/a.py" for finding in json.loads(result.stdout))


@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_a_cached_entry_whose_dependency_was_swapped_is_a_miss(
    tmp_path: Path, swap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm run checks each cached entry's dependencies before it uses the entry: one
    swapped since (looked at as a file a moment before) is a miss, never a wait."""
    dependency = tmp_path / "b.py"
    dependency.write_text("SCALE = 2.0\n", encoding="utf-8")
    consulted = {str(dependency): hashlib.sha256(dependency.read_bytes()).hexdigest()}
    assert not cache.changed(consulted)
    SWAPS[swap](dependency)
    monkeypatch.setattr(cache.os.path, "isfile", lambda path: True)
    answer: list[bool] = []
    thread = threading.Thread(target=lambda: answer.append(cache.changed(consulted)), daemon=True)
    thread.start()
    thread.join(5)  # a read of a regular file takes microseconds; one of a FIFO, forever
    waited = thread.is_alive()
    if waited and swap == "a-fifo":
        os.close(os.open(dependency, os.O_WRONLY | os.O_NONBLOCK))  # a writer: the read ends
        thread.join(LIMIT)
    assert not waited
    assert answer == [True]
