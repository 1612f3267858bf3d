"""The single pass over a libcst module that builds a ``ScopeTree``.

Statements and expressions with scoping consequences have a handler
(:mod:`checker.facts.scopes.statements`, :mod:`checker.facts.scopes.expressions`);
everything else is walked generically (:mod:`checker.facts.scopes.walker`), with any
``Name`` it reaches counted as a read.
"""

from __future__ import annotations

import libcst as cst

from checker.facts.scopes.expressions import EXPRESSION_HANDLERS, ExpressionHandlers
from checker.facts.scopes.statements import STATEMENT_HANDLERS, StatementHandlers
from checker.facts.scopes.tree import ScopeTree


def build_tree(module: cst.Module) -> ScopeTree:
    """The scopes, bindings, reads and calls of ``module``."""
    return _Builder(module).tree


class _Builder(StatementHandlers, ExpressionHandlers):
    """Walks the module body, then moves ``global``/``nonlocal`` bindings to their owners."""

    handlers = {**STATEMENT_HANDLERS, **EXPRESSION_HANDLERS}

    def __init__(self, module: cst.Module) -> None:
        super().__init__(module)
        self._statements(module.body)
        for scope in self.tree.module.walk():
            self._redirect(scope)
