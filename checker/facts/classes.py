"""What a class defined in the checked module is: its bases, methods and attributes."""

from __future__ import annotations

from functools import cached_property
from typing import Protocol

import libcst as cst

from checker import torch_api as api
from checker.facts.kinds import UNKNOWN, Basis, Inferred, Kind, join
from checker.facts.scopes import BindingKind, Scope, ScopeTree, all_params


class Resolver(Protocol):
    """The questions a class model asks of its module's inference."""

    tree: ScopeTree

    def qualified_names(self, expr: cst.BaseExpression, scope: Scope) -> frozenset[str]: ...

    def infer(self, expr: cst.BaseExpression, scope: Scope) -> Inferred: ...

    def imported_kind(self, name: str, scope: Scope) -> Inferred: ...

    def class_model(self, node: cst.ClassDef) -> ClassModel: ...


_REGISTER_ATTRIBUTE = {"register_buffer": "buffer", "register_parameter": "parameter", "register_module": "module"}


class ClassModel:
    """A class of this module, read from its definition (bases resolved in-module)."""

    def __init__(self, node: cst.ClassDef, body: Scope, inference: Resolver) -> None:
        self.node = node
        self.name = node.name.value
        self.body = body
        self.outer = body.parent or body
        self._inference = inference

    @cached_property
    def base_names(self) -> frozenset[str]:
        names: set[str] = set()
        for base in self.node.bases:
            names |= self._inference.qualified_names(base.value, self.outer)
        return frozenset(names)

    @cached_property
    def bases(self) -> list[ClassModel]:
        """Base classes defined in this module."""
        found = []
        for base in self.node.bases:
            inferred = self._inference.infer(base.value, self.outer)
            if inferred.kind is Kind.UNKNOWN and isinstance(base.value, cst.Name):
                inferred = self._inference.imported_kind(base.value.value, self.outer)
            if inferred.kind is Kind.CLASS and isinstance(inferred.definition, cst.ClassDef):
                if inferred.definition is not self.node:
                    found.append(self._inference.class_model(inferred.definition))
        return found

    def _inherits(self, qualified: frozenset[str], module_classes: bool = False) -> bool:
        if self.base_names & qualified:
            return True
        if module_classes and any(api.is_torch_module_class(name) for name in self.base_names):
            return True
        return any(base._inherits(qualified, module_classes) for base in self.bases)

    def inherits_any(self, qualified: frozenset[str]) -> bool:
        """Whether a base (directly or through this module's classes) has one of these names."""
        return self._inherits(qualified)

    @cached_property
    def is_module(self) -> bool:
        return self._inherits(api.MODULE_BASES, module_classes=True)

    @cached_property
    def is_autograd_function(self) -> bool:
        return self._inherits(api.AUTOGRAD_FUNCTION_BASES)

    @cached_property
    def methods(self) -> dict[str, cst.FunctionDef]:
        return {
            name: bindings[-1].definition
            for name, bindings in self.body.bindings.items()
            if bindings[-1].kind is BindingKind.FUNCTION and isinstance(bindings[-1].definition, cst.FunctionDef)
        }

    def method(self, name: str) -> tuple[cst.FunctionDef, ClassModel] | None:
        """A method by name, looked up through in-module bases."""
        if name in self.methods:
            return self.methods[name], self
        for base in self.bases:
            found = base.method(name)
            if found is not None:
                return found
        return None

    @property
    def defines_call(self) -> bool:
        return self.method("__call__") is not None

    @cached_property
    def hashable(self) -> bool:
        """False when instances are unhashable: ``__eq__`` without ``__hash__``, or a plain dataclass."""
        if "__hash__" in self.body.bindings:
            value = self.body.bindings["__hash__"][-1].value
            return not (isinstance(value, cst.Name) and value.value == "None")
        if "__eq__" in self.body.bindings:
            return False
        dataclass = self.dataclass_options()
        if dataclass is not None:
            eq = dataclass.get("eq", True)
            return not eq or dataclass.get("frozen", False) or dataclass.get("unsafe_hash", False)
        return all(base.hashable for base in self.bases)

    def dataclass_options(self) -> dict[str, bool] | None:
        for decorator in self.node.decorators:
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            func = call.func if call is not None else expr
            if "dataclasses.dataclass" not in self._inference.qualified_names(func, self.outer):
                continue
            options: dict[str, bool] = {}
            for arg in call.args if call is not None else ():
                if arg.keyword is not None and isinstance(arg.value, cst.Name):
                    options[arg.keyword.value] = arg.value.value == "True"
            return options
        return None

    def instance(self, name: str | None = None) -> Inferred:
        kind = Kind.MODULE if self.is_module else Kind.OBJECT
        return Inferred(kind, Basis.INSTANCE, self.name, self.node, self.outer, named=name or "")

    @cached_property
    def _attribute_values(self) -> dict[str, list[tuple[cst.BaseExpression | None, Scope, str]]]:
        """Values assigned to each attribute: ``self.x = ...`` in methods, class-level names."""
        values: dict[str, list[tuple[cst.BaseExpression | None, Scope, str]]] = {}
        for name, bindings in self.body.bindings.items():
            for binding in bindings:
                if binding.kind in (BindingKind.ASSIGN, BindingKind.ANNOTATION):
                    values.setdefault(name, []).append((binding.value, self.body, "class attribute"))
        for method in self.methods.values():
            scope = self._inference.tree.scope_of[method]
            params = all_params(method.params)
            if not params:
                continue
            receiver = params[0].name.value
            for store in scope.attribute_stores:
                if store.base == receiver:
                    values.setdefault(store.attr, []).append((store.value, scope, "attribute"))
            for call, _ in self._inference.tree.calls_in(scope):
                registered = _registered_attribute(call, receiver)
                if registered is not None:
                    values.setdefault(registered[0], []).append((registered[1], scope, registered[2]))
        return values

    def attribute_kind(self, attr: str, inference: Resolver) -> Inferred:
        """The kind of ``instance.attr``; methods are FUNCTION, unknown attributes UNKNOWN."""
        method = self.method(attr)
        if method is not None:
            definition, owner = method
            return Inferred(Kind.FUNCTION, Basis.METHOD, f"{owner.name}.{attr}", definition, owner.body)
        assigned = self._attribute_values.get(attr)
        if assigned is None:
            for base in self.bases:
                inherited = base.attribute_kind(attr, inference)
                if inherited.known:
                    return inherited
            return UNKNOWN
        kinds = []
        for value, scope, how in assigned:
            if how in ("buffer", "parameter"):
                kinds.append(Inferred(Kind.TENSOR, Basis.REGISTERED, how))
            elif how == "module":
                kinds.append(Inferred(Kind.MODULE, Basis.REGISTERED, "submodule"))
            elif value is None:
                kinds.append(UNKNOWN)
            else:
                kinds.append(inference.infer(value, scope))
        return join(kinds)

    def assigns(self, attr: str) -> bool:
        return attr in self._attribute_values


def _registered_attribute(call: cst.Call, receiver: str) -> tuple[str, cst.BaseExpression | None, str] | None:
    """``self.register_buffer("name", value)`` and friends."""
    func = call.func
    if not (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == receiver
        and func.attr.value in _REGISTER_ATTRIBUTE
        and call.args
        and isinstance(call.args[0].value, cst.SimpleString)
    ):
        return None
    name = call.args[0].value.evaluated_value
    if not isinstance(name, str):
        return None
    value = call.args[1].value if len(call.args) > 1 else None
    return name, value, _REGISTER_ATTRIBUTE[func.attr.value]
