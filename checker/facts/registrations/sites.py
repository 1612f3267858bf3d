"""Where ``allow_in_graph`` is applied, in every spelling.

A *registrar* is anything that registers what it is given: the API itself under any
import spelling, a module-level alias of it (including a ``try``/``except`` fallback
such as ``maybe_allow_in_graph``), a local wrapper function whose body forwards its
parameter to a registrar, and a decorator factory that returns such a wrapper.
Wrappers are found to a fixed point, so wrappers of wrappers count too.

A *registration* is a decorator or a call that applies a registrar to something.
Strings and comments are never registrations: only the syntax tree is read.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Kind
from checker.facts.scopes.syntax import describe
from checker.facts.scopes.tree import Binding, BindingKind, Scope, ScopeTree, all_params
from checker.reading.forms import iterated, registered_position
from checker.reading.packages import module_name
from checker.spec import torch_api as api
from checker.spec.links import Place, Registrar, Via


class Form(enum.Enum):
    DECORATOR = "decorator"
    CALL = "call"
    #: Registered by another module (``allow_in_graph(scaled)`` there, ``def scaled`` here).
    ELSEWHERE = "elsewhere"


@dataclass(frozen=True, eq=False)
class Registration:
    """One application of a registrar.

    ``site`` is the decorator or call node (where registration findings point),
    ``registrar`` what applies it, ``argument`` the expression registered (the
    decorated def or class for the decorator form), ``scope`` the scope the
    registration runs in, and ``result_kept`` whether a call form's result is stored
    (``self._f = aig(self.m)``). A registration made ``ELSEWHERE`` has the def or class
    here as its site and argument, and ``where`` is the other module's line.
    """

    site: cst.CSTNode
    registrar: Registrar
    form: Form
    argument: cst.CSTNode
    scope: Scope
    result_kept: bool
    decorator_index: int = -1
    where: Place | None = None


class ImportedRegistrars(Protocol):
    """What registrar discovery asks of the other modules of the project."""

    def registrar(self, importer: str, qualified: str) -> Registrar | None:
        """The registrar that ``qualified``, imported by the module at ``importer``, is
        in another module of the project (re-exports followed), or None."""
        ...


class Registrars:
    """Decides whether an expression is a registrar, following aliases and wrappers,
    in this module and, through ``index``, in the modules it imports them from."""

    def __init__(
        self, tree: ScopeTree, inference: Inference, path: str = "", index: ImportedRegistrars | None = None
    ) -> None:
        self.tree = tree
        self.inference = inference
        self.path = path
        self.index = index
        #: wrapper def -> index of the parameter it forwards to a registrar
        self.wrappers: dict[cst.FunctionDef, int] = {}
        #: qualified names of an imported expression -> the registrar they name, if any
        self._imported_cache: dict[frozenset[str], Registrar | None] = {}
        self._find_wrappers()

    def resolve(self, expr: cst.BaseExpression, scope: Scope) -> Registrar | None:
        """The registrar ``expr`` is, or None."""
        if self.is_api(expr, scope):
            return Registrar(describe(expr))
        wrapper = self.wrapper(expr, scope)
        if wrapper is not None:
            return Registrar(describe(expr), Via.WRAPPER, wrapper[1])
        return self._imported(expr, scope)

    def exported(self) -> tuple[str, ...]:
        """Module-level names bound here to registrars, for other modules: aliases and
        wrappers defined here, and a registrar imported under a name of its own (``from
        torch.compiler import allow_in_graph as aig``, ``from .utils import register as reg``),
        which only this module spells. (An import under its own name is the name its
        module exports.)"""
        module = self.tree.module
        return tuple(
            sorted(
                name
                for name, bindings in module.bindings.items()
                if (
                    any(b.kind is not BindingKind.IMPORT for b in bindings)
                    and (self.is_api(cst.Name(name), module) or self.wrapper(cst.Name(name), module) is not None)
                )
                or (any(_renamed(b) for b in bindings) and self.resolve(cst.Name(name), module) is not None)
            )
        )

    def _imported(self, expr: cst.BaseExpression, scope: Scope) -> Registrar | None:
        """An alias or wrapper defined in another module of the project (``from .utils import x``)."""
        if self.index is None or not isinstance(expr, (cst.Name, cst.Attribute)):
            return None
        names = self.inference.qualified_names(expr, scope)
        if names not in self._imported_cache:
            self._imported_cache[names] = self._imported_uncached(self.index, expr, names)
        return self._imported_cache[names]

    def _imported_uncached(
        self, index: ImportedRegistrars, expr: cst.BaseExpression, names: frozenset[str]
    ) -> Registrar | None:
        for name in sorted(names):
            if name.startswith("builtins.") or self._absolute(name) in api.NOT_REGISTRARS:
                continue
            found = index.registrar(self.path, name)
            if found is not None:
                return Registrar(describe(expr), Via.IMPORTED, found.index, found.alias, found.module)
        return None

    @cached_property
    def _package(self) -> str:
        """The dotted package this module's relative imports start from."""
        package = module_name(self.path) or ""
        return package if Path(self.path).name == "__init__.py" else package.rpartition(".")[0]

    def _absolute(self, name: str) -> str:
        """``.decorators.disable`` imported by torch/_dynamo/__init__.py: ``torch._dynamo.decorators.disable``."""
        if not name.startswith("."):
            return name
        package = self._package
        dots = len(name) - len(name.lstrip("."))
        for _ in range(dots - 1):
            package = package.rpartition(".")[0]
        return f"{package}.{name.lstrip('.')}" if package else name

    def is_api(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        return bool(self.inference.qualified_names(expr, scope) & api.REGISTRATION_APIS)

    def wrapper(self, expr: cst.BaseExpression, scope: Scope) -> tuple[cst.FunctionDef, int] | None:
        """The wrapper def (and forwarded parameter index) that ``expr`` calls, if any."""
        if isinstance(expr, cst.Call):
            # A decorator factory: ``@register("name")`` returns a wrapper.
            made = self.inference.infer(expr, scope)
            definition = made.definition
            if made.kind is Kind.FUNCTION and isinstance(definition, cst.FunctionDef) and definition in self.wrappers:
                return definition, self.wrappers[definition]
            return None
        inferred = self.inference.infer(expr, scope)
        definitions = [inferred.definition] if inferred.definition is not None else self._defs(expr, scope)
        for definition in definitions:
            if isinstance(definition, cst.FunctionDef) and definition in self.wrappers:
                return definition, self.wrappers[definition]
        return None

    def _defs(self, expr: cst.BaseExpression, scope: Scope) -> list[cst.CSTNode | None]:
        """Every def a name is bound to: ``try: from torch... except: def f(...)`` binds two."""
        if not isinstance(expr, cst.Name):
            return []
        return [b.definition for b in self.tree.bindings(scope, expr.value) if b.kind is BindingKind.FUNCTION]

    def _find_wrappers(self) -> None:
        changed = True
        while changed:
            changed = False
            for call, scope in self.tree.calls:
                function = scope.enclosing_function()
                if function is None or not isinstance(function.node, cst.FunctionDef):
                    continue
                if function.node in self.wrappers or not call.args:
                    continue
                # The cheap structural test first: only calls passing on a parameter matter.
                index = self._forwarded_parameter(call, scope, function)
                if index is None:
                    continue
                if (
                    self.is_api(call.func, scope)
                    or self.wrapper(call.func, scope) is not None
                    or self._imported(call.func, scope) is not None
                ):
                    self.wrappers[function.node] = index
                    changed = True

    def _forwarded_parameter(self, call: cst.Call, scope: Scope, function: Scope) -> int | None:
        """The position of ``function``'s parameter passed on as the registered argument."""
        argument = registered_argument(call)
        if not isinstance(argument, cst.Name):
            return None
        if self.tree.owner(scope, argument.value) is not function:
            return None
        assert isinstance(function.node, cst.FunctionDef)
        for index, param in enumerate(all_params(function.node.params)):
            if param.name.value == argument.value:
                return index
        return None


def _renamed(binding: Binding) -> bool:
    """An import that binds a name of its own (``import ... as aig``, not ``from m import aig``)."""
    imported = binding.imported
    return (
        binding.kind is BindingKind.IMPORT
        and bool(imported)
        and not (imported == binding.name or imported is not None and imported.endswith(f".{binding.name}"))
    )


def registered_argument(call: cst.Call, index: int = 0) -> cst.BaseExpression | None:
    """The argument a registrar call registers: positional ``index``, or ``fn=``
    (:func:`checker.reading.forms.registered_position`, as the cheap tier reads it)."""
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    keywords = [arg.keyword.value if arg.keyword is not None else None for arg in call.args]
    position = registered_position(len(positional), keywords, index)
    if isinstance(position, int):
        return positional[position].value
    return next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == position), None)


