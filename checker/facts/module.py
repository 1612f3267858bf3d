"""The facts of one module, computed once and shared by every rule."""

from __future__ import annotations

import functools
from collections.abc import Container, Iterator, Sequence
from functools import cached_property
from typing import Protocol

import libcst as cst

from checker.facts.captures.bodies import BodyEvents, Event
from checker.facts.captures.capture import Capture
from checker.facts.captures.helpers import CaptureFinder, CaptureIndex, ImportedHelpers
from checker.facts.captures.values import Values
from checker.facts.kinds.annotations import AnnotationJudge, ImportedAliases
from checker.facts.kinds.inference import ImportedNames, Inference
from checker.facts.kinds.kind import Kind
from checker.facts.registrations.factories import Defined
from checker.facts.registrations.handoffs import Handoff, handoffs, registered_elsewhere
from checker.facts.registrations.markers import Applied, ImportedMarkers, Markers
from checker.facts.registrations.resolver import TargetResolver
from checker.facts.registrations.sites import (
    ImportedRegistrars,
    Registrars,
    Registration,
    find_registrations,
    registered_argument,
)
from checker.facts.registrations.targets import Body, Target, TargetKind
from checker.facts.scopes.builder import build_tree
from checker.facts.scopes.tree import Scope, all_params
from checker.reading.packages import module_name
from checker.spec import torch_api as api
from checker.spec.links import Elsewhere
from checker.spec.messages.registrations import CUSTOM_OP

#: How many calls deep a compiled function's callees count as compiled too.
_COMPILED_CALL_DEPTH = 4


class ImportedRegistrations(Protocol):
    """What finding the calls of registered functions asks of the other modules."""

    #: The names of the functions the project registers (a registration of another
    #: module's function is asked about only for these).
    registered_names: Container[str]

    def registered_target(self, importer: str, qualified: str) -> Target | None:
        """The honoured registration, in the project module that defines it, of the function
        ``qualified`` (imported by the module at ``importer``) names, or None."""
        ...


class ModuleIndex(
    ImportedNames, ImportedRegistrars, CaptureIndex, ImportedRegistrations, ImportedMarkers, ImportedAliases, Protocol
):
    """Everything the facts of one module may ask about the other modules of the project.

    Each part is declared by the fact that asks it; the project index
    (:class:`checker.index.project.Project`) implements them all, from above: facts never
    import it.
    """


