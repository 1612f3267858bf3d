"""Shared by the result rules: each returned expression of each registered body."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.kinds.annotations import Judgement
from checker.facts.kinds.classes import ClassModel
from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import Body, Target, TargetKind
from checker.facts.scopes.tree import Scope, ScopeKind
from checker.rules import _wording as words
from checker.spec import torch_api as api
from checker.spec.messages import Function


def result_bodies(facts: ModuleFacts) -> Iterator[Body]:
    """Each honoured body whose result is judged: all but the few torch functions whose
    bool result Dynamo turns into a constant."""
    for _, body in facts.bodies():
        node = body.node
        if isinstance(node, cst.FunctionDef) and f"{facts.dotted}.{node.name.value}" in api.CONSTANT_BOOL_RESULTS:
            continue
        yield body


def returned(facts: ModuleFacts) -> Iterator[tuple[Function, Body, cst.BaseExpression, Scope]]:
    """(function name, body, returned expression, its scope) for every honoured body.

    A lambda returns its body expression; an ``autograd.Function`` only its ``forward``
    (what ``apply`` returns).
    """
    for body in result_bodies(facts):
        node = body.node
        if isinstance(node, cst.Lambda):
            yield words.function(body), body, node.body, body.scope
            continue
        if node.name.value in ("backward", "setup_context") and body.scope.parent is not None:
            if body.scope.parent.kind is ScopeKind.CLASS:
                continue
        for value in body.scope.returns:
            yield words.function(body), body, value, body.scope


def return_annotations(facts: ModuleFacts) -> Iterator[tuple[Body, cst.Annotation, Judgement]]:
    """(body, its return annotation, how the contract judges it as a result) per honoured body."""
    for body in result_bodies(facts):
        node = body.node
        if isinstance(node, cst.FunctionDef) and node.returns is not None:
            yield body, node.returns, facts.judge.result(node.returns.annotation, body.scope.parent or body.scope)


def registered_classes(facts: ModuleFacts) -> Iterator[tuple[Target, ClassModel]]:
    """Registered classes that are neither autograd.Functions nor modules: constructing
    one in compiled code is a call of the graph."""
    for target in facts.targets:
        if target.kind is TargetKind.CLASS and isinstance(target.definition, cst.ClassDef):
            yield target, facts.inference.class_model(target.definition)
