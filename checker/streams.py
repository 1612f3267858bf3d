"""Writing to the standard streams: text escaped where the stream's encoding cannot show
it, source bytes as they are, and whether a stream is a terminal."""

from __future__ import annotations

import os
import sys
from typing import TextIO


def silence_stdout() -> None:
    """Point stdout's file descriptor at the null device: after a broken pipe, the
    interpreter's final flush must not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file descriptor (captured output): nothing will flush to it


def is_tty(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal; False for one that cannot say."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def write(stream: TextIO, text: str) -> None:
    """Write ``text``, escaping what the stream's encoding cannot show.

    File names need not be valid Unicode on POSIX; such a name must not crash the
    report of every other file.
    """
    if not text:
        return
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
    stream.flush()


def write_bytes(stream: TextIO, data: bytes) -> None:
    """Write source bytes as they are (their encoding is the file's, not the terminal's)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        write(stream, data.decode("utf-8", "replace"))
        return
    stream.flush()
    buffer.write(data)
    buffer.flush()
