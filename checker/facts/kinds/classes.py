"""What a class defined in the checked module is: its bases, methods and attributes."""

from __future__ import annotations

from functools import cached_property
from typing import Protocol

import libcst as cst

from checker.facts.kinds.kind import UNKNOWN, Basis, Inferred, Kind, join
from checker.facts.scopes.tree import BindingKind, Scope, ScopeTree, all_params
from checker.spec import torch_api as api
from checker.spec.contract import UserClass


class Resolver(Protocol):
    """The questions a class model asks of its module's inference."""

    tree: ScopeTree

    def qualified_names(self, expr: cst.BaseExpression, scope: Scope) -> frozenset[str]: ...

    def infer(self, expr: cst.BaseExpression, scope: Scope) -> Inferred: ...

    def imported_kind(self, name: str, scope: Scope) -> Inferred: ...

    def imported_expression(self, expr: cst.BaseExpression, scope: Scope) -> Inferred: ...

    def class_model(self, node: cst.ClassDef) -> ClassModel: ...

    #: Set where the module was parsed with its methods' bodies left out (an installed module).
    left_out: LeftOutBodies | None


class LeftOutBodies(Protocol):
    """The methods' bodies a module was parsed without (:func:`checker.index.excerpts.without_method_bodies`)."""

    def left_out(self, node: cst.ClassDef, method: str) -> bool:
        """Whether the body of the method ``method`` of ``node`` was left out."""
        ...

    def setting(self, node: cst.ClassDef, attr: str) -> frozenset[str]:
        """The methods of ``node`` whose left-out bodies may set ``attr``."""
        ...

    def with_bodies(self, node: cst.ClassDef, methods: frozenset[str]) -> ClassModel | None:
        """``node`` with the bodies of ``methods`` (None: it cannot be found so)."""
        ...


_REGISTER_ATTRIBUTE = {"register_buffer": "buffer", "register_parameter": "parameter", "register_module": "module"}


#: Bases that say nothing about how instances fare in the contract.
_NEUTRAL_BASES = frozenset(
    {"builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol"}
)
_NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "collections.namedtuple", "typing_extensions.NamedTuple"})
_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
#: Bases whose meaning the contract knows, besides nn.Module classes (torch_api).
_KNOWN_BASES = (
    _NEUTRAL_BASES | _NAMEDTUPLE_BASES | _ENUM_BASES | api.TENSOR_BASES | api.MODULE_BASES | api.AUTOGRAD_FUNCTION_BASES
)
#: The protocol that makes a tensor subclass traceable (evidence S§11).
_FLATTEN_PROTOCOL = ("__tensor_flatten__", "__tensor_unflatten__")


