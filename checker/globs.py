"""Glob patterns of the configuration (``exclude``, ``per-file-ignores``), matched in
linear time.

``*`` matches any run of characters, ``/`` included; ``**/`` matches any number of
directories, none included; ``?`` and ``[...]`` are as in :mod:`fnmatch`. Writing each
``**/`` as "kept or dropped" and trying every combination costs 2**n matches for n of
them, and a regular expression with n nested ``.*`` can backtrack as badly. Instead
the pattern is read as a small automaton and the path is run through it once,
tracking every position the pattern could be at: at most (pattern length) x (path
length) steps, whatever the pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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


@lru_cache(maxsize=256)
def _compile(pattern: str) -> tuple[_Step, ...]:
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


def glob_matches(pattern: str, path: str, *, or_a_parent: bool = False) -> bool:
    """Whether the whole of ``path`` matches ``pattern`` (case-sensitive); with
    ``or_a_parent``, or a directory above it does (``a`` or ``a/b`` of ``a/b/c.py``),
    found in the same single pass."""
    steps = _compile(pattern)
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
