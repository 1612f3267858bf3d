"""The product's packages pass mypy with its default settings (issue 21: a type checker in
``make test``). The checker and the runtime guard are checked; tests are not."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error_in_the_packages() -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (it comes with the dev extra)")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", "checker", "runtime_guard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
