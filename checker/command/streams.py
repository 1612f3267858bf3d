"""Writing to the standard streams: text escaped where the stream's encoding cannot show
it, source bytes as they are, and whether a stream is a terminal.

Every write is whole and flushed at once, so a failure is met where it happens: writing
standard output fails the run with :class:`OutputError` (a closed or full output, or a
reader gone: ``aigcheck . | head -1``), while standard error is best effort (a note that
cannot be shown must not cost the findings on stdout).
"""

from __future__ import annotations

import errno
import os
import select
import sys
from typing import BinaryIO, TextIO


class OutputError(Exception):
    """Standard output (or the stream the report goes to) cannot be written."""

    def __init__(self, error: OSError | ValueError) -> None:
        self.errno = error.errno if isinstance(error, OSError) else errno.EBADF
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "it is closed"
        super().__init__(f"cannot write to standard output: {reason}; send it where it can be written (> FILE)")

    @property
    def reader_gone(self) -> bool:
        """The reader closed its end of a pipe: it has read all it wanted, which is no error."""
        return self.errno == errno.EPIPE


def silence_stdout() -> None:
    """Point stdout's file descriptor at the null device: after a failed write, the
    interpreter's final flush of what stdout still holds must not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # closed, or not a real file descriptor (captured output): nothing will flush to it


def is_tty(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal; False for one that cannot say."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def write(stream: TextIO | None, text: str) -> None:
    """Write ``text`` and flush it, escaping what the stream's encoding cannot show.

    File names need not be valid Unicode on POSIX; such a name must not crash the
    report of every other file. Raises :class:`OutputError` when the stream cannot be
    written, unless it is standard error.
    """
    if not text:
        return
    try:
        _write_text(_open(stream), text)
    except (OSError, ValueError) as error:  # ValueError: the stream object was closed
        _failed(stream, error)


def write_bytes(stream: TextIO | None, data: bytes) -> None:
    """Write source bytes as they are (their encoding is the file's, not the terminal's)."""
    if not data:
        return
    try:
        _write_bytes(_open(stream), data)
    except (OSError, ValueError) as error:
        _failed(stream, error)


def _failed(stream: TextIO | None, error: OSError | ValueError) -> None:
    if stream is sys.stderr and stream is not sys.stdout:
        return  # nowhere left to say it, and the findings go elsewhere
    raise OutputError(error) from None


def _open(stream: TextIO | None) -> TextIO:
    if stream is None:  # the descriptor was closed when the interpreter started (``>&-``)
        raise OSError(errno.EBADF, "it is closed")
    return stream


def _write_text(stream: TextIO, text: str) -> None:
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if buffer is None:  # a text stream with no bytes beneath (io.StringIO)
        try:
            stream.write(text)
        except UnicodeEncodeError:
            stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        stream.flush()
        return
    if os.linesep != "\n":  # as the text layer would have translated it
        text = text.replace("\n", os.linesep)
    _write_bytes(stream, text.encode(encoding, "backslashreplace"))


def _write_bytes(stream: TextIO, data: bytes) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        _write_text(stream, data.decode("utf-8", "replace"))
        return
    stream.flush()  # whatever the text layer holds goes first
    buffer.flush()
    _write_all(getattr(buffer, "raw", buffer), data)


def _write_all(raw: BinaryIO, data: bytes) -> None:
    """Write all of ``data``: an unbuffered stream (``python -u``) may take part of it
    (a signal arrives, a pipe fills) and a non-blocking one may take none for now."""
    view = memoryview(data)
    while view:
        written = raw.write(view)
        if written is None:  # non-blocking and full: wait until it drains
            select.select([], [raw], [])
            continue
        view = view[written:]
    raw.flush()
