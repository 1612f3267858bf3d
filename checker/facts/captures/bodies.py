"""What a registered body does besides computing with tensors.

One walk per body collects three kinds of event the body rules report: Python side
effects that run at trace time (AIG501), Python decisions on tensor data (AIG502),
and host-side data access that needs a custom op (AIG503).

Whether an expression is a tensor comes from inference, plus one local rule: a
parameter is treated as a tensor when the body calls a tensor-only method on it
(``x.sum()``, which no builtin type has). A bare unannotated parameter is not
assumed to be a tensor, so ``if eps > 0`` is never reported.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Basis, Inferred, Kind
from checker.facts.kinds.known import SIDE_EFFECT_CALLS
from checker.facts.registrations.targets import Body
from checker.facts.scopes.syntax import Walker, describe, operands
from checker.facts.scopes.tree import BindingKind, Declaration, Mutation, Read, Scope, ScopeTree
from checker.spec.torch_api import TENSOR_ONLY_METHODS, tensor_method_result

_LOGGER_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "warning_once", "info_once"}
)
#: Methods of an open file, a standard stream or a progress bar that act outside the program.
_STREAM_METHODS = frozenset(
    {
        "write", "writelines", "flush", "read", "readline", "readlines", "seek", "truncate", "close",
        "update", "set_description", "set_description_str", "set_postfix", "set_postfix_str", "refresh",
        "reset", "clear", "display",
    }
)  # fmt: skip
#: The last parts of the side-effect functions' names: ``m.warn(...)`` asks what ``m`` is.
_SIDE_EFFECT_LASTS = frozenset(name.rpartition(".")[2] for name in SIDE_EFFECT_CALLS)
_HOST_MODULES = ("numpy.", "scipy.", "cupy.", "ctypes.")
#: Builtins that turn a tensor's data into a Python value: Dynamo cannot decide it on fake
#: tensors, so the call graph-breaks, or fails under fullgraph=True (evidence/dynamo D16).
_CONVERSIONS = {f"builtins.{name}": name for name in ("bool", "float", "int", "complex")}
_HOST_METHODS = frozenset({"numpy", "data_ptr"})
_DATA_METHODS = frozenset({"item", "tolist"})


class EventKind(enum.Enum):
    SIDE_EFFECT = "side-effect"
    DATA_DEPENDENT = "data-dependent"
    HOST_ACCESS = "host-access"


class Action(enum.Enum):
    """What the body does; ``Event.subject`` names what it does it with."""

    CALL = "call"  # a side-effect call; subject: its spelling (``print()``)
    LOG = "log"
    ASSIGN_OUTER = "assign-outer"  # a global/nonlocal assignment; subject: the name
    MUTATE_CAPTURED = "mutate-captured"  # subject: the captured name
    BRANCH = "branch"  # on a tensor value; subject: the statement (``if``)
    CONVERT = "convert"  # ``bool(t)``, ``float(t)``; subject: the builtin
    READ_DATA = "read-data"  # subject: ``item`` or ``tolist``
    HOST_METHOD = "host-method"  # subject: ``numpy`` or ``data_ptr``
    HOST_CALL = "host-call"  # subject: the qualified name called


@dataclass(frozen=True)
class Event:
    kind: EventKind
    node: cst.CSTNode
    action: Action
    subject: str = ""
    declaration: Declaration | None = None
    mutation: Mutation | None = None


class BodyEvents:
    def __init__(self, tree: ScopeTree, inference: Inference) -> None:
        self.tree = tree
        self.inference = inference
        #: Locals whose assignments are being judged (``t = t + 1`` would ask of itself).
        self._judging: set[tuple[int, str]] = set()

    def events(self, body: Body) -> list[Event]:
        walker = _Walker(self, body)
        walker.walk(body.node.body)
        return walker.found + list(self._state_changes(body))

    def _state_changes(self, body: Body) -> Iterator[Event]:
        """``global``/``nonlocal`` assignments, and mutation of captured containers."""
        for scope in body.scope.walk():
            for binding in scope.redirected:
                owner = self.tree.owner(scope, binding.name)
                if owner is not None and body.scope.encloses(owner):
                    continue  # a nested def's nonlocal of the body's own local: no state outside the call
                declaration = Declaration.GLOBAL if binding.name in scope.declared_global else Declaration.NONLOCAL
                yield Event(EventKind.SIDE_EFFECT, binding.node, Action.ASSIGN_OUTER, binding.name, declaration)
            for read in scope.reads:
                owner = self.tree.owner(scope, read.name)
                if read.mutation and owner is not None and not body.scope.encloses(owner) and not self._refills(read):
                    yield Event(
                        EventKind.SIDE_EFFECT, read.node, Action.MUTATE_CAPTURED, read.name, mutation=read.mutation
                    )

    def _refills(self, read: Read) -> bool:
        """A memo fill of a value computed from the key: filling it at trace time only
        stores what any later call would store (S§12), so the count does not matter."""
        store = self.tree.stores.get(read.node)
        return store is not None and store.memo

    # -- what an expression is -----------------------------------------------------

    def is_tensor(self, expr: cst.BaseExpression, scope: Scope, body: Body) -> bool:
        """Inferred tensor, or tensor-only use of a parameter (never a capture)."""
        if isinstance(expr, cst.Comparison) and all(
            isinstance(target.operator, (cst.Is, cst.IsNot)) for target in expr.comparisons
        ):
            return False  # ``t is None``: decided by identity, not by the tensor's data
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            return False  # ``not t`` is a Python bool (its test of ``t`` is reported itself)
        if isinstance(expr, _OPERATIONS):
            return any(self.is_tensor(child, scope, body) for child in operands(expr))
        if isinstance(expr, cst.Subscript):
            return self.is_tensor(expr.value, scope, body)
        if self.is_captured(expr, scope, body):
            return False
        if isinstance(expr, cst.Name) and self._assigned_tensors(expr, scope, body):
            return True
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            method = expr.func.attr.value
            receiver = expr.func.value
            if method in TENSOR_ONLY_METHODS and self.is_local(receiver, scope, body):
                return True  # no builtin type has it: the local is a tensor
            if tensor_method_result(method) == "tensor" and self.is_tensor(receiver, scope, body):
                return True
        return self.inference.infer(expr, scope).kind is Kind.TENSOR

    def _assigned_tensors(self, name: cst.Name, scope: Scope, body: Body) -> bool:
        """A local of the body that every binding assigns a tensor (``t = x.abs().sum()``)."""
        if not self.is_local(name, scope, body):
            return False
        bindings = self.tree.bindings(scope, name.value)
        key = (id(bindings), name.value)
        if not bindings or key in self._judging:
            return False
        self._judging.add(key)
        try:
            return all(
                binding.kind in _ASSIGNMENTS
                and binding.value is not None
                and self.is_tensor(binding.value, binding.written_in, body)
                for binding in bindings
            )
        finally:
            self._judging.discard(key)

    def is_derived_tensor(self, expr: cst.BaseExpression, scope: Scope, body: Body) -> bool:
        """A tensor the body computes from a tensor of its own: ``torch.quantile(x.abs(), q)``,
        ``(x * w).sum()``; not one built from constants alone (``torch.tensor(0.5)``)."""
        if not self.is_tensor(expr, scope, body):
            return False
        return any(
            self.is_local(part, scope, body) and self.is_tensor(part, scope, body) for part in _same_scope_parts(expr)
        )

    def is_local(self, expr: cst.BaseExpression, scope: Scope, body: Body) -> bool:
        """An expression rooted in a parameter or local of the body (not captured state);
        an operation is when one of its operands is (``(x > 0)``, ``x @ w``)."""
        while isinstance(expr, (cst.Attribute, cst.Subscript, cst.Call)):
            expr = expr.func if isinstance(expr, cst.Call) else expr.value
        if isinstance(expr, _OPERATIONS):
            return any(self.is_local(child, scope, body) for child in operands(expr))
        if not isinstance(expr, cst.Name):
            return False
        owner = self.tree.owner(scope, expr.value)
        if owner is None or not body.scope.encloses(owner):
            return False
        params = [b for b in owner.bindings.get(expr.value, []) if b.kind is BindingKind.PARAMETER]
        return not (body.bound_self and params and owner is body.scope and _is_first(params[0], body))

    def is_captured(self, expr: cst.BaseExpression, scope: Scope, body: Body) -> bool:
        root = expr
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        owner = self.tree.owner(scope, root.value)
        return owner is not None and not body.scope.encloses(owner)

    def kind_of(self, expr: cst.BaseExpression, scope: Scope) -> Inferred:
        """What ``expr`` is in this module or, for a name or attribute imported from another
        module of the project, in the module that binds it (``from .utils import logger``)."""
        inferred = self.inference.infer(expr, scope)
        return inferred if inferred.known else self.inference.imported_expression(expr, scope)

    def called_names(self, func: cst.BaseExpression, scope: Scope) -> frozenset[str]:
        """The qualified names a called ``func`` stands for, here and where what it reads is
        bound: ``warn`` and ``warnings.warn`` after ``from .utils import warn, warnings`` are
        ``warnings.warn``, as ``err.write`` is ``sys.stderr.write`` after ``from .utils import err``."""
        names = self.inference.qualified_names(func, scope)
        if isinstance(func, cst.Attribute) and func.attr.value not in _SIDE_EFFECT_LASTS | _LOGGER_METHODS:
            return names  # (no side-effect function has that name: nothing to look up)
        found = set(names)
        inferred = self.kind_of(func, scope)
        if inferred.kind is Kind.FUNCTION and inferred.basis is Basis.NAME:
            found.add(inferred.subject)
        if isinstance(func, cst.Attribute):
            owner = self.kind_of(func.value, scope)
            if owner.basis is Basis.NAME and owner.kind in (Kind.PYMODULE, Kind.HANDLE):
                found.add(f"{owner.subject}.{func.attr.value}")
        return frozenset(found)

    def is_handle(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """A logger, an open file, a standard stream or a progress bar, bound here or where it
        is imported from; not one a call makes on the spot (``getLogger(...).info``, whose
        inner call is judged itself)."""
        return not isinstance(expr, cst.Call) and self.kind_of(expr, scope).kind is Kind.HANDLE


class _Walker(Walker):
    def __init__(self, events: BodyEvents, body: Body) -> None:
        self.events = events
        self.body = body
        self.found: list[Event] = []
        self._scopes: list[Scope] = [body.scope]
        #: Tests already reported as a whole (``if a and not b``): their and/or/not are not again.
        self._decided: set[cst.CSTNode] = set()

    @property
    def scope(self) -> Scope:
        return self._scopes[-1]

    def _enter(self, node: cst.CSTNode) -> None:
        self._scopes.append(self.events.tree.scope_of.get(node, self.scope))

    def _leave(self, node: cst.CSTNode) -> None:
        self._scopes.pop()

    visit_FunctionDef = visit_Lambda = visit_ClassDef = _enter  # type: ignore[assignment]
    leave_FunctionDef = leave_Lambda = leave_ClassDef = _leave  # type: ignore[assignment]
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter  # type: ignore[assignment]
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave  # type: ignore[assignment]

    def _emit(self, kind: EventKind, node: cst.CSTNode, action: Action, subject: str = "") -> None:
        self.found.append(Event(kind, node, action, subject))

    def _condition(self, test: cst.BaseExpression, statement: str) -> None:
        if self.events.is_tensor(test, self.scope, self.body):
            self._emit(EventKind.DATA_DEPENDENT, test, Action.BRANCH, statement)
            self._decided.add(test)

    def _truth_test(self, node: cst.BaseExpression, tested: cst.BaseExpression, operator: str) -> None:
        """``t and y``, ``t or y``, ``not t``: Python asks ``bool(t)``, as an ``if`` would."""
        if node in self._decided:
            self._decided.update(operands(node))  # (a part of a test reported whole)
        elif self.events.is_tensor(tested, self.scope, self.body):
            self._emit(EventKind.DATA_DEPENDENT, node, Action.BRANCH, operator)
            self._decided.update(operands(node))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._truth_test(node, node.left, "and" if isinstance(node.operator, cst.And) else "or")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._truth_test(node, node.expression, "not")

    def visit_If(self, node: cst.If) -> None:
        self._condition(node.test, "if")

    def visit_While(self, node: cst.While) -> None:
        self._condition(node.test, "while")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test, "... if ... else ...")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._condition(node.test, "assert")

    def visit_Call(self, node: cst.Call) -> None:
        events, scope, body = self.events, self.scope, self.body
        names = events.called_names(node.func, scope)
        for name, label in SIDE_EFFECT_CALLS.items():
            if name in names:
                self._emit(EventKind.SIDE_EFFECT, node, Action.CALL, label)
                return
        if any(name.startswith("logging.") for name in names):
            self._emit(EventKind.SIDE_EFFECT, node, Action.LOG)
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _LOGGER_METHODS | _STREAM_METHODS:
            if events.is_handle(func.value, scope):
                if func.attr.value in _LOGGER_METHODS:
                    self._emit(EventKind.SIDE_EFFECT, node, Action.LOG)
                else:
                    self._emit(EventKind.SIDE_EFFECT, node, Action.CALL, f"{describe(func)}()")
                return
        converted = names & _CONVERSIONS.keys()
        if converted and len(node.args) == 1 and events.is_tensor(node.args[0].value, scope, body):
            self._emit(EventKind.DATA_DEPENDENT, node, Action.CONVERT, _CONVERSIONS[min(converted)])
            return
        if isinstance(node.func, cst.Attribute):
            method, receiver = node.func.attr.value, node.func.value
            if method in _DATA_METHODS and (
                events.is_local(receiver, scope, body) or events.is_derived_tensor(receiver, scope, body)
            ):
                self._emit(EventKind.DATA_DEPENDENT, node, Action.READ_DATA, method)
                return
            if method in _HOST_METHODS and events.is_local(receiver, scope, body):
                self._emit(EventKind.HOST_ACCESS, node, Action.HOST_METHOD, method)
                return
        host = sorted(name for name in names if name.startswith(_HOST_MODULES))
        if host and any(_tensor_argument(events, arg.value, scope, body) for arg in node.args):
            self._emit(EventKind.HOST_ACCESS, node, Action.HOST_CALL, host[0])


def _tensor_argument(events: BodyEvents, expr: cst.BaseExpression, scope: Scope, body: Body) -> bool:
    return events.is_tensor(expr, scope, body)


def _is_first(binding: object, body: Body) -> bool:
    params = body.node.params
    first = (list(params.posonly_params) + list(params.params))[:1]
    return bool(first) and first[0].name is getattr(binding, "node", None)


def _same_scope_parts(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The expressions inside ``expr``, itself first, not entering a lambda or a
    comprehension (their names live in scopes of their own)."""
    pending: list[cst.CSTNode] = [expr]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.BaseExpression):
            yield node
        if node is expr or not isinstance(node, _OWN_SCOPES):
            pending.extend(node.children)


_ASSIGNMENTS = frozenset({BindingKind.ASSIGN, BindingKind.ANNOTATION, BindingKind.WALRUS})
_OPERATIONS = (cst.Comparison, cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation)
_OWN_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
