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
from typing import TYPE_CHECKING

import libcst as cst

from checker.elsewhere import Elsewhere
from checker.facts.inference import Inference
from checker.facts.registrations import Form, Registration
from checker.facts.scopes import BindingKind, ScopeTree

if TYPE_CHECKING:
    from checker.facts.module import ModuleFacts
    from checker.project import Project

#: Re-exports followed from the registering module to the defining one.
_MAX_HOPS = 4


@dataclass(frozen=True)
class Handoff:
    """A registration here of the top-level def or class ``name`` of the module at ``path``."""

    registration: Registration
    path: str
    name: str


def handoffs(registrations: Sequence[Registration], inference: Inference) -> Iterator[Handoff]:
    """The call registrations here whose argument is imported from another project module,
    where it is a def or a class."""
    project = inference.project
    if project is None:
        return
    for registration in registrations:
        argument = registration.argument
        if registration.form is not Form.CALL or not _imported_here(argument, registration, inference):
            continue
        assert isinstance(argument, (cst.Name, cst.Attribute))
        for qualified in sorted(inference.qualified_names(argument, registration.scope)):
            found = _definition(project, inference.path, qualified, _MAX_HOPS)
            if found is not None:
                yield Handoff(registration, found[0], found[1])
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
        spelling = f"{registration.spelling} at {registration.where}"
        found.append(
            Registration(definition, spelling, Form.ELSEWHERE, definition, tree.module, True, where=registration.where)
        )
    return found


def _imported_here(argument: cst.CSTNode, registration: Registration, inference: Inference) -> bool:
    """``scaled`` or ``kernels.scaled`` where the (first) name is bound only by an import."""
    head = argument
    while isinstance(head, cst.Attribute):
        head = head.value
    if not isinstance(head, cst.Name):
        return False
    bindings = inference.tree.bindings(registration.scope, head.value)
    return bool(bindings) and all(binding.kind is BindingKind.IMPORT for binding in bindings)


def _definition(project: Project, importer: str, qualified: str, hops: int) -> tuple[str, str] | None:
    """(module path, name) of the def or class ``qualified`` names, through re-exports."""
    found = project.lookup(importer, qualified, require_api=False)
    if found is None or hops == 0:
        return None
    facts, attribute = found
    return project.follow(facts, attribute, lambda facts, name: _defined_in(project, facts, name, hops))


def _defined_in(project: Project, facts: ModuleFacts, name: str, hops: int) -> tuple[str, str] | None:
    bindings = facts.tree.module.bindings.get(name, [])
    if len(bindings) != 1:
        return None
    binding = bindings[0]
    if binding.kind in (BindingKind.FUNCTION, BindingKind.CLASS):
        return facts.path, name
    if binding.kind is BindingKind.IMPORT and binding.imported:
        return _definition(project, facts.path, binding.imported, hops - 1)
    return None
