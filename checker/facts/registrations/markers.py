"""The other Dynamo markers a module applies to what it registers (AIG406).

A marker is a decorator or a call: ``@torch.compiler.disable``, ``nonstrict_trace(f)``,
``disallow_in_graph(f)``. It marks a def or class of this module, or a name this module
imports: ``from .kernels import f; allow_in_graph(f); disallow_in_graph(f)`` marks the
other module's ``f`` here, where both calls are written.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Kind
from checker.facts.registrations.sites import Form, Registration, registered_argument
from checker.facts.registrations.targets import Target
from checker.facts.scopes.tree import Binding, BindingKind, Scope, ScopeTree
from checker.spec import torch_api as api
from checker.spec.links import Place

#: A marker and the decorator or call of this module that applies it.
Local = tuple[api.Marker, cst.CSTNode]
#: A marker and the decorator or call that applies it, or its place in another module.
Applied = tuple[api.Marker, cst.CSTNode | Place]


class ImportedMarkers(Protocol):
    """What judging a registration of another module's def asks of that module."""

    def markers(self, module: str, name: str, checked: str) -> list[tuple[api.Marker, Place]]:
        """The markers the module file ``module`` applies to its top-level def or class
        ``name``, placed as facts about the module at ``checked`` cite them."""
        ...


class Markers:
    def __init__(self, tree: ScopeTree, inference: Inference, registrations: Sequence[Registration]) -> None:
        self.tree = tree
        self.inference = inference
        self._registering_calls = {id(r.site) for r in registrations if r.form is Form.CALL}

    def on(self, target: Target) -> list[Local]:
        """The markers applied to what ``target`` registers."""
        if target.definition is not None:
            return self.of_definitions.get(target.definition, [])
        registration = target.registration
        if registration.form is not Form.CALL or not isinstance(target.node, (cst.Name, cst.Attribute)):
            return []
        return [
            applied
            for name in self._imported(target.node, registration.scope)
            for applied in self.of_imports.get(name, [])
        ]

    def overriding(self, target: Target) -> api.Marker | None:
        """The marker that wins over this registration, when the code says which one does.

        nonstrict_trace and leaf_function win in either order; a decorator applied
        after (above) ``@allow_in_graph`` wins (evidence/dynamo/FINDINGS.md D2).
        """
        for marker, node in self.on(target):
            if marker.wins_in_any_order:
                return marker
            definition = target.definition
            if (
                isinstance(node, cst.Decorator)
                and isinstance(definition, (cst.FunctionDef, cst.ClassDef))
                and target.registration.form is Form.DECORATOR
                and list(definition.decorators).index(node) < target.registration.decorator_index
            ):
                return marker
        return None

    def overrides_import(self, element: cst.BaseExpression, registration: Registration) -> bool:
        """Whether a marker that wins in any order is applied here to the imported name
        ``registration`` registers (``element``: the argument, or an element of a registered
        list): the defining module must not judge its body then."""
        if not isinstance(element, (cst.Name, cst.Attribute)):
            return False
        names = self._imported(element, registration.scope)
        return any(marker.wins_in_any_order for name in names for marker, _ in self.of_imports.get(name, []))

    def winning_definitions(self) -> set[cst.CSTNode]:
        """The definitions here marked nonstrict_trace or leaf_function: tracing does not enter them."""
        return {d for d, applied in self.of_definitions.items() if any(m.wins_in_any_order for m, _ in applied)}

    @cached_property
    def of_definitions(self) -> dict[cst.CSTNode, list[Local]]:
        """Def or class of this module -> the markers applied to it (decorators and calls)."""
        found: dict[cst.CSTNode, list[Local]] = {}
        for definition, scope in self.tree.definitions:
            for decorator in definition.decorators:
                marker = self._marker(decorator.decorator, scope)
                if marker is not None:
                    found.setdefault(definition, []).append((marker, decorator))
        for call, marker, argument, scope in self._marker_calls:
            for marked in self._definitions_of(argument, scope):
                found.setdefault(marked, []).append((marker, call))
        return found

    @cached_property
    def of_imports(self) -> dict[str, list[Local]]:
        """Qualified name of a name bound here only by imports -> the marker calls applied to it."""
        found: dict[str, list[Local]] = {}
        for call, marker, argument, scope in self._marker_calls:
            for name in self._imported(argument, scope):
                found.setdefault(name, []).append((marker, call))
        return found

    @cached_property
    def _marker_calls(self) -> list[tuple[cst.Call, api.Marker, cst.BaseExpression, Scope]]:
        calls = []
        for call, scope in self.tree.calls:
            marker = self._marker(call.func, scope)
            argument = registered_argument(call)
            if marker is not None and argument is not None:
                calls.append((call, marker, argument, scope))
        return calls

    def _marker(self, expr: cst.BaseExpression, scope: Scope) -> api.Marker | None:
        if isinstance(expr, cst.Call):
            expr = expr.func
        for name in self.inference.qualified_names(expr, scope):
            if name in api.CONFLICTING_MARKERS:
                return api.CONFLICTING_MARKERS[name]
        return None

    def _definitions_of(self, expr: cst.BaseExpression, scope: Scope) -> list[cst.CSTNode]:
        if isinstance(expr, cst.Name):
            return [
                b.definition for b in self.tree.bindings(scope, expr.value)
                if b.kind in (BindingKind.FUNCTION, BindingKind.CLASS) and b.definition is not None
            ]  # fmt: skip
        inferred = self.inference.infer(expr, scope)
        return [inferred.definition] if inferred.kind is Kind.FUNCTION and inferred.definition is not None else []

    def _imported(self, expr: cst.BaseExpression, scope: Scope) -> frozenset[str]:
        """The qualified names of ``f`` or ``mod.f`` where ``f`` (``mod``) is bound here only by
        imports, or by a registration or marker call that returns it unchanged (``f = allow_in_graph(f)``)."""
        head = expr
        while isinstance(head, cst.Attribute):
            head = head.value
        if not isinstance(head, cst.Name):
            return frozenset()
        bindings = self.tree.bindings(scope, head.value)
        if not bindings or not all(self._keeps_the_import(b, head.value) for b in bindings):
            return frozenset()
        return frozenset(self.inference.qualified_names(expr, scope))

    def _keeps_the_import(self, binding: Binding, name: str) -> bool:
        if binding.kind is BindingKind.IMPORT:
            return True
        value = binding.value
        if binding.kind is not BindingKind.ASSIGN or not isinstance(value, cst.Call):
            return False
        argument = registered_argument(value)
        passes = isinstance(argument, cst.Name) and argument.value == name
        return passes and (
            id(value) in self._registering_calls or self._marker(value.func, binding.written_in) is not None
        )
