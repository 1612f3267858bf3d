"""One program run with torch's ``allow_in_graph`` and under the guard, to compare what it computes.

The guard's promise is torch's behaviour: a program gives the same results with plain torch
and under ``runtime_guard.install()`` in ``warn`` and ``raise`` mode. :func:`outcome` runs a
program in one mode, from a clean Dynamo and registry, and returns what it returned (or the
exception it raised) with the codes of the violations the guard recorded.
"""

from __future__ import annotations

import importlib
import os
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
import torch._dynamo

import runtime_guard as rg

#: Plain torch, then ``install()`` with each strict mode.
MODES = ("torch", "warn", "raise")


@contextmanager
def guarded(mode: str) -> Iterator[None]:
    """Plain torch (``"torch"``), or ``install()`` with strict ``mode``; Dynamo and the
    registry clean before and after."""
    torch._dynamo.reset()
    rg.registry.clear_violations()
    try:
        if mode == "torch":
            yield
            return
        rg.install()
        with rg.strict(mode), warnings.catch_warnings():
            warnings.simplefilter("ignore", rg.ContractWarning)
            yield
    finally:
        rg.uninstall()
        rg.set_strict("off")
        torch._dynamo.reset()


def outcome(program: Callable[[str], Any], mode: str) -> tuple[Any, list[str]]:
    """``program(mode)``'s result in ``mode`` (an exception as ``("raised", type name)``) and
    the codes the guard recorded."""
    with guarded(mode):
        try:
            result = program(mode)
        except Exception as error:  # noqa: BLE001 - compared across modes
            result = ("raised", type(error).__name__, str(error).splitlines()[0] if str(error) else "")
        found = [v.code for v in rg.registry.violations()]
    rg.registry.clear_violations()
    return result, found


def write_module(folder: Path, name: str, source: str) -> Path:
    """``folder/name.py`` with ``source``, dated after any earlier version (a reload must read it)."""
    path = folder / f"{name}.py"
    stamp = path.stat().st_mtime + 10 if path.exists() else None
    path.write_text(textwrap.dedent(source))
    if stamp is not None:
        os.utime(path, (stamp, stamp))
    return path


@contextmanager
def importable(folder: Path) -> Iterator[None]:
    """``folder`` on ``sys.path``; the modules imported from it forgotten afterwards."""
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in set(sys.modules) - before:
            if getattr(sys.modules[name], "__file__", "") and str(folder) in sys.modules[name].__file__:
                del sys.modules[name]