def registered_elements(argument: cst.CSTNode) -> list[cst.BaseExpression]:
    """The expressions a call registration registers one by one: the elements of a list or
    tuple display (:func:`checker.reading.forms.iterated`, as the cheap tier reads them),
    else the argument itself."""
    if isinstance(argument, (cst.List, cst.Tuple)) and iterated(type(argument).__name__):
        return [element.value for element in argument.elements if isinstance(element, cst.Element)]
    return [argument] if isinstance(argument, cst.BaseExpression) else []


def find_registrations(tree: ScopeTree, registrars: Registrars) -> list[Registration]:
    """Every registration in the module, in source order of discovery."""
    found: list[Registration] = []
    for definition, scope in tree.definitions:
        for index, decorator in enumerate(definition.decorators):
            registrar = registrars.resolve(decorator.decorator, scope)
            if registrar is not None:
                found.append(Registration(decorator, registrar, Form.DECORATOR, definition, scope, True, index))
    for call, scope in tree.calls:
        registrar = registrars.resolve(call.func, scope)
        if registrar is None:
            continue
        argument = registered_argument(call, registrar.index)
        if argument is None:
            continue
        kept = call not in tree.discarded_calls
        found.append(Registration(call, registrar, Form.CALL, argument, scope, kept))
    return found
