"""Shared by the result rules: each returned expression of each registered body."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.facts.scopes import Scope
from checker.facts.targets import Body


def returned(facts: ModuleFacts) -> Iterator[tuple[str, Body, cst.BaseExpression, Scope]]:
    """(function name, body, returned expression, its scope) for every honoured body.

    A lambda returns its body expression; an ``autograd.Function`` only its ``forward``
    (what ``apply`` returns).
    """
    for _, body in facts.bodies():
        node = body.node
        if isinstance(node, cst.Lambda):
            yield "<lambda>", body, node.body, body.scope
            continue
        if node.name.value in ("backward", "setup_context") and body.scope.parent is not None:
            if body.scope.parent.kind.value == "class":
                continue
        for value in body.scope.returns:
            yield node.name.value, body, value, body.scope
