"""Unified diffs of fixed files (``--diff``), as ``patch -p0`` and ``git apply`` read them.

A file's name goes into the ``---`` and ``+++`` headers quoted the way git quotes it, so
that no name from the checked tree can end a header early and name another file: a folder
called ``d\\n+++ victim`` would otherwise make ``patch`` rewrite ``victim/k.py``.
"""

from __future__ import annotations

import difflib
import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
#: The bytes git writes as C escapes in a quoted name; the others it quotes go in octal.
_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}


def unified_diff(before: str, after: str, path: str) -> str:
    """A unified diff of one file, as ``patch -p0`` reads it."""
    name = quoted_name(path)
    out = []
    for line in difflib.unified_diff(_LINE.findall(before), _LINE.findall(after), name, name):
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def quoted_name(path: str) -> str:
    """``path`` as git writes it in a diff header: in double quotes, with C escapes (octal
    for the bytes of a name that are not printable ASCII), when it holds a control
    character, a quote, a backslash or a byte outside ASCII; else as it is, followed by a
    tab when it holds a space (so that the space is not read as the end of the name)."""
    data = _bytes(path)
    if any(byte < 0x20 or byte >= 0x7F or byte in (34, 92) for byte in data):
        return '"' + "".join(_quoted(byte) for byte in data) + '"'
    return path + "\t" if " " in path else path


def _quoted(byte: int) -> str:
    if byte in _ESCAPES:
        return _ESCAPES[byte]
    if byte < 0x20 or byte >= 0x7F:
        return f"\\{byte:03o}"
    return chr(byte)


def _bytes(path: str) -> bytes:
    """The name's bytes on disk: a name that is not UTF-8 comes with its bytes escaped as surrogates."""
    try:
        return path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no file system byte became
        return path.encode("utf-8", "surrogatepass")
