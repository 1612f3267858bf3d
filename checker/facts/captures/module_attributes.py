"""Captures read through an imported module of the project: ``config.X``, ``pkg.config.X``.

The name read is a top-level name of that module, so it is judged as that module's
global is: what it is there, and whether it changes, come from the project index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

import libcst as cst

from checker.facts.captures.attribute_writes import NAMESPACE_SUBJECTS, read_path, written
from checker.facts.captures.capture import NOT_STATE, Capture, Holder, Source, laundering
from checker.facts.captures.changes import Change, ChangeKind, ImportedState
from checker.facts.captures.places import seen_from
from checker.facts.kinds.classes import ClassModel
from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import UNKNOWN, Inferred, Kind
from checker.facts.registrations.handoffs import ImportedDefinitions
from checker.facts.registrations.targets import Body
from checker.facts.scopes.tree import BindingKind, Read, Scope

#: What a method of an object's class that assigns the attribute read shows (AttributeState.class_change).
ClassChange = Callable[[ClassModel, tuple[str, ...]], Change | None]


class ImportedGlobals(ImportedState, ImportedDefinitions, Protocol):
    """What judging a global of another module asks of the other modules of the project."""


class ModuleAttributes:
    """Reads, in one module's bodies, of another project module's globals through the module."""

    def __init__(
        self, inference: Inference, index: ImportedGlobals | None, class_change: ClassChange | None = None
    ) -> None:
        self.inference = inference
        self.index = index
        self.class_change = class_change

    def capture(self, body: Body, read: Read, owner: Scope, parents: dict[cst.CSTNode, cst.CSTNode]) -> Capture | None:
        """``config.X``, ``cfg.X``, ``pkg.config.X``: a top-level name of a project module,
        read through the module; judged as that module's global is."""
        index, path = self.index, self.inference.path
        bindings = owner.bindings.get(read.name, [])
        if index is None or not bindings or any(b.kind is not BindingKind.IMPORT for b in bindings):
            return None
        chain: list[cst.Attribute] = []
        node: cst.CSTNode = read.node
        while isinstance(parent := parents.get(node), cst.Attribute) and parent.value is node:
            chain.append(parent)
            node = parent
        for module_qualified in sorted(self.inference.qualified_names(read.node, read.scope)):
            for depth in range(len(chain) - 1, -1, -1):
                dotted = ".".join([module_qualified, *(link.attr.value for link in chain[:depth])])
                module = index.module_file(path, dotted)
                if module is None:
                    continue
                return self._global(body, chain[depth], module, dotted, parents)
        return None

    def _global(
        self, body: Body, node: cst.Attribute, module: str, dotted: str, parents: dict[cst.CSTNode, cst.CSTNode]
    ) -> Capture | None:
        name, path = node.attr.value, self.inference.path
        index, kinds = self.index, self.inference.index
        assert index is not None and kinds is not None
        if not index.holds_value(module, name):
            return None  # bound by imports, defs or classes only (CPython's outline says, no parse)
        inferred = kinds.kind(path, f"{dotted}.{name}")
        origin = index.origin(path, f"{dotted}.{name}")
        if inferred is None or inferred.kind in NOT_STATE or origin is None:
            return None
        if origin.path == module:
            if all(binding.kind is BindingKind.IMPORT for binding in origin.bindings):
                return None  # imported there from outside the project: nothing to judge
            where, rebinding = module, True
        else:  # re-exported there: the object is the origin's, rebinding it elsewhere does not reach here
            where, name, rebinding = origin.path, origin.name, False
        spelled = cst.Module([]).code_for_node(node)
        below = read_path(node, parents)
        attribute = parents.get(node)
        if below and isinstance(attribute, cst.Attribute) and _has_attributes(inferred):
            return self._attribute(body, attribute, spelled, where, name, rebinding, below, inferred, parents)
        change = index.change(where, name, path, own=True, rebinding=rebinding)
        source = Source(Holder.MODULE, module=seen_from(module, self.inference.path))
        return Capture(body, node, spelled, source, inferred, None, laundering(node, parents), change)

    def _attribute(
        self,
        body: Body,
        node: cst.Attribute,
        spelled: str,
        module: str,
        name: str,
        rebinding: bool,
        below: tuple[str, ...],
        inferred: Inferred,
        parents: dict[cst.CSTNode, cst.CSTNode],
    ) -> Capture | None:
        """``config.NS.alpha``, ``config.CFG.opts.scale``: an attribute of an object of another
        module, judged by the writes that reach it (a tensor or a module stored there is AIG301)."""
        index, path = self.index, self.inference.path
        assert index is not None
        read = f"{spelled}.{node.attr.value}"
        laundered = laundering(node, parents)
        held = index.change(module, name, path, own=True, rebinding=rebinding, attributes=below, holding=True)
        if held is not None and held.holds is not None:
            place = held.place
            source = Source(
                Holder.ASSIGNED, held.function, place.path if place else None, place.line if place else None
            )
            return Capture(body, node, read, source, Inferred(held.holds), None, laundered)
        change = index.change(module, name, path, own=True, rebinding=rebinding, attributes=below)
        if change is not None and change.kind is ChangeKind.WRITTEN:
            change = replace(change, written=written(spelled, change.path))
        if change is None and self.class_change is not None and isinstance(inferred.definition, cst.ClassDef):
            change = self.class_change(self.inference.class_model(inferred.definition), below)
        if change is None:
            return None
        source = Source(Holder.MODULE, module=seen_from(module, self.inference.path))
        return Capture(body, node, read, source, UNKNOWN, None, laundered, change)


def _has_attributes(inferred: Inferred) -> bool:
    """An object whose attributes are its state: an instance of a class, a ``SimpleNamespace``."""
    return inferred.kind is Kind.OBJECT or (inferred.kind is Kind.MUTABLE and inferred.subject in NAMESPACE_SUBJECTS)
