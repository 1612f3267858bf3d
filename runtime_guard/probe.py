"""The self test's probe: change each Python scalar a function reads, call again, compare.

Dynamo does not guard on what a registered function reads (evidence S§1b, D§3, D§7),
so a compiled call that ignores the change froze the value at compile time: AIG302. The
values probed are those :mod:`runtime_guard.captures` finds: closure cells, globals,
attributes of captured modules (``config.LOSS_SCALE``) and of captured objects
(``cfg.eps``, ``self.k``). UPPER_CASE globals and module attributes are constants by
convention (PEP 8) and are probed only when some function visibly rebinds them, as the
registration-time check decides; changing a real constant would only be noise.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime_guard import captures
from runtime_guard.captures import Capture, Origin

_NUMBERS = (bool, int, float)


@dataclass(frozen=True)
class Probe:
    """One Python number the function reads, and how to read and change it."""

    label: str
    read: Callable[[], Any]
    write: Callable[[Any], None]

    def changed(self) -> object:
        """A different value of the same type."""
        value = self.read()
        return (not value) if isinstance(value, bool) else value * 2 + 1


def _holder(capture: Capture, fn: types.FunctionType) -> tuple[Callable[[], Any], Callable[[Any], None]] | None:
    """Read and write access to where ``capture`` lives."""
    name = capture.name.rpartition(".")[2]
    if capture.origin is Origin.CELL:
        cell = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False)).get(name)
        return (lambda: cell.cell_contents, lambda v: setattr(cell, "cell_contents", v)) if cell else None
    if capture.origin is Origin.GLOBAL:
        namespace = fn.__globals__
        return (lambda: namespace[name], lambda v: namespace.__setitem__(name, v))
    if capture.owner is not None:
        owner = capture.owner.value
        return (lambda: getattr(owner, name), lambda v: setattr(owner, name, v))
    return None


def probes(fn: Callable[..., Any]) -> list[Probe]:
    """The Python numbers ``fn`` reads that the probe may change."""
    func = captures.code_of(fn)
    if func is None:
        return []
    stateful = {finding.capture.name for finding in captures.judge(fn) if finding.code == "AIG302"}
    found: list[Probe] = []
    for capture in captures.captures(fn):
        value, name = capture.value, capture.name
        if not isinstance(value, _NUMBERS) or capture.origin in (Origin.DEFAULT, Origin.KWDEFAULT):
            continue
        constant = name.rpartition(".")[2].isupper() and name not in stateful
        if capture.origin is not Origin.CELL and constant:
            continue
        holder = _holder(capture, func)
        if holder is not None:
            found.append(Probe(_label(capture), *holder))
    return found


def _label(capture: Capture) -> str:
    if capture.origin is Origin.CELL:
        return f"closure variable '{capture.name}'"
    if capture.origin is Origin.GLOBAL:
        return f"global '{capture.name}'"
    if capture.owner is not None and isinstance(capture.owner.value, types.ModuleType):
        return f"module attribute '{capture.name}'"
    return f"object attribute '{capture.name}'"
