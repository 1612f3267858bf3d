"""A one-line progress indicator for long runs on a terminal (stderr only)."""

from __future__ import annotations

import time
from typing import TextIO

#: Runs shorter than this show nothing.
_DELAY = 1.0
#: Redraw at most this often.
_INTERVAL = 0.1


class Progress:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self._drawn = 0.0
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.started < _DELAY or now - self._drawn < _INTERVAL:
            return
        self._drawn = now
        self._shown = True
        self.stream.write(f"\raigcheck: checked {done}/{total} files")
        self.stream.flush()

    def clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
