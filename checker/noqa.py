"""``# noqa`` comments: which findings the user has suppressed on which line.

``# noqa`` suppresses everything on its line; ``# noqa: AIG301, captured-tensor``
suppresses the listed codes or rule names. Other tools' codes may share the list.
Only real comments count: the text is tokenized, so ``"# noqa"`` in a string is not
a suppression.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

_NOQA = re.compile(r"#\s*noqa\b(?P<colon>\s*:\s*(?P<codes>[\w\-]+(?:[\s,]+[\w\-]+)*))?", re.IGNORECASE)
_SEPARATOR = re.compile(r"[\s,]+")

#: Suppresses every finding on its line.
ALL = frozenset({"*"})


@dataclass(frozen=True)
class NoqaIndex:
    """Line number (1-based) to the lower-cased codes and names suppressed there."""

    by_line: dict[int, frozenset[str]]

    @classmethod
    def from_text(cls, text: str) -> NoqaIndex:
        by_line: dict[int, frozenset[str]] = {}
        for line, comment in _comments(text):
            match = _NOQA.search(comment)
            if match is None:
                continue
            codes = match.group("codes")
            by_line[line] = ALL if codes is None else frozenset(c.lower() for c in _SEPARATOR.split(codes) if c)
        return cls(by_line)

    def suppresses(self, line: int, code: str, name: str) -> bool:
        listed = self.by_line.get(line)
        if listed is None:
            return False
        return listed is ALL or code.lower() in listed or name.lower() in listed


def _comments(text: str) -> list[tuple[int, str]]:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return [(tok.start[0], tok.string) for tok in tokens if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        # Syntax newer than this interpreter can still be commented: fall back to
        # lines, accepting that a suppression comment quoted inside a string would count.
        return [(number, line[line.index("#") :]) for number, line in enumerate(text.splitlines(), 1) if "#" in line]
