"""Glob patterns of the configuration (``exclude``, ``per-file-ignores``), matched in
linear time, and sets of many patterns compiled once (:class:`PatternSet`).

``*`` matches any run of characters, ``/`` included; ``**/`` matches any number of
directories, none included; ``?`` and ``[...]`` are as in :mod:`fnmatch`. Writing each
``**/`` as "kept or dropped" and trying every combination costs 2**n matches for n of
them, and a regular expression with n nested ``.*`` can backtrack as badly. Instead
the pattern is read as a small automaton and the path is run through it once,
tracking every position the pattern could be at: at most (pattern length) x (path
length) steps, whatever the pattern.

The command line's ``--exclude`` patterns are :func:`fnmatch.fnmatchcase` globs instead
(:attr:`Dialect.FNMATCH`): the same, except that ``**/`` is two stars and a ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from fnmatch import translate
from functools import lru_cache


@dataclass(frozen=True)
class _Step:
    """One piece of a pattern.

    ``char`` matches itself; ``one`` is a predicate for one character (``?``, a class);
    ``star`` stays on any character; ``skip_to`` may be jumped to without reading
    anything (a ``**/`` that matches no directory).
    """

    char: str | None = None
    one: re.Pattern[str] | None = None
    star: bool = False
    skip_to: int | None = None

    def takes(self, char: str) -> bool:
        if self.star:
            return False  # handled by staying in place
        if self.one is not None:
            return self.one.match(char) is not None
        return char == self.char


_ANY = re.compile(r"(?s:.)\Z")


def _steps(pattern: str) -> tuple[_Step, ...]:
    steps: list[_Step] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            # Either nothing, or any run of characters ending in "/".
            steps.append(_Step(skip_to=len(steps) + 3))
            steps += [_Step(star=True), _Step(char="/")]
            index += 3
        elif char == "*":
            if not (steps and steps[-1].star):  # "**" is "*"
                steps.append(_Step(star=True))
            index += 1
        elif char == "?":
            steps.append(_Step(one=_ANY))
            index += 1
        elif char == "[" and (end := _class_end(pattern, index)) is not None:
            steps.append(_Step(one=re.compile(translate(pattern[index : end + 1]))))
            index = end + 1
        else:
            steps.append(_Step(char=char))
            index += 1
    return tuple(steps)


def _class_end(pattern: str, start: int) -> int | None:
    """The index of the ``]`` that closes the class opened at ``start``, as fnmatch reads it."""
    index = start + 1
    if index < len(pattern) and pattern[index] == "!":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    end = pattern.find("]", index)
    return end if end >= 0 else None


_compile = lru_cache(maxsize=256)(_steps)


def glob_matches(pattern: str, path: str, *, or_a_parent: bool = False) -> bool:
    """Whether the whole of ``path`` matches ``pattern`` (case-sensitive); with
    ``or_a_parent``, or a directory above it does (``a`` or ``a/b`` of ``a/b/c.py``),
    found in the same single pass."""
    return _run(_compile(pattern), path, or_a_parent)


def _run(steps: tuple[_Step, ...], path: str, or_a_parent: bool = False) -> bool:
    current = _closure(steps, {0})
    for char in path:
        if or_a_parent and char == "/" and len(steps) in current:
            return True
        following = {at for at in current if at < len(steps) and steps[at].star}
        following |= {at + 1 for at in current if at < len(steps) and steps[at].takes(char)}
        if not following:
            return False
        current = _closure(steps, following)
    return len(steps) in current


def _closure(steps: tuple[_Step, ...], positions: set[int]) -> set[int]:
    """``positions`` and every position reachable from them without reading a character."""
    reached = set(positions)
    pending = list(positions)
    while pending:
        at = pending.pop()
        if at >= len(steps):
            continue
        step = steps[at]
        targets = [at + 1] if step.star else []
        if step.skip_to is not None:
            targets += [at + 1, step.skip_to]
        for target in targets:
            if target not in reached:
                reached.add(target)
                pending.append(target)
    return reached


class Dialect(Enum):
    """How a pattern of a :class:`PatternSet` reads."""

    #: :func:`glob_matches`: ``**/`` is any number of directories, none included.
    GLOB = "glob"
    #: :func:`fnmatch.fnmatchcase`: ``**/`` is two stars and a ``/``.
    FNMATCH = "fnmatch"


class PatternSet:
    """Many patterns compiled once: whether any of them matches a path, each pattern
    matching exactly as it does alone (:func:`glob_matches` or ``fnmatchcase``).

    A path is tried only against the patterns that could match it. A pattern without a
    wildcard is looked up in a set. One with a literal head (``gen/*``: the text before
    its first wildcard) is filed under it, and is tried only on paths that start with it;
    one that starts with a wildcard but has a literal tail (``*_pb2.py``) is tried only on
    paths that end with it. Only patterns with wildcards at both ends (``*gen*``) are tried
    on every path. So 100,000 names or paths to exclude cost a few dictionary lookups per
    path, where trying each pattern cost 100,000 matches.
    """

    def __init__(self, patterns: Iterable[str], dialect: Dialect) -> None:
        self._dialect = dialect
        literals: set[str] = set()
        self._heads: dict[str, list[str]] = {}
        self._tails: dict[str, list[str]] = {}
        floating: list[str] = []
        for pattern in dict.fromkeys(patterns):  # each once, in the order given
            span = _wildcards(pattern, dialect)
            if span is None:
                literals.add(pattern)
            elif span[0] > 0:
                self._heads.setdefault(pattern[: span[0]], []).append(pattern)
            elif span[1] < len(pattern):
                self._tails.setdefault(pattern[span[1] :], []).append(pattern)
            else:
                floating.append(pattern)
        self._literals = frozenset(literals)
        self._head_lengths = sorted({len(head) for head in self._heads})
        self._tail_lengths = sorted({len(tail) for tail in self._tails})
        self._floating = tuple(floating)
        #: Each pattern's matcher, made the first time a path could match it.
        self._matchers: dict[str, Callable[[str], bool]] = {}

    def __bool__(self) -> bool:
        return bool(self._literals or self._heads or self._tails or self._floating)

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "_matchers": {}}  # made again where needed: they do not pickle

    def matches(self, path: str, *, or_a_parent: bool = False) -> bool:
        """Whether a pattern matches the whole of ``path``; with ``or_a_parent``, or a
        directory above it (``a`` or ``a/b`` of ``a/b/c.py``)."""
        if or_a_parent:
            ends = [index for index, char in enumerate(path) if char == "/"]
            return any(self._matches(path[:end]) for end in [*ends, len(path)])
        return self._matches(path)

    def _matches(self, path: str) -> bool:
        if path in self._literals:
            return True
        for length in self._head_lengths:
            if length > len(path):
                break
            if any(self._matcher(pattern)(path) for pattern in self._heads.get(path[:length], ())):
                return True
        for length in self._tail_lengths:
            if length > len(path):
                break
            if any(self._matcher(pattern)(path) for pattern in self._tails.get(path[len(path) - length :], ())):
                return True
        return any(self._matcher(pattern)(path) for pattern in self._floating)

    def _matcher(self, pattern: str) -> Callable[[str], bool]:
        matcher = self._matchers.get(pattern)
        if matcher is None:
            if self._dialect is Dialect.GLOB:
                steps = _steps(pattern)
                matcher = self._matchers[pattern] = lambda path: _run(steps, path)
            else:
                found = re.compile(translate(pattern)).match
                matcher = self._matchers[pattern] = lambda path: found(path) is not None
        return matcher


def _wildcards(pattern: str, dialect: Dialect) -> tuple[int, int] | None:
    """Where the wildcards of ``pattern`` begin and end (the start of the first, the end
    of the last), read as :func:`_steps` and fnmatch read them; None for a literal."""
    first: int | None = None
    last = 0
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if dialect is Dialect.GLOB and pattern.startswith("**/", index):
            end = index + 3  # "**/" is one piece: it may match nothing, its "/" included
        elif char in "*?":
            end = index + 1
        elif char == "[" and (close := _class_end(pattern, index)) is not None:
            end = close + 1
        else:
            index += 1
            continue
        first = index if first is None else first
        last = end
        index = end
    return None if first is None else (first, last)
