"""Applying rule fixes to a parsed module (``--fix``, ``--diff``)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from checker.rules.base import Fix


class _Replacer(cst.CSTTransformer):
    def __init__(self, fixes: Sequence[Fix]) -> None:
        super().__init__()
        self._replacements = {fix.node: fix.replacement for fix in fixes}

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        return self._replacements.get(original_node, updated_node)


def apply_fixes(module: cst.Module, fixes: Sequence[Fix]) -> str:
    """The module's code with each fix's node replaced; untouched text stays byte-identical."""
    return module.visit(_Replacer(fixes)).code
