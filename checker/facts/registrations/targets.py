"""What each registration registers, and whether torch will honour it.

A registration's argument is resolved to definitions in the module: a def, a lambda,
a class, a method looked up through ``self``/``obj``/``Class``, the closure a factory
returns, an instance, a ``functools.partial``, a literal. Lists and tuples register
each element. Anything defined outside the module stays UNRESOLVED and is not judged.

This module says what a target is; :mod:`checker.facts.registrations.resolver` resolves a
registration's argument, and :mod:`checker.facts.registrations.definition_targets` makes the target
of the def, class, method or instance it comes to.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import libcst as cst

from checker.facts.kinds.kind import Inferred
from checker.facts.registrations.sites import Registration
from checker.facts.scopes.tree import Scope
from checker.spec.links import Place


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
    COLLECTION = "collection"  # a set, a dict view, an iterator: ``Target.value.subject`` says which
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


@dataclass(frozen=True)
class ClosureElsewhere:
    """A closure that a function of another module (``creator``) makes anew on each call and
    a registration here registers, as data: the nested def's name (empty for a lambda),
    where it is, and the names it closes over (none: it closes over nothing)."""

    nested_def: str
    creator: str
    names: tuple[str, ...]
    place: Place


@dataclass(frozen=True, eq=False)
class Target:
    """One registered thing. ``node`` is where target-specific findings point.

    ``value`` is what inference says a registered value is (a module instance, a
    partial, a constant), ``instance_of`` the class of a registered instance,
    ``not_callable`` and ``method_use`` why a target fails or is not honoured,
    ``closure_elsewhere`` the closure another module's factory returns (its body is judged there).
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
    #: What another module's factory returns, when that is a closure it makes (AIG401).
    closure_elsewhere: ClosureElsewhere | None = None

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
