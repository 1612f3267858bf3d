"""Source spans for the few nodes that are reported.

Positions cost a full pass over the tree, so they are computed only for files that
have findings, and only looked up for the reported nodes.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

Span = tuple[tuple[int, int], tuple[int, int]]


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, Span]:
    """1-based (line, column) start and end of each node."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    spans: dict[cst.CSTNode, Span] = {}
    for node in nodes:
        code_range = positions[node]
        spans[node] = (
            (code_range.start.line, code_range.start.column + 1),
            (code_range.end.line, code_range.end.column + 1),
        )
    return spans
