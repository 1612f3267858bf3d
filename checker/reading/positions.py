"""Source spans for the few nodes that are reported.

libcst's ``PositionProvider`` answers by code-generating the module while turning every
token into a line and column; through ``MetadataWrapper`` it also walks the tree once
more first. On a file with findings that cost twice the parse. Here the same
code generation only notes, per node, how many tokens had been written when it started
and ended, and stops at the last node wanted; token counts become character offsets
with one running sum, and offsets become lines and columns from the generated text. The spans are exactly
``PositionProvider``'s (a test compares them on every node of real files).

This leans on libcst's code-generation hooks (``CodegenState``, the class its own
position providers extend); if they ever change shape, ``PositionProvider`` is used.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import libcst as cst

Span = tuple[tuple[int, int], tuple[int, int]]

#: What libcst counts as a line break when it numbers lines.
_NEWLINE = re.compile(r"\r\n?|\n")


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, Span]:
    """1-based (line, column) start and end of each node."""
    wanted = list(nodes)
    try:
        return _locate_by_token_counts(module, wanted)
    except Exception:  # noqa: BLE001 - libcst internals moved: fall back to the public provider
        return _locate_with_provider(module, wanted)


def _locate_by_token_counts(module: cst.Module, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, Span]:
    from libcst._nodes.internal import CodegenState

    @dataclass
    class CountingState(CodegenState):
        """Code generation that records (first token, end token) per node, and stops once
        every wanted node has its span."""

        wanted: set[cst.CSTNode] = field(default_factory=set)
        marks: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)
        stack: list[int] = field(default_factory=list)
        stopping: bool = False

        def mark(self, node: cst.CSTNode, span: tuple[int, int]) -> None:
            self.marks[node] = span
            if node in self.wanted:
                self.wanted.discard(node)
                if not self.wanted:
                    self.stopping = True
                    raise _AllLocated

        def pop_trailing_newline(self) -> None:
            pass  # keep every recorded token index valid; the extra newline is never located

        def before_codegen(self, node: cst.CSTNode) -> None:
            self.stack.append(len(self.tokens))

        def after_codegen(self, node: cst.CSTNode) -> None:
            start = self.stack.pop()
            if node not in self.marks:  # a syntactic span recorded inside wins
                self.mark(node, (start, len(self.tokens)))

        def record_syntactic_position(  # type: ignore[override]  # libcst internal, typed as the @contextmanager it happens to be; libcst only enters it
            self,
            node: cst.CSTNode,
            *,
            start_node: cst.CSTNode | None = None,
            end_node: cst.CSTNode | None = None,
        ) -> _SyntacticSpan:
            return _SyntacticSpan(self, node, start_node, end_node)

    state = CountingState(
        default_indent=module.default_indent, default_newline=module.default_newline, wanted=set(nodes)
    )
    if state.wanted:
        try:
            module._codegen(state)
        except _AllLocated:
            pass
    offsets = [0, *accumulate(len(token) for token in state.tokens)]
    code = "".join(state.tokens)
    line_starts = [0, *(match.end() for match in _NEWLINE.finditer(code))]

    def position(token_index: int) -> tuple[int, int]:
        offset = offsets[token_index]
        line = bisect.bisect_right(line_starts, offset)
        return line, offset - line_starts[line - 1] + 1

    spans: dict[cst.CSTNode, Span] = {}
    for node in nodes:
        start, end = state.marks[node]
        spans[node] = (position(start), position(end))
    return spans


class _SyntacticSpan:
    """``record_syntactic_position`` as a plain context manager: libcst enters one per
    expression and statement, and a generator-based one costs twice as much."""

    __slots__ = ("end_node", "node", "start", "start_node", "state")

    def __init__(self, state: Any, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None):
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node
        self.start = 0

    def __enter__(self) -> None:
        self.start = len(self.state.tokens)

    def __exit__(self, *_: object) -> None:
        state = self.state
        if state.stopping:
            return
        start, end = self.start, len(state.tokens)
        if self.start_node is not None:
            start = state.marks[self.start_node][0]
        if self.end_node is not None:
            end = state.marks[self.end_node][1]
        state.mark(self.node, (start, end))


class _AllLocated(Exception):
    """Every wanted node has its span: the rest of the module need not be generated."""


def _locate_with_provider(module: cst.Module, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, Span]:
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    spans: dict[cst.CSTNode, Span] = {}
    for node in nodes:
        code_range = positions[node]
        spans[node] = (
            (code_range.start.line, code_range.start.column + 1),
            (code_range.end.line, code_range.end.column + 1),
        )
    return spans
