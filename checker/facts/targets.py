"""What each registration registers, and whether torch will honour it.

A registration's argument is resolved to definitions in the module: a def, a lambda,
a class, a method looked up through ``self``/``obj``/``Class``, the closure a factory
returns, an instance, a ``functools.partial``, a literal. Lists and tuples register
each element. Anything defined outside the module stays UNRESOLVED and is not judged.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import libcst as cst

from checker import torch_api as api
from checker.facts.classes import ClassModel
from checker.facts.inference import Inference
from checker.facts.kinds import Basis, Inferred, Kind
from checker.facts.registrations import Form, Registration
from checker.facts.scopes import BindingKind, Scope, ScopeKind, ScopeTree
from checker.facts.syntax import describe
from checker.links import Place


class TargetKind(enum.Enum):
    FUNCTION = "function"
    STATICMETHOD = "staticmethod"
    BOUND_METHOD = "bound method"
    METHOD = "method defined in a class body"
    CLASSMETHOD = "classmethod"
    PROPERTY = "property getter"
    AUTOGRAD_FUNCTION = "autograd.Function subclass"
    MODULE_CLASS = "nn.Module subclass"
    CLASS = "class"
    MODULE_INSTANCE = "nn.Module instance"
    CALLABLE_INSTANCE = "callable instance"
    NAMED_INSTANCE = "callable instance with a __name__"
    UNHASHABLE_INSTANCE = "unhashable callable instance"
    PARTIAL = "functools.partial"
    NOT_CALLABLE = "not callable"
    UNRESOLVED = "unresolved"


class Uncallable(enum.Enum):
    """Why a NOT_CALLABLE target is not a callable ``allow_in_graph`` accepts."""

    VALUE = "value"  # a literal, None, a container, a tensor: ``Target.value`` says which
    NO_CALL = "no-call"  # an instance of a class that defines no ``__call__``
    CLASSMETHOD_OBJECT = "classmethod-object"  # ``@allow_in_graph`` above ``@classmethod``
    PROPERTY_OBJECT = "property-object"  # ``@allow_in_graph`` above ``@property``
    STATICMETHOD_OBJECT = "staticmethod-object"  # ``@allow_in_graph`` above ``@staticmethod``


class MethodUse(enum.Enum):
    """What becomes of a registered bound method."""

    DISCARDED = "discarded"  # the registration's result is dropped
    BYPASSED = "bypassed"  # kept, while the class also calls the method afresh


@dataclass(frozen=True, eq=False)
class Body:
    """A function body the capture rules read. ``bound_self``: its first parameter is not an argument.
    ``registered_at``: the other module's line that registers it, when that is not here."""

    node: cst.FunctionDef | cst.Lambda
    scope: Scope
    bound_self: bool = False
    registered_at: Place | None = None

    @property
    def name(self) -> str:
        return self.node.name.value if isinstance(self.node, cst.FunctionDef) else "<lambda>"


@dataclass(frozen=True, eq=False)
class Target:
    """One registered thing. ``node`` is where target-specific findings point.

    ``value`` is what inference says a registered value is (a module instance, a
    partial, a constant), ``instance_of`` the class of a registered instance,
    ``not_callable`` and ``method_use`` why a target fails or is not honoured.
    """

    registration: Registration
    kind: TargetKind
    node: cst.CSTNode
    display: str
    definition: cst.CSTNode | None = None
    bodies: tuple[Body, ...] = field(default=())
    #: A node the message cites, e.g. the call that bypasses a saved bound method.
    related: cst.CSTNode | None = None
    value: Inferred | None = None
    instance_of: str = ""
    not_callable: Uncallable | None = None
    method_use: MethodUse | None = None

    @property
    def created_in_function(self) -> bool:
        """A def or lambda evaluated inside a function: each call makes a new one."""
        if self.definition is None or isinstance(self.definition, cst.ClassDef):
            return False
        return any(
            body.scope.parent is not None and body.scope.parent.enclosing_function() is not None
            for body in self.bodies
            if body.node is self.definition
        )


