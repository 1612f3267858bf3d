"""Resolving a registration's argument to what it registers.

The decorator form registers the def or class below it; the call form registers an
expression: a name is followed to its bindings, ``obj.meth`` to the method, a list
or tuple to each element, anything else to what inference says it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Basis, Inferred, Kind
from checker.facts.registrations.collections import Collections
from checker.facts.registrations.definition_targets import CUSTOM_OPS, DefinitionTargets
from checker.facts.registrations.factories import DefiningModules, Factories
from checker.facts.registrations.handoffs import imported_attribute
from checker.facts.registrations.sites import Form, Registration
from checker.facts.registrations.targets import Target, TargetKind, Uncallable
from checker.facts.scopes.syntax import children, describe
from checker.facts.scopes.tree import BindingKind, Scope, ScopeKind, ScopeTree
from checker.spec import torch_api as api


class TargetResolver:
    """The targets of one module's registrations."""

    def __init__(self, tree: ScopeTree, inference: Inference, defining: DefiningModules | None = None) -> None:
        self.tree = tree
        self.inference = inference
        self.definitions = DefinitionTargets(tree, inference)
        self.collections = Collections(inference)
        self.factories = Factories(inference, defining)

    def targets(self, registration: Registration) -> Iterator[Target]:
        with self.inference.following_imports():  # a class imported from the project is judged here
            yield from self._targets(registration)

    def _targets(self, registration: Registration) -> Iterator[Target]:
        if registration.form is Form.ELSEWHERE:
            yield self.definitions.elsewhere(registration)
        elif registration.form is Form.DECORATOR:
            yield self.definitions.decorated(registration)
        else:
            yield from self._expression(registration, registration.argument, registration.scope)

    # -- call form ------------------------------------------------------------

    def _expression(self, registration: Registration, expr: cst.CSTNode, scope: Scope) -> Iterator[Target]:
        if isinstance(expr, (cst.List, cst.Tuple)):
            for element in expr.elements:
                yield from self._expression(registration, element.value, scope)
            return
        if not isinstance(expr, cst.BaseExpression):
            return
        if isinstance(expr, cst.Lambda):
            yield self.definitions.function(registration, expr, "<lambda>", node=expr)
            return
        if isinstance(expr, cst.Attribute):
            yield from self._attribute(registration, expr, scope)
            return
        if isinstance(expr, cst.Name):
            yield from self._name(registration, expr, scope)
            return
        if isinstance(expr, cst.Call) and expr.args and self._is_marker(expr.func, scope):
            # allow_in_graph(nonstrict_trace(f)): judge f; AIG406 reports the pair.
            yield from self._expression(registration, expr.args[0].value, scope)
            return
        yield from self._collection(registration, expr, scope)

    def _collection(self, registration: Registration, expr: cst.BaseExpression, scope: Scope) -> Iterator[Target]:
        """A collection: a list or tuple built by a call registers each element known (reported
        at the registration where it is written elsewhere); a set, a dict view or an iterator
        is refused (AIG405); anything else is what inference says it is."""
        refused = self.collections.refused(expr, scope)
        if refused is not None:
            value = Inferred(Kind.MUTABLE, Basis.DISPLAY, refused)
            display = describe(expr)
            if isinstance(expr, cst.GeneratorExp) and not display.startswith("("):
                display = f"({display})"  # its parentheses are the call's
            yield Target(
                registration, TargetKind.NOT_CALLABLE, expr, display, value=value, not_callable=Uncallable.COLLECTION
            )
            return
        elements = self.collections.iterated(expr, scope)
        if elements is None:
            yield from self._made(registration, expr, expr, scope, self.inference.infer(expr, scope), describe(expr))
            return
        if not elements:
            yield Target(registration, TargetKind.UNRESOLVED, expr, describe(expr))
        for element in elements:
            for target in self._expression(registration, element.expr, element.scope):
                yield target if _within(element.expr, expr) else replace(target, node=expr)

    def _is_marker(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        return bool(self.inference.qualified_names(expr, scope) & api.CONFLICTING_MARKERS.keys())

    def _name(self, registration: Registration, expr: cst.Name, scope: Scope) -> Iterator[Target]:
        owner = self.tree.owner(scope, expr.value)
        if owner is None:
            yield self._value(registration, expr, self.inference.infer(expr, scope), expr.value)
            return
        bindings = [
            b for b in owner.bindings.get(expr.value, [])
            if b.kind not in (BindingKind.DELETE, BindingKind.AUGMENTED) and not _contains(b.value, registration.site)
        ]  # fmt: skip
        seen: set[int] = set()
        for binding in bindings:
            loop = self.collections.looped(binding, registration.site)
            if loop is not None:
                # for op in (f, g): allow_in_graph(op): each element, as allow_in_graph([f, g]) would.
                for element in loop.elements:
                    for target in self._expression(registration, element.expr, element.scope):
                        yield target if _within(element.expr, loop.iterable) else replace(target, node=expr)
                continue
            if isinstance(binding.value, (cst.List, cst.Tuple)) and binding.kind is BindingKind.ASSIGN:
                # OPS = (a, b); allow_in_graph(OPS): each element, reported at the registration.
                for target in self._expression(registration, binding.value, binding.written_in):
                    yield replace(target, node=expr)
                continue
            inferred = self.inference.binding_kind(binding)
            if binding.kind is BindingKind.PARAMETER or id(inferred.definition or binding) in seen:
                continue
            seen.add(id(inferred.definition or binding))
            value = binding.value if binding.kind is BindingKind.ASSIGN else None
            yield from self._made(registration, expr, value, binding.written_in, inferred, expr.value)

    def _made(
        self,
        registration: Registration,
        expr: cst.BaseExpression,
        value: cst.BaseExpression | None,
        scope: Scope,
        inferred: Inferred,
        display: str,
    ) -> Iterator[Target]:
        """What ``expr`` (whose value is ``value``, read in ``scope``) registers: where inference
        does not know and the value is a call, the closures the factory called returns (here,
        or made by another module's function), else what inference says."""
        if inferred.kind in (Kind.FUNCTION, Kind.UNKNOWN) and inferred.definition is None:  # imported?
            for defined in self.factories.imported(expr, scope):
                if defined.inference.decorator_names(defined.definition, defined.inference.tree.module) & CUSTOM_OPS:
                    yield self.definitions.custom_op(registration, None, expr, display)  # defined elsewhere
                    return
        returned = self.factories.returned(value, scope) if isinstance(value, cst.Call) and not inferred.known else []
        for made in returned:
            if made.elsewhere is None:
                yield self.definitions.function(registration, made.definition, display, node=expr)
            else:
                yield Target(registration, TargetKind.UNRESOLVED, expr, display, closure_elsewhere=made.elsewhere)
        if not returned:
            yield self._value(registration, expr, inferred, display)

    def _attribute(self, registration: Registration, expr: cst.Attribute, scope: Scope) -> Iterator[Target]:
        owner = self.inference.infer(expr.value, scope)
        attr = expr.attr.value
        display = describe(expr)
        if isinstance(owner.definition, cst.ClassDef) and owner.kind in (Kind.OBJECT, Kind.MODULE, Kind.CLASS):
            model = self.inference.class_model(owner.definition)
            found = model.method(attr)
            if found is not None:
                yield self.definitions.method(registration, expr, owner, found, display)
                return
        inferred = self.inference.infer(expr, scope)
        if not inferred.known:  # ``models.Block``: what models.py binds Block to
            inferred = imported_attribute(expr, scope, registration, self.inference)
        yield from self._made(registration, expr, None, scope, inferred, display)

    def _value(self, registration: Registration, expr: cst.BaseExpression, inferred: Inferred, display: str) -> Target:
        """Classify a registered value from what inference knows about it."""
        definition = inferred.definition
        kind = inferred.kind
        if kind is Kind.FUNCTION and isinstance(definition, (cst.FunctionDef, cst.Lambda)):
            body = self.tree.scope_of.get(definition)
            if isinstance(definition, cst.FunctionDef) and body is not None and body.parent is not None:
                if self.definitions.made_custom_op(definition, body.parent):
                    return self.definitions.custom_op(registration, definition, expr, display)
            if body is not None and body.parent is not None and body.parent.kind is ScopeKind.CLASS:
                return self.definitions.method_by_name(registration, expr, definition, display)
            return self.definitions.function(registration, definition, display, node=expr)
        if kind is Kind.CLASS and isinstance(definition, cst.ClassDef):
            return self.definitions.class_def(registration, definition, expr)
        if kind in (Kind.OBJECT, Kind.MODULE) and isinstance(definition, cst.ClassDef):
            return self.definitions.instance(registration, expr, self.inference.class_model(definition), display)
        if kind is Kind.MODULE:
            return Target(registration, TargetKind.MODULE_INSTANCE, expr, display, value=inferred)
        if kind is Kind.PARTIAL:
            return Target(registration, TargetKind.PARTIAL, expr, display, value=inferred)
        if kind in (Kind.IMMUTABLE, Kind.NONE, Kind.MUTABLE, Kind.TENSOR, Kind.TENSOR_CONTAINER, Kind.NDARRAY):
            return Target(
                registration, TargetKind.NOT_CALLABLE, expr, display, value=inferred, not_callable=Uncallable.VALUE
            )
        return Target(registration, TargetKind.UNRESOLVED, expr, display)


def _within(node: cst.CSTNode, expr: cst.CSTNode) -> bool:
    """Whether ``node`` is written inside ``expr``."""
    return _contains(expr, node)


def _contains(expr: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """Whether ``node`` occurs inside ``expr`` (``g = allow_in_graph(g)`` does not bind the target)."""
    if expr is None:
        return False
    if expr is node:
        return True
    return any(_contains(child, node) for child in children(expr))
