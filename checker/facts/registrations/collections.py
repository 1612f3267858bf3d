"""Collections registered with ``allow_in_graph``: which it iterates, and which it refuses.

``allow_in_graph`` iterates a list or a tuple, whatever made it (a display, ``list(...)``,
``tuple(...)``, ``sorted(...)``), and registers each element; anything else must be
callable, so a set, a dict view, a generator or another iterator raises
``AssertionError: allow_in_graph expects a callable`` (torch/_dynamo/decorators.py, source
reading; measured in evidence/dynamo/exp_registration_forms.py, FINDINGS.md D19).
A loop that registers each element it iterates (``for op in OPS: allow_in_graph(op)``)
registers what iterating gives: a display's elements, a dict's keys, its ``values()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from checker.facts.kinds.inference import Inference
from checker.facts.registrations.loops import LoopHeaders
from checker.facts.registrations.sites import registered_elements
from checker.facts.scopes.tree import Binding, BindingKind, Scope

#: Builtins that build a list or a tuple of what they are given: their elements are registered.
_SEQUENCE_BUILDERS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted"})
#: Builtins whose result is an iterator or a set: never callable, never iterated.
_ITERATOR_BUILDERS = {
    "builtins.set": "a set",
    "builtins.frozenset": "a frozenset",
    "builtins.iter": "an iterator",
    "builtins.map": "a map iterator",
    "builtins.filter": "a filter iterator",
    "builtins.reversed": "a reversed iterator",
    "builtins.zip": "a zip iterator",
    "builtins.enumerate": "an enumerate iterator",
}
#: Methods of a dict whose result is a view.
_DICT_VIEWS = frozenset({"values", "keys", "items"})
#: The views whose elements are known where the dict display is: its values, its keys.
_ITERATED_VIEWS = frozenset({"values", "keys"})


@dataclass(frozen=True)
class Element:
    """One element ``allow_in_graph`` registers from an iterated collection, read in ``scope``."""

    expr: cst.BaseExpression
    scope: Scope


@dataclass(frozen=True)
class Loop:
    """A loop that registers each element it iterates: its ``iterable`` as written in the
    loop's header, and the ``elements`` iterating it gives (the known ones)."""

    iterable: cst.BaseExpression
    elements: list[Element]


