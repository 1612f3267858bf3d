"""The test run's skip summary (``tests/conftest.py``): one line per file and reason, with a
count, instead of one per place."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

SKIPS = """
import pytest

@pytest.mark.parametrize("n", [1, 2])
def test_needs_a_fifo(n):
    pytest.skip("needs FIFOs")

def test_needs_a_mount():
    pytest.skip("no mount(8) here")

def test_runs():
    pass
"""


@pytest.fixture
def session(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_skips=SKIPS)
    return pytester


def test_skips_for_one_reason_are_one_counted_line(session: pytest.Pytester) -> None:
    result = session.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines(
        [
            "*- 3 skipped, for 2 reasons (-rs lists each) -*",
            "    2  test_skips.py: needs FIFOs",
            "    1  test_skips.py: no mount(8) here",
        ]
    )
    assert sum("needs FIFOs" in line for line in result.outlines) == 1


def test_reasons_past_the_first_few_are_counted_together(session: pytest.Pytester) -> None:
    session.makepyfile(
        test_many="import pytest\n" + "".join(f"def test_{n}():\n    pytest.skip('reason {n}')\n" for n in range(7))
    )
    result = session.runpytest_inprocess("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*10 skipped, for 9 reasons*", "    4  for 4 other reasons"])


def test_asked_for_each_skip_pytest_lists_them_instead(session: pytest.Pytester) -> None:
    result = session.runpytest_inprocess("-p", "no:cacheprovider", "-rs")
    result.stdout.fnmatch_lines(["SKIPPED [[]2[]] test_skips.py:*: needs FIFOs"])
    result.stdout.no_fnmatch_line("*for 2 reasons*")
