"""``# noqa`` comments: which findings the user has suppressed, and which comments did nothing.

On a line, ``# noqa`` suppresses everything on that line and ``# noqa: AIG301,
captured-tensor`` the listed codes or rule names; other tools' codes may share the
list. Anywhere in a file, ``# aigcheck: noqa`` suppresses every finding of the file
and ``# aigcheck: noqa: AIG301`` the listed ones. Only real comments count: the text
is tokenized, so ``"# noqa"`` in a string is not a suppression.

A comment is *unused* (``--report-unused-noqa``) when it suppressed nothing in the
run: a bare comment that suppressed no finding of a rule that ran, or a code or name
of ours whose rule ran and had no finding there. Codes of rules that did not run
(deselected, ignored for the file, planned) are not judged, since nothing can be
said about them, and other tools' codes are never ours to judge.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

_CODES = r"(?P<colon>\s*:\s*(?P<codes>[\w\-]+(?:[\s,]+[\w\-]+)*))?"
_NOQA = re.compile(r"#\s*noqa\b" + _CODES, re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*aigcheck\s*:\s*noqa\b" + _CODES, re.IGNORECASE)
_SEPARATOR = re.compile(r"[\s,]+")

#: Suppresses every finding on its line.
ALL = frozenset({"*"})
#: The key of file-level directives among lines.
_FILE = 0


@dataclass(frozen=True)
class Directive:
    """One suppression comment: where it is and the codes it lists as written (None: bare)."""

    line: int
    column: int
    codes: tuple[str, ...] | None
    file_level: bool = False

    @property
    def lowered(self) -> frozenset[str]:
        return ALL if self.codes is None else frozenset(code.lower() for code in self.codes)

    def __str__(self) -> str:
        prefix = "# aigcheck: noqa" if self.file_level else "# noqa"
        return prefix if self.codes is None else f"{prefix}: {', '.join(self.codes)}"


#: A directive and the lower-cased token of it that matched (None for a bare one).
Hit = tuple[Directive, "str | None"]


@dataclass(frozen=True)
class UnusedNoqa:
    """A suppression comment, or some of its codes, that suppressed nothing."""

    path: str
    directive: Directive
    #: The listed codes that suppressed nothing, as written; empty for a bare comment.
    codes: tuple[str, ...] = ()

    @property
    def line(self) -> int:
        return self.directive.line

    @property
    def column(self) -> int:
        return self.directive.column

    def message(self) -> str:
        where = "in this file" if self.directive.file_level else "on this line"
        if not self.codes:
            return f"unused noqa: '{self.directive}' suppresses nothing {where}"
        verb = "suppresses" if len(self.codes) == 1 else "suppress"
        return f"unused noqa: {', '.join(self.codes)} {verb} nothing {where} ('{self.directive}')"

    def __str__(self) -> str:
        """``path:line:col: unused noqa: AIG302 suppresses nothing on this line ('# noqa: AIG302')``."""
        return f"{self.path}:{self.line}:{self.column}: {self.message()}"

    def less(self, used: Collection[Hit]) -> UnusedNoqa | None:
        """This comment less what ``used`` (hits found by another file's check) covers; None when nothing is left."""
        if not self.codes:
            return None if (self.directive, None) in used else self
        idle = tuple(code for code in self.codes if (self.directive, code.lower()) not in used)
        return replace(self, codes=idle) if idle else None


@dataclass(frozen=True)
class UsedElsewhere:
    """A suppression comment of the file ``path`` that suppressed a finding another file's
    check made there (an installed package's, at the line registering its function): that
    file's own check cannot know it was used."""

    path: str
    hit: Hit


@dataclass(frozen=True)
class NoqaIndex:
    """Line number (1-based) to the lower-cased codes and names suppressed there, and
    the codes suppressed in the whole file (:data:`ALL` for everything)."""

    by_line: dict[int, frozenset[str]]
    file_wide: frozenset[str] = frozenset()
    directives: tuple[Directive, ...] = field(default=(), compare=False)

    @classmethod
    def from_text(cls, text: str) -> NoqaIndex:
        if _NOQA.search(text) is None and _FILE_NOQA.search(text) is None:
            return cls({}, frozenset(), ())  # most files: no need to tokenize them
        directives = [
            directive for line, column, comment in _comments(text) for directive in _parse(line, column, comment)
        ]
        by_line = {d.line: d.lowered for d in directives if not d.file_level}
        file_wide: frozenset[str] = frozenset()
        for directive in directives:
            if directive.file_level:
                file_wide = ALL if ALL in (file_wide, directive.lowered) else file_wide | directive.lowered
        return cls(by_line, file_wide, tuple(directives))

    def suppresses(self, line: int, code: str, name: str) -> bool:
        if _listed(self.file_wide, code, name):
            return True
        return _listed(self.by_line.get(line, frozenset()), code, name)

    def hits(self, line: int, code: str, name: str) -> list[Hit]:
        """Every directive (and token of it) that suppresses ``code`` on ``line``.

        All of them count as used, a line's and the file's alike: when two comments
        both cover a finding, neither is reported as unused.
        """
        found: list[Hit] = []
        for directive in self._at_line.get(line, []) + self._at_line.get(_FILE, []):
            listed = directive.lowered
            if listed is ALL:
                found.append((directive, None))
            else:
                found.extend((directive, token) for token in (code.lower(), name.lower()) if token in listed)
        return found

    @cached_property
    def _at_line(self) -> dict[int, list[Directive]]:
        """The directives by line, file-level ones under :data:`_FILE`."""
        at_line: dict[int, list[Directive]] = {}
        for directive in self.directives:
            at_line.setdefault(_FILE if directive.file_level else directive.line, []).append(directive)
        return at_line

    def unused(self, path: str, used: Collection[Hit], ran: Iterable[tuple[str, str]]) -> list[UnusedNoqa]:
        """The comments (or codes) that suppressed nothing, given the ``used`` hits and
        the (code, name) of each rule that ran on the file."""
        judged = {token.lower() for pair in ran for token in pair}
        unused = []
        for directive in self.directives:
            if directive.codes is None:
                if (directive, None) not in used and judged:
                    unused.append(UnusedNoqa(path, directive))
                continue
            idle = tuple(
                code for code in directive.codes if code.lower() in judged and (directive, code.lower()) not in used
            )
            if idle:
                unused.append(UnusedNoqa(path, directive, idle))
        return unused


def _listed(listed: frozenset[str], code: str, name: str) -> bool:
    return listed is ALL or code.lower() in listed or name.lower() in listed


def _parse(line: int, column: int, comment: str) -> list[Directive]:
    directives = []
    for pattern, file_level in ((_FILE_NOQA, True), (_NOQA, False)):
        match = pattern.search(comment)
        if match is None:
            continue
        codes = match.group("codes")
        listed = None if codes is None else tuple(c for c in _SEPARATOR.split(codes) if c)
        directives.append(Directive(line, column + match.start(), listed, file_level))
    return directives


def _comments(text: str) -> list[tuple[int, int, str]]:
    """Each comment as (line, 1-based column, text)."""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return [(tok.start[0], tok.start[1] + 1, tok.string) for tok in tokens if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        # Syntax newer than this interpreter can still be commented: fall back to
        # lines, accepting that a suppression comment quoted inside a string would count.
        return [
            (number, line.index("#") + 1, line[line.index("#") :])
            for number, line in enumerate(text.splitlines(), 1)
            if "#" in line
        ]