class ModuleFacts:
    """Registrations, targets, captures and compiled regions of one parsed module.

    ``index`` answers questions about the project's other modules (None: the module is
    judged alone); ``elsewhere`` are registrations of this module's defs and classes
    made by other modules.
    """

    def __init__(
        self, module: cst.Module, path: str, index: ModuleIndex | None = None, elsewhere: Sequence[Elsewhere] = ()
    ) -> None:
        self.module = module
        self.path = path
        self.index = index
        self.elsewhere = tuple(elsewhere)
        #: sha256 of the file's bytes, set when the project parsed it.
        self.digest = ""
        self.tree = build_tree(module)
        self.inference = Inference(self.tree, path, index)

    @cached_property
    def dotted(self) -> str | None:
        """The dotted module name this file is imported as, when it is in a package."""
        return module_name(self.path)

    @cached_property
    def registrars(self) -> Registrars:
        return Registrars(self.tree, self.inference, self.path, self.index)

    @cached_property
    def registrations(self) -> list[Registration]:
        return find_registrations(self.tree, self.registrars) + registered_elsewhere(self.tree, self.elsewhere)

    @cached_property
    def handoffs(self) -> list[Handoff]:
        """Registrations here of defs and classes that other modules of the project define."""
        found = handoffs(self.registrations, self.inference, self.index)
        # A custom op object is judged here (AIG403): its body is not a registered body.
        custom_ops = {id(target.node) for target in self.targets if target.instance_of == CUSTOM_OP}
        return [
            handoff
            for handoff in found
            if id(handoff.element) not in custom_ops
            and not self.markers.overrides_import(handoff.element, handoff.registration)
        ]

    @cached_property
    def targets(self) -> list[Target]:
        defining = _FactoriesElsewhere(self.index, self.path) if self.index is not None else None
        resolver = TargetResolver(self.tree, self.inference, defining)
        return [target for registration in self.registrations for target in resolver.targets(registration)]

    @cached_property
    def capture_finder(self) -> CaptureFinder:
        """The captures of this module's bodies; helpers of other modules lead here too."""
        return CaptureFinder(self.tree, self.inference, self._opaque_bodies, self.index)

    def _opaque_bodies(self) -> frozenset[cst.CSTNode]:
        """The bodies tracing does not enter from a registered function: every body this
        module registers (honoured or not), judged as a registration of its own, and the
        defs made custom ops or marked nonstrict_trace or leaf_function."""
        registered = {body.node for target in self.targets for body in target.bodies}
        for definition, scope in self.tree.definitions:
            if isinstance(definition, cst.FunctionDef):
                if self.inference.decorator_names(definition, scope) & api.OPAQUE_DECORATORS:
                    registered.add(definition)
        return frozenset(registered | self.markers.winning_definitions())

    @cached_property
    def events(self) -> list[tuple[Body, Event]]:
        """Side effects, data-dependent Python and host-side access in every honoured body."""
        finder = BodyEvents(self.tree, self.inference)
        return [(body, event) for _, body in self.bodies() for event in finder.events(body)]

    @cached_property
    def judge(self) -> AnnotationJudge:
        return AnnotationJudge(self.inference, self.index)

    @cached_property
    def values(self) -> Values:
        return Values(self.tree, self.inference)

    def bodies(self) -> Iterator[tuple[Target, Body]]:
        """Each honoured registered body once, with the target it belongs to."""
        seen: set[cst.CSTNode] = set()
        for target in self.honoured_targets:
            for body in target.bodies:
                if body.node not in seen:
                    seen.add(body.node)
                    yield target, body

    def arguments(self) -> Iterator[tuple[Target, Body, cst.Param]]:
        """The parameters that receive call arguments: not a bound ``self``, not an autograd ``ctx``."""
        for target, body in self.bodies():
            params = all_params(body.node.params)
            skip_first = body.bound_self or target.kind is TargetKind.AUTOGRAD_FUNCTION
            for param in params[1:] if skip_first and params else params:
                yield target, body, param

    def registered_calls(self) -> Iterator[tuple[cst.Call, Scope, Target]]:
        """Calls anywhere in the module of a honoured registered function (or ``Fn.apply``),
        including one imported from another module and registered here."""
        by_definition: dict[cst.CSTNode, Target] = {body.node: target for target, body in self.bodies()}
        imported = self._registered_imports()
        classes = {t.definition: t for t in self.honoured_targets if t.kind is TargetKind.AUTOGRAD_FUNCTION}
        for call, scope in self.tree.calls:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "apply":
                owner = self.inference.infer(func.value, scope)
                target = classes.get(owner.definition) if owner.kind is Kind.CLASS else None
                forward = next((b for b in target.bodies if b.name == "forward"), None) if target else None
                if target is not None and forward is not None:
                    yield call, scope, target
                continue
            callee = self.inference.infer(func, scope)
            if callee.kind is Kind.FUNCTION and callee.definition in by_definition:
                yield call, scope, by_definition[callee.definition]
            elif isinstance(func, (cst.Name, cst.Attribute)) and callee.definition is None:
                target = self._registered_import(func, scope, imported)
                if target is not None:
                    yield call, scope, target

    def _registered_import(self, func: cst.BaseExpression, scope: Scope, here: dict[str, Target]) -> Target | None:
        """The registration of an imported function: made here, or where it is defined."""
        names = self.inference.qualified_names(func, scope)
        for name in sorted(names & here.keys()):
            return here[name]
        if self.index is None:
            return None
        for name in sorted(names):
            if name.rpartition(".")[2] in self.index.registered_names:
                target = self.index.registered_target(self.path, name)
                if target is not None:
                    return target
        return None

    @cached_property
    def registered_functions(self) -> tuple[str, ...]:
        """Top-level functions registered here (defined here or imported): other modules'
        calls of them are judged too."""
        names = {
            target.definition.name.value
            for target in self.honoured_targets
            if isinstance(target.definition, cst.FunctionDef)
            and self.tree.scope_of[target.definition].parent is self.tree.module
        }
        names.update(handoff.name for handoff in self.handoffs)  # defs of other modules registered here
        return tuple(sorted(names))

    def _registered_imports(self) -> dict[str, Target]:
        """The qualified names of functions of other modules registered here (judged where
        they are defined; their calls here are judged here)."""
        found: dict[str, Target] = {}
        for target in self.honoured_targets:
            argument = target.registration.argument
            if target.kind is TargetKind.UNRESOLVED and isinstance(argument, (cst.Name, cst.Attribute)):
                for name in self.inference.qualified_names(argument, target.registration.scope):
                    if not name.startswith("builtins."):
                        found[name] = target
        return found

    @cached_property
    def honoured_targets(self) -> list[Target]:
        """Targets whose registration is not overridden by another marker (AIG406 reports those)."""
        return [target for target in self.targets if self.overriding_marker(target) is None]

    def overriding_marker(self, target: Target) -> api.Marker | None:
        """The marker that wins over this registration, when the code says which one does."""
        return self.markers.overriding(target)

    def captures(self) -> Iterator[Capture]:
        """Every capture of every honoured body (and the helpers it calls), each body once."""
        seen: set[tuple[cst.CSTNode, bool]] = set()
        for target in self.honoured_targets:
            for body in target.bodies:
                key = (body.node, body.bound_self)
                if key in seen:
                    continue
                seen.add(key)
                yield from self.capture_finder.captures(body)

    def closure_names(self, target: Target) -> list[str]:
        """Names a registered def or lambda takes from the function that creates it."""
        names: list[str] = []
        for body in target.bodies:
            for name in self.capture_finder.closure_names(body):
                if name not in names:
                    names.append(name)
        return names

    @cached_property
    def markers(self) -> Markers:
        """The other Dynamo markers applied here to what this module registers."""
        return Markers(self.tree, self.inference, self.registrations)

    def markers_on(self, target: Target) -> list[Applied]:
        """The markers applied to what ``target`` registers: here, and for another module's
        def or class registered here, by the module that defines it."""
        applied: list[Applied] = list(self.markers.on(target))
        handoff = self._handed_off.get(id(target.node))
        if handoff is not None and self.index is not None:
            applied += self.index.markers(handoff.path, handoff.name, self.path)
        return applied

    @cached_property
    def _handed_off(self) -> dict[int, Handoff]:
        return {id(handoff.element): handoff for handoff in self.handoffs}

    @cached_property
    def compiled(self) -> dict[cst.CSTNode, cst.CSTNode]:
        """Functions that run under ``torch.compile`` -> the node that compiles them.

        Direct: decorated with or passed to ``torch.compile``, or the ``forward`` of a
        module class whose instance is compiled; the ``forward`` of any other nn.Module
        subclass here is compiled whenever its module is (wherever that is), and maps to
        itself. Indirect: functions of this module that those call, a few calls deep.
        """
        compiled: dict[cst.CSTNode, cst.CSTNode] = {}
        for definition, scope in self.tree.definitions:
            for decorator in definition.decorators:
                expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
                if self.inference.qualified_names(expr, scope) & api.COMPILE_APIS:
                    compiled.setdefault(definition, decorator)
        for call, scope in self.tree.calls:
            func = call.func.func if isinstance(call.func, cst.Call) else call.func
            names = self.inference.qualified_names(func, scope)
            argument = registered_argument(call)
            if names & api.COMPILE_APIS and argument is not None:
                for entry in self._compiled_entry(argument, scope):
                    compiled.setdefault(entry, call)
            elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "compile":
                for entry in self._compiled_entry(call.func.value, scope):
                    compiled.setdefault(entry, call)
        for forward in self.module_forwards:  # compiled whenever the module is, wherever that is
            compiled.setdefault(forward, forward)
        self._add_callees(compiled)
        return compiled

    @cached_property
    def module_forwards(self) -> dict[cst.CSTNode, str]:
        """The ``forward`` defs of this module's nn.Module subclasses -> the class's name."""
        found: dict[cst.CSTNode, str] = {}
        for definition, _ in self.tree.definitions:
            if isinstance(definition, cst.ClassDef):
                model = self.inference.class_model(definition)
                method = model.method("forward") if model.is_module else None
                if method is not None and method[1] is model and method[0] in self.tree.scope_of:
                    found[method[0]] = model.name
        return found

    def _compiled_entry(self, expr: cst.BaseExpression, scope: Scope) -> list[cst.CSTNode]:
        inferred = self.inference.infer(expr, scope)
        if inferred.kind is Kind.FUNCTION and isinstance(inferred.definition, cst.FunctionDef):
            return [inferred.definition]
        if inferred.kind is Kind.MODULE and isinstance(inferred.definition, cst.ClassDef):
            forward = self.inference.class_model(inferred.definition).method("forward")
            return [forward[0]] if forward is not None else []
        return []

    def _add_callees(self, compiled: dict[cst.CSTNode, cst.CSTNode]) -> None:
        frontier = list(compiled)
        for _ in range(_COMPILED_CALL_DEPTH):
            reached: list[cst.CSTNode] = []
            for definition in frontier:
                body = self.tree.scope_of.get(definition)
                if body is None:
                    continue
                for scope in body.walk():
                    for call, call_scope in self.tree.calls_in(scope):
                        callee = self.inference.infer(call.func, call_scope)
                        if callee.kind is Kind.FUNCTION and isinstance(callee.definition, cst.FunctionDef):
                            if callee.definition not in compiled:
                                compiled[callee.definition] = compiled[definition]
                                reached.append(callee.definition)
            frontier = reached

    def compiled_region(self, scope: Scope) -> cst.CSTNode | None:
        """The compiling node if code in ``scope`` runs inside a compiled function."""
        current: Scope | None = scope
        while current is not None:
            if current.node in self.compiled:
                return self.compiled[current.node]
            current = current.parent
        return None


class _FactoriesElsewhere:
    """Another module's top-level defs, read in their module (the index's helpers), for
    following a registered call into the factory it calls (``make_op(f)``)."""

    def __init__(self, index: ImportedHelpers, checked: str) -> None:
        self.index = index
        self.checked = checked

    def defined(self, importer: str, qualified: str) -> list[Defined]:
        found = []
        for helper in self.index.helpers(importer, qualified):
            finder, definition = helper.finder, helper.body.node
            if not isinstance(definition, cst.FunctionDef):
                continue
            onward = _FactoriesElsewhere(finder.index, self.checked) if finder.index is not None else None
            place = functools.partial(finder.places.place, checked=self.checked)
            found.append(Defined(definition, finder.inference, place, finder.closure_names, onward))
        return found
