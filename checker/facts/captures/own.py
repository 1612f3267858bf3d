"""What one body reads from outside itself, the helpers it calls not followed.

A read of a name bound outside the body (a closure cell, a global of the module),
an attribute of ``self`` for a bound method, a default value that holds a tensor or
a container the body changes: each is a capture, with the inferred kind of what it
reads and, for state, the reason it can change after compilation.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from checker.facts.captures.attribute_state import AttributeState
from checker.facts.captures.attribute_writes import NAMESPACE_SUBJECTS, read_path
from checker.facts.captures.caches import TensorCaches
from checker.facts.captures.capture import NOT_STATE, Capture, Holder, Laundered, Source, laundering
from checker.facts.captures.changes import Change, ChangeKind, local_change
from checker.facts.captures.environ_reads import environment_read
from checker.facts.captures.module_attributes import ImportedGlobals, ModuleAttributes
from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import UNKNOWN, Inferred, Kind
from checker.facts.registrations.targets import Body
from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import Binding, BindingKind, Read, Scope, ScopeKind, ScopeTree, all_params


class OwnCaptures:
    """The captures of one module's bodies, each body on its own."""

    def __init__(self, tree: ScopeTree, inference: Inference, index: ImportedGlobals | None = None) -> None:
        self.tree = tree
        self.inference = inference
        self.index = index
        self._attributes = AttributeState(tree, inference, index)
        self._module_attributes = ModuleAttributes(inference, index, self._attributes.class_change)
        self._cache: dict[tuple[cst.CSTNode, bool], list[Capture]] = {}
        self._caches = TensorCaches(tree, inference)

    def closure_names(self, body: Body) -> list[str]:
        """Names the body, or its default values, read from an enclosing function's scope."""
        reads = [(read, scope) for scope in body.scope.walk() for read in scope.reads]
        reads += [(read, read.scope) for read in self.tree.default_reads.get(body.node, [])]
        names: list[str] = []
        for read, scope in reads:
            owner = self.tree.owner(scope, read.name)
            if owner is None or body.scope.encloses(owner) or owner.kind in (ScopeKind.MODULE, ScopeKind.CLASS):
                continue
            if all(binding.kind is BindingKind.IMPORT for binding in owner.bindings.get(read.name, [])):
                continue  # a local import binds the same object on every call
            if read.name not in names:
                names.append(read.name)
        return names

    def captures(self, body: Body) -> list[Capture]:
        """The captures of ``body`` itself, helpers not followed."""
        key = (body.node, body.bound_self)
        if key not in self._cache:
            with self.inference.following_imports():
                self._cache[key] = self._uncached(body)
        return self._cache[key]

    def _uncached(self, body: Body) -> list[Capture]:
        found = list(self._defaults(body))
        parents = _parents(body.node)
        receiver = _receiver(body)
        for scope in body.scope.walk():
            for read in scope.reads:
                owner = self.tree.owner(scope, read.name)
                if owner is None:
                    continue
                if receiver is not None and owner is body.scope and read.name == receiver:
                    capture = self._attribute_of(body, read, parents, None)
                elif body.scope.encloses(owner):
                    continue
                else:
                    capture = self._named(body, read, owner, parents)
                if capture is not None:
                    found.append(capture)
        return found

    def _named(self, body: Body, read: Read, owner: Scope, parents: dict[cst.CSTNode, cst.CSTNode]) -> Capture | None:
        inferred = self.inference.infer_name(read.name, owner)
        if inferred.kind is Kind.UNKNOWN:
            inferred = self.inference.imported_kind(read.name, owner)
        bindings = owner.bindings.get(read.name, [])
        # Cite the binding that gave the kind (`_cache = torch.ones(...)`, not `_cache = None`),
        # preferring one written where the name lives over a `global` reassignment.
        local = [b for b in bindings if b.written_in is owner] or bindings
        matching = [b for b in local if self.inference.binding_kind(b).kind is inferred.kind] or local
        first = matching[0].node if matching else None
        if isinstance(parents.get(read.node), cst.Attribute):
            if inferred.kind in (Kind.OBJECT, Kind.MODULE):
                attribute = self._attribute_of(body, read, parents, owner)
                if attribute is not None:
                    return attribute
            through_module = self._module_attributes.capture(body, read, owner, parents)
            if through_module is not None:
                return through_module
            if inferred.kind is Kind.MUTABLE and self._namespace(read.name, owner, bindings):
                return self._in_namespace(body, read, owner, bindings, parents)
        if inferred.kind is Kind.PYMODULE or read.name in _ENVIRON_NAMES:
            environ = environment_read(body, read, parents, self.inference, self.index, self._attributes.writes)
            if environ is not None or inferred.kind is Kind.PYMODULE:
                return environ
        cached = self._caches.capture(body, read, owner, inferred, parents, _source(owner), first)
        if cached is not None:
            return cached  # a memo of tensors, or a call of a cached def returning them (S§12)
        if inferred.kind is Kind.CLASS and isinstance(parents.get(read.node), cst.Attribute):
            return self._class_attribute(body, read, owner, bindings, parents)
        if inferred.kind in NOT_STATE:
            return None
        if inferred.kind is Kind.UNKNOWN:
            return self._unknown(body, read, owner, bindings, parents, inferred, first)
        change = local_change(self.tree, read.name, owner, bindings)
        if change is None and owner.kind is ScopeKind.MODULE:
            change = self._project_change(read.name, bindings)
        return Capture(
            body, read.node, read.name, _source(owner), inferred, first, laundering(read.node, parents), change
        )

    def _project_change(self, name: str, bindings: list[Binding]) -> Change | None:
        """What other modules of the project show about a global of this module: assigned
        or changed from there; for a name imported from another module, changed in place
        anywhere (its module rebinding it does not rebind this module's copy)."""
        index = self.index
        path = self.inference.path
        if index is None:
            return None
        if len(bindings) == 1 and bindings[0].kind is BindingKind.IMPORT and bindings[0].imported:
            origin = index.origin(path, bindings[0].imported)
            if origin is None:
                return None
            return index.change(origin.path, origin.name, path, own=True, rebinding=False)
        return index.change(path, name, path, own=False, rebinding=True)

    def _namespace(self, name: str, owner: Scope, bindings: list[Binding]) -> bool:
        """``NS = SimpleNamespace(...)`` here, or imported from a module of the project that binds it so."""
        if self._attributes.is_namespace(bindings, owner):
            return True
        if len(bindings) != 1 or not bindings[0].imported:
            return False
        return self.inference.imported_kind(name, owner).subject in NAMESPACE_SUBJECTS

    def _in_namespace(
        self, body: Body, read: Read, owner: Scope, bindings: list[Binding], parents: dict[cst.CSTNode, cst.CSTNode]
    ) -> Capture | None:
        """``NS.alpha``, ``state.head``: an attribute of a ``SimpleNamespace``, judged by the
        writes that reach it (a module or tensor stored there is AIG301)."""
        parent = parents[read.node]
        assert isinstance(parent, cst.Attribute)
        name, path = f"{read.name}.{parent.attr.value}", read_path(read.node, parents)
        laundered = laundering(parent, parents)
        held = self._held(body, parent, name, read.name, owner, bindings, path, laundered)
        if held is not None:
            return held
        change = self._attributes.change(read.name, owner, bindings, path, read.name, None)
        if change is None:
            return None
        return Capture(body, parent, name, _source(owner), UNKNOWN, None, laundered, change)

    def _unknown(
        self,
        body: Body,
        read: Read,
        owner: Scope,
        bindings: list[Binding],
        parents: dict[cst.CSTNode, cst.CSTNode],
        inferred: Inferred,
        first: cst.CSTNode | None,
    ) -> Capture:
        """A name of unknown kind (a class imported from outside the project, an object a
        call of another package returns): a write of one of its attributes changes the reads
        of that attribute (``C.forward`` after ``C.forward = patched``), not ``isinstance(x,
        C)``, ``C(...)`` or its other attributes."""
        path = read_path(read.node, parents)
        change = self._attributes.change(read.name, owner, bindings, path, read.name, None)
        parent = parents.get(read.node)
        if (
            change is not None
            and change.kind is ChangeKind.WRITTEN
            and change.path
            and isinstance(parent, cst.Attribute)
        ):
            name = f"{read.name}.{parent.attr.value}"
            return Capture(body, parent, name, _source(owner), inferred, first, laundering(parent, parents), change)
        laundered = laundering(read.node, parents)
        return Capture(body, read.node, read.name, _source(owner), inferred, first, laundered, change)

    def _class_attribute(
        self, body: Body, read: Read, owner: Scope, bindings: list[Binding], parents: dict[cst.CSTNode, cst.CSTNode]
    ) -> Capture | None:
        """``Block.forward``: an attribute of a class is state only where the project patches
        that attribute (``Block.forward = patched`` in a function, or in another module);
        ``isinstance(x, Block)``, ``Block(...)`` and its other attributes are not."""
        parent = parents[read.node]
        assert isinstance(parent, cst.Attribute)
        path = read_path(read.node, parents)
        change = self._attributes.change(read.name, owner, bindings, path, read.name, None)
        if change is None or change.kind is not ChangeKind.WRITTEN:
            return None  # a class rebound is a class: what it names is code
        name = f"{read.name}.{parent.attr.value}"
        return Capture(body, parent, name, _source(owner), UNKNOWN, None, laundering(parent, parents), change)

    def _attribute_of(
        self, body: Body, read: Read, parents: dict[cst.CSTNode, cst.CSTNode], owner_scope: Scope | None
    ) -> Capture | None:
        """``self.w`` or ``obj.w``: the attribute is what is captured. ``owner_scope``: where
        ``obj`` is bound (None for the receiver ``self``)."""
        parent = parents.get(read.node)
        if not isinstance(parent, cst.Attribute) or parent.value is not read.node:
            return None
        owner = self.inference.infer(read.node, read.scope)
        if not isinstance(owner.definition, cst.ClassDef):
            return None
        model = self.inference.class_model(owner.definition)
        attr = parent.attr.value
        inferred = model.attribute_kind(attr, self.inference)
        if inferred.kind in NOT_STATE:
            return None
        name = f"{read.name}.{attr}"
        laundered = laundering(parent, parents)
        source = Source(Holder.OBJECT, model.name)
        if inferred.kind.is_tensor_like:
            return Capture(body, parent, name, source, inferred, None, laundered)
        path = read_path(read.node, parents)
        if owner_scope is None:  # ``self``: what its class's methods write
            change = self._attributes.class_change(model, path)
        else:
            bindings = owner_scope.bindings.get(read.name, [])
            held = self._held(body, parent, name, read.name, owner_scope, bindings, path, laundered)
            if held is not None:
                return held
            change = self._attributes.change(read.name, owner_scope, bindings, path, read.name, model)
        return Capture(body, parent, name, source, inferred, None, laundered, change)

    def _held(
        self,
        body: Body,
        parent: cst.Attribute,
        name: str,
        base: str,
        owner: Scope,
        bindings: Sequence[Binding],
        path: tuple[str, ...],
        laundered: Laundered | None,
    ) -> Capture | None:
        """The capture of a tensor or module the project stores where the read goes
        (``state.head = nn.Linear(3, 3)`` for ``state.head(x)``): AIG301, citing the store."""
        held = self._attributes.holding(base, owner, bindings, path)
        if held is None:
            return None
        stored, node = held
        assert stored.holds is not None
        return Capture(body, parent, name, _assigned(stored), Inferred(stored.holds), node, laundered)

    def _mutates(self, body: Body, parameter: str) -> bool:
        """Whether the body changes its own parameter in place (a shared default container)."""
        return bool(self.tree.mutations_of(body.scope, parameter))

    def _defaults(self, body: Body) -> list[Capture]:
        params = all_params(body.node.params)
        outer = body.scope.parent or body.scope
        found = []
        for param in params:
            if param.default is None:
                continue
            inferred = self.inference.infer(param.default, outer)
            mutated = inferred.kind is Kind.MUTABLE and self._mutates(body, param.name.value)
            if inferred.kind.is_tensor_like or inferred.kind is Kind.NDARRAY or mutated:
                source = Source(Holder.DEFAULT)
                found.append(Capture(body, param.default, param.name.value, source, inferred))
        return found


#: Names a read of the environment starts from besides a module: ``from os import environ, getenv``.
_ENVIRON_NAMES = frozenset({"environ", "getenv"})


def _assigned(change: Change) -> Source:
    """Where a tensor or a module read through an attribute was stored: the function that
    assigns it, in another module as a place."""
    place = change.place
    return Source(
        Holder.ASSIGNED, change.function, place.path if place is not None else None, place.line if place else None
    )


def _receiver(body: Body) -> str | None:
    if not body.bound_self:
        return None
    params = all_params(body.node.params)
    return params[0].name.value if params else None


def _source(owner: Scope) -> Source:
    if owner.kind is ScopeKind.MODULE:
        return Source(Holder.MODULE)
    if owner.kind is ScopeKind.CLASS:
        return Source(Holder.CLASS_BODY, owner.name)
    return Source(Holder.ENCLOSING_FUNCTION, owner.name)


def _parents(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Child-to-parent links inside one registered body."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[child] = node
            stack.append(child)
    return parents
