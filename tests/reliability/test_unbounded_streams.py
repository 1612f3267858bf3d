"""What the other reliability tests left open: standard input that never ends, and
file names in the lines besides findings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from processes import REPO


def test_standard_input_that_never_ends_is_aig900_not_a_hang(tmp_path: Path) -> None:
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-m", "checker", "--isolated", "--no-cache", "--output-format", "json", "-"],
            cwd=tmp_path,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
            stdin=zero,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    (finding,) = json.loads(done.stdout)
    assert finding["code"] == "AIG900"
    assert "standard input holds more than the 8 MiB analysis limit" in finding["message"]


def test_unused_suppressions_name_files_on_one_line(tmp_path: Path) -> None:
    name = "two\nlines\x1b[31m.py"
    (tmp_path / name).write_text("x = 1  # noqa: AIG301\nallow_in_graph = None\n")
    done = subprocess.run(
        [sys.executable, "-m", "checker", "--isolated", "--no-cache", "--report-unused-noqa", name],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    unused = [line for line in done.stdout.splitlines() if "AIG301" in line]
    assert unused and unused[0].startswith("two\\nlines\\x1b[31m.py:1:"), done.stdout
    assert "\x1b" not in done.stdout