class Collections:
    """What one module's registered collections hold."""

    def __init__(self, inference: Inference) -> None:
        self.inference = inference
        self.tree = inference.tree
        self.loops = LoopHeaders(inference.tree.module.node)

    def refused(self, expr: cst.BaseExpression, scope: Scope) -> str | None:
        """How a collection ``allow_in_graph`` does not iterate is named (``a dict view``,
        ``a generator``), or None when ``expr`` is none (or is not known to be one)."""
        if isinstance(expr, cst.GeneratorExp):
            return "a generator"
        if isinstance(expr, (cst.Set, cst.SetComp)):
            return "a set"
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in _DICT_VIEWS and not expr.args:
            return "a dict view" if self._is_dict(func.value, scope, depth=0) else None
        for name in self.inference.qualified_names(func, scope):
            if name in _ITERATOR_BUILDERS:
                return _ITERATOR_BUILDERS[name]
        return None

    def iterated(self, expr: cst.BaseExpression, scope: Scope) -> list[Element] | None:
        """The elements of a list or tuple that a call builds (``list([f, g])``,
        ``tuple(FNS)``, ``sorted(d.values())``), as far as they are known (none: unknown);
        None when ``expr`` is not such a call."""
        if not isinstance(expr, cst.Call) or not self._builds_a_sequence(expr, scope):
            return None
        positional = [arg.value for arg in expr.args if arg.keyword is None and not arg.star]
        if len(positional) != 1 or len(expr.args) != 1:
            return []  # ``sorted(fns, key=...)`` keeps its elements; unknown here all the same
        return list(self._elements(positional[0], scope, depth=0))

    def looped(self, binding: Binding, site: cst.CSTNode) -> Loop | None:
        """The loop whose target ``binding`` is, when the registration at ``site`` runs in it
        and what it iterates is known (a display, a name bound once to one, a dict's keys or
        values, ``list(...)`` of one); None otherwise, and then nothing is known."""
        header = self.loops.header(binding, site)
        if header is None:
            return None
        elements = list(self._elements(header.iterable, header.scope, depth=0))
        return Loop(header.iterable, elements) if elements else None

    def registered(self, argument: cst.BaseExpression, scope: Scope, site: cst.CSTNode) -> list[Element]:
        """What a call registration at ``site`` registers one by one, as far as the code says:
        the elements of a list or tuple (a display, a name bound once to one, ``list(...)``
        of one), the elements a loop over a known collection binds the registered name to,
        else the argument itself."""
        if isinstance(argument, cst.Name):
            for binding in self.tree.bindings(scope, argument.value):
                loop = self.looped(binding, site)
                if loop is not None:
                    return loop.elements
            value = self._only_value(argument, scope)
            if value is not None and isinstance(value[0], (cst.List, cst.Tuple)):
                return list(self._elements(value[0], value[1], depth=1))
        elif self.iterated(argument, scope) is not None:
            return list(self._elements(argument, scope, depth=0))
        return [Element(element, scope) for element in registered_elements(argument)]

    def _builds_a_sequence(self, call: cst.Call, scope: Scope) -> bool:
        return bool(self.inference.qualified_names(call.func, scope) & _SEQUENCE_BUILDERS)

    def _elements(self, expr: cst.BaseExpression, scope: Scope, depth: int) -> Iterator[Element]:
        """What iterating ``expr`` gives, where the code says; nothing where it does not."""
        if depth > 4:
            return
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                if isinstance(element, cst.Element):
                    yield Element(element.value, scope)
            return
        if isinstance(expr, cst.Dict):  # iterating a dict gives its keys
            for item in expr.elements:
                if isinstance(item, cst.DictElement):
                    yield Element(item.key, scope)
            return
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in _ITERATED_VIEWS and not expr.args:
                for display, where in self._dict_displays(func.value, scope):
                    for item in display.elements:
                        if isinstance(item, cst.DictElement):
                            yield Element(item.value if func.attr.value == "values" else item.key, where)
                return
            if self._builds_a_sequence(expr, scope) and len(expr.args) == 1 and expr.args[0].keyword is None:
                yield from self._elements(expr.args[0].value, scope, depth + 1)
            return
        if isinstance(expr, cst.Name):
            value = self._only_value(expr, scope)
            if value is not None:
                yield from self._elements(value[0], value[1], depth + 1)

    def _only_value(self, name: cst.Name, scope: Scope) -> tuple[cst.BaseExpression, Scope] | None:
        """The value of a name bound once, by an assignment, to a display."""
        bindings = self.tree.bindings(scope, name.value)
        if len(bindings) != 1 or bindings[0].kind is not BindingKind.ASSIGN or bindings[0].value is None:
            return None
        value = bindings[0].value
        if not isinstance(value, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
            return None
        return value, bindings[0].written_in

    def _dict_displays(self, expr: cst.BaseExpression, scope: Scope) -> list[tuple[cst.Dict, Scope]]:
        if isinstance(expr, cst.Dict):
            return [(expr, scope)]
        if isinstance(expr, cst.Name):
            value = self._only_value(expr, scope)
            if value is not None and isinstance(value[0], cst.Dict):
                return [(value[0], value[1])]
        return []

    def _is_dict(self, expr: cst.BaseExpression, scope: Scope, depth: int) -> bool:
        """A dict display, ``dict(...)``, or a name every binding of which is one of them."""
        if depth > 4:
            return False
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return True
        if isinstance(expr, cst.Call):
            return "builtins.dict" in self.inference.qualified_names(expr.func, scope)
        if isinstance(expr, cst.Name):
            bindings = self.tree.bindings(scope, expr.value)
            return bool(bindings) and all(
                binding.kind is BindingKind.ASSIGN
                and binding.value is not None
                and self._is_dict(binding.value, binding.written_in, depth + 1)
                for binding in bindings
            )
        return False
