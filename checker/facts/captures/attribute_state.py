"""Whether what a body reads through an object's attributes can change after import, by
the evidence of the project (evidence/dynamo/FINDINGS.md S§1b: what was read while
compiling is kept).

``FROZEN.eps``, ``CFG.opts.scale``, ``NS.alpha``, ``self.k``: the read is state only when
the project shows a write that reaches it after import: the name rebound, an assignment,
``setattr``/``delattr`` or ``del`` of the attribute read or of one on its way
(``CFG.opts = dataclasses.replace(CFG.opts, ...)``), a mutating method called on it, in
the checked module or in any other module of the project; or a method of the object's
class, other than ``__init__`` and ``__post_init__``, that assigns ``self.<attr>``. An
object never written after import is a constant. Where a write stores a tensor or a
module (``state.head = nn.Linear(3, 3)``), the read is a captured tensor or module
(AIG301, S§1a), not state: :meth:`AttributeState.holding` finds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from checker.facts.captures.attribute_writes import AttributeWrites, Write, written
from checker.facts.captures.changes import Change, ChangeKind, local_change
from checker.facts.captures.module_attributes import ImportedGlobals
from checker.facts.kinds.classes import ClassModel
from checker.facts.kinds.inference import Inference
from checker.facts.scopes.tree import (
    Binding,
    BindingKind,
    Mutation,
    MutationKind,
    Scope,
    ScopeKind,
    ScopeTree,
    all_params,
)

#: Methods that run while the object is made, before anything can compile a read of it.
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__init_subclass__", "__set_name__"})
#: Calls whose result is an object with free attributes (not a container with items).
NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})


class AttributeState:
    """The evidence that reads through attributes of one module's names can change."""

    def __init__(self, tree: ScopeTree, inference: Inference, index: ImportedGlobals | None) -> None:
        self.tree = tree
        self.inference = inference
        self.index = index
        self.writes = AttributeWrites(tree)

    def is_namespace(self, bindings: Sequence[Binding], owner: Scope) -> bool:
        """A name every binding of which is a ``SimpleNamespace(...)`` (its attributes are its state)."""
        return bool(bindings) and all(
            isinstance(binding.value, cst.Call)
            and bool(self.inference.qualified_names(binding.value.func, owner) & NAMESPACES)
            for binding in bindings
        )

    def change(
        self,
        name: str,
        owner: Scope,
        bindings: Sequence[Binding],
        path: tuple[str, ...],
        spelled: str,
        model: ClassModel | None,
    ) -> Change | None:
        """What can change a read of ``name`` (bound in ``owner``) through ``path`` after
        import; ``spelled`` is how the read names the object, ``model`` its class."""
        if not path:  # the name alone: rebound, or changed itself (its items, a mutating method)
            rebound = local_change(self.tree, name, owner, bindings, attributes=False)
            if rebound is not None:
                return rebound
        else:
            rebound = local_change(self.tree, name, owner, bindings)
            if rebound is not None and rebound.kind is not ChangeKind.MUTATED:
                return rebound
            for write in self.writes.below(owner, name, path):
                return _written(write, spelled)
        if owner.kind is ScopeKind.MODULE:
            found = self._project(name, bindings, path)
            if found is not None:
                return (
                    replace(found, written=written(spelled, found.path)) if found.kind is ChangeKind.WRITTEN else found
                )
        return self.class_change(model, path)

    def class_change(self, model: ClassModel | None, path: tuple[str, ...]) -> Change | None:
        """A method of the object's class (or a base of it in the project), other than the
        constructors, that assigns ``self.<path[0]>``."""
        if model is None or not path:
            return None
        for method in model.body.children:
            if not isinstance(method.node, cst.FunctionDef) or method.node.name.value in _CONSTRUCTORS:
                continue
            params = all_params(method.node.params)
            if not params:
                continue
            receiver = params[0].name.value
            for scope in method.walk():
                for store in scope.attribute_stores:
                    if store.base == receiver and store.attr == path[0]:
                        local = self.tree.scope_of.get(method.node) is method
                        return Change(
                            ChangeKind.METHOD_WRITES,
                            store.node if local else None,
                            function=f"{model.name}.{method.node.name.value}",
                            mutation=Mutation(MutationKind.ATTRIBUTE, path[0]),
                        )
        for base in model.bases:
            found = self.class_change(base, path)
            if found is not None:
                return found
        return None

    def holding(
        self, name: str, owner: Scope, bindings: Sequence[Binding], path: tuple[str, ...]
    ) -> tuple[Change, cst.CSTNode | None] | None:
        """An assignment below ``name`` that stores a tensor or a module where the read
        goes (``state.head = nn.Linear(3, 3)`` for ``state.head(x)``), with the node to cite
        when it is in this module."""
        if not path:
            return None
        for write in self.writes.below(owner, name, path):
            if write.mutation.kind is not MutationKind.ATTRIBUTE or write.value is None or len(write.path) < len(path):
                continue
            kind = self.inference.infer(write.value, write.scope).kind
            if kind.is_tensor_like:
                function = write.scope.enclosing_function()
                return Change(
                    ChangeKind.WRITTEN,
                    write.node,
                    function=function.name if function is not None else "",
                    mutation=write.mutation,
                    holds=kind,
                ), write.node
        if owner.kind is not ScopeKind.MODULE:
            return None
        found = self._project(name, bindings, path, holding=True)
        return None if found is None or found.holds is None else (found, None)

    def _project(
        self, name: str, bindings: Sequence[Binding], path: tuple[str, ...], holding: bool = False
    ) -> Change | None:
        """What other modules of the project write below a global of this module (or of
        the module it is imported from)."""
        if self.index is None:
            return None
        if not path:  # the name alone: the question every global's read asks (one scan), less attribute writes
            found = self._project_below(name, bindings, None, holding)
            mutation = found.mutation if found is not None else None
            attribute = mutation is not None and mutation.kind in (MutationKind.ATTRIBUTE, MutationKind.DELETE)
            return None if attribute and mutation is not None and mutation.name else found
        return self._project_below(name, bindings, path, holding)

    def _project_below(
        self, name: str, bindings: Sequence[Binding], path: tuple[str, ...] | None, holding: bool
    ) -> Change | None:
        index, checked = self.index, self.inference.path
        assert index is not None
        if len(bindings) == 1 and bindings[0].kind is BindingKind.IMPORT and bindings[0].imported:
            origin = index.origin(checked, bindings[0].imported)
            if origin is None:
                return None
            return index.change(
                origin.path, origin.name, checked, own=True, rebinding=False, attributes=path, holding=holding
            )
        return index.change(checked, name, checked, own=False, rebinding=True, attributes=path, holding=holding)


def _written(write: Write, spelled: str) -> Change:
    return Change(
        ChangeKind.WRITTEN, write.node, mutation=write.mutation, path=write.path, written=written(spelled, write.path)
    )
