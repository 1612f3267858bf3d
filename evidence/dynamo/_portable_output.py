"""Rewrites an experiment's raw output so that it names no path of this machine.

Usage: python _portable_output.py RAW OUT

Tracebacks and Dynamo's log lines name files by absolute path: the experiment's own
(this folder), torch's (the interpreter's site-packages), the standard library's, the
temporary folder's (Inductor's cache) and the home folder. Each becomes a placeholder,
so the committed outputs are the same in every checkout and say nothing of the machine
they were made on. Run by ``run_all.sh`` with the interpreter of the experiments, whose
paths are the ones to replace; it imports nothing but the standard library.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _spellings(path: str) -> set[str]:
    """``path`` as given, absolute and with its links resolved: any of them may be printed."""
    return {p for p in (path, os.path.abspath(path), os.path.realpath(path)) if len(p) > 1}


def replacements() -> list[tuple[str, str]]:
    """(absolute path, placeholder), the longest first so that a folder inside another wins."""
    places = {
        str(HERE): "",  # the experiments name their own file: exp_x.py, as it sits here
        sysconfig.get_paths()["purelib"]: "<site-packages>",
        sysconfig.get_paths()["platlib"]: "<site-packages>",
        sysconfig.get_paths()["stdlib"]: "<stdlib>",
        sysconfig.get_paths()["platstdlib"]: "<stdlib>",
        str(HERE.parents[1]): "<repo>",
        tempfile.gettempdir(): "<tmp>",
        os.path.expanduser("~"): "~",
    }
    if sys.prefix != sys.base_prefix:  # a virtual environment (a system prefix such as /usr is no one's)
        places[sys.prefix] = "<venv>"
    pairs = {(spelling, placeholder) for path, placeholder in places.items() for spelling in _spellings(path)}
    return sorted(pairs, key=lambda pair: -len(pair[0]))


def portable(text: str) -> str:
    for path, placeholder in replacements():
        # A folder is replaced with its separator, so "exp_x.py" is left, not "/exp_x.py";
        # alone, only where the name ends ("/root", not the start of "/rootfs").
        text = text.replace(path + os.sep, placeholder + os.sep if placeholder else "")
        text = re.sub(re.escape(path) + r"(?![\w.-])", placeholder or ".", text)
    return text


def main(raw: str, out: str) -> None:
    text = Path(raw).read_text(encoding="utf-8", errors="backslashreplace")
    Path(out).write_text(portable(text), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
