"""The lookups of one recursive question in progress (kinds, or qualified names).

They give up on a cycle (a lookup already open) and on depth. A question asked of a
name, not of one node, is memoised by (name, scope) so that a name bound thousands of
times costs its bindings once, not once per read; but an answer that leaned on a
lookup given up *below* it (opened before it) depends on where the question started,
so only answers that did not, the settled ones, are kept.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

_NO_CUT = sys.maxsize


class Lookups:
    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self._open: dict[Hashable, int] = {}  # each open lookup and how many were open before it
        self._deep = 0  # open lookups that count toward the depth
        self._lowest_cut = _NO_CUT  # the shallowest open lookup a given-up answer leaned on

    def enter(self, key: Hashable, *, deep: bool = True) -> bool:
        """Open a lookup; False when it must give up instead: it is open already, or
        (``deep``) more than ``max_depth`` deep lookups are."""
        depth = self._open.get(key)
        if depth is not None:
            self._lowest_cut = min(self._lowest_cut, depth)
            return False
        if deep and self._deep > self.max_depth:
            self._lowest_cut = -1  # depends on how deep every open lookup started
            return False
        self._open[key] = len(self._open)
        self._deep += deep
        return True

    def leave(self, key: Hashable, *, deep: bool = True) -> None:
        del self._open[key]
        self._deep -= deep

    def settle(self, key: Hashable, compute: Callable[[], T]) -> tuple[T, bool] | None:
        """``compute()`` as a lookup open under ``key``, not counted toward the depth: its
        answer and whether it is settled (fit to memoise); None when ``key`` is open already."""
        if not self.enter(key, deep=False):
            return None
        depth = self._open[key]
        outer, self._lowest_cut = self._lowest_cut, _NO_CUT
        try:
            result = compute()
        finally:
            self.leave(key, deep=False)
            settled = self._lowest_cut >= depth
            self._lowest_cut = min(outer, self._lowest_cut)
        return result, settled
