"""Shared by the parameter rules: judging each argument-receiving parameter once."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.kinds.annotations import Judgement
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.spec.contract import Verdict
from checker.spec.messages import Function


def judged_parameters(facts: ModuleFacts, verdict: Verdict) -> Iterator[tuple[Function, cst.Param, Judgement]]:
    """(function name, parameter, judgement) for annotated parameters whose worst verdict is ``verdict``."""
    for _, body, param in facts.arguments():
        if param.annotation is None:
            continue
        judgement = facts.judge.argument(param.annotation.annotation, body.scope.parent or body.scope)
        if judgement.verdict is verdict:
            yield words.function(body), param, judgement