class ClassModel:
    """A class of the project, read from its definition. Its bases are resolved through
    this module and, by import, the project's other modules; a base outside the project
    (or that cannot be resolved) leaves the class's kind unknown."""

    def __init__(self, node: cst.ClassDef, body: Scope, inference: Resolver) -> None:
        self.node = node
        self.name = node.name.value
        self.body = body
        self.outer = body.parent or body
        self._inference = inference

    @cached_property
    def base_names(self) -> frozenset[str]:
        names: set[str] = set()
        for base in self._base_expressions:
            names |= self._inference.qualified_names(base, self.outer)
        return frozenset(names)

    @cached_property
    def _base_expressions(self) -> list[cst.BaseExpression]:
        """What names each base: ``Generic[T]`` is ``Generic``, ``namedtuple("P", "a")`` is ``namedtuple``."""
        found = []
        for base in self.node.bases:
            expr = base.value
            if isinstance(expr, cst.Subscript):
                expr = expr.value
            elif isinstance(expr, cst.Call):
                expr = expr.func
            found.append(expr)
        return found

    @cached_property
    def _resolved_bases(self) -> list[ClassModel | None]:
        """Each base as a class of the project, or None when it is not one."""
        found: list[ClassModel | None] = []
        for base in self._base_expressions:
            if self._inference.qualified_names(base, self.outer) & _KNOWN_BASES:
                found.append(None)  # torch.Tensor, nn.Module, NamedTuple...: nothing to resolve
                continue
            inferred = self._inference.infer(base, self.outer)
            if inferred.kind is Kind.UNKNOWN and isinstance(base, (cst.Name, cst.Attribute)):
                inferred = self._inference.imported_expression(base, self.outer)
            definition = inferred.definition
            project = inferred.kind is Kind.CLASS and definition is not self.node
            found.append(
                self._inference.class_model(definition) if project and isinstance(definition, cst.ClassDef) else None
            )
        return found

    @cached_property
    def bases(self) -> list[ClassModel]:
        """The base classes defined in the project."""
        return [base for base in self._resolved_bases if base is not None]

    @cached_property
    def resolved(self) -> bool:
        """Whether every class in the base chain is known: a class of the project whose own
        chain is, or a base the contract knows (``object``, ``torch.Tensor``, ``nn.Module``,
        ``NamedTuple``, ``Enum``...). Otherwise the class's kind is unknown."""
        for expr, base in zip(self._base_expressions, self._resolved_bases, strict=True):
            if base is not None:
                if not base.resolved:
                    return False
                continue
            names = self._inference.qualified_names(expr, self.outer)
            if not (names & _KNOWN_BASES or any(api.is_torch_module_class(name) for name in names)):
                return False
        return True

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
    def is_tensor_subclass(self) -> bool:
        """Derives from ``torch.Tensor`` or ``nn.Parameter``, directly or through project classes."""
        return self._inherits(api.TENSOR_BASES)

    @cached_property
    def category(self) -> UserClass:
        """How the contract treats instances of this class (UNKNOWN when the chain is not resolved)."""
        if self.is_module:
            return UserClass.MODULE
        if self.is_tensor_subclass:
            if all(self.method(name) is not None for name in _FLATTEN_PROTOCOL):
                return UserClass.TRACEABLE_SUBCLASS
            return UserClass.BARE_SUBCLASS if self.resolved else UserClass.UNKNOWN
        if not self.resolved:
            return UserClass.UNKNOWN
        if self.inherits_any(_NAMEDTUPLE_BASES):
            return UserClass.NAMEDTUPLE
        if self.inherits_any(_ENUM_BASES):
            return UserClass.ENUM
        options = self.dataclass_options()
        if options is not None:
            return UserClass.FROZEN_DATACLASS if options.get("frozen", False) else UserClass.DATACLASS
        return UserClass.PLAIN

    def _with_bodies(self, methods: frozenset[str]) -> ClassModel:
        """This class, or where its module (an installed one) was parsed without the bodies
        of ``methods``, the class parsed with them."""
        left_out = self._inference.left_out
        if left_out is None or not methods:
            return self
        return left_out.with_bodies(self.node, methods) or self

    def _setting(self, attr: str) -> ClassModel:
        """This class, or the class parsed with the left-out method bodies that may set ``attr``."""
        left_out = self._inference.left_out
        return self if left_out is None else self._with_bodies(left_out.setting(self.node, attr))

    @cached_property
    def methods(self) -> dict[str, cst.FunctionDef]:
        """The methods the class body defines (where bodies were left out, as left; see :meth:`method`)."""
        return {
            name: bindings[-1].definition
            for name, bindings in self.body.bindings.items()
            if bindings[-1].kind is BindingKind.FUNCTION and isinstance(bindings[-1].definition, cst.FunctionDef)
        }

    def method(self, name: str) -> tuple[cst.FunctionDef, ClassModel] | None:
        """A method by name, looked up through in-module bases."""
        if name in self.methods:
            # (the class body binds the same names whole: a left-out body is read for its definition)
            left_out = self._inference.left_out
            if left_out is not None and left_out.left_out(self.node, name):
                whole = self._with_bodies(frozenset({name}))
                if whole is not self:
                    return whole.method(name)
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
        """What an instance is: a module, a tensor (any tensor subclass), or an object."""
        kind = Kind.MODULE if self.is_module else Kind.TENSOR if self.is_tensor_subclass else Kind.OBJECT
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
        if (complete := self._setting(attr)) is not self:
            return complete.attribute_kind(attr, inference)
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
        return attr in self._setting(attr)._attribute_values


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
