"""Expected findings written on the offending lines: ``x * scale  # AIG301``.

Used by the test suite to run rule examples and fixtures, and usable by anyone who
writes examples of their own. Several codes on one line mean several findings;
``# AIG301 AIG301`` expects two.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter

_CODE = re.compile(r"\bAIG\d{3}\b")


def expected(source: str) -> Counter[tuple[int, str]]:
    """(line, code) -> how many findings the comments on that line expect."""
    counts: Counter[tuple[int, str]] = Counter()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not _suppression(token.string):
            for code in _CODE.findall(token.string):
                counts[(token.start[0], code)] += 1
    return counts


def _suppression(comment: str) -> bool:
    """``# noqa: AIG301`` and ``# aigcheck: noqa: AIG301`` name codes without expecting them."""
    text = comment.lstrip("# ").lower()
    return text.startswith(("noqa", "aigcheck:"))
