"""What a registered call returns: the closure a factory builds, here or in another module.

``allow_in_graph(make_op(f))`` registers what ``make_op`` returns. Inference follows a
factory of this module; this module also follows what inference does not: a closure
passed through ``functools.wraps(f)(g)`` or ``functools.update_wrapper(g, f)``, and a
factory (or a builder calling one) imported from another module of the project, whose
body is read in its own module. A closure made there is not judged here (its body is
that module's); what the registration needs to know of it is carried as plain data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Kind
from checker.facts.registrations.targets import Body, ClosureElsewhere
from checker.facts.scopes.tree import Scope
from checker.spec.links import Place

#: ``functools.wraps(f)(g)`` is ``g``.
_WRAPS = frozenset({"functools.wraps"})
#: ``functools.update_wrapper(g, f)`` is ``g``.
_UPDATE_WRAPPER = frozenset({"functools.update_wrapper"})
#: How many factories deep a returned closure is followed.
_DEPTH = 4


@dataclass(frozen=True)
class Defined:
    """A top-level def of another project module, with what reading it there needs: that
    module's inference, how its nodes are cited from the checked module, the names a body
    of it closes over, and its own imports onward."""

    definition: cst.FunctionDef
    inference: Inference
    place: Callable[[cst.CSTNode], Place]
    closure_names: Callable[[Body], list[str]]
    onward: DefiningModules | None


class DefiningModules(Protocol):
    """What following a factory into another module asks of the project."""

    def defined(self, importer: str, qualified: str) -> Sequence[Defined]:
        """The top-level defs that ``qualified``, imported by the module at ``importer``, names."""
        ...


@dataclass(frozen=True)
class Returned:
    """A def or lambda a call returns: of this module (``elsewhere`` None), or of another."""

    definition: cst.FunctionDef | cst.Lambda
    elsewhere: ClosureElsewhere | None = None


class Factories:
    """The defs and lambdas that calls of one module return, where inference does not say."""

    def __init__(self, inference: Inference, defining: DefiningModules | None) -> None:
        self.inference = inference
        self.defining = defining

    def returned(self, call: cst.Call, scope: Scope) -> list[Returned]:
        """What ``call`` returns, when it is a def or lambda the code shows; empty otherwise."""
        found = []
        for definition, inference, defined in self._closures(call, scope, self.inference, self.defining, None, 0):
            if inference is self.inference:
                found.append(Returned(definition))
            elif defined is not None:
                found.append(Returned(definition, _elsewhere(definition, inference, defined)))
        return found

    def imported(self, expr: cst.BaseExpression, scope: Scope) -> list[Defined]:
        """The top-level defs of another project module that an imported name or attribute
        (``softcap``, ``ops.softcap``) names, read in their module."""
        if self.defining is None or not isinstance(expr, (cst.Name, cst.Attribute)):
            return []
        for qualified in sorted(self.inference.qualified_names(expr, scope)):
            if not qualified.startswith("builtins."):
                found = self.defining.defined(self.inference.path, qualified)
                if found:
                    return list(found)
        return []

    def _closures(
        self,
        expr: cst.BaseExpression,
        scope: Scope,
        inference: Inference,
        defining: DefiningModules | None,
        defined: Defined | None,
        depth: int,
    ) -> Iterator[tuple[cst.FunctionDef | cst.Lambda, Inference, Defined | None]]:
        if depth > _DEPTH:
            return
        inferred = inference.infer(expr, scope)
        definition = inferred.definition
        if inferred.kind is Kind.FUNCTION and isinstance(definition, (cst.FunctionDef, cst.Lambda)):
            if definition in inference.tree.scope_of:
                yield definition, inference, defined
            return
        if not isinstance(expr, cst.Call):
            return
        wrapped = _wrapped(expr, scope, inference)
        if wrapped is not None:
            yield from self._closures(wrapped, scope, inference, defining, defined, depth + 1)
            return
        callee = inference.infer(expr.func, scope)
        if callee.kind is Kind.FUNCTION and isinstance(callee.definition, (cst.FunctionDef, cst.Lambda)):
            yield from self._returns(callee.definition, inference, defining, defined, depth + 1)
            return
        if defining is None or not isinstance(expr.func, (cst.Name, cst.Attribute)):
            return
        for qualified in sorted(inference.qualified_names(expr.func, scope)):
            if qualified.startswith("builtins."):
                continue
            for other in defining.defined(inference.path, qualified):
                yield from self._returns(other.definition, other.inference, other.onward, other, depth + 1)

    def _returns(
        self,
        definition: cst.FunctionDef | cst.Lambda,
        inference: Inference,
        defining: DefiningModules | None,
        defined: Defined | None,
        depth: int,
    ) -> Iterator[tuple[cst.FunctionDef | cst.Lambda, Inference, Defined | None]]:
        body = inference.tree.scope_of.get(definition)
        if body is None:
            return
        values = [definition.body] if isinstance(definition, cst.Lambda) else body.returns
        for value in values:
            yield from self._closures(value, body, inference, defining, defined, depth)


def _wrapped(call: cst.Call, scope: Scope, inference: Inference) -> cst.BaseExpression | None:
    """``g`` of ``functools.wraps(f)(g)`` and of ``functools.update_wrapper(g, f)``."""
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    func = call.func
    if isinstance(func, cst.Call) and inference.qualified_names(func.func, scope) & _WRAPS and positional:
        return positional[0]
    if inference.qualified_names(func, scope) & _UPDATE_WRAPPER and positional:
        return positional[0]
    return None


def _elsewhere(definition: cst.FunctionDef | cst.Lambda, inference: Inference, defined: Defined) -> ClosureElsewhere:
    """The data a registration here needs of a closure another module makes."""
    body = inference.tree.scope_of[definition]
    creator = body.parent.enclosing_function() if body.parent is not None else None
    names = tuple(defined.closure_names(Body(definition, body))) if creator is not None else ()
    nested_def = definition.name.value if isinstance(definition, cst.FunctionDef) else ""
    cited = definition.name if isinstance(definition, cst.FunctionDef) else definition
    return ClosureElsewhere(nested_def, creator.name if creator is not None else "", names, defined.place(cited))
