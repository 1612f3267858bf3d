"""CPython's verdict on a module's text, made once and kept while it may be asked again.

The project index asks CPython's parser about the same module several times and in no
fixed order: its top-level imports (to follow a re-export), its outline (can it bind a
registrar), the gate before libcst parses it, and, for an installed module, each excerpt
widened and each parse with more method bodies. The answers are pure functions of the text,
so one parse serves them all: the verdict is kept per text, for a bounded amount of text
(a tree is 20-40 times the size of its source, so peak memory, not a count, sets the bound).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol, runtime_checkable

from checker.reading.source import Gate, python_gate

#: How many characters of source the kept trees may be of, in all: about 8 MB of trees (the
#: cold torch run's peak RSS is 62 MB; 1 MiB of text would add 17 MB to it, this adds 4).
DEFAULT_CHARACTERS = 256 * 1024


class PythonTrees:
    """:func:`python_gate` of texts, each kept (least recently asked let go first) while the
    texts kept hold at most ``characters`` characters."""

    def __init__(self, characters: int = DEFAULT_CHARACTERS) -> None:
        self.characters = characters
        self._kept: OrderedDict[str, Gate] = OrderedDict()
        self._held = 0

    def gate(self, text: str) -> Gate:
        """CPython's verdict on ``text``, kept for those who ask later."""
        found = self._kept.get(text)
        if found is not None:
            self._kept.move_to_end(text)
            return found
        found = python_gate(text)
        if len(text) <= self.characters:
            self._kept[text] = found
            self._held += len(text)
            while self._held > self.characters:
                dropped, _ = self._kept.popitem(last=False)
                self._held -= len(dropped)
        return found

    def take(self, text: str) -> Gate:
        """CPython's verdict on ``text``, no longer kept: for the last who needs its tree (the
        libcst parse of a module, after which its outline and imports are answered apart),
        so that the tree can go before libcst's is built."""
        found = self._kept.pop(text, None)
        if found is None:
            return python_gate(text)
        self._held -= len(text)
        return found

    def __contains__(self, text: object) -> bool:
        return text in self._kept

    def __len__(self) -> int:
        return len(self._kept)


@runtime_checkable
class KeepsTrees(Protocol):
    """A project index that keeps CPython's verdicts on the texts it reads: a module the
    engine checks is then gated by the same parse the index's questions about it use."""

    @property
    def trees(self) -> PythonTrees: ...
