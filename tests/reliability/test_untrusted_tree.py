"""Nothing of the checked tree runs: ``python -m checker`` started inside a tree whose
modules are named like the standard library's imports none of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: Standard library modules the checker imports (or may), each shadowed by the tree.
SHADOWED = (
    "abc argparse ast collections concurrent contextlib copy dataclasses difflib enum fnmatch functools "
    "gc hashlib importlib inspect io itertools json libcst logging multiprocessing operator os pathlib "
    "pickle re shutil stat string struct tempfile textwrap tokenize tomli tomllib types typing warnings weakref"
).split()


def test_python_dash_m_checker_imports_nothing_of_the_tree(tmp_path: Path) -> None:
    markers = tmp_path.parent / f"{tmp_path.name}-markers"
    markers.mkdir()
    for name in SHADOWED:
        (tmp_path / f"{name}.py").write_text(f"open({str(markers / name)!r}, 'w').close()\n", encoding="utf-8")
    (tmp_path / "ops.py").write_text(
        "import torch\n\nW = torch.ones(3)\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n",
        encoding="utf-8",
    )
    # The checker comes from the repository, after the working directory, as when a
    # checkout is on PYTHONPATH.
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-m", "checker", "--isolated", "--no-cache", "--output-format", "json", "."],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert sorted(os.listdir(markers)) == [], result.stderr
    assert result.returncode == 1, result.stderr
    assert {(finding["path"], finding["code"]) for finding in json.loads(result.stdout)} == {("ops.py", "AIG301")}
