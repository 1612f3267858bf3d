"""The exhaustive switch: parse every file, whatever the cheap tier says.

The cheap tier (the text pre-filter, CPython-ast outlines, the reverse and change scans)
only answers "may this matter?", to spare most files a libcst parse. Its answers must
never change a finding, only the cost of finding it. With the switch on, every such
answer is "yes": each prefilter, veto and reverse-scan selection lets everything through
and the full tier decides alone. A run with it on is slow, and gives the same findings
as one with it off (``tests/checker/test_exhaustive.py`` holds the two to that).

It is a flag of the process, in the lowest layer that consults it, so that the modules
that take a shortcut ask it where they take it and nothing has to thread it through
every call. Workers forked while it is on (the forker, the pool) inherit it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_on = False


def exhaustive() -> bool:
    """Whether every prefilter, veto and reverse-scan selection is bypassed now."""
    return _on


@contextmanager
def parsing_everything(on: bool = True) -> Iterator[None]:
    """Within the block, the cheap tier lets every file through (``on``); as it was after."""
    global _on
    before, _on = _on, on
    try:
        yield
    finally:
        _on = before
