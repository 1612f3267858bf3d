"""Judging type annotations against the contract (``checker.spec.contract``).

An annotation is resolved through the module's imports and aliases (``from torch
import Tensor``, ``import numpy as np``, ``typing``/``collections.abc`` names), string
annotations are parsed, and ``Optional``/``Union``/``X | Y`` are split into their
members. Containers (``list[...]``, ``tuple[..., ...]``, ``Sequence[...]``,
``dict[..., V]``) are judged by their elements. Classes of the module are judged by
their definitions: frozen dataclasses, NamedTuples and Enums work; plain classes,
non-frozen dataclasses and ``nn.Module`` subclasses do not.

The verdict of an annotation is the worst verdict of anything it admits, with the
member that earned it, so a message can name ``np.ndarray`` inside
``Optional[np.ndarray]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Kind
from checker.facts.scopes.tree import Binding, BindingKind, Scope
from checker.spec import contract
from checker.spec.contract import Entry, UserClass, Verdict
from checker.spec.torch_api import is_torch_module_class

#: Worst first: the verdict an annotation gets is the first one any member earns.
_SEVERITY = (Verdict.HARD_ERROR, Verdict.GRAPH_BREAK, Verdict.BAKED, Verdict.WORKS, Verdict.DOCUMENTED)
_UNIONS = frozenset({"typing.Union", "typing.Optional"})
_SEQUENCES = frozenset(
    {"builtins.list", "typing.List", "typing.Sequence", "collections.abc.Sequence", "builtins.tuple", "typing.Tuple"}
)
_MAPPINGS = frozenset({"builtins.dict", "typing.Dict", "typing.Mapping", "collections.abc.Mapping"})
_TRANSPARENT = frozenset({"typing.Annotated", "typing.Final", "typing_extensions.Annotated"})
_TYPE_ALIAS = frozenset({"typing.TypeAlias", "typing_extensions.TypeAlias"})
_TYPE_CHECKING = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})
#: Bindings that can define a type alias: ``A = ...``, ``A: TypeAlias = ...``, ``type A = ...``.
_ALIAS_BINDINGS = (BindingKind.ASSIGN, BindingKind.ANNOTATION, BindingKind.TYPE)


@dataclass(frozen=True)
class Judgement:
    """The worst thing an annotation admits: its verdict, the member as written, what the
    contract makes of a user class there (None for others), and the evidence."""

    verdict: Verdict
    spelled: str
    entry: Entry
    category: UserClass | None = None


_NOTHING = Judgement(Verdict.UNKNOWN, "", Entry(Verdict.UNKNOWN, ""))


class ImportedAliases(Protocol):
    """What judging an annotation asks of the other modules of the project."""

    def alias_members(self, importer: str, qualified: str, result: bool, inside: bool) -> list[Judgement] | None:
        """The members of the type alias ``qualified`` (imported by the module at
        ``importer``), judged in the project module that binds it; None where that is
        not a type alias or not in the project."""
        ...


class AnnotationJudge:
    def __init__(self, inference: Inference, index: ImportedAliases | None = None) -> None:
        self.inference = inference
        self.index = index
        #: The aliases being expanded, so that an alias of itself ends.
        self._expanding: set[Binding] = set()

    def argument(self, annotation: cst.BaseExpression, scope: Scope) -> Judgement:
        return self._judge(annotation, scope, result=False, inside=False)

    def result(self, annotation: cst.BaseExpression, scope: Scope) -> Judgement:
        return self._judge(annotation, scope, result=True, inside=False)

    def _judge(self, expr: cst.BaseExpression, scope: Scope, result: bool, inside: bool) -> Judgement:
        with self.inference.following_imports():  # a class or an alias imported from the project
            return _worst(self._members(expr, scope, result, inside))

    def _members(self, expr: cst.BaseExpression, scope: Scope, result: bool, inside: bool) -> list[Judgement]:
        if isinstance(expr, cst.SimpleString):
            parsed = _parse_string_annotation(expr)
            return [] if parsed is None else self._members(parsed, scope, result, inside)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._members(expr.left, scope, result, inside) + self._members(expr.right, scope, result, inside)
        if isinstance(expr, cst.Name) and expr.value == "None":
            return [self._entry("builtins.NoneType", "None", result, inside)]
        if isinstance(expr, cst.Subscript):
            return self._generic(expr, scope, result, inside)
        if isinstance(expr, cst.Name):  # an alias of the module, before what its values may name
            members = self.alias_members(expr.value, scope, result, inside)
            if members is not None:
                return members
        known = self._known(expr, scope, result, inside)
        if known is not None:
            return [known]
        if isinstance(expr, (cst.Name, cst.Attribute)):
            members = self._imported_alias(expr, scope, result, inside)
            if members is not None:
                return members
        return [self._user_class(expr, scope, result)]

    def alias_members(self, name: str, scope: Scope, result: bool, inside: bool) -> list[Judgement] | None:
        """The members of what a type alias of the module stands for: ``Act = Callable[...]``,
        ``Act: TypeAlias = ...``, ``type Act = ...``, ``MaybeAct = Optional[Act]``,
        ``Act2 = Act``; an annotation-shaped value (a subscript, a union, a string, a name)
        bound once, or under ``if TYPE_CHECKING:`` where other branches bind a stand-in.
        None: ``name`` is no such alias."""
        alias = self._alias_binding(self.inference.tree.bindings(scope, name))
        if alias is None or alias.value is None or alias in self._expanding:
            return None
        value = alias.value
        declared = alias.kind is BindingKind.TYPE or (
            alias.annotation is not None and bool(self.inference.qualified_names(alias.annotation, scope) & _TYPE_ALIAS)
        )
        shaped = isinstance(value, (cst.Subscript, cst.SimpleString, cst.Name, cst.Attribute)) or (
            isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.BitOr)
        )
        if not (shaped or declared):
            return None
        self._expanding.add(alias)
        try:
            members = self._members(value, alias.written_in, result, inside)
        finally:
            self._expanding.discard(alias)
        if isinstance(value, (cst.Name, cst.Attribute)) and not declared and members == [_NOTHING]:
            return None  # ``x = y`` of nothing known: not an alias, judged as the name itself
        return members

    def _alias_binding(self, bindings: list[Binding]) -> Binding | None:
        """The one binding that can define an alias: the only one, or the only one under
        ``if TYPE_CHECKING:`` (what type checkers read; ``else: Act = object`` is a stand-in)."""
        bindings = [b for b in bindings if b.kind is not BindingKind.DELETE]
        if len(bindings) > 1:
            bindings = [b for b in bindings if any(self._type_checking(s, i) for s, i in b.branches)]
        if len(bindings) != 1 or bindings[0].kind not in _ALIAS_BINDINGS:
            return None
        return bindings[0]

    def _type_checking(self, statement: cst.CSTNode, branch: int) -> bool:
        """Whether ``branch`` of ``statement`` is the body of ``if TYPE_CHECKING:``."""
        if branch != 0 or not isinstance(statement, cst.If):
            return False
        scope = self.inference.tree.scope_of.get(statement, self.inference.tree.module)
        return bool(self.inference.qualified_names(statement.test, scope) & _TYPE_CHECKING)

    def _imported_alias(
        self, expr: cst.Name | cst.Attribute, scope: Scope, result: bool, inside: bool
    ) -> list[Judgement] | None:
        """What an imported alias stands for in the module that binds it: ``Act`` after
        ``from .types import Act``, or ``types.Act`` read through the imported module
        (``from pkg import types``, ``import pkg.types as t``, ``from . import types``)."""
        attributes: list[str] = []
        root: cst.BaseExpression = expr
        while isinstance(root, cst.Attribute):
            attributes.insert(0, root.attr.value)
            root = root.value
        if self.index is None or not isinstance(root, cst.Name):
            return None
        bindings = self.inference.tree.bindings(scope, root.value)
        if len(bindings) != 1 or bindings[0].kind is not BindingKind.IMPORT or not bindings[0].imported:
            return None
        if not attributes and bindings[0].statement is None:
            return None  # ``import m`` binds a module, not an alias
        qualified = ".".join([bindings[0].imported, *attributes])
        return self.index.alias_members(self.inference.path, qualified, result, inside)

    def _generic(self, expr: cst.Subscript, scope: Scope, result: bool, inside: bool) -> list[Judgement]:
        names = self.inference.qualified_names(expr.value, scope)
        arguments = [e.slice.value for e in expr.slice if isinstance(e.slice, cst.Index)]
        if names & _UNIONS:
            optional = ["None"] if names & {"typing.Optional"} else []
            members = [m for a in arguments for m in self._members(a, scope, result, inside)]
            return members + [self._entry("builtins.NoneType", n, result, inside) for n in optional]
        if names & _TRANSPARENT and arguments:
            return self._members(arguments[0], scope, result, inside)
        if names & _SEQUENCES:
            container = self._entry(_first(names & _SEQUENCES), _source(expr.value), result, inside)
            elements = [a for a in arguments if not (isinstance(a, cst.Ellipsis))]
            return [container] + [m for a in elements for m in self._members(a, scope, result, True)]
        if names & _MAPPINGS:
            container = self._entry(_first(names & _MAPPINGS), _source(expr.value), result, inside)
            values = arguments[1:2]
            return [container] + [m for a in values for m in self._members(a, scope, result, True)]
        return [self._named(expr.value, scope, result, inside)]

    def _known(self, expr: cst.BaseExpression, scope: Scope, result: bool, inside: bool) -> Judgement | None:
        """What the contract says of the name (``torch.SymInt``, even where torch's own
        source defines it), or None when it says nothing."""
        spelled = _source(expr)
        for name in sorted(self.inference.qualified_names(expr, scope)):
            if is_torch_module_class(name):
                name = "torch.nn.Module"  # nn.Linear and friends are modules
            judged = self._entry(name, spelled, result, inside)
            if judged.verdict is not Verdict.UNKNOWN:
                return judged
        return None

    def _named(self, expr: cst.BaseExpression, scope: Scope, result: bool, inside: bool) -> Judgement:
        known = self._known(expr, scope, result, inside)
        return known if known is not None else self._user_class(expr, scope, result)

    def _user_class(self, expr: cst.BaseExpression, scope: Scope, result: bool) -> Judgement:
        """The verdict for the class of the project ``expr`` names, if it is one."""
        inferred = self.inference.infer(expr, scope)
        if inferred.kind is not Kind.CLASS or not isinstance(inferred.definition, cst.ClassDef):
            return _NOTHING
        category = self.inference.class_model(inferred.definition).category
        entry = contract.user_class(category, result=result)
        return Judgement(entry.verdict, _source(expr), entry, category)

    def _entry(self, qualified: str, spelled: str, result: bool, inside: bool) -> Judgement:
        entry = contract.result(qualified, inside) if result else contract.argument(qualified)
        return Judgement(entry.verdict, spelled, entry)


def _worst(judgements: list[Judgement]) -> Judgement:
    for verdict in _SEVERITY:
        for judgement in judgements:
            if judgement.verdict is verdict:
                return judgement
    return _NOTHING


def _first(names: frozenset[str]) -> str:
    return sorted(names)[0]


def _parse_string_annotation(expr: cst.SimpleString) -> cst.BaseExpression | None:
    value = expr.evaluated_value
    if not isinstance(value, str):
        return None
    try:
        return cst.parse_expression(value)
    except cst.ParserSyntaxError:
        return None


def _source(expr: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(expr)
