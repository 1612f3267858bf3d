"""A baseline holds paths relative to the project root (issue 12): written in one checkout,
it hides the same findings in a copy, from another working directory and with another
form of the path arguments; a baseline that is not a regular file of a sane size is
refused at once with exit status 2."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from processes import in_process
from projects import write

#: The largest baseline read, as README.md states it ("over 64 MiB, is refused").
MAX_BASELINE_BYTES = 64 * 1024 * 1024

OPS = """\
import torch

W = torch.ones(4)

@torch.compiler.allow_in_graph
def scaled(x):
    return x * W
"""


def aigcheck(cwd: Path, *argv: str) -> tuple[int, list[dict[str, object]], str]:
    """``aigcheck --output-format json`` run from ``cwd``: exit status, JSON findings, stderr."""
    status, out, err = in_process(cwd, "--isolated", "--no-cache", "-j", "1", "--output-format", "json", *argv)
    return status, json.loads(out or "[]"), err


@pytest.fixture(params=["pyproject", "no-marker"])
def tree(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A project with a pyproject.toml, or a bare package (no marker of a project root above it)."""
    files = {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/sub/__init__.py": "", "pkg/sub/more.py": OPS}
    if request.param == "pyproject":
        files["pyproject.toml"] = ""
    return write(tmp_path / "first", files)


def test_the_baseline_holds_project_relative_paths(tree: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    assert aigcheck(tmp_path, "--write-baseline", str(baseline), str(tree / "pkg"))[0] == 0
    paths = {entry["path"] for entry in json.loads(baseline.read_text())["findings"]}
    assert paths == {"pkg/ops.py", "pkg/sub/more.py"}


FORMS = {
    "from-the-root": lambda root: (root, ["pkg"]),
    "from-the-parent": lambda root: (root.parent, [f"{root.name}/pkg"]),
    "from-inside": lambda root: (root / "pkg", ["."]),
    "absolute": lambda root: (root.parent, [str(root / "pkg")]),
    "dotted": lambda root: (root, ["./pkg/../pkg"]),
    "files-named": lambda root: (root / "pkg" / "sub", ["more.py", "../ops.py"]),
}


#: Written one way, checked in a copy another: each form once on each side.
PAIRS = {
    **{f"written-from-the-root-checked-{name}": ("from-the-root", name) for name in FORMS},
    **{f"written-{name}-checked-from-the-root": (name, "from-the-root") for name in FORMS if name != "from-the-root"},
}


@pytest.mark.parametrize(("written", "checked"), PAIRS.values(), ids=PAIRS.keys())
def test_a_baseline_works_in_a_copy_whatever_the_path_form(
    tree: Path, tmp_path: Path, written: str, checked: str
) -> None:
    baseline = tmp_path / "baseline.json"
    cwd, paths = FORMS[written](tree)
    assert aigcheck(cwd, "--write-baseline", str(baseline), *paths)[0] == 0
    assert len(json.loads(baseline.read_text())["findings"]) == 2
    copy = Path(shutil.copytree(tree, tmp_path / "elsewhere" / "second"))
    cwd, paths = FORMS[checked](copy)
    assert aigcheck(cwd, "--baseline", str(baseline), *paths)[:2] == (0, [])
    # A finding added in the copy is new.
    (copy / "pkg/ops.py").write_text(OPS + "\n@torch.compiler.allow_in_graph\ndef shifted(x):\n    return x + W\n")
    status, found, _ = aigcheck(cwd, "--baseline", str(baseline), *paths)
    assert status == 1 and [(finding["code"], finding["line"]) for finding in found] == [("AIG301", 11)]


def test_an_old_baseline_is_still_read(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree", {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/ops.py": OPS})
    baseline = tmp_path / "baseline.json"
    aigcheck(tree, "--write-baseline", str(baseline), "pkg")
    document = json.loads(baseline.read_text())
    for entry in document["findings"]:  # as an earlier aigcheck wrote it: the path as shown, from elsewhere
        entry["path"] = "../tree/pkg/ops.py"
    baseline.write_text(json.dumps(document))
    assert aigcheck(tree, "--baseline", str(baseline), "pkg")[:2] == (0, [])


def test_a_baseline_too_large_is_refused(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/ops.py": OPS})
    baseline = tmp_path / "baseline.json"
    with baseline.open("wb") as stream:
        stream.truncate(MAX_BASELINE_BYTES + 1)
    status, found, err = aigcheck(tree, "--baseline", str(baseline), "pkg")
    assert (status, found) == (2, [])
    assert "larger than" in err and str(baseline) in err


def test_a_directory_is_refused(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/ops.py": OPS})
    status, _, err = aigcheck(tree, "--baseline", str(tmp_path), "pkg")
    assert status == 2 and "not a regular file" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/ops.py": OPS})
    fifo = tmp_path / "baseline.json"
    os.mkfifo(fifo)
    result: list[tuple[int, list[dict[str, object]], str]] = []
    worker = threading.Thread(target=lambda: result.append(aigcheck(tree, "--baseline", str(fifo), "pkg")))
    worker.start()
    worker.join(timeout=60)
    if worker.is_alive():  # unblock the reader, then fail
        with open(fifo, "wb"):
            pass
        worker.join()
        pytest.fail("reading a FIFO baseline blocked")
    status, _, err = result[0]
    assert status == 2 and "not a regular file" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_is_refused(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/ops.py": OPS})
    status, found, err = aigcheck(tree, "--baseline", "/dev/zero", "pkg")
    assert (status, found) == (2, []) and "/dev/zero: cannot read it: not a regular file" in err