class TargetResolver:
    def __init__(self, tree: ScopeTree, inference: Inference) -> None:
        self.tree = tree
        self.inference = inference

    def targets(self, registration: Registration) -> Iterator[Target]:
        with self.inference.following_imports():  # a class imported from the project is judged here
            yield from self._targets(registration)

    def _targets(self, registration: Registration) -> Iterator[Target]:
        if registration.form is Form.ELSEWHERE:
            yield self._elsewhere(registration)
        elif registration.form is Form.DECORATOR:
            yield self._decorated(registration)
        else:
            yield from self._expression(registration, registration.argument, registration.scope)

    def _elsewhere(self, registration: Registration) -> Target:
        """A top-level def or class of this module that another module registers."""
        definition = registration.argument
        if isinstance(definition, cst.ClassDef):
            return self._class(registration, definition, definition)
        assert isinstance(definition, cst.FunctionDef)
        return self._function(registration, definition, definition.name.value)

    # -- decorator form -------------------------------------------------------

    def _decorated(self, registration: Registration) -> Target:
        definition = registration.argument
        if isinstance(definition, cst.ClassDef):
            return self._class(registration, definition, definition.name)
        assert isinstance(definition, cst.FunctionDef)
        body = self.tree.scope_of[definition]  # a decorated def is always in this module
        name = definition.name.value
        in_class = body.parent is not None and body.parent.kind is ScopeKind.CLASS
        if not in_class:
            return self._function(registration, definition, name)
        applied_first = definition.decorators[registration.decorator_index + 1 :]
        applied_after = definition.decorators[: registration.decorator_index]
        below = self._decorator_names(applied_first, registration.scope)
        above = self._decorator_names(applied_after, registration.scope)
        display = f"{body.parent.name}.{name}"
        if below & {"builtins.classmethod", "builtins.property", "builtins.staticmethod"}:
            if "builtins.classmethod" in below:
                wrapped = Uncallable.CLASSMETHOD_OBJECT
            elif "builtins.property" in below:
                wrapped = Uncallable.PROPERTY_OBJECT
            else:
                wrapped = Uncallable.STATICMETHOD_OBJECT
            return Target(
                registration,
                TargetKind.NOT_CALLABLE,
                registration.site,
                display,
                definition=definition,
                not_callable=wrapped,
            )
        if "builtins.staticmethod" in above:
            return self._function(registration, definition, display, TargetKind.STATICMETHOD)
        if "builtins.classmethod" in above:
            return Target(registration, TargetKind.CLASSMETHOD, registration.site, display, definition=definition)
        if "builtins.property" in above:
            return Target(registration, TargetKind.PROPERTY, registration.site, display, definition=definition)
        return Target(registration, TargetKind.METHOD, registration.site, display, definition=definition)

    def _decorator_names(self, decorators: list[cst.Decorator] | tuple[cst.Decorator, ...], scope: Scope) -> set[str]:
        names: set[str] = set()
        for decorator in decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            names |= self.inference.qualified_names(expr, scope)
        return names

    # -- call form ------------------------------------------------------------

    def _expression(self, registration: Registration, expr: cst.CSTNode, scope: Scope) -> Iterator[Target]:
        if isinstance(expr, (cst.List, cst.Tuple)):
            for element in expr.elements:
                yield from self._expression(registration, element.value, scope)
            return
        if not isinstance(expr, cst.BaseExpression):
            return
        if isinstance(expr, cst.Lambda):
            yield self._function(registration, expr, "<lambda>", node=expr)
            return
        if isinstance(expr, cst.Attribute):
            yield self._attribute(registration, expr, scope)
            return
        if isinstance(expr, cst.Name):
            yield from self._name(registration, expr, scope)
            return
        if isinstance(expr, cst.Call) and expr.args and self._is_marker(expr.func, scope):
            # allow_in_graph(nonstrict_trace(f)): judge f; AIG406 reports the pair.
            yield from self._expression(registration, expr.args[0].value, scope)
            return
        yield self._value(registration, expr, self.inference.infer(expr, scope), describe(expr))

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
            if isinstance(binding.value, (cst.List, cst.Tuple)) and binding.kind is BindingKind.ASSIGN:
                # OPS = (a, b); allow_in_graph(OPS): each element, reported at the registration.
                for target in self._expression(registration, binding.value, binding.written_in):
                    yield replace(target, node=expr)
                continue
            inferred = self.inference.binding_kind(binding)
            if binding.kind is BindingKind.PARAMETER or id(inferred.definition or binding) in seen:
                continue
            seen.add(id(inferred.definition or binding))
            yield self._value(registration, expr, inferred, expr.value)

    def _attribute(self, registration: Registration, expr: cst.Attribute, scope: Scope) -> Target:
        owner = self.inference.infer(expr.value, scope)
        attr = expr.attr.value
        display = describe(expr)
        if isinstance(owner.definition, cst.ClassDef) and owner.kind in (Kind.OBJECT, Kind.MODULE, Kind.CLASS):
            model = self.inference.class_model(owner.definition)
            found = model.method(attr)
            if found is not None:
                return self._method(registration, expr, owner, found, display)
        return self._value(registration, expr, self.inference.infer(expr, scope), display)

    def _method(
        self,
        registration: Registration,
        expr: cst.Attribute,
        owner: Inferred,
        found: tuple[cst.FunctionDef, ClassModel],
        display: str,
    ) -> Target:
        definition, model = found
        decorators = self._decorator_names(definition.decorators, model.body)
        if "builtins.staticmethod" in decorators:
            return self._function(registration, definition, display, TargetKind.STATICMETHOD, node=expr)
        if "builtins.classmethod" in decorators:
            return Target(registration, TargetKind.CLASSMETHOD, expr, display, definition=definition)
        if owner.kind is Kind.CLASS:
            return Target(registration, TargetKind.METHOD, expr, display, definition=definition)
        if not registration.result_kept:
            return Target(
                registration,
                TargetKind.BOUND_METHOD,
                expr,
                display,
                definition=definition,
                method_use=MethodUse.DISCARDED,
            )
        bypass = self._direct_call(registration, expr, model)
        if bypass is not None:
            return Target(
                registration,
                TargetKind.BOUND_METHOD,
                expr,
                display,
                definition=definition,
                related=bypass,
                method_use=MethodUse.BYPASSED,
            )
        return self._function(registration, definition, display, TargetKind.BOUND_METHOD, node=expr, bound_self=True)

    def _direct_call(self, registration: Registration, expr: cst.Attribute, model: ClassModel) -> cst.Call | None:
        """A call ``self.meth(...)`` in the class that looks the method up afresh.

        ``self._f = allow_in_graph(self.meth)`` is honoured only through ``self._f``;
        ``self.meth = allow_in_graph(self.meth)`` shadows the method, so every call is.
        """
        stored = self.tree.assigned_calls.get(registration.site)  # type: ignore[arg-type]
        if isinstance(stored, cst.Attribute) and stored.attr.value == expr.attr.value:
            return None
        if not isinstance(expr.value, cst.Name):
            return None
        receiver, method = expr.value.value, expr.attr.value
        for scope in model.body.walk():
            for call, _ in self.tree.calls_in(scope):
                func = call.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value == method
                    and isinstance(func.value, cst.Name)
                    and func.value.value == receiver
                ):
                    return call
        return None

    def _value(self, registration: Registration, expr: cst.BaseExpression, inferred: Inferred, display: str) -> Target:
        """Classify a registered value from what inference knows about it."""
        definition = inferred.definition
        kind = inferred.kind
        if kind is Kind.FUNCTION and isinstance(definition, (cst.FunctionDef, cst.Lambda)):
            body = self.tree.scope_of.get(definition)
            if body is not None and body.parent is not None and body.parent.kind is ScopeKind.CLASS:
                return self._method_by_name(registration, expr, definition, display)
            return self._function(registration, definition, display, node=expr)
        if kind is Kind.CLASS and isinstance(definition, cst.ClassDef):
            return self._class(registration, definition, expr)
        if kind in (Kind.OBJECT, Kind.MODULE) and isinstance(definition, cst.ClassDef):
            return self._instance(registration, expr, self.inference.class_model(definition), display)
        if kind is Kind.MODULE:
            return Target(registration, TargetKind.MODULE_INSTANCE, expr, display, value=inferred)
        if kind is Kind.PARTIAL:
            return Target(registration, TargetKind.PARTIAL, expr, display, value=inferred)
        if kind in (Kind.IMMUTABLE, Kind.NONE, Kind.MUTABLE, Kind.TENSOR, Kind.TENSOR_CONTAINER, Kind.NDARRAY):
            return Target(
                registration, TargetKind.NOT_CALLABLE, expr, display, value=inferred, not_callable=Uncallable.VALUE
            )
        return Target(registration, TargetKind.UNRESOLVED, expr, display)

    def _method_by_name(
        self,
        registration: Registration,
        expr: cst.BaseExpression,
        definition: cst.FunctionDef | cst.Lambda,
        display: str,
    ) -> Target:
        """``meth`` named inside its own class body, e.g. ``meth = allow_in_graph(meth)``."""
        assert isinstance(definition, cst.FunctionDef)
        decorators = self._decorator_names(definition.decorators, registration.scope)
        if "builtins.staticmethod" in decorators:
            return self._function(registration, definition, display, TargetKind.STATICMETHOD, node=expr)
        if "builtins.classmethod" in decorators:
            return Target(registration, TargetKind.CLASSMETHOD, expr, display, definition=definition)
        return Target(registration, TargetKind.METHOD, expr, display, definition=definition)

    def _instance(
        self, registration: Registration, expr: cst.BaseExpression, model: ClassModel, display: str
    ) -> Target:
        instance = Inferred(Kind.MODULE if model.is_module else Kind.OBJECT, Basis.INSTANCE, model.name, model.node)
        if model.is_module:
            return Target(
                registration, TargetKind.MODULE_INSTANCE, expr, display, value=instance, instance_of=model.name
            )
        if not model.resolved:  # __call__, __hash__ and __name__ may come from a base we cannot see
            return Target(registration, TargetKind.UNRESOLVED, expr, display, value=instance, instance_of=model.name)
        if not model.defines_call:
            return Target(
                registration,
                TargetKind.NOT_CALLABLE,
                expr,
                display,
                value=instance,
                instance_of=model.name,
                not_callable=Uncallable.NO_CALL,
            )
        if not model.hashable:
            return Target(registration, TargetKind.UNHASHABLE_INSTANCE, expr, display, instance_of=model.name)
        if model.assigns("__name__"):
            # Dynamo only fails for want of __name__ (evidence/dynamo/exp_named_callable_instance.py).
            return Target(
                registration, TargetKind.NAMED_INSTANCE, expr, display, definition=model.node, instance_of=model.name
            )
        # Dynamo fails on the call itself (evidence section 5), so the body is not judged.
        return Target(
            registration, TargetKind.CALLABLE_INSTANCE, expr, display, definition=model.node, instance_of=model.name
        )

    def _class(self, registration: Registration, definition: cst.ClassDef, node: cst.CSTNode) -> Target:
        model = self.inference.class_model(definition)
        point = registration.site if registration.form is Form.DECORATOR else node
        if model.is_autograd_function:
            bodies = tuple(
                Body(method, self.tree.scope_of[method], registered_at=registration.where)
                for name in ("forward", "backward", "setup_context")
                if (found := model.method(name)) is not None
                for method in (found[0],)
                if method in self.tree.scope_of
            )
            return Target(
                registration, TargetKind.AUTOGRAD_FUNCTION, point, model.name, definition=definition, bodies=bodies
            )
        if model.is_module:
            return Target(registration, TargetKind.MODULE_CLASS, point, model.name, definition=definition)
        if not model.resolved and not model.is_tensor_subclass:
            return Target(registration, TargetKind.UNRESOLVED, point, model.name, definition=definition)
        return Target(registration, TargetKind.CLASS, point, model.name, definition=definition)

    def _function(
        self,
        registration: Registration,
        definition: cst.FunctionDef | cst.Lambda,
        display: str,
        kind: TargetKind = TargetKind.FUNCTION,
        node: cst.CSTNode | None = None,
        bound_self: bool = False,
    ) -> Target:
        scope = self.tree.scope_of.get(definition)
        if scope is None:  # defined in another module: not judged from here
            return Target(registration, TargetKind.UNRESOLVED, node or registration.site, display)
        body = Body(definition, scope, bound_self, registration.where)
        point = node if node is not None and registration.form is Form.CALL else registration.site
        return Target(registration, kind, point, display, definition=definition, bodies=(body,))


def _contains(expr: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """Whether ``node`` occurs inside ``expr`` (``g = allow_in_graph(g)`` does not bind the target)."""
    if expr is None:
        return False
    if expr is node:
        return True
    return any(_contains(child, node) for child in expr.children)
