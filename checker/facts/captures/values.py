"""What Python type an expression inside a registered body has, and whether its value
is fixed by the call's arguments.

Two questions the result rules ask of returned expressions: "which type is this"
(``dict``, ``str``, a number, a function, a user object, a tensor), judged with
``checker.spec.contract``; and "is this number a literal or a pure function of the
arguments and their shapes", which Dynamo guards (so it is safe even when baked),
as opposed to data (``.item()``) or outside state (a counter), which it does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Kind
from checker.facts.registrations.targets import Body
from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import BindingKind, Scope, ScopeTree
from checker.spec import torch_api as api
from checker.spec.contract import UserClass

_NUMBER_CALLS = {"builtins.float": "builtins.float", "builtins.int": "builtins.int", "builtins.round": "builtins.int"}
#: Calls whose Python number depends on neither the arguments nor their shapes.
_CLOCK_AND_RANDOM = {
    **dict.fromkeys(
        ("time.time", "time.perf_counter", "time.monotonic", "time.process_time", "time.thread_time"), "builtins.float"
    ),
    **dict.fromkeys(
        ("time.time_ns", "time.perf_counter_ns", "time.monotonic_ns", "time.process_time_ns"), "builtins.int"
    ),
    **dict.fromkeys(
        ("random.random", "random.uniform", "random.gauss", "random.normalvariate", "random.expovariate"),
        "builtins.float",
    ),
    **dict.fromkeys(("random.randint", "random.randrange", "random.getrandbits"), "builtins.int"),
}
_SHAPE_METHODS = frozenset({"size", "dim", "ndimension", "numel", "nelement", "stride"})
_SHAPE_ATTRIBUTES = frozenset({"shape", "ndim"})
_DATA_METHODS = frozenset({"item", "tolist"})


@dataclass(frozen=True)
class ValueType:
    """``qualified`` is a contract name (``builtins.dict``); an instance of a class of the
    project has none, but its ``user_class`` category and ``class_name``. ``from_item``:
    a Python number read from a tensor with ``.item()``."""

    qualified: str = ""
    user_class: UserClass | None = None
    class_name: str = ""
    from_item: bool = False

    @property
    def is_number(self) -> bool:
        return self.qualified in ("builtins.int", "builtins.float")


def _is_shape_number(expr: cst.BaseExpression) -> bool:
    """``t.shape[i]``, ``t.size(i)``, ``t.dim()``, ``t.numel()``, ``t.ndim``: Python ints of any tensor."""
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute):
        return expr.value.attr.value == "shape" and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "ndim"
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method = expr.func.attr.value
        return method in ("dim", "ndimension", "numel", "nelement") or (method == "size" and len(expr.args) == 1)
    return False


class Values:
    def __init__(self, tree: ScopeTree, inference: Inference) -> None:
        self.tree = tree
        self.inference = inference

    def type_of(self, expr: cst.BaseExpression, scope: Scope) -> ValueType | None:
        """The Python type of ``expr`` where it is clear, else None (never guessed)."""
        with self.inference.following_imports():  # an instance of a class imported from the project
            return self._type_of(expr, scope)

    def _type_of(self, expr: cst.BaseExpression, scope: Scope) -> ValueType | None:
        if isinstance(expr, cst.Integer):
            return ValueType("builtins.int")
        if isinstance(expr, cst.Float):
            return ValueType("builtins.float")
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return ValueType("builtins.str")
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return ValueType("builtins.dict")
        if isinstance(expr, (cst.Set, cst.SetComp)):
            return ValueType("builtins.set")
        if isinstance(expr, cst.Lambda):
            return ValueType("types.FunctionType")
        if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
            return ValueType("builtins.bool")
        if isinstance(expr, cst.Comparison) or (
            isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not)
        ):
            operands = (
                [expr.left, *(c.comparator for c in expr.comparisons)] if isinstance(expr, cst.Comparison) else []
            )
            if all(self._plain_python(operand, scope) for operand in operands):
                return ValueType("builtins.bool")
            return None
        if isinstance(expr, cst.Call):
            return self._call_type(expr, scope)
        if isinstance(expr, cst.Attribute) and expr.attr.value == "dtype":
            return ValueType("torch.dtype")
        if _is_shape_number(expr):
            return ValueType("builtins.int")
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.type_of(expr.left, scope), self.type_of(expr.right, scope)
            if left is not None and right is not None and left.is_number and right.is_number:
                wider = "builtins.float" if "builtins.float" in (left.qualified, right.qualified) else "builtins.int"
                return ValueType(wider)
            return None
        return self._inferred_type(expr, scope)

    def _call_type(self, call: cst.Call, scope: Scope) -> ValueType | None:
        names = self.inference.qualified_names(call.func, scope)
        for name in names:
            if name in _CLOCK_AND_RANDOM:
                return ValueType(_CLOCK_AND_RANDOM[name])
        for name, result in _NUMBER_CALLS.items():
            if name in names:
                return ValueType(result)
        if "builtins.len" in names:
            return ValueType("builtins.int")
        if "builtins.str" in names:
            return ValueType("builtins.str")
        if "builtins.bool" in names:
            return ValueType("builtins.bool")
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "item" and not call.args:
            return ValueType("builtins.float", from_item=True)
        subclass = self._as_subclass(call, scope)
        if subclass is not None:
            return subclass
        return self._inferred_type(call, scope)

    def _inferred_type(self, expr: cst.BaseExpression, scope: Scope) -> ValueType | None:
        inferred = self.inference.infer(expr, scope)
        if inferred.kind is Kind.FUNCTION and inferred.definition is not None:
            return ValueType("types.FunctionType")
        if inferred.kind in (Kind.OBJECT, Kind.TENSOR) and isinstance(inferred.definition, cst.ClassDef):
            model = self.inference.class_model(inferred.definition)
            return ValueType(user_class=model.category, class_name=model.name)
        if inferred.kind is Kind.MUTABLE and isinstance(expr, cst.Name):
            for binding in self.tree.bindings(scope, expr.value):
                if binding.value is not None:
                    return self.type_of(binding.value, binding.written_in)
        if isinstance(expr, cst.Name):
            return self._name_type(expr, scope)
        return None

    def _as_subclass(self, call: cst.Call, scope: Scope) -> ValueType | None:
        """``t.as_subclass(Cls)``: an instance of ``Cls``, a class of the project."""
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "as_subclass" and len(call.args) == 1):
            return None
        named = self.inference.infer(call.args[0].value, scope)
        if named.kind is not Kind.CLASS or not isinstance(named.definition, cst.ClassDef):
            return None
        model = self.inference.class_model(named.definition)
        return ValueType(user_class=model.category, class_name=model.name)

    def _tensor_data(self, call: cst.Call, scope: Scope) -> bool:
        """``float(t)``, ``int(t.sum())``: a number converted from a tensor."""
        if not self.inference.qualified_names(call.func, scope) & {"builtins.float", "builtins.int"}:
            return False
        argument = call.args[0].value
        if self.inference.infer(argument, scope).kind is Kind.TENSOR:
            return True
        return (
            isinstance(argument, cst.Call)
            and isinstance(argument.func, cst.Attribute)
            and argument.func.attr.value in api.TENSOR_ONLY_METHODS
        )

    def _name_type(self, name: cst.Name, scope: Scope) -> ValueType | None:
        bindings = [b for b in self.tree.bindings(scope, name.value) if b.kind is not BindingKind.DELETE]
        if len(bindings) != 1 or bindings[0].value is None:
            return None
        return self.type_of(bindings[0].value, bindings[0].written_in)

    def _plain_python(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """Whether an operand is surely not a tensor (a comparison of tensors is a tensor)."""
        found = self.type_of(expr, scope)
        return found is not None and found.user_class is None

    # -- is a returned number pinned by the call's arguments? ---------------------

    def fixed_by_arguments(self, expr: cst.BaseExpression, body: Body, scope: Scope) -> bool:
        """Literals, parameters, their shapes, and arithmetic on those: Dynamo guards all of it."""
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
            return True
        if isinstance(expr, cst.Name):
            return self._is_parameter(expr, body, scope) or self._local_fixed(expr, body, scope)
        if isinstance(expr, cst.UnaryOperation):
            return self.fixed_by_arguments(expr.expression, body, scope)
        if isinstance(expr, cst.BinaryOperation):
            return self.fixed_by_arguments(expr.left, body, scope) and self.fixed_by_arguments(expr.right, body, scope)
        if isinstance(expr, cst.Attribute) and expr.attr.value in _SHAPE_ATTRIBUTES:
            return self._rooted_in_parameter(expr.value, body, scope)
        if isinstance(expr, cst.Subscript):
            return self.fixed_by_arguments(expr.value, body, scope)
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in _SHAPE_METHODS:
                return self._rooted_in_parameter(func.value, body, scope)
            names = self.inference.qualified_names(func, scope)
            if names & {"builtins.len", "builtins.float", "builtins.int", "builtins.round", "builtins.abs"}:
                return all(self.fixed_by_arguments(arg.value, body, scope) for arg in expr.args)
        return False

    def _local_fixed(self, name: cst.Name, body: Body, scope: Scope) -> bool:
        owner = self.tree.owner(scope, name.value)
        if owner is None or not body.scope.encloses(owner):
            return False
        bindings = owner.bindings.get(name.value, [])
        return (
            len(bindings) == 1
            and bindings[0].value is not None
            and self.fixed_by_arguments(bindings[0].value, body, bindings[0].written_in)
        )

    def _is_parameter(self, name: cst.Name, body: Body, scope: Scope) -> bool:
        return any(
            b.kind is BindingKind.PARAMETER and b.written_in is body.scope
            for b in self.tree.bindings(scope, name.value)
        )

    def _rooted_in_parameter(self, expr: cst.BaseExpression, body: Body, scope: Scope) -> bool:
        while isinstance(expr, (cst.Attribute, cst.Subscript)):
            expr = expr.value
        return isinstance(expr, cst.Name) and self._is_parameter(expr, body, scope)

    def data_dependent(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
        """A tensor's data read into Python in the expression, or in what a name in it was
        bound to: ``.item()``, ``.tolist()``, ``float(t)`` of a tensor. Dynamo graph-breaks
        there rather than baking the number (evidence/dynamo D16; AIG502 reports it)."""
        if depth > 8:
            return False
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in _DATA_METHODS
        ):
            return True
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and self._tensor_data(expr, scope):
            return True
        if isinstance(expr, cst.Name):
            bindings = self.tree.bindings(scope, expr.value)
            return (
                len(bindings) == 1
                and bindings[0].value is not None
                and self.data_dependent(bindings[0].value, bindings[0].written_in, depth + 1)
            )
        return any(
            self.data_dependent(child, scope, depth + 1)
            for child in children(expr)
            if isinstance(child, cst.BaseExpression)
        )
