"""The target a definition makes once a registration is resolved to it.

A def or lambda, a class (an autograd.Function's bodies are its forward, backward and
setup_context), an instance (judged by what its class defines), a method looked up on
an instance or a class, named in its class body, or decorated there; and a def or
class that another module registers.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from checker.facts.kinds.classes import ClassModel
from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Basis, Inferred, Kind
from checker.facts.registrations.sites import Form, Registration
from checker.facts.registrations.targets import Body, MethodUse, Target, TargetKind, Uncallable
from checker.facts.scopes.tree import Scope, ScopeKind, ScopeTree
from checker.spec.messages.registrations import CUSTOM_OP

#: Decorators that turn a def into a ``CustomOpDef`` object (measured: evidence D19).
CUSTOM_OPS = frozenset({"torch.library.custom_op", "torch._library.custom_ops.custom_op"})


class DefinitionTargets:
    """Makes the targets of one module's definitions."""

    def __init__(self, tree: ScopeTree, inference: Inference) -> None:
        self.tree = tree
        self.inference = inference

    def elsewhere(self, registration: Registration) -> Target:
        """A top-level def or class of this module that another module registers."""
        definition = registration.argument
        if isinstance(definition, cst.ClassDef):
            return self.class_def(registration, definition, definition)
        assert isinstance(definition, cst.FunctionDef)
        if self.made_custom_op(definition, self.tree.module):  # reported where it is registered
            return Target(registration, TargetKind.UNRESOLVED, definition, definition.name.value)
        return self.function(registration, definition, definition.name.value)

    def decorated(self, registration: Registration) -> Target:
        """The def or class under ``@allow_in_graph``; in a class body, a method (or what
        ``classmethod``, ``staticmethod`` and ``property`` make of it)."""
        definition = registration.argument
        if isinstance(definition, cst.ClassDef):
            return self.class_def(registration, definition, definition.name)
        assert isinstance(definition, cst.FunctionDef)
        body = self.tree.scope_of[definition]  # a decorated def is always in this module
        name = definition.name.value
        parent = body.parent
        applied_first = definition.decorators[registration.decorator_index + 1 :]
        if self._decorator_names(applied_first, registration.scope) & CUSTOM_OPS:
            return self.custom_op(registration, definition, registration.site, name)
        if parent is None or parent.kind is not ScopeKind.CLASS:
            return self.function(registration, definition, name)
        applied_after = definition.decorators[: registration.decorator_index]
        below = self._decorator_names(applied_first, registration.scope)
        above = self._decorator_names(applied_after, registration.scope)
        display = f"{parent.name}.{name}"
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
            return self.function(registration, definition, display, TargetKind.STATICMETHOD)
        if "builtins.classmethod" in above:
            return Target(registration, TargetKind.CLASSMETHOD, registration.site, display, definition=definition)
        if "builtins.property" in above:
            return Target(registration, TargetKind.PROPERTY, registration.site, display, definition=definition)
        return Target(registration, TargetKind.METHOD, registration.site, display, definition=definition)

    def made_custom_op(self, definition: cst.FunctionDef, scope: Scope) -> bool:
        """Whether ``@torch.library.custom_op(...)`` makes the def a CustomOpDef object."""
        return bool(self._decorator_names(definition.decorators, scope) & CUSTOM_OPS)

    def custom_op(
        self, registration: Registration, definition: cst.FunctionDef | None, node: cst.CSTNode, display: str
    ) -> Target:
        """A ``torch.library.custom_op`` object: a callable instance without ``__name__``, which
        Dynamo fails on at the first compiled call (evidence D19, exp_registration_forms.py).
        ``definition``: the def, when it is in this module."""
        return Target(
            registration, TargetKind.CALLABLE_INSTANCE, node, display, definition=definition, instance_of=CUSTOM_OP
        )

    def _decorator_names(self, decorators: Sequence[cst.Decorator], scope: Scope) -> set[str]:
        names: set[str] = set()
        for decorator in decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            names |= self.inference.qualified_names(expr, scope)
        return names

    def method(
        self,
        registration: Registration,
        expr: cst.Attribute,
        owner: Inferred,
        found: tuple[cst.FunctionDef, ClassModel],
        display: str,
    ) -> Target:
        """``obj.meth`` or ``Class.meth`` (``expr``), found in the class of ``owner``."""
        definition, model = found
        decorators = self._decorator_names(definition.decorators, model.body)
        if "builtins.staticmethod" in decorators:
            return self.function(registration, definition, display, TargetKind.STATICMETHOD, node=expr)
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
        return self.function(registration, definition, display, TargetKind.BOUND_METHOD, node=expr, bound_self=True)

    def _direct_call(self, registration: Registration, expr: cst.Attribute, model: ClassModel) -> cst.Call | None:
        """A call ``self.meth(...)`` in the class that looks the method up afresh.

        ``self._f = allow_in_graph(self.meth)`` is honoured only through ``self._f``;
        ``self.meth = allow_in_graph(self.meth)`` shadows the method, so every call is.
        """
        site = registration.site  # a call, or a decorator (never an assigned call)
        stored = self.tree.assigned_calls.get(site) if isinstance(site, cst.Call) else None
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

    def method_by_name(
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
            return self.function(registration, definition, display, TargetKind.STATICMETHOD, node=expr)
        if "builtins.classmethod" in decorators:
            return Target(registration, TargetKind.CLASSMETHOD, expr, display, definition=definition)
        return Target(registration, TargetKind.METHOD, expr, display, definition=definition)

    def instance(self, registration: Registration, expr: cst.BaseExpression, model: ClassModel, display: str) -> Target:
        """An instance of a class of the project, judged by what the class defines."""
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

    def class_def(self, registration: Registration, definition: cst.ClassDef, node: cst.CSTNode) -> Target:
        """A class; an autograd.Function's bodies are its forward, backward and setup_context."""
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

    def function(
        self,
        registration: Registration,
        definition: cst.FunctionDef | cst.Lambda,
        display: str,
        kind: TargetKind = TargetKind.FUNCTION,
        node: cst.CSTNode | None = None,
        bound_self: bool = False,
    ) -> Target:
        """A def or lambda, one body to judge; UNRESOLVED when another module defines it."""
        scope = self.tree.scope_of.get(definition)
        if scope is None:  # defined in another module: not judged from here
            return Target(registration, TargetKind.UNRESOLVED, node or registration.site, display)
        body = Body(definition, scope, bound_self, registration.where)
        point = node if node is not None and registration.form is Form.CALL else registration.site
        return Target(registration, kind, point, display, definition=definition, bodies=(body,))
