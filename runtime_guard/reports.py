"""What the ``aigcheck`` backend saw: one :class:`GraphReport` per graph it compiled.

``torch.compile`` hands a backend one graph per compiled frame and per piece of a frame
split by graph breaks (a resume function is a frame of its own), so one call of a
compiled function can produce several graphs. :func:`reports` returns all of them;
``compile_id`` (Dynamo's ``frame/recompile`` id, ``"0/0"``) tells which compile each
belongs to. :func:`last_report` is only the most recent graph.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from runtime_guard.errors import Violation


class Guard(enum.Enum):
    """How a graph node calling a registered function was checked."""

    #: The node calls the guarded wrapper ``runtime_guard.allow_in_graph`` returned.
    WRAPPER = "runtime_guard wrapper"
    #: The node called the registered function itself; the backend put a guarded wrapper in
    #: its place for AOTAutograd's traces (a call form, or torch's own allow_in_graph).
    SWAPPED = "swapped in by the backend"


@dataclass(frozen=True)
class RegisteredCall:
    """One graph node that calls a registered function."""

    function: str
    node: str
    guard: Guard


@dataclass(frozen=True)
class GraphBreak:
    """One reason Dynamo gave for graph breaks, and how many times it counted it."""

    reason: str
    count: int

    @property
    def summary(self) -> str:
        """The first two lines of Dynamo's reason (the kind of break and its explanation)."""
        return " | ".join(line.strip() for line in self.reason.strip().splitlines()[:2])


@dataclass(frozen=True)
class GraphReport:
    """What the backend saw in one graph."""

    index: int
    #: Dynamo's compile id of the frame this graph came from (``"0/0"``, ``"1/0"``).
    compile_id: str
    compiler: str
    nodes: int
    calls: tuple[RegisteredCall, ...]
    #: Registered functions whose body Dynamo traced into this graph instead of calling it (AIG402).
    traced_bodies: tuple[str, ...]
    #: Graph breaks counted by Dynamo since the previous graph.
    graph_breaks: tuple[GraphBreak, ...]
    #: Violations recorded from the previous graph's end to this graph's compiled end.
    violations: tuple[Violation, ...]


_reports: list[GraphReport] = []


def reports(compile_id: str | None = None) -> list[GraphReport]:
    """Every graph report since the last :func:`clear_reports`, oldest first; with
    ``compile_id``, only the graphs of that compile."""
    return [r for r in _reports if compile_id is None or r.compile_id == compile_id]


def last_report() -> GraphReport | None:
    """The report of the most recent graph only. A function that graph-breaks is compiled
    as several graphs, each with its own report: use :func:`reports` to see them all."""
    return _reports[-1] if _reports else None


def add(report: GraphReport) -> None:
    """Keep ``report`` (the backend's, after each graph)."""
    _reports.append(report)


def count() -> int:
    """How many reports are kept."""
    return len(_reports)


def clear() -> None:
    """Forget every report."""
    _reports.clear()
