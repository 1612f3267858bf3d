"""The reliability tests share the checker tests' helpers (``from projects import ...``)."""

import sys
from pathlib import Path

_CHECKER_TESTS = str(Path(__file__).resolve().parents[1] / "checker")
if _CHECKER_TESTS not in sys.path:
    sys.path.insert(0, _CHECKER_TESTS)
