"""The methods' bodies an installed module was parsed without, and the module parsed whole for them.

An installed module is parsed with the bodies of its classes' methods left out
(:func:`checker.index.excerpts.without_method_bodies`): what a project asks of a package's
class is mostly its kind (``ModelMixin`` is an ``nn.Module``), which its header and the
names its body binds answer, and the bodies are most of the text (82% of diffusers'
``attention_processor.py``). A question that needs a body (a method's definition, or an
attribute a left-out body may set) reads the class from the module parsed again with
those bodies (and those asked before), the others still left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import libcst as cst

from checker.facts.kinds.classes import ClassModel
from checker.facts.module import ModuleFacts
from checker.facts.scopes.tree import BindingKind
from checker.index.excerpts import Method, attributes_set


class LeftOut:
    """The left-out bodies of ``facts`` (a module parsed without them): ``left``, per
    top-level class name, per method name, the definitions (CPython's) whose bodies are left
    out; ``with_bodies``, the module parsed with the bodies of the (class, method) pairs
    given (None: it cannot be)."""

    def __init__(
        self,
        facts: ModuleFacts,
        left: Mapping[str, Mapping[str, list[Method]]],
        with_bodies: Callable[[frozenset[tuple[str, str]]], ModuleFacts | None],
    ) -> None:
        self._facts = facts
        self._left = left
        self._with_bodies = with_bodies
        #: Per class, per method, the attributes its left-out bodies may set (read when first asked).
        self._setting: dict[str, dict[str, set[str]]] = {}

    def left_out(self, node: cst.ClassDef, method: str) -> bool:
        return method in self._of(node)

    def setting(self, node: cst.ClassDef, attr: str) -> frozenset[str]:
        methods = self._of(node)
        if not methods:
            return frozenset()
        name = node.name.value
        if name not in self._setting:
            self._setting[name] = {
                method: set().union(*(attributes_set(d) for d in definitions))
                for method, definitions in methods.items()
            }
        return frozenset(method for method, attrs in self._setting[name].items() if attr in attrs)

    def with_bodies(self, node: cst.ClassDef, methods: frozenset[str]) -> ClassModel | None:
        left = _top_level_classes(self._facts, node.name.value)
        if node not in left:
            return None
        whole = self._with_bodies(frozenset((node.name.value, method) for method in methods))
        same = _top_level_classes(whole, node.name.value) if whole is not None else []
        return whole.inference.class_model(same[left.index(node)]) if whole and len(same) == len(left) else None

    def _of(self, node: cst.ClassDef) -> Mapping[str, list[Method]]:
        methods = self._left.get(node.name.value, {})
        return methods if methods and node in _top_level_classes(self._facts, node.name.value) else {}


def _top_level_classes(facts: ModuleFacts, name: str) -> list[cst.ClassDef]:
    return [
        binding.definition
        for binding in facts.tree.module.bindings.get(name, [])
        if binding.kind is BindingKind.CLASS and isinstance(binding.definition, cst.ClassDef)
    ]
