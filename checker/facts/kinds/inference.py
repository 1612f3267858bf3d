"""Value kinds, inferred from the assignments in one module.

``torch.ones(4)`` is a tensor, ``nn.Linear(4, 4)`` a module, ``W * 2`` a tensor when
``W`` is one, ``self.w`` whatever ``__init__`` assigned to it. Inference follows
bindings through Python's scoping rules, is memoised per (expression, scope) and,
once settled, per (name, scope), and gives up (UNKNOWN) on cycles, depth, and
anything it does not recognise. The names
an expression stands for come from :mod:`checker.facts.scopes.qualified_names`, what the
tables alone say from :mod:`checker.facts.kinds.known`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

import libcst as cst

from checker.facts.kinds.classes import ClassModel, LeftOutBodies
from checker.facts.kinds.kind import NONE, UNKNOWN, Basis, Inferred, Kind, join
from checker.facts.kinds.known import builtin, known_call, known_name, method_result, without_function_body
from checker.facts.scopes.lookups import Lookups
from checker.facts.scopes.qualified_names import MAX_DEPTH, QualifiedNames
from checker.facts.scopes.syntax import operands
from checker.facts.scopes.tree import Binding, BindingKind, Scope, ScopeKind, ScopeTree, all_params
from checker.spec import torch_api as api

_CONSTANTS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


class ImportedNames(Protocol):
    """What inference asks of the other modules of the project."""

    def kind(self, importer: str, qualified: str) -> Inferred | None:
        """What ``qualified``, imported by the module at ``importer``, is at the top level
        of the project module that binds it (re-exports followed), or None."""
        ...

    def class_model(self, node: cst.ClassDef) -> ClassModel | None:
        """The model of a class defined in another parsed module of the project."""
        ...


class Inference(QualifiedNames):
    """Answers "what is this expression?" for one module (and, as :class:`QualifiedNames`,
    which dotted names it may be)."""

    def __init__(self, tree: ScopeTree, path: str = "", index: ImportedNames | None = None) -> None:
        super().__init__(tree)
        self.path = path
        self.index = index
        self._kinds: dict[tuple[cst.CSTNode, Scope], Inferred] = {}
        #: Kinds inferred while following imports (see ``following_imports``), kept apart.
        self._followed_kinds: dict[tuple[cst.CSTNode, Scope], Inferred] = {}
        self._following = 0
        #: Settled kinds of names, per (name, scope that binds it); see ``Lookups``.
        self._name_kinds: dict[tuple[str, Scope], Inferred] = {}
        self._followed_name_kinds: dict[tuple[str, Scope], Inferred] = {}
        self._classes: dict[cst.ClassDef, ClassModel] = {}
        #: Set where the module was parsed with its methods' bodies left out (an installed module).
        self.left_out: LeftOutBodies | None = None
        # In-progress lookups, one set per question: a qualified-name lookup inside the
        # kind lookup of the same expression is not a cycle (they keep their own set).
        self._inferring = Lookups(MAX_DEPTH)

    # -- kinds ----------------------------------------------------------------

    @contextmanager
    def following_imports(self) -> Iterator[None]:
        """Within it, a name imported from another module of the project is what that module
        binds it to (each answer may parse a module): for the facts that judge registered
        code. Finding registrars does without, since it asks about every call."""
        self._following += 1
        try:
            yield
        finally:
            self._following -= 1

    def infer(self, expr: cst.BaseExpression, scope: Scope) -> Inferred:
        key = (expr, scope)
        kinds = self._followed_kinds if self._following else self._kinds
        if key in kinds:
            return kinds[key]
        if not self._inferring.enter(key):
            return UNKNOWN
        try:
            result = self._infer(expr, scope)
        finally:
            self._inferring.leave(key)
        kinds[key] = result
        return result

    def _infer(self, expr: cst.BaseExpression, scope: Scope) -> Inferred:
        if isinstance(expr, _CONSTANTS):
            return Inferred(Kind.IMMUTABLE, Basis.LITERAL)
        if isinstance(expr, cst.Name):
            return self.infer_name(expr.value, scope)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, scope)
        if isinstance(expr, cst.Call):
            return self._call(expr, scope)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, scope)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            return self._sequence(expr, [e.value for e in expr.elements], scope)
        if isinstance(expr, cst.Dict):
            values = [e.value for e in expr.elements if isinstance(e, cst.DictElement)]
            return self._sequence(expr, values, scope)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.DictComp)):
            inner = self.tree.scope_of.get(expr, scope)
            element = expr.value if isinstance(expr, cst.DictComp) else expr.elt
            found = self.infer(element, inner)
            return Inferred(Kind.TENSOR_CONTAINER if found.kind.is_tensor_like else Kind.MUTABLE, Basis.COMPREHENSION)
        if isinstance(expr, cst.Lambda):
            return Inferred(Kind.FUNCTION, Basis.LAMBDA, "", expr, scope)
        if isinstance(expr, (cst.UnaryOperation, cst.BinaryOperation, cst.Comparison, cst.BooleanOperation)):
            return self._operation(expr, scope)
        if isinstance(expr, cst.IfExp):
            return join([self.infer(expr.body, scope), self.infer(expr.orelse, scope)])
        if isinstance(expr, cst.NamedExpr):
            return self.infer(expr.value, scope)
        return UNKNOWN

    def infer_name(self, name: str, scope: Scope) -> Inferred:
        owner = self.tree.owner(scope, name)
        if owner is None:
            return builtin(name)
        key = (name, owner)
        kinds = self._followed_name_kinds if self._following else self._name_kinds
        if key in kinds:
            return kinds[key]
        answer = self._inferring.settle(key, lambda: self._bound_kind(name, owner))
        if answer is None:
            return UNKNOWN  # a read of the name inside its own bindings' values
        result, settled = answer
        if settled:
            kinds[key] = result
        return result

    def _bound_kind(self, name: str, owner: Scope) -> Inferred:
        bindings = [
            b
            for b in owner.bindings.get(name, [])
            if b.kind not in (BindingKind.DELETE, BindingKind.AUGMENTED) and not self._registers_itself(b)
        ]
        declared = [self._annotation(b.annotation, b.written_in) for b in bindings if b.annotation is not None]
        known = [kind for kind in declared if kind.known]
        if known:
            return join(known)  # a declared type wins, as in a type checker
        return join(self.binding_kind(b) for b in bindings) if bindings else UNKNOWN

    def _registers_itself(self, binding: Binding) -> bool:
        """``f = allow_in_graph(f)``: the name stays bound to what it was (the API returns
        its argument), so the rebinding adds nothing to what the name is."""
        value = binding.value
        return (
            binding.kind is BindingKind.ASSIGN
            and isinstance(value, cst.Call)
            and bool(value.args)
            and isinstance(value.args[0].value, cst.Name)
            and value.args[0].value.value == binding.name
            and bool(self.qualified_names(value.func, binding.written_in) & api.REGISTRATION_APIS)
        )

    def binding_kind(self, binding: Binding) -> Inferred:
        """What one binding binds its name to."""
        kind = binding.kind
        if kind is BindingKind.FUNCTION:
            return Inferred(Kind.FUNCTION, Basis.DEF, binding.name, binding.definition, binding.written_in)
        if kind is BindingKind.CLASS:
            return Inferred(Kind.CLASS, Basis.CLASS, binding.name, binding.definition, binding.written_in)
        if kind is BindingKind.IMPORT:
            return self._imported(binding)
        if kind is BindingKind.PARAMETER:
            return self._parameter(binding)
        if kind is BindingKind.TYPE:
            return UNKNOWN  # ``type A = ...`` binds a TypeAliasType, whatever its value names
        if binding.annotation is not None:
            declared = self._annotation(binding.annotation, binding.written_in)
            if declared.known:
                return declared
        if binding.value is not None:
            return self.infer(binding.value, binding.written_in)
        return UNKNOWN

    def _imported(self, binding: Binding) -> Inferred:
        name = binding.imported or ""
        known = known_name(name)
        if known is not None:
            return known
        if isinstance(binding.node, cst.Attribute) or (
            isinstance(binding.node, cst.Name) and "." not in name and not name.startswith(".")
        ):
            # ``import a.b`` or ``import a``: a module object.
            return Inferred(Kind.PYMODULE, Basis.NAME, name)
        if self._following and binding.statement is not None and self.index is not None and name:
            # ``from .weights import W``: what W is in the project module that binds it.
            inferred = self.index.kind(self.path, name)
            return UNKNOWN if inferred is None else without_function_body(inferred)
        return UNKNOWN

    def imported_kind(self, name: str, scope: Scope) -> Inferred:
        """The kind of a name this module imports from another module of the project (a
        constant, a tensor, a class and its bases). Asked only where it matters (captured
        names, base classes), since each answer may parse a module. Functions come back
        without their definition: bodies in other modules are not judged here."""
        bindings = self.tree.bindings(scope, name)
        if self.index is None or len(bindings) != 1 or bindings[0].kind is not BindingKind.IMPORT:
            return UNKNOWN
        qualified = bindings[0].imported or ""
        if bindings[0].statement is None and "." not in qualified:
            return UNKNOWN  # ``import pkg``: a module object, nothing to look up
        inferred = self.index.kind(self.path, qualified)
        return UNKNOWN if inferred is None else without_function_body(inferred)

    def imported_expression(self, expr: cst.BaseExpression, scope: Scope) -> Inferred:
        """What a name or attribute imported from another module of the project is there:
        ``Base`` (``from .base import Base``), ``base.Base`` (``from . import base``),
        ``pkg.config.FLAG`` (``import pkg.config``)."""
        if isinstance(expr, cst.Name):
            return self.imported_kind(expr.value, scope)
        if self.index is None or not isinstance(expr, cst.Attribute):
            return UNKNOWN
        for qualified in sorted(self.qualified_names(expr, scope)):
            if qualified.startswith("builtins."):
                continue
            inferred = self.index.kind(self.path, qualified)
            if inferred is not None and inferred.known:
                return without_function_body(inferred)
        return UNKNOWN

    def _parameter(self, binding: Binding) -> Inferred:
        if binding.annotation is not None:
            declared = self._annotation(binding.annotation, binding.written_in)
            if declared.known:
                return declared
        method = binding.written_in
        owner = method.parent
        if method.kind is not ScopeKind.FUNCTION or owner is None or owner.kind is not ScopeKind.CLASS:
            return UNKNOWN
        assert isinstance(method.node, cst.FunctionDef)
        params = all_params(method.node.params)
        if not params or params[0].name is not binding.node:
            return UNKNOWN
        model = self.class_model(owner.node)  # type: ignore[arg-type]
        decorators = self.decorator_names(method.node, owner.parent or owner)
        if "builtins.staticmethod" in decorators:
            return UNKNOWN
        if "builtins.classmethod" in decorators:
            return Inferred(Kind.CLASS, Basis.CLASS, model.name, model.node, owner.parent)
        return model.instance(binding.name)

    def _annotation(self, annotation: cst.BaseExpression, scope: Scope) -> Inferred:
        names = self.qualified_names(annotation, scope)
        if names & api.TENSOR_ANNOTATIONS:
            return Inferred(Kind.TENSOR, Basis.ANNOTATION)
        if names & api.MODULE_BASES:
            return Inferred(Kind.MODULE, Basis.ANNOTATION)
        return UNKNOWN

    def _attribute(self, expr: cst.Attribute, scope: Scope) -> Inferred:
        attr = expr.attr.value
        for name in self.qualified_names(expr, scope):
            known = known_name(name)
            if known is not None:
                return known
            if name.rpartition(".")[0] in api.CONSTANT_MODULES:
                return Inferred(Kind.IMMUTABLE, Basis.NAME, name)
        owner = self.infer(expr.value, scope)
        if owner.kind is Kind.TENSOR:
            if attr in api.TENSOR_ATTRIBUTES:
                return Inferred(Kind.TENSOR, Basis.TENSOR_ATTRIBUTE, attr)
            if attr in api.TENSOR_METADATA:
                return Inferred(Kind.IMMUTABLE, Basis.TENSOR_METADATA, attr)
            return UNKNOWN
        if isinstance(owner.definition, cst.ClassDef) and owner.kind in (Kind.OBJECT, Kind.MODULE, Kind.CLASS):
            return self.class_model(owner.definition).attribute_kind(attr, self)
        if owner.kind is Kind.MODULE and attr in ("weight", "bias"):
            return Inferred(Kind.TENSOR, Basis.MODULE_PARAMETER, attr)
        return UNKNOWN

    def _call(self, expr: cst.Call, scope: Scope) -> Inferred:
        names = self.qualified_names(expr.func, scope)
        if names & api.REGISTRATION_APIS and expr.args:
            return self.infer(expr.args[0].value, scope)  # allow_in_graph(f) is f
        for name in names:
            known = known_call(name)
            if known is not None:
                return known
        func = expr.func
        if isinstance(func, cst.Attribute):
            receiver = self.infer(func.value, scope)
            method = method_result(receiver, func.attr.value)
            if method is not None:
                return method
        callee = self.infer(func, scope)
        if callee.kind is Kind.CLASS and isinstance(callee.definition, cst.ClassDef):
            return self.class_model(callee.definition).instance()
        if callee.kind is Kind.FUNCTION and callee.definition is not None:
            return self.returned(callee.definition)
        if callee.kind is Kind.MODULE:
            return Inferred(Kind.TENSOR, Basis.MODULE_OUTPUT)
        return UNKNOWN

    def returned(self, definition: cst.CSTNode) -> Inferred:
        """What calling a def or lambda of this module returns; closures come back as FUNCTION."""
        body = self.tree.scope_of.get(definition)
        if body is None:
            return UNKNOWN
        if isinstance(definition, cst.Lambda):
            return self.infer(definition.body, body)
        if not body.returns:
            return NONE
        return join(self.infer(value, body) for value in body.returns)

    def _subscript(self, expr: cst.Subscript, scope: Scope) -> Inferred:
        container = self.infer(expr.value, scope)
        if container.kind in (Kind.TENSOR, Kind.TENSOR_CONTAINER):
            return Inferred(Kind.TENSOR, Basis.ITEM)
        if container.kind in (Kind.NDARRAY, Kind.MODULE):
            return Inferred(container.kind, container.basis, container.subject, named=container.named)
        return UNKNOWN

    def _sequence(self, expr: cst.BaseExpression, values: list[cst.BaseExpression], scope: Scope) -> Inferred:
        kinds = [self.infer(value, scope).kind for value in values]
        if any(kind.is_tensor_like for kind in kinds):
            return Inferred(Kind.TENSOR_CONTAINER, Basis.TENSOR_DISPLAY)
        if isinstance(expr, cst.Tuple):
            if all(kind in (Kind.IMMUTABLE, Kind.NONE) for kind in kinds):
                return Inferred(Kind.IMMUTABLE, Basis.CONSTANT_TUPLE)
            return UNKNOWN
        return Inferred(Kind.MUTABLE, Basis.DISPLAY)

    def _operation(self, expr: cst.BaseExpression, scope: Scope) -> Inferred:
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            return Inferred(Kind.IMMUTABLE, Basis.ARITHMETIC)  # ``not t`` is a Python bool, whatever t is
        kinds = {self.infer(child, scope).kind for child in operands(expr)}
        if Kind.TENSOR in kinds:
            return Inferred(Kind.TENSOR, Basis.ARITHMETIC)
        if Kind.NDARRAY in kinds:
            return Inferred(Kind.NDARRAY, Basis.ARITHMETIC)
        if kinds <= {Kind.IMMUTABLE}:
            return Inferred(Kind.IMMUTABLE, Basis.ARITHMETIC)
        return UNKNOWN

    # -- classes and decorators -------------------------------------------------

    def class_model(self, node: cst.ClassDef) -> ClassModel:
        model = self._classes.get(node)
        if model is None:
            scope = self.tree.scope_of.get(node)
            if scope is None:
                foreign = self.index.class_model(node) if self.index is not None else None
                if foreign is None:
                    raise LookupError(f"class {node.name.value} belongs to no parsed module")
                return foreign
            model = ClassModel(node, scope, self)
            self._classes[node] = model
        return model
