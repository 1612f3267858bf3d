"""Registrations that cross modules: a def in one module, registered in another.

``allow_in_graph(scaled)`` in register.py, with ``scaled`` imported from kernels.py,
registers a body that register.py cannot judge: what it captures, returns and calls
is in kernels.py. So register.py hands the registration off (a ``Handoff``), and
kernels.py is checked again with it as a registration made ``Elsewhere``: its
findings point at kernels.py's lines and name the registering line in register.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import UNKNOWN, Inferred, join
from checker.facts.kinds.known import without_function_body
from checker.facts.registrations.collections import Collections
from checker.facts.registrations.sites import Form, Registration
from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import Binding, BindingKind, Scope, ScopeTree
from checker.spec.links import Elsewhere


@dataclass(frozen=True)
class Origin:
    """The module that binds an imported name itself (``path``), the name there and its
    top-level bindings."""

    path: str
    name: str
    bindings: tuple[Binding, ...]


class ImportedDefinitions(Protocol):
    """What handing registrations off asks of the other modules of the project."""

    def origin(self, importer: str, qualified: str) -> Origin | None:
        """Where ``qualified``, imported by the module at ``importer``, is bound itself:
        re-exports followed; None outside the project or in a cycle of re-exports."""
        ...


@dataclass(frozen=True)
class Handoff:
    """A registration here of the top-level def or class ``name`` of the module at ``path``;
    ``element``: the expression that names it (the argument, or an element of a registered
    list or tuple)."""

    registration: Registration
    path: str
    name: str
    element: cst.BaseExpression


def handoffs(
    registrations: Sequence[Registration], inference: Inference, index: ImportedDefinitions | None
) -> Iterator[Handoff]:
    """The call registrations here whose argument (or an element of a registered list or
    tuple, or of what a registering loop iterates) is imported from another project
    module, where it is a def or a class."""
    if index is None:
        return
    collections = Collections(inference)
    for registration in registrations:
        if registration.form is not Form.CALL or not isinstance(registration.argument, cst.BaseExpression):
            continue
        for element in collections.registered(registration.argument, registration.scope, registration.site):
            if not _imported_here(element.expr, registration, inference, element.scope):
                continue
            assert isinstance(element.expr, (cst.Name, cst.Attribute))
            for qualified in sorted(inference.qualified_names(element.expr, element.scope)):
                found = index.origin(inference.path, qualified)
                if found is not None and _has_a_body_to_judge(found.bindings, inference):
                    yield Handoff(registration, found.path, found.name, element.expr)
                    break


def registered_elsewhere(tree: ScopeTree, elsewhere: Sequence[Elsewhere]) -> list[Registration]:
    """Registrations of this module's top-level defs and classes made by other modules."""
    found = []
    for registration in elsewhere:
        bindings = tree.module.bindings.get(registration.name, [])
        if len(bindings) != 1 or bindings[0].kind not in (BindingKind.FUNCTION, BindingKind.CLASS):
            continue  # rebound since, or no longer a def: nothing sure to judge
        definition = bindings[0].definition
        assert definition is not None
        found.append(
            Registration(
                definition,
                registration.registrar,
                Form.ELSEWHERE,
                definition,
                tree.module,
                True,
                where=registration.where,
            )
        )
    return found


def imported_attribute(expr: cst.Attribute, scope: Scope, registration: Registration, inference: Inference) -> Inferred:
    """What ``models.Block`` (``from . import models``, ``import pkg.models as m``, ...) is in
    the project module that binds it, as the name ``Block`` imported from there would be:
    a class, an instance of one, a value; a function without its body (judged there).
    UNKNOWN unless the first name is bound only by imports and every module they may
    name agrees."""
    if inference.index is None or not _imported_here(expr, registration, inference, scope):
        return UNKNOWN
    found = []
    for qualified in sorted(inference.qualified_names(expr, scope)):
        inferred = inference.index.kind(inference.path, qualified)
        found.append(UNKNOWN if inferred is None else without_function_body(inferred))
    return join(found) if found else UNKNOWN


def _imported_here(
    argument: cst.CSTNode, registration: Registration, inference: Inference, scope: Scope | None = None
) -> bool:
    """``scaled`` or ``kernels.scaled`` where the (first) name is bound only by an import
    (read in ``scope``, the registration's unless given)."""
    head = argument
    while isinstance(head, cst.Attribute):
        head = head.value
    if not isinstance(head, cst.Name):
        return False
    bindings = [
        binding
        for binding in inference.tree.bindings(registration.scope if scope is None else scope, head.value)
        if not _contains(binding.value, registration.site)  # ``f = allow_in_graph(f)`` rebinds the import
    ]
    return bool(bindings) and all(binding.kind is BindingKind.IMPORT for binding in bindings)


def _contains(expr: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    if expr is None:
        return False
    return expr is node or any(_contains(child, node) for child in children(expr))


def _has_a_body_to_judge(bindings: Sequence[Binding], inference: Inference) -> bool:
    """A def, or an autograd.Function class (its forward and backward): what registering
    it means is in the module that defines it. Any other class is judged here, at the
    registration: constructing it is what the registration affects."""
    if len(bindings) != 1:
        return False
    binding = bindings[0]
    if binding.kind is BindingKind.FUNCTION:
        return True
    if binding.kind is not BindingKind.CLASS or not isinstance(binding.definition, cst.ClassDef):
        return False
    model = inference.index.class_model(binding.definition) if inference.index is not None else None
    return model is not None and model.is_autograd_function
